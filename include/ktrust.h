/* ktrust.h - libktrust, the Linux kernel's asymmetric-key trust system in
 * user space.  Include this one header. */
#ifndef KTRUST_H
#define KTRUST_H

#include "ktrust/error.h"

#endif
