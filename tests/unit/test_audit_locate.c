/* test_audit_locate.c - kt_audit_locate on trees made here: the ESP order
 * (/boot/efi, /efi, /boot: the first with an EFI folder), shimx64.efi in the
 * vendor folders by name before EFI/BOOT/BOOTX64.EFI, case-insensitive names
 * (FAT), the loader and MokManager beside shim, the newest boot/vmlinuz-*
 * by version when the release is not there, modules by release, explicit
 * paths, and an empty root (everything missing, nothing fails). */
#include <errno.h>
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

/* UCS-2 of an ASCII string, with its NUL, at p; returns the bytes written. */
static size_t put_ucs2(uint8_t *p, const char *s)
{
    size_t n = 0;
    do {
        p[n++] = (uint8_t)*s;
        p[n++] = 0;
    } while (*s++);
    return n;
}

/* EFI_LOAD_OPTION (UEFI 2.10 3.1.3): attributes, FilePathListLength, the
 * description, then device path nodes: a hard-drive node, a media file-path
 * node and the end node. */
static size_t load_option(uint8_t *p, uint32_t attributes)
{
    size_t n = 0;
    p[n++] = (uint8_t)attributes, p[n++] = 0, p[n++] = 0, p[n++] = 0;
    size_t len_at = n;
    n += 2;
    n += put_ucs2(p + n, "debian");
    size_t list = n;
    p[n++] = 0x04, p[n++] = 0x01, p[n++] = 42, p[n++] = 0; /* hard drive */
    memset(p + n, 0xaa, 38);
    n += 38;
    size_t node = n;
    p[n++] = 0x04, p[n++] = 0x04, n += 2;                  /* file path */
    n += put_ucs2(p + n, "\\EFI\\debian\\shimx64.efi");
    p[node + 2] = (uint8_t)(n - node), p[node + 3] = (uint8_t)((n - node) >> 8);
    p[n++] = 0x7f, p[n++] = 0xff, p[n++] = 4, p[n++] = 0;  /* end */
    p[len_at] = (uint8_t)(n - list), p[len_at + 1] = (uint8_t)((n - list) >> 8);
    return n;
}

static void test_load_option(void)
{
    uint8_t opt[512];
    struct kt_audit_boot b;
    size_t n = load_option(opt, 1);
    memset(&b, 0, sizeof(b));
    CHECK_EQ_INT(kt_audit_load_option(opt, n, &b), 0, "a load option parses");
    CHECK(b.active, "LOAD_OPTION_ACTIVE");
    CHECK_EQ_STR(b.description, "debian", "description");
    CHECK_EQ_STR(b.file, "/EFI/debian/shimx64.efi", "the file-path node, '/'-separated");
    n = load_option(opt, 0);
    memset(&b, 0, sizeof(b));
    CHECK(kt_audit_load_option(opt, n, &b) == 0 && !b.active, "an inactive option");
    /* every truncation is malformed (FilePathListLength then points past the end) */
    int bad = 0;
    for (size_t k = 0; k < n; k++) {
        memset(&b, 0, sizeof(b));
        bad += kt_audit_load_option(opt, k, &b) == -EBADMSG;
    }
    CHECK_EQ_INT(bad, (int)n, "every truncation is -EBADMSG");
    /* a node shorter than its header, and one longer than the list */
    uint8_t mut[512];
    memcpy(mut, opt, n);
    size_t node0 = 6 + 14; /* after attributes, length and "debian\0" in UCS-2 */
    mut[node0 + 2] = 3;
    CHECK_EQ_INT(kt_audit_load_option(mut, n, &b), -EBADMSG, "a node length under 4");
    memcpy(mut, opt, n);
    mut[node0 + 2] = 0xff, mut[node0 + 3] = 0x0f;
    CHECK_EQ_INT(kt_audit_load_option(mut, n, &b), -EBADMSG, "a node past the list");
    /* no NUL in the description */
    memset(&b, 0, sizeof(b));
    CHECK_EQ_INT(kt_audit_load_option(opt, 6 + 12, &b), -EBADMSG, "a description with no NUL");
}

int main(void)
{
    test_load_option();
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
