#!/bin/bash
# BER certificates (issue #11 item 9), with the live kernel as the oracle
# (`keyctl padd asymmetric` in a private session keyring): the kernel's BER
# decoder takes a certificate whose outer SEQUENCE has an indefinite length
# (its end found by the end-of-contents octets), so ktrust must take it too,
# with the same key description, and let it into a keyring restricted to
# keys a CA signed, as the kernel's key_or_keyring restriction does.
# ktrust keeps refusing (4) what DER forbids elsewhere: an indefinite
# tbsCertificate (the kernel refuses a self-signed one and one offered to a
# restricted keyring: it hashes the wrong tbsCertificate bytes), non-minimal
# lengths, a missing end-of-contents, and trailing data.  Where the kernel
# accepts one of those (an unrestricted keyring, no self-signature to
# check), the test says so: those are ktrust's documented stricter rules.
# The kernel part is skipped, visibly, where keyctl cannot add asymmetric
# keys; the ktrust assertions always run.
source "$(dirname "$0")/../lib/common.sh"
cd "$T" || exit 1
q() { "$@" >/dev/null 2>&1; }
q openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 3650 \
    -subj '/O=BER Test/CN=BER Test CA' -addext basicConstraints=critical,CA:TRUE \
    -addext subjectKeyIdentifier=hash
q openssl req -new -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj '/O=BER Test/CN=BER Leaf'
printf 'basicConstraints=CA:FALSE\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >leaf.ext
q openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -set_serial 0x4242 -days 365 \
    -extfile leaf.ext -out leaf.pem
openssl x509 -in ca.pem -outform DER -out ca.der && openssl x509 -in leaf.pem -outform DER -out leaf.der ||
    { bad "openssl failed"; finish; }

# the variants, re-encoded from the DER certificates
python3 - ca.der leaf.der <<'EOF' || { bad "crafting failed"; finish; }
import sys

def tlv(b):
    """(header length, content length) of the DER element at b."""
    n = b[1]
    if n < 0x80:
        return 2, n
    k = n & 0x7f
    return 2 + k, int.from_bytes(b[2:2 + k], "big")

def seq(content, form):
    if form == "indef":
        return b"\x30\x80" + content + b"\x00\x00"
    if form == "long":  # non-minimal: a 3-byte length field
        return b"\x30\x83" + len(content).to_bytes(3, "big") + content
    assert len(content) < 65536
    return b"\x30\x82" + len(content).to_bytes(2, "big") + content

for src, name in ((sys.argv[1], "ca"), (sys.argv[2], "leaf")):
    d = open(src, "rb").read()
    h, n = tlv(d)
    body = d[h:h + n]
    th, tn = tlv(body)
    tbs, rest = body[th:th + tn], body[th + tn:]
    assert rest[:2] == b"\x30\x0d"  # sha256WithRSAEncryption AlgorithmIdentifier
    out = {
        "outer_indef": seq(body, "indef"),
        "outer_indef_noeoc": b"\x30\x80" + body,
        "outer_indef_trailing": seq(body, "indef") + b"\x00",
        "outer_long": seq(body, "long"),
        "tbs_indef": seq(seq(tbs, "indef") + rest, "def"),
        "both_indef": seq(seq(tbs, "indef") + rest, "indef"),
        "tbs_long": seq(seq(tbs, "long") + rest, "def"),
        "outer_indef_alg_long": seq(body[:th + tn] + b"\x30\x81\x0d" + rest[2:], "indef"),
    }
    for k, v in out.items():
        open(f"{name}_{k}.der", "wb").write(v)
EOF

desc() { "$KTRUST" x509 show "$1" 2>/dev/null | sed -n 's/^  description: *//p' | head -1; }
# ktrust's own verdicts (these run everywhere)
for c in ca leaf; do
    expect_exit 0 "$c: outer SEQUENCE of indefinite length accepted" -- "$KTRUST" x509 show ${c}_outer_indef.der
    expect_eq "$(desc ${c}_outer_indef.der)" "$(desc $c.der)" "$c: same description as the DER certificate"
    for v in outer_indef_noeoc outer_indef_trailing outer_long tbs_indef both_indef tbs_long outer_indef_alg_long; do
        expect_exit 4 "$c: $v refused as malformed" -- "$KTRUST" x509 show ${c}_$v.der
    done
