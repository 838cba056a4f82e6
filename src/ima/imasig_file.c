/* imasig_file.c - a file as IMA appraisal judges it (ima_appraise.c's
 * ima_appraise_measurement): security.ima (or evmctl's FILE.sig) against
 * the file's content hashed with the signature's algorithm
 * (ima_get_hash_algo), else an appended modsig (ima_modsig.c) against the
 * `.ima` keyring; and the `.ima` keyring of a run (digsig.c's
 * integrity_init_keyring: restrict_link_to_ima). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ima/imasig.h"
#include "ktrust/advanced.h"
#include "keys/keyring.h"
#include "modsig/modsig.h"
#include "policy/load.h"
#include "policy/restrict.h"
#include "util/file.h"

#define IMA_XATTR "security.ima"

int kt_ima_ring_prepare(struct kt_keyrings *k, bool machine_ca, struct kt_error *err)
{
    struct kt_ima_kconfig c;
    kt_ima_kconfig_assume(&c, machine_ca);
    return kt_ima_ring_prepare_config(k, &c, err);
}

int kt_ima_ring_add_file(struct kt_keyrings *k, const char *path, size_t *n_added,
                         size_t *n_refused, struct kt_error *err)
{
    return kt_ima_ring_add_file_to(k, "ima", path, n_added, n_refused, err);
}

/* A certificate the restriction refused (kt_keyrings_add_blob_skip goes on
 * with the next one): kept aside; any other refusal is remembered. */
struct aside {
    struct kt_keyrings *k;
    char name[80], src[4096];
    size_t n;
    struct kt_error first;
};

static void set_aside(void *ctx, size_t index, const uint8_t *der, size_t len,
                      const struct kt_error *why)
{
    (void)index;
    struct aside *a = ctx;
    struct kt_error e = KT_ERROR_INIT;
    int rc = why->code;
    if (rc == -EPERM) {
        struct kt_keyring *r = kt_keyrings_get(a->k, a->name);
        if (!r && kt_keyring_create(a->k, a->name, KT_RESTRICT_NONE, NULL, 0, &e) == 0)
            r = kt_keyrings_get(a->k, a->name);
        size_t before = r ? kt_keyring_count(r) : 0;
        rc = r ? kt_keyring_add(a->k, r, der, len, a->src, KT_ADD_EXPLICIT, NULL, &e) : -ENOMEM;
        if (rc == 0) {
            a->n++;
            kt_key_set_ephemeral(kt_keyring_key(r, before), true); /* never saved */
        }
        why = &e;
    }
    if (rc < 0 && rc != -EEXIST && !a->first.code)
        a->first = *why;
}

int kt_ima_ring_add_file_to(struct kt_keyrings *k, const char *ring, const char *path,
                            size_t *n_added, size_t *n_refused, struct kt_error *err)
{
    size_t na = 0;
    struct aside a = {.k = k, .first = KT_ERROR_INIT};
    snprintf(a.name, sizeof(a.name), "%s-refused", ring);
    snprintf(a.src, sizeof(a.src), "file:%s", path);
    KT_TRY(kt_ima_ring_prepare(k, false, err));
    struct kt_keyring *ima = kt_keyrings_get(k, ring);
    struct kt_file f;
    if (!ima)
        return kt_fail(err, -ENOENT, KT_NO_OFFSET, "no keyring %s", ring);
    KT_TRY(kt_file_open(path, &f, err));
    size_t before = kt_keyring_count(ima);
    /* each certificate on its own, as each is a key the kernel links or
     * refuses: a refused one does not stop the next */
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_keyrings_add_blob_skip(k, ima, f.data, f.len, a.src, KT_ADD_EXPLICIT, &na,
                                       set_aside, &a, &e);
    kt_file_close(&f);
    for (size_t i = before; i < kt_keyring_count(ima); i++)
        kt_key_set_ephemeral(kt_keyring_key(ima, i), true);
    if (rc == 0 || rc == -EPERM || rc == -EEXIST)
        rc = a.first.code;
    if (rc < 0 && err && !err->code)
        *err = a.first.code ? a.first : e;
    if (n_added)
        *n_added = na;
    if (n_refused)
        *n_refused = a.n;
    return rc < 0 ? rc : 0;
}

