/* verify_int.h - the context and result of include/ktrust/verify.h, for
 * the library and the ktrust program (which prints every field). */
#ifndef KT_VERIFY_VERIFY_INT_H
#define KT_VERIFY_VERIFY_INT_H

#include "authvar/authvar.h"
#include "ktrust/verify.h"
#include "modsig/modsig.h"
#include "pe/pe_verify.h"
#include "pkcs7/pkcs7_check.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "policy/restrict.h"
#include "sbat/sbat.h"
#include "scan/detect.h"
#include "store/store.h"
#include "util/file.h"

struct kt_ctx_bg; /* ctx_kernel.c: a kernel image decoded in the background */

struct kt_ctx {
    struct kt_ctx_bg *bg;     /* NULL: nothing runs in the background */
    struct kt_keyrings *rings;
    struct kt_store *store;   /* NULL: none, or a writer's store not made yet */
    char *store_path;         /* what store_mode named (NULL: none) */
    enum kt_ctx_store_mode mode;
    bool make_dirs;
    bool committed;
};

/* For the files of the context: a message to o->msg (printf-style), and
 * the error of an option's file ("--trust FILE: ..."; ctx_msg.c). */
void kt_ctx_say(const struct kt_ctx_opts *o, enum kt_ctx_msg kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int kt_ctx_option_error(int rc, const char *opt, const char *path, const uint8_t *p, size_t n,
                        const char *want, struct kt_error *err);
/* --kernel: the image's compiled-in keys into builtin, through the store's
 * cache when the context reads a store (ctx_kernel.c); or the same on a
 * thread of its own (kernel_in_background), joined by kt_ctx_wait_keys. */
int kt_ctx_add_kernel(struct kt_ctx *ctx, const struct kt_ctx_opts *o, struct kt_error *err);
int kt_ctx_start_kernel(struct kt_ctx *ctx, const struct kt_ctx_opts *o, struct kt_error *err);
void kt_ctx_end_kernel(struct kt_ctx *ctx);

/* The keyrings of a const context (kt_ctx_keyrings: ktrust/verify.h). */
const struct kt_keyrings *kt_ctx_keyrings_const(const struct kt_ctx *ctx);

/* kt_ctx_wrong_kind (what a file given where certificates are wanted is
 * instead): ktrust/advanced.h. */

/* kt_ctx_add_key_file (the keys of one file into a ring): ktrust/advanced.h. */

/* A signer's timestamp (PE countersignature or RFC 3161 token). */
struct kt_signer_ts {
    const char *kind;             /* "rfc3161", "countersignature" */
    int64_t time;
    const struct kt_x509 *signer; /* TSA certificate, or NULL */
    const struct kt_key *trusted_by;
    int verdict;                  /* 0 / -errno */
};

/* One signature of a result (pointers into the result or the keyrings). */
struct kt_signer {
    int index;
    enum kt_hash digest_alg;
    const uint8_t *digest;        /* NULL or digest_len 0: none */
    size_t digest_len;
    const struct kt_x509 *signer; /* the certificate, or NULL: then the id below */
    kt_span signer_issuer;        /* Name TLV of the signer id (issuer+serial) */
    kt_span signer_serial;        /* INTEGER content bytes */
    kt_span signer_skid;          /* SKID signer id */
    const struct kt_x509 *const *chain;
    size_t chain_len;
    const struct kt_key *trusted_by;
    int verdict;                  /* 0 / -errno */
    const char *reason;           /* NULL when trusted */
    bool time_invalid;            /* a chain certificate is outside its validity period */
    const struct kt_x509 *time_invalid_cert;
    const struct kt_signer_ts *timestamp; /* NULL: none */
    const struct kt_signer *nested;       /* nested signatures (PE) */
    size_t n_nested;
};

/* A signer from a kt_pkcs7 signer after verify/validate_trust; reason is
 * the fallback when the signer has no reason of its own. */
void kt_signer_from_pkcs7(struct kt_signer *s, const struct kt_pkcs7_signer *si,
                          const char *reason);

/* A tree of signers (PE nested signatures): arrays owned together. */
struct kt_signer_tree {
    struct kt_signer *sigs;
    struct kt_signer_ts *ts;
    struct kt_signer_tree *kids;
    struct kt_key *keys; /* signed variables: the PK/KEK certificates that
                          * vouched, as keys (trusted_by points here) */
    size_t n;
};
int kt_signer_tree_from_pe(struct kt_signer_tree *t, const struct kt_pe_signature *s, size_t n);
/* A module's or a PKCS#7 message's signers; a message-level failure rc
 * (the purpose's content rules) is shown on signers that verified. */
int kt_signer_tree_from_pkcs7(struct kt_signer_tree *t, const struct kt_pkcs7 *msg, int rc,
                              const struct kt_error *err, bool msg_level_on_signers);
/* A signed EFI variable update's signers (kt_authvar_verify, whose verdict
 * is rc with reason err): each signer's own verdict, and the PK or KEK
 * certificate that vouched for it as trusted_by. */
int kt_signer_tree_from_authvar(struct kt_signer_tree *t, const struct kt_authvar_result *res,
                                int rc, const struct kt_error *err);
void kt_signer_tree_free(struct kt_signer_tree *t);

struct kt_result {
    enum kt_ftype ftype;          /* what was verified */
    const char *type;             /* its name: "pe", "module", ... */
    bool skipped;                 /* nothing ktrust verifies */
    int rc;                       /* the verdict: 0 / -errno */
    bool pending;                 /* kt_verify_prepare: signatures not checked yet */
    struct kt_error err;          /* the reason */
    struct kt_signer_tree sigs;   /* the signatures, dynamic */
    const char *compression;      /* modules: "xz", "zstd", "gzip", "none"; else NULL */
    /* the format results the signers point into */
    struct kt_pe_result *pe;
    struct kt_modsig_result mod;
    struct kt_pkcs7_check p7;
    /* certificates and signature lists: the counts behind the verdict */
    size_t n_certs, n_hashes, n_trusted;
    /* PE under a policy's sbat_level */
    bool sbat_checked;
    struct kt_sbat sbat;
    const struct kt_sbat_level *sbat_level;
    const struct kt_sbat_entry *sbat_img, *sbat_lvl;
    int sbat_rc;
    /* owned mappings: the file itself (kt_verify_file), FILE of FILE.p7s */
    struct kt_file self, data;
    bool has_self, has_data;
};

/* Certificates and signature lists: each certificate's trust for the
 * module purpose, aggregated into r (rc, err, counts). */
void kt_verify_certs(const struct kt_keyrings *rings, const uint8_t *buf, size_t len,
                     enum kt_ftype type, struct kt_result *r);

#endif
