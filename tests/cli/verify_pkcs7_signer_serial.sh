#!/bin/bash
# verify-pkcs7 names a signer without a certificate by issuer and serial: the
# serial is printed as `x509 show` prints it (one formatter: hex of the
# integer, no leading zeros, a negative one as "-" and its magnitude), which
# is openssl's `x509 -serial` in lowercase without leading zeros.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
echo hello > d
openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -subj /CN=other -days 2 \
    -out other.pem 2>/dev/null
for serial in 0x0a1b -0x0a1b 0x80 -0x80 0x7f01 -1 5ee11331142993a99cd5035b98534874661bdee5; do
    case $serial in 0x* | -0x* | -[0-9]*) s=$serial ;; *) s=0x$serial ;; esac
    openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -subj /CN=neg -days 2 \
        -set_serial "$s" -out c.pem 2>/dev/null || { bad "openssl -set_serial $s"; continue; }
    # the oracle: openssl's serial, lowercase, no leading zeros
    want=$(openssl x509 -in c.pem -noout -serial | cut -d= -f2 | tr A-F a-f |
        sed -E 's/^(-?)0+([0-9a-f])/\1\2/')
    shown=$("$KTRUST" x509 show --json c.pem | grep -o '"serial":"[^"]*"' | cut -d'"' -f4)
    expect_eq "$shown" "$want" "x509 show, serial $s"
    # no certificate in the message: the signer is named by issuer + serial
    openssl cms -sign -binary -outform DER -nodetach -nocerts -signer c.pem -inkey k.pem -in d \
        -out n.p7 2>/dev/null
    json=$("$KTRUST" verify-pkcs7 --json --trust other.pem n.p7)
    expect_match "$json" "\"signer\":\\{\"issuer\":\"CN=neg\",\"serial\":\"$want\"" \
        "verify-pkcs7 --json signer id, serial $s"
    text=$("$KTRUST" verify-pkcs7 -v --trust other.pem n.p7 2>&1)
    expect_match "$text" "signer: issuer CN=neg, serial $want\$" "text signer id, serial $s"
done
finish
