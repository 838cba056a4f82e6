/* Module appended signatures: trailer parsing and verification. */
#include "modsig/modsig.h"
#include "util/le.h"

#include <stdlib.h>
#include <string.h>

int kt_modsig_parse(const uint8_t *buf, size_t len, struct kt_modsig_info *info,
                    struct kt_error *err)
{
    memset(info, 0, sizeof(*info));
    if (len < KT_MODSIG_MAGIC_LEN ||
        memcmp(buf + len - KT_MODSIG_MAGIC_LEN, KT_MODSIG_MAGIC, KT_MODSIG_MAGIC_LEN) != 0)
        return kt_fail(err, -ENODATA, KT_NO_OFFSET,
                       "no '~Module signature appended~' marker at the end");
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

int kt_modsig_verify_set(const uint8_t *buf, size_t len, const struct kt_trust_set *trust,
                         struct kt_modsig_result *res, struct kt_error *err)
{
    const uint8_t *mod;
    size_t mod_len;
    int rc;
    res->msg = NULL;
    res->owned = NULL;
    res->has_sig = false;
    rc = kt_modsig_decompress(buf, len, 0, &mod, &mod_len, &res->owned, &res->comp, err);
    if (rc < 0)
        return res->rc = rc;
    res->module_size = mod_len;
    rc = kt_modsig_parse(mod, mod_len, &res->info, err);
    if (rc < 0)
        return res->rc = rc;
    res->has_sig = true;

    /* the PKCS#7 is parsed over its own span: offsets in errors are relative
     * to it; shift them to the module */
    struct kt_error sub = {0};
    rc = kt_pkcs7_parse(res->info.sig.p, res->info.sig.len, &res->msg, &sub);
    if (rc < 0) {
        size_t off = sub.offset == KT_NO_OFFSET ? KT_NO_OFFSET : res->info.sig_offset + sub.offset;
        return res->rc = kt_fail(err, rc, off, "module signature: %s", sub.what);
    }
    res->msg->policy = res->policy;
    rc = kt_pkcs7_check_purpose(res->msg, KT_PURPOSE_MODULE, err);
    if (rc < 0)
        return res->rc = rc;
    rc = kt_pkcs7_verify(res->msg, mod, res->info.module_len, trust ? trust->all : NULL, &sub);
    if (rc < 0 && rc != -ENOPKG) {
        size_t off = sub.offset == KT_NO_OFFSET ? KT_NO_OFFSET : res->info.sig_offset + sub.offset;
        for (size_t i = 0; i < res->msg->n_signers; i++)
            res->msg->signers[i].verdict = res->msg->signers[i].verify_rc;
        return res->rc = kt_fail(err, rc, off, "%s", sub.what);
    }
    sub = (struct kt_error){0};
    rc = kt_pkcs7_validate_trust_set(res->msg, trust, &sub);
    if (rc < 0) {
        size_t off = sub.offset == KT_NO_OFFSET ? KT_NO_OFFSET : res->info.sig_offset + sub.offset;
        return res->rc = kt_fail(err, rc, off, "%s", sub.what);
    }
    return res->rc = 0;
}
