/* Module appended signatures: trailer parsing and verification. */
#include "modsig/modsig.h"
#include "util/fmt.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

int kt_modsig_parse(const uint8_t *buf, size_t len, struct kt_modsig_info *info,
                    struct kt_error *err)
{
    memset(info, 0, sizeof(*info));
    if (len < KT_MODSIG_MAGIC_LEN ||
        memcmp(buf + len - KT_MODSIG_MAGIC_LEN, KT_MODSIG_MAGIC, KT_MODSIG_MAGIC_LEN) != 0) {
        char why[256];
        kt_modsig_describe_missing(buf, len, why, sizeof(why));
        return kt_fail(err, -ENODATA, KT_NO_OFFSET, "no module signature marker: %s", why);
    }
    size_t flen = len - KT_MODSIG_MAGIC_LEN; /* the module with its signature */
    if (flen <= KT_MODSIG_STRUCT_LEN)
        return kt_fail(err, -EBADMSG, 0, "module_signature: file too short for the signature struct");
    size_t ms_off = flen - KT_MODSIG_STRUCT_LEN;
    /* struct module_signature: algo, hash, id_type, signer_len, key_id_len,
     * 3 pad bytes, __be32 sig_len (within the file: checked above) */
    kt_le file, ms;
    const uint8_t *pad;
    kt_le_init(&file, buf, len, NULL);
    kt_le_window(&file, ms_off, KT_MODSIG_STRUCT_LEN, &ms, NULL);
    kt_le_u8(&ms, &info->algo, NULL);
    kt_le_u8(&ms, &info->hash, NULL);
    kt_le_u8(&ms, &info->id_type, NULL);
    kt_le_u8(&ms, &info->signer_len, NULL);
    kt_le_u8(&ms, &info->key_id_len, NULL);
    kt_le_bytes(&ms, 3, &pad, NULL);
    kt_le_u32be(&ms, &info->sig_len, NULL);
    if (info->sig_len >= flen - KT_MODSIG_STRUCT_LEN)
        return kt_fail(err, -EBADMSG, ms_off + 8,
                       "module_signature: sig_len %u reaches before the start of the file",
                       info->sig_len);
    if (info->id_type != KT_MODSIG_PKEY_ID_PKCS7)
        return kt_fail(err, -ENOPKG, ms_off + 2,
                       "module_signature: id_type %u is not PKCS#7 (2)", info->id_type);
    if (info->algo || info->hash || info->signer_len || info->key_id_len || pad[0] || pad[1] ||
        pad[2])
        return kt_fail(err, -EBADMSG, ms_off,
                       "module_signature: algo/hash/signer_len/key_id_len/pad must be zero");
    info->module_len = ms_off - info->sig_len;
    info->sig_offset = info->module_len;
    info->sig.p = buf + info->module_len;
    info->sig.len = info->sig_len;
    return 0;
}

void kt_modsig_result_free(struct kt_modsig_result *res)
{
    if (!res)
        return;
    kt_pkcs7_free(res->msg);
    res->msg = NULL;
    free(res->owned);
    res->owned = NULL;
}

/* Shift a PKCS#7 error's offset (relative to the signature) to the module. */
static int sig_fail(struct kt_modsig_result *res, struct kt_error *err, int rc,
                    const struct kt_error *sub, const char *prefix)
{
    size_t off = sub->offset == KT_NO_OFFSET ? KT_NO_OFFSET : res->info.sig_offset + sub->offset;
    return res->rc = kt_fail(err, rc, off, "%s%s", prefix, sub->what);
}

/* The content's digests (hs[0..n_digests)) and the whole file's SHA-256,
 * in one pass: the SHA-256 of the content goes on over the trailer (a
 * module signed with SHA-256 costs nothing more; another algorithm, one
 * more digest of the same bytes).  Over the payload when it is whole, else
 * over buf decoded again, the trailer from the tail held. */
