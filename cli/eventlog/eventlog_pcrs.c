/* eventlog_pcrs.c - PCR values to check a replay against: the TPM's sysfs
 * files (/sys/class/tpm/tpm0/pcr-BANK/N), tpm2_pcrread YAML, or BANK PCR
 * HEX lines; and the comparison, said plainly. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "ktrust/advanced.h"

static int bank_slot(struct ev_expected *x, uint16_t alg)
{
    for (size_t b = 0; b < x->n_banks; b++)
        if (x->bank[b].alg == alg)
            return (int)b;
    if (x->n_banks == KT_EVLOG_MAX_BANKS)
        return -1;
    x->bank[x->n_banks].alg = alg;
    return (int)x->n_banks++;
}

/* hex (an optional 0x) into the slot; false when it is not hex. */
static bool put(struct ev_expected *x, uint16_t alg, unsigned idx, const char *hex)
{
    int b = bank_slot(x, alg);
    if (b < 0 || idx >= KT_EVLOG_PCRS)
        return false;
    if (!strncmp(hex, "0x", 2) || !strncmp(hex, "0X", 2))
        hex += 2;
    size_t n = 0;
    while (isxdigit((unsigned char)hex[0]) && isxdigit((unsigned char)hex[1]) &&
           n < KT_EVLOG_MAX_DIGEST) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        x->bank[b].val[idx][n++] = (uint8_t)v;
        hex += 2;
    }
    while (*hex == ' ' || *hex == '\t' || *hex == '\n' || *hex == '\r')
        hex++;
    if (!n || *hex)
        return false;
    x->bank[b].len[idx] = n;
    x->bank[b].have[idx] = true;
    return true;
}

static int read_dir_bank(const char *dir, uint16_t alg, struct ev_expected *x)
{
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++) {
        char p[4200], line[256];
        snprintf(p, sizeof(p), "%s/%u", dir, i);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        bool ok = fgets(line, sizeof(line), f) && put(x, alg, i, line);
        fclose(f);
        if (!ok) {
            cli_errorf(p, "not a PCR value in hex");
            return -1;
        }
    }
    return 0;
}

static int read_dir(const char *path, struct ev_expected *x, int *exit_code)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strncmp(base, "pcr-", 4) && kt_evlog_alg_from_name(base + 4))
        return read_dir_bank(path, kt_evlog_alg_from_name(base + 4), x) < 0 ? (*exit_code = 4, -1) : 0;
    DIR *d = opendir(path);
    if (!d) {
        cli_errorf(path, "cannot open: %s", strerror(errno));
        *exit_code = EXIT_NOINPUT;
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        uint16_t alg = strncmp(de->d_name, "pcr-", 4) ? 0 : kt_evlog_alg_from_name(de->d_name + 4);
        if (alg) {
            char p[4200];
            snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
            rc = read_dir_bank(p, alg, x);
        }
    }
    closedir(d);
    if (rc < 0)
        *exit_code = 4;
    else if (!x->n_banks) {
        cli_errorf(path, "no pcr-BANK directory with PCR files");
        *exit_code = 4;
        rc = -1;
    }
    return rc;
}

/* tpm2_pcrread YAML ("  sha256:" then "    7 : 0xHEX") or "BANK PCR HEX". */
static int read_file(const char *path, struct ev_expected *x, int *exit_code)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_errorf(path, "cannot open: %s", strerror(errno));
        *exit_code = EXIT_NOINPUT;
        return -1;
    }
    char line[512], bank[32] = "";
    size_t lineno = 0, values = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        char b[32], hex[300];
        unsigned idx;
        lineno++;
        char *s = line;
        while (*s == ' ')
            s++;
        if (!*s || *s == '\n' || *s == '#' || !strncmp(s, "---", 3) || !strncmp(s, "pcrs:", 5))
            continue;
        if (sscanf(s, "%31[a-z0-9_]%1[:]", b, hex) == 2 && kt_evlog_alg_from_name(b) &&
            !strchr(s, 'x')) {
            snprintf(bank, sizeof(bank), "%s", b);
            continue;
        }
        if (sscanf(s, "%u : %299s", &idx, hex) == 2 && bank[0]) {
            if (!put(x, kt_evlog_alg_from_name(bank), idx, hex))
                rc = -1;
        } else if (sscanf(s, "%31s %u %299s", b, &idx, hex) == 3 && kt_evlog_alg_from_name(b)) {
            if (!put(x, kt_evlog_alg_from_name(b), idx, hex))
                rc = -1;
        } else {
            rc = -1;
        }
        values += rc == 0;
    }
    fclose(f);
    if (rc < 0 || !values) {
        cli_errorf(path, "line %zu: not tpm2_pcrread YAML nor BANK PCR HEX lines", lineno);
        *exit_code = 4;
        return -1;
    }
    return 0;
}

int ev_pcrs_read(const char *path, struct ev_expected *x, int *exit_code)
{
    struct stat st;
    memset(x, 0, sizeof(*x));
    if (stat(path, &st) != 0) {
        cli_errorf(path, "cannot open: %s", strerror(errno));
        *exit_code = EXIT_NOINPUT;
        return -1;
    }
    return S_ISDIR(st.st_mode) ? read_dir(path, x, exit_code) : read_file(path, x, exit_code);
}

