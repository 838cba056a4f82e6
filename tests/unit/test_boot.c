/* test_boot.c - src/boot/: the variable catalogue (one entry per
 * kt_efivar_id, in order; the GUIDs' bytes and text agree; shim's RT
 * mirrors and PCRs as mok.c's mok_state_variable_data says), the root
 * locator, and kt_esp_resolve on a scratch ESP: case-blind, "." and ".."
 * refused, a link followed only while it stays on the ESP; device paths
 * and load options. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/devpath.h"
#include "boot/esp.h"
#include "boot/vars.h"
#include "ktrust/audit.h"
#include "ktrust/boot.h"
#include "ktrust/esl.h"
#include "kt_test.h"

static void catalogue(void)
{
    for (int i = 0; i < KT_EFIVAR__COUNT; i++) {
        const struct kt_var_info *v = kt_var_info((enum kt_efivar_id)i);
        CHECK(v && (int)v->id == i, "entry %d is id %d", i, i);
        CHECK(v && kt_var_find(v->name) == v, "%s found by name", v ? v->name : "?");
        CHECK_EQ_STR(kt_efivar_name((enum kt_efivar_id)i), v->name, "kt_efivar_name");
    }
    CHECK(kt_var_info(KT_EFIVAR__COUNT) == NULL, "past the end");
    CHECK(kt_var_find("MokList") == NULL, "the boot-services name is not an efivarfs one");
    for (int g = 0; g < KT_VENDOR__COUNT; g++) {
        char s[40];
        CHECK_EQ_STR(kt_guid_str(kt_var_vendor_guid((enum kt_var_vendor)g), s),
                     kt_var_vendor_str((enum kt_var_vendor)g), "GUID bytes and text");
    }
    CHECK_EQ_STR(kt_audit_owner_name("605dab50-e046-4300-abb6-3dd810dd8b23"), "shim",
                 "audit names shim's owner GUID from the catalogue");
    const struct kt_var_info *m = kt_var_info(KT_EFIVAR_MOKLIST);
    CHECK_EQ_STR(m->shim_name, "MokList", "MokListRT mirrors MokList");
    CHECK_EQ_INT(m->pcr, 14, "MokList in PCR 14");
    CHECK_EQ_INT(m->vendor, KT_VENDOR_SHIM, "under SHIM_LOCK_GUID");
    CHECK_EQ_STR(kt_var_info(KT_EFIVAR_MOK_IGNORE_DB)->shim_name, "MokDBState", "MokIgnoreDB mirrors MokDBState");
    CHECK_EQ_INT(kt_var_info(KT_EFIVAR_SBAT_LEVEL_RT)->pcr, 7, "SbatLevel in PCR 7");
    CHECK_EQ_INT(kt_var_info(KT_EFIVAR_DB)->attrs, 0x27, "db: NV|BS|RT|time-based auth");
    CHECK(kt_var_authenticated(kt_var_find("dbx")) && !kt_var_authenticated(kt_var_find("MokListRT")) &&
              !kt_var_authenticated(kt_var_find("dbDefault")), "authenticated: PK, KEK, db...");
    CHECK(kt_var_firmware_measured(kt_var_find("SecureBoot")) &&
              !kt_var_firmware_measured(kt_var_find("SbatLevel")) &&
              !kt_var_firmware_measured(kt_var_find("BootOrder")), "firmware's PCR 7 variables");
}

static void locator(void)
{
    char p[64];
    CHECK_EQ_STR(kt_sys_path(KT_SYS_EFIVARS), KT_SYS_EFIVARS_PATH, "efivars");
    CHECK(kt_sys_path(KT_SYS__PARTS) == NULL, "past the end");
    CHECK(kt_sys_path_under("/r", KT_SYS_EVENTLOG, p, sizeof(p)) == 0 &&
              !strcmp(p, "/r" KT_SYS_EVENTLOG_PATH), "under a root: %s", p);
    CHECK(kt_sys_path_under("/", KT_SYS_MODULES, p, sizeof(p)) == 0 && !strcmp(p, "/lib/modules"),
          "root /: the live path");
    CHECK_EQ_INT(kt_sys_path_under("/r", KT_SYS_EVENTLOG, p, 8), -ENAMETOOLONG, "too long");
    size_t n;
    const char *const *e = kt_sys_esp_candidates(&n);
    CHECK(n == 3 && !strcmp(e[0], kt_sys_path(KT_SYS_ESP)), "ESP candidates, /boot/efi first");
}

static void touch(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
}

static int res(const char *esp, const char *path, char *out)
{
    return kt_esp_resolve(esp, path, out, PATH_MAX, NULL);
}

static void esp(void)
{
    char tmpl[] = "/tmp/kt_boot_XXXXXX", cwd[PATH_MAX], out[PATH_MAX];
    if (!mkdtemp(tmpl) || !getcwd(cwd, sizeof(cwd)) || chdir(tmpl) < 0) {
        CHECK(0, "scratch directory");
        return;
    }
    const char *e = "esp"; /* relative to the scratch directory */
    mkdir("esp", 0755);
    mkdir("esp/EFI", 0755);
    mkdir("esp/EFI/debian", 0755);
    touch("esp/EFI/debian/shimx64.efi");
    touch("outside.efi");
    char abs[PATH_MAX + 16];
    snprintf(abs, sizeof(abs), "%s/outside.efi", tmpl);
    CHECK_EQ_INT(symlink("shimx64.efi", "esp/EFI/debian/in.efi"), 0, "link in");
    CHECK_EQ_INT(symlink("../../EFI/debian/shimx64.efi", "esp/EFI/debian/up.efi"), 0, "link up");
    CHECK_EQ_INT(symlink(abs, "esp/EFI/debian/abs.efi"), 0, "link abs");
    CHECK_EQ_INT(symlink("../../../outside.efi", "esp/EFI/debian/out.efi"), 0, "link out");
    CHECK_EQ_INT(symlink("..", "esp/EFI/debian/parent"), 0, "link parent");
    CHECK_EQ_INT(symlink("/", "esp/EFI/root"), 0, "link /");

    const char *want = "esp/EFI/debian/shimx64.efi";
    CHECK(res(e, "\\efi\\DEBIAN\\SHIMX64.EFI", out) == 0 && !strcmp(out, want), "case-blind: %s", out);
    CHECK(res(e, "/EFI/debian/in.efi", out) == 0 && !strcmp(out, want), "a link inside: %s", out);
    CHECK(res(e, "EFI/debian/up.efi", out) == 0 && !strcmp(out, want), "a link with ..: %s", out);
    CHECK(res(e, "EFI/debian/parent/debian/shimx64.efi", out) == 0 && !strcmp(out, want),
          "a directory link inside: %s", out);
    CHECK_EQ_INT(res(e, "EFI/debian/abs.efi", out), -EXDEV, "absolute link refused");
    CHECK_EQ_STR(out, "esp/EFI/debian/abs.efi", "where it was looked for");
    CHECK_EQ_INT(res(e, "EFI/debian/out.efi", out), -EXDEV, "climbing link refused");
    CHECK_EQ_INT(res(e, "EFI/root/tmp", out), -EXDEV, "a link to / refused");
    CHECK_EQ_INT(res(e, "EFI/../outside.efi", out), -ENOENT, ".. in the path refused");
    CHECK_EQ_INT(res(e, "./EFI", out), -ENOENT, ". in the path refused");
    CHECK_EQ_INT(res(e, "EFI/debian/missing.efi", out), -ENOENT, "missing");
    CHECK_EQ_STR(out, "esp/EFI/debian/missing.efi", "missing: where it was looked for");
    CHECK_EQ_INT(res(e, "EFI/Debian/missing/x.efi", out), -ENOENT, "a missing directory");
    CHECK_EQ_STR(out, "esp/EFI/debian/missing/x.efi", "the found part in its real case, the rest as given");
    CHECK_EQ_INT(res(e, "EFI/debian/shimx64.efi/x", out), -ENOTDIR, "under a file");
    CHECK_EQ_INT(kt_esp_file(e, "EFI/debian", out, sizeof(out)), -EISDIR, "a directory is not a file");
    CHECK(res(e, "", out) == 0 && !strcmp(out, e), "the ESP itself");
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
    CHECK_EQ_INT(chdir(cwd), 0, "back");
    CHECK_EQ_INT(system(cmd), 0, "cleanup");
}

