#!/bin/bash
# Long section names ("/N", read from the COFF string table) only from
# signed bytes (issue #11 item 8).  Authenticode leaves the certificate
# table and the gaps between sections out of the image digest, so a string
# table there lets anyone rename a signed section after signing: a section
# that was no key container becomes `.vendor_cert` and its certificate is
# loaded.  Such an image is malformed (4) for every command; a string table
# in hashed bytes (wrap-key's, shim's) still works.  Oracles: sbverify and
# pesign -h (the rename leaves the signature valid and the digest unchanged:
# the bytes really are unsigned).
. "$(dirname "$0")/../lib/common.sh"
. "$KT_SRC/tests/fixtures/pe_fixtures.sh"
for tool in sbsign sbverify pesign python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
pe_fixtures "$T" || { echo "fixture generation failed"; exit 1; }
cd "$T" || exit 1
PY="python3 $KT_SRC/tests/fixtures/pe_strtab.py"
sign() { sbsign --key "$3.key" --cert "$3.pem" --output "$2" "$1" >/dev/null 2>&1; }
load() { "$KTRUST" load-pe-key -q --store "$T/$1.db" --trust ca.pem "$2"; }
hash() { pesign -h -i "$1" | sed -n 's/^hash: //p'; }

# the vendor key: wrap-key's .vendor_cert (a "/4" name, its string table
# after the section data, inside the digest)
"$KTRUST" wrap-key -q rogue.pem --vendor-cert -o vc.efi
sign vc.efi vc.signed.efi leaf
expect_exit 0 "control: string table in hashed bytes: loads" -- load control vc.signed.efi
expect_match "$("$KTRUST" keyring list --store "$T/control.db" --keyring secondary)" "rogue CA" "control: the vendor key is in secondary"

# 1. the string table in a gap between sections: renamed after signing
$PY gap vc.efi gap.efi .vendor_cerX
sign gap.efi gap.signed.efi leaf
cp gap.signed.efi gap.renamed.efi
$PY rename gap.renamed.efi .vendor_cert
expect_eq "$(hash gap.renamed.efi)" "$(hash gap.signed.efi)" "gap: the rename leaves pesign's digest unchanged"
sbverify --cert ca.pem gap.renamed.efi >/dev/null 2>&1
expect_eq $? 0 "gap: sbverify still verifies the renamed image"
expect_exit 4 "gap: renamed section refused by load-pe-key (malformed)" -- load gap gap.renamed.efi
expect_eq "$("$KTRUST" keyring list --store "$T/gap.db" --keyring secondary 2>/dev/null | grep -c 'rogue CA')" 0 \
    "gap: the vendor key is not loaded"
msg=$("$KTRUST" load-pe-key --store "$T/gap.db" --trust ca.pem gap.renamed.efi 2>&1)
expect_match "$msg" "ktrust: gap.renamed.efi: .*string table.*not covered by the image digest \(at offset [0-9]+\)" \
    "gap: the error names the string table"
expect_exit 4 "gap: verify-pe says malformed too" -- "$KTRUST" verify-pe -q --trust ca.pem gap.renamed.efi
expect_exit 4 "gap: even before the rename" -- "$KTRUST" verify-pe -q --trust ca.pem gap.signed.efi

# 2. the string table inside the certificate table: the signer's certificate
# carries, in a private extension, a string-table size and ".vendor_cert\0";
# the image's PointerToSymbolTable (signed) points at it after signing
printf '%s\n' basicConstraints=CA:FALSE keyUsage=digitalSignature extendedKeyUsage=codeSigning \
    subjectKeyIdentifier=hash authorityKeyIdentifier=keyid \
    1.3.6.1.4.1.55555.1=DER:000100002e76656e646f725f6365727400 > mk.ext
openssl req -new -newkey rsa:2048 -nodes -keyout mk.key -out mk.csr -subj "/O=ktrust test/CN=marker signer" 2>/dev/null
openssl x509 -req -in mk.csr -CA ca.pem -CAkey ca.key -set_serial 77 -days 3650 -extfile mk.ext -out mk.pem 2>/dev/null
$PY point vc.efi ct0.efi 0                       # no string table: the section is "/4"
sign ct0.efi ct0.signed.efi mk
at=$($PY find ct0.signed.efi 000100002e76656e646f725f6365727400)
$PY point vc.efi ct.efi "$at"                    # past the end of the unsigned file
sign ct.efi ct.signed.efi mk
expect_eq "$($PY find ct.signed.efi 000100002e76656e646f725f6365727400)" "$at" "certtable: the marker is where the header points"
sbverify --cert ca.pem ct.signed.efi >/dev/null 2>&1
expect_eq $? 0 "certtable: sbverify verifies the image"
expect_exit 4 "certtable: section named from the certificate table refused (malformed)" -- load ct ct.signed.efi
expect_eq "$("$KTRUST" keyring list --store "$T/ct.db" --keyring secondary 2>/dev/null | grep -c 'rogue CA')" 0 \
    "certtable: the vendor key is not loaded"
msg=$("$KTRUST" load-pe-key --store "$T/ct0.db" --trust ca.pem ct0.signed.efi 2>&1)
expect_match "$msg" "neither a .keylist nor a .vendor_cert" "certtable control: with no string table the section is only /4: no keys"

# shim's own string table is in hashed bytes: it still loads the Debian CA
c=${KTRUST_CORPUS:-$KT_SRC/../shared/corpus}
if [ -f "$c/debian/shimx64.efi.signed" ]; then
    expect_exit 0 "corpus shim still loads its .vendor_cert" -- "$KTRUST" load-pe-key -q --store "$T/shim.db" \
        --trust "$c/trust/microsoft-uefi-ca-2011.pem" "$c/debian/shimx64.efi.signed"
    expect_match "$("$KTRUST" keyring list --store "$T/shim.db" --keyring secondary)" "Debian Secure Boot CA" \
        "corpus shim: the Debian CA is loaded"
elif [ -n "${CI:-}" ]; then
    bad "corpus not found but CI is set"
else
    echo "note: corpus not found: the shim case is skipped"
fi
finish
