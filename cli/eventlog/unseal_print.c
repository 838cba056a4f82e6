/* unseal_print.c - one sealed token's verdict, today and after the change,
 * and the re-seal to run before the change so that the disk still unlocks
 * after it: clevis binds to a given PCR digest (pcr_digest: the selected
 * PCR values concatenated, base64url, as `tpm2_pcrread -o` writes them);
 * systemd-cryptenroll takes PCR values from version 255 on
 * (--tpm2-pcrs=7:sha256=HEX); 252 to 254 cannot, so the honest fallback is
 * the recovery key at hand and a re-enrolment after the first boot. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ktrust/advanced.h"
#include "unseal_check.h"

/* base64url without padding (clevis' jose b64). */
static void b64url(const uint8_t *p, size_t n, char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        out[o++] = a[v >> 18 & 63];
        out[o++] = a[v >> 12 & 63];
        if (i + 1 < n)
            out[o++] = a[v >> 6 & 63];
        if (i + 2 < n)
            out[o++] = a[v & 63];
    }
    out[o] = 0;
}

#define CMD_MAX UNSEAL_CMD_MAX

/* --pcrlock FILE: the record set of the next boot, for the pcrlock re-seal */
static const char *pcrlock_file;

void unseal_set_pcrlock(const char *file)
{
    pcrlock_file = file;
}

/* the UKI that boots, for signed policies */
static const struct kt_seal_uki *boot_uki;

void unseal_set_uki(const struct kt_seal_uki *uki)
{
    boot_uki = uki;
}

const struct kt_seal_uki *unseal_uki(void)
{
    return boot_uki;
}

static size_t reseals(const char *source, const struct kt_seal_token *t,
                      const struct kt_seal_check *r, struct reseal *out)
{
    const char *dev = t->token >= 0 ? source : "DEVICE"; /* a token file names no device */
    char ids[96], slot[16];
    const char *bank = kt_evlog_alg_name(t->bank);
    snprintf(slot, sizeof(slot), t->keyslot >= 0 ? "%d" : "SLOT", t->keyslot);
    if (t->tool == KT_SEAL_CLEVIS) {
        uint8_t cat[KT_EVLOG_PCRS * KT_EVLOG_MAX_DIGEST];
        char b64[sizeof(cat) * 4 / 3 + 8];
        size_t n = 0, k = 0;
        for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
            if (t->pcrs & (1u << i))
                memcpy(cat + n, r->after_values[k++], r->value_len), n += r->value_len;
        b64url(cat, n, b64);
        unseal_pcr_list(t->pcrs, ',', ids, sizeof(ids));
        out[0].how = "clevis_pcr_digest";
        snprintf(out[0].command, CMD_MAX, "clevis luks bind -d %s tpm2 '{\"pcr_bank\":\"%s\","
                 "\"pcr_ids\":\"%s\",\"pcr_digest\":\"%s\"}'", dev, bank, ids, b64);
        snprintf(out[0].then, sizeof(out[0].then), "after the first boot with the change: "
                 "clevis luks unbind -d %s -s %s (the old binding no longer unseals)", dev, slot);
        return 1;
    }
    size_t o = 0;
    char spec[KT_EVLOG_PCRS * (2 * KT_EVLOG_MAX_DIGEST + 16)], hex[2 * KT_EVLOG_MAX_DIGEST + 1];
    spec[0] = 0;
    for (unsigned i = 0, k = 0; i < KT_EVLOG_PCRS; i++)
        if (t->pcrs & (1u << i))
            o += (size_t)snprintf(spec + o, sizeof(spec) - o, "%s%u:%s=%s", o ? "+" : "", i, bank,
                                  kt_hex(r->after_values[k++], r->value_len, hex));
    const char *pin = t->kind == KT_SEAL_KIND_PIN_PCR ? " --tpm2-with-pin=yes" : "";
    out[0].how = "systemd_cryptenroll_255";
    snprintf(out[0].command, CMD_MAX, "systemd-cryptenroll %s --tpm2-device=auto --tpm2-pcrs=%s%s "
             "(systemd 255 and later)", dev, spec, pin);
    snprintf(out[0].then, sizeof(out[0].then), "after the first boot with the change: "
             "systemd-cryptenroll %s --wipe-slot=%s", dev, slot);
    unseal_pcr_list(t->pcrs, '+', ids, sizeof(ids));
    out[1].how = "recovery_key";
    snprintf(out[1].command, CMD_MAX, "systemd 252 to 254 cannot seal to predicted PCR values: "
             "have the recovery key at hand for the first boot after the change");
    snprintf(out[1].then, sizeof(out[1].then), "after that boot: systemd-cryptenroll %s "
             "--wipe-slot=tpm2 --tpm2-device=auto --tpm2-pcrs=%s%s", dev, ids, pin);
    if (!pcrlock_file)
        return 2;
    unseal_pcr_list(t->pcrs, ',', ids, sizeof(ids));
    out[2].how = "systemd_pcrlock";
    snprintf(out[2].command, CMD_MAX, "mkdir -p /var/lib/pcrlock.d/750-ktrust-next.pcrlock.d && "
             "cp %s /var/lib/pcrlock.d/750-ktrust-next.pcrlock.d/next.pcrlock && "
             "systemd-pcrlock make-policy --pcr=%s && systemd-cryptenroll %s --tpm2-device=auto "
             "--tpm2-pcrlock=/var/lib/systemd/pcrlock.json%s (systemd 256 and later: the policy "
             "admits today's boot and the next one)", pcrlock_file, ids, dev, pin);
    snprintf(out[2].then, sizeof(out[2].then), "after the first boot with the change: "
             "systemd-cryptenroll %s --wipe-slot=%s (the slot bound to raw PCRs), and once no "
             "variant but the new boot's is needed, systemd-pcrlock make-policy again", dev, slot);
    return 3;
}