static int digest_payload(struct kt_modsig_result *res, const struct kt_modsig_payload *pl,
                          const uint8_t *buf, size_t len, enum kt_hash *hs, struct kt_error *err)
{
    size_t n = res->n_digests, fi = 0, mlen = res->info.module_len;
    while (fi < n && hs[fi] != KT_HASH_SHA256)
        fi++;
    if (fi == n && n == KT_HASH__COUNT)
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "too many digest algorithms");
    hs[fi] = KT_HASH_SHA256; /* past n when no signer uses it: computed, not a signer's */
    size_t nh = fi == n ? n + 1 : n;
    const uint8_t *tail = pl->p + (mlen - (pl->total - pl->len));
    size_t tail_len = pl->total - mlen;
    int rc = 0;
    res->has_file_sha256 = true;
    if (pl->len < pl->total) {
        struct kt_modsig_whole w = {fi, tail, tail_len, res->file_sha256};
        return kt_modsig_digest_stream(buf, len, res->comp, mlen, hs, nh, res->digest_bytes, &w,
                                       err);
    }
    for (size_t k = 0; k < nh && rc == 0; k++)
        rc = k == fi ? kt_digest_and_more(hs[k], pl->p, mlen, tail, tail_len,
                                          res->digest_bytes[k], res->file_sha256)
                     : kt_digest(hs[k], pl->p, mlen, res->digest_bytes[k]);
    return rc < 0 ? kt_fail(err, rc, KT_NO_OFFSET, "digest of the content failed") : 0;
}

/* The module's digest for each distinct signer algorithm libktrust computes
 * (verify_all refuses the others before it looks for a digest); at least one
 * entry, so that kt_pkcs7_verify_digests never falls back to embedded
 * content.  Over the payload when it is whole, else over buf decoded again. */
static int digest_module(struct kt_modsig_result *res, const struct kt_modsig_payload *pl,
                         const struct kt_modsig_compact *cm, const uint8_t *buf, size_t len,
                         struct kt_error *err)
{
    enum kt_hash hs[KT_HASH__COUNT];
    res->n_digests = 0;
    for (size_t i = 0; i < res->msg->n_signers; i++) {
        enum kt_hash h = res->msg->signers[i].digest_alg;
        bool have = false;
        for (size_t k = 0; k < res->n_digests; k++)
            have |= hs[k] == h;
        if (have || !kt_hash_available(h) || res->n_digests == KT_HASH__COUNT)
            continue;
        hs[res->n_digests++] = h;
    }
    int rc = 0;
    for (size_t k = 0; cm && k < res->n_digests && rc == 0; k++) { /* a saved module's */
        size_t j = 0;
        while (j < cm->n && cm->hash[j] != hs[k])
            j++;
        if (j == cm->n)
            rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET, "saved module: no %s digest",
                         kt_hash_name(hs[k]));
        else
            memcpy(res->digest_bytes[k], cm->digest[j], kt_hash_size(hs[k]));
    }
    if (cm) {
        res->has_file_sha256 = cm->has_file_sha256;
        memcpy(res->file_sha256, cm->file_sha256, sizeof(res->file_sha256));
    } else {
        rc = digest_payload(res, pl, buf, len, hs, err);
    }
    for (size_t k = 0; k < res->n_digests; k++)
        res->digests[k] = (struct kt_pkcs7_digest){hs[k], res->digest_bytes[k]};
    if (res->n_digests == 0)
        res->digests[res->n_digests++] = (struct kt_pkcs7_digest){KT_HASH_NONE, res->digest_bytes[0]};
    return rc;
}

/* The trailer of a payload held whole or by its tail: offsets in the tail
 * moved to the module's. */
static int parse_payload(const struct kt_modsig_payload *pl, struct kt_modsig_info *info,
                         struct kt_error *err)
{
    if (pl->len == pl->total)
        return kt_modsig_parse(pl->p, pl->len, info, err);
    size_t skip = pl->total - pl->len;
    struct kt_error sub = KT_ERROR_INIT;
    int rc = kt_modsig_parse(pl->p, pl->len, info, &sub);
    if (rc == -ENODATA)
        return kt_fail(err, rc, KT_NO_OFFSET,
                       "no module signature marker: the %zu-byte module does not end with it",
                       pl->total);
    if (rc < 0 && info->sig_len >= pl->len - KT_MODSIG_MAGIC_LEN - KT_MODSIG_STRUCT_LEN)
        return kt_fail(err, -E2BIG, pl->total - KT_MODSIG_MAGIC_LEN - 4,
                       "module_signature: sig_len %u: a module over %zu MiB may carry at most "
                       "%zu MiB of signature",
                       info->sig_len, KT_MODSIG_WHOLE_MAX >> 20, KT_MODSIG_TAIL_MAX >> 20);
    if (rc < 0)
        return kt_fail(err, rc, sub.offset == KT_NO_OFFSET ? sub.offset : skip + sub.offset,
                       "%s", sub.what);
    info->module_len += skip;
    info->sig_offset += skip;
    return 0;
}

