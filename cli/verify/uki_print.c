/* uki_print.c - a UKI's sections, os-release, findings and PCR 11. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "text_escape.h"
#include "uki_print.h"
#include "util/fmt.h"

static const struct {
    unsigned flag;
    const char *word, *text;
} findings[] = {
    {KT_UKI_NO_LINUX, "no_linux", "no .linux section: the stub has no kernel to start"},
    {KT_UKI_OUT_OF_ORDER, "out_of_order", "sections not in the canonical order"},
    {KT_UKI_DUPLICATE, "duplicate", "a section name appears twice: the stub takes the last"},
    {KT_UKI_UNKNOWN_SECT, "unknown", "sections the stub does not know (ignored, not measured)"},
    {KT_UKI_PREFIX_NAME, "prefix_name", "a longer section name the stub takes for a known one"},
    {KT_UKI_OTHER_STUB, "other_stub", "not systemd 252's stub: read with 252's rules"},
};

static const char *field(const struct kt_uki *u, const char *key, char *buf, size_t cap)
{
    return kt_uki_osrel(u, key, buf, cap) == 0 ? buf : NULL;
}

static void json_sections(struct jw *w, const struct kt_uki *u)
{
    jw_arr(w, "sections");
    for (size_t i = 0; i < kt_uki_section_count(u); i++) {
        const struct kt_uki_section *s = kt_uki_section_at(u, i);
        jw_obj(w, NULL);
        jw_str(w, "name", s->name);
        jw_int(w, "size", s->vsize);
        jw_hex(w, "sha256", s->sha256, sizeof(s->sha256));
        jw_str(w, "role", kt_uki_role_name(s->role));
        jw_str(w, "as", s->canonical);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void json_pcr11(struct jw *w, const struct uki_print *up)
{
    jw_obj(w, "pcr11");
    for (size_t b = 0; up->banks[b]; b++) {
        jw_obj(w, up->banks[b]);
        for (size_t ph = 0; ph < KT_UKI_PHASES; ph++) {
            uint8_t v[64];
            size_t n;
            if (kt_uki_pcr11(up->uki, up->banks[b], ph, v, &n) == 0)
                jw_hex(w, kt_uki_phase_name(ph), v, n);
        }
        jw_obj_end(w);
    }
    jw_obj_end(w);
}

void uki_json_pcrsig(struct jw *w, const struct kt_uki_pcrsig *r, const char *bank)
{
    jw_obj(w, "pcrsig");
    uki_json_pcrsig_fields(w, r, bank);
    jw_obj_end(w);
}

void uki_json_pcrsig_fields(struct jw *w, const struct kt_uki_pcrsig *r, const char *bank)
{
    jw_str(w, "status", kt_pcrsig_status_name(r->status));
    jw_str(w, "bank", bank);
    jw_hex(w, "pkfp", r->pkfp, r->have_pkfp ? sizeof(r->pkfp) : 0);
    jw_int(w, "entries", (long long)r->entries);
    jw_arr(w, "signed_phases");
    for (size_t ph = 0; ph < KT_UKI_PHASES; ph++)
        if (r->signed_phase[ph])
            jw_str(w, NULL, kt_uki_phase_name(ph));
    jw_arr_end(w);
    jw_str(w, "why", r->why[0] ? r->why : NULL);
}

static void json_pcrsig(struct jw *w, const struct kt_uki *u, const char *bank)
{
    struct kt_uki_pcrsig r;
    if (kt_uki_pcrsig_check(u, bank, &r) == 0)
        uki_json_pcrsig(w, &r, bank);
}

void uki_json(struct jw *w, const void *ctx)
{
    const struct uki_print *up = ctx;
    const struct kt_uki *u = up->uki;
    char buf[256];
    jw_str(w, "stub", kt_uki_stub_version(u, buf, sizeof(buf)) == 0 ? buf : NULL);
    json_sections(w, u);
    jw_obj(w, "os_release");
    jw_str(w, "id", field(u, "ID", buf, sizeof(buf)));
    jw_str(w, "version_id", field(u, "VERSION_ID", buf, sizeof(buf)));
    jw_str(w, "pretty_name", field(u, "PRETTY_NAME", buf, sizeof(buf)));
    jw_obj_end(w);
    jw_str(w, "uname", kt_uki_uname(u, buf, sizeof(buf)) == 0 ? buf : NULL);
    jw_arr(w, "findings");
    for (size_t i = 0; i < sizeof(findings) / sizeof(findings[0]); i++)
        if (kt_uki_flags(u) & findings[i].flag)
            jw_str(w, NULL, findings[i].word);
    jw_arr_end(w);
    json_pcr11(w, up);
    json_pcrsig(w, u, up->banks[0]);
    if (up->boot_via)
        jw_str(w, "verified_by", up->boot_via);
}

void uki_text(FILE *f, const void *ctx)
{
    const struct uki_print *up = ctx;
    const struct kt_uki *u = up->uki;
    char buf[256], hex[129];
    if (up->boot_via)
        fprintf(f, "  verified by: %s\n", !strcmp(up->boot_via, "shim")
                                               ? "shim (systemd-boot through shim_lock)"
                                               : "the firmware (systemd-boot's LoadImage)");
    if (kt_uki_stub_version(u, buf, sizeof(buf)) == 0)
        fprintf(f, "  stub: %s\n", tx(buf));
    if (field(u, "PRETTY_NAME", buf, sizeof(buf)))
        fprintf(f, "  os-release: %s\n", tx(buf));
    if (kt_uki_uname(u, buf, sizeof(buf)) == 0)
        fprintf(f, "  uname: %s\n", tx(buf));
    fprintf(f, "  sections:\n");
    for (size_t i = 0; i < kt_uki_section_count(u); i++) {
        const struct kt_uki_section *s = kt_uki_section_at(u, i);
        fprintf(f, "    %-9s %-9s %10u  %s%s%s\n", tx(s->name), kt_uki_role_name(s->role),
                s->vsize, kt_hex(s->sha256, 32, hex), s->prefix_match ? "  taken for " : "",
                s->prefix_match ? s->canonical : "");
    }
    for (size_t i = 0; i < sizeof(findings) / sizeof(findings[0]); i++)
        if (kt_uki_flags(u) & findings[i].flag)
            fprintf(f, "  finding: %s\n", findings[i].text);
    for (size_t b = 0; up->banks[b]; b++)
        for (size_t ph = 0; ph < KT_UKI_PHASES; ph++) {
            uint8_t v[64];
            size_t n;
            if (kt_uki_pcr11(u, up->banks[b], ph, v, &n) == 0)
                fprintf(f, "  pcr11 %s %-12s %s\n", up->banks[b], kt_uki_phase_name(ph),
                        kt_hex(v, n, hex));
        }
    struct kt_uki_pcrsig r;
    if (kt_uki_pcrsig_check(u, up->banks[0], &r) == 0)
        fprintf(f, "  pcrsig %s: %s%s%s%s\n", up->banks[0], kt_pcrsig_status_name(r.status),
                r.why[0] ? " (" : "", r.why[0] ? r.why : "", r.why[0] ? ")" : "");
}

void uki_pcrlock(FILE *f, const struct uki_print *up)
{
    struct jw w;
    jw_init(&w, f);
    jw_obj(&w, NULL);
    jw_arr(&w, "records");
    for (size_t k = 0;; k++) {
        uint8_t v[64];
        size_t n;
        const char *sec;
        bool contents;
        if (kt_uki_measurement(up->uki, k, up->banks[0], v, &n, &sec, &contents) < 0)
            break;
        jw_obj(&w, NULL);
        jw_int(&w, "pcr", 11);
        jw_arr(&w, "digests");
        for (size_t b = 0; up->banks[b]; b++) {
            if (kt_uki_measurement(up->uki, k, up->banks[b], v, &n, &sec, &contents) < 0)
                continue;
            jw_obj(&w, NULL);
            jw_str(&w, "hashAlg", up->banks[b]);
            jw_hex(&w, "digest", v, n);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    jw_newline(&w);
}
