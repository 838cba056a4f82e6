/* kcache_file.h - a kernel image's builtin certificates as a list in memory,
 * and the on-disk kernel-key cache: one file per image under a private
 * directory, named by the image's SHA-256 (kcache_file.c; the store's own
 * table is kernel_cache.c).  Not installed. */
#ifndef KT_STORE_KCACHE_FILE_H
#define KT_STORE_KCACHE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* The certificates in the order the image lists them; each der malloc'd. */
struct kt_cert_list {
    uint8_t **der;
    size_t *len, n, cap;
};

/* A kt_cert_cb: append a copy of der.  0 or -ENOMEM. */
int kt_cert_list_push(void *list, const uint8_t *der, size_t len, size_t off);
void kt_cert_list_free(struct kt_cert_list *l);

/* The cache's entries live in DIR/kernel-keys/, one file per image named by
 * the lower-case hex of its SHA-256.  The directory must be this user's
 * (owner the effective uid, no group or other permission bits, not a
 * symbolic link) and so must each entry (a regular file, not writable by
 * group or other): anything else is not used.  An entry is used only when
 * its whole content checks out (format, the image digest it names, its
 * trailing SHA-256); anything else is a miss.  Never an error: 1 found (l
 * filled), 0 not. */
int kt_kcache_file_get(const char *dir, const uint8_t sha[32], struct kt_cert_list *l);
/* Save l under sha: DIR/kernel-keys is created (mode 0700) when missing, the
 * entry written to a temporary file and renamed over the old one, and the
 * least recently used entries beyond the newest 16 removed.  0, or why not
 * (a negative errno; the command goes on without the cache). */
int kt_kcache_file_put(const char *dir, const uint8_t sha[32], const struct kt_cert_list *l);

#endif
