#!/usr/bin/env bash
# load-pe-key and wrap-key (issue #6): wrappers built by wrap-key, signed by
# osslsigncode, sbsign and pesign; only trusted wrappers change the store.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
cd "$T"

gen_ca platform "Stand-in UEFI CA"
gen_leaf signer "Stand-in UEFI CA" platform
gen_ca rogue "Rogue CA"
gen_leaf rsigner "Rogue CA" rogue
gen_self vendor1 "Acme Corp" "Acme Corp Module Signing"
gen_self vendor2 "Acme Corp" "Acme Corp Firmware Key"

S=$T/store.db
listing() { "$KTRUST" keyring list --store "$S" --json 2>&1; }

# --- wrap-key output is a PE that all three signers accept -----------------
expect_exit 0 "wrap-key two certificates" -- "$KTRUST" wrap-key vendor1.pem vendor2.pem -o wrap.efi
osslsign wrap.efi wrap.ossl.efi signer platform; expect_exit 0 "osslsigncode signs the wrapper" -- test -s wrap.ossl.efi
sbsign_pe wrap.efi wrap.sb.efi signer; expect_exit 0 "sbsign signs the wrapper" -- test -s wrap.sb.efi
expect_exit 0 "sbverify verifies the sbsign'd wrapper" -- sbverify --cert signer.pem wrap.sb.efi
if pesign_pe wrap.efi wrap.pesign.efi signer platform; then ok; else bad "pesign signs the wrapper"; fi
expect_exit 0 "sbverify verifies the pesign'd wrapper (pesign embeds the root)" -- sbverify --cert platform.pem wrap.pesign.efi
expect_exit 0 "osslsigncode verifies its own signature" -- osslsigncode verify -ignore-cdp -ignore-crl -CAfile platform.pem -in wrap.ossl.efi

# --- a module signed by the vendor key: untrusted before, trusted after -----
head -c 5000 /dev/urandom > mod.body
sign_module mod.body mod.ko vendor1.pem vendor1.key
expect_exit 66 "a --store that does not exist: 66, not an empty store" -- "$KTRUST" verify-module --store "$S" mod.ko
expect_exit 2 "module untrusted before the wrapper is loaded" -- "$KTRUST" verify-module --trust platform.pem mod.ko

