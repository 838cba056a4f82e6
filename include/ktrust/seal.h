/* ktrust/seal.h - secrets sealed to the TPM's PCRs: the TPM2 tokens of a
 * LUKS2 header (systemd-cryptenroll's `systemd-tpm2`, clevis' `tpm2` pin),
 * their policy digest recomputed from PCR values, and whether each would
 * unseal with today's PCRs and with the PCRs a change predicts.
 *
 * A sealed object unseals when the policy session's digest equals the
 * object's authPolicy: TPM2_PolicyPCR over the selected PCRs (systemd adds
 * TPM2_PolicyAuthValue for a PIN).  ktrust recomputes that digest.  A
 * signed PCR policy (systemd-cryptenroll --tpm2-public-key: PolicyAuthorize
 * by the token's key, then PolicyPCR over the literal PCRs) is recomputed
 * too, and unseals when the UKI that boots carries in .pcrsig a signature
 * by that key over the PolicyPCR digest of its PCR 11 (kt_seal_check_uki).
 * A policy it cannot recompute (no UKI to judge a signed one by, a pcrlock
 * policy, anything it does not recognise) is "cannot tell", never guessed.
 *
 * Errors as in ktrust/error.h: a header or token that does not parse is
 * -EBADMSG with the field; a device that is not LUKS2 is -EBADMSG; an
 * unreadable one -ENOENT/-EACCES.
 */
#ifndef KTRUST_SEAL_H
#define KTRUST_SEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/error.h"
#include "ktrust/eventlog.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KT_SEAL_MAX_DIGEST 64
#define KT_SEAL_MAX_SPKI 600 /* an RSA key of up to 4096 bits, as a TPM loads it */

enum kt_seal_tool {
    KT_SEAL_SYSTEMD = 0, /* systemd-cryptenroll: token type "systemd-tpm2" */
    KT_SEAL_CLEVIS,      /* clevis luks bind ... tpm2: token type "clevis", pin "tpm2" */
};

enum kt_seal_kind {
    KT_SEAL_KIND_PCR = 0,  /* PolicyPCR */
    KT_SEAL_KIND_PIN_PCR,  /* PolicyPCR then PolicyAuthValue (systemd's tpm2-pin) */
    KT_SEAL_KIND_SIGNED,   /* PolicyAuthorize of a signed PCR policy (tpm2-pubkey) */
    KT_SEAL_KIND_UNKNOWN,  /* not recognised: cannot tell */
};

struct kt_seal_token {
    enum kt_seal_tool tool;
    enum kt_seal_kind kind;
    int token;           /* LUKS2 token number (-1: a token given as a file) */
    int keyslot;         /* its first key slot (-1: none named) */
    uint16_t bank;       /* PCR bank: KT_TPM_ALG_SHA256 ... */
    uint32_t pcrs;       /* bit i: PCR i is selected */
    uint16_t policy_alg; /* the policy session's hash: KT_TPM_ALG_SHA256 */
    uint8_t policy[KT_SEAL_MAX_DIGEST]; /* the digest the object requires */
    size_t policy_len;
    char note[200];      /* why a kind is not recomputed ("" otherwise) */
    /* KT_SEAL_KIND_SIGNED of systemd (tpm2_pubkey, tpm2_pubkey_pcrs): */
    bool pin;            /* PolicyAuthValue last (tpm2-pin) */
    uint32_t pubkey_pcrs; /* the PCRs whose values the key signs (11) */
    uint8_t spki[KT_SEAL_MAX_SPKI]; /* the key (DER SubjectPublicKeyInfo; 0 bytes: */
    size_t spki_len;                /* none, or not an RSA key systemd 252 loads) */
    uint8_t pkfp[32];    /* its fingerprint, as .pcrsig's pkfp: SHA-256 of the PKCS#1 key */
};

/* Every TPM2 token (systemd-tpm2, clevis tpm2) of the LUKS2 header on the
 * block device or image file at path, read with libcryptsetup; or, when
 * path holds JSON, the one token it is (`cryptsetup token export` output).
 * Tokens of other types are skipped.  *out malloc'd (free()), *n may be 0.
 * Returns 0, -EBADMSG (not LUKS2, or a TPM2 token that does not parse;
 * err names the token and field), -ENOENT/-EACCES, -ENOMEM. */
KT_API int kt_seal_tokens_read(const char *path, struct kt_seal_token **out, size_t *n,
                               struct kt_error *err);

