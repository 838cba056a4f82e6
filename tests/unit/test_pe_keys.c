/* test_pe_keys.c - keys wrapped in signed PE images (wrapped/pe_keys.h):
 * wrappers made by `ktrust wrap-key` and signed by sbsign under a trusted
 * or a rogue CA, unsigned and tampered, and the corpus's Debian shim (its
 * .vendor_cert) under the Microsoft UEFI CA: keys are added, trusted, only
 * when the image verifies; otherwise nothing is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_test.h"
#include "wrapped/pe_keys.h"

static char dir[256];

static int sh(const char *cmd)
{
    char full[4096];
    snprintf(full, sizeof(full), "cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);
    int rc = system(full);
    CHECK(rc == 0, "command: %s", cmd);
    return rc;
}

static uint8_t *load(const char *path, size_t *n)
{
    char full[4400];
    if (path[0] != '/')
        snprintf(full, sizeof(full), "%s/%s", dir, path);
    else
        snprintf(full, sizeof(full), "%s", path);
    uint8_t *b = kt_test_slurp(full, n);
    CHECK(b != NULL, "read %s", full);
    return b;
}

struct scenario {
    const char *name, *file, *platform; /* platform: the CA added to `platform` */
    const char *target;                 /* the keyring the keys go to */
    bool tamper;                        /* flip a byte of the wrapped section */
    int rc;
    enum kt_wrap_kind kind;
    size_t added;                       /* SIZE_MAX: at least one */
    const char *first;                  /* in the first added key's description */
};

static void run(const struct scenario *s)
{
    struct kt_keyrings *rings;
    CHECK_EQ_INT(kt_keyrings_new(&rings), 0, "keyrings");
    size_t n;
    struct kt_error e = {0};
    uint8_t *ca = load(s->platform, &n);
    if (ca)
        CHECK_EQ_INT(kt_keyrings_add_blob(rings, kt_keyrings_get(rings, "platform"), ca, n,
                                          "test", KT_ADD_EXPLICIT, NULL, &e),
                     0, s->name);
    free(ca);
    uint8_t *b = load(s->file, &n);
    if (!b) {
        kt_keyrings_free(rings);
        return;
    }
    if (s->tamper) {
        struct kt_pe *pe;
        struct kt_wrapped w;
        if (kt_pe_parse(b, n, &pe, NULL) == 0) {
            CHECK_EQ_INT(kt_pe_find_wrapped(pe, &w, NULL), 0, "find before tampering");
            b[w.section_offset + w.keylist.len / 2] ^= 0xff;
            kt_pe_free(pe);
        }
    }
    struct kt_keyring *target = kt_keyrings_get(rings, s->target);
    struct kt_pe_load_result res;
    memset(&res, 0, sizeof(res));
    struct kt_pe_verify_opts o = {.purpose = KT_VERIFY_PURPOSE_UEFI};
    e = (struct kt_error){0};
    int rc = kt_pe_load_keys(b, n, rings, target, &o, s->file, &res, &e);
    CHECK(rc == s->rc, "%s: rc %d, want %d (%s)", s->name, rc, s->rc, e.what);
    if (rc == 0) {
        CHECK_EQ_INT(res.kind, s->kind, s->name);
        if (s->added == SIZE_MAX)
            CHECK(res.n_added >= 1, "%s: %zu keys added", s->name, res.n_added);
        else
            CHECK_EQ_INT(res.n_added, s->added, s->name);
        CHECK_EQ_INT(kt_keyring_count(target), res.n_added + 1, "target: the CA + the added keys");
        for (size_t i = 0; i < res.n_added; i++)
            CHECK(res.added[i]->trusted && res.added[i]->ring == target,
                  "%s: key %zu trusted, in the target", s->name, i);
        if (s->first && res.n_added)
            CHECK(strstr(res.added[0]->cert->description, s->first) != NULL, "%s: first key %s",
                  s->name, res.added[0]->cert->description);
    } else {
        CHECK_EQ_INT(res.n_added, 0, "nothing reported added");
        CHECK_EQ_INT(res.n_blacklisted, 0, "nothing blacklisted");
        CHECK_EQ_INT(kt_keyring_count(target), !strcmp(s->target, "platform"),
                     "the target is unchanged");
    }
    kt_pe_load_result_free(&res);
    kt_keyrings_free(rings);
    free(b);
}

