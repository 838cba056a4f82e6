/* efivars.h - the variable state (the one efivarfs reader): declared in
 * ktrust/efivars.h (struct kt_efivars, kt_efivars_read, kt_efivar_data,
 * kt_efivars_byte, kt_efivars_sbat_level, kt_efivars_boot). */
#ifndef KT_EFIVARS_EFIVARS_H
#define KT_EFIVARS_EFIVARS_H

#include "ktrust/efivars.h"
#include "sbat/sbat.h"
#include "util/err.h"

#endif
