/* imakconfig.c - the kernel configuration IMA appraisal depends on, read
 * from the kernel's config file (scripts/kconfig's .config, installed as
 * /boot/config-RELEASE), and the keyring rule it makes: digsig.c's
 * keyring_name (".ima" with CONFIG_INTEGRITY_TRUSTED_KEYRING, else "_ima"),
 * integrity_init_keyring (no keyring made, so no restriction, without it;
 * user space makes "_ima" and integrity_keyring_from_id finds it with
 * request_key) and restrict_link_to_ima (builtin and secondary with
 * CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY, else builtin
 * only). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ima/imasig.h"
#include "ktrust/advanced.h"
#include "keys/keyring.h"
#include "policy/restrict.h"
#include "util/file.h"

#define KCONFIG_MAX_LINE 4096
#define KCONFIG_MAX_FILE (16u << 20)

void kt_ima_kconfig_assume(struct kt_ima_kconfig *c, bool machine_ca)
{
    memset(c, 0, sizeof(*c));
    c->trusted_keyring = true;
    c->permit_secondary = true;
    c->machine_keyring = machine_ca;
    c->ca_machine = machine_ca;
    c->modsig = true;
}

/* The symbols read, and where each goes; c->seen gets the symbol's bit. */
enum { SEEN_TRUSTED = 1u << 0, SEEN_ASYM = 1u << 6, SEEN_SYSTEM = 1u << 7 };
static bool *field(struct kt_ima_kconfig *c, const char *name, size_t len)
{
    static const struct {
        const char *name;
        size_t off;
    } syms[] = {
        {"INTEGRITY_TRUSTED_KEYRING", offsetof(struct kt_ima_kconfig, trusted_keyring)},
        {"IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY",
         offsetof(struct kt_ima_kconfig, permit_secondary)},
        {"INTEGRITY_MACHINE_KEYRING", offsetof(struct kt_ima_kconfig, machine_keyring)},
        {"INTEGRITY_CA_MACHINE_KEYRING", offsetof(struct kt_ima_kconfig, ca_machine)},
        {"INTEGRITY_CA_MACHINE_KEYRING_MAX", offsetof(struct kt_ima_kconfig, ca_machine_max)},
        {"IMA_APPRAISE_MODSIG", offsetof(struct kt_ima_kconfig, modsig)},
        {"INTEGRITY_ASYMMETRIC_KEYS", offsetof(struct kt_ima_kconfig, asymmetric_keys)},
        {"SYSTEM_TRUSTED_KEYRING", offsetof(struct kt_ima_kconfig, system_trusted)},
    };
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
        if (strlen(syms[i].name) == len && !memcmp(syms[i].name, name, len)) {
            c->seen |= 1u << i;
            return (bool *)((char *)c + syms[i].off);
        }
    return NULL;
}

/* The symbols the rule hangs on are in the file: a fragment of a config
 * never makes `_ima` unrestricted by leaving CONFIG_INTEGRITY_TRUSTED_KEYRING
 * out.  0, -EBADMSG or -EOPNOTSUPP with err. */
static int decides_rule(const struct kt_ima_kconfig *c, struct kt_error *err)
{
    if (!(c->seen & SEEN_ASYM))
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "CONFIG_INTEGRITY_ASYMMETRIC_KEYS not found: "
                       "not a whole kernel config");
    if (!c->asymmetric_keys)
        return kt_fail(err, -EOPNOTSUPP, KT_NO_OFFSET, "CONFIG_INTEGRITY_ASYMMETRIC_KEYS is not "
                       "set: this kernel checks no IMA signature with a key");
    /* INTEGRITY_TRUSTED_KEYRING depends on SYSTEM_TRUSTED_KEYRING: absent
     * from a whole config only when that is off */
    if (!(c->seen & SEEN_TRUSTED) && !((c->seen & SEEN_SYSTEM) && !c->system_trusted))
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "CONFIG_INTEGRITY_TRUSTED_KEYRING not found: "
                       "not a whole kernel config");
    return 0;
}

/* The length of the symbol name at p (after "CONFIG_"): [A-Za-z0-9_]. */
static size_t sym_len(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == '_' || (p[i] >= '0' && p[i] <= '9') || (p[i] >= 'A' && p[i] <= 'Z') ||
                     (p[i] >= 'a' && p[i] <= 'z')))
        i++;
    return i;
}

/* A value confdata.c writes: y, m, n, a number, a hex number, a quoted
 * string (its escapes \" and \\, the quote closing the line). */
static bool value_ok(const char *v, size_t n)
{
    if (n == 0)
        return false;
    if (v[0] == '"') {
        size_t i = 1;
        for (; i < n && v[i] != '"'; i++)
            if (v[i] == '\\')
                i++;
        return i == n - 1;
    }
    for (size_t i = 0; i < n; i++)
        if (v[i] == ' ' || v[i] == '\t' || v[i] == '"' || v[i] == '#')
            return false;
    return true;
}

#define PREFIX "CONFIG_"
#define NOT_SET " is not set"