/* The encrypted volumes of root's /etc/crypttab (root NULL or "/": the
 * host's): each line's device as a path, UUID=/PARTUUID=/LABEL=/PARTLABEL=
 * through /dev/disk/by-*, looked up inside root.  *out malloc'd
 * (kt_seal_crypttab_free).  Returns 0, or -ENOENT/-EACCES (err: the file),
 * -ENOMEM. */
KT_API int kt_seal_crypttab(const char *root, char ***out, size_t *n, struct kt_error *err);
KT_API void kt_seal_crypttab_free(char **v, size_t n);

/* The sealed secrets to check, found as unseal-check finds them: the n
 * sources in paths (LUKS2 devices, image files, a token's JSON, a device
 * as audit --save-root saved it: a directory of token-N.json), else the
 * volumes of root's /etc/crypttab (root NULL: the host's).  Each TPM2
 * token with its source and its JSON text (never a key slot or binary key
 * material).  Without KT_SEAL_FIND_LENIENT the first source that cannot be
 * read fails the lookup (f->failed names it; a missing crypttab too);
 * with it, that source's error is recorded and the rest read (a missing
 * crypttab: no source).  Free f with kt_seal_found_free, also after a
 * failure.  Returns 0, kt_seal_tokens_read's errors, -ENOMEM. */
#define KT_SEAL_FIND_LENIENT 1u
struct kt_seal_found {
    struct kt_seal_token *tok; /* every TPM2 token, source by source */
    char **json;               /* tok[i]'s JSON text, as the header holds it */
    size_t *src;               /* tok[i]'s source: an index into path */
    size_t n;
    char **path;               /* the sources, in order */
    size_t *count;             /* TPM2 tokens per source */
    int *error;                /* per source: 0, or why it could not be read */
    size_t n_path;
    bool crypttab;             /* the sources are /etc/crypttab's volumes */
    const char *failed;        /* the source that failed the lookup (NULL) */
};
KT_API int kt_seal_find(const char *root, const char *const *paths, size_t n_paths,
                        unsigned flags, struct kt_seal_found *f, struct kt_error *err);
KT_API void kt_seal_found_free(struct kt_seal_found *f);

/* Parse one token's JSON text.  Returns 1 for a TPM2 token (t filled), 0
 * for a token of another type, -EBADMSG (err: the field), -ENOMEM. */
KT_API int kt_seal_token_parse(const char *json, size_t len, struct kt_seal_token *t,
                               struct kt_error *err);

/* PCR values to check a token against: one kt_evlog_pcrs (a log's replay,
 * or values read from a TPM with `used` set for each PCR read). */

/* The policy digest t's kind requires for the PCR values in pcrs (t's
 * bank).  Returns 1 (out, *len), 0 when it cannot be computed (a signed or
 * unknown kind, the bank or a selected PCR missing from pcrs), -ENOPKG for
 * a hash ktrust cannot compute. */
KT_API int kt_seal_policy_digest(const struct kt_seal_token *t, const struct kt_evlog_pcrs *pcrs,
                                 uint8_t out[KT_SEAL_MAX_DIGEST], size_t *len);

enum kt_seal_verdict {
    KT_SEAL_UNSEALS = 0,
    KT_SEAL_FAILS,       /* the digest differs: the recovery key is asked for */
    KT_SEAL_CANNOT_TELL,
};

enum kt_seal_why {
    KT_SEAL_WHY_NONE = 0,
    KT_SEAL_WHY_KIND,        /* a signed or unknown policy */
    KT_SEAL_WHY_NO_BANK,     /* the PCR values have no such bank */
    KT_SEAL_WHY_NO_PCR,      /* a selected PCR was not read / not in the log */
    KT_SEAL_WHY_HASH,        /* a hash ktrust cannot compute */
    KT_SEAL_WHY_NO_UKI,      /* a signed policy, and no UKI to read .pcrsig from */
    KT_SEAL_WHY_KEY,         /* a signed policy whose digest ktrust does not reproduce
                              * from its key (not an RSA key as systemd 252 loads it) */
    KT_SEAL_WHY_LATE_PCR,    /* a signed policy over PCR 10 or 15-23: their values at the
                              * initrd's unlock are not the ones given (the running
                              * system extends them after), and ktrust predicts none */
};

