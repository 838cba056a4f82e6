/* eventlog_events.c - each event of a TCG log as the library describes it
 * (kt_evlog_describe): variables (with their signature lists), device paths,
 * strings, separators; other events raw. */
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

static int esl_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct jw *w = ctx;
    char g[37], hex[129];
    jw_obj(w, NULL);
    jw_str(w, "type", kt_esl_is_svn(e) ? "svn" : kt_esl_type_name(e->type));
    jw_str(w, "owner", kt_guid_str(e->owner, g));
    struct kt_x509 *c = NULL;
    if (e->type == KT_ESL_X509 && kt_x509_parse(e->data.p, e->data.len, &c, NULL) == 0) {
        jw_str(w, "subject", kt_x509_subject(c));
        jw_str(w, "sha256", kt_hex(kt_x509_sha256(c), 32, hex));
        kt_x509_free(c);
    } else if (e->data.len <= 64) {
        jw_hex(w, "value", e->data.p, e->data.len);
    } else {
        jw_int(w, "size", (long long)e->data.len);
    }
    jw_obj_end(w);
    return 0;
}

static void var_json(struct jw *w, const struct kt_evlog_event *e, const struct kt_evlog_desc *d)
{
    const struct kt_evlog_var *v = &d->var;
    char g[37];
    if (!d->var_ok) {
        jw_str(w, "decode_error", d->var_err.what);
        jw_hex(w, "data", e->data.p, e->data.len);
        return;
    }
    jw_obj(w, "variable");
    jw_str(w, "name", v->name);
    jw_str(w, "guid", kt_guid_str(v->guid, g));
    jw_int(w, "data_length", (long long)v->data.len);
    if (d->sig_list) {
        jw_arr(w, "entries");
        int rc = kt_esl_foreach(v->data.p, v->data.len, esl_entry, w, NULL);
        jw_arr_end(w);
        if (rc < 0)
            jw_hex(w, "data", v->data.p, v->data.len);
    } else {
        jw_hex(w, "data", v->data.p, v->data.len);
    }
    jw_obj_end(w);
}

static void var_text(const struct kt_evlog_desc *d)
{
    const struct kt_evlog_var *v = &d->var;
    char g[37];
    if (!d->var_ok) {
        printf("undecodable UEFI_VARIABLE_DATA: %s", tx(d->var_err.what));
        return;
    }
    printf("%s (%s), %zu bytes", tx(v->name), kt_guid_str(v->guid, g), v->data.len);
    switch (d->holds) {
    case KT_EVV_SECURE_BOOT: printf(" = %u", v->data.p[0]); break;
    case KT_EVV_AUTH_CERT: printf(": certificate %s", tx_name(d->text)); break;
    case KT_EVV_AUTH_HASH: printf(": sha256 hash"); break;
    case KT_EVV_ESL:
        printf(": %zu certificate%s, %zu hash%s%s", d->n_x509, d->n_x509 == 1 ? "" : "s",
               d->n_hash, d->n_hash == 1 ? "" : "es", d->n_other ? ", other entries" : "");
        break;
    case KT_EVV_BAD_ESL: printf(": not a valid signature list"); break;
    default: break;
    }
}

static void raw(const struct kt_evlog_event *e, struct jw *w)
{
    if (w) {
        jw_hex(w, "data", e->data.p, e->data.len);
    } else {
        char hex[2 * 32 + 1];
        size_t n = e->data.len > 32 ? 32 : e->data.len;
        printf("%zu bytes%s%s%s", e->data.len, n ? ": " : "", n ? kt_hex(e->data.p, n, hex) : "",
               n < e->data.len ? "..." : "");
    }
}

static void data_summary(const struct kt_evlog_event *e, struct jw *w)
{
    struct kt_evlog_desc d;
    kt_evlog_describe(e, &d);
    switch (d.kind) {
    case KT_EVD_VARIABLE:
        w ? var_json(w, e, &d) : var_text(&d);
        return;
    case KT_EVD_DEVICE_PATH:
        if (w)
            jw_str(w, "device_path", d.text);
        else
            printf("%s", d.text[0] ? tx(d.text) : "(empty device path)");
        return;
    case KT_EVD_SEPARATOR:
        if (w)
            jw_str(w, "separator", d.separator == KT_EVS_NORMAL  ? "normal"
                                   : d.separator == KT_EVS_ERROR ? "error"
                                                                 : "other");
        else
            printf("%s", d.separator == KT_EVS_NORMAL  ? "separator"
                         : d.separator == KT_EVS_ERROR ? "separator: ERROR (firmware failure)"
                                                       : "separator (unusual value)");
        if (d.separator == KT_EVS_OTHER)
            raw(e, w);
        return;
    case KT_EVD_STARTUP_LOCALITY:
        if (w)
            jw_int(w, "startup_locality", d.locality);
        else
            printf("StartupLocality %u", d.locality);
        return;
    case KT_EVD_SPEC_ID:
        if (w)
            jw_str(w, "string", "Spec ID Event03");
        else
            printf("Spec ID Event03");
        return;
    case KT_EVD_STRING:
        if (w)
            jw_str(w, "string", d.text);
        else
            printf("\"%s\"", tx(d.text));
        return;
    default: raw(e, w); return;
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
