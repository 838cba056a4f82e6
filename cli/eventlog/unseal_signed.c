/* unseal_signed.c - a signed PCR policy's part of unseal-check's report
 * (systemd-cryptenroll --tpm2-public-key): the key, the UKI's PCR 11 at
 * enter-initrd and what its .pcrsig says; and, for a token that would not
 * unseal, the re-sign that keeps it working.  Nothing is re-enrolled: the
 * token unseals with any PCR 11 its key signed, so the new UKI's PCR 11 is
 * signed with systemd-measure sign (systemd 252) by the private key whose
 * public key the token holds, and the signature goes into the UKI's
 * .pcrsig. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "ktrust/advanced.h"
#include "ktrust/uki.h"
#include "unseal_check.h"

/* "7" or "4,7" (sep ","), or "4+7" (unseal_check.h). */
void unseal_pcr_list(uint32_t mask, char sep, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (unsigned i = 0; i < KT_EVLOG_PCRS && o + 4 < cap; i++)
        if (mask & (1u << i))
            o += (size_t)snprintf(out + o, cap - o, "%s%u", o ? (char[]){sep, 0} : "", i);
}

static const char *sig_text(enum kt_seal_sig s)
{
    switch (s) {
    case KT_SEAL_SIG_OK: return "signs it with the token's key";
    case KT_SEAL_SIG_NONE: return "the UKI has no .pcrsig";
    case KT_SEAL_SIG_NO_ENTRY:
        return "no entry for the token's bank and PCRs, its key's fingerprint and this PCR 11";
    case KT_SEAL_SIG_BAD: return "the entry's signature does not verify with the token's key";
    default: return ".pcrsig is not the JSON systemd reads";
    }
}

void unseal_signed_text(const struct kt_seal_token *t, const struct kt_seal_check *r,
                        const struct kt_seal_uki *uki)
{
    char fp[65], v[2 * KT_EVLOG_MAX_DIGEST + 1], ids[96];
    unseal_pcr_list(t->pubkey_pcrs, ',', ids, sizeof(ids));
    printf("  signed PCRs %s by key %s\n", ids[0] ? ids : "none",
           t->spki_len ? kt_hex(t->pkfp, 32, fp) : "(not an RSA key)");
    if (r->digest_len)
        printf("  policy digest: %s ktrust's (PolicyAuthorize%s%s)\n",
               r->digest_len == t->policy_len && !memcmp(r->digest, t->policy, t->policy_len)
                   ? "equals" : "differs from",
               t->pcrs ? " + PolicyPCR" : "", t->pin ? " + PolicyAuthValue" : "");
    char words[512] = "", cw[480];
    if (r->have_choice)
        snprintf(words, sizeof(words), " (%s)",
                 ev_uki_choice_words(r->uki_entry, r->uki_rule, cw, sizeof(cw)));
    if (uki && r->have_sig)
        printf("  UKI %s%s: PCR 11 at enter-initrd %s: .pcrsig %s\n", tx(kt_seal_uki_path(uki)),
               words, kt_hex(r->pcr11, r->pcr11_len, v), sig_text(r->sig));
}

void unseal_signed_json(struct jw *w, const struct kt_seal_token *t,
                        const struct kt_seal_check *r, const struct kt_seal_uki *uki)
{
    jw_obj(w, "signed");
    jw_hex(w, "pkfp", t->pkfp, t->spki_len ? 32 : 0);
    jw_arr(w, "signed_pcrs");
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
        if (t->pubkey_pcrs & (1u << i))
            jw_int(w, NULL, i);
    jw_arr_end(w);
    jw_hex(w, "computed_digest", r->digest, r->digest_len);
    jw_str(w, "uki", uki ? kt_seal_uki_path(uki) : r->uki[0] ? r->uki : NULL);
    if (r->have_choice) { /* which UKI and why (kt_sdboot_pick_uki) */
        jw_obj(w, "uki_choice");
        ev_uki_choice_fields(w, r->uki_image, r->uki_entry, r->uki_rule);
        jw_obj_end(w);
    } else {
        jw_null(w, "uki_choice");
    }
    jw_hex(w, "pcr11_enter_initrd", r->pcr11, r->have_sig ? r->pcr11_len : 0);
    jw_hex(w, "approved_policy", r->approved, r->have_sig ? 32 : 0);
    jw_str(w, "pcrsig", r->have_sig ? kt_seal_sig_name(r->sig) : NULL);
    jw_obj_end(w);
}

