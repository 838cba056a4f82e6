#!/bin/bash
# The kernel as the oracle: add each certificate to a private keyring with
# `keyctl padd asymmetric`, read the description the kernel made (`keyctl
# rdescribe`), and require ktrust's to be identical for every certificate
# the kernel accepts; where the kernel refuses one, ktrust must refuse it
# with the same class of error (EBADMSG/EINVAL -> 4, EKEYREJECTED -> 5,
# ENOPKG -> 3).  Inputs: generated certificates, hand-crafted corner cases
# (tests/fixtures/craft_certs.py) and every corpus certificate.  Deliberate
# differences: ktrust also takes Ed25519 keys and RSA-PSS signatures (the
# kernel says ENOPKG); algorithms this kernel lacks (ENOENT) are listed.
# Skips, visibly, where keyctl or the asymmetric key type is missing.
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
python3 "$KT_SRC/tests/fixtures/craft_certs.py" "$T/gen" "$T/gen/rsa2048.key" || bad "craft_certs.py failed"
for f in "$T"/gen/*.der; do cp "$f" "$T/der/gen_$(basename "$f")"; done

# does the kernel take asymmetric keys at all?
if ! keyctl padd asymmetric "" "$KR" <"$T/der/gen_rsa2048.der" >/dev/null 2>&1; then
    echo "skipped: the kernel has no asymmetric key type (or refuses X.509 keys)"
    exit 77
fi
keyctl clear "$KR" >/dev/null

# The text output escapes the description (cli/text_escape.h): a byte that is
# not UTF-8 (a T61String's Latin-1, say) as \xNN, controls as \xNN or \uNNNN,
# a backslash doubled.  The kernel's description, escaped by the same rule
# written again here, is what x509 show must print.
cat > "$T/escape.py" <<'PY'
import sys
b = sys.stdin.buffer.read()
b = b[:-1] if b.endswith(b"\n") else b  # keyctl's own newline
out, i = [], 0
while i < len(b):
    c = b[i]
    n = 1 if c < 0x80 else 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
    try:
        ch = b[i:i + n].decode("utf-8") if n else ""
    except UnicodeDecodeError:
        ch = ""
    if len(ch) != 1:
        out.append("\\x%02x" % c)
        i += 1
        continue
    cp = ord(ch)
    if cp < 0x20 or cp == 0x7f:
        out.append("\\x%02x" % cp)
    elif cp == 0x5c:
        out.append("\\\\")
    elif 0x80 <= cp <= 0x9f or 0x202a <= cp <= 0x202e or 0x2066 <= cp <= 0x2069:
        out.append("\\u%04x" % cp)
    else:
        out.append(ch)
    i += n
sys.stdout.buffer.write("".join(out).encode())
PY

same=0 refused=0 lacking=0 extra=0
for f in "$T"/der/*.der; do
    name=$(basename "$f")
    id=$(keyctl padd asymmetric "" "$KR" <"$f" 2>&1)
    out=$("$KTRUST" x509 show "$f" 2>&1)
    rc=$?
    desc=$(printf '%s\n' "$out" | sed -n 's/^  description: *//p' | head -1)
    case "$id" in
    *"No such file or directory"*)
        lacking=$((lacking + 1))
        echo "this kernel lacks the algorithm: $name"
        continue ;;
    *"Package not installed"*) want=3 ;;
    *"Bad message"* | *"Invalid argument"*) want=4 ;;
    *"rejected"*) want=5 ;;
    *add_key*) bad "$name: unexpected kernel error: $id"; continue ;;
    *)
        kdesc=$(keyctl rdescribe "$id" | cut -d';' -f5- | python3 "$T/escape.py")
        keyctl unlink "$id" "$KR" >/dev/null
        if [ "$rc" -gt 3 ]; then
            bad "$name: the kernel accepts it, ktrust exits $rc: $out"
        elif [ "$desc" = "$kdesc" ]; then
            same=$((same + 1)); ok
        else
            bad "$name: kernel '$kdesc', ktrust '$desc'"
        fi
        continue ;;
    esac
    refused=$((refused + 1))
    if [ "$want" = 3 ] && [ "$rc" = 0 ] &&
        printf '%s' "$out" | grep -Eq 'key: +ed25519|signature: +RSASSA-PSS'; then
        extra=$((extra + 1))
        echo "ktrust supports, the kernel does not: $name"
    elif [ "$rc" = "$want" ]; then
        ok
    else
        bad "$name: kernel refuses it (${id#add_key: }), ktrust exits $rc, want $want"
    fi
done
echo "x509_kernel_diff: $same identical descriptions, $refused refused by both or by design ($extra Ed25519/PSS), $lacking not in this kernel, $FAIL differences"
[ "$same" -ge 80 ] && ok || bad "only $same certificates compared with the kernel"

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