/* security.ima of path itself, never of what a link points to, in *buf
 * (malloc'd, the caller frees it; NULL and *len 0: none).  -errno when it
 * cannot be read. */
static int read_xattr(const char *path, uint8_t **buf, size_t *len, struct kt_error *err)
{
    *buf = NULL;
    *len = 0;
    for (int tries = 0; tries < 4; tries++) { /* it may change between the calls */
        ssize_t need = lgetxattr(path, IMA_XATTR, NULL, 0);
        if (need <= 0)
            break;
        uint8_t *b = malloc((size_t)need);
        if (!b)
            return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
        ssize_t n = lgetxattr(path, IMA_XATTR, b, (size_t)need);
        if (n >= 0) {
            *buf = b;
            *len = (size_t)n;
            return 0;
        }
        free(b);
        if (errno != ERANGE)
            break;
    }
    if (errno == ENODATA || errno == ENOTSUP || errno == 0)
        return 0;
    return kt_fail(err, -errno, KT_NO_OFFSET, "%s: %s", IMA_XATTR, strerror(errno));
}

static int hash_file(const uint8_t *p, size_t n, uint8_t algo, struct kt_ima_file_result *out)
{
    enum kt_hash h = kt_ima_hash_kt(algo);
    out->digest_algo = algo;
    out->digest_len = 0;
    if (h == KT_HASH_NONE)
        return -ENOPKG;
    KT_TRY(kt_digest(h, p, n, out->digest));
    out->digest_len = kt_hash_size(h);
    return 0;
}

/* ima_policy.c's func= names; the last three are ima_hook_supports_modsig's. */
static const char *const funcs[] = {
    "FILE_CHECK", "MMAP_CHECK", "MMAP_CHECK_REQPROT", "BPRM_CHECK", "CREDS_CHECK",
    "POST_SETATTR", "FIRMWARE_CHECK", "POLICY_CHECK", "KEXEC_CMDLINE", "KEY_CHECK",
    "CRITICAL_DATA", "SETXATTR_CHECK", "MODULE_CHECK", "KEXEC_KERNEL_CHECK",
    "KEXEC_INITRAMFS_CHECK",
};
#define FIRST_MODSIG_FUNC 12

static int func_index(const char *name)
{
    for (size_t i = 0; name && i < sizeof(funcs) / sizeof(funcs[0]); i++)
        if (!strcmp(name, funcs[i]))
            return (int)i;
    return -1;
}

bool kt_ima_func_known(const char *name)
{
    return func_index(name) >= 0;
}

/* A modsig that verified, when the hook is not said: no verdict of trust. */
static void modsig_hook_unknown(struct kt_ima_file_result *m)
{
    if (m->check.error == 0)
        kt_ima_check_set(&m->check, -ENOPKG, "modsig signed by '%s', but a modsig counts only "
                         "for MODULE_CHECK, KEXEC_KERNEL_CHECK and KEXEC_INITRAMFS_CHECK "
                         "(ima_hook_supports_modsig): the hook that appraises this file is "
                         "not given", m->check.signer);
}

/* An appended modsig on an uncompressed file, against `.ima` (or the
 * keyring the options name): integrity_modsig_verify. */
