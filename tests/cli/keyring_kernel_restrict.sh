#!/usr/bin/env bash
# The live kernel as the oracle for restrict_link_by_signature (issue #11.6c):
# a keyring restricted with key_or_keyring:TRUST accepts a certificate when
# the key its AKID names (else, without an AKID, the key whose subject is its
# issuer name) is in TRUST and verifies it; when the AKID gives issuer+serial
# and a keyIdentifier, the key found must carry both.  ktrust's secondary
# keyring (CA in builtin) must accept exactly what the kernel accepts.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"

if ! command -v keyctl >/dev/null; then
    echo "skipped: keyctl not installed"
    exit 77
fi

q() { "$@" >/dev/null 2>&1; }
q openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -subj "/CN=Restrict CA" -days 30 \
    -set_serial 0x1234 -addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign,digitalSignature
# an impostor with the CA's name and serial but another key
q openssl req -x509 -newkey rsa:2048 -nodes -keyout imp.key -out imp.pem -subj "/CN=Restrict CA" -days 30 \
    -set_serial 0x1234 -addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign,digitalSignature
q openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -subj "/CN=Other CA" -days 30 \
    -addext basicConstraints=critical,CA:TRUE
leaf() { # NAME ISSUER AKID-SPEC
    q openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=Leaf $1"
    printf 'basicConstraints=CA:FALSE\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=%s\n' "$3" > "$1.ext"
    q openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -set_serial "0x$(openssl rand -hex 6)" \
        -days 30 -extfile "$1.ext" -out "$1.pem"
    openssl x509 -in "$1.pem" -outform DER -out "$1.der"
}
leaf keyid ca keyid
leaf both ca keyid,issuer:always
leaf noakid ca none
leaf noakid_imp imp none     # names the CA, signed by the impostor
leaf both_imp imp keyid,issuer:always   # id0 names the CA, id1 the impostor
leaf stranger other keyid
leaf noakid_other other none
openssl x509 -in ca.pem -outform DER -out ca.der

expected=(keyid:0 both:0 noakid:0 noakid_imp:6 both_imp:6 stranger:6 noakid_other:6)
results=$(keyctl session - sh -c '
    tr=$(keyctl newring trust @s) && keyctl padd asymmetric "" "$tr" < ca.der >/dev/null || exit 3
    for n in '"$(printf '%s ' "${expected[@]%%:*}")"'; do
        r=$(keyctl newring "dest-$n" @s)
        keyctl restrict_keyring "$r" asymmetric "key_or_keyring:$tr" || exit 3
        if keyctl padd asymmetric "" "$r" < "$n.der" >/dev/null 2>&1; then echo "$n:0"; else echo "$n:6"; fi
    done' 2>/dev/null)
if [ $? != 0 ] || [ -z "$results" ]; then
    if [ -n "${CI:-}" ]; then bad "the kernel cannot act as the oracle (keyctl restrict_keyring failed)"; finish; fi
    echo "skipped: this kernel cannot restrict keyrings"
    exit 77
fi

for e in "${expected[@]}"; do
    n=${e%%:*}
    kern=$(grep "^$n:" <<<"$results" | cut -d: -f2)
    expect_eq "$kern" "${e#*:}" "kernel: $n"
    rm -f s.db
    "$KTRUST" keyring add --store s.db --keyring builtin ca.pem >/dev/null 2>&1
    "$KTRUST" keyring add --store s.db --keyring secondary "$n.pem" >/dev/null 2>&1
    expect_eq "$?" "$kern" "ktrust's secondary agrees with the kernel on $n"
done
# the same rule through a user keyring restricted signed-by:builtin
rm -f s.db
"$KTRUST" keyring add --store s.db --keyring builtin ca.pem >/dev/null 2>&1
"$KTRUST" keyring create --store s.db mine --restrict signed-by:builtin >/dev/null 2>&1
expect_exit 0 "signed-by:builtin takes a certificate without an AKID by its issuer name" -- "$KTRUST" keyring add --store s.db --keyring mine noakid.pem
expect_exit 6 "... but not one the impostor signed" -- "$KTRUST" keyring add --store s.db --keyring mine noakid_imp.pem
finish
