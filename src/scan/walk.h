/* walk.h - the one directory walker (scan, audit's modules, check-update):
 * kt_walk and its entries are declared in include/ktrust/advanced.h
 * ("verdicts, scan"). */
#ifndef KT_SCAN_WALK_H
#define KT_SCAN_WALK_H

#include "ktrust/advanced.h"

#endif