static int check_modsig(const struct kt_keyrings *k, const uint8_t *p, size_t n,
                        const struct kt_ima_sig_opts *so, struct kt_ima_file_result *out)
{
    struct kt_error e = KT_ERROR_INIT;
    struct kt_modsig_info info;
    if (kt_modsig_parse(p, n, &info, NULL) == -ENODATA)
        return -ENODATA;
    struct kt_ima_sig_check *c = &out->check;
    memset(c, 0, sizeof(*c));
    out->source = "modsig";
    if (kt_modsig_detect(p, n) != KT_MODSIG_NONE)
        return kt_ima_check_set(c, -ENOPKG, "a compressed file with a modsig: ktrust checks an "
                                "IMA modsig on the file's own bytes only");
    struct kt_trust_set set = {.all = k, .what = "IMA appraisal"};
    const struct kt_keyring *r = kt_ima_ring_find(k, so && so->keyring ? so->keyring : "ima");
    if (r)
        set.rings[set.n++] = r;
    struct kt_modsig_result res;
    memset(&res, 0, sizeof(res));
    res.policy.allow_sha1 = so && so->allow_sha1;
    int rc = kt_modsig_verify_set(p, n, &set, &res, &e);
    if (res.has_sig)
        hash_file(p, res.info.module_len, KT_IMA_HASH_SHA256, out);
    if (res.msg && res.msg->n_signers) {
        const struct kt_pkcs7_signer *s = &res.msg->signers[0];
        const struct kt_key *key = s->trusted_by ? s->trusted_by : s->signer_key;
        if (key) {
            c->key = key;
            snprintf(c->signer, sizeof(c->signer), "%s", kt_key_cert(key)->description);
        }
    }
    kt_modsig_result_free(&res);
    if (rc == 0)
        return kt_ima_check_set(c, 0, "modsig signed by '%s'", c->signer);
    return kt_ima_check_set(c, rc, "modsig: %s", e.what[0] ? e.what : kt_verdict_name(kt_verdict_of(rc)));
}

/* A kernel built without CONFIG_IMA_APPRAISE_MODSIG never reads a modsig
 * (ima_read_modsig is a stub returning -EOPNOTSUPP): true when the config
 * says so; the reason then says that a trailer present was not read. */
static bool modsig_configured_out(const struct kt_ima_file_opts *o, const uint8_t *p, size_t n,
                                  struct kt_ima_file_result *out)
{
    if (!o || !o->kconfig || !o->kconfig->given || o->kconfig->modsig)
        return false;
    struct kt_modsig_info info;
    if (kt_modsig_parse(p, n, &info, NULL) == -ENODATA)
        return true;
    char why[sizeof(out->check.reason)];
    snprintf(why, sizeof(why), "%s", out->check.reason);
    kt_ima_check_set(&out->check, out->check.error, "%s (an appended modsig is not read: "
                     "CONFIG_IMA_APPRAISE_MODSIG unset)", why);
    return true;
}

static int check_xattr(const struct kt_keyrings *k, const uint8_t *p, size_t n,
                       const uint8_t *x, size_t xl, const struct kt_ima_file_opts *o,
                       struct kt_ima_file_result *out)
{
    uint8_t fallback = o && o->ima_hash ? o->ima_hash : KT_IMA_HASH_SHA256;
    uint8_t algo = kt_ima_sig_hash_algo(x, xl, fallback);
    bool verity = x[0] == KT_IMA_VERITY_DIGSIG;
    if (verity) {
        /* the fs-verity digest fsverity enable's defaults give */
        algo = KT_IMA_HASH_SHA256;
        out->digest_algo = algo;
        out->verity = true;
        KT_TRY(kt_ima_verity_digest(p, n, KT_HASH_SHA256, 12, out->digest, &out->digest_len));
    } else {
        hash_file(p, n, algo, out);
    }
    struct kt_ima_digest d = {algo, verity, out->digest, out->digest_len};
    KT_TRY(kt_ima_sig_verify(k, o ? &o->sig : NULL, x, xl, &d, &out->check));
    if (x[0] == KT_IMA_XATTR_DIGEST_NG || x[0] == KT_IMA_XATTR_DIGEST) {
        size_t off = x[0] == KT_IMA_XATTR_DIGEST_NG ? 2 : 1;
        bool match = out->digest_len && xl >= off + out->digest_len &&
                     !memcmp(x + off, out->digest, out->digest_len);
        kt_ima_check_set(&out->check, -ENODATA, "a %s digest, not a signature (it %s the file)",
                         kt_ima_hash_name(algo) ? kt_ima_hash_name(algo) : "?",
                         match ? "matches" : "does not match");
    }
    return 0;
}

