/* imalist_replay.c - the PCRs an IMA measurement list extends, replayed in
 * every bank asked for, as the kernel extends them: the SHA-1 bank with the
 * listed template digest; every other bank with that bank's hash of the
 * template data (ima_calc_field_array_hash, ima_crypto.c: in 6.1 only the
 * SHA-1 digest is listed); a violation (template digest all zeros) with all
 * ones in every bank (ima_add_template_entry, ima_queue.c).  Each entry's
 * data is checked against its listed digest (the list's own integrity).
 * The boot_aggregate is ima_calc_boot_aggregate's hash of PCRs 0-7 (and 8-9
 * in a bank other than sha1). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "ima/imalist.h"

static const uint16_t default_banks[] = {KT_TPM_ALG_SHA1, KT_TPM_ALG_SHA256};

static int banks_init(const struct kt_ima_opts *o, struct kt_ima_summary *s, struct kt_error *err)
{
    const uint16_t *b = o && o->n_banks ? o->banks : default_banks;
    size_t n = o && o->n_banks ? o->n_banks : 2;
    if (n > KT_EVLOG_MAX_BANKS)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "banks: more than %d", KT_EVLOG_MAX_BANKS);
    for (size_t k = 0; k < n; k++) {
        enum kt_hash h = kt_evlog_hash(b[k]);
        if (h == KT_HASH_NONE || !kt_hash_available(h))
            return kt_fail(err, -ENOPKG, KT_NO_OFFSET, "bank 0x%04x: not computed by ktrust", b[k]);
        s->pcrs.bank[k].alg = b[k];
        s->pcrs.bank[k].size = (uint16_t)kt_hash_size(h);
        s->pcrs.bank[k].supported = true;
        s->pcrs.bank[k].used[10] = true; /* CONFIG_IMA_MEASURE_PCR_IDX: checked even when
                                          * no entry extends it (an empty list) */
    }
    s->pcrs.n_banks = n;
    return 0;
}

/* The digest contexts of a replay, made once: the list's bank (the entry
 * data's check) and each replayed bank (its hash of the data, its extend).
 * A bank of the list's algorithm extends with the listed digest, which the
 * check has just matched against the data: one hash of the data serves both. */
struct hashers {
    struct kt_hasher *list;
    struct kt_hasher *bank[KT_EVLOG_MAX_BANKS];
};

static void hashers_free(struct hashers *x)
{
    kt_hasher_free(x->list);
    for (size_t b = 0; b < KT_EVLOG_MAX_BANKS; b++)
        kt_hasher_free(x->bank[b]);
}

static int hashers_init(struct hashers *x, const struct kt_ima_summary *s, uint16_t list_alg)
{
    memset(x, 0, sizeof(*x));
    int rc = kt_hasher_new(&x->list, kt_evlog_hash(list_alg));
    for (size_t b = 0; rc == 0 && b < s->pcrs.n_banks; b++)
        rc = kt_hasher_new(&x->bank[b], kt_evlog_hash(s->pcrs.bank[b].alg));
    return rc;
}

/* The entry's data against its listed digest: false when it differs. */
static int data_ok(struct hashers *x, const struct kt_ima_entry *e, bool *ok)
{
    uint8_t d[KT_HASH_MAX_SIZE];
    *ok = true;
    if (e->violation || !e->data.p)
        return 0;
    int rc = kt_hasher_digest(x->list, e->data.p, e->data.len, NULL, 0, d);
    if (rc == 0)
        *ok = !memcmp(d, e->template_digest.p, e->template_digest.len);
    return rc;
}

