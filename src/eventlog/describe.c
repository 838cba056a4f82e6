/* describe.c - what an event's data is, decided once for every printer:
 * a variable (and what its data holds), a device path, a separator, the
 * StartupLocality, a string, or bytes (kt_evlog_describe). */
#include <stdio.h>
#include <string.h>

#include "eventlog/eventlog.h"
#include "ktrust/esl.h"
#include "ktrust/x509.h"

/* The variables whose data is a signature list. */
static bool is_sigdb(const char *name)
{
    static const char *const n[] = {"PK", "KEK", "db", "dbx", "dbt", "dbr", "MokListRT",
                                    "MokListXRT", "MokList", "MokListX", "PKDefault",
                                    "KEKDefault", "dbDefault", "dbxDefault"};
    for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++)
        if (!strcmp(n[i], name))
            return true;
    return false;
}

/* A string event's text: ASCII (or UTF-16LE) without the trailing NULs;
 * false when it is not text. */
static bool as_text(kt_span d, char *out, size_t cap)
{
    size_t n = d.len;
    bool utf16 = n >= 4 && n % 2 == 0;
    for (size_t i = 1; utf16 && i < n; i += 2)
        utf16 = d.p[i] == 0;
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i += utf16 ? 2 : 1) {
        uint8_t c = d.p[i];
        if (c == 0) {
            for (size_t j = i; j < n; j++)
                if (d.p[j])
                    return false;
            break;
        }
        if (c < 0x20 && c != '\t' && c != '\n')
            return false;
        if (c >= 0x7f)
            return false;
        out[o++] = (char)c;
    }
    out[o] = 0;
    return n > 0;
}

static int count_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct kt_evlog_desc *d = ctx;
    if (e->type == KT_ESL_X509)
        d->n_x509++;
    else if (e->type == KT_ESL_OTHER)
        d->n_other++;
    else
        d->n_hash++;
    return 0;
}

static void variable(const struct kt_evlog_event *e, struct kt_evlog_desc *d)
{
    struct kt_evlog_var *v = &d->var;
    d->kind = KT_EVD_VARIABLE;
    d->var_err = (struct kt_error)KT_ERROR_INIT;
    if (kt_evlog_var_parse(e, v, &d->var_err) < 0) {
        d->var_ok = false;
        return;
    }
    d->var_ok = true;
    d->sig_list = is_sigdb(v->name) && e->type != KT_EV_EFI_VARIABLE_AUTHORITY;
    if (!strcmp(v->name, "SecureBoot") && v->data.len == 1) {
        d->holds = KT_EVV_SECURE_BOOT;
    } else if (e->type == KT_EV_EFI_VARIABLE_AUTHORITY && v->data.len > 16 &&
               strcmp(v->name, "SbatLevel") && v->data.p[16] == 0x30) {
        if (kt_x509_peek_subject(v->data.p + 16, v->data.len - 16, d->text, 256))
            d->holds = KT_EVV_AUTH_CERT;
        else if (v->data.len - 16 == 32)
            d->holds = KT_EVV_AUTH_HASH;
    } else if (is_sigdb(v->name)) {
        d->holds = kt_esl_foreach(v->data.p, v->data.len, count_entry, d, NULL) == 0
                       ? KT_EVV_ESL : KT_EVV_BAD_ESL;
    }
}

static bool stringy(uint32_t t)
{
    return t == KT_EV_ACTION || t == KT_EV_EFI_ACTION || t == KT_EV_IPL ||
           t == KT_EV_S_CRTM_VERSION || t == KT_EV_POST_CODE || t == KT_EV_EVENT_TAG ||
           t == KT_EV_NO_ACTION || t == KT_EV_COMPACT_HASH;
}

/* The kinds decided by the event type alone; false: look at the data. */
static bool by_type(const struct kt_evlog_event *e, struct kt_evlog_desc *d)
{
    switch (e->type) {
    case KT_EV_EFI_VARIABLE_DRIVER_CONFIG:
    case KT_EV_EFI_VARIABLE_BOOT:
    case KT_EV_EFI_VARIABLE_BOOT2:
    case KT_EV_EFI_VARIABLE_AUTHORITY:
        variable(e, d);
        return true;
    case KT_EV_EFI_BOOT_SERVICES_APPLICATION:
    case KT_EV_EFI_BOOT_SERVICES_DRIVER:
    case KT_EV_EFI_RUNTIME_SERVICES_DRIVER:
        if (kt_evlog_devpath(e, d->text, sizeof(d->text), NULL, 0) < 0)
            return false;
        d->kind = KT_EVD_DEVICE_PATH;
        return true;
    case KT_EV_SEPARATOR:
        if (e->data.len != 4)
            return false;
        d->kind = KT_EVD_SEPARATOR;
        d->separator = !memcmp(e->data.p, "\0\0\0\0", 4)           ? KT_EVS_NORMAL
                       : !memcmp(e->data.p, "\x01\x00\x00\x00", 4) ? KT_EVS_ERROR
                                                                     : KT_EVS_OTHER;
        return true;
    case KT_EV_NO_ACTION:
        if (e->data.len >= 17 && !memcmp(e->data.p, "StartupLocality", 16)) {
            d->kind = KT_EVD_STARTUP_LOCALITY;
            d->locality = e->data.p[16];
            return true;
        }
        if (e->data.len >= 16 && !memcmp(e->data.p, "Spec ID Event03", 16)) {
            d->kind = KT_EVD_SPEC_ID;
            return true;
        }
        return false;
    default:
        return false;
    }
}

void kt_evlog_describe(const struct kt_evlog_event *e, struct kt_evlog_desc *d)
{
    memset(d, 0, sizeof(*d));
    if (by_type(e, d))
        return;
    if (stringy(e->type) && as_text(e->data, d->text, sizeof(d->text)))
        d->kind = KT_EVD_STRING;
    else
        d->kind = KT_EVD_RAW;
}
