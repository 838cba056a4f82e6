/* test_imakconfig.c - kt_ima_kconfig_parse (a kernel's .config) and the
 * keyring rule it makes (kt_ima_ring_rule: digsig.c's keyring_name,
 * integrity_init_keyring, restrict_link_to_ima).  The rule's effect on
 * verdicts is tests/cli/verify_ima_kconfig.sh; the kernel's own is the
 * tpm_replay_a boot. */
#include <stdio.h>
#include <string.h>

#include "ima/imasig.h"
#include "kt_test.h"

static int parse(const char *text, struct kt_ima_kconfig *c, struct kt_error *e)
{
    *e = (struct kt_error)KT_ERROR_INIT;
    return kt_ima_kconfig_parse((const uint8_t *)text, strlen(text), c, e);
}

/* text after the line every whole config of a kernel with IMA signatures has */
static int whole(const char *text, struct kt_ima_kconfig *c, struct kt_error *e)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "CONFIG_INTEGRITY_ASYMMETRIC_KEYS=y\n%s", text);
    return parse(buf, c, e);
}

static void rules(void)
{
    struct kt_ima_kconfig c;
    struct kt_ima_ring_rule r;
    struct kt_error e;
    /* Debian 12's 6.1: no CONFIG_INTEGRITY_TRUSTED_KEYRING */
    CHECK_EQ_INT(whole("# CONFIG_INTEGRITY_TRUSTED_KEYRING is not set\n"
                       "CONFIG_INTEGRITY_MACHINE_KEYRING=y\n"
                       "# CONFIG_IMA_APPRAISE_MODSIG is not set\n", &c, &e), 0, "debian");
    kt_ima_ring_rule(&c, &r);
    CHECK_EQ_STR(r.name, "_ima", "no trusted keyring: _ima");
    CHECK(!r.restricted && r.n_vouchers == 0 && !r.assumed, "unrestricted, from the config");
    CHECK(strstr(r.text, "unrestricted `_ima` keyring (CONFIG_INTEGRITY_TRUSTED_KEYRING unset)"),
          "text: %s", r.text);
    CHECK(c.given && !c.modsig && c.machine_keyring, "fields");
    /* trusted keyring, no PERMIT: restrict_link_by_builtin_trusted */
    CHECK_EQ_INT(whole("CONFIG_INTEGRITY_TRUSTED_KEYRING=y\n", &c, &e), 0, "builtin only");
    kt_ima_ring_rule(&c, &r);
    CHECK(r.restricted && r.n_vouchers == 1 && !strcmp(r.vouchers[0], "builtin"), "builtin only");
    CHECK_EQ_STR(r.name, ".ima", ".ima");
    /* PERMIT: builtin and secondary; machine linked into secondary */
    CHECK_EQ_INT(whole("CONFIG_INTEGRITY_TRUSTED_KEYRING=y\n"
                       "CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY=y\n", &c, &e),
                 0, "permit");
    kt_ima_ring_rule(&c, &r);
    CHECK(r.n_vouchers == 2 && !strcmp(r.vouchers[1], "secondary"), "builtin, secondary");
    CHECK_EQ_INT(whole("CONFIG_INTEGRITY_TRUSTED_KEYRING=y\n"
                       "CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY=y\n"
                       "CONFIG_INTEGRITY_CA_MACHINE_KEYRING=y\n", &c, &e), 0, "ca machine");
    kt_ima_ring_rule(&c, &r);
    CHECK(r.n_vouchers == 3 && !strcmp(r.vouchers[2], "machine"), "machine too");
    /* no config: today's assumption, said */
    kt_ima_kconfig_assume(&c, false);
    kt_ima_ring_rule(&c, &r);
    CHECK(r.assumed && r.restricted && r.n_vouchers == 2 && c.modsig, "assumed");
    CHECK(strstr(r.text, "assumed") != NULL, "the text says assumed: %s", r.text);
}

