#!/usr/bin/env bash
# Trust never widens (issue #11): a key vouches only for the purposes of the
# keyring that holds it.  Platform keys vouch for UEFI images, never for
# modules or detached PKCS#7; user keyrings vouch for nothing unless a run
# names them with --keyring; scan gives every file the verdict of the
# matching single-file command.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
cd "$T"

gen_ca plat "Platform CA"
gen_leaf pleaf "Platform CA" plat
gen_ca sys "System CA"
gen_leaf sleaf "System CA" sys

S=$T/s.db
"$KTRUST" keyring add --store "$S" --keyring platform plat.pem >/dev/null
"$KTRUST" keyring add --store "$S" --keyring builtin sys.pem >/dev/null

mkdir tree
head -c 4000 /dev/urandom > body
sign_module body tree/plat.ko pleaf.pem pleaf.key
sign_module body tree/sys.ko sleaf.pem sleaf.key
printf 'firmware blob\n' > tree/fw.bin
openssl cms -sign -binary -outform DER -signer pleaf.pem -inkey pleaf.key -certfile plat.pem \
    -in tree/fw.bin -out tree/fw.bin.p7s 2>/dev/null
openssl cms -sign -binary -outform DER -nodetach -signer pleaf.pem -inkey pleaf.key \
    -certfile plat.pem -in tree/fw.bin -out tree/plat-attached.p7 2>/dev/null
openssl cms -sign -binary -outform DER -nodetach -signer sleaf.pem -inkey sleaf.key \
    -certfile sys.pem -in tree/fw.bin -out tree/sys-attached.p7 2>/dev/null
"$KTRUST" wrap-key sleaf.pem -o img.efi >/dev/null
sbsign_pe img.efi tree/plat-img.efi pleaf
sbsign_pe img.efi tree/sys-img.efi sleaf

# module signatures carry no certificates: the signer key itself must be in
# a keyring the purpose may use (sleaf enters secondary: sys signed it)
"$KTRUST" keyring add --store "$S" --keyring secondary sleaf.pem >/dev/null

# --- user keyrings vouch for no default purpose -----------------------------
"$KTRUST" keyring create --store "$S" u --restrict signed-by:platform >/dev/null
expect_exit 0 "a platform-signed leaf enters a signed-by:platform keyring" -- "$KTRUST" keyring add --store "$S" --keyring u pleaf.pem
expect_match "$("$KTRUST" keyring list --store "$S" --keyring u --json)" '"trusted":true' "... flagged trusted"
expect_exit 2 "a module signed by that leaf: untrusted" -- "$KTRUST" verify-module --store "$S" tree/plat.ko
expect_match "$("$KTRUST" verify-module --store "$S" tree/plat.ko 2>&1)" "keyring u holds, but u does not vouch for modules" "... the reason names the keyring"
expect_exit 2 "a detached PKCS#7 by that leaf: untrusted" -- "$KTRUST" verify-pkcs7 --store "$S" --data tree/fw.bin tree/fw.bin.p7s
expect_exit 0 "the user names u for the run: trusted" -- "$KTRUST" verify-module --store "$S" --keyring u tree/plat.ko
expect_exit 64 "--keyring of a keyring that does not exist: usage" -- "$KTRUST" verify-module --store "$S" --keyring nosuch tree/plat.ko
expect_exit 64 "--keyring blacklist: usage" -- "$KTRUST" verify-module --store "$S" --keyring blacklist tree/plat.ko

# --- platform keys: UEFI images yes, modules and detached PKCS#7 no ---------
"$KTRUST" keyring add --store "$S" --keyring platform pleaf.pem >/dev/null
expect_exit 2 "module signed by a platform key: untrusted" -- "$KTRUST" verify-module --store "$S" tree/plat.ko
expect_exit 0 "module signed by a secondary key: trusted" -- "$KTRUST" verify-module --store "$S" tree/sys.ko
expect_exit 2 "detached PKCS#7 under a platform CA: untrusted" -- "$KTRUST" verify-pkcs7 --store "$S" --data tree/fw.bin tree/fw.bin.p7s
expect_match "$("$KTRUST" verify-pkcs7 --store "$S" --data tree/fw.bin tree/fw.bin.p7s 2>&1)" \
    "keyring platform holds, but platform does not vouch for modules" "the reason names the keyring that holds the issuer"
expect_exit 0 "PE image under a platform CA: trusted (UEFI purpose)" -- "$KTRUST" verify-pe --store "$S" tree/plat-img.efi
expect_exit 0 "naming platform for the run lets it vouch" -- "$KTRUST" verify-module --store "$S" --keyring platform tree/plat.ko

# --- scan agrees with the single-file commands, file by file ----------------
scan=$("$KTRUST" scan --store "$S" --json -j 2 tree | jq -c 'select(.file)')
n=0
while IFS= read -r f; do
    case "$f" in
    *.ko) single=$("$KTRUST" verify-module --store "$S" --json "$f" | jq -r .verdict) ;;
    *.efi) single=$("$KTRUST" verify-pe --store "$S" --json "$f" | jq -r .verdict) ;;
    *.p7s) single=$("$KTRUST" verify-pkcs7 --store "$S" --json --data "${f%.p7s}" "$f" | jq -r .verdict) ;;
    *.p7) single=$("$KTRUST" verify-pkcs7 --store "$S" --json "$f" | jq -r .verdict) ;;
    *) continue ;;
    esac
    got=$(jq -r --arg f "$f" 'select(.file == $f) | .verdict' <<<"$scan")
    expect_eq "$got" "$single" "scan and the single-file command agree on $f"
    n=$((n + 1))
done < <(find tree -type f | sort)
expect_eq "$n" 7 "seven signed files compared"
expect_eq "$(jq -r 'select(.file == "tree/fw.bin.p7s") | .verdict' <<<"$scan")" untrusted "scan: platform-signed detached PKCS#7 untrusted"
expect_eq "$(jq -r 'select(.file == "tree/plat-attached.p7") | .verdict' <<<"$scan")" untrusted "scan: platform-signed attached PKCS#7 untrusted"
expect_eq "$(jq -r 'select(.file == "tree/sys-attached.p7") | .verdict' <<<"$scan")" trusted "scan: builtin-anchored PKCS#7 trusted"
expect_eq "$(jq -r 'select(.file == "tree/plat-img.efi") | .verdict' <<<"$scan")" trusted "scan: platform-signed PE trusted"

# a bare certificate in a scan: trusted as secondary would accept it
openssl x509 -in pleaf.pem -outform DER -out tree/pleaf.der
openssl x509 -in sleaf.pem -outform DER -out tree/sleaf.der
scan=$("$KTRUST" scan --store "$S" --json tree)
expect_eq "$(jq -r 'select(.file == "tree/pleaf.der") | .verdict' <<<"$scan")" untrusted "scan: a certificate only a platform key signed is untrusted"
expect_eq "$(jq -r 'select(.file == "tree/sleaf.der") | .verdict' <<<"$scan")" trusted "scan: a certificate a builtin key signed is trusted"
finish