static int extend(struct hashers *x, struct kt_ima_summary *s, const struct kt_ima_entry *e,
                  uint16_t list_alg)
{
    for (size_t b = 0; b < s->pcrs.n_banks; b++) {
        uint8_t d[KT_HASH_MAX_SIZE];
        uint16_t alg = s->pcrs.bank[b].alg;
        size_t size = s->pcrs.bank[b].size;
        uint8_t *pcr = s->pcrs.bank[b].pcr[e->pcr];
        s->pcrs.bank[b].used[e->pcr] = true;
        if (!s->pcrs.bank[b].supported)
            continue;
        if (e->violation) {
            memset(d, 0xff, size);
        } else if (alg == list_alg) {
            memcpy(d, e->template_digest.p, size);
        } else if (!e->data.p) {
            s->pcrs.bank[b].supported = false; /* another template's ASCII form */
            continue;
        } else {
            int rc = kt_hasher_digest(x->bank[b], e->data.p, e->data.len, NULL, 0, d);
            if (rc < 0)
                return rc;
        }
        /* PCR = H(PCR || d), as kt_evlog_extend */
        int rc = kt_hasher_digest(x->bank[b], pcr, size, d, size, pcr);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The measured signature's verdict against the file digest the entry holds
 * (d-ng "ALGO:", d-ngv2 "ima:ALGO:" or "verity:ALGO:"), counted by signer. */
static int judge(const struct kt_ima_opts *o, struct kt_ima_summary *s, struct kt_ima_entry *e,
                 struct kt_ima_sig_check *c)
{
    const char *alg = e->file_alg;
    bool verity = !strncmp(alg, "verity:", 7);
    alg += verity ? 7 : !strncmp(alg, "ima:", 4) ? 4 : 0;
    int h = kt_ima_hash_from_name(alg);
    struct kt_ima_digest d = {(uint8_t)(h < 0 ? 0 : h), verity, e->file_digest.p, e->file_digest.len};
    int rc = kt_ima_sig_verify(o->keys, o->sig_opts, e->sig.p, e->sig.len, &d, c);
    if (rc < 0)
        return rc;
    e->sig_check = c;
    unsigned v = (unsigned)c->verdict <= KT_REFUSED ? (unsigned)c->verdict : KT_MALFORMED;
    s->sig_verdicts[v]++;
    if (!c->header_ok)
        return 0;
    for (size_t k = 0; k < s->n_signers; k++)
        if (s->signer[k].keyid == c->keyid && !strcmp(s->signer[k].signer, c->signer)) {
            s->signer[k].n[v]++;
            return 0;
        }
    if (s->n_signers == KT_IMA_MAX_SIGNERS) {
        s->signers_others++;
        return 0;
    }
    struct kt_ima_signer *r = &s->signer[s->n_signers++];
    r->keyid = c->keyid;
    snprintf(r->signer, sizeof(r->signer), "%s", c->signer);
    r->n[v]++;
    return 0;
}

static void tally(struct kt_ima_summary *s, const struct kt_ima_entry *e)
{
    s->entries++;
    s->violations += e->violation;
    s->by_template[e->tpl]++;
    if (e->index == 0 && e->decoded && e->file_name.len == 14 &&
        !memcmp(e->file_name.p, "boot_aggregate", 14) &&
        e->file_digest.len <= KT_EVLOG_MAX_DIGEST) {
        s->have_boot_aggregate = true;
        snprintf(s->boot_aggregate_alg, sizeof(s->boot_aggregate_alg), "%s", e->file_alg);
        s->boot_aggregate_len = e->file_digest.len;
        memcpy(s->boot_aggregate, e->file_digest.p, e->file_digest.len);
    } else if (e->has_sig_field && !e->violation) {
        s->with_sig += e->sig.len > 0;
        s->without_sig += e->sig.len == 0;
    }
}

int kt_ima_replay(const uint8_t *buf, size_t len, const struct kt_ima_opts *o,
                  struct kt_ima_summary *s, struct kt_error *err)
{
    memset(s, 0, sizeof(*s));
    struct kt_ima_reader r;
    uint16_t list_alg = o && o->digest_alg ? o->digest_alg : KT_TPM_ALG_SHA1;
    struct hashers x = {0};
    int rc = kt_ima_reader_init(&r, buf, len, o, err);
    if (rc == 0)
        rc = banks_init(o, s, err);
    if (rc == 0 && (rc = hashers_init(&x, s, list_alg)) < 0)
        kt_fail(err, rc, KT_NO_OFFSET, "digest contexts: %s", strerror(-rc));
    s->format = r.fmt;
    struct kt_ima_entry e;
    while (rc == 0 && (rc = kt_ima_reader_next(&r, &e, err)) == 1) {
        bool ok;
        if ((rc = data_ok(&x, &e, &ok)) < 0 || (rc = extend(&x, s, &e, list_alg)) < 0)
            break;
        if (!ok && !s->digest_mismatch++)
            s->first_mismatch = e.index;
        tally(s, &e);
        struct kt_ima_sig_check check;
        if (o && o->keys && e.sig.len && !e.violation && (rc = judge(o, s, &e, &check)) < 0)
            break;
        if (o && o->each && (rc = o->each(o->arg, &e)) < 0)
            break;
        rc = 0;
    }
    hashers_free(&x);
    kt_ima_reader_free(&r);
    return rc < 0 ? rc : 0;
}

/* PCR i of bank alg from the replay, else from the values read. */
static const uint8_t *pcr_value(const struct kt_evlog_pcrs *p, const struct kt_pcr_values *x,
                                uint16_t alg, unsigned i, size_t size)
{
    for (size_t b = 0; p && b < p->n_banks; b++)
        if (p->bank[b].alg == alg && p->bank[b].supported)
            return p->bank[b].pcr[i];
    for (size_t b = 0; x && b < x->n_banks; b++)
        if (x->bank[b].alg == alg && x->bank[b].have[i] && x->bank[b].len[i] == size)
            return x->bank[b].val[i];
    return NULL;
}

enum kt_ima_ba_status kt_ima_boot_aggregate_check(const struct kt_ima_summary *s,
                                                  const struct kt_evlog_pcrs *replayed,
                                                  const struct kt_pcr_values *read,
                                                  uint8_t *computed)
{
    if (!s->have_boot_aggregate)
        return KT_IMA_BA_ABSENT;
    bool zero = true;
    for (size_t k = 0; k < s->boot_aggregate_len; k++)
        zero &= !s->boot_aggregate[k];
    if (zero)
        return KT_IMA_BA_NO_TPM;
    uint16_t alg = kt_evlog_alg_from_name(s->boot_aggregate_alg);
    enum kt_hash h = kt_evlog_hash(alg);
    size_t size = kt_hash_size(h);
    if (!size || size != s->boot_aggregate_len || !kt_hash_available(h))
        return KT_IMA_BA_NO_VALUES;
    unsigned n = alg == KT_TPM_ALG_SHA1 ? 8 : 10;
    uint8_t all[10 * KT_EVLOG_MAX_DIGEST], d[KT_HASH_MAX_SIZE];
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *v = pcr_value(replayed, read, alg, i, size);
        if (!v)
            return KT_IMA_BA_NO_VALUES;
        memcpy(all + i * size, v, size);
    }
    if (kt_digest(h, all, n * size, d) < 0)
        return KT_IMA_BA_NO_VALUES;
    if (computed)
        memcpy(computed, d, size);
    return memcmp(d, s->boot_aggregate, size) ? KT_IMA_BA_MISMATCH : KT_IMA_BA_MATCH;
}
