/* ktrust/ima.h - IMA file signatures (the kernel's security/integrity/):
 * the security.ima value (or an evmctl FILE.sig, or the ima-sig template's
 * "sig" field) checked against a file digest and the `.ima` keyring.
 *
 *   kt_ima_sig_verify()     one signature blob against a digest: THE check
 *                           (imalist's ima-sig entries call it too)
 *   kt_ima_sig_hash_algo()  the algorithm the kernel hashes the file with
 *                           for a given security.ima (ima_get_hash_algo)
 *   kt_ima_ring_prepare()   the `.ima` keyring of a run, with the kernel's
 *                           restriction (restrict_link_to_ima)
 *   kt_ima_verify_file()    a file: security.ima, FILE.sig or an appended
 *                           modsig, read and hashed as the kernel would
 *
 * Algorithms are numbered as the kernel's enum hash_algo
 * (include/uapi/linux/hash_info.h: 2 sha1, 4 sha256, 5 sha384, 6 sha512,
 * 7 sha224 ...), the number an IMA signature header carries.
 */
#ifndef KTRUST_IMA_H
#define KTRUST_IMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/keyring.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first byte of security.ima / security.evm (enum evm_ima_xattr_type). */
enum kt_ima_xattr_type {
    KT_IMA_XATTR_DIGEST = 1,          /* a bare digest (md5/sha1, old) */
    KT_EVM_XATTR_HMAC = 2,            /* EVM HMAC: needs the machine's secret */
    KT_EVM_IMA_XATTR_DIGSIG = 3,      /* a signature (v2 header) */
    KT_IMA_XATTR_DIGEST_NG = 4,       /* algo byte + digest */
    KT_EVM_XATTR_PORTABLE_DIGSIG = 5, /* portable EVM signature */
    KT_IMA_VERITY_DIGSIG = 6,         /* v3 signature over an fs-verity digest */
};

/* The kernel's enum hash_algo values ktrust names. */
#define KT_IMA_HASH_MD5 1
#define KT_IMA_HASH_SHA1 2
#define KT_IMA_HASH_SHA256 4
#define KT_IMA_HASH_SHA384 5
#define KT_IMA_HASH_SHA512 6
#define KT_IMA_HASH_SHA224 7
#define KT_IMA_HASH__LAST 23 /* HASH_ALGO__LAST since Linux 6.7 (sha3-*) */

/* The digest a signature is checked against. */
struct kt_ima_digest {
    uint8_t algo;           /* enum hash_algo of the digest */
    bool verity;            /* an fs-verity file digest (v3, IMA_VERITY_DIGSIG) */
    const uint8_t *bytes;
    size_t len;
};

/* Options of a check (NULL: the defaults). */
struct kt_ima_sig_opts {
    const char *keyring;    /* the keyring searched by key id; NULL: "ima" (the kernel's .ima) */
    bool allow_sha1;        /* accept SHA-1 (ktrust refuses it by default) */
};

/* The verdict on one signature. */
struct kt_ima_sig_check {
    enum kt_verdict verdict;
    int error;              /* 0 or the kernel's -errno (-EKEYREJECTED, -ENOKEY ...) */
    char reason[400];       /* one line for a person */
    /* the header, when it parsed (header_ok) */
    bool header_ok;
    uint8_t type, version, hash_algo;
    uint32_t keyid;         /* as the kernel searches it: "id:%08x" */
    uint16_t sig_size;
    const char *hash_name;  /* the kernel's hash_algo_name ("sha256"), static; NULL if unknown */
    /* the key: the one that verified, else the one the kernel would try */
    const struct kt_key *key;   /* NULL when no key has the key id; owned by the keyrings */
    char signer[256];           /* its kernel description, "" when none */
    size_t n_candidates;        /* keys of the keyring whose id ends with keyid */
    unsigned linux_since;       /* KT_LINUX of the first kernel whose verifier takes
                                 * the hash with the key's type (sha3-*: 6.7), 0: any */
};

/* Check one IMA signature blob -- the security.ima value, evmctl's
 * FILE.sig, or an ima-sig template's "sig" field: type byte, then
 * signature_v2_hdr {version, hash_algo, be32 keyid, be16 sig_size} and the
 * signature -- against digest d (what the kernel measured: the file's
 * content hashed with the signature's algorithm, or its fs-verity digest
 * for a v3 IMA_VERITY_DIGSIG) with the key named by its key id in the
 * keyring o->keyring of k (the kernel's xattr_verify,
 * integrity_digsig_verify, asymmetric_verify).  k may be NULL (no keys).
 * Returns 0 when *out holds a verdict (whatever it is), -ENOMEM or
 * -EINVAL (NULL arguments) otherwise. */
KT_API int kt_ima_sig_verify(const struct kt_keyrings *k, const struct kt_ima_sig_opts *o,
                             const uint8_t *sig, size_t sig_len, const struct kt_ima_digest *d,
                             struct kt_ima_sig_check *out);

