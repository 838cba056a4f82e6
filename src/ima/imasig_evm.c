/* imasig_evm.c - portable EVM signatures in security.evm (type 5,
 * EVM_XATTR_PORTABLE_DIGSIG): evm_crypto.c's evm_calc_hmac_or_hash and
 * hmac_add_misc for the portable variant, checked as evm_main.c's
 * evm_verify_hmac does, with the key of the `.evm` keyring.  An HMAC
 * (type 2) needs the machine's EVM key and a type 3 EVM signature binds
 * the inode, its generation and the filesystem's UUID: neither is checked
 * offline, and the answer says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "ima/imasig.h"

/* evm_main.c's evm_config_default_xattrnames with SELinux, Smack and
 * AppArmor built in and CONFIG_IMA_APPRAISE (Debian's kernels; without
 * CONFIG_EVM_EXTRA_SMACK_XATTRS), in the kernel's order. */
static const char *const evm_xattrs[] = {
    "security.selinux", "security.SMACK64", "security.apparmor", "security.ima",
    "security.capability",
};

#define EVM_MISC_LEN 24 /* struct h_misc on a 64-bit kernel */

/* The portable hash: each protected xattr present, then struct h_misc
 * {unsigned long ino = 0, u32 generation = 0, uid_t uid, gid_t gid,
 * umode_t mode} as x86-64 lays it out (little-endian, 2 bytes of padding). */
static int portable_hash(const char *path, enum kt_hash h, uint8_t *out, bool *ima_present,
                         struct kt_error *err)
{
    enum { VAL_MAX = 65536 }; /* XATTR_SIZE_MAX */
    uint8_t *val = malloc(VAL_MAX);
    struct kt_digester *dg = NULL;
    int rc = val ? kt_digester_new(&dg, &h, 1) : -ENOMEM;
    if (rc < 0) {
        free(val);
        return rc;
    }
    *ima_present = false;
    for (size_t i = 0; i < sizeof(evm_xattrs) / sizeof(evm_xattrs[0]); i++) {
        ssize_t n = lgetxattr(path, evm_xattrs[i], val, VAL_MAX);
        if (n < 0 && errno != ENODATA && errno != ENOTSUP) {
            int e = errno;
            kt_digester_free(dg);
            free(val);
            return kt_fail(err, -e, KT_NO_OFFSET, "%s: %s", evm_xattrs[i], strerror(e));
        }
        if (n < 0)
            continue;
        kt_digester_update(dg, val, (size_t)n);
        if (!strcmp(evm_xattrs[i], "security.ima"))
            *ima_present = true;
    }
    free(val);
    struct stat st;
    if (lstat(path, &st) < 0) {
        int e = errno;
        kt_digester_free(dg);
        return kt_fail(err, -e, KT_NO_OFFSET, "%s", strerror(e));
    }
    uint8_t misc[EVM_MISC_LEN] = {0};
    uint32_t uid = st.st_uid, gid = st.st_gid;
    uint16_t mode = (uint16_t)st.st_mode;
    for (int i = 0; i < 4; i++) {
        misc[12 + i] = (uint8_t)(uid >> (8 * i));
        misc[16 + i] = (uint8_t)(gid >> (8 * i));
    }
    misc[20] = (uint8_t)mode;
    misc[21] = (uint8_t)(mode >> 8);
    kt_digester_update(dg, misc, sizeof(misc));
    uint8_t outs[1][KT_HASH_MAX_SIZE];
    rc = kt_digester_final(dg, outs);
    kt_digester_free(dg);
    memcpy(out, outs[0], kt_hash_size(h));
    return rc;
}

int kt_evm_verify_file(const struct kt_keyrings *k, const char *path,
                       const struct kt_ima_sig_opts *o, struct kt_ima_sig_check *out,
                       struct kt_error *err)
{
    memset(out, 0, sizeof(*out));
    uint8_t x[1024]; /* a signature of up to 8,000 bits: larger is refused */
    ssize_t n = lgetxattr(path, "security.evm", x, sizeof(x));
    if (n < 0 && errno == ERANGE)
        return kt_ima_check_set(out, -EBADMSG, "EVM: security.evm over %zu bytes", sizeof(x));
    if (n < 0 && errno != ENODATA && errno != ENOTSUP)
        return kt_fail(err, -errno, KT_NO_OFFSET, "security.evm: %s", strerror(errno));
    if (n <= 0)
        return kt_ima_check_set(out, -ENODATA, "EVM: no security.evm");
    if (x[0] == KT_EVM_XATTR_HMAC)
        return kt_ima_check_set(out, -ENOPKG, "EVM: an HMAC (type 2): only the machine's EVM "
                                "key can check it; not verifiable offline");
    if (x[0] == KT_EVM_IMA_XATTR_DIGSIG)
        return kt_ima_check_set(out, -ENOPKG, "EVM: a non-portable signature (type 3) covers the "
                                "inode number, generation and filesystem UUID; ktrust checks "
                                "portable ones (type 5)");
    if (x[0] != KT_EVM_XATTR_PORTABLE_DIGSIG)
        return kt_ima_check_set(out, -EBADMSG, "EVM: unknown security.evm type %u", x[0]);
    struct kt_error e = KT_ERROR_INIT;
    struct kt_ima_sig s;
    if (kt_ima_sig_parse(x, (size_t)n, &s, &e) < 0)
        return kt_ima_check_set(out, -EBADMSG, "EVM: %s", e.what);
    kt_ima_check_header(out, &s);
    if (s.version != 2)
        return kt_ima_check_set(out, -ENOPKG, "EVM: signature version %u", s.version);
    enum kt_hash h = kt_ima_hash_kt(s.hash_algo);
    if (h == KT_HASH_NONE)
        return kt_ima_check_set(out, -ENOPKG, "EVM: hash_algo %u: ktrust cannot compute it",
                                s.hash_algo);
    uint8_t dg[KT_HASH_MAX_SIZE];
    bool ima_present;
    KT_TRY(portable_hash(path, h, dg, &ima_present, err));
    if (!ima_present) /* evm_calc_hmac_or_hash: portable needs an IMA value */
        return kt_ima_check_set(out, -EKEYREJECTED, "EVM: a portable signature without "
                                "security.ima (the kernel refuses it: EPERM)");
    struct kt_ima_sig_opts eo = {.keyring = "evm", .allow_sha1 = o && o->allow_sha1};
    KT_TRY(kt_ima_sig_check_key(k, &eo, &s, dg, kt_hash_size(h), out));
    size_t l = strnlen(out->reason, sizeof(out->reason) - 6);
    memmove(out->reason + 5, out->reason, l);
    memcpy(out->reason, "EVM: ", 5);
    out->reason[l + 5] = 0;
    return 0;
}
