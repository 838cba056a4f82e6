#!/bin/bash
# verify-var on Microsoft's signed updates in the corpus: every DBX/DB file
# verifies with the KEK CA 2011 from a real KEK dump (append write), the KEK
# updates with their own signer as PK; a changed payload byte is rejected.
# Oracle: openssl cms -verify -binary -partial_chain -no_check_time over the
# signed bytes ktrust rebuilds (--signed-data) and over bytes this script
# builds itself.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in openssl jq python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
S=$CORPUS/peers/secureboot-objects
KEK=$CORPUS/peers/shim-efivars/efivars-1/KEK-8be4df61-93ca-11d2-aa0d-00e098032b8c
IMGDB=d719b2cb-3d3a-4596-a3bc-dad00e67656f
GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
openssl x509 -inform DER -in "$S/certs/MicCorKEKCA2011_2011-06-24.der" -out kekca.pem

# split FILE NAME GUID ATTRS: p7.der (ContentInfo around the raw SignedData)
# and data.bin (name UTF-16LE, GUID, attributes, EFI_TIME, payload), built
# here independently of ktrust
split() {
    python3 "$KT_SRC/tests/fixtures/authvar_p7.py" "$1" p7.der && python3 - "$@" <<'PY'
import struct, sys, uuid
f, name, guid, attrs = sys.argv[1:5]
d = open(f, "rb").read()
l = struct.unpack("<I", d[16:20])[0]
open("data.bin", "wb").write(name.encode("utf-16-le") + uuid.UUID(guid).bytes_le +
                             struct.pack("<I", int(attrs, 0)) + d[:16] + d[16 + l:])
PY
}
ossl() { openssl cms -verify -binary -partial_chain -no_check_time -purpose any -inform DER \
    -in p7.der -content "$1" -CAfile "$2" >/dev/null 2>&1; }

