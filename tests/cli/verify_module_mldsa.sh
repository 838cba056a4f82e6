#!/bin/bash
# ML-DSA (FIPS 204) certificates and module signatures, as Linux 7.0 signs
# modules (OIDs 2.16.840.1.101.3.4.3.17-19, pure, CMS with signed
# attributes).  OpenSSL 3.0 makes no ML-DSA keys: tests/fixtures/mldsa.py
# writes the DER by hand with random key and signature bytes.  What is
# tested: the parse, the kernel's key description (CN: SKID, pkey_algo
# mldsa65), the same answer from x509 show, keyring add and verify-module,
# and the honest refusal where the libcrypto has no ML-DSA (OpenSSL < 3.5):
# unsupported (exit 3), never trusted; with ML-DSA, the random signature is
# rejected (exit 5), never trusted either.
. "$(dirname "$0")/../lib/common.sh"

cd "$T"
ml() { python3 "$KT_SRC/tests/fixtures/mldsa.py" "$@"; }
if openssl list -signature-algorithms 2>/dev/null | grep -qi 'ML-DSA-65'; then
    SIG=5 WHY='does not verify'          # this libcrypto checks ML-DSA
else
    SIG=3 WHY='ML-DSA-65 needs OpenSSL 3.5 or later'
fi
openssl req -x509 -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.pem -days 3650 \
    -subj "/CN=RSA Module Key" 2>/dev/null
openssl x509 -in rsa.pem -outform DER -out rsa.der
head -c 50000 /dev/urandom > mod.ko
printf '\x7fELF' | dd of=mod.ko bs=1 conv=notrunc status=none

# --- certificates: each parameter set, its description and key
for set in 44 65 87; do
    ml cert "ml$set.der" --set "$set" --cn "PQ Key $set"
    len=$(( set == 44 ? 1312 : set == 65 ? 1952 : 2592 ))
    # the SKID the fixture wrote, by OpenSSL's reading of the extension
    skid=$(openssl x509 -inform DER -in "ml$set.der" -noout -ext subjectKeyIdentifier 2>/dev/null |
           tail -1 | tr -d ' :' | tr 'A-F' 'a-f')
    out=$("$KTRUST" x509 show "ml$set.der" 2>&1)
    rc=$?
    expect_match "$out" "description: +PQ Key $set: $skid\$" "ML-DSA-$set: the kernel's description (CN: SKID)"
    expect_match "$out" "key: +mldsa$set \(ML-DSA-$set, $len-byte public key" "ML-DSA-$set: the key"
    if [ "$SIG" = 3 ]; then
        expect_eq "$rc" 3 "ML-DSA-$set: x509 show says unsupported"
        expect_match "$out" "ML-DSA-$set needs OpenSSL 3\.5 or later" "ML-DSA-$set: why"
    fi
    j=$("$KTRUST" x509 show --json "ml$set.der" 2>/dev/null | head -1)
    expect_match "$j" "\"key_algorithm\":\"mldsa$set\",\"key_bits\":null" "ML-DSA-$set: JSON key"
    expect_match "$j" "\"signature_algorithm\":\"ML-DSA-$set\"" "ML-DSA-$set: JSON signature algorithm"
done
# a key one byte short of its parameter set: malformed, as the kernel's mldsa refuses it
ml cert short.der --key-len 1951
out=$("$KTRUST" x509 show short.der 2>&1)
expect_eq "$?" 4 "truncated ML-DSA-65 key: malformed"
expect_match "$out" "an ML-DSA-65 public key is 1952 bytes, this one 1951" "truncated key: why"
ml cert long.der --key-len 2592
expect_exit 4 "an ML-DSA-87-sized key under the ML-DSA-65 OID: malformed" -- "$KTRUST" x509 show long.der
# self-signed with an RSA signature OID over an ML-DSA key: rejected
ml cert rsasig.der --sig-oid rsa-sha256
out=$("$KTRUST" x509 show rsasig.der 2>&1)
expect_eq "$?" 5 "RSA signature OID on an ML-DSA key: rejected"
expect_match "$out" "signature algorithm does not match its key" "RSA OID on ML-DSA key: why"

