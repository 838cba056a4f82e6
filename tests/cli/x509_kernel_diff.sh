#!/bin/bash
# The kernel as the oracle for key descriptions: add each certificate to a
# private keyring with `keyctl padd asymmetric`, read the description the
# kernel made (`keyctl rdescribe`), and require ktrust's to be identical for
# every certificate the kernel accepts.  Certificates the kernel refuses
# (Ed25519, ECDSA where the kernel lacks it...) are counted and listed.
# Also: a self-signed certificate whose signature is broken must be refused
# by both.  Skips, visibly, where keyctl or the asymmetric key type is missing.
source "$(dirname "$0")/../lib/common.sh"
corpus

if ! command -v keyctl >/dev/null; then
    echo "skipped: keyctl not installed"
    exit 77
fi
KR=$(keyctl newring "ktrust-x509-test-$$" @u 2>/dev/null) || {
    echo "skipped: cannot create a kernel keyring"
    exit 77
}
trap 'keyctl unlink "$KR" @u >/dev/null 2>&1; rm -rf "$T"' EXIT

bash "$KT_SRC/tests/fixtures/gen_certs.sh" "$T/gen" || { bad "gen_certs.sh failed"; finish; }
mkdir -p "$T/corpus" "$T/der"
python3 "$KT_SRC/tests/fixtures/corpus_certs.py" "$CORPUS" "$T/corpus" >/dev/null
for f in "$T"/corpus/*.p7; do
    openssl pkcs7 -inform DER -in "$f" -print_certs 2>/dev/null |
        awk -v pre="$T/der/$(basename "$f" .p7)" '
            /-----BEGIN CERTIFICATE-----/ { n++; out = pre "." n ".pem" }
            out { print > out }
            /-----END CERTIFICATE-----/ { close(out); out = "" }'
done
for f in "$T"/corpus/*.pem "$T"/der/*.pem; do
    openssl x509 -in "$f" -outform DER -out "${f%.pem}.der" 2>/dev/null && rm -f "$f"
done
cp "$T"/corpus/*.der "$T"/der/
for f in "$T"/gen/*.der; do cp "$f" "$T/der/gen_$(basename "$f")"; done

# does the kernel take asymmetric keys at all?
if ! keyctl padd asymmetric "" "$KR" <"$T/der/gen_rsa2048.der" >/dev/null 2>&1; then
    echo "skipped: the kernel has no asymmetric key type (or refuses X.509 keys)"
    exit 77
fi
keyctl clear "$KR" >/dev/null

same=0 refused=0 ktrust_only_fail=0
for f in "$T"/der/*.der; do
    name=$(basename "$f")
    id=$(keyctl padd asymmetric "" "$KR" <"$f" 2>/dev/null)
    kout=$("$KTRUST" x509 show "$f" 2>/dev/null | sed -n 's/^  description: *//p' | head -1)
    if [ -z "$id" ]; then
        refused=$((refused + 1))
        echo "kernel refused: $name"
        continue
    fi
    kdesc=$(keyctl rdescribe "$id" | cut -d';' -f5-)
    keyctl unlink "$id" "$KR" >/dev/null
    if [ -z "$kout" ]; then
        bad "$name: the kernel accepts it, ktrust does not"
        ktrust_only_fail=$((ktrust_only_fail + 1))
        continue
    fi
    desc=$kout
    if [ "$desc" = "$kdesc" ]; then
        same=$((same + 1)); ok
    else
        bad "$name: kernel '$kdesc', ktrust '$desc'"
    fi
done
echo "x509_kernel_diff: $same identical descriptions, $refused refused by the kernel, $FAIL differences"
[ "$same" -ge 60 ] && ok || bad "only $same certificates compared with the kernel"

# a self-signed certificate with a corrupted signature: both refuse it
python3 - "$T/der/gen_rsa2048.der" "$T/badsig.der" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[-5] ^= 0x01   # inside signatureValue
open(sys.argv[2], "wb").write(d)
EOF
if keyctl padd asymmetric "" "$KR" <"$T/badsig.der" >/dev/null 2>&1; then
    bad "kernel accepted a self-signed cert with a bad signature"
else
    ok
fi
expect_exit 5 "bad self-signature rejected (EKEYREJECTED)" -- "$KTRUST" x509 show "$T/badsig.der"
finish
