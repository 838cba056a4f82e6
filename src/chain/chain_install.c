/* chain_install.c - kt_chain_install_check: would this machine boot a new
 * shim (and loaders) in place of today's?  Firmware's db/dbx on each
 * signature of the shim, then the boot engine with the new binaries (shim
 * applies its own SbatLevel, then checks the loader), then without SBAT to
 * tell an SBAT refusal from a key refusal; a new systemd-boot in place of
 * shim (sbctl style): firmware's db and dbx on it and on each UKI behind it.
 * A package's postinst asks this before it installs boot binaries. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "chain/chain.h"
#include "util/fmt.h"

const char *kt_install_why_name(enum kt_install_why w)
{
    static const char *const names[] = {"boots", "no_db", "dbx", "sbat", "shim_keys"};
    return (unsigned)w <= KT_INSTALL_SHIM_KEYS ? names[w] : "?";
}

/* Append to out (truncating). */
static void catf(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void catf(char *out, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(out);
    if (n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, cap - n, fmt, ap);
    va_end(ap);
}

static bool is_input_error(int rc)
{
    return rc == -EBADMSG || rc == -ELIBBAD || rc == -ENOENT || rc == -EACCES || rc == -EISDIR ||
           rc == -ENOTDIR || rc == -EIO || rc == -ENOMEM || rc == -EFBIG;
}

/* Why no signature of the shim (or systemd-boot: what) is accepted, from
 * each one's verdict. */
static void shim_refused(struct kt_install_check *r, const char *shim, const char *what, int rc)
{
    r->verdict = rc;
    r->file = shim;
    if (rc == -ENODATA) {
        r->why = KT_INSTALL_NO_DB;
        kt_fmt(r->reason, sizeof(r->reason), "the new %s is not signed", what);
        return;
    }
    bool dbx = rc == -EKEYREJECTED;
    r->why = dbx ? KT_INSTALL_DBX : KT_INSTALL_NO_DB;
    if (dbx)
        kt_fmt(r->reason, sizeof(r->reason), "dbx revokes the new %s", what);
    else
        kt_fmt(r->reason, sizeof(r->reason), "no db entry accepts any signature of the new %s", what);
    for (size_t i = 0; i < r->n_sigs && i < KT_CHAIN_MAX_SIGS; i++) {
        const struct kt_chain_sig *s = &r->sigs[i];
        catf(r->reason, sizeof(r->reason), "%s signature %d (%s%s): %s", i ? ";" : ":", s->index,
             s->ca[0] ? "chains to " : "", s->ca[0] ? s->ca : "chain not examined",
             s->verdict ? s->why : "accepted");
    }
}

/* One boot: the new shim and one loader (or none). */
static int boot_once(const struct kt_efivars *vars, const char *shim, const char *loader,
                     struct kt_install_check *r, struct kt_error *err)
{
    struct kt_chain_opts o = {.vars = vars, .sbat = true, .shim = shim, .loader = loader};
    struct kt_chain_report rep;
    int rc = kt_chain_run(&o, &rep, err);
    if (rc < 0) {
        r->file = rep.error_file;
        kt_chain_report_free(&rep);
        return rc;
    }
    r->have_sbat_current = rep.have_sbat_current;
    r->have_sbat_applied = rep.have_sbat_applied;
    kt_fmt(r->sbat_current, sizeof(r->sbat_current), "%s", rep.sbat_current);
    kt_fmt(r->sbat_applied, sizeof(r->sbat_applied), "%s", rep.sbat_applied);
    kt_fmt(r->sbat_note, sizeof(r->sbat_note), "%s", rep.sbat_note);
    const struct kt_chain_link *S = &rep.link[KT_CHAIN_AT_SHIM], *L = &rep.link[KT_CHAIN_AT_LOADER];
    if (S->verdict != 0) {
        /* firmware accepted it (checked first): SBAT stopped it */
        r->verdict = S->verdict;
        r->why = KT_INSTALL_SBAT;
        r->file = shim;
        kt_fmt(r->reason, sizeof(r->reason), "the new shim: %s (SbatLevel in force %s, the new "
               "shim would apply %s)", S->reason, rep.have_sbat_current ? rep.sbat_current : "none",
               rep.have_sbat_applied ? rep.sbat_applied : "none");
    } else if (loader && L->verdict != 0) {
        if (is_input_error(L->verdict) && L->verdict != -ENOMEM) {
            r->file = loader;
            rc = kt_fail(err, L->verdict, KT_NO_OFFSET, "%s", L->reason);
        } else {
            /* the same boot without SBAT: does a key vouch for the loader? */
            struct kt_chain_report k;
            o.sbat = false;
            int krc = kt_chain_run(&o, &k, err);
            bool keys_ok = krc == 0 && k.link[KT_CHAIN_AT_LOADER].verdict == 0;
            kt_chain_report_free(&k);
            if (krc < 0)
                rc = krc;
            r->verdict = L->verdict;
            r->why = keys_ok ? KT_INSTALL_SBAT : KT_INSTALL_SHIM_KEYS;
            r->file = loader;
            if (keys_ok)
                kt_fmt(r->reason, sizeof(r->reason), "%s: %s (SbatLevel in force %s, the new shim "
                       "would apply %s)", loader, rep.sbat[KT_CHAIN_AT_LOADER][0] ?
                       rep.sbat[KT_CHAIN_AT_LOADER] : L->reason,
                       rep.have_sbat_current ? rep.sbat_current : "none",
                       rep.have_sbat_applied ? rep.sbat_applied : "none");
            else
                kt_fmt(r->reason, sizeof(r->reason), "%s: %s", loader, L->reason);
        }
    }
    kt_chain_report_free(&rep);
    return rc;
}

/* No shim: firmware starts the new systemd-boot, which loads each UKI
 * through firmware's LoadImage (db and dbx, kt_chain_opts.firmware_only). */
static int boot_sdboot(const struct kt_efivars *vars, const char *sdboot, const char *uki,
                       struct kt_install_check *r, struct kt_error *err)
{
    struct kt_chain_opts o = {.vars = vars, .loader = sdboot, .kernel = uki, .firmware_only = true};
    struct kt_chain_report rep;
    int rc = kt_chain_run(&o, &rep, err);
    const struct kt_chain_link *K = &rep.link[KT_CHAIN_AT_KERNEL];
    if (rc < 0) {
        r->file = rep.error_file;
    } else if (uki && K->verdict != 0) {
        if (is_input_error(K->verdict) && K->verdict != -ENOMEM) {
            r->file = uki;
            rc = kt_fail(err, K->verdict, KT_NO_OFFSET, "%s", K->reason);
        } else {
            r->verdict = K->verdict;
            r->why = K->verdict == -EKEYREJECTED ? KT_INSTALL_DBX : KT_INSTALL_NO_DB;
            r->file = uki;
            kt_fmt(r->reason, sizeof(r->reason), "%s: %s (no shim: db and dbx judge it)", uki,
                   K->reason);
        }
    }
    kt_chain_report_free(&rep);
    return rc;
}

int kt_chain_install_check(const struct kt_efivars *vars, const char *shim,
                           const char *const *loaders, size_t n_loaders,
                           struct kt_install_check *r, struct kt_error *err)
{
    memset(r, 0, sizeof(*r));
    int rc = kt_chain_firmware_sigs(vars, shim, r->sigs, KT_CHAIN_MAX_SIGS, &r->n_sigs, err);
    if (rc < 0 && is_input_error(rc)) {
        r->file = shim;
        return rc;
    }
    if (r->n_sigs > KT_CHAIN_MAX_SIGS)
        r->n_sigs = KT_CHAIN_MAX_SIGS;
    bool sd = kt_chain_is_systemd_boot(shim);
    const char *what = sd ? "systemd-boot" : "shim";
    if (rc < 0) {
        shim_refused(r, shim, what, rc);
        return 0;
    }
    for (size_t i = 0; i < (n_loaders ? n_loaders : 1) && r->verdict == 0; i++) {
        const char *next = n_loaders ? loaders[i] : NULL;
        rc = sd ? boot_sdboot(vars, shim, next, r, err) : boot_once(vars, shim, next, r, err);
        if (rc < 0)
            return rc;
        r->n_loaders += n_loaders != 0;
    }
    if (r->verdict == 0) {
        kt_fmt(r->reason, sizeof(r->reason), "the new %s boots", what);
        for (size_t i = 0; i < r->n_sigs; i++)
            if (r->sigs[i].verdict == 0) {
                catf(r->reason, sizeof(r->reason), " (signature %d: %s accepts it)",
                     r->sigs[i].index, r->sigs[i].accepted_by);
                break;
            }
        if (r->n_loaders)
            catf(r->reason, sizeof(r->reason), ", and %zu %s%s behind it", r->n_loaders,
                 sd ? "UKI" : "loader", r->n_loaders == 1 ? "" : "s");
    }
    return 0;
}
