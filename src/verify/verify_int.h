/* verify_int.h - the context and result of include/ktrust/verify.h, for
 * the library and the ktrust program (which prints every field). */
#ifndef KT_VERIFY_VERIFY_INT_H
#define KT_VERIFY_VERIFY_INT_H

#include "authvar/authvar.h"
#include "ktrust/advanced.h"
#include "ktrust/verify.h"
#include "modsig/modsig.h"
#include "pe/pe_verify.h"
#include "pkcs7/pkcs7_check.h"
#include "policy/distro.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "policy/restrict.h"
#include "sbat/sbat.h"
#include "verify/detect.h"
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
    unsigned linux_version;   /* --kernel's release (KT_LINUX), 0: none or unknown;
                               * module verdicts follow that kernel's rules */
    /* --kernel's build (its banner): a distribution's keyring rules
     * (policy/distro.h); all zero without --kernel: mainline's */
    struct kt_kimage_build build;
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

/* kt_ctx_open; with kernel_in_background (not WRITE), when the store has
 * no keys cached for the kernel image, it is decoded on a thread of its own
 * while the caller starts reading files: until kt_ctx_keys_ready says so,
 * the caller may only prepare modules (kt_verify_prepare) and must
 * kt_ctx_wait_keys before anything else.  scan (kt_scan_verify) does this. */
int kt_ctx_open_bg(const struct kt_ctx_opts *o, bool kernel_in_background, struct kt_ctx **out,
                   const char **err_file, struct kt_error *err);
/* Whether the kernel image's keys are in the keyrings yet (true when nothing
 * runs in the background), and waiting for them: 0, or the error the decode
 * met (as kt_ctx_open would have returned it; then the context holds no
 * kernel keys and must not be used to verify). */
bool kt_ctx_keys_ready(const struct kt_ctx *ctx);
int kt_ctx_wait_keys(const struct kt_ctx *ctx, struct kt_error *err);

/* The keyrings of a const context (kt_ctx_keyrings: ktrust/verify.h). */
const struct kt_keyrings *kt_ctx_keyrings_const(const struct kt_ctx *ctx);

/* kt_ctx_wrong_kind (what a file given where certificates are wanted is
 * instead): ktrust/advanced.h. */

/* kt_ctx_add_key_file (the keys of one file into a ring): ktrust/advanced.h. */

/* struct kt_signer, kt_signer_ts: ktrust/advanced.h ("verdicts, scan"). */

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
    bool uki;                     /* PE: a Unified Kernel Image (a .linux the stub takes) */
    /* a module trusted only through a distribution's retry keyring: the
     * patch's name (kt_result_via), else NULL */
    const char *via;
    /* a signed variable update (verify_var.c) */
    struct kt_authvar var;
    struct kt_authvar_result av;
    struct kt_var_update var_info;
    /* owned mappings: the file itself (kt_verify_file), FILE of FILE.p7s */
    struct kt_file self, data;
    bool has_self, has_data;
};

/* The type a policy verifies buf as: its forced type, else kt_detect. */
enum kt_ftype kt_policy_ftype(const struct kt_policy *p, const char *name, const uint8_t *buf,
                              size_t len);
/* kt_verify_buf for a buffer whose type t is known already
 * (kt_policy_ftype): scan detects each file once. */
int kt_verify_buf_as(const struct kt_ctx *ctx, const char *name, const uint8_t *buf, size_t len,
                     const struct kt_policy *policy, enum kt_ftype t, struct kt_result **res,
                     struct kt_error *err);
/* kt_verify_buf_as in two halves, for a caller that reads files before the
 * context's keys are ready (kt_ctx_open_bg): for a kernel module (t),
 * kt_verify_prepare does all that needs no key (decompress, parse, digest;
 * nothing of buf is kept, so buf may be reused) and returns 1 with *res to
 * be finished; for anything else it returns 0 (*res NULL: verify it once
 * kt_ctx_wait_keys has returned), or -ENOMEM.  kt_verify_finish checks the
 * signatures and returns the verdict, as kt_verify_buf would have. */
int kt_verify_prepare(const uint8_t *buf, size_t len, const struct kt_policy *policy,
                      enum kt_ftype t, struct kt_result **res);
int kt_verify_finish(const struct kt_ctx *ctx, struct kt_result *res, struct kt_error *err);

/* The PK and KEK of kt_policy.var_keys. */
struct kt_var_keys {
    struct kt_certset pk, kek;
};
/* A signed variable update of policy->var_name, into r (verify_var.c). */
void kt_verify_var(const uint8_t *buf, size_t len, const struct kt_policy *p, struct kt_result *r);

/* Certificates and signature lists: each certificate's trust for the
 * module purpose, aggregated into r (rc, err, counts). */
void kt_verify_certs(const struct kt_keyrings *rings, const uint8_t *buf, size_t len,
                     enum kt_ftype type, struct kt_result *r);

#endif