done
msg=$("$KTRUST" x509 show ca_tbs_indef.der 2>&1)
expect_match "$msg" "tbsCertificate: indefinite length not allowed" "an indefinite tbsCertificate is named"
expect_exit 0 "PEM of a BER certificate" -- sh -c "openssl base64 -in ca_outer_indef.der |
    sed '1i -----BEGIN CERTIFICATE-----' | sed '\$a -----END CERTIFICATE-----' >ca_indef.pem &&
    '$KTRUST' x509 show ca_indef.pem"
# scan recognises a BER certificate by its content (it was skipped as unknown)
mkdir -p scantree && cp ca_outer_indef.der leaf_outer_indef.der leaf_tbs_indef.der scantree/
out=$("$KTRUST" scan --json --trust ca.pem scantree 2>/dev/null)
expect_match "$(grep leaf_outer_indef <<<"$out")" '"type":"x509".*"verdict":"trusted"' \
    "scan: the BER leaf is a certificate, trusted through its CA"
expect_match "$(grep ca_outer_indef <<<"$out")" '"type":"x509"' "scan: the BER CA is a certificate"
expect_match "$(grep leaf_tbs_indef <<<"$out")" '"verdict":"malformed"' \
    "scan: an indefinite tbsCertificate is a malformed certificate, not skipped"
expect_match "$(tail -1 <<<"$out")" '"skipped":0' "scan: none of them skipped"
# the restriction path: the CA in builtin vouches for the BER leaf in secondary
export KTRUST_STORE=$T/store.db
expect_exit 0 "CA into builtin" -- "$KTRUST" keyring add --keyring builtin ca.der
expect_exit 0 "BER leaf into secondary (signed by a builtin key)" -- \
    "$KTRUST" keyring add --keyring secondary leaf_outer_indef.der
expect_match "$("$KTRUST" keyring list --keyring secondary)" "$(desc leaf.der)" "BER leaf listed in secondary"
expect_exit 4 "indefinite tbsCertificate leaf refused by secondary" -- \
    "$KTRUST" keyring add --keyring secondary leaf_tbs_indef.der

# the live kernel
if ! command -v keyctl >/dev/null ||
    ! keyctl session - sh -c 'keyctl padd asymmetric "" @s' <ca.der >/dev/null 2>&1; then
    echo "skipped (kernel part): keyctl cannot add asymmetric keys here"
    finish
fi
# kadd FILE: the kernel's answer ("desc:DESCRIPTION" or its add_key error)
kadd() {
    keyctl session - sh -c 'id=$(keyctl padd asymmetric "" @s <"$1" 2>&1) || { echo "$id"; exit 0; }
        echo "desc:$(keyctl rdescribe "$id" | cut -d";" -f5-)"' sh "$1" 2>/dev/null
}
# kernel accepts, ktrust (deliberately stricter) refuses: reported, not failed
stricter="ca_outer_indef_trailing leaf_outer_indef_trailing ca_outer_indef_alg_long leaf_outer_indef_alg_long leaf_tbs_indef leaf_both_indef"
for f in ca*.der leaf*.der; do
    name=${f%.der}
    k=$(kadd "$f")
    "$KTRUST" x509 show -q "$f" >/dev/null 2>&1
    rc=$?
    case "$k" in
    desc:*)
        if [ "$rc" = 0 ]; then
            expect_eq "$(desc "$f")" "${k#desc:}" "$name: kernel and ktrust accept it with one description"
        elif [[ " $stricter " == *" $name "* ]]; then
            echo "note: $name: the kernel accepts it, ktrust refuses it ($rc) by its stricter DER rule"
            ok
        else
            bad "$name: the kernel accepts it, ktrust exits $rc"
        fi ;;
    *)
        if [ "$rc" != 0 ]; then ok; else bad "$name: the kernel refuses it ($k), ktrust accepts it"; fi ;;
    esac
done
# the kernel's restriction path: key_or_keyring (the secondary keyring's rule)
kr=$(keyctl session - sh -c '
    ca=$(keyctl padd asymmetric "" @s <ca.der) && r=$(keyctl newring r @s) &&
    keyctl restrict_keyring "$r" asymmetric "key_or_keyring:$ca" || exit 1
    for f in leaf_outer_indef.der leaf_tbs_indef.der; do
        keyctl padd asymmetric "" "$r" <"$f" >/dev/null 2>&1 && echo "$f:yes" || echo "$f:no"
    done' 2>/dev/null | tr '\n' ' ')
expect_eq "$kr" "leaf_outer_indef.der:yes leaf_tbs_indef.der:no " "kernel key_or_keyring: BER leaf in, indefinite tbsCertificate out"
finish
