/* audit_sdboot.c - systemd-boot on the audited ESP (#34): found as shim's
 * second stage (a grubx64.efi that is systemd-boot), as the removable path
 * EFI/BOOT/BOOTX64.EFI, or at EFI/systemd/systemd-bootx64.efi with no shim;
 * the kernel link becomes the program of the entry it boots next
 * (src/sdboot/: loader.conf, the entries, the Loader* variables in force).
 * What each file is, is read from the snapshot's bytes: nothing is opened
 * twice. */
#include <string.h>

#include "audit/audit.h"
#include "boot/esp.h"
#include "ktrust/sdboot.h"
#include "ktrust/seal.h"

void kt_audit_sdboot_locate(struct kt_audit *a)
{
    struct kt_audit_link *L = a->links;
    char p[KT_AUDIT_PATH];
    if (!L[KT_AUDIT_SHIM].present && a->found[KT_AUDIT_ESP] &&
        kt_esp_file(a->path[KT_AUDIT_ESP], "/EFI/systemd/systemd-bootx64.efi", p, sizeof(p)) == 0) {
        kt_fmt(L[KT_AUDIT_LOADER].path, KT_AUDIT_PATH, "%s", p);
        L[KT_AUDIT_LOADER].present = true;
    }
}

static bool is_sdboot(const struct kt_audit_snap *s, int link)
{
    return s->file_rc[link] == 0 && kt_chain_is_systemd_boot_buf(s->file[link].data, s->file[link].len);
}

static void drop_file(struct kt_audit_snap *s, int link)
{
    if (s->file_rc[link] == 0)
        kt_file_close(&s->file[link]);
    s->file_rc[link] = -ENOENT;
}

/* The shim found at EFI/BOOT/BOOTX64.EFI is systemd-boot: the loader, no shim. */
static void no_shim(struct kt_audit *a, struct kt_audit_snap *s)
{
    struct kt_audit_link *L = a->links;
    drop_file(s, KT_AUDIT_LOADER);
    drop_file(s, KT_AUDIT_MOKMANAGER);
    L[KT_AUDIT_LOADER] = L[KT_AUDIT_SHIM];
    s->file[KT_AUDIT_LOADER] = s->file[KT_AUDIT_SHIM];
    s->file_rc[KT_AUDIT_LOADER] = s->file_rc[KT_AUDIT_SHIM];
    s->file_error[KT_AUDIT_LOADER] = s->file_error[KT_AUDIT_SHIM];
    s->file_rc[KT_AUDIT_SHIM] = -ENOENT;
    L[KT_AUDIT_SHIM].present = false;
    L[KT_AUDIT_MOKMANAGER].present = false;
}

/* .pcrsig in each bank it holds and each bank the sealed keys with a
 * signed policy use; how many keys use each. */
static int pcrsig_banks(struct kt_audit *a, const struct kt_uki *u)
{
    const char *want[KT_UKI_PCRSIG_BANKS];
    size_t n = 0;
    for (size_t i = 0; i < a->sealed.n; i++) {
        const char *b = a->sealed.tok[i].kind == KT_SEAL_KIND_SIGNED
                            ? kt_evlog_alg_name(a->sealed.tok[i].bank) : NULL;
        bool seen = !b;
        for (size_t k = 0; k < n && !seen; k++)
            seen = !strcmp(want[k], b);
        if (!seen && n < KT_UKI_PCRSIG_BANKS)
            want[n++] = b;
    }
    int rc = kt_uki_pcrsig_check_banks(u, want, n, &a->sdboot.pcrsig_banks);
    const struct kt_uki_pcrsig_banks *pb = &a->sdboot.pcrsig_banks;
    for (size_t i = 0; rc == 0 && i < a->sealed.n; i++)
        for (size_t k = 0; k < pb->n; k++)
            a->sdboot.pcrsig_sealed[k] += a->sealed.tok[i].kind == KT_SEAL_KIND_SIGNED &&
                                          !strcmp(pb->bank[k], kt_evlog_alg_name(a->sealed.tok[i].bank));
    return rc;
}

/* The next entry's UKI, from the snapshot's bytes: its .pcrsig (the PCR 11
 * policy disks sealed with --tpm2-public-key need) and its stub's version. */
static int uki_facts(struct kt_audit *a, const struct kt_audit_snap *s)
{
    struct kt_uki *u = NULL;
    const struct kt_file *f = &s->file[KT_AUDIT_KERNEL_LINK];
    if (s->file_rc[KT_AUDIT_KERNEL_LINK] < 0 || !kt_uki_detect(f->data, f->len))
        return 0;
    int rc = kt_uki_open_buf(f->data, f->len, &u, NULL);
    if (rc == 0) {
        rc = kt_uki_pcrsig_check(u, "sha256", &a->sdboot.pcrsig);
        a->sdboot.have_pcrsig = rc == 0;
        a->sdboot.addons_loaded = kt_sdboot_stub_loads_addons(u);
    }
    if (rc == 0)
        rc = pcrsig_banks(a, u);
    kt_uki_free(u);
    return rc == -ENOMEM ? rc : 0;
}

