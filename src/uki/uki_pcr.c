/* uki_pcr.c - PCR 11 as systemd 252's stub and systemd-pcrphase extend it.
 *
 * The stub (stub.c, after locating the sections) measures, for each known
 * section in canonical order but .pcrsig, first the name with its NUL, then
 * the VirtualSize bytes as loaded, each as its own EV_IPL event into PCR 11.
 * systemd-pcrphase.service then extends the phase words (no NUL):
 * enter-initrd, leave-initrd, sysinit, ready.  systemd-measure calculate
 * prints the last four. */
#include <errno.h>
#include <string.h>

#include "crypto/crypto.h"
#include "uki/uki.h"

static const char *const phases[KT_UKI_PHASES] = {
    "stub", "enter-initrd", "leave-initrd", "sysinit", "ready",
};

const char *kt_uki_phase_name(size_t phase)
{
    return phase < KT_UKI_PHASES ? phases[phase] : NULL;
}

static enum kt_hash bank_hash(const char *bank)
{
    static const enum kt_hash banks[] = {KT_HASH_SHA1, KT_HASH_SHA256, KT_HASH_SHA384,
                                         KT_HASH_SHA512};
    for (size_t i = 0; i < sizeof(banks) / sizeof(banks[0]); i++)
        if (strcmp(bank, kt_hash_name(banks[i])) == 0)
            return banks[i];
    return KT_HASH_NONE;
}

/* pcr = H(pcr || digest) */
static int extend(enum kt_hash h, uint8_t *pcr, const uint8_t *digest)
{
    uint8_t buf[2 * KT_HASH_MAX_SIZE];
    size_t n = kt_hash_size(h);
    memcpy(buf, pcr, n);
    memcpy(buf + n, digest, n);
    return kt_digest(h, buf, 2 * n, pcr);
}

/* Every phase's value in one pass, into the cache. */
static int compute(const struct kt_uki *u, enum kt_hash h)
{
    uint8_t pcr[KT_HASH_MAX_SIZE] = {0}, d[KT_HASH_MAX_SIZE];
    int rc = 0;
    for (int j = 0; j < KT_UKI_KNOWN_COUNT && rc == 0; j++) {
        const char *name = kt_uki_known_names[j];
        if (j == KT_UKI_PCRSIG_IDX || u->known[j] < 0)
            continue;
        rc = kt_digest(h, name, strlen(name) + 1, d);
        if (rc == 0)
            rc = extend(h, pcr, d);
        if (rc == 0 && h == KT_HASH_SHA256) /* computed once, at open */
            memcpy(d, u->sections[u->known[j]].sha256, 32);
        else if (rc == 0)
            rc = kt_uki_section_digest(u, (size_t)u->known[j], h, d);
        if (rc == 0)
            rc = extend(h, pcr, d);
    }
    for (size_t ph = 0; ph < KT_UKI_PHASES && rc == 0; ph++) {
        if (ph > 0)
            rc = kt_digest(h, phases[ph], strlen(phases[ph]), d);
        if (ph > 0 && rc == 0)
            rc = extend(h, pcr, d);
        memcpy(u->cache->value[h][ph], pcr, kt_hash_size(h));
    }
    if (rc == 0)
        u->cache->done[h] = true;
    return rc;
}

int kt_uki_pcr11(const struct kt_uki *u, const char *bank, size_t phase, uint8_t *out,
                 size_t *len)
{
    enum kt_hash h = bank_hash(bank);
    if (h == KT_HASH_NONE || phase >= KT_UKI_PHASES)
        return -EINVAL;
    int rc = u->cache->done[h] ? 0 : compute(u, h);
    if (rc < 0)
        return rc;
    *len = kt_hash_size(h);
    memcpy(out, u->cache->value[h][phase], *len);
    return 0;
}

int kt_uki_measurement(const struct kt_uki *u, size_t k, const char *bank, uint8_t *out,
                       size_t *len, const char **section, bool *contents)
{
    enum kt_hash h = bank_hash(bank);
    size_t seen = 0;
    if (h == KT_HASH_NONE)
        return -EINVAL;
    for (int j = 0; j < KT_UKI_KNOWN_COUNT; j++) {
        const char *name = kt_uki_known_names[j];
        if (j == KT_UKI_PCRSIG_IDX || u->known[j] < 0)
            continue;
        if (k != seen && k != seen + 1) {
            seen += 2;
            continue;
        }
        *section = name;
        *contents = k == seen + 1;
        *len = kt_hash_size(h);
        if (!*contents)
            return kt_digest(h, name, strlen(name) + 1, out);
        if (h == KT_HASH_SHA256) {
            memcpy(out, u->sections[u->known[j]].sha256, 32);
            return 0;
        }
        return kt_uki_section_digest(u, (size_t)u->known[j], h, out);
    }
    return -ENOENT;
}
