/* pcrs.c - PCR values to check a replay against, as the TPM and the
 * sealing tools give them: the TPM's sysfs files (/sys/class/tpm/tpm0/
 * pcr-BANK/N), tpm2_pcrread YAML, or BANK PCR HEX lines (kt_pcrs_read);
 * and the replay judged against them (kt_evlog_pcrs_check). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "eventlog/eventlog.h"

static int bank_slot(struct kt_pcr_values *x, uint16_t alg)
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
static bool put(struct kt_pcr_values *x, uint16_t alg, unsigned idx, const char *hex)
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

static int cannot_open(const char *path, int e, struct kt_error *err)
{
    return kt_fail(err, -e, KT_NO_OFFSET, "%s: cannot open: %s", path, strerror(e));
}

static int read_dir_bank(const char *dir, uint16_t alg, struct kt_pcr_values *x,
                         struct kt_error *err)
{
    for (unsigned i = 0; i < KT_EVLOG_PCRS; i++) {
        char p[4200], line[256];
        snprintf(p, sizeof(p), "%s/%u", dir, i);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        bool ok = fgets(line, sizeof(line), f) && put(x, alg, i, line);
        fclose(f);
        if (!ok)
            return kt_fail(err, -EBADMSG, KT_NO_OFFSET, "%s: not a PCR value in hex", p);
    }
    return 0;
}

/* A pcr-BANK directory, or a directory holding them. */
static int read_dir(const char *path, struct kt_pcr_values *x, struct kt_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strncmp(base, "pcr-", 4) && kt_evlog_alg_from_name(base + 4))
        return read_dir_bank(path, kt_evlog_alg_from_name(base + 4), x, err);
    DIR *d = opendir(path);
    if (!d)
        return cannot_open(path, errno, err);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        uint16_t alg = strncmp(de->d_name, "pcr-", 4) ? 0 : kt_evlog_alg_from_name(de->d_name + 4);
        if (alg) {
            char p[4200];
            snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
            rc = read_dir_bank(p, alg, x, err);
        }
    }
    closedir(d);
    if (rc == 0 && !x->n_banks)
        rc = kt_fail(err, -EBADMSG, KT_NO_OFFSET, "%s: no pcr-BANK directory with PCR files", path);
    return rc;
}

/* One line of tpm2_pcrread YAML ("  sha256:" then "    7 : 0xHEX") or
 * "BANK PCR HEX": 1 a value, 0 nothing (a bank heading, a comment), -1 not
 * one of those. */
static int read_line(const char *line, char bank[32], struct kt_pcr_values *x)
{
    char b[32], hex[300];
    unsigned idx;
    const char *s = line;
    while (*s == ' ')
        s++;
    if (!*s || *s == '\n' || *s == '#' || !strncmp(s, "---", 3) || !strncmp(s, "pcrs:", 5))
        return 0;
    if (sscanf(s, "%31[a-z0-9_]%1[:]", b, hex) == 2 && kt_evlog_alg_from_name(b) &&
        !strchr(s, 'x')) {
        snprintf(bank, 32, "%s", b);
        return 0;
    }
    if (sscanf(s, "%u : %299s", &idx, hex) == 2 && bank[0])
        return put(x, kt_evlog_alg_from_name(bank), idx, hex) ? 1 : -1;
    if (sscanf(s, "%31s %u %299s", b, &idx, hex) == 3 && kt_evlog_alg_from_name(b))
        return put(x, kt_evlog_alg_from_name(b), idx, hex) ? 1 : -1;
    return -1;
}

static int read_file(const char *path, struct kt_pcr_values *x, struct kt_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cannot_open(path, errno, err);
    char line[512], bank[32] = "";
    size_t lineno = 0, values = 0;
    int rc = 0;
    while (rc >= 0 && fgets(line, sizeof(line), f)) {
        lineno++;
        rc = read_line(line, bank, x);
        values += rc > 0;
    }
    fclose(f);
    if (rc < 0 || !values)
        return kt_fail(err, -EBADMSG, KT_NO_OFFSET,
                       "%s: line %zu: not tpm2_pcrread YAML nor BANK PCR HEX lines", path, lineno);
    return 0;
}

int kt_pcrs_read(const char *path, struct kt_pcr_values *out, struct kt_error *err)
{
    struct stat st;
    memset(out, 0, sizeof(*out));
    if (stat(path, &st) != 0)
        return cannot_open(path, errno, err);
    return S_ISDIR(st.st_mode) ? read_dir(path, out, err) : read_file(path, out, err);
}

/* All zeros or all ones: a PCR nothing extended (17-22 start at ones). */
static bool reset_value(const uint8_t *v, size_t n)
{
    bool z = true, f = true;
    for (size_t k = 0; k < n; k++)
        z &= v[k] == 0, f &= v[k] == 0xff;
    return z || f;
}

/* PCR i of bank b against the value read (xb: its bank there, or -1);
 * false when neither the log measures it nor a value was read. */
static bool judge(const struct kt_evlog_pcrs *p, size_t b, unsigned i,
                  const struct kt_pcr_values *x, int xb, struct kt_pcr_check *c,
                  struct kt_pcr_tally *t)
{
    memset(c, 0, sizeof(*c));
    c->alg = p->bank[b].alg;
    c->index = i;
    c->in_log = p->bank[b].used[i];
    c->read = xb >= 0 && x->bank[xb].have[i];
    if (!c->in_log && !c->read)
        return false;
    if (p->bank[b].supported) {
        c->replayed_len = p->bank[b].size;
        memcpy(c->replayed, p->bank[b].pcr[i], p->bank[b].size);
    }
    if (c->read) {
        c->read_len = x->bank[xb].len[i];
        memcpy(c->value, x->bank[xb].val[i], c->read_len);
    }
    if (c->in_log && c->read && c->replayed_len)
        c->status = c->read_len == c->replayed_len && !memcmp(c->value, c->replayed, c->read_len)
                        ? KT_PCR_MATCH : KT_PCR_MISMATCH;
    else if (!c->in_log && !reset_value(c->value, c->read_len))
        c->status = KT_PCR_NOT_IN_LOG;
    else if (!p->bank[b].supported)
        c->status = KT_PCR_NOT_COMPUTED;
    else
        c->status = KT_PCR_UNCHECKED;
    t->match += c->status == KT_PCR_MATCH;
    t->mismatch += c->status == KT_PCR_MISMATCH;
    t->not_in_log += c->status > KT_PCR_MISMATCH && !c->in_log;
    t->not_read += c->status > KT_PCR_MISMATCH && c->in_log;
    return true;
}

int kt_evlog_pcrs_check(const struct kt_evlog_pcrs *replayed, const struct kt_pcr_values *read,
                        struct kt_pcr_check **out, size_t *n, struct kt_pcr_tally *t)
{
    memset(t, 0, sizeof(*t));
    *n = 0;
    *out = calloc(replayed->n_banks * KT_EVLOG_PCRS + 1, sizeof(**out));
    if (!*out)
        return -ENOMEM;
    for (size_t b = 0; b < replayed->n_banks; b++) {
        int xb = -1;
        for (size_t k = 0; k < read->n_banks; k++)
            if (read->bank[k].alg == replayed->bank[b].alg)
                xb = (int)k;
        for (unsigned i = 0; i < KT_EVLOG_PCRS; i++)
            *n += judge(replayed, b, i, read, xb, &(*out)[*n], t);
    }
    return 0;
}