/* A node of type, subtype and body at p; returns its length. */
static size_t node(uint8_t *p, uint8_t type, uint8_t sub, const void *body, size_t n)
{
    p[0] = type, p[1] = sub, p[2] = (uint8_t)(n + 4), p[3] = (uint8_t)((n + 4) >> 8);
    if (n)
        memcpy(p + 4, body, n);
    return n + 4;
}

static size_t ucs2(uint8_t *p, const char *s)
{
    size_t n = 0;
    do
        p[n++] = (uint8_t)*s, p[n++] = 0;
    while (*s++);
    return n;
}

static void devpath(void)
{
    uint8_t dp[512], u[128];
    size_t n = 0;
    const uint8_t acpi[8] = {0xd0, 0x41, 0x03, 0x0a, 0, 0, 0, 0}, pci[2] = {0, 2};
    n += node(dp + n, 2, 1, acpi, 8);
    n += node(dp + n, 1, 1, pci, 2);
    n += node(dp + n, 4, 4, u, ucs2(u, "\\EFI\\BOOT"));
    n += node(dp + n, 4, 4, u, ucs2(u, "BOOTX64.EFI"));
    n += node(dp + n, 0x7f, 0x01, NULL, 0); /* the end of an instance */
    n += node(dp + n, 4, 4, u, ucs2(u, "\\other.efi"));
    n += node(dp + n, 0x7f, 0xff, NULL, 0);
    char text[256], file[64];
    kt_le c;
    kt_le_init(&c, dp, n, NULL);
    CHECK_EQ_INT(kt_devpath_decode(&c, text, sizeof(text), file, sizeof(file)), 0, "decodes");
    CHECK_EQ_STR(text, "PciRoot(0x0)/Pci(0x2,0x0)/\\EFI\\BOOT/BOOTX64.EFI,\\other.efi", "text");
    CHECK_EQ_STR(file, "\\EFI\\BOOT\\BOOTX64.EFI", "the first instance's file nodes, joined");
    dp[2] = 3; /* a node shorter than its header */
    kt_le_init(&c, dp, n, NULL);
    CHECK_EQ_INT(kt_devpath_decode(&c, text, sizeof(text), NULL, 0), -EBADMSG, "a bad node");
    /* a load option: attributes, FilePathListLength, description, the list */
    uint8_t opt[512] = {1, 0, 0, 0};
    size_t k = 6 + ucs2(opt + 6, "deb\x01"), list = k;
    k += node(opt + k, 4, 4, u, ucs2(u, "\\EFI\\debian\\shimx64.efi"));
    k += node(opt + k, 0x7f, 0xff, NULL, 0);
    opt[4] = (uint8_t)(k - list);
    struct kt_load_option o;
    CHECK_EQ_INT(kt_load_option_parse(opt, k, &o), 0, "a load option");
    CHECK(o.active && !strcmp(o.description, "deb?") && !strcmp(o.file, "\\EFI\\debian\\shimx64.efi"),
          "active, '%s', '%s'", o.description, o.file);
    CHECK_EQ_INT(kt_load_option_parse(opt, k - 1, &o), -EBADMSG, "truncated");
}

int main(void)
{
    catalogue();
    locator();
    esp();
    devpath();
    KT_TEST_END();
}
