#include "chain/chain.h"
#include "chain/chain_fw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esl/esl.h"
#include "keys/blacklist.h"
#include "kimage/kimage.h"
#include "esl/esl_svn.h"
#include "modsig/modsig.h"
#include "pe/pe.h"
#include "pe/pe_verify.h"
#include "policy/load.h"
#include "policy/verify.h"
#include "store/store.h"
#include "wrapped/pe_keys.h"

#define MAX_MOK 16

struct kt_chain {
    struct kt_keyrings *rings;
    struct {
        uint8_t *buf;
        size_t len;
        char *name;
    } mok[MAX_MOK];
    size_t n_mok;
    bool mok_trusted; /* MokListTrustedRT: MOK keys go to machine */
    bool ignore_db;   /* MokIgnoreDB: shim does not use db for what it verifies */
    bool saved_modules; /* modules may be saved ones (kt_modsig_compact_parse) */
    bool shim_trusted, kernel_trusted;
    unsigned linux_version; /* the kernel's release (KT_LINUX): its module rules */
    struct kt_kimage_build build; /* the kernel's build: a distribution's keyring rules */
    bool firmware_only; /* no shim: firmware's LoadImage judges every image (db, dbx) */
    const char *kernel_cache; /* the kernel-key cache directory, or NULL */
    /* SHA-256 image hashes in db and MokList: shim admits such an image
     * (check_allowlist), signed or not; the kernel's keyrings ignore them */
    struct {
        uint8_t sha256[32];
        bool mok;     /* from MokList, else from db */
    } *allow;
    size_t n_allow;
    struct kt_fw_dbs fw; /* db and dbx as firmware walks them (chain_fw.c) */
    uint8_t **held;      /* dbx copies firmware's walk left out: the blacklist's */
    size_t n_held;       /* indexes still point into them */
};

void kt_chain_set_mok_trusted(struct kt_chain *c, bool trusted) { c->mok_trusted = trusted; }
void kt_chain_set_ignore_db(struct kt_chain *c, bool ignore) { c->ignore_db = ignore; }
void kt_chain_set_saved_modules(struct kt_chain *c, bool saved) { c->saved_modules = saved; }
void kt_chain_set_firmware_only(struct kt_chain *c, bool on) { c->firmware_only = on; }
void kt_chain_set_kernel_cache(struct kt_chain *c, const char *dir) { c->kernel_cache = dir; }

struct allow_ctx {
    struct kt_chain *c;
    bool mok;
};

static int allow_hash(void *ctx, const struct kt_esl_entry *e)
{
    struct allow_ctx *a = ctx;
    if (e->type != KT_ESL_SHA256 || e->data.len != 32 || kt_esl_is_svn(e))
        return 0;
    void *n = realloc(a->c->allow, (a->c->n_allow + 1) * sizeof(*a->c->allow));
    if (!n)
        return -ENOMEM;
    a->c->allow = n;
    memcpy(a->c->allow[a->c->n_allow].sha256, e->data.p, 32);
    a->c->allow[a->c->n_allow++].mok = a->mok;
    return 0;
}

/* The SHA-256 image hashes of an EFI signature list (anything else holds none). */
static int collect_allow(struct kt_chain *c, const uint8_t *buf, size_t len, bool mok)
{
    struct allow_ctx a = {c, mok};
    struct kt_error e = KT_ERROR_INIT;
    if (!kt_esl_looks_like(buf, len))
        return 0;
    int rc = kt_esl_foreach(buf, len, allow_hash, &a, &e);
    return rc == -ENOMEM ? rc : 0; /* a list that does not parse: add_blob says so */
}

/* Is the image's SHA-256 Authenticode hash in db (unless MokIgnoreDB) or
 * MokList, and neither its SHA-1 nor its SHA-256 hash denied (dbx, vendor
 * dbx, MokListX: check_denylist comes first)?  Returns "db", "MokList" or
 * NULL. */
static const char *allowed_by_hash(const struct kt_chain *c, const uint8_t *buf, size_t len)
{
    if (!c->n_allow)
        return NULL;
    struct kt_pe *pe = NULL;
    struct kt_error e = KT_ERROR_INIT;
    const enum kt_hash h[2] = {KT_HASH_SHA256, KT_HASH_SHA1};
    uint8_t d[2][KT_HASH_MAX_SIZE];
    const char *by = NULL;
    if (kt_pe_parse(buf, len, &pe, &e) == 0 && kt_pe_image_digest(pe, h, 2, d, &e) == 0 &&
        !kt_blacklist_has_bin(c->rings, h[0], d[0]) && !kt_blacklist_has_bin(c->rings, h[1], d[1]))
        for (size_t i = 0; i < c->n_allow && !by; i++)
            if ((c->allow[i].mok || !c->ignore_db) && !memcmp(c->allow[i].sha256, d[0], 32))
                by = c->allow[i].mok ? "MokList" : "db";
    kt_pe_free(pe);
    return by;
}

