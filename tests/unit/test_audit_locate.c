/* test_audit_locate.c - kt_audit_locate on trees made here: the ESP order
 * (/boot/efi, /efi, /boot: the first with an EFI folder), shimx64.efi in the
 * vendor folders by name before EFI/BOOT/BOOTX64.EFI, case-insensitive names
 * (FAT), the loader and MokManager beside shim, the newest boot/vmlinuz-*
 * by version when the release is not there, modules by release, explicit
 * paths, and an empty root (everything missing, nothing fails).  Links
 * under the root (#23 item 6): kt_root_resolve looks a path up as a process
 * chrooted there would (absolute targets re-rooted, ".." stopping at the
 * top, loops, a file taken for a directory), and kt_audit_locate finds every
 * part through links inside the root, never a host file a link names. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit.h"
#include "util/file.h"
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

static void ln(const char *target, const char *rel_link)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", root, rel_link);
    if (symlink(target, p) != 0)
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

/* kt_root_resolve in root (a fresh tree); host: a file outside it. */
static void test_root_resolve(const char *host)
{
    char out[KT_AUDIT_PATH], want[KT_AUDIT_PATH + 64];
    struct stat st;
    mk("a/b/file");
    ln("/a/b", "abs");                 /* absolute: the root's /a/b */
    ln("../../../../../../a", "up");   /* climbs: stops at the root's top */
    ln(host, "bait");                  /* a host file the root does not have */
    ln("l2", "l1");
    ln("l1", "l2");
    ln("file", "a/b/same");            /* relative, in its directory */
    ln("/a/b/same", "a/chain");        /* a link to a link */
    ln("nowhere", "dangling");
    snprintf(want, sizeof(want), "%s/a/b/file", root);
    CHECK_EQ_INT(kt_root_resolve(root, "/abs/file", out, sizeof(out), &st), 0, "absolute link");
    CHECK_EQ_STR(out, want, "absolute link: inside the root");
    CHECK(S_ISREG(st.st_mode), "absolute link: the file's stat");
    CHECK_EQ_INT(kt_root_resolve(root, "/up/b/file", out, sizeof(out), &st), 0, "climbing link");
    CHECK_EQ_STR(out, want, "climbing link: stops at the root's top");
    CHECK_EQ_INT(kt_root_resolve(root, "/../../a/./b//file", out, sizeof(out), &st), 0, ".. in the path");
    CHECK_EQ_STR(out, want, ".. and . in the path");
    CHECK_EQ_INT(kt_root_resolve(root, "a/chain", out, sizeof(out), &st), 0, "a chain of links");
    CHECK_EQ_STR(out, want, "a chain of links, relative path");
    CHECK_EQ_INT(kt_root_resolve(root, "/bait", out, sizeof(out), &st), -ENOENT, "a host file: not in the root");
    snprintf(want, sizeof(want), "%s%s", root, host);
    CHECK_EQ_STR(out, want, "a host file: looked for inside the root");
    CHECK_EQ_INT(kt_root_resolve(root, "/l1", out, sizeof(out), &st), -ELOOP, "a loop");
    CHECK_EQ_INT(kt_root_resolve(root, "/a/b/file/x", out, sizeof(out), &st), -ENOTDIR, "a file as a directory");
    CHECK_EQ_INT(kt_root_resolve(root, "/a/b/file/..", out, sizeof(out), &st), -ENOTDIR, "a file then ..");
    CHECK_EQ_INT(kt_root_resolve(root, "/dangling", out, sizeof(out), &st), -ENOENT, "a dangling link");
    CHECK_EQ_INT(kt_root_resolve(root, "/a/missing/x", out, sizeof(out), &st), -ENOENT, "missing");
    snprintf(want, sizeof(want), "%s/a/missing/x", root);
    CHECK_EQ_STR(out, want, "missing: where it was looked for");
    CHECK_EQ_INT(kt_root_resolve(root, "/", out, sizeof(out), &st), 0, "the root itself");
    CHECK(!strcmp(out, root) && S_ISDIR(st.st_mode), "the root itself: a directory");
    CHECK_EQ_INT(kt_root_resolve(NULL, host, out, sizeof(out), &st), 0, "no root: the host's lookup");
    CHECK_EQ_STR(out, host, "no root: the path as given");
    CHECK_EQ_INT(kt_root_resolve(root, "/abs/file", out, 8, &st), -ENAMETOOLONG, "out too small");
}

