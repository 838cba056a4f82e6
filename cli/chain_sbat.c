/* chain_sbat.c - --efivars and SBAT for `chain`. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/efivars.h"
#include "chain_sbat.h"
#include "cli.h"
#include "sbat_print.h"
#include "util/file.h"

typedef int (*add_fn)(struct kt_chain *, const uint8_t *, size_t, const char *, struct kt_error *);

static int load_one(struct kt_chain *ch, const char *path, add_fn fn)
{
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc == 0 && f.len > 4) /* an attribute word alone: an empty variable */
        rc = fn(ch, f.data, f.len, path, &e);
    kt_file_close(&f);
    if (rc < 0) {
        cli_error(path, &e);
        return cli_exit_code(rc);
    }
    return 0;
}

int chain_efivars_load(struct kt_chain *ch, const char *dir, struct chain_sb *sb)
{
    char buf[4096];
    DIR *d = opendir(dir);
    if (!d) {
        cli_errorf(dir, "cannot open: %m");
        return EXIT_NOINPUT;
    }
    closedir(d);
    sb->on = true;
    for (size_t i = 0; i < KT_EFIVAR_FEEDS; i++) {
        const char *p = kt_audit_find_var(dir, kt_efivar_feeds[i].name, buf, sizeof(buf));
        if (!p)
            continue;
        int rc = load_one(ch, p, kt_efivar_feeds[i].add);
        if (rc)
            return rc;
        sb->efivars_loaded++;
    }
    if (!sb->have_current) {
        struct kt_error e = KT_ERROR_INIT;
        int rc = kt_efivar_sbat_level(dir, &sb->current, buf, sizeof(buf), &e);
        if (rc < 0) {
            cli_error(buf, &e);
            return cli_exit_code(rc);
        }
        sb->have_current = rc > 0;
    }
    /* MokListTrustedRT present: the owner trusts MOK keys for the kernel's
     * own keyrings, so they join machine, not platform (the kernel checks
     * only that the variable exists: uefi_check_trust_mok_keys) */
    if (kt_audit_find_var(dir, "MokListTrustedRT", buf, sizeof(buf)))
        kt_chain_set_mok_trusted(ch, true);
    int secure = kt_efivar_byte(dir, "SecureBoot");
    if (secure >= 0)
        sb->secure = secure;
    return 0;
}

static void stop_below(struct kt_chain_link *links, size_t n, size_t from, const char *why)
{
    for (size_t i = from; i < n; i++) {
        links[i].verdict = -EKEYREJECTED;
        snprintf(links[i].reason, sizeof(links[i].reason), "never loaded: %s", why);
    }
}

int chain_sbat_apply(struct chain_sb *sb, struct kt_chain_link *links, size_t n,
                     const char *const *paths)
{
    if (!sb->on || n < 3)
        return 0;
    sb->text = calloc(n, sizeof(*sb->text));
    if (!sb->text)
        return EXIT_INTERNAL;
    sb->n = n;
    struct kt_file f = {0};
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(paths[0], &f, &e);
    if (rc == 0)
        rc = kt_chain_sbat_level(f.data, f.len, sb->have_current ? &sb->current : NULL,
                                 sb->policy, sb->secure, &sb->applied, sb->note,
                                 sizeof(sb->note), &e);
    if (rc < 0) {
        kt_file_close(&f);
        cli_error(paths[0], &e);
        snprintf(sb->note, sizeof(sb->note), "SbatLevel unknown: %s", e.what);
        return cli_exit_code(rc);
    }
    sb->have_applied = true;
    rc = kt_chain_sbat_link(f.data, f.len, &sb->applied, true, &links[0], sb->text[0],
                            sizeof(sb->text[0]));
    kt_file_close(&f);
    if (rc < 0) {
        stop_below(links, n, 1, "shim failed its SBAT self-check and powered the machine off");
        return 0;
    }
    int loader_rc = 0;
    for (size_t i = 1; i < 3; i++) {
        struct kt_file g = {0};
        if (kt_file_open(paths[i], &g, &e) < 0)
            continue; /* the link already says the file is unreadable */
        /* shim loads the loader itself: .sbat required; the kernel is verified
         * through shim's protocol: not required */
        rc = kt_chain_sbat_link(g.data, g.len, &sb->applied, i == 1, &links[i], sb->text[i],
                                sizeof(sb->text[i]));
        if (i == 1)
            loader_rc = rc;
        kt_file_close(&g);
    }
    if (loader_rc < 0)
        stop_below(links, n, 2, "shim refused the loader (SBAT)");
    return 0;
}

void chain_sb_free(struct chain_sb *sb)
{
    kt_sbat_level_free(&sb->current);
    kt_sbat_level_free(&sb->applied);
    free(sb->text);
    sb->text = NULL;
}
