/* eventlog_predict.c - PCR 7 explained (the authority events) and the PCR 7
 * outlook of --predict: text, JSON objects, tpm2_pcrread-style YAML, or a
 * systemd-pcrlock record set. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "ktrust/advanced.h"
#include "ktrust/boot.h"
#include "ktrust/esl.h"

static const char *source_name(enum kt_evlog_auth_source s)
{
    switch (s) {
    case KT_AUTH_FIRMWARE_DB: return "firmware_db";
    case KT_AUTH_SHIM_CERT: return "shim_certificate";
    case KT_AUTH_SHIM_SBAT: return "shim_sbat_level";
    default: return "other";
    }
}

int ev_authorities_print(const struct kt_evlog *log, bool json, bool quiet, size_t *n_2011)
{
    struct kt_evlog_authority *a;
    size_t n;
    struct kt_error err = KT_ERROR_INIT;
    *n_2011 = 0;
    int rc = kt_evlog_authorities(log, &a, &n, &err);
    if (rc < 0) {
        cli_error("PCR 7", &err);
        return rc;
    }
    if (!json && !quiet)
        printf("PCR 7 explained (%zu authority event%s):\n", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        const struct kt_evlog_authority *x = &a[i];
        char g[37], hex[65];
        *n_2011 += x->ms_uefi_ca_2011;
        if (json) {
            struct jw w;
            jw_init(&w, stdout);
            jw_obj(&w, NULL);
            jw_str(&w, "type", "authority");
            jw_int(&w, "event", (long long)x->event_index);
            jw_str(&w, "source", source_name(x->source));
            jw_str(&w, "variable", x->var);
            jw_str(&w, "owner", x->has_owner ? kt_guid_str(x->owner, g) : NULL);
            jw_str(&w, "subject", x->is_cert ? x->subject : NULL);
            jw_str(&w, "description", x->is_cert ? x->description : NULL);
            jw_str(&w, "sha256", x->is_cert ? kt_hex(x->cert_sha256, 32, hex) : NULL);
            if (x->is_cert)
                jw_null(&w, "hash");
            else
                jw_hex(&w, "hash", x->value.p, x->source == KT_AUTH_SHIM_SBAT ? 0 : x->value.len);
            if (x->source == KT_AUTH_SHIM_SBAT)
                jw_strn(&w, "sbat_level", (const char *)x->value.p, x->value.len);
            jw_bool(&w, "ms_uefi_ca_2011", x->ms_uefi_ca_2011);
            jw_bool(&w, "ms_uefi_ca_2023", x->ms_uefi_ca_2023);
            jw_str(&w, "image", x->image_event >= 0 ? x->image : NULL);
            jw_str(&w, "image_type", x->image_event >= 0 ? kt_evlog_type_name(x->image_type) : NULL);
            jw_obj_end(&w);
            jw_newline(&w);
            continue;
        }
        if (quiet)
            continue;
        const char *who = x->source == KT_AUTH_FIRMWARE_DB ? "firmware: db entry"
                          : x->source == KT_AUTH_SHIM_CERT ? "shim: vendor certificate or MOK"
                          : x->source == KT_AUTH_SHIM_SBAT ? "shim: the SbatLevel it enforced"
                                                           : "authority";
        printf("  #%zu %s (%s)", x->event_index, who, tx(x->var));
        if (x->is_cert)
            printf(": %s", tx_name(x->subject));
        else if (x->source == KT_AUTH_SHIM_SBAT)
            printf(": %s", txn((const char *)x->value.p, strcspn((const char *)x->value.p, "\n") < x->value.len ? strcspn((const char *)x->value.p, "\n") : x->value.len));
        else if (x->has_owner)
            printf(": hash %s", kt_hex(x->value.p, x->value.len > 32 ? 32 : x->value.len, hex));
        printf("\n");
        if (x->image_event >= 0 && x->source != KT_AUTH_SHIM_SBAT)
            printf("      first image after it: #%ld %s %s\n", x->image_event,
                   kt_evlog_type_name(x->image_type), tx(x->image));
        const struct kt_ms_ca *ca = kt_ms_ca_of(KT_MS_CA_3P, 2011);
        if (x->ms_uefi_ca_2011)
            printf("      Microsoft Corporation UEFI CA 2011 authorized it (third-party CA: shims, "
                   "option ROMs; it %s %s)\n", kt_ms_ca_expiry_verb(ca, (long long)time(NULL)),
                   ca->not_after);
    }
    free(a);
    return 0;
}

static const char *how_name(enum kt_predict_how h)
{
    switch (h) {
    case KT_PRED_RECOMPUTED: return "same";
    case KT_PRED_CHANGED: return "changed";
    case KT_PRED_KEPT_UNKNOWN: return "kept_unknown";
    case KT_PRED_REMOVED: return "removed";
    default: return "kept";
    }
}

static void upper_hex(const uint8_t *p, size_t n, char *out)
{
    kt_hex(p, n, out);
    for (char *c = out; *c; c++)
        *c = (char)toupper((unsigned char)*c);
}

/* An event's note, the advice that names options in the CLI's words. */
static const char *note_of(const struct kt_evlog_predicted *x)
{
    switch (x->hint) {
    case KT_PRED_HINT_NO_ESP: return "no --esp: the logged authority kept";
    case KT_PRED_HINT_NO_SBAT_LEVEL:
        return "no SbatLevel in the new state and none given (--sbat-level): the logged event kept";
    default: return x->note;
    }
}

