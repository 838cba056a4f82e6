#!/bin/bash
# verify-var and certificate dates: firmware checks none (EDK2 Pkcs7Verify
# sets X509_V_FLAG_NO_CHECK_TIME; OpenSSL's PKCS7_verify has no rule on the
# signingTime attribute).  KEK updates with authenticated attributes, signed
# by a PK certificate that expired in 2023 with signingTime = now, verify;
# a failure names its real cause (the form whose messageDigest matched);
# --json says no date was checked and that the signer's validity is over.
# Oracle: openssl cms -verify -no_check_time over the bytes the generator
# signed, and the signer certificate's own dates.
. "$(dirname "$0")/../lib/common.sh"
need_python_cryptography
for tool in openssl jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
"$PY" "$KT_SRC/tests/fixtures/gen_authvar_attrs.py" . || { echo "generator failed"; exit 1; }
expect_eq "$(openssl x509 -in pk.pem -noout -enddate)" "notAfter=Jun 30 00:00:00 2023 GMT" \
    "the signer expired in 2023"
expect_match "$(openssl cms -cmsout -print -inform DER -in attrs-append.p7)" "signingTime" \
    "the update carries a signingTime"

for f in attrs-append attrs-replace plain-append; do
    openssl cms -verify -binary -partial_chain -no_check_time -purpose any -inform DER \
        -in $f.p7 -content $f.signed -CAfile pk.pem >/dev/null 2>&1
    expect_eq $? 0 "$f: openssl verifies it without dates"
    w=append; [ $f = attrs-replace ] && w=replace
    j=$("$KTRUST" verify-var --json --var KEK --pk pk.pem --signed-data sd.bin $f.bin)
    expect_eq $? 0 "$f: trusted with its (expired) signer as PK"
    expect_eq "$(jq -r '[.verdict, .write, .signatures[0].verdict] | join(" ")' <<<"$j")" \
        "trusted $w trusted" "$f: verdict and write"
    cmp -s sd.bin $f.signed
    expect_eq $? 0 "$f: ktrust's signed bytes = the generator's"
    # what was checked: no date; the signer's validity as it is
    expect_eq "$(jq -c '.signatures[0] | [.time_checked, .time_valid, .signer.not_before, .signer.not_after]' <<<"$j")" \
        '[false,false,"2019-01-01T00:00:00Z","2023-06-30T00:00:00Z"]' \
        "$f: time_checked false, time_valid false, the signer's dates"
    out=$("$KTRUST" verify-var --var KEK --pk pk.pem $f.bin)
    expect_match "$out" "valid only from 2019-01-01T00:00:00Z to 2023-06-30T00:00:00Z \\(firmware checks no certificate date\\)" \
        "$f: text says the dates are over and not checked"
done

# a broken signature over a form whose messageDigest matches: that is the
# cause, not "messageDigest does not match" (the other form's mismatch)
for f in attrs-append attrs-replace; do
    w="append \\(0x67\\)"; [ $f = attrs-replace ] && w="replace \\(0x27\\)"
    cp $f.bin bad.bin
    len=$(od -An -tu4 -j16 -N4 bad.bin | tr -d ' ')
    flip bad.bin $((16 + len - 1)) # the last byte of the signature value
    j=$("$KTRUST" verify-var --json --var KEK --pk pk.pem bad.bin)
    expect_eq $? 5 "$f, signature byte flipped: rejected"
    expect_match "$(jq -r .reason <<<"$j")" "signature does not verify with ktrust test OEM PK" \
        "$f, signature byte flipped: the reason is the signature"
    expect_match "$(jq -r .reason <<<"$j")" "messageDigest matches the $w form" \
        "$f, signature byte flipped: the form whose digest matched named"
    expect_match "$(jq -r '.signatures[0].reason' <<<"$j")" "signature does not verify" \
        "$f, signature byte flipped: the signature's own reason agrees"
done
# a payload byte changed: neither form matches; that is the cause
cp attrs-append.bin bad.bin
flip bad.bin $(($(stat -c %s bad.bin) - 1))
j=$("$KTRUST" verify-var --json --var KEK --pk pk.pem bad.bin)
expect_eq $? 5 "payload byte changed: rejected"
expect_match "$(jq -r .reason <<<"$j")" "covers neither the append \\(0x67\\) nor the replace \\(0x27\\)" \
    "payload byte changed: neither form"
expect_match "$(jq -r '.signatures[0].reason' <<<"$j")" "messageDigest does not match" \
    "payload byte changed: the digest is the cause"
# another PK: not this signer (authority, not dates)
j=$("$KTRUST" verify-var --json --var KEK --pk kek.der attrs-append.bin)
expect_eq $? 2 "another PK: untrusted"
expect_match "$(jq -r .reason <<<"$j")" "is not the PK" "another PK: the reason"

# keyring add goes through the same engine: a db update signed the same way
# (its signer given as a KEK) is verified and its certificate stored
out=$("$KTRUST" keyring add --store ks.db --keyring platform --kek pk.pem db-attrs-append.bin 2>&1)
expect_eq $? 0 "keyring add: the db update verified"
expect_match "$out" "signed db update verified" "keyring add: verified note"
expect_eq "$("$KTRUST" keyring list --json --store ks.db --keyring platform | jq -r .subject)" \
    "CN=ktrust test KEK" "keyring add: the payload's certificate stored, only it"

# the real AMI KEK update (signer expired in 2017): trusted with its signer as
# PK, and --json no longer says its dates are valid
if (corpus) >/dev/null 2>&1; then
    corpus
    f="$CORPUS/peers/secureboot-objects/KEK/AMI_KEKUpdate_AMI_PK1.bin"
    python3 "$KT_SRC/tests/fixtures/authvar_p7.py" "$f" ami.p7
    openssl pkcs7 -inform DER -in ami.p7 -print_certs -out ami.pem 2>/dev/null
    expect_eq "$(openssl x509 -in ami.pem -noout -enddate)" "notAfter=Mar  6 15:16:54 2017 GMT" \
        "AMI: the signer expired in 2017"
    j=$("$KTRUST" verify-var --json --var KEK --pk ami.pem "$f")
    expect_eq $? 0 "AMI: trusted"
    expect_eq "$(jq -c '.signatures[0] | [.time_checked, .time_valid, .signer.not_after]' <<<"$j")" \
        '[false,false,"2017-03-06T15:16:54Z"]' "AMI: time_checked false, time_valid false"
fi
finish
