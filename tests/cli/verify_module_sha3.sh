#!/bin/bash
# verify-module on modules signed by the kernel's own scripts/sign-file
# (Debian linux-kbuild-6.1) with MODULE_SIG_HASH sha3-256, sha3-384, sha3-512
# and sha384.  Oracle: openssl cms -verify on the signature sign-file -d
# writes, over the same module.  Kernel facts: SHA-3 module signatures need
# Linux 6.7 (pkcs7_sig_note_digest_algo); the corpus kernel is 6.1, so with
# --kernel it the verdict is unsupported, as that kernel refuses them.
. "$(dirname "$0")/../lib/common.sh"

SIGN_FILE=/usr/lib/linux-kbuild-6.1/scripts/sign-file
if [ ! -x "$SIGN_FILE" ]; then
    [ -n "${CI:-}" ] && { echo "sign-file missing but CI is set" >&2; exit 1; }
    echo "skipped: $SIGN_FILE not installed (linux-kbuild-6.1)"
    exit 77
fi
cd "$T"
mkkey() { # NAME CN
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 3650 \
        -subj "/CN=$2" -addext "keyUsage=digitalSignature" \
        -addext "extendedKeyUsage=codeSigning" 2>/dev/null
}
mkkey good "SHA-3 Module Key"
mkkey other "Another Key"
head -c 150000 /dev/urandom > mod.ko
printf '\x7fELF' | dd of=mod.ko bs=1 conv=notrunc status=none

for h in sha3-256 sha3-384 sha3-512 sha384; do
    cp mod.ko "$h.ko"
    "$SIGN_FILE" "$h" good.key good.pem "$h.ko" || bad "sign-file $h"
    cp mod.ko "$h.d.ko"
    "$SIGN_FILE" -d "$h" good.key good.pem "$h.d.ko" || bad "sign-file -d $h" # -> $h.d.ko.p7s
    # the oracle: OpenSSL verifies sign-file's PKCS#7 over the module
    openssl cms -verify -binary -inform DER -in "$h.d.ko.p7s" -content mod.ko -certfile good.pem \
        -CAfile good.pem -purpose any -out /dev/null 2>/dev/null
    expect_eq "$?" 0 "openssl cms accepts sign-file's $h signature"
    # the digest algorithm sign-file wrote is the one asked for
    alg=$(openssl cms -cmsout -print -inform DER -in "$h.d.ko.p7s" | grep -A1 'digestAlgorithm:' |
          sed -n 's/.*algorithm: \([^ ]*\).*/\1/p' | head -1)
    expect_eq "$alg" "$h" "sign-file $h: the SignerInfo's digestAlgorithm"
    expect_exit 0 "$h: trusted" -- "$KTRUST" verify-module --trust good.pem "$h.ko"
    out=$("$KTRUST" verify-module -v --trust good.pem "$h.ko" 2>/dev/null)
    expect_match "$out" "signature 0: $h, trusted" "$h: the signature's digest named"
    if [ "$h" = sha384 ]; then
        expect_eq "$(echo "$out" | head -1)" "$h.ko: trusted" "sha384: no kernel note"
    else
        expect_match "$out" "trusted \(for Linux 6\.7 or later" "$h: trusted from Linux 6.7"
        j=$("$KTRUST" verify-module --json --trust good.pem "$h.ko" 2>/dev/null | head -1)
        expect_match "$j" '"linux_since":"6\.7"' "$h: JSON linux_since"
    fi
    expect_exit 2 "$h: other key -> untrusted" -- "$KTRUST" verify-module --trust other.pem "$h.ko"
    # one flipped byte of the module: ktrust rejects, and so does OpenSSL
    cp "$h.ko" flip.ko
    flip flip.ko 70000
    expect_exit 5 "$h: flipped module byte -> rejected" -- "$KTRUST" verify-module --trust good.pem flip.ko
    head -c 150000 flip.ko > flipbody
    openssl cms -verify -binary -inform DER -in "$h.d.ko.p7s" -content flipbody -certfile good.pem \
        -CAfile good.pem -purpose any -out /dev/null 2>/dev/null
    expect_eq "$?" 4 "openssl rejects the flipped $h module"
    # the detached signature is the appended one: verify-pkcs7 agrees
    expect_exit 0 "$h: verify-pkcs7 of sign-file -d's signature" -- \
        "$KTRUST" verify-pkcs7 --trust good.pem --data mod.ko "$h.d.ko.p7s"
done

# the kernel that judges: the corpus kernel is Linux 6.1 by its setup
# header, older than SHA-3 module signatures (the corpus: CI requires it)
if [ -f "${KTRUST_CORPUS:-$KT_SRC/../shared/corpus}/README.md" ] || [ -n "${CI:-}" ]; then
    corpus
    K=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
    ver=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(0x8000)
o=struct.unpack("<H",d[0x20e:0x210])[0]+0x200; print(d[o:o+20].split(b" ")[0].decode())' "$K")
    expect_match "$ver" '^6\.1\.' "the corpus kernel names itself 6.1"
    for h in sha3-256 sha3-384 sha3-512; do
        out=$("$KTRUST" verify-module --kernel "$K" --trust good.pem "$h.ko" 2>/dev/null)
        expect_eq "$?" 3 "$h under Linux 6.1: unsupported"
        expect_match "$out" "$h needs Linux 6\.7 or later; the kernel is 6\.1" "$h under 6.1: why"
    done
    expect_exit 0 "sha384 under Linux 6.1: trusted" -- \
        "$KTRUST" verify-module --kernel "$K" --trust good.pem sha384.ko
    # the boot engine: the key enrolled as a MOK (machine, vouching for
    # modules), the modules under the corpus kernel (as tests/boot's
    # kernel_mok_enrolled boots them)
    out=$("$KTRUST" chain --db "$CORPUS/trust/microsoft-uefi-ca-2011.pem" --mok good.pem \
        "$CORPUS/debian/shimx64.efi.signed" "$CORPUS/debian/grubx64.efi.signed" "$K" \
        sha3-256.ko sha384.ko 2>&1)
    expect_match "$out" "module sha3-256.ko: unsupported .*sha3-256 needs Linux 6\.7 or later" \
        "chain: the 6.1 kernel refuses the sha3-256 module"
    expect_match "$out" "module sha384.ko: trusted" "chain: the sha384 module loads"
fi
finish