/* tpm2_pcrread style: every predicted PCR, in PCR order, in each bank. */
static void yaml_out(const struct kt_evlog_prediction *p)
{
    const struct kt_evlog_pcrs *after = kt_evlog_prediction_after(p);
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1];
    for (size_t b = 0; b < after->n_banks; b++) {
        if (!after->bank[b].supported)
            continue;
        printf("  %s:\n", ev_alg(after->bank[b].alg));
        for (unsigned pcr = 0; pcr < KT_EVLOG_PCRS; pcr++) {
            if (!kt_evlog_prediction_has(p, pcr) ||
                (pcr != 7 && !kt_evlog_prediction_n_events(p, pcr)))
                continue;
            upper_hex(after->bank[b].pcr[pcr], after->bank[b].size, hex);
            printf("    %-2u: 0x%s\n", pcr, hex);
        }
    }
}

/* One PCR's records: each measurement the prediction has, in order. */
static void pcrlock_records(struct jw *w, const struct kt_evlog *log,
                            const struct kt_evlog_prediction *p, unsigned pcr)
{
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1];
    for (size_t k = 0; k < kt_evlog_prediction_n_events(p, pcr); k++) {
        const struct kt_evlog_predicted *x = kt_evlog_prediction_event(p, pcr, k);
        const struct kt_evlog_event *e = &log->event[x->event_index];
        if (x->how == KT_PRED_REMOVED)
            continue; /* not measured at the next boot */
        jw_obj(w, NULL);
        jw_int(w, "pcr", pcr);
        jw_arr(w, "digests");
        for (size_t b = 0; b < log->n_banks; b++) {
            if (!kt_evlog_alg_name(log->bank[b].alg) ||
                (x->inserted ? !log->bank[b].supported
                             : !kt_evlog_event_digest(e, log->bank[b].alg, NULL)))
                continue;
            jw_obj(w, NULL);
            jw_str(w, "hashAlg", ev_alg(log->bank[b].alg));
            jw_str(w, "digest", kt_hex(x->digest[b], log->bank[b].size, hex));
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
}

/* systemd.pcrlock(5): a CEL-JSON subset, {"records":[{"pcr":N,"digests":
 * [{"hashAlg":ALG,"digest":HEX}]}]}: every measurement of the PCRs of mask
 * that the prediction has, PCR by PCR, in order. */
void ev_pcrlock_write(FILE *f, const struct kt_evlog *log, const struct kt_evlog_prediction *p,
                      uint32_t mask)
{
    struct jw w;
    jw_init(&w, f);
    jw_obj(&w, NULL);
    jw_arr(&w, "records");
    for (unsigned pcr = 0; pcr < KT_EVLOG_PCRS; pcr++)
        if ((mask & (1u << pcr)) && kt_evlog_prediction_has(p, pcr))
            pcrlock_records(&w, log, p, pcr);
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_newline(&w);
}

/* PCR 7's records; with a UKI, also PCR 4 (the boot applications), 11
 * (its sections) and 12 (load options, credentials): the UKI's components
 * as systemd-pcrlock's lock-uki and lock-kernel-cmdline record them. */
static void pcrlock_out(const struct kt_evlog *log, const struct kt_evlog_prediction *p, bool uki)
{
    uki = uki || kt_evlog_prediction_has(p, 11);
    ev_pcrlock_write(stdout, log, p, 1u << 7 | (uki ? 1u << 4 | 1u << 11 | 1u << 12 : 0));
}

static void inserted_print(const struct kt_evlog_predicted *x, unsigned pcr,
                           const struct ev_predict_args *a)
{
    if (a->json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "predicted_event");
        jw_null(&w, "event");
        jw_int(&w, "pcr", pcr);
        jw_str(&w, "event_type", kt_evlog_type_name(x->type ? x->type : KT_EV_EFI_VARIABLE_AUTHORITY));
        jw_str(&w, "variable", x->variable[0] ? x->variable : NULL);
        jw_str(&w, "prediction", "new");
        jw_int(&w, x->type == KT_EV_IPL ? "after_event" : "before_event", (long long)x->event_index);
        jw_str(&w, "note", note_of(x));
        jw_obj_end(&w);
        jw_newline(&w);
    } else if (!a->quiet && x->type == KT_EV_IPL) {
        printf("  NEW %s after #%zu: %s\n", kt_evlog_type_name(x->type), x->event_index,
               tx(note_of(x)));
    } else if (!a->quiet) {
        printf("  NEW %s %s before #%zu: %s\n",
               kt_evlog_type_name(x->type ? x->type : KT_EV_EFI_VARIABLE_AUTHORITY),
               tx(x->variable), x->event_index, tx(note_of(x)));
    }
}

