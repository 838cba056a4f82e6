/* uki_print.h - a Unified Kernel Image as text or as the fields of its JSON
 * object (CONTRACT.md, `ktrust uki`). */
#ifndef KT_CLI_UKI_PRINT_H
#define KT_CLI_UKI_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "ktrust/efivars.h"
#include "ktrust/uki.h"

struct uki_print {
    const struct kt_uki *uki;
    const char *const *banks; /* PCR 11 banks, NULL-terminated */
    bool pcrlock;             /* show: only the systemd.pcrlock(5) records */
    const struct kt_efivars *vars; /* verify --efivars: the snapshot judged under */
    const char *boot_via;     /* then "firmware" or "shim": who verified it */
};

/* "sections", "stub", "os_release", "uname", "findings", "pcr11" (ctx:
 * struct uki_print) */
void uki_json(struct jw *w, const void *ctx);
/* The same as indented lines. */
void uki_text(FILE *f, const void *ctx);
/* systemd.pcrlock(5) of the UKI: {"records":[{"pcr":11,"digests":[{hashAlg,
 * digest}]}]}, each of the stub's measurements in order, in up->banks. */
void uki_pcrlock(FILE *f, const struct uki_print *up);
/* "pcrsig": r's status, bank, pkfp, entries, signed_phases, why (uki show,
 * audit's systemd-boot part). */
void uki_json_pcrsig(struct jw *w, const struct kt_uki_pcrsig *r, const char *bank);
/* Its fields alone, inside an object the caller opened. */
void uki_json_pcrsig_fields(struct jw *w, const struct kt_uki_pcrsig *r, const char *bank);

#endif