/* Why a signed policy's PCR 11 part does not unseal with the UKI. */
enum kt_seal_sig {
    KT_SEAL_SIG_OK = 0,      /* .pcrsig signs it with the token's key */
    KT_SEAL_SIG_NONE,        /* the UKI has no .pcrsig */
    KT_SEAL_SIG_NO_ENTRY,    /* no entry for the token's bank, PCRs, key and this PCR 11 */
    KT_SEAL_SIG_BAD,         /* that entry's signature does not verify with the token's key */
    KT_SEAL_SIG_MALFORMED,   /* .pcrsig is not the JSON systemd reads */
};

struct kt_seal_check {
    enum kt_seal_verdict today, after;
    enum kt_seal_why why_today, why_after;
    bool have_after;             /* a change was given */
    uint32_t changed;            /* selected PCRs the change alters */
    /* the PCR values after the change, for a re-seal that binds to them:
     * each selected PCR in ascending order (clevis' pcr_digest is their
     * concatenation, systemd-cryptenroll 255's --tpm2-pcrs takes each) */
    uint8_t after_values[KT_EVLOG_PCRS][KT_EVLOG_MAX_DIGEST];
    size_t value_len;            /* the bank's digest size (0: not known) */
    /* a signed policy judged with a UKI (KT_SEAL_KIND_SIGNED): */
    bool have_sig;               /* the UKI's .pcrsig was looked at */
    char uki[512];               /* that UKI's path ("" none) */
    /* which UKI and why (kt_seal_uki_choice, when kt_seal_uki_open_for
     * picked it): have_choice, its path on the ESP ("" not on it), the
     * entry that starts it ("" none), the rule (enum kt_sdboot_rule) */
    bool have_choice;
    char uki_image[512];
    char uki_entry[256];
    int uki_rule;
    enum kt_seal_sig sig;        /* what it says for the PCR 11 the UKI gives */
    uint8_t pcr11[KT_EVLOG_MAX_DIGEST]; /* the UKI's PCR 11 at enter-initrd, token's bank */
    size_t pcr11_len;
    uint8_t digest[KT_SEAL_MAX_DIGEST]; /* the digest ktrust computed today (0 bytes: none) */
    size_t digest_len;
    uint8_t approved[KT_SEAL_MAX_DIGEST]; /* the PolicyPCR digest the key must have signed (32) */
};

/* Check t against today's PCR values (NULL: none) and, when pred_after is
 * not NULL, against
 * the values after a change (today's with the PCRs the prediction
 * changes: those where pred_after differs from pred_now, replaced by
 * pred_after's).  pred_now/pred_after: a kt_evlog_prediction's now and
 * after (NULL with after NULL).  Returns 0 or -ENOPKG/-ENOMEM. */
KT_API int kt_seal_check(const struct kt_seal_token *t, const struct kt_evlog_pcrs *today,
                         const struct kt_evlog_pcrs *pred_now,
                         const struct kt_evlog_pcrs *pred_after, struct kt_seal_check *r);

/* The UKI that boots next, for signed policies: its PCR 11 at enter-initrd
 * (when systemd-cryptsetup unlocks in the initrd) and its .pcrsig.  Opened
 * from a file (the whole file is read; kt_seal_uki_free). Returns 0,
 * -ENOENT/-EACCES, -ELIBBAD/-EBADMSG (not a PE), -ENOMEM. */
struct kt_seal_uki;
KT_API int kt_seal_uki_open(const char *path, struct kt_seal_uki **out, struct kt_error *err);
KT_API void kt_seal_uki_free(struct kt_seal_uki *u);
KT_API const char *kt_seal_uki_path(const struct kt_seal_uki *u);
struct kt_uki;
KT_API const struct kt_uki *kt_seal_uki_image(const struct kt_seal_uki *u); /* ktrust/uki.h */
/* The one .efi file in the ESP's EFI/Linux (Type #2), the UKI that boots
 * when no systemd-boot on the ESP says otherwise.  path (cap bytes).
 * Returns 0, -ENOENT (none), -E2BIG (several: which one boots is a boot
 * loader's choice). */
KT_API int kt_seal_uki_find(const char *esp, char *path, size_t cap);
/* Which UKI kt_seal_uki_open_for took and by which rule (ktrust/sdboot.h:
 * given, systemd-boot's next entry, the only one of EFI/Linux), or NULL
 * (opened by kt_seal_uki_open).  Owned by u. */