/* The next entry's add-ons, each judged by the authority that judges the
 * UKI (kt_chain_uki: db/dbx, or shim_lock; without the variables, not
 * judged) and by UAPI.5's section rule. */
static int addons(struct kt_audit *a, const struct kt_audit_snap *s, const struct kt_sdboot *sd,
                  size_t i)
{
    const struct kt_sdboot_addon *ad;
    char *names = a->sdboot.addons_forbidden;
    size_t cap = sizeof(a->sdboot.addons_forbidden);
    for (size_t k = 0; (ad = kt_sdboot_addon_at(sd, i, k)); k++) {
        struct kt_chain_link l;
        struct kt_error e = KT_ERROR_INIT;
        char bad[128] = "";
        struct kt_file f;
        struct kt_uki *u = NULL;
        a->sdboot.n_addons++;
        int rc = a->found[KT_AUDIT_EFIVARS] ? kt_chain_uki(&s->vars, ad->resolved, &l, &e) : 0;
        if (rc == -ENOMEM)
            return rc;
        bool refused = rc < 0 || (a->found[KT_AUDIT_EFIVARS] && l.verdict != 0);
        if (kt_file_open(ad->resolved, &f, NULL) == 0) {
            if (kt_uki_open_buf(f.data, f.len, &u, NULL) == 0 && kt_sdboot_addon_check(u, bad, sizeof(bad)))
                refused = true;
            kt_uki_free(u);
            kt_file_close(&f);
        }
        size_t n = strlen(names);
        if (bad[0] && !strstr(names, bad))
            kt_fmt(names + n, cap - n, "%s%s", n ? " " : "", bad);
        a->sdboot.n_addons_refused += refused;
    }
    return 0;
}

/* The kernel link: the program of the entry systemd-boot boots next. */
static int next_entry(struct kt_audit *a, struct kt_audit_snap *s, const struct kt_sdboot *sd)
{
    struct kt_audit_link *K = &a->links[KT_AUDIT_KERNEL_LINK];
    enum kt_sdboot_rule rule = KT_SDBOOT_BY_NONE;
    long i = sd ? kt_sdboot_next(sd, true, &rule) : -1;
    const struct kt_sdboot_entry *en = i >= 0 ? kt_sdboot_entry_at(sd, (size_t)i) : NULL;
    a->sdboot.rule = kt_sdboot_rule_name(rule);
    a->sdboot.n_entries = sd ? kt_sdboot_count(sd) : 0;
    a->sdboot.n_problems = sd ? kt_sdboot_problem_count(sd) : 0;
    drop_file(s, KT_AUDIT_KERNEL_LINK);
    K->present = false; /* systemd-boot starts the entry's program, not /boot's kernel */
    if (!en) {
        kt_fmt(a->unanswered, sizeof(a->unanswered), "%s", rule == KT_SDBOOT_BY_UNKNOWN
               ? "systemd-boot: which entry boots next is not answered (a Loader* variable or "
                 "loader.conf's default too long for ktrust)"
               : "systemd-boot: no entry to boot on the ESP");
        return 0;
    }
    kt_fmt(a->sdboot.entry, sizeof(a->sdboot.entry), "%s", en->id);
    a->sdboot.kind = kt_sdboot_kind_name(en->kind);
    if (en->image_rc < 0) {
        kt_fmt(K->path, KT_AUDIT_PATH, "%s%s", a->path[KT_AUDIT_ESP], en->image);
        kt_fmt(a->unanswered, sizeof(a->unanswered),
               "systemd-boot's next entry %s: %s has '.' or '..' or leaves the ESP: not judged",
               en->id, en->image);
        return 0;
    }
    kt_fmt(K->path, KT_AUDIT_PATH, "%s", en->resolved);
    K->present = true;
    s->file_error[KT_AUDIT_KERNEL_LINK] = (struct kt_error)KT_ERROR_INIT;
    s->file_rc[KT_AUDIT_KERNEL_LINK] =
        kt_file_open(K->path, &s->file[KT_AUDIT_KERNEL_LINK], &s->file_error[KT_AUDIT_KERNEL_LINK]);
    if (s->file_rc[KT_AUDIT_KERNEL_LINK] == -ENOMEM)
        return -ENOMEM;
    int rc = uki_facts(a, s);
    return rc == 0 ? addons(a, s, sd, (size_t)i) : rc;
}

int kt_audit_sdboot(struct kt_audit *a, struct kt_audit_snap *s)
{
    struct kt_audit_link *L = a->links;
    if (L[KT_AUDIT_SHIM].present && is_sdboot(s, KT_AUDIT_SHIM))
        no_shim(a, s);
    a->sdboot.found = L[KT_AUDIT_LOADER].present && is_sdboot(s, KT_AUDIT_LOADER);
    a->sdboot.no_shim = a->sdboot.found && !L[KT_AUDIT_SHIM].present;
    if (!a->sdboot.found)
        return 0;
    struct kt_sdboot *sd = NULL;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_sdboot_open(a->path[KT_AUDIT_ESP], a->found[KT_AUDIT_EFIVARS] ? &s->vars : NULL,
                            &sd, &e);
    if (rc == -ENOMEM)
        return rc;
    rc = next_entry(a, s, sd);
    kt_sdboot_free(sd);
    return rc;
}