void ev_pcrs_print(const struct kt_evlog_pcrs *p, bool json)
{
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1];
    if (!json)
        printf("PCRs replayed from the log:\n");
    for (size_t b = 0; b < p->n_banks; b++)
        for (unsigned i = 0; i < KT_EVLOG_PCRS; i++) {
            if (!p->bank[b].used[i])
                continue;
            const char *v = p->bank[b].supported ? kt_hex(p->bank[b].pcr[i], p->bank[b].size, hex) : NULL;
            if (json) {
                struct jw w;
                jw_init(&w, stdout);
                jw_obj(&w, NULL);
                jw_str(&w, "type", "pcr");
                jw_str(&w, "bank", ev_alg(p->bank[b].alg));
                jw_int(&w, "index", i);
                jw_str(&w, "value", v);
                jw_obj_end(&w);
                jw_newline(&w);
            } else {
                printf("  %-7s %2u %s\n", ev_alg(p->bank[b].alg), i, v ? v : "(bank not computed)");
            }
        }
}

/* All zeros or all ones: a PCR nothing extended (17-22 start at ones). */
static bool reset_value(const uint8_t *v, size_t n)
{
    bool z = true, f = true;
    for (size_t k = 0; k < n; k++)
        z &= v[k] == 0, f &= v[k] == 0xff;
    return z || f;
}

static void one(const struct kt_evlog_pcrs *p, size_t b, unsigned i, const struct ev_expected *x,
                int xb, bool json, bool quiet, struct ev_pcr_counts *c)
{
    char hex[2 * KT_EVLOG_MAX_DIGEST + 1], xhex[2 * KT_EVLOG_MAX_DIGEST + 1];
    bool used = p->bank[b].used[i];
    bool have = xb >= 0 && x->bank[xb].have[i];
    if (!used && !have)
        return;
    const char *v = p->bank[b].supported ? kt_hex(p->bank[b].pcr[i], p->bank[b].size, hex) : NULL;
    const char *xv = have ? kt_hex(x->bank[xb].val[i], x->bank[xb].len[i], xhex) : NULL;
    int match = -1; /* -1: not compared */
    if (used && have && v)
        match = x->bank[xb].len[i] == p->bank[b].size &&
                !memcmp(x->bank[xb].val[i], p->bank[b].pcr[i], p->bank[b].size);
    if (match == 1)
        c->match++;
    else if (match == 0)
        c->mismatch++;
    else if (!used)
        c->not_in_log++;
    else
        c->not_read++;
    if (json) {
        struct jw w;
        jw_init(&w, stdout);
        jw_obj(&w, NULL);
        jw_str(&w, "type", "pcr");
        jw_str(&w, "bank", ev_alg(p->bank[b].alg));
        jw_int(&w, "index", i);
        jw_str(&w, "value", used ? v : NULL);
        jw_str(&w, "expected", xv);
        if (match < 0)
            jw_null(&w, "match");
        else
            jw_bool(&w, "match", match == 1);
        jw_obj_end(&w);
        jw_newline(&w);
        return;
    }
    if (match == 0)
        printf("  %-7s %2u MISMATCH: the log replays to %s, the TPM holds %s\n",
               ev_alg(p->bank[b].alg), i, v, xv);
    else if (!quiet && match == 1)
        printf("  %-7s %2u match %s\n", ev_alg(p->bank[b].alg), i, v);
    else if (!quiet && !used && !reset_value(x->bank[xb].val[i], x->bank[xb].len[i]))
        printf("  %-7s %2u not measured by the firmware log (extended later, e.g. by the OS): %s\n",
               ev_alg(p->bank[b].alg), i, xv);
    else if (!quiet && !p->bank[b].supported)
        printf("  %-7s %2u bank not computed by ktrust: not checked\n", ev_alg(p->bank[b].alg), i);
    else if (!quiet)
        printf("  %-7s %2u not read from the TPM: not checked\n", ev_alg(p->bank[b].alg), i);
}

void ev_pcrs_compare(const struct kt_evlog_pcrs *p, const struct ev_expected *x, const char *src,
                     bool json, bool quiet, struct ev_pcr_counts *c)
{
    memset(c, 0, sizeof(*c));
    if (!json)
        printf("PCRs, the log replayed against %s:\n", tx(src));
    for (size_t b = 0; b < p->n_banks; b++) {
        int xb = -1;
        for (size_t k = 0; k < x->n_banks; k++)
            if (x->bank[k].alg == p->bank[b].alg)
                xb = (int)k;
        for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
            one(p, b, i, x, xb, json, quiet, c);
    }
    if (!json && c->mismatch)
        printf("  %zu PCR value%s differ%s from the replay: the log is incomplete or the TPM "
               "was extended outside the log; a prediction from this log cannot be trusted\n",
               c->mismatch, c->mismatch == 1 ? "" : "s", c->mismatch == 1 ? "s" : "");
    else if (!json)
        printf("  every PCR the log measures matches (%zu)\n", c->match);
}