/* A PKCS#7 that carries its content signs that content: the module must be
 * it.  When only the tail is held, the content (inside the signature, at
 * most KT_MODSIG_TAIL_MAX bytes) cannot be the module (over
 * KT_MODSIG_WHOLE_MAX - KT_MODSIG_TAIL_MAX bytes). */
static bool content_differs(const struct kt_modsig_result *res, const struct kt_modsig_payload *pl,
                            const struct kt_modsig_compact *cm)
{
    if (!res->msg->has_content)
        return false;
    return cm || pl->len < pl->total || res->msg->content.len != res->info.module_len ||
           memcmp(res->msg->content.p, pl->p, res->info.module_len) != 0;
}

int kt_modsig_prepare(const uint8_t *buf, size_t len, bool keep, struct kt_modsig_result *res,
                      struct kt_error *err)
{
    struct kt_modsig_payload pl;
    int rc;
    res->msg = NULL;
    res->owned = NULL;
    res->has_sig = false;
    res->n_digests = 0;
    res->has_file_sha256 = false;
    struct kt_modsig_compact cmb, *cm = NULL;
    rc = res->saved_ok ? kt_modsig_compact_parse(buf, len, &cmb, err) : -ENOENT;
    if (rc == 0) { /* a saved module: its signature and digests */
        cm = &cmb;
        /* with the header's last byte: kt_modsig_parse wants content before the signature */
        pl = (struct kt_modsig_payload){cm->trailer - 1, cm->trailer_len + 1,
                                        cm->trailer_len + 1, NULL};
        res->comp = cm->comp;
    } else if (rc != -ENOENT || (rc = kt_modsig_load(buf, len, &pl, &res->comp, err)) < 0) {
        return res->rc = rc;
    }
    uint8_t *dec = pl.owned;
    res->owned = dec;
    res->module_size = cm ? cm->size : pl.total;
    rc = parse_payload(&pl, &res->info, err);
    if (rc < 0)
        goto out;
    if (cm) { /* the trailer's offsets are the module's */
        res->info.module_len = cm->signed_len;
        res->info.sig_offset = cm->signed_len;
    }
    res->has_sig = true;
    if (keep) { /* the signature outlives buf: parse a copy */
        uint8_t *copy = malloc(res->info.sig.len ? res->info.sig.len : 1);
        if (!copy) {
            rc = kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
            goto out;
        }
        memcpy(copy, res->info.sig.p, res->info.sig.len);
        res->info.sig.p = copy;
        res->owned = copy;
    }

    /* the PKCS#7 is parsed over its own span: offsets in errors are relative
     * to it; shift them to the module */
    struct kt_error sub = KT_ERROR_INIT;
    rc = kt_pkcs7_parse(res->info.sig.p, res->info.sig.len, &res->msg, &sub);
    if (rc < 0) {
        rc = sig_fail(res, err, rc, &sub, "module signature: ");
        goto out;
    }
    res->msg->policy = res->policy;
    rc = kt_pkcs7_check_purpose(res->msg, KT_VERIFY_PURPOSE_MODULE, err);
    if (rc < 0)
        goto out;
    if (content_differs(res, &pl, cm)) {
        for (size_t i = 0; i < res->msg->n_signers; i++)
            res->msg->signers[i].verdict = res->msg->signers[i].verify_rc;
        rc = kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET,
                     "the data given differs from the content inside the message");
        goto out;
    }
    rc = digest_module(res, &pl, cm, buf, len, err);
    if (rc == 0 && keep) { /* held until the keys come: only the bytes, parsed again then */
        kt_pkcs7_free(res->msg);
        res->msg = NULL;
    }
