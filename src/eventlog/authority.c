/* authority.c - PCR 7 explained: each EV_EFI_VARIABLE_AUTHORITY event
 * decoded (the db entry, shim's vendor certificate or MOK, shim's
 * SbatLevel) with the image measured after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/ms_cas.h"
#include "eventlog/eventlog.h"
#include "ktrust/x509.h"

static void classify(struct kt_evlog_authority *a)
{
    if (!strcmp(a->var, "db"))
        a->source = KT_AUTH_FIRMWARE_DB;
    else if (!strcmp(a->var, "SbatLevel"))
        a->source = KT_AUTH_SHIM_SBAT;
    else if (!strcmp(a->var, "MokListRT") || !strcmp(a->var, "MokList") ||
             !strcmp(a->var, "Shim") || !strcmp(a->var, "vendor_db"))
        a->source = KT_AUTH_SHIM_CERT;
    else
        a->source = KT_AUTH_OTHER;
}

/* An EFI_SIGNATURE_DATA: owner GUID then a certificate or a hash. */
static void signature_data(struct kt_evlog_authority *a, const struct kt_evlog_var *v)
{
    a->value = v->data;
    if (a->source == KT_AUTH_SHIM_SBAT || v->data.len <= 16)
        return;
    a->has_owner = true;
    memcpy(a->owner, v->data.p, 16);
    a->value = (kt_span){v->data.p + 16, v->data.len - 16};
    struct kt_x509 *c = NULL;
    if (a->value.len > 64 && kt_x509_parse(a->value.p, a->value.len, &c, NULL) == 0) {
        a->is_cert = true;
        snprintf(a->subject, sizeof(a->subject), "%s", kt_x509_subject(c));
        snprintf(a->description, sizeof(a->description), "%s", kt_x509_description(c));
        memcpy(a->cert_sha256, kt_x509_sha256(c), 32);
        const struct kt_ms_ca *ca = kt_ms_ca_find(c); /* by identity, not by name */
        a->ms_uefi_ca_2011 = ca && ca->role == KT_MS_CA_3P && ca->year == 2011;
        a->ms_uefi_ca_2023 = ca && ca->year == 2023 &&
                             (ca->role == KT_MS_CA_3P || ca->role == KT_MS_CA_OROM);
        kt_x509_free(c);
    }
}

int kt_evlog_authorities(const struct kt_evlog *log, struct kt_evlog_authority **out,
                         size_t *n, struct kt_error *err)
{
    *out = NULL;
    *n = 0;
    size_t cnt = 0;
    for (size_t i = 0; i < log->n_events; i++)
        cnt += log->event[i].type == KT_EV_EFI_VARIABLE_AUTHORITY;
    if (!cnt)
        return 0;
    struct kt_evlog_authority *a = calloc(cnt, sizeof(*a));
    if (!a)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        if (e->type != KT_EV_EFI_VARIABLE_AUTHORITY)
            continue;
        struct kt_evlog_var v;
        int rc = kt_evlog_var_parse(e, &v, err);
        if (rc < 0) {
            free(a);
            return rc;
        }
        struct kt_evlog_authority *x = &a[k++];
        x->event_index = i;
        snprintf(x->var, sizeof(x->var), "%s", v.name);
        memcpy(x->var_guid, v.guid, 16);
        classify(x);
        signature_data(x, &v);
        x->image_event = -1;
        for (size_t j = i + 1; j < log->n_events; j++)
            if (kt_evlog_is_image(log->event[j].type)) {
                x->image_event = (long)j;
                x->image_type = log->event[j].type;
                if (kt_evlog_devpath(&log->event[j], x->image, sizeof(x->image), NULL, 0) < 0)
                    snprintf(x->image, sizeof(x->image), "(device path unreadable)");
                break;
            }
    }
    *out = a;
    *n = k;
    return 0;
}
