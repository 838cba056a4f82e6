/* eventlog_events.c - each event of a TCG log, decoded: variables (with
 * their signature lists), device paths, strings, separators; other events
 * raw. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "ktrust/advanced.h"
#include "ktrust/esl.h"
#include "ktrust/x509.h"

const char *ev_alg(uint16_t alg)
{
    static char buf[16];
    const char *n = kt_evlog_alg_name(alg);
    if (n)
        return n;
    snprintf(buf, sizeof(buf), "alg_0x%04x", alg);
    return buf;
}

static const char *type_name(uint32_t t)
{
    static char buf[24];
    const char *n = kt_evlog_type_name(t);
    if (n)
        return n;
    snprintf(buf, sizeof(buf), "0x%08x", t);
    return buf;
}

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

struct esl_sum {
    size_t x509, hash, other;
    struct jw *w;
};

static int esl_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct esl_sum *s = ctx;
    char g[37], hex[129];
    if (e->type == KT_ESL_X509)
        s->x509++;
    else if (e->type == KT_ESL_OTHER)
        s->other++;
    else
        s->hash++;
    if (!s->w)
        return 0;
    jw_obj(s->w, NULL);
    jw_str(s->w, "type", kt_esl_is_svn(e) ? "svn" : kt_esl_type_name(e->type));
    jw_str(s->w, "owner", kt_guid_str(e->owner, g));
    struct kt_x509 *c = NULL;
    if (e->type == KT_ESL_X509 && kt_x509_parse(e->data.p, e->data.len, &c, NULL) == 0) {
        jw_str(s->w, "subject", kt_x509_subject(c));
        jw_str(s->w, "sha256", kt_hex(kt_x509_sha256(c), 32, hex));
        kt_x509_free(c);
    } else if (e->data.len <= 64) {
        jw_hex(s->w, "value", e->data.p, e->data.len);
    } else {
        jw_int(s->w, "size", (long long)e->data.len);
    }
    jw_obj_end(s->w);
    return 0;
}

static void var_json(struct jw *w, const struct kt_evlog_event *e)
{
    struct kt_evlog_var v;
    struct kt_error err = KT_ERROR_INIT;
    char g[37];
    if (kt_evlog_var_parse(e, &v, &err) < 0) {
        jw_str(w, "decode_error", err.what);
        jw_hex(w, "data", e->data.p, e->data.len);
        return;
    }
    jw_obj(w, "variable");
    jw_str(w, "name", v.name);
    jw_str(w, "guid", kt_guid_str(v.guid, g));
    jw_int(w, "data_length", (long long)v.data.len);
    if (is_sigdb(v.name) && e->type != KT_EV_EFI_VARIABLE_AUTHORITY) {
        struct esl_sum s = {0, 0, 0, w};
        jw_arr(w, "entries");
        int rc = kt_esl_foreach(v.data.p, v.data.len, esl_entry, &s, NULL);
        jw_arr_end(w);
        if (rc < 0)
            jw_hex(w, "data", v.data.p, v.data.len);
    } else {
        jw_hex(w, "data", v.data.p, v.data.len);
    }
    jw_obj_end(w);
}

static void var_text(const struct kt_evlog_event *e)
{
    struct kt_evlog_var v;
    struct kt_error err = KT_ERROR_INIT;
    char g[37];
    if (kt_evlog_var_parse(e, &v, &err) < 0) {
        printf("undecodable UEFI_VARIABLE_DATA: %s", tx(err.what));
        return;
    }
    printf("%s (%s), %zu bytes", tx(v.name), kt_guid_str(v.guid, g), v.data.len);
    if (!strcmp(v.name, "SecureBoot") && v.data.len == 1) {
        printf(" = %u", v.data.p[0]);
    } else if (e->type == KT_EV_EFI_VARIABLE_AUTHORITY && v.data.len > 16 &&
               strcmp(v.name, "SbatLevel") && v.data.p[16] == 0x30) {
        char subj[256];
        if (kt_x509_peek_subject(v.data.p + 16, v.data.len - 16, subj, sizeof(subj)))
            printf(": certificate %s", tx_name(subj));
        else if (v.data.len - 16 == 32)
            printf(": sha256 hash");
    } else if (is_sigdb(v.name)) {
        struct esl_sum s = {0, 0, 0, NULL};
        if (kt_esl_foreach(v.data.p, v.data.len, esl_entry, &s, NULL) == 0)
            printf(": %zu certificate%s, %zu hash%s%s", s.x509, s.x509 == 1 ? "" : "s", s.hash,
                   s.hash == 1 ? "" : "es", s.other ? ", other entries" : "");
        else
            printf(": not a valid signature list");
    }
}

static void data_summary(const struct kt_evlog_event *e, struct jw *w)
{
    char text[1024], dp[1024];
    switch (e->type) {
    case KT_EV_EFI_VARIABLE_DRIVER_CONFIG:
    case KT_EV_EFI_VARIABLE_BOOT:
    case KT_EV_EFI_VARIABLE_BOOT2:
    case KT_EV_EFI_VARIABLE_AUTHORITY:
        w ? var_json(w, e) : var_text(e);
        return;
    case KT_EV_EFI_BOOT_SERVICES_APPLICATION:
    case KT_EV_EFI_BOOT_SERVICES_DRIVER:
    case KT_EV_EFI_RUNTIME_SERVICES_DRIVER:
        if (kt_evlog_devpath(e, dp, sizeof(dp), NULL, 0) == 0) {
            if (w)
                jw_str(w, "device_path", dp);
            else
                printf("%s", dp[0] ? tx(dp) : "(empty device path)");
            return;
        }
        break;
    case KT_EV_SEPARATOR:
        if (e->data.len == 4) {
            bool err = !memcmp(e->data.p, "\x01\x00\x00\x00", 4);
            bool ok = !memcmp(e->data.p, "\0\0\0\0", 4);
            if (w)
                jw_str(w, "separator", ok ? "normal" : err ? "error" : "other");
            else
                printf("%s", ok ? "separator" : err ? "separator: ERROR (firmware failure)" : "separator (unusual value)");
            if (ok || err)
                return;
        }
        break;
    case KT_EV_NO_ACTION:
        if (e->data.len >= 17 && !memcmp(e->data.p, "StartupLocality", 16)) {
            if (w)
                jw_int(w, "startup_locality", e->data.p[16]);
            else
                printf("StartupLocality %u", e->data.p[16]);
            return;
        }
        if (e->data.len >= 16 && !memcmp(e->data.p, "Spec ID Event03", 16)) {
            if (w)
                jw_str(w, "string", "Spec ID Event03");
            else
                printf("Spec ID Event03");
            return;
        }
        break;
    default:
        break;
    }
    bool stringy = e->type == KT_EV_ACTION || e->type == KT_EV_EFI_ACTION ||
                   e->type == KT_EV_IPL || e->type == KT_EV_S_CRTM_VERSION ||
                   e->type == KT_EV_POST_CODE || e->type == KT_EV_EVENT_TAG ||
                   e->type == KT_EV_NO_ACTION || e->type == KT_EV_COMPACT_HASH;
    if (stringy && as_text(e->data, text, sizeof(text))) {
        if (w)
            jw_str(w, "string", text);
        else
            printf("\"%s\"", tx(text));
        return;
    }
    if (w) {
        jw_hex(w, "data", e->data.p, e->data.len);
    } else {
        char hex[2 * 32 + 1];
        size_t n = e->data.len > 32 ? 32 : e->data.len;
        printf("%zu bytes%s%s%s", e->data.len, n ? ": " : "", n ? kt_hex(e->data.p, n, hex) : "",
               n < e->data.len ? "..." : "");
    }
}

void ev_events_print(const char *file, const struct kt_evlog *log, bool json, bool quiet)
{
    (void)file;
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        if (json) {
            struct jw w;
            char hex[2 * KT_EVLOG_MAX_DIGEST + 1];
            jw_init(&w, stdout);
            jw_obj(&w, NULL);
            jw_str(&w, "type", "event");
            jw_int(&w, "index", (long long)i);
            jw_int(&w, "offset", (long long)e->offset);
            jw_int(&w, "pcr", e->pcr);
            jw_str(&w, "event_type", type_name(e->type));
            jw_int(&w, "event_type_id", e->type);
            jw_obj(&w, "digests");
            for (size_t d = 0; d < e->n_digests; d++)
                jw_str(&w, ev_alg(e->digest[d].alg), kt_hex(e->digest[d].p, e->digest[d].len, hex));
            jw_obj_end(&w);
            jw_int(&w, "size", (long long)e->data.len);
            data_summary(e, &w);
            jw_obj_end(&w);
            jw_newline(&w);
        } else if (!quiet) {
            printf("  #%zu pcr %u %s: ", i, e->pcr, type_name(e->type));
            data_summary(e, NULL);
            printf("\n");
        }
    }
}