/* The algorithm the kernel hashes a file with when its security.ima is
 * xattr (ima_get_hash_algo): a v2 signature's hash_algo, a digest_ng's
 * algorithm byte; otherwise fallback (the kernel's ima_hash algorithm). */
KT_API uint8_t kt_ima_sig_hash_algo(const uint8_t *xattr, size_t len, uint8_t fallback);

/* The kernel's name of an enum hash_algo value ("sha256", "sm3", "sha3-256"),
 * NULL past the kernel's table. */
KT_API const char *kt_ima_hash_name(uint8_t algo);
/* The enum hash_algo value of a name ("sha256"), or -1. */
KT_API int kt_ima_hash_from_name(const char *name);

/* ---- the kernel's configuration (imakconfig.c) ----------------------------
 * What the kernel was built with decides which keyring IMA appraisal
 * searches and who may add to it; a bzImage does not say (Debian builds
 * without CONFIG_IKCONFIG), so it comes from the kernel's config file
 * (/boot/config-RELEASE).  Each field is a CONFIG_ symbol set to y. */
struct kt_ima_kconfig {
    bool given;            /* read from a config file; false: the assumption
                            * ktrust makes without one (kt_ima_kconfig_assume) */
    bool trusted_keyring;  /* CONFIG_INTEGRITY_TRUSTED_KEYRING: the restricted
                            * `.ima`/`.evm`; unset: `_ima`/`_evm`, no restriction */
    bool permit_secondary; /* CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY */
    bool machine_keyring;  /* CONFIG_INTEGRITY_MACHINE_KEYRING: .machine linked
                            * into .secondary_trusted_keys */
    bool ca_machine;       /* CONFIG_INTEGRITY_CA_MACHINE_KEYRING (6.4) */
    bool ca_machine_max;   /* CONFIG_INTEGRITY_CA_MACHINE_KEYRING_MAX (6.4) */
    bool modsig;           /* CONFIG_IMA_APPRAISE_MODSIG: an appended modsig is read */
    bool asymmetric_keys;  /* CONFIG_INTEGRITY_ASYMMETRIC_KEYS: signatures v2/v3
                            * checked with a key at all (a config needs it =y) */
    bool system_trusted;   /* CONFIG_SYSTEM_TRUSTED_KEYRING */
    unsigned seen;         /* which symbols the file names (set or not set),
                            * one bit per symbol read, in the parser's order */
};

/* Today's assumption without a config file: the restricted `.ima`, builtin
 * and secondary vouch (machine too with machine_ca), a modsig is read. */
KT_API void kt_ima_kconfig_assume(struct kt_ima_kconfig *c, bool machine_ca);

/* Parse a kernel config (scripts/kconfig's .config: "CONFIG_NAME=VALUE",
 * "# CONFIG_NAME is not set", comments, blank lines; the last setting of a
 * symbol wins, an absent symbol is unset).  Every line is checked; a line of
 * another form, or a symbol ktrust reads set to other than y or n, is
 * -EBADMSG with err "line N: what" (offset: the line's).  A config must
 * decide the rule, never leave it to a default: CONFIG_INTEGRITY_ASYMMETRIC_KEYS
 * must be there (not set: -EOPNOTSUPP, the kernel checks no signature with
 * a key), and CONFIG_INTEGRITY_TRUSTED_KEYRING named, set or not (or absent
 * only because CONFIG_SYSTEM_TRUSTED_KEYRING is named not set); else
 * -EBADMSG "... not found: not a whole kernel config".  Bounded: lines of
 * at most 4096 bytes, files of at most 16 MiB. */
KT_API int kt_ima_kconfig_parse(const uint8_t *buf, size_t len, struct kt_ima_kconfig *c,
                                struct kt_error *err);
/* kt_ima_kconfig_parse of a file (err says what, the caller names the file). */
KT_API int kt_ima_kconfig_read(const char *path, struct kt_ima_kconfig *c, struct kt_error *err);

/* The keyring rule c makes (digsig.c's keyring_name, integrity_init_keyring,
 * restrict_link_to_ima). */
struct kt_ima_ring_rule {
    const char *name;          /* the kernel's keyring: ".ima" or "_ima" */
    bool restricted;           /* false: any key user space imports (`_ima`) */
    const char *vouchers[3];   /* the keyrings whose keys must have signed a key */
    size_t n_vouchers;
    bool assumed;              /* no config was given: the rule is assumed */
    char text[320];            /* one line for a person */
};
KT_API void kt_ima_ring_rule(const struct kt_ima_kconfig *c, struct kt_ima_ring_rule *r);

/* The run's `.ima` and `.evm` keyrings as c says (kt_ima_ring_prepare's,
 * or with no restriction for `_ima`/`_evm`).  A store's own keyring is
 * used as it is. */
KT_API int kt_ima_ring_prepare_config(struct kt_keyrings *k, const struct kt_ima_kconfig *c,
                                      struct kt_error *err);

/* The `.ima` keyring of a run: made when k has none, with the kernel's
 * restriction (digsig.c's restrict_link_to_ima with
 * CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY: a key signed
 * by a key of builtin or secondary; with machine_ca, as
 * CONFIG_INTEGRITY_CA_MACHINE_KEYRING links machine into secondary, by
 * machine's too).  A store's own `.ima` is used as it is.  -ENOMEM. */