out:
    if (keep && dec) { /* the decompressed module is not needed any more */
        if (res->owned == dec) { /* failed before the copy: nothing points here */
            res->owned = NULL;
            res->info.sig = (kt_span){0};
        }
        free(dec);
    }
    return res->rc = rc;
}

/* After a good signature, a kernel with trust->hash_check_why looks the
 * whole file's SHA-256 up among the blacklist's bin: hashes (distro.h). */
static int hash_check(struct kt_modsig_result *res, const struct kt_trust_set *trust,
                      struct kt_error *err)
{
    enum kt_hash algs[KT_HASH__COUNT];
    size_t n = trust && trust->hash_check_why && trust->all
                   ? kt_blacklist_bin_algs(trust->all, algs) : 0;
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any |= algs[i] == KT_HASH_SHA256;
    if (!any)
        return 0;
    if (!res->has_file_sha256) {
        res->via = NULL;
        return kt_fail(err, -ENOPKG, KT_NO_OFFSET,
                       "cannot tell: the saved module does not hold the whole file's SHA-256, "
                       "which %s looks up among the blacklisted hashes (save it again)",
                       trust->hash_check_why);
    }
    if (!kt_blacklist_has_bin(trust->all, KT_HASH_SHA256, res->file_sha256))
        return 0;
    char hex[2 * sizeof(res->file_sha256) + 1];
    kt_hex(res->file_sha256, sizeof(res->file_sha256), hex);
    res->via = NULL;
    return kt_fail(err, -EKEYREJECTED, KT_NO_OFFSET,
                   "module hash %s is blacklisted (a bin: hash; the SHA-256 of the whole file, "
                   "signature included): %s refuses it after its signature verifies "
                   "(mod_is_hash_blacklisted)",
                   hex, trust->hash_check_why);
}

int kt_modsig_finish(struct kt_modsig_result *res, const struct kt_trust_set *trust,
                     struct kt_error *err)
{
    res->via = NULL;
    if (res->rc < 0 || !res->has_sig)
        return res->rc;
    struct kt_error sub = KT_ERROR_INIT;
    int rc;
    if (!res->msg) { /* prepared with keep: the copy parsed as it was then */
        if ((rc = kt_pkcs7_parse(res->info.sig.p, res->info.sig.len, &res->msg, &sub)) < 0)
            return sig_fail(res, err, rc, &sub, "module signature: ");
        res->msg->policy = res->policy;
    }
    rc = kt_pkcs7_verify_digests(res->msg, res->digests, res->n_digests,
                                     trust ? trust->all : NULL, &sub);
    if (rc < 0 && rc != -ENOPKG) {
        for (size_t i = 0; i < res->msg->n_signers; i++)
            res->msg->signers[i].verdict = res->msg->signers[i].verify_rc;
        return sig_fail(res, err, rc, &sub, "");
    }
    sub = (struct kt_error){0};
    rc = kt_pkcs7_validate_trust_set(res->msg, trust, &sub);
    if (rc == -ENOKEY && trust && trust->retry) {
        /* mod_verify_sig calls verify_pkcs7_signature again with the retry
         * keyring only when the first call found no key: a rejection
         * (blacklisted, bad signature) stays.  Its ENOKEY keeps the first
         * call's reason (it names where the key is). */
        struct kt_trust_set again = {.all = trust->all, .rings = {trust->retry}, .n = 1,
                                     .what = trust->what};
        struct kt_error re = KT_ERROR_INIT;
        int rr = kt_pkcs7_validate_trust_set(res->msg, &again, &re);
        if (rr == 0)
            res->via = trust->retry_why;
        if (rr != -ENOKEY) {
            rc = rr;
            sub = re;
        } else { /* the signers' reasons of the first call, again */
            sub = (struct kt_error){0};
            rc = kt_pkcs7_validate_trust_set(res->msg, trust, &sub);
        }
    }
    if (rc < 0)
        return sig_fail(res, err, rc, &sub, "");
    return res->rc = hash_check(res, trust, err);
}

int kt_modsig_verify_set(const uint8_t *buf, size_t len, const struct kt_trust_set *trust,
                         struct kt_modsig_result *res, struct kt_error *err)
{
    if (kt_modsig_prepare(buf, len, false, res, err) < 0)
        return res->rc;
    return kt_modsig_finish(res, trust, err);
}
