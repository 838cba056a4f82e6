#!/bin/bash
# verify-var on updates generated as EDK2's tools make them (python3-
# cryptography: detached PKCS#7, no authenticated attributes, raw
# SignedData): append vs replace, partial chains and expired signers, the
# PK rule for PK/KEK, SHA-256 only, EFI_TIME and WIN_CERTIFICATE rules, the
# payload as firmware checks it, and look-alike authorities.
. "$(dirname "$0")/../lib/common.sh"
need_python_cryptography
for tool in openssl jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
"$PY" "$KT_SRC/tests/fixtures/gen_authvar.py" . || { echo "fixture generation failed"; exit 1; }
VV() { "$KTRUST" verify-var "$@"; }
put() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

# db: append and replace; signer -> intermediate in the message, KEK CA given
expect_eq "$(VV --json --var db --kek kekca.der db-append.auth | jq -r '[.verdict, .write] | join(" ")')" \
    "trusted append" "db append"
expect_eq "$(VV --json --var db --kek kekca.der db-replace.auth | jq -r '[.verdict, .write] | join(" ")')" \
    "trusted replace" "db replace"
expect_exit 0 "the intermediate itself as KEK" -- VV --var db --kek kekint.der db-append.auth
expect_exit 0 "the signer itself as KEK" -- VV --var db --kek signer.der db-append.auth
expect_exit 0 "signed by the PK" -- VV --var db --pk pk.der db-by-pk.auth
expect_exit 2 "signed by the PK, only a KEK given" -- VV --var db --kek kekca.der db-by-pk.auth
expect_exit 2 "another certificate as KEK" -- VV --var db --kek other.der db-append.auth
expect_exit 2 "a look-alike KEK CA (same name, other key)" -- VV --var db --kek rogue.der db-append.auth
expect_exit 2 "a look-alike chain against the real KEK CA" -- VV --var db --kek kekca.der db-rogue.auth
# every signer needs an authority, past 16 signers too (EDK2's Pkcs7Verify
# checks each one; ktrust checked only the first 16 and called this trusted)
expect_exit 0 "17 signers, each the KEK CA" -- VV --var db --kek kekca.der db-17-signers.auth
expect_exit 2 "17 signers, the 17th vouched for by nothing" -- VV --var db --kek kekca.der db-17th-unknown.auth
expect_match "$(VV --var db --kek kekca.der db-17th-unknown.auth)" \
    "signature 16: sha256, untrusted \(no PK/KEK certificate vouches for this signer\)" \
    "... and the 17th signer is the one shown untrusted"
# the signer expired a month before the update's time: firmware ignores dates
expect_match "$(openssl x509 -inform DER -in signer.der -noout -enddate)" "2025" "signer expired"
# an ESL and an efivarfs-style dump as --kek
efi esl --x509 kekca.der -o kek.esl
efi efivar --attrs 0x27 kek.esl -o KEK-dump
expect_exit 0 "--kek ESL" -- VV --var db --kek kek.esl db-append.auth
expect_exit 0 "--kek efivarfs dump" -- VV --var db --kek KEK-dump db-append.auth
expect_exit 0 "several --kek" -- VV --var db --kek other.der --kek kekca.der db-append.auth

# oracle: openssl over ktrust's signed bytes with the same anchors
"$PY" "$KT_SRC/tests/fixtures/authvar_p7.py" db-append.auth p7.der
VV --var db --kek kekca.der --signed-data sd.bin db-append.auth >/dev/null
openssl x509 -inform DER -in kekca.der -out kekca.pem
openssl x509 -inform DER -in rogue.der -out rogue.pem
openssl cms -verify -binary -partial_chain -no_check_time -purpose any -inform DER -in p7.der \
    -content sd.bin -CAfile kekca.pem >/dev/null 2>&1
expect_eq $? 0 "openssl: the KEK CA vouches over ktrust's signed bytes"
openssl cms -verify -binary -partial_chain -no_check_time -purpose any -inform DER -in p7.der \
    -content sd.bin -CAfile rogue.pem >/dev/null 2>&1
expect_eq $? 4 "openssl: the look-alike does not"

