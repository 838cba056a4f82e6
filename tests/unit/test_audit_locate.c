/* test_audit_locate.c - kt_audit_locate on trees made here: the ESP order
 * (/boot/efi, /efi, /boot: the first with an EFI folder), shimx64.efi in the
 * vendor folders by name before EFI/BOOT/BOOTX64.EFI, case-insensitive names
 * (FAT), the loader and MokManager beside shim, the newest boot/vmlinuz-*
 * by version when the release is not there, modules by release, explicit
 * paths, and an empty root (everything missing, nothing fails). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit.h"
#include "kt_test.h"

static char root[256];

static void mk(const char *rel)
{
    char p[512], cmd[1200];
    snprintf(p, sizeof(p), "%s/%s", root, rel);
    snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && : > '%s'", p, p);
    if (system(cmd) != 0)
        abort();
}

static void mkd(const char *rel)
{
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", root, rel);
    if (system(cmd) != 0)
        abort();
}

static const char *rel(const char *p)
{
    size_t n = strlen(root);
    return strncmp(p, root, n) ? p : p + n;
}

int main(void)
{
    snprintf(root, sizeof(root), "%s/kt-audit-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        return 1;
    struct kt_audit *a = calloc(1, sizeof(*a));
    struct kt_audit_opts o = {.root = root, .release = NULL};

    /* empty root: everything missing */
    kt_audit_locate(&o, a);
    for (int i = 0; i < KT_AUDIT__PARTS; i++)
        CHECK(!a->found[i], "part %d found in an empty root", i);
    CHECK(!a->links[KT_AUDIT_SHIM].present, "no shim");
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_EFIVARS]), "/sys/firmware/efi/efivars", "efivars under root");

    /* /boot has EFI but /boot/efi does not: /boot is the ESP; a vendor shim
     * wins over BOOTX64.EFI; "debian" before "ubuntu"; FAT-style case */
    mk("boot/EFI/BOOT/BOOTX64.EFI");
    mk("boot/EFI/ubuntu/shimx64.efi");
    mk("boot/EFI/debian/SHIMX64.EFI");
    mk("boot/EFI/debian/GrubX64.efi");
    mkd("boot/efi"); /* exists, but has no EFI folder */
    mk("boot/vmlinuz-6.1.0-9-amd64");
    mk("boot/vmlinuz-6.1.0-10-amd64");
    mk("boot/vmlinuz-5.10.0-30-amd64");
    mkd("lib/modules/6.1.0-10-amd64/kernel");
    memset(a, 0, sizeof(*a));
    o.release = NULL;
    kt_audit_locate(&o, a);
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_ESP]), "/boot", "the ESP: the first with EFI");
    CHECK_EQ_STR(rel(a->links[KT_AUDIT_SHIM].path), "/boot/EFI/debian/SHIMX64.EFI", "vendor shim by name");
    CHECK_EQ_STR(rel(a->links[KT_AUDIT_LOADER].path), "/boot/EFI/debian/GrubX64.efi", "loader beside it");
    CHECK(a->links[KT_AUDIT_LOADER].present, "loader present");
    CHECK(!a->links[KT_AUDIT_MOKMANAGER].present, "no MokManager");
    CHECK_EQ_STR(rel(a->links[KT_AUDIT_MOKMANAGER].path), "/boot/EFI/debian/mmx64.efi", "where MokManager would be");
    /* the host's release is not in this root: the newest by version (10 > 9) */
    CHECK_EQ_STR(a->release, "6.1.0-10-amd64", "newest kernel by version");
    CHECK(a->found[KT_AUDIT_KERNEL] && a->found[KT_AUDIT_MODULES], "kernel and modules");
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_MODULES]), "/lib/modules/6.1.0-10-amd64", "modules of that release");

    /* a given release is kept even when its image is missing */
    memset(a, 0, sizeof(*a));
    o.release = "6.1.0-99-amd64";
    kt_audit_locate(&o, a);
    CHECK(!a->found[KT_AUDIT_KERNEL], "release without an image: missing");
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_KERNEL]), "/boot/vmlinuz-6.1.0-99-amd64", "looked for it");

    /* only EFI/BOOT/BOOTX64.EFI; /boot/efi now has EFI and wins */
    mk("boot/efi/EFI/BOOT/bootx64.efi");
    memset(a, 0, sizeof(*a));
    o.release = NULL;
    kt_audit_locate(&o, a);
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_ESP]), "/boot/efi", "/boot/efi first");
    CHECK_EQ_STR(rel(a->links[KT_AUDIT_SHIM].path), "/boot/efi/EFI/BOOT/bootx64.efi", "BOOTX64.EFI fallback");

    /* explicit paths are not put under root; the release comes from the name */
    char kern[600];
    snprintf(kern, sizeof(kern), "%s/boot/vmlinuz-6.1.0-9-amd64", root);
    struct kt_audit_opts e = {.root = root, .kernel = kern, .efivars = "/nonexistent-efivars"};
    memset(a, 0, sizeof(*a));
    kt_audit_locate(&e, a);
    CHECK_EQ_STR(a->release, "6.1.0-9-amd64", "release from --kernel's name");
    CHECK_EQ_STR(a->path[KT_AUDIT_EFIVARS], "/nonexistent-efivars", "--efivars as given");
    CHECK(!a->found[KT_AUDIT_EFIVARS], "missing efivars");
    CHECK(!a->found[KT_AUDIT_MODULES], "no modules for 6.1.0-9");

    free(a);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        return 1;
    KT_TEST_END();
}
