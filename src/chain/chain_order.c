/* chain_order.c - files given to the chain in the wrong order (a module as
 * the shim, a shim after the first place, a PE among the modules); a first
 * file that is systemd-boot (no shim: firmware starts it). */
#include "chain/chain.h"

#include <string.h>

#include "pe/pe.h"
#include "sdboot/sdboot.h"
#include "uki/uki.h"
#include "verify/detect.h"
#include "util/file.h"

/* What a link's file is: 'S' a PE with shim's .vendor_cert, 'P' another PE,
 * 'M' a kernel module, '?' anything else or unreadable. */
static char file_kind(const char *path)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_file_open(path, &f, &e) < 0)
        return '?';
    char k = '?';
    enum kt_ftype t = kt_detect(f.data, f.len, path);
    if (t == KT_FT_MODULE) {
        k = 'M';
    } else if (t == KT_FT_PE) {
        struct kt_pe *pe;
        kt_span sec;
        k = 'P';
        if (kt_pe_parse(f.data, f.len, &pe, &e) == 0) {
            if (kt_pe_find_section(pe, ".vendor_cert", &sec) == 0)
                k = 'S';
            kt_pe_free(pe);
        }
    }
    kt_file_close(&f);
    return k;
}

int kt_chain_check_order(const char *const *files, size_t n, size_t *at, const char **why)
{
    char first = n ? file_kind(files[0]) : '?';
    for (size_t i = 0; i < n; i++) {
        char k = i ? file_kind(files[i]) : first;
        *why = NULL;
        if (i == 0 && k == 'M')
            *why = "is a kernel module";
        else if (i > 0 && k == 'S' && first != 'S')
            *why = "is a shim (it has .vendor_cert), and the first file is not";
        else if (i > 0 && i < 3 && k == 'M')
            *why = "is a kernel module";
        else if (i >= 3 && (k == 'P' || k == 'S'))
            *why = "is a PE image, not a kernel module";
        if (*why) {
            *at = i;
            return 1;
        }
    }
    return 0;
}

bool kt_chain_is_systemd_boot_buf(const uint8_t *buf, size_t len)
{
    return kt_sdboot_is_binary(buf, len);
}

bool kt_chain_is_systemd_boot(const char *path)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_file_open(path, &f, &e) < 0)
        return false;
    bool yes = kt_chain_is_systemd_boot_buf(f.data, f.len);
    kt_file_close(&f);
    return yes;
}