# dbx with image hashes and an SVN record
j=$(VV --json --list --var dbx --kek kekca.der dbx-svn.auth)
expect_eq "$(jq -c '.payload | [.sha256, .svn]' <<<"$j")" '[2,1]' "dbx: 2 hashes, 1 SVN record"
expect_eq "$(jq -c '.entries[2].value' <<<"$j")" \
    '{"version":1,"guid":"9d132b61-59d5-4388-ab1c-185c3cb2eb92","major":9,"minor":0}' "SVN decoded"
expect_eq "$(jq -r '.entries[0].value' <<<"$j")" \
    000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f "hash value"

# PK and KEK updates: the top certificate must be the PK itself
expect_exit 0 "KEK update signed by the PK" -- VV --var KEK --pk pk.der kek-by-pk.auth
expect_exit 2 "KEK update signed by the KEK CA, --pk given" -- VV --var KEK --pk pk.der kek-by-kek.auth
expect_exit 2 "KEK update: a KEK does not authorise it" -- VV --var KEK --kek kekca.der kek-by-kek.auth
expect_exit 2 "KEK update, another PK" -- VV --var KEK --pk other.der kek-by-pk.auth
expect_exit 0 "PK replace signed by the PK" -- VV --var PK --pk pk.der pk-replace.auth
out=$(VV --var PK --pk pk.der pk-two.auth 2>&1)
expect_eq $? 4 "PK payload with two entries"
expect_match "$out" "PK payload holds 2 entries" "PK payload reason"

# SHA-256 only
out=$(VV --var db --kek kekca.der db-sha384.auth)
expect_eq $? 3 "SHA-384 digest: unsupported"
expect_match "$out" "digest sha384: refused by EDK2 2022.11 \(Debian 12's OVMF\), accepted from edk2-stable202311" \
    "SHA-384 reason: the firmware generation (EDK2 bbf1822295)"
expect_eq "$(VV --json --var db --kek kekca.der db-sha384.auth | jq -r .accepted_from)" edk2-stable202311 \
    "JSON: accepted_from"
# ContentInfo-wrapped: EDK2 reads SHA-256's OID at byte 13 of a bare
# SignedData, so it refuses the update (AuthService.c): rejected, flagged
out=$(VV --json --var db --kek kekca.der db-wrapped.auth 2>err.txt)
expect_eq $? 5 "ContentInfo-wrapped: rejected, as EDK2 rejects it"
expect_eq "$(jq -r .content_info_wrapped <<<"$out")" true "content_info_wrapped"
expect_match "$out" "byte 13" "the reason names EDK2's fixed-offset check"
expect_match "$out" "refused by EDK2 2022.11 \(Debian 12's OVMF\), accepted from edk2-stable202302" \
    "ContentInfo: the firmware generation (EDK2 37d3eb026a)"
expect_eq "$(jq -r .accepted_from <<<"$out")" edk2-stable202302 "JSON: accepted_from"
expect_eq "$(VV --json --var db --kek kekca.der db-append.auth | jq -r .accepted_from)" null \
    "accepted_from: null when 2022.11 accepts"
# neither attribute set: rejected
expect_exit 5 "attributes 0x07: rejected" -- VV --var db --kek kekca.der db-attrs.auth
# the payload as firmware checks it
out=$(VV --var db --kek kekca.der db-unknown.auth 2>&1)
expect_eq $? 4 "unknown SignatureType"
expect_match "$out" "unknown SignatureType" "unknown type reason"
# EDK2's CheckSignatureListFormat (end of VerifyTimeBasedPayload): the first
# entry of each X509 list of PK, KEK, db, dbx, dbt must hold an RSA key, in
# user mode too; ktrust used to accept these (real OVMF: EINVAL, boot test
# guest_writes)
out=$(VV --var db --kek kekca.der db-ec.auth 2>&1)
expect_eq $? 3 "db update with an EC certificate: refused (unsupported)"
expect_match "$out" "entry 0 is an ecdsa certificate: firmware refuses the write \(EDK2 CheckSignatureListFormat" \
    "EC reason"