/* systemd-measure's options for the UKI's measured sections, in its
 * order (" --linux=LINUX ..."), and their placeholders ("LINUX, OSREL"). */
static void parts(const struct kt_seal_uki *uki, char *out, size_t cap, char *names, size_t ncap)
{
    static const char *const opt[][2] = {{".linux", "LINUX"}, {".osrel", "OSREL"},
                                         {".cmdline", "CMDLINE"}, {".initrd", "INITRD"},
                                         {".splash", "SPLASH"}, {".dtb", "DTB"},
                                         {".pcrpkey", "PCRPKEY"}};
    const struct kt_uki *u = kt_seal_uki_image(uki);
    const uint8_t *p;
    size_t o = 0, no = 0, len;
    out[0] = names[0] = 0;
    for (size_t i = 0; u && i < sizeof(opt) / sizeof(opt[0]); i++) {
        if (kt_uki_get(u, opt[i][0], &p, &len) < 0 || o + 32 > cap || no + 16 > ncap)
            continue;
        o += (size_t)snprintf(out + o, cap - o, " --%s=%s", opt[i][0] + 1, opt[i][1]);
        no += (size_t)snprintf(names + no, ncap - no, "%s%s", no ? ", " : "", opt[i][1]);
    }
}

size_t unseal_signed_reseal(const char *source, const struct kt_seal_token *t,
                            const struct kt_seal_check *r, const struct kt_seal_uki *uki,
                            struct reseal *out)
{
    if (!uki || !r->have_sig || r->sig == KT_SEAL_SIG_OK)
        return 0; /* the literal PCRs differ: no signature helps */
    char fp[65], v[2 * KT_EVLOG_MAX_DIGEST + 1], ap[65], sec[512], names[256], tok[32] = "";
    const char *bank = kt_evlog_alg_name(t->bank);
    parts(uki, sec, sizeof(sec), names, sizeof(names));
    if (t->token >= 0)
        snprintf(tok, sizeof(tok), "--token-id %d ", t->token);
    out[0].how = "systemd_measure_sign";
    snprintf(out[0].command, UNSEAL_CMD_MAX,
             "cryptsetup token export %s%s | jq -r .tpm2_pubkey | base64 -d >PUBKEY.pem && "
             "/usr/lib/systemd/systemd-measure sign%s --bank=%s --phase=enter-initrd "
             "--private-key=PRIVATE.pem --public-key=PUBKEY.pem >pcrsig.json",
             tok, t->token >= 0 ? source : "DEVICE", sec, bank);
    snprintf(out[0].then, sizeof(out[0].then),
             "(%s: the sections of %s as files; PRIVATE.pem: the private key of the token's "
             "key, fingerprint %s) objcopy --remove-section .pcrsig --add-section "
             ".pcrsig=pcrsig.json --change-section-vma .pcrsig=0x90000 %s UKI.new, sign UKI.new "
             "for Secure Boot again (sbsign) and install it in its place; nothing to wipe (the "
             "token stays).  It must then hold: pcrsig.json's %s entry has pcrs [11] and pol %s "
             "(PCR 11 %s at enter-initrd), no section of the UKI changes after signing%s",
             names, kt_seal_uki_path(uki), kt_hex(t->pkfp, 32, fp), kt_seal_uki_path(uki), bank,
             kt_hex(r->approved, 32, ap), kt_hex(r->pcr11, r->pcr11_len, v),
             t->pcrs ? ", and the token's literal PCRs keep their values" : "");
    return 1;
}
