/* ms_cas.c - Microsoft's Secure Boot CAs of 2011 and 2023 (the one
 * table: from the certificates in secureboot_objects' PreSignedObjects and
 * certs/), and how a certificate is recognised as one of them. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boot/ms_cas.h"
#include "crypto/crypto.h"
#include "der/der.h"
#include "util/fmt.h"

static const struct kt_ms_ca cas[] = {
    {"Microsoft Corporation KEK CA 2011", KT_MS_CA_KEK, 2011,
     "a1117f516a32cefcba3f2d1ace10a87972fd6bbe8fe0d0b996e09e65d802a503",
     "2bcb1c28e5337cbdf3e0b613b89d6a624c94e982fa0fc5d9889be7ee568e30be",
     "8b0efb708d89cc30580fb810aee3bd1dd33f84e07b5ac7f0a43c428df286b899", "2026-06-24", NULL},
    {"Microsoft Corporation KEK 2K CA 2023", KT_MS_CA_KEK, 2023,
     "3cd3f0309edae228767a976dd40d9f4affc4fbd5218f2e8cc3c9dd97e8ac6f9d",
     "74d7f2928ff88d7a7f23873f24e38b969c54f5b49ec9107e18fb5a045aa998f2",
     "0f5b9c6e752dc238a09810a1e58cf25d82c532bffd34e82480195e8243892e1a", "2038-03-02",
     "KEKUpdate_<OEM>_PK<n>.bin (signed by this machine's PK)"},
    {"Microsoft Corporation UEFI CA 2011", KT_MS_CA_3P, 2011,
     "48e99b991f57fc52f76149599bff0a58c47154229b9f8d603ac40d3500248507",
     "9589b8c95168f79243f61922faa5990de0a4866de928736fed658ea7bff1a5e2",
     "2c627ccbb690409550ad6e2d46a03eb10aa6d62d272a5dc3c86a8863ae19b2bb", "2026-06-27", NULL},
    {"Microsoft UEFI CA 2023", KT_MS_CA_3P, 2023,
     "f6124e34125bee3fe6d79a574eaa7b91c0e7bd9d929c1a321178efd611dad901",
     "9a35484e640c7592c1ce3c29bf109970242d0b656c38294273bdbeae2f60b9b7",
     "f0f6d23f74457473749a72d5aa55b9efe491dd0bc3068905b019940abe8b5cc3", "2038-06-13", "DBUpdate3P2023.bin"},
    {"Microsoft Option ROM UEFI CA 2023", KT_MS_CA_OROM, 2023,
     "e5be3e64c6e66a281457ecdece0d6d0787577aad2a3a0144262c10c14ba8d8f1",
     "293bbccb3f97e64feb5df62627f77ef1b114fc5ef8a7c07f63e05de12c500e41",
     "70b05022adf8de3061983894f3be9140205f84aaa49a860734337a45d9d93d4a", "2038-10-26", "DBUpdateOROM2023.bin"},
    {"Microsoft Windows Production PCA 2011", KT_MS_CA_WINDOWS, 2011,
     "e8e95f0733a55e8bad7be0a1413ee23c51fcea64b3c8fa6a786935fddcc71961",
     "4e80be107c860de896384b3eff50504dc2d76ac7151df3102a4450637a032146",
     "96fcf444012a77ea14f34f349c469c85e2749fce709e0bcdf2e5eab431cdccae", "2026-10-19", NULL},
    {"Windows UEFI CA 2023", KT_MS_CA_WINDOWS, 2023,
     "076f1fea90ac29155ebf77c17682f75f1fdd1be196da302dc8461e350a9ae330",
     "81f29e98d32c6e606766cad3d83879a74c777e89ba8a9811cc8a81778dd629f8",
     "b45bbdd94c9bf231bb8d9dbf47f6dc917fe7ebea7ef95aeede218d7e9d395f9a", "2035-06-13", "DBUpdate2024.bin"},
};

const struct kt_ms_ca *kt_ms_cas(size_t *n)
{
    *n = sizeof(cas) / sizeof(cas[0]);
    return cas;
}

const char *kt_ms_ca_expiry_verb(const struct kt_ms_ca *ca, long long now)
{
    /* no gmtime/strftime: glibc's read /etc/localtime, and offline reads
     * nothing of the host; a UTC day needs no zone */
    int y, m, d;
    if (sscanf(ca->not_after, "%d-%d-%d", &y, &m, &d) != 3)
        return "expires on";
    int64_t end = (kt_days_from_civil(y, m, d) + 1) * 86400; /* the day is the last valid one */
    return now >= end ? "expired on" : "expires on";
}

const struct kt_ms_ca *kt_ms_ca_of(enum kt_ms_ca_role role, int year)
{
    return kt_ms_ca_get(role, year);
}

const char *kt_ms_ca_role_name(enum kt_ms_ca_role r)
{
    static const char *const names[] = {"kek", "uefi_3p", "windows", "option_rom"};
    return (unsigned)r <= KT_MS_CA_OROM ? names[r] : "?";
}

const struct kt_ms_ca *kt_ms_ca_get(enum kt_ms_ca_role role, int year)
{
    for (size_t i = 0; i < sizeof(cas) / sizeof(cas[0]); i++)
        if (cas[i].role == role && cas[i].year == year)
            return &cas[i];
    return NULL;
}

static bool hex_eq(const char *hex, const uint8_t *p, size_t n)
{
    char h[2 * 64 + 1];
    if (strlen(hex) != 2 * n || n > 64)
        return false;
    kt_hex(p, n, h);
    return !strcmp(h, hex);
}

const struct kt_ms_ca *kt_ms_ca_find_sha256(const uint8_t sha256[32])
{
    for (size_t i = 0; i < sizeof(cas) / sizeof(cas[0]); i++)
        if (hex_eq(cas[i].sha256, sha256, 32))
            return &cas[i];
    return NULL;
}

const struct kt_ms_ca *kt_ms_ca_find_tbs(const uint8_t tbs_sha256[32])
{
    for (size_t i = 0; i < sizeof(cas) / sizeof(cas[0]); i++)
        if (hex_eq(cas[i].tbs_sha256, tbs_sha256, 32))
            return &cas[i];
    return NULL;
}

const struct kt_ms_ca *kt_ms_ca_find(const struct kt_x509 *c)
{
    const struct kt_ms_ca *ca = kt_ms_ca_find_sha256(c->sha256);
    uint8_t spki[32];
    if (ca || !c->subject_cn || kt_digest(KT_HASH_SHA256, c->spki.p, c->spki.len, spki) < 0)
        return ca;
    for (size_t i = 0; !ca && i < sizeof(cas) / sizeof(cas[0]); i++)
        if (!strcmp(c->subject_cn, cas[i].name) && hex_eq(cas[i].spki_sha256, spki, 32))
            ca = &cas[i]; /* the same name and key, another certificate */
    return ca;
}
