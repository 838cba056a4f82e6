/* arch.c - which architecture a dbx update is for (kt_update_check_arch,
 * ktrust/update.h): the image hashes as Microsoft's dbx_info lists them,
 * against the machine types of the images checked. */
#include <stdio.h>
#include <string.h>

#include "revoke/dbx_info.h"
#include "revoke/revoke.h"

const char *kt_update_arch_name(uint16_t machine)
{
    switch (machine) {
    case 0x8664: return "x64";
    case 0x014c: return "ia32";
    case 0xaa64: return "aarch64";
    case 0x01c2: /* ARM Thumb, as EFI's ARM images */
    case 0x01c4: return "arm";
    default: return NULL;
    }
}

/* "a, b" from the names of the set bits (names: dbx_info's "images"). */
static void arch_list(uint32_t bits, const struct kt_json *names, char *out, size_t cap)
{
    out[0] = 0;
    for (size_t a = 0; names && a < names->n && a < 32; a++) {
        if (!(bits & (1u << a)) || !names->kids[a].key)
            continue;
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%s", n ? ", " : "", names->kids[a].key);
    }
}

struct tally {
    struct kt_update_arch_note *note;
    const struct kt_json *info;
    uint32_t mine, seen;
};

static void tally_hash(void *ctx, enum kt_hash alg, const uint8_t *v, size_t len)
{
    struct tally *t = ctx;
    t->note->hashes++;
    uint32_t bits = kt_dbx_info_hash_arches(t->info, alg, v, len, NULL);
    t->seen |= bits;
    if (!bits)
        t->note->unlisted++;
    else if (bits & t->mine)
        t->note->for_images++;
    else
        t->note->for_others++;
}

void kt_update_check_arch(const struct kt_update_check *u, const uint16_t *machines,
                          size_t n_machines, struct kt_update_arch_note *note)
{
    memset(note, 0, sizeof(*note));
    note->other_arch = -1;
    const struct kt_json *info = kt_update_check_info(u), *names = NULL;
    /* the images' architectures, as bits of dbx_info's "images" */
    kt_dbx_info_hash_arches(info, KT_HASH_SHA256, NULL, 0, &names);
    uint32_t mine = 0;
    for (size_t i = 0; i < n_machines; i++) {
        const char *a = kt_update_arch_name(machines[i]);
        for (size_t k = 0; a && names && k < names->n && k < 32; k++)
            if (names->kids[k].key && !strcmp(names->kids[k].key, a))
                mine |= 1u << k;
        if (a && !strstr(note->image_arches, a)) {
            size_t n = strlen(note->image_arches);
            snprintf(note->image_arches + n, sizeof(note->image_arches) - n, "%s%s",
                     n ? ", " : "", a);
        }
    }
    struct tally t = {note, info, mine, 0};
    kt_update_check_foreach_image_hash(u, tally_hash, &t);
    arch_list(t.seen, names, note->update_arches, sizeof(note->update_arches));
    if (!info || !note->hashes || note->for_images + note->for_others == 0 || !mine)
        return; /* nothing to go on */
    note->other_arch = note->for_images == 0;
}