# --- refusals leave the store byte-identical --------------------------------
"$KTRUST" keyring add --store "$S" --keyring platform platform.pem >/dev/null 2>&1
before=$(listing)
wrap_rogue() { "$KTRUST" wrap-key vendor1.pem -o r.efi && osslsign r.efi r.signed.efi rsigner rogue; }
wrap_rogue
expect_exit 2 "wrapper signed by a rogue CA: untrusted" -- "$KTRUST" load-pe-key --store "$S" r.signed.efi
expect_eq "$(listing)" "$before" "store unchanged after an untrusted wrapper"
expect_exit 1 "unsigned wrapper: unsigned" -- "$KTRUST" load-pe-key --store "$S" wrap.efi
expect_eq "$(listing)" "$before" "store unchanged after an unsigned wrapper"
cp wrap.ossl.efi tampered.efi
off=$(grep -obUaP '\x30\x82' vendor1.pem >/dev/null 2>&1; python3 -c "
import sys; d=open('tampered.efi','rb').read(); i=d.find(b'.keylist'); import struct
raw=struct.unpack_from('<I', d, i+20)[0]; print(raw+200)")
flip tampered.efi "$off"
expect_exit 5 "a flipped byte in .keylist: rejected" -- "$KTRUST" load-pe-key --store "$S" tampered.efi
expect_eq "$(listing)" "$before" "store unchanged after a tampered wrapper"
head -c 700 wrap.ossl.efi > trunc.efi
expect_exit 4 "a truncated wrapper: malformed" -- "$KTRUST" load-pe-key --store "$S" trunc.efi
expect_eq "$(listing)" "$before" "store unchanged after a malformed wrapper"
expect_exit 4 "several files, one bad: nothing stored" -- "$KTRUST" load-pe-key --store "$S" --trust platform.pem wrap.ossl.efi trunc.efi
expect_eq "$(listing)" "$before" "store unchanged when one file of several fails"
expect_exit 6 "vouched keys never enter builtin" -- "$KTRUST" load-pe-key --store "$S" --keyring builtin wrap.ossl.efi
expect_eq "$(listing)" "$before" "store unchanged after a refused keyring"
expect_exit 6 "... nor the blacklist" -- "$KTRUST" load-pe-key --store "$S" --keyring blacklist wrap.ossl.efi
expect_eq "$(listing)" "$before" "store unchanged after a refused blacklist target"
expect_exit 64 "an unknown keyring: usage" -- "$KTRUST" load-pe-key --store "$S" --keyring nosuch wrap.ossl.efi

# --- trust never widens: a wrapper only platform vouched for ----------------
# (issue #11.1) the CA is in platform only: the keys it wraps may not become
# secondary or machine keys, which would vouch for modules
err=$("$KTRUST" load-pe-key --store "$S" wrap.ossl.efi 2>&1); rc=$?
expect_eq "$rc" 6 "platform-vouched wrapper into secondary: refused"
expect_match "$err" "only Stand-in UEFI CA Root.* in keyring platform vouched.*--keyring platform" "... saying which keyring vouched and what to do"
expect_eq "$(listing)" "$before" "store unchanged after the refusal"
expect_exit 6 "... into machine: refused" -- "$KTRUST" load-pe-key --store "$S" --keyring machine wrap.ossl.efi
expect_eq "$(listing)" "$before" "store unchanged"
expect_exit 2 "the module stays untrusted" -- "$KTRUST" verify-module --store "$S" mod.ko
cp "$S" "$T/plat.db"
expect_exit 0 "into platform: loaded" -- "$KTRUST" load-pe-key --store "$T/plat.db" --keyring platform wrap.ossl.efi
expect_eq "$("$KTRUST" keyring list --store "$T/plat.db" --keyring platform --json | grep -c 'Acme Corp')" 2 "both wrapped keys in platform"
expect_exit 2 "a module signed by a platform key is not trusted" -- "$KTRUST" verify-module --store "$T/plat.db" mod.ko
# a PE image signed by the wrapped key is trusted as a UEFI image from platform
"$KTRUST" wrap-key vendor2.pem -o img.efi >/dev/null 2>&1
sbsign_pe img.efi img.signed.efi vendor1
expect_exit 0 "a UEFI image signed by the platform-loaded key: trusted" -- "$KTRUST" verify-pe --store "$T/plat.db" img.signed.efi
expect_exit 0 "... and by a builtin anchor given with --trust: secondary allowed" -- "$KTRUST" load-pe-key --store "$T/anchor.db" --trust platform.pem wrap.ossl.efi
expect_exit 0 "the module is trusted through the builtin-anchored wrapper" -- "$KTRUST" verify-module --store "$T/anchor.db" mod.ko
# a user keyring's own restriction applies to wrapped keys (issue #11.2)
"$KTRUST" keyring create --store "$T/anchor.db" onlyplat --restrict signed-by:platform >/dev/null 2>&1
expect_exit 6 "keyring add refuses vendor2 into a signed-by:platform keyring" -- "$KTRUST" keyring add --store "$T/anchor.db" --keyring onlyplat vendor2.pem
expect_exit 6 "... and so does load-pe-key through a wrapper" -- "$KTRUST" load-pe-key --store "$T/anchor.db" --trust platform.pem --keyring onlyplat wrap.ossl.efi
expect_eq "$("$KTRUST" keyring list --store "$T/anchor.db" --keyring onlyplat --json | grep -c .)" 0 "onlyplat stays empty"

# --- the trusted wrappers: keys land in secondary, flagged trusted ----------
for w in wrap.ossl.efi wrap.sb.efi wrap.pesign.efi; do
    S2=$T/s-$w.db
    "$KTRUST" keyring add --store "$S2" --keyring builtin platform.pem >/dev/null 2>&1
    expect_exit 0 "load-pe-key $w (its CA in builtin)" -- "$KTRUST" load-pe-key --store "$S2" "$w"
    n=$("$KTRUST" keyring list --store "$S2" --keyring secondary --json | grep -c '"trusted":true')
    expect_eq "$n" 2 "$w: both wrapped keys in secondary, trusted"
done
out=$("$KTRUST" load-pe-key --store "$S" --trust platform.pem --json wrap.ossl.efi)
expect_match "$out" '"verdict":"trusted"' "JSON verdict"
expect_match "$out" '"wrapped":".keylist"' "JSON names the section"
expect_match "$out" "\"sha256\":\"$(openssl x509 -in vendor1.pem -outform DER | sha256sum | cut -c1-64)\"" "JSON lists vendor1 by its sha256"
expect_exit 0 "module trusted once the wrapper is loaded" -- "$KTRUST" verify-module --store "$S" mod.ko
expect_exit 0 "the same with --trust instead of a platform key" -- "$KTRUST" load-pe-key --store "$T/t.db" --trust platform.pem wrap.ossl.efi

# --- shim's .vendor_cert layout: DER form, ESL form, and a vendor dbx --------
openssl x509 -in vendor1.pem -outform DER -out vendor1.der
efi esl --sha256 "$(printf 'revoked image' | sha256sum | cut -c1-64)" -o vdbx.esl
expect_exit 0 "wrap-key --vendor-cert, one certificate (DER form)" -- "$KTRUST" wrap-key --vendor-cert vendor1.pem -o vc1.efi
expect_exit 0 "wrap-key --vendor-cert --esl with a dbx" -- "$KTRUST" wrap-key --vendor-cert --esl --dbx vdbx.esl vendor1.pem vendor2.pem -o vc2.efi
osslsign vc1.efi vc1.s.efi signer platform
sbsign_pe vc2.efi vc2.s.efi signer
expect_exit 0 "sbverify accepts the .vendor_cert wrapper" -- sbverify --cert signer.pem vc2.s.efi
out=$("$KTRUST" load-pe-key --store "$T/vc1.db" --trust platform.pem --json vc1.s.efi)
expect_match "$out" '"wrapped":".vendor_cert"' "DER-form .vendor_cert found"
expect_match "$out" "\"sha256\":\"$(sha256sum vendor1.der | cut -c1-64)\"" "... and its certificate loaded"
out=$("$KTRUST" load-pe-key --store "$T/vc2.db" --trust platform.pem --json vc2.s.efi)
expect_eq "$("$KTRUST" keyring list --store "$T/vc2.db" --keyring secondary --json | grep -c '"trusted":true')" 2 "ESL-form authorized list: both certificates in secondary, trusted"
expect_match "$out" '"blacklisted":1' "the vendor dbx entry went to the blacklist"
expect_match "$("$KTRUST" keyring list --store "$T/vc2.db" --keyring blacklist)" "$(python3 -c "import hashlib; print(hashlib.sha256(b'revoked image').hexdigest())")" "... with the right hash"
printf 'not an esl' > bad.esl
expect_exit 4 "a malformed --dbx is refused" -- "$KTRUST" wrap-key --vendor-cert --dbx bad.esl vendor1.pem -o bad.efi

# --- the corpus: shim wraps the Debian CA in .vendor_cert -------------------
corpus
D=$CORPUS/debian
for ca in microsoft-uefi-ca-2011 microsoft-uefi-ca-2023; do
    SC=$T/shim-$ca.db
    out=$("$KTRUST" load-pe-key --store "$SC" --trust "$CORPUS/trust/$ca.pem" --json "$D/shimx64.efi.signed")
    expect_match "$out" '"sha256":"079646974bce09b1f04da67bd722d1fb0947ae4c4010bccdbba52d5b23cbf1a2"' "$ca: shim loads the Debian Secure Boot CA"
    expect_match "$out" '"blacklisted":[1-9]' "$ca: shim's vendor dbx goes to the blacklist"
    expect_exit 0 "$ca: GRUB trusted from the store alone" -- "$KTRUST" verify-pe --store "$SC" "$D/grubx64.efi.signed"
    expect_exit 0 "$ca: vmlinuz trusted from the store alone" -- "$KTRUST" verify-pe --store "$SC" "$D/vmlinuz-6.1.0-57-amd64"
done
# with the Microsoft CA only in platform (as the UEFI db puts it there), shim's
# Debian CA may load into platform only: it then vouches for GRUB and the
# kernel image, never for modules (issue #11.1)
SP=$T/shim-platform.db
"$KTRUST" keyring add --store "$SP" --keyring platform "$CORPUS/trust/microsoft-uefi-ca-2011.pem" >/dev/null 2>&1
expect_exit 6 "MS CA in platform: shim's Debian CA refused for secondary" -- "$KTRUST" load-pe-key --store "$SP" "$D/shimx64.efi.signed"
expect_eq "$("$KTRUST" keyring list --store "$SP" --keyring secondary --json | grep -c .)" 0 "secondary stays empty"
expect_exit 0 "... and loaded with --keyring platform" -- "$KTRUST" load-pe-key --store "$SP" --keyring platform "$D/shimx64.efi.signed"
expect_match "$("$KTRUST" keyring list --store "$SP" --keyring platform --json)" '079646974bce09b1f04da67bd722d1fb0947ae4c4010bccdbba52d5b23cbf1a2' "the Debian CA is in platform"
expect_exit 0 "GRUB trusted as a UEFI image from platform" -- "$KTRUST" verify-pe --store "$SP" "$D/grubx64.efi.signed"
expect_exit 0 "vmlinuz trusted as a UEFI image from platform" -- "$KTRUST" verify-pe --store "$SP" "$D/vmlinuz-6.1.0-57-amd64"
SR=$T/shim-rogue.db
expect_exit 2 "shim with a rogue CA only: untrusted" -- "$KTRUST" load-pe-key --store "$SR" --trust rogue.pem "$D/shimx64.efi.signed"
expect_eq "$(test -e "$SR" && echo created)" "" "... a load-pe-key that stores nothing creates no store"
expect_exit 66 "... so GRUB cannot be verified from it" -- "$KTRUST" verify-pe --store "$SR" "$D/grubx64.efi.signed"
SG=$T/grub.db
err=$("$KTRUST" load-pe-key --store "$SG" --trust "$T/shim-microsoft-uefi-ca-2011.db" "$D/grubx64.efi.signed" 2>&1)
"$KTRUST" keyring export --store "$T/shim-microsoft-uefi-ca-2011.db" --keyring secondary --format pem -o debca.pem >/dev/null 2>&1
err=$("$KTRUST" load-pe-key --store "$SG" --trust debca.pem "$D/grubx64.efi.signed" 2>&1); rc=$?
expect_eq "$rc" 4 "a trusted image that wraps no keys is an error"
expect_match "$err" "neither a .keylist nor a .vendor_cert" "... that says so"
finish