KT_API int kt_ima_ring_prepare(struct kt_keyrings *k, bool machine_ca, struct kt_error *err);
/* (kt_ima_ring_prepare makes the run's `.evm` keyring, "evm", the same way.) */
/* Add the certificates of a file to `.ima` for this run (never saved),
 * obeying its restriction.  A certificate the restriction refuses is kept
 * aside, so that a signature by it is judged "refused" (-EPERM) and not
 * "unknown key"; *n_refused counts them (may be NULL).  Errors: the
 * file's and the parser's (a refusal is not one). */
KT_API int kt_ima_ring_add_file(struct kt_keyrings *k, const char *path, size_t *n_added,
                                size_t *n_refused, struct kt_error *err);

/* The same for another keyring of the run prepared there ("evm": the
 * kernel's .evm, with the same restriction). */
KT_API int kt_ima_ring_add_file_to(struct kt_keyrings *k, const char *ring, const char *path,
                                   size_t *n_added, size_t *n_refused, struct kt_error *err);

/* A file's security.evm, when it is a portable EVM signature (type 5,
 * evmctl sign --portable): the hash evm_calc_hmac_or_hash makes for it
 * (the protected xattrs present -- security.selinux, .SMACK64, .apparmor,
 * .ima, .capability -- then uid, gid and mode, no inode number, generation
 * or filesystem UUID, in a 64-bit kernel's struct h_misc), checked with the
 * key of the `.evm` keyring.  An HMAC (type 2) and an inode-bound
 * signature (type 3) are answered unsupported (-ENOPKG): not verifiable
 * offline.  No security.evm: -ENODATA in out.  Returns 0 with a verdict,
 * or the xattr read's error. */
KT_API int kt_evm_verify_file(const struct kt_keyrings *k, const char *path,
                              const struct kt_ima_sig_opts *o, struct kt_ima_sig_check *out,
                              struct kt_error *err);

/* Where kt_ima_verify_file takes the signature from. */
struct kt_ima_file_opts {
    struct kt_ima_sig_opts sig;
    const char *sigfile;   /* an evmctl FILE.sig (the security.ima value) instead
                            * of the xattr; NULL: security.ima */
    bool no_modsig;        /* never look for an appended modsig */
    uint8_t ima_hash;      /* the kernel's ima_hash= (the algorithm for a file
                            * whose xattr names none); 0: sha256 */
    bool evm;              /* EVM is on: security.evm is checked first
                            * (kt_evm_verify_file), as evm_verifyxattr is */
    const char *func;      /* the IMA hook that appraises the file (a policy
                            * rule's func=, kt_ima_func_known): a modsig counts
                            * only under MODULE_CHECK, KEXEC_KERNEL_CHECK and
                            * KEXEC_INITRAMFS_CHECK (ima_hook_supports_modsig);
                            * NULL: not said, so a modsig that verifies is
                            * unsupported (-ENOPKG): no hook is known to take it */
    const struct kt_ima_kconfig *kconfig; /* the kernel's config; NULL or not
                            * given: assumed.  Without CONFIG_IMA_APPRAISE_MODSIG
                            * a modsig is never read (ima_read_modsig's stub) */
};

/* Is name one of the kernel's IMA hooks (ima_policy.c's func= values)? */
KT_API bool kt_ima_func_known(const char *name);

/* A file's verdict. */
struct kt_ima_file_result {
    struct kt_ima_sig_check check;
    const char *source;    /* "security.ima", "sigfile", "modsig"; NULL: none found */
    uint8_t digest_algo;   /* the file's digest as the kernel computes it for that */
    uint8_t digest[64];    /* signature (ima_collect_measurement; for a modsig,   */
    size_t digest_len;     /* the file without its signature); 0: not computed */
    bool verity;           /* digest is the fs-verity digest (SHA-256, 4096-byte
                            * blocks, no salt: fsverity enable's defaults) */    bool evm_checked;      /* o->evm: evm is security.evm's verdict; when it is
                            * not trusted, check is that verdict too */
    struct kt_ima_sig_check evm;
};

/* Verify a file as IMA appraisal does (ima_appraise_measurement): its
 * security.ima read with lgetxattr (a symbolic link is refused, -ELOOP:
 * the kernel appraises the file it points to), or o->sigfile, the file's
 * content hashed with the signature's algorithm; an appended modsig
 * (ima_modsig.c) when there is no xattr signature, the xattr holds only a
 * digest, or its key is unknown.  o may be NULL.  Returns 0 when *out has
 * a verdict; -ENOENT, -EACCES, -ELOOP ... (with err) when the file or the
 * signature file cannot be read. */
KT_API int kt_ima_verify_file(const struct kt_keyrings *k, const char *path,
                              const struct kt_ima_file_opts *o, struct kt_ima_file_result *out,
                              struct kt_error *err);

#ifdef __cplusplus
}
#endif
#endif