/* One line (no newline, n bytes).  0, or -EBADMSG with err. */
static int one_line(const char *p, size_t n, size_t lineno, size_t off, struct kt_ima_kconfig *c,
                    size_t *n_syms, struct kt_error *err)
{
    const size_t pl = sizeof(PREFIX) - 1, nl = sizeof(NOT_SET) - 1;
    if (n && p[n - 1] == '\r')
        n--;
    if (n == 0)
        return 0;
    if (p[0] == '#') {
        /* "# CONFIG_NAME is not set", else a comment */
        if (n > 2 + pl + nl && !memcmp(p + 1, " " PREFIX, pl + 1) &&
            !memcmp(p + n - nl, NOT_SET, nl)) {
            size_t sl = sym_len(p + 2 + pl, n - 2 - pl - nl);
            if (sl && 2 + pl + sl == n - nl) {
                bool *f = field(c, p + 2 + pl, sl);
                if (f)
                    *f = false;
                ++*n_syms;
            }
        }
        return 0;
    }
    size_t sl = n > pl && !memcmp(p, PREFIX, pl) ? sym_len(p + pl, n - pl) : 0;
    if (!sl || pl + sl >= n || p[pl + sl] != '=')
        return kt_fail(err, -EBADMSG, off, "line %zu: not a kernel config line (CONFIG_NAME=VALUE, "
                       "'# CONFIG_NAME is not set' or a comment): '%.*s'", lineno, (int)(n > 40 ? 40 : n), p);
    const char *v = p + pl + sl + 1;
    size_t vl = n - pl - sl - 1;
    if (!value_ok(v, vl))
        return kt_fail(err, -EBADMSG, off, "line %zu: CONFIG_%.*s: '%.*s' is not a value (y, m, "
                       "n, a number or a quoted string)", lineno, (int)sl, p + pl,
                       (int)(vl > 40 ? 40 : vl), v);
    ++*n_syms;
    bool *f = field(c, p + pl, sl);
    if (!f)
        return 0;
    if (vl != 1 || (v[0] != 'y' && v[0] != 'n'))
        return kt_fail(err, -EBADMSG, off, "line %zu: CONFIG_%.*s=%.*s: a bool is y or n",
                       lineno, (int)sl, p + pl, (int)(vl > 40 ? 40 : vl), v);
    *f = v[0] == 'y';
    return 0;
}

int kt_ima_kconfig_parse(const uint8_t *buf, size_t len, struct kt_ima_kconfig *c,
                         struct kt_error *err)
{
    if (!c || (!buf && len))
        return -EINVAL;
    memset(c, 0, sizeof(*c));
    if (len > KCONFIG_MAX_FILE)
        return kt_fail(err, -EFBIG, KT_NO_OFFSET, "%zu bytes: a kernel config is at most %u",
                       len, KCONFIG_MAX_FILE);
    size_t off = 0, lineno = 0, n_syms = 0;
    while (off < len) {
        const uint8_t *nlp = memchr(buf + off, '\n', len - off);
        size_t n = nlp ? (size_t)(nlp - (buf + off)) : len - off;
        lineno++;
        if (n > KCONFIG_MAX_LINE)
            return kt_fail(err, -EBADMSG, off, "line %zu: longer than %d bytes", lineno,
                           KCONFIG_MAX_LINE);
        if (memchr(buf + off, 0, n))
            return kt_fail(err, -EBADMSG, off, "line %zu: a NUL byte: not a text file", lineno);
        KT_TRY(one_line((const char *)buf + off, n, lineno, off, c, &n_syms, err));
        off += n + (nlp != NULL);
    }
    if (!n_syms)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "no CONFIG_ symbol: not a kernel config");
    KT_TRY(decides_rule(c, err));
    c->given = true;
    return 0;
}

int kt_ima_kconfig_read(const char *path, struct kt_ima_kconfig *c, struct kt_error *err)
{
    struct kt_file f;
    KT_TRY(kt_file_open(path, &f, err));
    int rc = kt_ima_kconfig_parse(f.data, f.len, c, err);
    kt_file_close(&f);
    return rc;
}

void kt_ima_ring_rule(const struct kt_ima_kconfig *c, struct kt_ima_ring_rule *r)
{
    memset(r, 0, sizeof(*r));
    r->assumed = !c->given;
    if (!c->trusted_keyring) {
        r->name = "_ima";
        snprintf(r->text, sizeof(r->text), "unrestricted `_ima` keyring "
                 "(CONFIG_INTEGRITY_TRUSTED_KEYRING unset): any key user space imports");
        return;
    }
    r->name = ".ima";
    r->restricted = true;
    r->vouchers[r->n_vouchers++] = "builtin";
    /* restrict_link_by_builtin_and_secondary_trusted searches secondary,
     * where set_machine_trusted_keys links .machine */
    if (c->permit_secondary)
        r->vouchers[r->n_vouchers++] = "secondary";
    if (c->permit_secondary && (c->machine_keyring || c->ca_machine))
        r->vouchers[r->n_vouchers++] = "machine";
    snprintf(r->text, sizeof(r->text), "restricted `.ima` keyring: a key must be signed by a "
             "key of %s (%s)%s", r->n_vouchers == 1 ? "builtin" :
             r->n_vouchers == 2 ? "builtin or secondary" : "builtin, secondary or machine",
             c->permit_secondary ? "CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY"
                                 : "restrict_link_by_builtin_trusted",
             c->given ? "" : "; assumed: no kernel config given");
}

int kt_ima_ring_prepare_config(struct kt_keyrings *k, const struct kt_ima_kconfig *c,
                               struct kt_error *err)
{
    struct kt_ima_ring_rule r;
    kt_ima_ring_rule(c, &r);
    /* integrity_init_keyring gives .ima and .evm the same rule */
    static const char *const rings[] = {"ima", "evm"};
    for (size_t i = 0; i < 2; i++) {
        if (kt_keyrings_get(k, rings[i]))
            continue;
        KT_TRY(kt_keyring_create(k, rings[i], r.restricted ? KT_RESTRICT_SIGNED_BY
                                                           : KT_RESTRICT_NONE,
                                 r.vouchers, r.n_vouchers, err));
        if (!r.restricted)
            kt_keyring_set_member_trusted(kt_keyrings_get(k, rings[i]), true);
    }
    return 0;
}