int main(void)
{
    const char *corpus = kt_test_require_corpus();
    const char *ktrust = getenv("KTRUST");
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof(dir), "%s/kt-pekeys.XXXXXX", tmp);
    if (!ktrust || !mkdtemp(dir)) {
        fprintf(stderr, "KTRUST unset or mkdtemp failed\n");
        return 1;
    }
    char cmd[3000];
    snprintf(cmd, sizeof(cmd),
             "ca() { openssl req -x509 -newkey rsa:2048 -nodes -keyout $1.key -out $1.pem"
             "  -days 30 -subj \"/O=$2/CN=$2 Root\" -addext basicConstraints=critical,CA:TRUE"
             "  -addext keyUsage=critical,keyCertSign,digitalSignature"
             "  -addext subjectKeyIdentifier=hash; };"
             "leaf() { openssl req -new -newkey rsa:2048 -nodes -keyout $1.key -out $1.csr"
             "  -subj \"/O=$2/CN=$2 signer\" &&"
             "  printf 'basicConstraints=CA:FALSE\\nextendedKeyUsage=codeSigning\\n"
             "subjectKeyIdentifier=hash\\nauthorityKeyIdentifier=keyid\\n' > $1.ext &&"
             "  openssl x509 -req -in $1.csr -CA $3.pem -CAkey $3.key -CAcreateserial -days 30"
             "  -extfile $1.ext -out $1.pem; };"
             "self() { openssl req -x509 -newkey rsa:2048 -nodes -keyout $1.key -out $1.pem"
             "  -days 30 -subj \"/O=Acme Corp/CN=$2\" -addext extendedKeyUsage=codeSigning; };"
             "ca platform 'Stand-in UEFI CA' && leaf signer 'Stand-in UEFI CA' platform &&"
             " ca rogue 'Rogue CA' && leaf rsigner 'Rogue CA' rogue &&"
             " self vendor1 'Acme Corp Module Signing' && self vendor2 'Acme Corp Firmware Key' &&"
             " '%s' wrap-key vendor1.pem vendor2.pem -o wrap.efi &&"
             " sbsign --key signer.key --cert signer.pem --output wrap.sb.efi wrap.efi &&"
             " sbsign --key rsigner.key --cert rsigner.pem --output wrap.rogue.efi wrap.efi",
             ktrust);
    if (sh(cmd) != 0)
        KT_TEST_END();
    char shim[4200], ms11[4200], grub[4200];
    snprintf(shim, sizeof(shim), "%s/debian/shimx64.efi.signed", corpus);
    snprintf(grub, sizeof(grub), "%s/debian/grubx64.efi.signed", corpus);
    snprintf(ms11, sizeof(ms11), "%s/trust/microsoft-uefi-ca-2011.pem", corpus);
    /* platform keys vouch for boot images: their wrapped keys may join
     * platform, never secondary (the kernel's rule) */
    const struct scenario cases[] = {
        {"wrapper, trusted signer", "wrap.sb.efi", "platform.pem", "platform", false, 0,
         KT_WRAP_KEYLIST, 2, "Acme Corp Module Signing"},
        {"wrapper, platform voucher, into secondary", "wrap.sb.efi", "platform.pem", "secondary",
         false, -EPERM, 0, 0, NULL},
        {"wrapper, rogue signer", "wrap.rogue.efi", "platform.pem", "platform", false, -ENOKEY,
         0, 0, NULL},
        {"wrapper, trusted by the rogue CA", "wrap.rogue.efi", "rogue.pem", "platform", false, 0,
         KT_WRAP_KEYLIST, 2, "Acme Corp Module Signing"},
        {"wrapper, unsigned", "wrap.efi", "platform.pem", "platform", false, -ENODATA, 0, 0,
         NULL},
        {"wrapper, .keylist tampered", "wrap.sb.efi", "platform.pem", "platform", true,
         -EKEYREJECTED, 0, 0, NULL},
        {"Debian shim, Microsoft CA", shim, ms11, "platform", false, 0, KT_WRAP_VENDOR_CERT, 1,
         "Debian Secure Boot CA"},
        {"Debian shim, unrelated CA", shim, "platform.pem", "platform", false, -ENOKEY, 0, 0,
         NULL},
        {"GRUB (Debian-signed) under the Microsoft CA", grub, ms11, "platform", false, -ENOKEY,
         0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run(&cases[i]);
    /* GRUB has neither section: kt_pe_find_wrapped says so */
    size_t n;
    uint8_t *b = load(grub, &n);
    struct kt_pe *pe;
    struct kt_wrapped w;
    struct kt_error e = {0};
    if (b && kt_pe_parse(b, n, &pe, NULL) == 0) {
        CHECK_EQ_INT(kt_pe_find_wrapped(pe, &w, &e), -ENOENT, "GRUB wraps nothing");
        CHECK(e.what[0] != 0, "with a detail");
        kt_pe_free(pe);
    }
    free(b);
    CHECK_EQ_STR(kt_wrap_kind_name(KT_WRAP_KEYLIST), ".keylist", "kind name");
    CHECK_EQ_STR(kt_wrap_kind_name(KT_WRAP_VENDOR_CERT), ".vendor_cert", "kind name");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    KT_TEST_END();
}