static void reseal_lines(const struct reseal *rs, size_t n_rs, const char *indent)
{
    for (size_t i = 0; i < n_rs; i++) {
        printf("%s%s %s\n", indent, i ? "or:" : "re-seal before the change:", rs[i].command);
        printf("%s  then %s\n", indent, rs[i].then);
    }
}

static size_t reseal_for(const char *source, const struct kt_seal_token *t,
                         const struct kt_seal_check *r, struct reseal *rs)
{
    if (r->have_after && r->after == KT_SEAL_FAILS && r->value_len && t->kind <= KT_SEAL_KIND_PIN_PCR)
        return reseals(source, t, r, rs);
    if (t->kind == KT_SEAL_KIND_SIGNED && (r->have_after ? r->after : r->today) == KT_SEAL_FAILS)
        return unseal_signed_reseal(source, t, r, boot_uki, rs);
    return 0;
}

void unseal_reseal_print(const char *source, const struct kt_seal_token *t,
                         const struct kt_seal_check *r, const char *indent)
{
    static struct reseal rs[3];
    reseal_lines(rs, reseal_for(source, t, r, rs), indent);
}

static const char *why_text(enum kt_seal_why w, const struct kt_seal_token *t)
{
    switch (w) {
    case KT_SEAL_WHY_KIND: return t->note[0] ? t->note : "a policy ktrust does not recompute";
    case KT_SEAL_WHY_NO_BANK: return "no PCR values of its bank";
    case KT_SEAL_WHY_NO_PCR: return "a PCR it is bound to was not read (or is not in the event log)";
    case KT_SEAL_WHY_HASH: return "a hash ktrust cannot compute";
    case KT_SEAL_WHY_NO_UKI:
        return "a signed PCR policy: it unseals with the PCR 11 a UKI's .pcrsig signs, and no "
               "UKI was given (--uki FILE) or found (--esp DIR: one UKI in EFI/Linux)";
    case KT_SEAL_WHY_KEY: return t->note[0] ? t->note : "a signed PCR policy whose digest ktrust "
                                 "does not reproduce from its key (tpm2_pubkey)";
    case KT_SEAL_WHY_LATE_PCR:
        return "a signed PCR policy over PCR 10 or 15-23 (tpm2_pubkey_pcrs): their values at the "
               "initrd's unlock are not today's (the running system extends them after), and "
               "ktrust does not predict them";
    default: return "";
    }
}

static void verdict_json(struct jw *w, const char *key, enum kt_seal_verdict v)
{
    if (v == KT_SEAL_CANNOT_TELL)
        jw_null(w, key);
    else
        jw_bool(w, key, v == KT_SEAL_UNSEALS);
}

