/* result_vp.h - library verification results as verdict_print structs, so
 * that verify-pe, verify-module and scan print them the same way. */
#ifndef KT_CLI_RESULT_VP_H
#define KT_CLI_RESULT_VP_H

#include "modsig/modsig.h"
#include "pe/pe_verify.h"
#include "verdict_print.h"

/* A PE result's signatures (nested ones recursively) as vp_sig arrays. */
struct vp_tree {
    struct vp_sig *sigs;
    struct vp_timestamp *ts;
    struct vp_tree *kids;
    size_t n;
};
int vp_tree_from_pe(struct vp_tree *t, const struct kt_pe_signature *s, size_t n);
void vp_tree_free(struct vp_tree *t);

/* A module result's signers into sigs[cap]; returns the count.  rc and err
 * are kt_modsig_verify's (a message-level failure is shown on the signers). */
size_t vp_sigs_from_module(struct vp_sig *sigs, size_t cap, const struct kt_modsig_result *res,
                           int rc, const struct kt_error *err);

#endif