static void events_print(const struct kt_evlog *log, const struct kt_evlog_prediction *p,
                         unsigned pcr, const struct ev_predict_args *a)
{
    for (size_t k = 0; k < kt_evlog_prediction_n_events(p, pcr); k++) {
        const struct kt_evlog_predicted *x = kt_evlog_prediction_event(p, pcr, k);
        const struct kt_evlog_event *e = &log->event[x->event_index];
        struct kt_evlog_var v;
        bool isvar = e->type == KT_EV_EFI_VARIABLE_DRIVER_CONFIG || e->type == KT_EV_EFI_VARIABLE_AUTHORITY;
        const char *name = isvar && kt_evlog_var_parse(e, &v, NULL) == 0 ? v.name : NULL;
        const char *note = note_of(x);
        if (x->inserted) {
            inserted_print(x, pcr, a);
            continue;
        }
        if (a->json) {
            struct jw w;
            jw_init(&w, stdout);
            jw_obj(&w, NULL);
            jw_str(&w, "type", "predicted_event");
            jw_int(&w, "event", (long long)x->event_index);
            jw_int(&w, "pcr", e->pcr);
            jw_str(&w, "event_type", kt_evlog_type_name(e->type));
            jw_str(&w, "variable", name);
            jw_str(&w, "prediction", how_name(x->how));
            jw_str(&w, "note", note[0] ? note : NULL);
            jw_obj_end(&w);
            jw_newline(&w);
        } else if (!a->quiet && (x->how != KT_PRED_KEPT || note[0])) {
            printf("  #%zu %s%s%s: %s%s%s\n", x->event_index, kt_evlog_type_name(e->type),
                   name ? " " : "", name ? tx(name) : "",
                   x->how == KT_PRED_CHANGED      ? "CHANGES"
                   : x->how == KT_PRED_RECOMPUTED ? "unchanged"
                   : x->how == KT_PRED_KEPT       ? "kept"
                   : x->how == KT_PRED_REMOVED    ? "NOT MEASURED"
                                                  : "kept (unknown)",
                   note[0] ? ": " : "", tx(note));
        }
    }
}

