#!/bin/bash
# verify-ima with the store's own `ima` keyring (`keyring create ima
# --restrict signed-by:builtin,secondary`, the kernel's .ima rule): keys
# the builtin CA signed are taken, a stray one is refused at `keyring add`
# (6) and a signature by it is unknown; verifying never writes the store.
# Signatures come as evmctl --sigfile files: no xattrs, no root needed.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
command -v evmctl >/dev/null || { echo "skipped: evmctl not installed (scripts/deps.sh)"; exit 77; }
cd "$T" || exit 1
S=(--store "$T/s.db")
gen_ca ca "IMA CA"
gen_leaf imakey "IMA" ca
gen_leaf second "Second" ca
gen_ca other "Other CA"
gen_leaf stray "Stray" other
"$KTRUST" keyring add "${S[@]}" --keyring builtin ca.pem 2>/dev/null
expect_exit 0 "keyring create ima" -- "$KTRUST" keyring create "${S[@]}" ima --restrict signed-by:builtin,secondary
expect_exit 0 "an .ima key the CA signed" -- "$KTRUST" keyring add "${S[@]}" --keyring ima imakey.pem
expect_exit 6 "the stray key is refused" -- "$KTRUST" keyring add "${S[@]}" --keyring ima stray.pem
for k in imakey stray second; do
    head -c 777 /dev/urandom >f.$k
    evmctl ima_sign --sigfile --key $k.key f.$k >/dev/null 2>&1
done
before=$(sha256sum s.db)
expect_exit 0 "signed by the store's .ima key" -- "$KTRUST" verify-ima --sigfile "${S[@]}" f.imakey
expect_exit 2 "signed by a key .ima refused" -- "$KTRUST" verify-ima --sigfile "${S[@]}" f.stray
expect_exit 2 "signed by a key the CA signed but not in .ima" -- "$KTRUST" verify-ima --sigfile "${S[@]}" f.second
# --ima-key adds for the run, through the same restriction
expect_exit 0 "--ima-key for the run" -- "$KTRUST" verify-ima --sigfile "${S[@]}" --ima-key second.pem f.second
expect_exit 6 "--ima-key refused for the run" -- "$KTRUST" verify-ima --sigfile "${S[@]}" --ima-key stray.pem f.stray
# a bundle is one key per certificate, as the kernel links each on its own:
# the one the restriction refuses (stray, first) is set aside, the next
# (second, the CA signed it) is still linked (the old code stopped at the
# refusal and called both refused)
cat stray.pem second.pem >bundle.pem
expect_exit 0 "--ima-key bundle: a refused certificate does not stop the next" -- \
    "$KTRUST" verify-ima --sigfile "${S[@]}" --ima-key bundle.pem f.second
expect_exit 6 "--ima-key bundle: the refused one is refused" -- \
    "$KTRUST" verify-ima --sigfile "${S[@]}" --ima-key bundle.pem f.stray
expect_match "$("$KTRUST" verify-ima --sigfile "${S[@]}" --ima-key bundle.pem f.second 2>&1 >/dev/null)" \
    "bundle.pem: 1 certificate refused by the .ima restriction" "one of the two refused"
# restrict_link_to_ima vouches by builtin and secondary only, never by .ima
# itself: a key an .ima key signed stays out, even linked right after it
gen_leaf sub "Sub" second
head -c 555 /dev/urandom >f.sub
evmctl ima_sign --sigfile --key sub.key f.sub >/dev/null 2>&1
cat second.pem sub.pem >chain.pem
expect_exit 6 "a key signed by an .ima key: refused" -- \
    "$KTRUST" verify-ima --sigfile "${S[@]}" --ima-key chain.pem f.sub
expect_eq "$(sha256sum s.db)" "$before" "verifying wrote nothing to the store"
expect_eq "$("$KTRUST" keyring list "${S[@]}" --keyring ima | wc -l)" 1 "the store's .ima holds one key"
# --sigfile with no FILE.sig: unsigned; a missing file: 66
: >plain
expect_exit 1 "no FILE.sig" -- "$KTRUST" verify-ima --sigfile "${S[@]}" plain
expect_exit 66 "missing file" -- "$KTRUST" verify-ima "${S[@]}" nope
# FILE.sig is found by its name, not given: a FIFO there is no signature
# and must not block the run (the old code hung in open: timeout's 124)
: >fifo; mkfifo fifo.sig
expect_exit 66 "FILE.sig a FIFO: not a regular file, no hang" -- timeout 10 "$KTRUST" verify-ima --sigfile "${S[@]}" fifo
finish
