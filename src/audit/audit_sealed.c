/* audit_sealed.c - audit's sealed-secrets section: the TPM2 tokens of the
 * system's /etc/crypttab volumes (kt_seal_find, as unseal-check finds
 * them), checked against today's PCRs (the event log's replay) and those
 * of the next boot (the measured-boot outlook's prediction); signed
 * policies against the UKI that boots next (kt_seal_uki_open_for). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "ktrust/seal.h"

int kt_audit_sealed_find(struct kt_audit *a, const struct kt_audit_opts *o)
{
    bool whole = (o->root && strcmp(o->root, "/")) ||
                 (!o->efivars && !o->esp && !o->kernel && !o->modules && !o->vars);
    if (!whole)
        return 0; /* parts given one by one: no system's crypttab to read */
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_seal_find(o->root, NULL, 0, KT_SEAL_FIND_LENIENT, &a->sealed, &e);
    return rc == -ENOMEM ? rc : 0;
}

int kt_audit_sealed_check(struct kt_audit *a, const struct kt_evlog *log,
                          const struct kt_evlog_prediction *pr, const struct kt_efivars *next)
{
    if (!a->sealed.n)
        return 0;
    struct kt_evlog_pcrs *today = malloc(sizeof(*today));
    a->sealed_check = calloc(a->sealed.n, sizeof(*a->sealed_check));
    int rc = today && a->sealed_check ? kt_evlog_replay(log, today) : -ENOMEM;
    /* signed policies: the UKI that boots next (systemd-boot's next entry
     * under the next boot's variables, or the one in EFI/Linux) */
    struct kt_seal_uki *uki = NULL;
    if (rc == 0)
        rc = kt_seal_uki_open_for(NULL, a->found[KT_AUDIT_ESP] ? a->path[KT_AUDIT_ESP] : NULL,
                                  next, a->sealed.tok, a->sealed.n, &uki, NULL);
    for (size_t i = 0; rc == 0 && i < a->sealed.n; i++)
        rc = kt_seal_check_uki(&a->sealed.tok[i], uki, today, kt_evlog_prediction_now(pr),
                               kt_evlog_prediction_after(pr), &a->sealed_check[i]);
    kt_seal_uki_free(uki);
    free(today);
    return rc == -ENOMEM ? rc : 0;
}
