/* pk.h - what is known of a platform key: its SHA-1 thumbprint (the key
 * of Microsoft's kek_update_map.json), PKfail (a test or leaked key), and
 * the KEK update the map names for it. */
#ifndef KT_BOOT_PK_H
#define KT_BOOT_PK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct kt_pk_facts {
    bool have_pk;
    char pk[320];        /* the PK certificate's description */
    char pk_sha1[41];    /* its SHA-1 thumbprint (kek_update_map.json's key) */
    bool pkfail;
    char pkfail_why[256];
    int kek_map;         /* -1 no map given (or no PK); 0 this PK is not in it; 1 it is */
    char kek_update[512]; /* the KEK update the map names for this PK */
};

/* The facts of the PK whose signature list is pk (len bytes; NULL: none)
 * and, with kek_map, what Microsoft's kek_update_map.json says of it.
 * Returns 0, -ENOMEM, or the error of a map that cannot be read or parsed
 * (err set). */
int kt_pk_facts(const uint8_t *pk, size_t len, const char *kek_map, struct kt_pk_facts *out,
                struct kt_error *err);

#endif