# --- module signatures: the parse and the refusal
ml modsign mod.ko ml65.der signed.ko
out=$("$KTRUST" verify-module -v --trust ml65.der signed.ko 2>/dev/null)
expect_eq "$?" "$SIG" "ML-DSA-65 module signature: never trusted"
expect_match "$out" "$WHY" "ML-DSA-65 module signature: why"
expect_match "$out" "signature 0: sha512" "the signer's digest algorithm parsed"
ml modsign mod.ko ml44.der signed44.ko --set 44 --digest sha256
expect_exit "$SIG" "ML-DSA-44 module signature" -- "$KTRUST" verify-module --trust ml44.der signed44.ko
# the same message as a detached PKCS#7 (the signature sign-file -d writes)
n=$(stat -c %s signed.ko)
siglen=$(od -An -tu1 -j $((n - 28 - 4)) -N4 signed.ko | awk '{print $1*16777216+$2*65536+$3*256+$4}')
dd if=signed.ko of=signed.p7s bs=1 skip=$((n - 40 - siglen)) count="$siglen" status=none
openssl cms -cmsout -print -inform DER -in signed.p7s 2>/dev/null | grep -A1 'signatureAlgorithm:' |
    grep -Eq '\(2\.16\.840\.1\.101\.3\.4\.3\.18\)|ML-DSA-65'
expect_eq "$?" 0 "openssl parses the fixture's SignerInfo with the ML-DSA-65 OID"
out=$("$KTRUST" verify-pkcs7 --trust ml65.der --data mod.ko signed.p7s 2>/dev/null)
rc=$?
[ "$rc" != 0 ] && ok || bad "verify-pkcs7 of an ML-DSA message: trusted"
expect_match "$out" "$WHY|authenticated attributes" "verify-pkcs7: why"
# attacks: an ML-DSA OID with an RSA key, an RSA OID with an ML-DSA key
ml modsign mod.ko rsa.der mloid-rsakey.ko
"$KTRUST" verify-module --trust rsa.pem mloid-rsakey.ko >/dev/null 2>&1
rc=$?
[ "$rc" != 0 ] && ok || bad "ML-DSA OID, RSA key: trusted"
ml modsign mod.ko ml65.der rsaoid-mlkey.ko --sig-oid rsa
"$KTRUST" verify-module --trust ml65.der rsaoid-mlkey.ko >/dev/null 2>&1
rc=$?
[ "$rc" != 0 ] && ok || bad "RSA OID, ML-DSA key: trusted"
ml modsign mod.ko ml65.der shortsig.ko --sig-len 100
"$KTRUST" verify-module --trust ml65.der shortsig.ko >/dev/null 2>&1
rc=$?
[ "$rc" != 0 ] && ok || bad "a 100-byte ML-DSA-65 signature: trusted"

# --- keyring add: the same key and the same words
S=$T/store.db
out=$("$KTRUST" keyring add --store "$S" --keyring builtin ml65.der 2>&1)
expect_eq "$?" 0 "keyring add builtin: a trusted source takes the ML-DSA key"
desc=$("$KTRUST" x509 show ml65.der 2>/dev/null | sed -n 's/^  description: *//p')
expect_match "$("$KTRUST" keyring list --store "$S" 2>/dev/null)" "$desc" "keyring list: the same description"
if [ "$SIG" = 3 ]; then
    out=$("$KTRUST" keyring add --store "$S" --keyring secondary ml87.der 2>&1)
    expect_eq "$?" 3 "keyring add secondary: cannot check an ML-DSA signature"
    expect_match "$out" "ML-DSA-87 needs OpenSSL 3\.5 or later" "keyring add secondary: why"
fi
out=$("$KTRUST" verify-module --store "$S" signed.ko 2>/dev/null)
expect_eq "$?" "$SIG" "verify-module with the key in the store: never trusted"
expect_match "$out" "$WHY" "verify-module with the store: why"
finish
