#!/bin/bash
# wrap-key: the unsigned PE32+ wrapper and what signing tools make of it.
. "$(dirname "$0")/../lib/common.sh"
. "$KT_SRC/tests/fixtures/pe_fixtures.sh"
for tool in sbsign sbverify pesign osslsigncode objdump objcopy certutil pk12util; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
pe_fixtures "$T" || { echo "fixture generation failed"; exit 1; }
pesign_db "$T" leaf
cd "$T" || exit 1
openssl x509 -in leaf.pem -outform DER -out leaf.der
openssl x509 -in noeku.pem -outform DER -out noeku.der
cat ca.pem tls.pem > bundle.pem

# DER + PEM + PEM bundle inputs, back to back in .keylist, in order
expect_exit 0 "wrap-key several inputs" -- "$KTRUST" wrap-key leaf.der noeku.pem bundle.pem -o k.efi
openssl x509 -in ca.pem -outform DER -out ca.der
openssl x509 -in tls.pem -outform DER -out tls.der
cat leaf.der noeku.der ca.der tls.der > want.bin
objcopy -O binary --only-section=.keylist k.efi got.bin
cmp -s got.bin want.bin && ok || bad ".keylist holds the DER certificates back to back"
expect_match "$(objdump -x k.efi)" "Subsystem[[:space:]]+0+a[[:space:]]+\(EFI application\)" "subsystem EFI application"
expect_match "$(objdump -f k.efi)" "pei-x86-64" "x64 PE32+"
"$KTRUST" wrap-key -q --machine aa64 leaf.pem -o a.efi
expect_match "$(objdump -f a.efi 2>/dev/null; od -An -tx1 -j$(( $(od -An -tu4 -j60 -N4 a.efi) + 4 )) -N2 a.efi)" "64 aa" "aa64 machine"
expect_eq "$(pesign -h -i k.efi | sed -n 's/^hash: //p')" \
    "$(sbsign --key leaf.key --cert leaf.pem --output k.sb.efi k.efi >/dev/null 2>&1; pesign -h -i k.sb.efi | sed -n 's/^hash: //p')" \
    "signing leaves the image digest unchanged"

# every signer accepts it; the peers verify the result
sbverify --cert ca.pem k.sb.efi >/dev/null 2>&1
expect_eq $? 0 "sbverify verifies the sbsign-signed wrapper"
pesign -n nss -c leaf -i k.efi -o k.ps.efi -s >/dev/null 2>&1
expect_eq $? 0 "pesign signs the wrapper"
sbverify --cert ca.pem k.ps.efi >/dev/null 2>&1
expect_eq $? 0 "sbverify verifies the pesign-signed wrapper"
osslsigncode sign -certs chain.pem -key leaf.key -in k.efi -out k.oss.efi >/dev/null 2>&1
expect_eq $? 0 "osslsigncode signs the wrapper"
osslsigncode verify -ignore-cdp -ignore-crl -CAfile ca.pem -in k.oss.efi >/dev/null 2>&1
expect_eq $? 0 "osslsigncode verifies its signature"
for f in k.sb.efi k.ps.efi k.oss.efi; do
    expect_exit 0 "verify-pe trusts $f" -- "$KTRUST" verify-pe -q --trust ca.pem $f
done
expect_exit 1 "the unsigned wrapper is unsigned" -- "$KTRUST" verify-pe -q --trust ca.pem k.efi

# errors
expect_exit 64 "no -o" -- "$KTRUST" wrap-key leaf.pem
expect_exit 64 "no certificate" -- "$KTRUST" wrap-key -o x.efi
expect_exit 64 "bad machine" -- "$KTRUST" wrap-key --machine mips leaf.pem -o x.efi
expect_exit 66 "missing input" -- "$KTRUST" wrap-key nosuch.pem -o x.efi
printf 'not a certificate' > junk.txt
"$KTRUST" wrap-key junk.txt -o x.efi >/dev/null 2>&1; rc=$?
[ $rc = 1 ] || [ $rc = 4 ] && ok || bad "junk input: exit $rc, want 1 or 4"
[ ! -e x.efi ] && ok || bad "no output written on error"
finish
