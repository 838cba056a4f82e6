#!/bin/bash
# verify-var decides authority as EDK2 does (AuthService.c VerifyTimeBasedPayload,
# Pkcs7GetSigners, Pkcs7Verify): one certificate vouches for every signer,
# each issuer on the way a CA; PK/KEK updates need the PK as the signer's own
# certificate; the SignedData passes AuthService.c's fixed-offset SHA-256
# check.  OpenSSL's PKCS7_verify (`openssl smime -verify`, one trusted
# certificate per call, -partial_chain -no_check_time -purpose any: what
# Pkcs7Verify runs) is the oracle for the chain cases.  Every refused case
# was trusted (exit 0) before.
. "$(dirname "$0")/../lib/common.sh"
need_python_cryptography
command -v openssl >/dev/null || { echo "skipped: openssl not installed"; exit 77; }
cd "$T" || exit 1
"$PY" "$KT_SRC/tests/fixtures/gen_authvar_edk2.py" . || { echo "fixture generation failed"; exit 1; }

# edk2 FILE VAR ANCHOR...: "yes" when PKCS7_verify passes with one of the
# anchors as the only trusted certificate (as EDK2 tries them one by one)
edk2() {
    local f=$1 var=$2 a
    shift 2
    "$KTRUST" verify-var --var "$var" --signed-data data.bin "$f" >/dev/null 2>&1
    "$PY" "$KT_SRC/tests/fixtures/authvar_p7.py" "$f" p7.der || return 1
    for a in "$@"; do
        openssl x509 -inform DER -in "$a" -out anchor.pem || return 1
        if openssl smime -verify -inform DER -in p7.der -content data.bin -binary -CAfile anchor.pem \
            -partial_chain -no_check_time -purpose any -out /dev/null 2>/dev/null; then
            echo yes
            return 0
        fi
    done
    echo no
}
# case NAME WANT-EXIT ORACLE(yes|no|-) VAR FILE ARGS...
case_() {
    local name=$1 want=$2 oracle=$3 var=$4 f=$5
    shift 5
    local anchors=() a
    for a in "$@"; do [[ $a == *.der ]] && anchors+=("$a"); done
    "$KTRUST" verify-var -q --var "$var" "$@" "$f" >/dev/null 2>&1
    expect_eq "$?" "$want" "$name: exit $want"
    [ "$oracle" = - ] || expect_eq "$(edk2 "$f" "$var" "${anchors[@]}")" "$oracle" "$name: PKCS7_verify agrees"
}
case_ "two signers, each under a different KEK" 2 no db db-two-keks.auth --kek kek1.der --kek kek2.der
case_ "one signer the PK, one a KEK" 2 no db db-pk-and-kek.auth --pk pk.der --kek kek1.der
case_ "a chain through a CA:FALSE certificate the KEK issued" 2 no db db-nonca-intermediate.auth --kek kek1.der
case_ "a CA:FALSE KEK issuing the signer" 2 no db db-nonca-kek.auth --kek kek_nonca.der
case_ "control: KEK One and a leaf it issued" 0 yes db db-two-under-kek1.auth --kek kek1.der
case_ "control: the PK signing twice" 0 yes PK pk-dup-signers.auth --pk pk.der
# PKCS7_verify passes these (the PK issued the signer); EDK2 refuses them
# by comparing the signer's own certificate with the PK
case_ "a PK update signed by a leaf the PK issued" 2 - PK pk-by-leaf-under-pk.auth --pk pk2.der
case_ "a KEK update signed by a leaf the PK issued" 2 - KEK kek-by-leaf-under-pk.auth --pk pk2.der
expect_match "$("$KTRUST" verify-var --var PK --pk pk2.der pk-by-leaf-under-pk.auth 2>&1)" \
    "is not the PK" "the reason names the PK rule"
# AuthService.c's fixed-offset check (byte 1 & 0x82, SHA-256's OID at byte 13)
case_ "digestAlgorithms {sha384, sha256}" 5 - db db-digestalgs-384-first.auth --kek kek1.der
case_ "empty digestAlgorithms" 5 - db db-digestalgs-empty.auth --kek kek1.der
case_ "a SignedData of 64 KiB or more" 5 - db db-big-signeddata.auth --kek kek1.der
expect_match "$("$KTRUST" verify-var --var db --kek kek1.der db-big-signeddata.auth 2>&1)" \
    "byte 13" "the reason names the fixed-offset check"
finish
