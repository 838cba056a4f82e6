/* ktrust/nvram.h - does a variable write fit in the firmware's NVRAM?
 *
 * Firmware has two limits (EDK2's variable driver, Variable.c):
 * - the largest authenticated variable it takes, header, UTF-16 name and
 *   data together (PcdMaxAuthVariableSize: 0x8400 in OVMF's secure-boot
 *   build; an append write is refused with EFI_INVALID_PARAMETER when the
 *   data already there plus the new entries would pass it);
 * - the free space of its variable store (a write puts a new copy of the
 *   whole variable there before the old one is reclaimed).
 * The machine reports its store's size and free space through
 * QueryVariableInfo, which recent kernels pass on as efivarfs' statfs
 * (f_blocks, f_bfree); the per-variable limit is not reported there and
 * comes only from the caller.  Unknown limits stay unknown: nothing here
 * invents one.
 */
#ifndef KTRUST_NVRAM_H
#define KTRUST_NVRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ktrust/api.h"
#include "ktrust/efivars.h"

#ifdef __cplusplus
extern "C" {
#endif

/* EDK2's AUTHENTICATED_VARIABLE_HEADER: StartId, State, Reserved,
 * Attributes, MonotonicCount, TimeStamp, PubKeyIndex, NameSize, DataSize,
 * VendorGuid. */
#define KT_NV_AUTH_HEADER 60u

/* The name of the file audit --save-root writes beside the efivars
 * directory with the store's numbers ("storage_space N" and
 * "remaining_space N" lines), read back by kt_nv_limits_read. */
#define KT_NV_SAVED_NAME "efivarfs-statfs"

struct kt_nv_limits {
    uint64_t max_var;        /* the largest authenticated variable firmware takes (header,
                                name and data); 0: unknown */
    uint64_t store_size;     /* the variable store's size; 0: unknown */
    uint64_t store_free;     /* its free space (valid when free_known) */
    bool free_known;
    char source[48];         /* where the store's numbers come from: "efivarfs statfs",
                                "saved statfs", "given"; "" none */
};

/* The bytes variable `name` with data_len bytes of data takes in an EDK2
 * store (header, UTF-16 name with its NUL padded to 4, data), as the
 * per-variable limit counts it. */
KT_API size_t kt_nv_var_size(const char *name, size_t data_len);

/* The store's numbers for the efivars directory dir: its statfs when it is
 * an efivarfs mount that reports them, else the file KT_NV_SAVED_NAME
 * beside it (a saved root).  *out zeroed first; max_var is never set here.
 * Returns 1 when found, 0 when unknown. */
KT_API int kt_nv_limits_read(const char *dir, struct kt_nv_limits *out);

/* Write the store's numbers of efivars directory dir (as kt_nv_limits_read
 * finds them) to path.  1 written, 0 nothing known, or -errno. */
KT_API int kt_nv_limits_save(const char *dir, const char *path);

/* One write to one variable: before and after. */
struct kt_nv_fit {
    enum kt_efivar_id var;
    size_t data_before, data_after; /* its data (0: absent) */
    size_t before, after;           /* kt_nv_var_size of each (0: absent) */
    size_t write;                   /* the free space the write needs: the new copy */
    int too_big;                    /* 1: after > max_var; 0: fits; -1: max_var unknown */
    int no_room;                    /* 1: write > the free space; 0: room; -1: unknown */
    uint64_t free_after;            /* the store's free space after it (free_known) */
};

/* The write of variable id from state was to state now, against lim with
 * free bytes free in the store now (free_known: whether it is known). */
KT_API void kt_nv_fit(const struct kt_efivars *was, const struct kt_efivars *now,
                      enum kt_efivar_id id, const struct kt_nv_limits *lim, uint64_t free,
                      bool free_known, struct kt_nv_fit *out);

/* Would firmware refuse this write (kt_nv_fit of id, was -> now, against
 * lim and *free)?  0: it fits or no limit is known (*free, when known,
 * becomes the free space after it); -EPERM: firmware refuses it (EDK2:
 * EFI_INVALID_PARAMETER over the per-variable limit, EFI_OUT_OF_RESOURCES
 * without room), err saying why with the numbers.  *fit (may be NULL)
 * gets the numbers. */
KT_API int kt_nv_check_write(const struct kt_efivars *was, const struct kt_efivars *now,
                             enum kt_efivar_id id, const struct kt_nv_limits *lim,
                             uint64_t *free, struct kt_nv_fit *fit, struct kt_error *err);

/* kt_efivars_apply_file, then kt_nv_check_write on the variable it wrote:
 * a write the firmware would refuse is undone (*s as it was), c->verdict
 * -EPERM with the reason and the gained/lost lines dropped (the only
 * -EPERM it returns).  Returns c->verdict, or -ENOMEM. */
KT_API int kt_efivars_apply_file_nv(struct kt_efivars *s, const char *path,
                                    const struct kt_nv_limits *lim, uint64_t *free,
                                    struct kt_efivars_change *c);

/* shim's runtime mirrors at the next boot (MokListRT, MokListXRT,
 * SbatLevelRT, MokListTrustedRT; shim 16's mok.c creates them at every boot,
 * volatile, from MokList plus its vendor certificate, MokListX plus its
 * vendor dbx, SbatLevel, MokListTrusted): their sizes as this boot's
 * mirrors show them. */
struct kt_nv_shim {
    size_t size[4];                 /* kt_nv_var_size of each; 0 absent */
    size_t total;
    bool known;                     /* a mirror was there to measure */
    int room;                       /* 1: total <= the free space; 0: not; -1: unknown */
};

/* The mirrors of state s against free bytes free (free_known). */
KT_API void kt_nv_shim_mirrors(const struct kt_efivars *s, uint64_t free, bool free_known,
                               struct kt_nv_shim *out);

#ifdef __cplusplus
}
#endif
#endif