n=0
for f in "$S"/DBX/*.bin "$S"/DB/*.bin; do
    v=dbx; case $f in */DB/*) v=db ;; esac
    b=$(basename "$f")
    j=$("$KTRUST" verify-var --json --var $v --kek "$KEK" --signed-data sd.bin "$f")
    expect_eq "$?" 0 "$b: trusted with the KEK dump"
    expect_eq "$(jq -r '[.verdict, .write, .type, .var, .content_info_wrapped] | join(" ")' <<<"$j")" \
        "trusted append variable $v false" "$b: JSON verdict, write, var"
    expect_eq "$(jq -r '.signatures[0].trusted_by' <<<"$j")" \
        "Microsoft Corporation KEK CA 2011: 62fc43cda03ea4cb6712d25bd955ac7bccb68a5f" "$b: trusted_by"
    split "$f" $v $IMGDB 0x67
    cmp -s sd.bin data.bin
    expect_eq $? 0 "$b: ktrust's signed bytes = the script's"
    ossl sd.bin kekca.pem
    expect_eq $? 0 "$b: openssl verifies ktrust's signed bytes (append 0x67)"
    split "$f" $v $IMGDB 0x27
    ossl data.bin kekca.pem
    expect_eq $? 4 "$b: openssl refuses the replace form (0x27) too"
    # a payload byte changed: the signature no longer covers it
    cp "$f" bad.bin
    last=$(($(stat -c %s bad.bin) - 1))
    printf '\x5a' | dd of=bad.bin bs=1 seek=$last conv=notrunc status=none
    cmp -s "$f" bad.bin && printf '\xa5' | dd of=bad.bin bs=1 seek=$last conv=notrunc status=none
    expect_exit 5 "$b: one payload byte changed: rejected" -- \
        "$KTRUST" verify-var --var $v --kek "$KEK" bad.bin
    # the name is part of the signed bytes
    other=db; [ $v = db ] && other=dbx
    expect_exit 5 "$b: verified as $other: rejected" -- \
        "$KTRUST" verify-var --var $other --kek "$KEK" "$f"
    # no authority: untrusted, the signer named
    out=$("$KTRUST" verify-var --var $v "$f")
    expect_eq $? 2 "$b: no --kek: untrusted"
    expect_match "$out" "not checked against it" "$b: no authority said"
    # the PK is not the KEK: a db update is not signed by it
    expect_exit 2 "$b: a wrong authority" -- "$KTRUST" verify-var --var $v \
        --pk "$S/certs/WindowsOEMDevicesPK.der" "$f"
    n=$((n + 1))
done
expect_eq $n 5 "five DBX/DB files"
# payload counts (README: 443 and 45 image hashes; 3 SVN records)
cnt() { "$KTRUST" verify-var --json --var dbx --kek "$KEK" "$S/DBX/$1" | jq -c '.payload'; }
expect_eq "$(cnt DBXUpdate-amd64.bin | jq .sha256)" 443 "amd64: 443 hashes"
expect_eq "$(cnt DBXUpdate-x86.bin | jq .sha256)" 45 "x86: 45 hashes"
expect_eq "$(cnt DBXUpdateSVN.bin)" '{"x509":0,"sha256":0,"x509_sha256":0,"sha384":0,"sha512":0,"svn":3,"other":0}' \
    "SVN file: 3 SVN records, no image hash"
expect_eq "$(cnt DBXUpdate2024.bin | jq -c '[.x509, .svn]')" '[1,3]' "2024: the PCA certificate and SVN data"
# the SVN records decoded, checked against Microsoft's dbx_info
j=$("$KTRUST" verify-var --json --list --var dbx "$S/DBX/DBXUpdateSVN.bin")
want=$(jq -r '.svns[] | "\(.guid | .[1:37]) \(.version)"' "$S/DBX/dbx_info_msft_latest.json" | sort)
got=$(jq -r '.entries[] | select(.type == "svn") | "\(.value.guid) \(.value.major).\(.value.minor)"' <<<"$j" | sort)
expect_eq "$got" "$want" "SVN records = dbx_info_msft_latest.json"
expect_eq "$(jq -r '.entries[0].owner' <<<"$j")" 9d132b6c-59d5-4388-ab1c-185cfcb2eb92 "SVN owner"
# the revoked certificate in DBXUpdate2024 is the Windows Production PCA 2011
j=$("$KTRUST" verify-var --json --list --var dbx "$S/DBX/DBXUpdate2024.bin")
expect_eq "$(jq -r '.entries[] | select(.type == "x509") | .value.sha256' <<<"$j")" \
    "$(sha256sum < "$S/certs/dbx-MicWinProPCA2011_2011-10-19.der" | cut -d' ' -f1)" \
    "DBXUpdate2024 revokes the PCA 2011 certificate"

# KEK updates: each verifies with its own signer as PK; payload = KEK 2K CA 2023
k=0
for f in "$S"/KEK/*.bin; do
    b=$(basename "$f")
    split "$f" KEK $GLOBAL 0x67
    openssl pkcs7 -inform DER -in p7.der -print_certs -out signer.pem 2>/dev/null
    j=$("$KTRUST" verify-var --json --var KEK --pk signer.pem --signed-data sd.bin "$f")
    expect_eq "$?" 0 "$b: trusted with its signer as PK"
    cmp -s sd.bin data.bin
    expect_eq $? 0 "$b: signed bytes = the script's"
    ossl data.bin signer.pem
    expect_eq $? 0 "$b: openssl agrees"
    off=$((16 + $(od -An -tu4 -j16 -N4 "$f" | tr -d ' ')))
    expect_eq "$(tail -c +$((off + 1)) "$f" | sha256sum | cut -d' ' -f1)" \
        5b85333c009d7ea55cbb6f11a5c2ff45ee1091a968504c929aed25c84674962f "$b: payload hash"
    expect_eq "$(jq -c '[.write, .payload.x509]' <<<"$j")" '["append",1]' "$b: append, one X509"
    expect_exit 2 "$b: the KEK CA as --kek does not authorise a KEK update" -- \
        "$KTRUST" verify-var --var KEK --kek "$KEK" "$f"
    k=$((k + 1))
done
expect_eq $k 23 "23 KEK updates"
# efivarfs-style names give the variable
cp "$S/DBX/DBXUpdateSVN.bin" "dbx-$IMGDB"
expect_exit 0 "NAME-GUID file name" -- "$KTRUST" verify-var --kek "$KEK" "dbx-$IMGDB"
expect_exit 64 "no --var and no NAME-GUID" -- "$KTRUST" verify-var --kek "$KEK" "$S/DBX/DBXUpdateSVN.bin"
# an efivarfs dump is no signed update
expect_exit 1 "an efivarfs dump: not a signed update" -- "$KTRUST" verify-var --var dbx \
    "$CORPUS/peers/shim-efivars/efivars-1/dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f"
finish