/* kt_audit_locate through links under the root: each part the root's. */
static void test_locate_links(struct kt_audit *a, const char *host)
{
    mk("usr/lib/modules/7.0.0-1/vmlinuz");
    mkd("usr/lib/modules/7.0.0-1/kernel");
    ln("usr/lib", "lib");                                    /* merged /usr */
    mkd("boot");
    ln("/usr/lib/modules/7.0.0-1/vmlinuz", "boot/vmlinuz-7.0.0-1");
    ln(host, "boot/vmlinuz-9.0.0-1");                        /* a host file: not the root's */
    mk("esp-real/EFI/debian/shimx64.efi");
    mk("esp-real/EFI/debian/grub-2.12.efi");
    ln("grub-2.12.efi", "esp-real/EFI/debian/grubx64.efi");  /* stays on the ESP */
    ln(host, "esp-real/EFI/debian/mmx64.efi");               /* leaves the ESP */
    ln("/esp-real", "boot/efi");
    mk("sys/firmware/efi/efivars-real/x");
    ln("../../../../../../sys/firmware/efi/efivars-real", "sys/firmware/efi/efivars");
    struct kt_audit_opts o = {.root = root};
    memset(a, 0, sizeof(*a));
    kt_audit_locate(&o, a);
    CHECK(a->found[KT_AUDIT_EFIVARS], "efivars through a climbing link");
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_EFIVARS]), "/sys/firmware/efi/efivars-real", "efivars: the root's");
    CHECK(a->found[KT_AUDIT_ESP], "the ESP through an absolute link");
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_ESP]), "/esp-real", "the ESP: the root's");
    CHECK_EQ_STR(rel(a->links[KT_AUDIT_SHIM].path), "/esp-real/EFI/debian/shimx64.efi", "shim on it");
    CHECK(a->links[KT_AUDIT_LOADER].present, "GRUB through a link on the ESP");
    CHECK_EQ_STR(rel(a->links[KT_AUDIT_LOADER].path), "/esp-real/EFI/debian/grub-2.12.efi", "GRUB: the file");
    CHECK(!a->links[KT_AUDIT_MOKMANAGER].present, "MokManager linking to a host file: missing");
    /* 9.0.0-1 names a host file, so the newest in the root is 7.0.0-1 */
    CHECK_EQ_STR(a->release, "7.0.0-1", "the newest kernel the root has");
    CHECK(a->found[KT_AUDIT_KERNEL], "the kernel through an absolute link");
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_KERNEL]), "/usr/lib/modules/7.0.0-1/vmlinuz", "the kernel: the root's");
    CHECK(a->found[KT_AUDIT_MODULES], "modules through lib -> usr/lib");
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_MODULES]), "/usr/lib/modules/7.0.0-1", "modules: the root's");
    /* the release named: its link names a host file, so it is missing */
    o.release = "9.0.0-1";
    memset(a, 0, sizeof(*a));
    kt_audit_locate(&o, a);
    CHECK(!a->found[KT_AUDIT_KERNEL], "a kernel link to a host file: missing");
    char want[KT_AUDIT_PATH];
    snprintf(want, sizeof(want), "%s", host);
    CHECK_EQ_STR(rel(a->path[KT_AUDIT_KERNEL]), want, "looked for inside the root");
}

static void fresh_root(void)
{
    snprintf(root, sizeof(root), "%s/kt-audit-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        abort();
}

static void rm_root(void)
{
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        abort();
}

int main(void)
{
    test_load_option();
    /* a host file outside every root, that links under the roots name */
    char host[300];
    snprintf(host, sizeof(host), "%s/kt-audit-host-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int hfd = mkstemp(host);
    if (hfd < 0)
        return 1;
    close(hfd);
    fresh_root();
    test_root_resolve(host);
    rm_root();
    struct kt_audit *la = calloc(1, sizeof(*la));
    fresh_root();
    test_locate_links(la, host);
    rm_root();
    free(la);
    unlink(host);

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