struct kt_sdboot_next_uki;
KT_API const struct kt_sdboot_next_uki *kt_seal_uki_choice(const struct kt_seal_uki *u);
/* The UKI to judge signed policies by, for every command alike: uki when
 * given (its errors returned), else, with systemd-boot on esp, the UKI its
 * next entry starts (kt_sdboot_next_uki with the Loader* variables of vars,
 * NULL: none set; ktrust/sdboot.h), else the one kt_seal_uki_find finds on
 * esp, else none (*out NULL, 0; a UKI that does not open, or a next entry
 * that starts no UKI, is none too).  Only when one of the n tokens is a
 * signed policy. */
struct kt_efivars;
KT_API int kt_seal_uki_open_for(const char *uki, const char *esp, const struct kt_efivars *vars,
                                const struct kt_seal_token *t, size_t n,
                                struct kt_seal_uki **out, struct kt_error *err);

/* kt_seal_check, with uki the UKI that boots today and after the change
 * (NULL: a signed policy is "cannot tell", KT_SEAL_WHY_NO_UKI).  A signed
 * policy unseals when (a) PolicyAuthorize(the token's key) then PolicyPCR
 * over its literal PCRs (then PolicyAuthValue with a PIN) gives its
 * digest, and (b) uki's .pcrsig has, in the token's bank, a first entry
 * for its signed PCRs, its key's fingerprint and the PolicyPCR digest of
 * those PCRs (PCR 11: the UKI's at enter-initrd), whose signature (RSA
 * PKCS#1 v1.5 over SHA-256 of it, as systemd 252's unlock has the TPM
 * check it) verifies with the token's key.  Returns as kt_seal_check. */
KT_API int kt_seal_check_uki(const struct kt_seal_token *t, const struct kt_seal_uki *uki,
                             const struct kt_evlog_pcrs *today,
                             const struct kt_evlog_pcrs *pred_now,
                             const struct kt_evlog_pcrs *pred_after, struct kt_seal_check *r);

/* The prediction (kt_evlog_predict with o) after new boot binaries are
 * installed: shim in place of the first boot application the log shows on
 * the ESP, loader (may be NULL) in place of the second; PCR 4 gets their
 * Authenticode digests, PCR 7 the db entries that verify them under o->vars
 * (o->esp is not used: the prediction takes the two files in place of the
 * logged ones, kt_evlog_predict_opts' swap; nothing is written).  Returns 0, -ENODATA (the log shows no such
 * application), an error reading the files, or kt_evlog_predict's.  Free p
 * with kt_evlog_prediction_free. */
KT_API int kt_seal_predict_install(const struct kt_evlog *log, const struct kt_evlog_predict_opts *o,
                                   const char *shim, const char *loader,
                                   struct kt_evlog_prediction **p, struct kt_error *err);

/* A change to check sealed tokens against. */
struct kt_seal_change {
    const struct kt_evlog_predict_opts *predict; /* the state after it (NULL: the logged one) */
    const char *shim, *loader;                   /* new boot binaries (NULL: none) */
    /* not NULL: the prediction is handed back here (kt_evlog_prediction_free),
     * for a record set of the predicted PCRs (a systemd-pcrlock re-seal) */
    struct kt_evlog_prediction **keep;
    const struct kt_seal_uki *uki;               /* the UKI that boots (signed policies) */
};

/* The PCRs after change, predicted from log (kt_evlog_predict, or
 * kt_seal_predict_install with shim), and each of the n tokens t[i]
 * checked against today's PCRs (NULL: the log's replay) and those: r[i].
 * The one call per state (plan-updates: per step).  Returns 0, the
 * prediction's error (err), -ENOPKG, -ENOMEM. */
KT_API int kt_seal_check_change(const struct kt_evlog *log, const struct kt_evlog_pcrs *today,
                                const struct kt_seal_change *change,
                                const struct kt_seal_token *t, size_t n, struct kt_seal_check *r,
                                struct kt_error *err);

/* "systemd-tpm2", "clevis"; "pcr", "pin+pcr", "signed", "unknown";
 * "unseals", "does_not_unseal", "cannot_tell"; "ok", "no_pcrsig", ... */
KT_API const char *kt_seal_sig_name(enum kt_seal_sig s);
KT_API const char *kt_seal_tool_name(enum kt_seal_tool t);
KT_API const char *kt_seal_kind_name(enum kt_seal_kind k);
KT_API const char *kt_seal_verdict_name(enum kt_seal_verdict v);

#ifdef __cplusplus
}
#endif
#endif