static void print_json(const char *source, const struct kt_seal_token *t,
                       const struct kt_seal_check *r, const char *today_src,
                       const struct reseal *rs, size_t n_rs)
{
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "type", "token");
    jw_str(&w, "source", source);
    if (t->token >= 0)
        jw_int(&w, "token", t->token);
    else
        jw_null(&w, "token");
    jw_str(&w, "tool", kt_seal_tool_name(t->tool));
    jw_str(&w, "kind", kt_seal_kind_name(t->kind));
    jw_str(&w, "bank", kt_evlog_alg_name(t->bank));
    jw_arr(&w, "pcrs");
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
        if (t->pcrs & (1u << i))
            jw_int(&w, NULL, i);
    jw_arr_end(&w);
    if (t->keyslot >= 0)
        jw_int(&w, "keyslot", t->keyslot);
    else
        jw_null(&w, "keyslot");
    jw_hex(&w, "policy_digest", t->policy, t->policy_len);
    if (t->kind == KT_SEAL_KIND_SIGNED)
        unseal_signed_json(&w, t, r, boot_uki);
    jw_str(&w, "pcrs_today", today_src);
    verdict_json(&w, "unseals_today", r->today);
    if (r->have_after)
        verdict_json(&w, "unseals_after", r->after);
    else
        jw_null(&w, "unseals_after");
    jw_arr(&w, "changed_pcrs");
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
        if (r->changed & (1u << i))
            jw_int(&w, NULL, i);
    jw_arr_end(&w);
    enum kt_seal_why why = r->have_after ? r->why_after : r->why_today;
    jw_str(&w, "reason", why ? why_text(why, t) : NULL);
    if (n_rs) {
        jw_arr(&w, "reseal");
        for (size_t i = 0; i < n_rs; i++) {
            jw_obj(&w, NULL);
            jw_str(&w, "how", rs[i].how);
            jw_str(&w, "command", rs[i].command);
            jw_str(&w, "then", rs[i].then);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
    } else {
        jw_null(&w, "reseal");
    }
    jw_obj_end(&w);
    jw_newline(&w);
}

static const char *vword(enum kt_seal_verdict v)
{
    return v == KT_SEAL_UNSEALS ? "unseals" : v == KT_SEAL_FAILS ? "does NOT unseal" : "cannot tell";
}

static void print_text(const char *source, const struct kt_seal_token *t,
                       const struct kt_seal_check *r, const char *today_src,
                       const struct reseal *rs, size_t n_rs)
{
    char ids[96];
    unseal_pcr_list(t->pcrs, ',', ids, sizeof(ids));
    char num[32] = "", slot[32] = "";
    if (t->token >= 0)
        snprintf(num, sizeof(num), " %d", t->token);
    if (t->keyslot >= 0)
        snprintf(slot, sizeof(slot), ", key slot %d", t->keyslot);
    printf("%s: token%s (%s, %s policy, %s PCRs %s%s)\n", tx(source), num,
           kt_seal_tool_name(t->tool), kt_seal_kind_name(t->kind), kt_evlog_alg_name(t->bank),
           ids[0] ? ids : "none", slot);
    if (r->today == KT_SEAL_FAILS)
        printf("  today: does NOT unseal with the PCRs of %s: the next boot already asks for the "
               "recovery key, whatever the change\n", today_src);
    else
        printf("  today: %s (PCRs of %s)%s%s\n", vword(r->today), today_src,
               r->today == KT_SEAL_CANNOT_TELL ? ": " : "",
               r->today == KT_SEAL_CANNOT_TELL ? why_text(r->why_today, t) : "");
    if (t->kind == KT_SEAL_KIND_SIGNED)
        unseal_signed_text(t, r, boot_uki);
    if (!r->have_after && n_rs)
        reseal_lines(rs, n_rs, "  ");
    if (!r->have_after)
        return;
    char ch[96];
    unseal_pcr_list(r->changed, ',', ch, sizeof(ch));
    printf("  after the change: %s", vword(r->after));
    if (r->after == KT_SEAL_CANNOT_TELL)
        printf(": %s", why_text(r->why_after, t));
    printf(r->changed ? " (PCR %s changes)\n" : " (none of its PCRs changes)\n", ch);
    reseal_lines(rs, n_rs, "  ");
}

void unseal_print(const char *source, const struct kt_seal_token *t,
                  const struct kt_seal_check *r, const char *today_src, bool json, bool quiet,
                  struct unseal_tally *tally)
{
    static struct reseal rs[3];
    enum kt_seal_verdict v = r->have_after ? r->after : r->today;
    size_t n_rs = reseal_for(source, t, r, rs);
    tally->unseals += v == KT_SEAL_UNSEALS;
    tally->fails += v == KT_SEAL_FAILS;
    tally->cannot_tell += v == KT_SEAL_CANNOT_TELL;
    tally->fails_today += r->today == KT_SEAL_FAILS;
    if (json)
        print_json(source, t, r, today_src, rs, n_rs);
    else if (!quiet || v != KT_SEAL_UNSEALS)
        print_text(source, t, r, today_src, rs, n_rs);
}
