/* rollover_eventlog.c - what Microsoft Corporation UEFI CA 2011 authorized
 * at the last boot, from the firmware's TCG event log (src/eventlog/):
 * firmware logs an EV_EFI_VARIABLE_AUTHORITY for each db entry once, before
 * the first image that entry verified, and drivers and option ROMs load
 * before boot applications; so the image after the 2011 CA's event says
 * whether an option ROM or driver depends on it. */
#include "audit/rollover.h"

#include <stdlib.h>
#include <string.h>

#include "ktrust/eventlog.h"
#include "util/fmt.h"

#define EV_EFI_BOOT_SERVICES_DRIVER 0x80000004u
#define EV_EFI_RUNTIME_SERVICES_DRIVER 0x80000005u

/* The certificate is Microsoft Corporation UEFI CA 2011 by audit's one
 * table (its SHA-256, or subject and key; not by name alone). */
static bool is_uefi_2011(kt_span der)
{
    struct kt_x509 *x = NULL;
    struct kt_error e = KT_ERROR_INIT;
    bool yes = kt_x509_parse(der.p, der.len, &x, &e) == 0 &&
               kt_ms_ca_find(x) == kt_ms_ca_get(KT_MS_CA_3P, 2011);
    kt_x509_free(x);
    return yes;
}

int kt_rollover_eventlog(struct kt_rollover *ro, const struct kt_audit_snap *s)
{
    ro->uefi_2011_authorized = -1;
    if (!ro->eventlog)
        return 0;
    if (s->log_rc < 0) {
        ro->eventlog_rc = s->log_rc;
        return 0;
    }
    struct kt_error e = KT_ERROR_INIT;
    struct kt_evlog_authority *a = NULL;
    size_t n = 0;
    int rc = kt_evlog_authorities(&s->log, &a, &n, &e);
    if (rc == 0) {
        ro->uefi_2011_authorized = 0;
        for (size_t i = 0; i < n; i++) {
            if (a[i].source != KT_AUTH_FIRMWARE_DB || !a[i].is_cert || a[i].image_event < 0 ||
                !is_uefi_2011(a[i].value))
                continue;
            ro->uefi_2011_authorized = 1;
            ro->uefi_2011_driver = a[i].image_type == EV_EFI_BOOT_SERVICES_DRIVER ||
                                   a[i].image_type == EV_EFI_RUNTIME_SERVICES_DRIVER;
            kt_fmt(ro->uefi_2011_image, sizeof(ro->uefi_2011_image), "%s", a[i].image);
            break;
        }
    }
    ro->eventlog_rc = rc == -ENOMEM ? 0 : rc;
    free(a);
    return rc == -ENOMEM ? rc : 0;
}