static void syntax(void)
{
    struct kt_ima_kconfig c;
    struct kt_error e;
    /* the last setting wins; CRLF; no final newline; strings, numbers */
    CHECK_EQ_INT(whole("#\n# Automatically generated file; DO NOT EDIT.\n\n"
                       "CONFIG_INTEGRITY_TRUSTED_KEYRING=y\r\n"
                       "CONFIG_IMA_DEFAULT_TEMPLATE=\"ima-sig\"\n"
                       "CONFIG_X=\"a \\\"quoted\\\" \\\\ value\"\n"
                       "CONFIG_IMA_MEASURE_PCR_IDX=10\nCONFIG_H=0x1f\nCONFIG_M=m\n"
                       "# CONFIG_INTEGRITY_TRUSTED_KEYRING is not set", &c, &e), 0, "ok");
    CHECK(!c.trusted_keyring, "the last setting wins");
    CHECK_EQ_INT(whole("CONFIG_INTEGRITY_TRUSTED_KEYRING=y\nCONFIG_IMA_APPRAISE_MODSIG=y", &c, &e),
                 0, "no final newline");
    CHECK(c.trusted_keyring && c.modsig, "both read");
    /* errors: the line, what */
    CHECK_EQ_INT(parse("CONFIG_A=y\nhello\n", &c, &e), -EBADMSG, "not a config line");
    CHECK(strstr(e.what, "line 2:") && e.offset == 11, "line and offset: %s %zu", e.what, e.offset);
    CHECK_EQ_INT(parse("CONFIG_INTEGRITY_TRUSTED_KEYRING=m\n", &c, &e), -EBADMSG, "a bool is y or n");
    CHECK(strstr(e.what, "line 1: CONFIG_INTEGRITY_TRUSTED_KEYRING=m") != NULL, "%s", e.what);
    CHECK_EQ_INT(parse("CONFIG_S=\"open\n", &c, &e), -EBADMSG, "an unclosed string");
    CHECK_EQ_INT(parse("CONFIG_S=\"a\"b\"\n", &c, &e), -EBADMSG, "text after the string");
    CHECK_EQ_INT(parse("CONFIG_S=\n", &c, &e), -EBADMSG, "no value");
    CHECK_EQ_INT(parse("CONFIG_=y\n", &c, &e), -EBADMSG, "no name");
    CHECK_EQ_INT(parse("CONFIG_A y\n", &c, &e), -EBADMSG, "no '='");
    CHECK_EQ_INT(parse("CONFIG_S=\"a\\\"\n", &c, &e), -EBADMSG, "an escaped closing quote");
    CHECK_EQ_INT(parse("# a comment only\n\n", &c, &e), -EBADMSG, "no symbol: not a config");
    CHECK(strstr(e.what, "not a kernel config") != NULL, "%s", e.what);
    CHECK_EQ_INT(parse("", &c, &e), -EBADMSG, "empty");
    CHECK(!c.given, "not given after an error");
    const uint8_t nul[] = "CONFIG_A=y\nCONFIG_B\0=y\n";
    e = (struct kt_error)KT_ERROR_INIT;
    CHECK_EQ_INT(kt_ima_kconfig_parse(nul, sizeof(nul) - 1, &c, &e), -EBADMSG, "a NUL");
    static char big[5000];
    memset(big, 'y', sizeof(big) - 1);
    memcpy(big, "CONFIG_A=", 9);
    CHECK_EQ_INT(parse(big, &c, &e), -EBADMSG, "a line of 5000 bytes");
    CHECK(strstr(e.what, "longer than") != NULL, "%s", e.what);
    /* a symbol name in a "not set" comment that is not one is a comment */
    CHECK_EQ_INT(whole("# CONFIG_ is not set\nCONFIG_A=1\n# CONFIG_INTEGRITY_TRUSTED_KEYRING is not set\n",
                       &c, &e), 0, "odd comment");
}

/* A fragment never decides the rule by leaving a symbol out: it would make
 * `_ima` unrestricted (any key trusted) where the kernel may restrict it,
 * or trust signatures a kernel without asymmetric IMA keys cannot check. */
static void whole_config(void)
{
    struct kt_ima_kconfig c;
    struct kt_error e;
    CHECK_EQ_INT(parse("CONFIG_IMA=y\n", &c, &e), -EBADMSG, "a fragment");
    CHECK(strstr(e.what, "CONFIG_INTEGRITY_ASYMMETRIC_KEYS not found") != NULL, "%s", e.what);
    CHECK(!c.given, "a fragment is not given");
    CHECK_EQ_INT(parse("# CONFIG_INTEGRITY_ASYMMETRIC_KEYS is not set\n"
                       "# CONFIG_INTEGRITY_TRUSTED_KEYRING is not set\n", &c, &e), -EOPNOTSUPP,
                 "no asymmetric IMA keys");
    CHECK(strstr(e.what, "checks no IMA signature with a key") != NULL, "%s", e.what);
    CHECK_EQ_INT(parse("CONFIG_INTEGRITY_ASYMMETRIC_KEYS=y\nCONFIG_IMA=y\n", &c, &e), -EBADMSG,
                 "the trusted-keyring symbol left out");
    CHECK(strstr(e.what, "CONFIG_INTEGRITY_TRUSTED_KEYRING not found") != NULL, "%s", e.what);
    CHECK_EQ_INT(parse("CONFIG_INTEGRITY_ASYMMETRIC_KEYS=y\nCONFIG_SYSTEM_TRUSTED_KEYRING=y\n", &c, &e),
                 -EBADMSG, "system keyring on, trusted-keyring symbol absent");
    /* absent only because its dependency is off: `_ima` */
    CHECK_EQ_INT(parse("CONFIG_INTEGRITY_ASYMMETRIC_KEYS=y\n# CONFIG_SYSTEM_TRUSTED_KEYRING is not set\n",
                       &c, &e), 0, "no system trusted keyring");
    CHECK(c.given && !c.trusted_keyring, "then _ima");
}

int main(void)
{
    rules();
    syntax();
    whole_config();
    KT_TEST_END();
}