const char *kt_chain_role_name(enum kt_chain_role r)
{
    static const char *const names[] = {"db", "shim", "loader", "kernel", "module"};
    return r <= KT_LINK_MODULE ? names[r] : "?";
}

int kt_chain_new(struct kt_chain **out)
{
    struct kt_chain *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    int rc = kt_keyrings_new(&c->rings);
    if (rc < 0) {
        free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void kt_chain_free(struct kt_chain *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_mok; i++) {
        free(c->mok[i].buf);
        free(c->mok[i].name);
    }
    kt_keyrings_free(c->rings);
    kt_fw_dbs_free(&c->fw);
    for (size_t i = 0; i < c->n_held; i++)
        free(c->held[i]);
    free(c->held);
    free(c->allow);
    free(c);
}

const struct kt_keyrings *kt_chain_keyrings(const struct kt_chain *c)
{
    return c->rings;
}

static void link_init(struct kt_chain_link *l, enum kt_chain_role role, const char *name,
                      int parent);
static void pe_describe(struct kt_chain_link *l, const struct kt_pe_result *r,
                        const struct kt_error *e, const char *vouchers);

static int no_entry(void *ctx, const struct kt_esl_entry *e)
{
    (void)ctx;
    (void)e;
    return 0;
}

static int add_to(struct kt_chain *c, const char *ring, const uint8_t *buf, size_t len,
                  const char *name, const char *what, struct kt_error *err)
{
    char src[512];
    snprintf(src, sizeof(src), "%s:%s", what, name);
    return kt_keyrings_add_blob(c->rings, kt_keyrings_get(c->rings, ring), buf, len, src,
                                KT_ADD_EXPLICIT, NULL, err);
}

int kt_chain_add_db(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_error *err)
{
    int rc = collect_allow(c, buf, len, false);
    if (rc == 0)
        rc = add_to(c, "platform", buf, len, name, "db", err);
    if (rc == 0 && (rc = kt_fw_dbs_add(&c->fw, false, buf, len, name)) < 0)
        kt_fail(err, rc, KT_NO_OFFSET, "%s", rc == -ENOMEM ? "out of memory" : "too many db inputs");
    return rc;
}

/* A dbx input: firmware's (c->fw, a copy or borrowed), and the blacklist's,
 * its hashes indexed in that same buffer (kt_keyrings_add_blob_indexed). */
static int add_dbx(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                   bool borrow, struct kt_error *err)
{
    int rc = (borrow ? kt_fw_dbs_borrow : kt_fw_dbs_add)(&c->fw, true, buf, len, name);
    if (rc < 0)
        return kt_fail(err, rc, KT_NO_OFFSET, "%s",
                       rc == -ENOMEM ? "out of memory" : "too many dbx inputs");
    struct kt_fw_src *s = &c->fw.dbx[c->fw.n_dbx - 1];
    struct kt_error e = KT_ERROR_INIT;
    char src[512];
    snprintf(src, sizeof(src), "dbx:%s", name);
    rc = kt_keyrings_add_blob_indexed(c->rings, kt_keyrings_get(c->rings, "blacklist"), s->buf,
                                      s->len, src, &e);
    if (rc < 0 && rc != -ENOMEM && kt_esl_foreach(buf, len, no_entry, NULL, NULL) == 0)
        return 0; /* lists the keyrings cannot read (SHA-384 image hashes): firmware's walk can */
    if (rc < 0 && err)
        *err = e;
    if (rc < 0) { /* not firmware's; the hashes indexed before the failure stay */
        uint8_t **nh = realloc(c->held, (c->n_held + 1) * sizeof(*nh));
        if (nh)
            c->held = nh;
        if (nh && s->owned)
            c->held[c->n_held++] = s->owned;
        else
            free(s->owned); /* -ENOMEM: the run ends here */
        free(s->label);
        c->fw.n_dbx--;
    }
    return rc;
}

int kt_chain_add_dbx(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                     struct kt_error *err)
{
    return add_dbx(c, buf, len, name, false, err);
}

int kt_chain_add_dbx_borrowed(struct kt_chain *c, const uint8_t *buf, size_t len,
                              const char *name, struct kt_error *err)
{
    return add_dbx(c, buf, len, name, true, err);
}

int kt_chain_add_mokx(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                      struct kt_error *err)
{
    return add_to(c, "blacklist", buf, len, name, "dbx", err); /* shim's, not firmware's */
}

/* Firmware's verdict on an image verified with the chain's keyrings (r):
 * the db/dbx walk's structured reasons and the verdict they make. */
static int firmware_judge(const struct kt_chain *c, const struct kt_pe_result *r,
                          struct kt_chain_link *l)
{
    int rc = r ? kt_fw_walk(&c->fw, r, l) : 0;
    if (rc == 0)
        kt_fw_verdict(l);
    return rc;
}

int kt_chain_sig_db_entry(const struct kt_chain *c, const struct kt_pe_result *r, size_t sig,
                          struct kt_chain_entry *out)
{
    return kt_fw_db_entry(&c->fw, r, sig, out);
}

int kt_chain_judge_firmware(const struct kt_chain *c, const uint8_t *buf, size_t len,
                            const char *name, struct kt_chain_link *l, struct kt_error *err)
{
    link_init(l, KT_LINK_SHIM, name, KT_LINK_DB);
    struct kt_pe_verify_opts opts = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    struct kt_pe_result *r = NULL;
    struct kt_error e = KT_ERROR_INIT;
    l->verdict = kt_pe_verify(buf, len, c->rings, &opts, &r, &e);
    if (!r) {
        if (err)
            *err = e;
        return l->verdict; /* the image does not parse */
    }
    pe_describe(l, r, &e, "db");
    int rc = firmware_judge(c, r, l);
    kt_pe_result_free(r);
    return rc < 0 ? kt_fail(err, rc, KT_NO_OFFSET, "out of memory") : 0;
}

int kt_chain_add_mok(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                     struct kt_error *err)
{
    if (c->n_mok >= MAX_MOK)
        return kt_fail(err, -E2BIG, KT_NO_OFFSET, "too many MOK lists (at most %d)", MAX_MOK);
    int rc = collect_allow(c, buf, len, true);
    if (rc < 0)
        return rc;
    uint8_t *copy = malloc(len ? len : 1);
    char *n = strdup(name);
    if (!copy || !n) {
        free(copy);
        free(n);
        return -ENOMEM;
    }
    memcpy(copy, buf, len);
    c->mok[c->n_mok].buf = copy;
    c->mok[c->n_mok].len = len;
    c->mok[c->n_mok].name = n;
    c->n_mok++;
    return 0;
}

static void link_init(struct kt_chain_link *l, enum kt_chain_role role, const char *name,
                      int parent)
{
    memset(l, 0, sizeof(*l));
    l->role = role;
    l->file = name;
    l->parent = parent;
}

static void describe_key(char *out, size_t cap, const struct kt_key *k)
{
    if (k && k->cert && k->cert->description)
        snprintf(out, cap, "%s", k->cert->description);
}

/* Describe a PE link from its verification: signer and vouching key of the
 * first trusted signature (or of the first one), and the reason. */
static void pe_describe(struct kt_chain_link *l, const struct kt_pe_result *r,
                        const struct kt_error *e, const char *vouchers)
{
    const struct kt_pe_signature *pick = NULL;
    for (size_t i = 0; r && i < r->n_sigs; i++)
        if (r->sigs[i].verdict == 0) {
            pick = &r->sigs[i];
            break;
        }
    if (!pick && r && r->n_sigs)
        pick = &r->sigs[0];
    if (pick && pick->signer && pick->signer->description)
        snprintf(l->signer, sizeof(l->signer), "%s", pick->signer->description);
    if (l->verdict == 0) {
        describe_key(l->trusted_by, sizeof(l->trusted_by), pick ? pick->trusted_by : NULL);
        snprintf(l->reason, sizeof(l->reason), "signature %d trusted: %s vouches",
                 pick ? pick->index : 0, l->trusted_by[0] ? l->trusted_by : vouchers);
    } else if (l->verdict == -ENOKEY) {
        snprintf(l->reason, sizeof(l->reason), "no key in %s vouches for its signer", vouchers);
    } else {
        snprintf(l->reason, sizeof(l->reason), "%s", e->what[0] ? e->what : "verification failed");
    }
}

static int pe_link(struct kt_chain *c, const uint8_t *buf, size_t len, struct kt_chain_link *l,
                   const char *vouchers)
{
    struct kt_pe_verify_opts opts = {.purpose = KT_VERIFY_PURPOSE_UEFI, .allow_sha1 = false};
    struct kt_pe_result *r = NULL;
    struct kt_error e = KT_ERROR_INIT;
    l->verdict = kt_pe_verify(buf, len, c->rings, &opts, &r, &e);
    pe_describe(l, r, &e, vouchers);
    kt_pe_result_free(r);
    const char *by = NULL;
    /* shim's check_allowlist: an image hash in db or MokList admits it,
     * signed or not (a dbx/MokListX entry has refused it already) */
    if (c->shim_trusted && (l->verdict == -ENODATA || l->verdict == -ENOKEY) &&
        (by = allowed_by_hash(c, buf, len)) != NULL) {
        l->verdict = 0;
        snprintf(l->reason, sizeof(l->reason), "its SHA-256 image hash is in %s", by);
        snprintf(l->trusted_by, sizeof(l->trusted_by), "%s: SHA-256 image hash", by);
    }
    return l->verdict;
}

int kt_chain_shim(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                  struct kt_chain_link *l)
{
    link_init(l, KT_LINK_SHIM, name, KT_LINK_DB);
    struct kt_pe_load_result res;
    struct kt_error e = KT_ERROR_INIT;
    /* verify with db; if trusted, its .vendor_cert joins platform, vendor dbx the blacklist */
    int rc = kt_pe_load_keys(buf, len, c->rings, kt_keyrings_get(c->rings, "platform"), NULL,
                             name, &res, &e);
    l->verdict = res.verify ? res.verify->verdict : rc;
    pe_describe(l, res.verify, &e, "db");
    int wrc = firmware_judge(c, res.verify, l);
    if (wrc == 0 && l->verdict == 0 && rc < 0 && l->db.by == KT_REVOKE_IMAGE_HASH && res.verify) {
        /* firmware ran it by its hash in db: shim's keys apply all the same */
        e = (struct kt_error)KT_ERROR_INIT;
        rc = kt_pe_add_wrapped(res.verify->pe, c->rings, kt_keyrings_get(c->rings, "platform"),
                               name, &res, &e);
    }
    kt_pe_load_result_free(&res);
    if (wrc < 0)
        l->verdict = wrc;
    bool vendor_denied = false;
    if (l->verdict == 0 && rc == -EKEYREJECTED) {
        /* its vendor certificate is in dbx: firmware judged shim by its own
         * signature and runs it; shim's check_denylist then refuses what
         * that certificate signed (real shim 16.1 under OVMF: tests/boot
         * dbx_debian_ca) */
        vendor_denied = true;
    } else if (l->verdict == 0 && rc < 0) {
        l->verdict = rc;
        snprintf(l->reason, sizeof(l->reason), "signature trusted, but: %s", e.what);
    }
    c->shim_trusted = l->verdict == 0;
    if (!c->shim_trusted)
        return l->verdict;
    l->keys_added = res.n_added;
    /* MokIgnoreDB: shim verifies nothing more with db, and the kernel does
     * not load db into platform (uefi_check_ignore_db) */
    if (c->ignore_db)
        kt_keyring_remove_by_source(kt_keyrings_get(c->rings, "platform"), "db:");
    /* the kernel loads MokListRT into platform, into machine only when
     * MokListTrustedRT is set (load_uefi.c / machine_keyring.c) */
    struct kt_keyring *mok = kt_keyrings_get(c->rings, c->mok_trusted ? "machine" : "platform");
    for (size_t i = 0; i < c->n_mok; i++) {
        size_t n = 0;
        struct kt_error me = KT_ERROR_INIT;
        char src[512];
        snprintf(src, sizeof(src), "mok:%s", c->mok[i].name);
        if (kt_keyrings_add_blob(c->rings, mok, c->mok[i].buf, c->mok[i].len, src,
                                 KT_ADD_EXPLICIT, &n, &me) == 0)
            l->keys_added += n;
    }
    size_t n = strlen(l->reason);
    if (vendor_denied)
        snprintf(l->reason + n, sizeof(l->reason) - n,
                 "; but its vendor certificate is in dbx (%s): shim runs and refuses what it "
                 "signed", e.what);
    else
        snprintf(l->reason + n, sizeof(l->reason) - n,
                 "; its vendor certificate (%zu key%s) and %zu vendor dbx entr%s now apply",
                 res.n_added, res.n_added == 1 ? "" : "s", res.n_blacklisted,
                 res.n_blacklisted == 1 ? "y" : "ies");
    return l->verdict;
}

/* Who vouches for what shim verifies, in words. */
static const char *shim_vouchers(const struct kt_chain *c)
{
    if (!c->shim_trusted)
        return "db (shim is not trusted)";
    return c->ignore_db ? "shim's vendor certificate or MOK (MokIgnoreDB: not db)"
                        : "db, shim's vendor certificate or MOK";
}

/* No shim (systemd-boot started by firmware, sbctl style): the image goes
 * through firmware's LoadImage, db and dbx as EDK2 walks them; no vendor
 * certificate, no MOK, no SBAT. */
static int firmware_link(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                         struct kt_chain_link *l, enum kt_chain_role role)
{
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_chain_judge_firmware(c, buf, len, name, l, &e);
    if (rc < 0 || (l->verdict < 0 && !l->reason[0])) {
        l->verdict = rc < 0 ? rc : l->verdict;
        snprintf(l->reason, sizeof(l->reason), "%s", e.what);
    }
    l->role = role;
    l->parent = -1;
    return l->verdict;
}

int kt_chain_loader(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *l)
{
    if (c->firmware_only)
        return firmware_link(c, buf, len, name, l, KT_LINK_LOADER);
    link_init(l, KT_LINK_LOADER, name, KT_LINK_SHIM);
    pe_link(c, buf, len, l, shim_vouchers(c));
    return l->verdict;
}

int kt_chain_kernel(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *l)
{
    if (c->firmware_only) {
        firmware_link(c, buf, len, name, l, KT_LINK_KERNEL);
        l->parent = KT_LINK_LOADER;
    } else {
        link_init(l, KT_LINK_KERNEL, name, KT_LINK_SHIM);
        pe_link(c, buf, len, l, shim_vouchers(c));
    }
    c->kernel_trusted = l->verdict == 0;
    if (!c->kernel_trusted)
        return l->verdict;
    struct kt_error e = KT_ERROR_INIT;
    size_t n_keys = 0;
    kt_kimage_build_of(buf, len, &c->build); /* a UKI: its .linux */
    c->linux_version = c->build.linux_version;
    int rc = kt_kcache_add_kernel_keys(c->kernel_cache, c->rings, buf, len, name, false, &n_keys,
                                       NULL, &e);
    l->keys_added = n_keys;
    size_t n = strlen(l->reason);
    if (rc < 0) {
        l->verdict = rc;
        snprintf(l->reason + n, sizeof(l->reason) - n, "; but its builtin keys: %s", e.what);
    } else {
        snprintf(l->reason + n, sizeof(l->reason) - n, "; its %zu builtin key%s now vouch%s for modules",
                 n_keys, n_keys == 1 ? "" : "s", n_keys == 1 ? "es" : "");
    }
    return l->verdict;
}

int kt_chain_module(struct kt_chain *c, const uint8_t *buf, size_t len, const char *name,
                    struct kt_chain_link *l)
{
    link_init(l, KT_LINK_MODULE, name, KT_LINK_KERNEL);
    struct kt_modsig_result res;
    memset(&res, 0, sizeof(res));
    res.saved_ok = c->saved_modules;
    res.policy.linux_version = c->linux_version; /* SHA-3 from 6.7, ML-DSA from 7.0 */
    struct kt_error e = KT_ERROR_INIT;
    /* mainline's keyrings; a Debian kernel's second search of platform */
    l->verdict = kt_modsig_verify_build(buf, len, c->rings, &c->build, &res, &e);
    const struct kt_pkcs7_signer *si = res.msg && res.msg->n_signers ? &res.msg->signers[0] : NULL;
    if (si && si->signer_cert && si->signer_cert->description)
        snprintf(l->signer, sizeof(l->signer), "%s", si->signer_cert->description);
    if (l->verdict == 0) {
        describe_key(l->trusted_by, sizeof(l->trusted_by), si ? si->trusted_by : NULL);
        if (res.via)
            snprintf(l->reason, sizeof(l->reason),
                     "%s vouches via .platform (%s; a mainline kernel refuses it)", l->trusted_by,
                     res.via);
        else
            snprintf(l->reason, sizeof(l->reason), "%s vouches", l->trusted_by);
    } else if (l->verdict == -ENOKEY) {
        const char *why = kt_distro_modules_platform(&c->build);
        snprintf(l->reason, sizeof(l->reason), "no builtin, secondary or machine key vouches%s%s%s%s",
                 why ? ", nor a .platform one (" : "", why ? why : "", why ? ")" : "",
                 c->kernel_trusted ? "" : " (the kernel is not trusted, so its keys are not loaded)");
    } else {
        snprintf(l->reason, sizeof(l->reason), "%s", e.what[0] ? e.what : "verification failed");
    }
    kt_modsig_result_free(&res);
    return l->verdict;
}