static void banks_print(const struct kt_evlog_prediction *p, unsigned pcr,
                        const struct ev_predict_args *a)
{
    const struct kt_evlog_pcrs *now = kt_evlog_prediction_now(p), *after = kt_evlog_prediction_after(p);
    char nhex[2 * KT_EVLOG_MAX_DIGEST + 1], ahex[2 * KT_EVLOG_MAX_DIGEST + 1];
    for (size_t b = 0; b < after->n_banks; b++) {
        if (!after->bank[b].supported)
            continue;
        kt_hex(now->bank[b].pcr[pcr], now->bank[b].size, nhex);
        kt_hex(after->bank[b].pcr[pcr], after->bank[b].size, ahex);
        bool ch = strcmp(nhex, ahex) != 0;
        if (a->json) {
            struct jw w;
            jw_init(&w, stdout);
            jw_obj(&w, NULL);
            jw_str(&w, "type", "prediction");
            jw_str(&w, "bank", ev_alg(after->bank[b].alg));
            jw_int(&w, "pcr", pcr);
            jw_str(&w, "now", nhex);
            jw_str(&w, "predicted", ahex);
            jw_bool(&w, "changes", ch);
            jw_obj_end(&w);
            jw_newline(&w);
        } else {
            printf("  %-7s PCR %u now       %s\n", ev_alg(after->bank[b].alg), pcr, nhex);
            printf("  %-7s PCR %u predicted %s%s\n", ev_alg(after->bank[b].alg), pcr, ahex,
                   ch ? "  (changes)" : "");
        }
    }
}

/* Is pcr reported?  PCR 7 always; another predicted PCR when the log has
 * events in it. */
static bool reported(const struct kt_evlog_prediction *p, unsigned pcr)
{
    return pcr == 7 || kt_evlog_prediction_n_events(p, pcr) > 0;
}

/* What breaks: PCR 7 said either way (with how to re-enroll), another PCR
 * when it changes. */
static void advice_print(const struct kt_evlog_prediction *p, size_t changed)
{
    if (changed)
        printf("PCR 7 changes: secrets sealed to PCR 7 will not unseal; re-enroll after the "
               "update (systemd-cryptenroll --wipe-slot=tpm2 --tpm2-device=auto "
               "--tpm2-pcrs=7) or seal to a signed policy\n");
    else
        printf("PCR 7 does not change: secrets sealed to PCR 7 keep unsealing\n");
    for (size_t k = 0; k < kt_evlog_prediction_n_pcrs(p); k++) {
        unsigned pcr = kt_evlog_prediction_pcr(p, k);
        const char *source;
        kt_evlog_prediction_what(p, pcr, &source);
        if (pcr != 7 && kt_evlog_prediction_changes(p, pcr))
            printf("PCR %u changes (%s): secrets sealed to PCR %u will not unseal; "
                   "re-enroll after the update\n", pcr, source, pcr);
    }
}

size_t ev_predict_print(const struct kt_evlog *log, const struct kt_evlog_prediction *p,
                        const struct ev_predict_args *a)
{
    const struct kt_evlog_pcrs *now = kt_evlog_prediction_now(p), *after = kt_evlog_prediction_after(p);
    size_t changed = 0;
    for (size_t b = 0; b < after->n_banks; b++)
        changed += after->bank[b].supported &&
                   memcmp(after->bank[b].pcr[7], now->bank[b].pcr[7], now->bank[b].size);
    if (a->predict_format && !strcmp(a->predict_format, "yaml")) {
        yaml_out(p);
        return changed;
    }
    if (a->predict_format && !strcmp(a->predict_format, "pcrlock")) {
        pcrlock_out(log, p, a->uki);
        return changed;
    }
    size_t n = kt_evlog_prediction_n_pcrs(p);
    for (size_t k = 0; k < n; k++) {
        unsigned pcr = kt_evlog_prediction_pcr(p, k);
        if (reported(p, pcr) && !a->json && !a->quiet)
            printf("PCR %u after the change (%s):\n", pcr, kt_evlog_prediction_what(p, pcr, NULL));
        events_print(log, p, pcr, a);
    }
    for (size_t k = 0; k < n; k++)
        if (reported(p, kt_evlog_prediction_pcr(p, k)))
            banks_print(p, kt_evlog_prediction_pcr(p, k), a);
    if (!a->json)
        advice_print(p, changed);
    return changed;
}
