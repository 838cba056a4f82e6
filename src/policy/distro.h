/* distro.h - distribution kernels whose patches change which keyrings a
 * purpose searches.  The mainline rule is policy/keyrings.h's; a kernel
 * image's build (kimage's kt_kimage_build_of) says whose kernel it is.
 *
 * Debian carries "KEYS: Make use of platform keyring for module signature
 * verify" (debian/patches/features/all/db-mok-keyring/, from Fedora): when
 * mod_verify_sig's verify_pkcs7_signature(VERIFY_USE_SECONDARY_KEYRING)
 * finds no key (-ENOKEY), it calls it again with VERIFY_USE_PLATFORM_KEYRING,
 * so a module signed by a UEFI db key (or a MOK key in .platform) loads.
 * Carried from 5.3.9-1 (#935945), dropped in 6.1~rc3-1~exp1, re-instated in
 * 6.1.20-2 (#1030200) and carried since (6.12 has it).  A booted 6.1.192-3
 * loads a module signed by a db key (tests/boot/uki.py, uki_measured). */
#ifndef KT_POLICY_DISTRO_H
#define KT_POLICY_DISTRO_H

#include "kimage/kimage.h"
#include "policy/keyrings.h"

/* The rule's name for verdicts. */
#define KT_DISTRO_DEBIAN_PLATFORM "Debian's db-mok-keyring patch"

/* Does this build's mod_verify_sig retry with .platform?  NULL: no (a
 * mainline rule, or nothing known: no image), else the patch's name. */
const char *kt_distro_modules_platform(const struct kt_kimage_build *b);

/* Debian also carries "MODSIGN: checking the blacklisted hash before
 * loading a kernel module" (db-mok-keyring/0003, from SUSE): when
 * mod_verify_sig's signature check succeeds, mod_is_hash_blacklisted takes
 * the SHA-256 of the whole module as loaded (content, PKCS#7, struct
 * module_signature and the "~Module signature appended~" marker: wholelen)
 * and is_hash_blacklisted(.., BLACKLIST_HASH_BINARY) refuses a listed one
 * (-EKEYREJECTED, "Module hash %*phN is blacklisted"), whether or not
 * signatures are enforced.  Not upstream.  The 6.1.192-3 changelog's oldest
 * entry (5.2.6-1) refreshes it and no entry drops it: every Debian build. */
#define KT_DISTRO_DEBIAN_MODHASH "Debian's db-mok-keyring module hash check"
const char *kt_distro_modules_hash_check(const struct kt_kimage_build *b);

/* kt_trust_set_for, then the build's retry and hash check for modules (b may be NULL:
 * mainline). */
void kt_trust_set_for_build(const struct kt_keyrings *k, enum kt_verify_purpose p,
                            const struct kt_kimage_build *b, struct kt_trust_set *out);

#endif
