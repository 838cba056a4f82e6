/* result.c - the accessors of a verification result, and --check-time. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "verify/verify_int.h"

int kt_result_rc(const struct kt_result *r) { return r->rc; }
enum kt_verdict kt_result_verdict(const struct kt_result *r) { return kt_verdict_of(r->rc); }
const struct kt_error *kt_result_error(const struct kt_result *r) { return &r->err; }
const char *kt_result_type(const struct kt_result *r) { return r->type; }
bool kt_result_skipped(const struct kt_result *r) { return r->skipped; }
size_t kt_result_signer_count(const struct kt_result *r) { return r->sigs.n; }

int kt_result_signer_rc(const struct kt_result *r, size_t i)
{
    return i < r->sigs.n ? r->sigs.sigs[i].verdict : -ERANGE;
}

const char *kt_result_signer_name(const struct kt_result *r, size_t i)
{
    if (i >= r->sigs.n || !r->sigs.sigs[i].signer)
        return NULL;
    return r->sigs.sigs[i].signer->description;
}

const char *kt_result_signer_trusted_by(const struct kt_result *r, size_t i)
{
    if (i >= r->sigs.n || !r->sigs.sigs[i].trusted_by)
        return NULL;
    return r->sigs.sigs[i].trusted_by->cert->description;
}

const struct kt_signer *kt_result_signers(const struct kt_result *r, size_t *n)
{
    *n = r->sigs.n;
    return r->sigs.sigs;
}

const char *kt_result_compression(const struct kt_result *r) { return r->compression; }

const char *kt_result_via(const struct kt_result *r) { return r->rc == 0 ? r->via : NULL; }

unsigned kt_result_linux_since(const struct kt_result *r)
{
    unsigned v = 0;
    bool any = false;
    for (size_t i = 0; r->rc == 0 && i < r->sigs.n; i++) {
        const struct kt_signer *s = &r->sigs.sigs[i];
        if (s->verdict == 0 && (!any || s->linux_since < v))
            v = s->linux_since;
        any |= s->verdict == 0;
    }
    return v;
}

char *kt_signer_issuer_name(const struct kt_signer *s, char *buf, size_t cap)
{
    return kt_pkcs7_name_string((kt_span){s->signer_issuer.p, s->signer_issuer.len}, buf, cap);
}

char *kt_signer_serial_hex(const struct kt_signer *s, char *buf, size_t cap)
{
    kt_x509_serial_hex_of((kt_span){s->signer_serial.p, s->signer_serial.len}, buf, cap);
    return buf;
}

bool kt_result_sbat(const struct kt_result *r, const struct kt_sbat **sbat,
                    const struct kt_sbat_level **level, const struct kt_sbat_entry **img,
                    const struct kt_sbat_entry **lvl, int *rc)
{
    *sbat = &r->sbat;
    *level = r->sbat_level;
    *img = r->sbat_img;
    *lvl = r->sbat_lvl;
    *rc = r->sbat_rc;
    return r->sbat_checked;
}

bool kt_result_uki(const struct kt_result *r) { return r->uki; }

int kt_parse_time(const char *arg, int64_t *t)
{
    if (!arg) {
        *t = (int64_t)time(NULL);
        return 0;
    }
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    char rest[8] = "";
    int n = sscanf(arg, "%4d-%2d-%2dT%2d:%2d:%2d%7s", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, rest);
    if (n == 3 && strlen(arg) == 10) {
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    } else if (!((n == 6) || (n == 7 && strcmp(rest, "Z") == 0))) {
        return -EINVAL;
    }
    if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
        tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
        return -EINVAL;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *t = (int64_t)timegm(&tm);
    return 0;
}