/* ima_appraise_measurement asks EVM first (evm_verifyxattr): a file whose
 * EVM value does not pass fails whatever its IMA signature says. */
static int fold_evm(const struct kt_keyrings *k, const char *path,
                    const struct kt_ima_file_opts *o, struct kt_ima_file_result *out,
                    struct kt_error *err)
{
    KT_TRY(kt_evm_verify_file(k, path, &o->sig, &out->evm, err));
    out->evm_checked = true;
    if (out->evm.error == 0)
        return 0;
    out->check.error = out->evm.error;
    out->check.verdict = out->evm.verdict;
    memcpy(out->check.reason, out->evm.reason, sizeof(out->check.reason));
    return 0;
}

int kt_ima_verify_file(const struct kt_keyrings *k, const char *path,
                       const struct kt_ima_file_opts *o, struct kt_ima_file_result *out,
                       struct kt_error *err)
{
    if (!path || !out)
        return -EINVAL;
    memset(out, 0, sizeof(*out));
    struct stat st;
    if (lstat(path, &st) < 0)
        return kt_fail(err, -errno, KT_NO_OFFSET, "%s", strerror(errno));
    if (S_ISLNK(st.st_mode))
        return kt_fail(err, -ELOOP, KT_NO_OFFSET, "a symbolic link: its security.ima is not the "
                       "file's; name the file it points to");
    if (!S_ISREG(st.st_mode))
        return kt_fail(err, -EINVAL, KT_NO_OFFSET, "not a regular file");
    uint8_t *xbuf = NULL;
    size_t xl = 0;
    struct kt_file sf = {0};
    const uint8_t *x = xbuf;
    if (o && o->sigfile) {
        struct kt_error se = KT_ERROR_INIT;
        struct stat ss;
        /* FILE.sig is named by convention, not by the user: a FIFO there
         * would block the open (a hang), a device read without end */
        int rc = stat(o->sigfile, &ss) == 0 && !S_ISREG(ss.st_mode)
                     ? kt_fail(&se, -EINVAL, KT_NO_OFFSET, "not a regular file")
                     : kt_file_open(o->sigfile, &sf, &se);
        if (rc < 0 && rc != -ENOENT) { /* none is no signature, as no xattr */
            if (err && !err->code)
                *err = se;
            return kt_error_prefix(err, "%s", o->sigfile);
        }
        x = sf.data;
        xl = rc < 0 ? 0 : sf.len;
    } else {
        KT_TRY(read_xattr(path, &xbuf, &xl, err));
        x = xbuf;
    }
    struct kt_file f = {0};
    int rc = kt_file_open(path, &f, err);
    if (rc < 0) {
        kt_file_close(&sf);
        free(xbuf);
        return rc;
    }
    if (xl) {
        out->source = o && o->sigfile ? "sigfile" : IMA_XATTR;
        rc = check_xattr(k, f.data, f.len, x, xl, o, out);
    } else {
        kt_ima_check_set(&out->check, -ENODATA, "no %s", o && o->sigfile ? "signature file "
                         "and no modsig" : "security.ima and no modsig");
    }
    /* ima_appraise_measurement: the modsig when there is no xattr
     * signature, the xattr is a digest, or the xattr's key is unknown */
    int hook = func_index(o ? o->func : NULL);
    bool try_mod = rc == 0 && !(o && o->no_modsig) && (hook < 0 || hook >= FIRST_MODSIG_FUNC) &&
                   (!xl || x[0] == KT_IMA_XATTR_DIGEST_NG || out->check.error == -ENOKEY);
    if (try_mod && modsig_configured_out(o, f.data, f.len, out))
        try_mod = false;
    if (try_mod) {
        struct kt_ima_file_result m = *out;
        if (check_modsig(k, f.data, f.len, o ? &o->sig : NULL, &m) != -ENODATA) {
            if (hook < 0)
                modsig_hook_unknown(&m);
            *out = m;
        }
    }
    kt_file_close(&f);
    kt_file_close(&sf);
    free(xbuf);
    if (rc == 0 && o && o->evm)
        rc = fold_evm(k, path, o, out, err);
    return rc;
}
