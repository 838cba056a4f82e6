#!/bin/bash
# A signer that copies a trusted key's names but not its key: same subject,
# issuer, serial and SKID, another RSA key.  verify_one checks the message's
# signature with the signer certificate's key; trust then matches the trusted
# key by those ids and must check the signature again with the trusted key's
# own public key (the shortcut that skips the second check applies only when
# both keys are the same SubjectPublicKeyInfo).  Forms: the look-alike
# certificate in the message, and no certificate (the signer found in the
# keyrings by issuer + serial, as for modules), with a look-alike and the real
# key both in the store's keyrings.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
echo "signed content" > d
mk() { # NAME: a self-signed certificate with fixed names, serial and SKID
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -subj "/CN=Vendor Signing Key" \
        -set_serial 0x4b7255 -days 30 -addext "subjectKeyIdentifier=0102030405060708090a0b0c0d0e0f1011121314" \
        -addext "authorityKeyIdentifier=keyid" -out "$1.pem" 2>/dev/null || { bad "openssl req $1"; exit 1; }
}
mk real
mk fake
expect_eq "$(openssl x509 -in real.pem -noout -serial -subject -ext subjectKeyIdentifier)" \
    "$(openssl x509 -in fake.pem -noout -serial -subject -ext subjectKeyIdentifier)" "same names, serial, SKID"
[ "$(openssl x509 -in real.pem -noout -pubkey)" != "$(openssl x509 -in fake.pem -noout -pubkey)" ]
expect_eq "$?" 0 "different keys"

for form in certs nocerts; do
    flag=; [ $form = nocerts ] && flag=-nocerts
    for who in real fake; do
        openssl cms -sign -binary -outform DER -nodetach $flag -md sha256 -noattr \
            -signer $who.pem -inkey $who.key -in d -out $who-$form.p7 2>/dev/null
    done
    expect_exit 0 "$form: the real key's message is trusted" -- \
        "$KTRUST" verify-pkcs7 --trust real.pem real-$form.p7
    "$KTRUST" verify-pkcs7 --trust real.pem fake-$form.p7 >/dev/null 2>&1
    rc=$?
    [ "$rc" != 0 ]
    expect_eq "$?" 0 "$form: the look-alike's message is not trusted (exit $rc)"
done
# the oracle agrees: openssl accepts the real signer only
openssl cms -verify -binary -inform DER -in real-certs.p7 -CAfile real.pem -purpose any -out /dev/null 2>/dev/null
expect_eq "$?" 0 "openssl: real trusted"
openssl cms -verify -binary -inform DER -in fake-certs.p7 -CAfile real.pem -purpose any -out /dev/null 2>/dev/null
[ $? != 0 ]
expect_eq "$?" 0 "openssl: look-alike refused"

# both keys in the keyrings (the look-alike in a user keyring that may not
# vouch): a signer without a certificate is found by issuer + serial; the
# message signed by the look-alike must not be trusted through the real key
S=$T/s.db
"$KTRUST" keyring add -q --store "$S" --keyring builtin real.pem
"$KTRUST" keyring create -q --store "$S" --restrict none other >/dev/null 2>&1 ||
    "$KTRUST" keyring create --store "$S" other >/dev/null 2>&1
"$KTRUST" keyring add -q --store "$S" --keyring other fake.pem >/dev/null 2>&1
expect_exit 0 "store: real message trusted" -- "$KTRUST" verify-pkcs7 --store "$S" real-nocerts.p7
"$KTRUST" verify-pkcs7 --store "$S" fake-nocerts.p7 >/dev/null 2>&1
rc=$?
[ "$rc" != 0 ]
expect_eq "$?" 0 "store: look-alike message not trusted (exit $rc)"
finish
