/* keyrings.c - the default keyrings and the keyrings each purpose searches
 * (the kernel's system_keyring.c). */
#include <string.h>

#include "policy/keyrings.h"

static const char *const default_names[] = {"builtin", "secondary", "platform", "machine",
                                            "blacklist"};

int kt_keyrings_new(struct kt_keyrings **out)
{
    /* machine is linked into secondary in the kernel, so its keys vouch too */
    static const char *const sb[] = {"builtin", "secondary", "machine"};
    struct kt_keyrings *k;
    if (kt_keyrings_new_empty(&k) < 0)
        return -ENOMEM;
    if (kt_keyrings_add_ring(k, "builtin", KT_RESTRICT_TRUSTED_ONLY, NULL, 0, true, NULL) < 0 ||
        kt_keyrings_add_ring(k, "secondary", KT_RESTRICT_SIGNED_BY, sb, 3, true, NULL) < 0 ||
        kt_keyrings_add_ring(k, "platform", KT_RESTRICT_NONE, NULL, 0, true, NULL) < 0 ||
        kt_keyrings_add_ring(k, "machine", KT_RESTRICT_NONE, NULL, 0, true, NULL) < 0 ||
        kt_keyrings_add_ring(k, "blacklist", KT_RESTRICT_BLACKLIST, NULL, 0, true, NULL) < 0) {
        kt_keyrings_free(k);
        return -ENOMEM;
    }
    *out = k;
    return 0;
}

const struct kt_keyring *kt_keyrings_default(const struct kt_keyrings *k,
                                             enum kt_default_ring which)
{
    if ((unsigned)which > KT_RING_BLACKLIST)
        return NULL;
    const struct kt_keyring *r = kt_keyrings_at_const(k, (size_t)which);
    if (!r || !kt_keyring_is_default(r) || strcmp(kt_keyring_name(r), default_names[which]) != 0)
        return NULL;
    return r;
}

const char *kt_purpose_text(enum kt_verify_purpose p)
{
    switch (p) {
    case KT_VERIFY_PURPOSE_DEFAULT:
    case KT_VERIFY_PURPOSE_MODULE: return "modules";
    case KT_VERIFY_PURPOSE_UEFI: return "UEFI images";
    case KT_VERIFY_PURPOSE_KEXEC: return "kexec images";
    case KT_VERIFY_PURPOSE_BUILTIN: return "builtin-only checks";
    }
    return "?";
}

/* Default keyrings a purpose may use (the kernel's VERIFY_USE_* choices). */
static bool purpose_uses(const struct kt_keyrings *k, enum kt_verify_purpose p,
                         const struct kt_keyring *r)
{
    if (r == kt_keyrings_default(k, KT_RING_BUILTIN))
        return true;
    if (r == kt_keyrings_default(k, KT_RING_SECONDARY) ||
        r == kt_keyrings_default(k, KT_RING_MACHINE))
        return p != KT_VERIFY_PURPOSE_BUILTIN;
    if (r == kt_keyrings_default(k, KT_RING_PLATFORM))
        return p == KT_VERIFY_PURPOSE_UEFI || p == KT_VERIFY_PURPOSE_KEXEC;
    return false;
}

bool kt_keyring_vouches_for(const struct kt_keyrings *k, const struct kt_keyring *r,
                            enum kt_verify_purpose p)
{
    return r && r != kt_keyrings_blacklist(k) &&
           (purpose_uses(k, p, r) || kt_keyring_is_run_voucher(r));
}

void kt_trust_set_for(const struct kt_keyrings *k, enum kt_verify_purpose p, struct kt_trust_set *out)
{
    memset(out, 0, sizeof(*out));
    out->all = k;
    out->what = kt_purpose_text(p);
    if (!k)
        return;
    static const enum kt_default_ring order[] = {KT_RING_BUILTIN, KT_RING_SECONDARY,
                                                 KT_RING_MACHINE, KT_RING_PLATFORM};
    for (size_t i = 0; i < 4; i++) {
        const struct kt_keyring *r = kt_keyrings_default(k, order[i]);
        if (r && kt_keyring_vouches_for(k, r, p))
            out->rings[out->n++] = r;
    }
    for (size_t i = 0; i < kt_keyrings_count(k) && out->n < KT_TRUST_SET_MAX; i++) {
        const struct kt_keyring *r = kt_keyrings_at_const(k, i);
        if (!kt_keyring_is_default(r) && kt_keyring_is_run_voucher(r))
            out->rings[out->n++] = r;
    }
}

const struct kt_key *kt_trust_find(const struct kt_keyrings *k, enum kt_verify_purpose p,
                                   const struct kt_key_ids *ids)
{
    if (!k || !ids || kt_key_ids_empty(ids))
        return NULL;
    struct kt_trust_set s;
    kt_trust_set_for(k, p, &s);
    return kt_trust_set_find(&s, ids);
}

const struct kt_key *kt_trust_find_by_issuer_serial(const struct kt_keyrings *k,
                                                   enum kt_verify_purpose p, kt_span issuer_raw,
                                                   kt_span serial)
{
    struct kt_key_ids ids = {.issuer = issuer_raw, .serial = serial};
    return issuer_raw.len && serial.len ? kt_trust_find(k, p, &ids) : NULL;
}

const struct kt_key *kt_trust_find_by_skid(const struct kt_keyrings *k, enum kt_verify_purpose p,
                                          kt_span skid)
{
    struct kt_key_ids ids = {.skid = skid};
    return kt_trust_find(k, p, &ids);
}
