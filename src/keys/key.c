/* key.c - keys: a certificate copy parsed as a key, its ids (the kernel's
 * asymmetric_type.c), and matching a user's key id. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keys/keys_int.h"

int kt_key_new(const uint8_t *der, size_t len, const char *source, struct kt_key **out,
               struct kt_error *err)
{
    if (!der || !len)
        return kt_fail(err, -EBADMSG, 0, "certificate: empty input");
    struct ikey *k = calloc(1, sizeof(*k));
    if (!k)
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    k->pub.der = malloc(len);
    k->pub.source = strdup(source ? source : "");
    if (!k->pub.der || !k->pub.source) {
        free(k->pub.der);
        free(k->pub.source);
        free(k);
        return kt_fail(err, -ENOMEM, KT_NO_OFFSET, "out of memory");
    }
    memcpy(k->pub.der, der, len);
    k->pub.der_len = len;
    int rc = kt_x509_parse(k->pub.der, len, &k->pub.cert, err);
    if (rc < 0) {
        free(k->pub.der);
        free(k->pub.source);
        free(k);
        return rc;
    }
    k->pub.added = (int64_t)time(NULL);
    *out = &k->pub;
    return 0;
}

void kt_key_free(struct kt_key *key)
{
    if (!key)
        return;
    struct ikey *k = kt_ikey(key);
    kt_x509_free(k->pub.cert);
    free(k->pub.der);
    free(k->pub.source);
    free(k);
}

struct kt_key_ids kt_key_ids_of_cert(const struct kt_x509 *c)
{
    struct kt_key_ids ids = {0};
    if (c->issuer_raw.len && c->serial.len)
        ids.issuer = c->issuer_raw, ids.serial = c->serial;
    ids.skid = c->skid;
    return ids;
}

struct kt_key_ids kt_key_ids_of_signer(const struct kt_x509 *c, bool with_issuer_name)
{
    struct kt_key_ids ids = {0};
    if (c->akid_issuer.len && c->akid_serial.len)
        ids.issuer = c->akid_issuer, ids.serial = c->akid_serial;
    ids.skid = c->akid_keyid;
    if (with_issuer_name)
        ids.subject = c->issuer_raw;
    return ids;
}

bool kt_key_ids_empty(const struct kt_key_ids *ids)
{
    return !(ids->issuer.len && ids->serial.len) && !ids->skid.len && !ids->subject.len;
}


/* Does the hex string `want` (lowercase) equal (exact) or end (partial) the
 * hex of bytes p/n? */
static bool hex_id_match(const uint8_t *p, size_t n, const char *want, size_t wl, bool partial)
{
    if (!n || !wl || wl > 2 * n)
        return false;
    if (!partial && wl != 2 * n)
        return false;
    static const char hx[] = "0123456789abcdef";
    size_t skip = 2 * n - wl; /* hex digits not compared */
    for (size_t i = 0; i < wl; i++) {
        size_t d = skip + i;
        uint8_t b = p[d / 2];
        char ch = hx[d % 2 ? b & 15 : b >> 4];
        if (ch != want[i])
            return false;
    }
    return true;
}

bool kt_key_matches_id(const struct kt_key *key, const char *id)
{
    if (!key || !id || !*id)
        return false;
    const struct kt_x509 *c = key->cert;
    if (c->description && !strcmp(c->description, id))
        return true;
    bool partial = true;
    if (!strncmp(id, "id:", 3)) {
        id += 3;
    } else if (!strncmp(id, "ex:", 3)) {
        id += 3;
        partial = false;
    }
    char want[2 * 1024 + 1];
    size_t wl = 0;
    for (const char *s = id; *s; s++) {
        if (*s == ':' && wl > 0)
            continue; /* allow "ab:cd:ef" */
        if (!isxdigit((unsigned char)*s) || wl + 1 >= sizeof(want))
            return false;
        want[wl++] = (char)tolower((unsigned char)*s);
    }
    want[wl] = 0;
    if (!wl)
        return false;
    kt_span ser = c->serial, mag = kt_integer_magnitude(c->serial);
    if (hex_id_match(c->skid.p, c->skid.len, want, wl, partial) ||
        hex_id_match(ser.p, ser.len, want, wl, partial) ||
        hex_id_match(mag.p, mag.len, want, wl, partial) ||
        hex_id_match(c->sha256, 32, want, wl, partial))
        return true;
    /* the kernel's id 0: serial then raw issuer */
    if (c->issuer_raw.len && ser.len && wl <= 2 * (ser.len + c->issuer_raw.len)) {
        if (!partial && wl != 2 * (ser.len + c->issuer_raw.len))
            return false;
        size_t tail_issuer = wl <= 2 * c->issuer_raw.len ? wl : 2 * c->issuer_raw.len;
        size_t head = wl - tail_issuer; /* digits from the serial's end */
        if (!hex_id_match(c->issuer_raw.p, c->issuer_raw.len, want + head, tail_issuer, true))
            return false;
        return head == 0 || hex_id_match(ser.p, ser.len, want, head, true);
    }
    return false;
}

const struct kt_x509 *kt_key_cert(const struct kt_key *key) { return key->cert; }
bool kt_key_is_trusted(const struct kt_key *key) { return key->trusted; }
const char *kt_key_source(const struct kt_key *key) { return key->source; }
const struct kt_keyring *kt_key_keyring(const struct kt_key *key) { return key->ring; }

int64_t kt_key_added(const struct kt_key *key) { return key->added; }