expect_exit 3 "dbx update with an EC certificate" -- VV --var dbx --kek kekca.der dbx-ec.auth
expect_exit 3 "KEK update with an EC certificate" -- VV --var KEK --pk pk.der kek-ec.auth
out=$(VV --json --var db --kek kekca.der db-notcert.auth)
expect_eq $? 4 "db update whose X509 entry is not a certificate: malformed"
expect_match "$(jq -r .reason <<<"$out")" "entry 0 is not a certificate .*: firmware refuses the write" \
    "not-a-certificate reason"
expect_exit 0 "dbr is not format-checked by EDK2" -- VV --var dbr --kek kekca.der dbr-ec.auth
expect_exit 0 "an EC certificate second in its list: EDK2 checks the first only" -- \
    VV --var db --kek kekca.der db-ec-second.auth

# EFI_TIME and WIN_CERTIFICATE rules
expect_exit 4 "Nanosecond set" -- VV --var db --kek kekca.der db-nano.auth
expect_exit 4 "TimeZone set" -- VV --var db --kek kekca.der db-tz.auth
for off in 7 14 15; do
    cp db-append.auth t.auth; put t.auth $off '\x01'
    expect_exit 4 "EFI_TIME byte $off set" -- VV --var db --kek kekca.der t.auth
done
cp db-append.auth t.auth; put t.auth 2 '\x0d'
expect_exit 4 "month 13" -- VV --var db --kek kekca.der t.auth
cp db-append.auth t.auth; put t.auth 4 '\x09'
expect_exit 5 "the hour changed: the timestamp is signed" -- VV --var db --kek kekca.der t.auth
cp db-append.auth t.auth; put t.auth 20 '\x00\x01'
out=$(VV --var db --kek kekca.der t.auth 2>&1)
expect_eq $? 4 "revision 0x0100"
expect_match "$out" "wRevision is 0x0100, must be 0x0200 \(at offset 20\)" "revision error line"
cp db-append.auth t.auth; put t.auth 22 '\x02\x00'
expect_exit 4 "type 0x0002" -- VV --var db --kek kekca.der t.auth
cp db-append.auth t.auth; put t.auth 16 '\xff\xff\xff\x00'
expect_exit 4 "dwLength past the end" -- VV --var db --kek kekca.der t.auth
cp db-append.auth t.auth; put t.auth 16 '\x10\x00\x00\x00'
expect_exit 4 "dwLength below the header" -- VV --var db --kek kekca.der t.auth
len=$(od -An -tu4 -j16 -N4 db-append.auth | tr -d ' ')
cp db-append.auth t.auth
put t.auth 16 "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(((len + 1) & 255)) $(((len + 1) >> 8 & 255)) 0 0)"
expect_exit 4 "a byte after the PKCS#7 inside dwLength" -- VV --var db --kek kekca.der t.auth
cp db-append.auth t.auth; put t.auth 24 '\x00'
expect_exit 1 "CertType not PKCS#7: not a signed update" -- VV --var db --kek kekca.der t.auth
head -c 30 db-append.auth > t.auth
expect_exit 1 "truncated header" -- VV --var db t.auth
# a certificate byte inside the signed data message changed
cp db-append.auth t.auth; put t.auth 200 '\x00'
VV --var db --kek kekca.der t.auth >/dev/null 2>&1
rc=$?
[ $rc = 4 ] || [ $rc = 5 ] || [ $rc = 2 ]; expect_eq $? 0 "a changed PKCS#7 byte is never trusted (got $rc)"
# usage
expect_exit 64 "unknown --var" -- VV --var Boot0000 db-append.auth
expect_exit 64 "no file" -- VV --var db
expect_exit 66 "unreadable --kek" -- VV --var db --kek nonexistent db-append.auth
expect_exit 66 "missing file" -- VV --var db nonexistent
expect_eq "$(VV --json --var db nonexistent 2>/dev/null | jq -r '[.type, .verdict, .error] | join(" ")')" \
    "$(printf 'variable  ENOENT\nsummary  nonexistent: cannot open: No such file or directory')" \
    "unreadable: its JSON line, then the summary with the error"
finish
