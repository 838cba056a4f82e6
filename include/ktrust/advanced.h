/* ktrust/advanced.h - the whole advanced tier in one include: the headers of ktrust/sys/,
 * one header per subject (result details, keys, PE-wrapped keys).  Define
 * KT_ADVANCED_API before including it: what it declares may change between
 * releases.  The utilities the ktrust program also uses (whole-file reads,
 * the directory walker, hex) are not API: they are src/util's, linked into
 * the program. */
#ifndef KTRUST_ADVANCED_H
#define KTRUST_ADVANCED_H

#include "ktrust/sys/keys.h"
#include "ktrust/sys/result.h"
#include "ktrust/sys/wrap.h"

#endif
