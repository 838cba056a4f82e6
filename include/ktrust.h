/* ktrust.h - libktrust: the Linux kernel's asymmetric-key trust system in
 * user space.  Include this one header; link with `pkg-config --libs ktrust`.
 *
 * Conventions (every function):
 *   - results are int: 0, or a negative errno with the kernel's meaning
 *     (-EBADMSG/-ELIBBAD malformed, -ENODATA unsigned, -ENOKEY untrusted,
 *     -ENOPKG unsupported, -EKEYREJECTED rejected, -EPERM refused);
 *     kt_verdict_of() maps one to a verdict, numbered as the CLI's exit codes;
 *   - a struct kt_error *err (may be NULL) receives a one-line reason and the
 *     byte offset in the input where it was found;
 *   - parsed objects point into the caller's buffer, which must outlive them,
 *     and are freed with one call (kt_x509_free, kt_pkcs7_free, ...).
 *
 * Where to start:
 *
 *   Certificates              x509/x509.h
 *     kt_x509_parse(der, len, &cert, err)     a certificate, in place; its
 *                                             ->description is the kernel's
 *     kt_certs_foreach(buf, len, cb, ctx, err)  DER, PEM or a PEM bundle
 *
 *   Keyrings and the store    keys/, policy/, store/store.h
 *     kt_keyrings_new(&rings)                 builtin, secondary, platform,
 *                                             machine, blacklist
 *     kt_keyring_add(rings, ring, der, len, source, how, &key, err)
 *                                             obeys the keyring's restriction
 *     kt_keyrings_add_blob(...)               certificates, PEM, cert lists, ESLs
 *     kt_keyrings_add_kernel_keys(...)        a kernel image's builtin keys
 *     kt_store_open / _begin_write / _load / _save / _commit / _close
 *
 *   Verify a file             ktrust/verify.h
 *     kt_ctx_open(&opts, &ctx, NULL, err)     the store and run-only keys
 *     kt_verify_file(ctx, path, &policy, &res, err)  detect, verify, one result
 *     kt_result_verdict / _error / _signer_*, kt_result_free, kt_ctx_free
 *
 *   Verification, per format
 *     kt_modsig_verify(buf, len, rings, &res, err)       modsig/modsig.h
 *     kt_pkcs7_check(sig, len, data, len, rings, purpose, ...)  pkcs7/pkcs7_check.h
 *     kt_pe_verify(buf, len, rings, &opts, &result, err) pe/pe_verify.h
 *
 *   PE-wrapped keys           wrapped/pe_keys.h, pe/pe.h
 *     kt_pe_build_keylist(certs, n, machine, &img, &len) the unsigned wrapper
 *     kt_pe_load_keys(buf, len, rings, ring, &opts, source, &res, err)
 *                                             verify, then add what it wraps
 *
 *   Sources                   esl/esl.h, kimage/kimage.h
 *     kt_esl_foreach, kt_certlist_foreach, kt_vendor_cert_parse,
 *     kt_kimage_foreach_cert
 *
 *   Whole trees and chains    scan/scan.h, chain/chain.h
 *     kt_scan(paths, n, &opts, fn, ctx, err)  walk, detect, worker threads
 *     kt_chain_new / _add_db / _shim / _loader / _kernel / _module
 *
 * Lower layers, for parsers of your own: der/der.h (a bounds-safe DER/BER
 * cursor), der/oid.h (the OID registry), crypto/crypto.h (digests and
 * signature verification over OpenSSL; no OpenSSL header is exposed).
 */
#ifndef KTRUST_H
#define KTRUST_H

#include "ktrust/error.h"
#include "ktrust/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "chain/chain.h"
#include "esl/esl.h"
#include "keys/blacklist.h"
#include "keys/key.h"
#include "keys/keyring.h"
#include "keys/purpose.h"
#include "keys/trust.h"
#include "kimage/kimage.h"
#include "modsig/modsig.h"
#include "pe/pe.h"
#include "pe/pe_verify.h"
#include "pkcs7/pkcs7.h"
#include "pkcs7/pkcs7_check.h"
#include "policy/cert_trust.h"
#include "policy/keyrings.h"
#include "policy/load.h"
#include "policy/restrict.h"
#include "policy/verify.h"
#include "scan/scan.h"
#include "store/store.h"
#include "wrapped/pe_keys.h"
#include "x509/x509.h"

#ifdef __cplusplus
}
#endif

#endif
