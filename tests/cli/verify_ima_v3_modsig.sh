#!/bin/bash
# verify-ima: v3 signatures (IMA_VERITY_DIGSIG: the hash of struct
# ima_file_id over the file's fs-verity digest), built here from the
# kernel's and fs-verity's documentation with Python and signed by openssl
# (evmctl 1.4 cannot make them); and an appended modsig (the module
# signature trailer, as ima_modsig.c reads it) checked against .ima only.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
. "$(dirname "$0")/../lib/ima.sh"
ima_setup
R=(--trust ca.pem --ima-key imakey.pem)

# v3 FILE KEY HASH [TYPE VERSION]: the security.ima value of a v3 signature
# over FILE's fs-verity digest (SHA-256, 4096-byte blocks, no salt)
v3() {
    python3 - "$@" <<'PY'
import hashlib, subprocess, sys
path, key, halg = sys.argv[1:4]
typ = int(sys.argv[4]) if len(sys.argv) > 4 else 6
ver = int(sys.argv[5]) if len(sys.argv) > 5 else 3
data = open(path, "rb").read()
BS = 4096
def H(b): return hashlib.sha256(b).digest()
# fsverity.rst: hash each block (zero-padded), pack the hashes into blocks,
# repeat until one hash is left: the root; nothing for an empty file
if data:
    level = [H(data[i:i + BS].ljust(BS, b"\0")) for i in range(0, len(data), BS)]
    while len(level) > 1:
        packed = b"".join(level)
        level = [H(packed[i:i + BS].ljust(BS, b"\0")) for i in range(0, len(packed), BS)]
    root = level[0]
else:
    root = b"\0" * 32
desc = bytes([1, 1, 12, 0]) + b"\0" * 4 + len(data).to_bytes(8, "little") + root.ljust(64, b"\0") + b"\0" * 32 + b"\0" * 144
vdig = H(desc)
# struct ima_file_id {hash_type, hash_algorithm, hash[]}: type 6, sha256 = 4
fid = bytes([6, 4]) + vdig
algos = {"sha256": 4, "sha384": 5, "sha512": 6}
signed = hashlib.new(halg, fid).digest()
sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", key + ".key", "-pkeyopt", "digest:" + halg],
                     input=signed, capture_output=True, check=True).stdout
cert = subprocess.run(["openssl", "x509", "-in", key + ".pem", "-noout", "-ext", "subjectKeyIdentifier"],
                      capture_output=True, text=True, check=True).stdout
skid = bytes.fromhex(cert.split("\n")[1].strip().replace(":", ""))
blob = bytes([typ, ver, algos[halg]]) + skid[-4:] + len(sig).to_bytes(2, "big") + sig
print(blob.hex())
PY
}

for alg in sha256 sha384 sha512; do
    head -c $((9000 + RANDOM)) /dev/urandom >v$alg
    setfattr -n security.ima -v "0x$(v3 v$alg imakey $alg)" v$alg
    expect_exit 0 "v3 fs-verity $alg" -- "$KTRUST" verify-ima "${R[@]}" v$alg
done
expect_eq "$("$KTRUST" verify-ima --json "${R[@]}" vsha256 | jq -r '.ima.digest_kind + " " + (.ima.version|tostring)')" \
    "fs-verity 3" "v3: the digest is the fs-verity one"
# one block, several levels (over 128 blocks), empty
head -c 100 /dev/urandom >small; setfattr -n security.ima -v "0x$(v3 small imakey sha256)" small
expect_exit 0 "v3 one block" -- "$KTRUST" verify-ima "${R[@]}" small
head -c $((4096 * 130 + 5)) /dev/urandom >big; setfattr -n security.ima -v "0x$(v3 big imakey sha256)" big
expect_exit 0 "v3 two tree levels" -- "$KTRUST" verify-ima "${R[@]}" big
: >empty; setfattr -n security.ima -v "0x$(v3 empty imakey sha256)" empty
expect_exit 0 "v3 empty file" -- "$KTRUST" verify-ima "${R[@]}" empty
# the fs-verity digest of an empty file (SHA-256, 4 KiB blocks) is a
# published constant (fsverity-utils): an oracle independent of both codes
expect_eq "$("$KTRUST" verify-ima --json "${R[@]}" empty | jq -r .ima.digest)" \
    3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95 "fs-verity digest of an empty file"
flip big 300000
expect_exit 5 "v3 altered" -- "$KTRUST" verify-ima "${R[@]}" big
# a v3 blob claimed as v2 (type 3, version 3) and a v2 header in a type 6
cp small s3; setfattr -n security.ima -v "0x$(v3 s3 imakey sha256 3 3)" s3
expect_exit 5 "v3 in an EVM_IMA_XATTR_DIGSIG" -- "$KTRUST" verify-ima "${R[@]}" s3
cp small s4; setfattr -n security.ima -v "0x$(v3 s4 imakey sha256 6 2)" s4
expect_exit 5 "version 2 in an IMA_VERITY_DIGSIG" -- "$KTRUST" verify-ima "${R[@]}" s4
# the stray key: refused by .ima's restriction
cp small s5; setfattr -n security.ima -v "0x$(v3 s5 stray sha256)" s5
expect_exit 6 "v3 by a key .ima refuses" -- "$KTRUST" verify-ima --trust ca.pem --ima-key stray.pem s5

# modsig: the file, its PKCS#7, the trailer; no security.ima
head -c 5000 /dev/urandom >body
sign_module body m1 imakey.pem imakey.key
# a modsig counts only for MODULE_CHECK, KEXEC_KERNEL_CHECK and
# KEXEC_INITRAMFS_CHECK (ima_hook_supports_modsig): with no hook given, a
# good modsig is no verdict of trust; under FILE_CHECK it is not looked at
expect_exit 3 "modsig, hook not given" -- "$KTRUST" verify-ima "${R[@]}" m1
expect_exit 1 "modsig under FILE_CHECK: not read" -- "$KTRUST" verify-ima --func FILE_CHECK "${R[@]}" m1
expect_exit 64 "--func not a hook" -- "$KTRUST" verify-ima --func FILE "${R[@]}" m1
R=("${R[@]}" --func MODULE_CHECK)
expect_exit 0 "modsig by an .ima key" -- "$KTRUST" verify-ima "${R[@]}" m1
expect_exit 0 "modsig under KEXEC_KERNEL_CHECK" -- "$KTRUST" verify-ima "${R[@]}" --func KEXEC_KERNEL_CHECK m1
expect_eq "$("$KTRUST" verify-ima --json "${R[@]}" m1 | jq -r '.ima.source + " " + .ima.digest')" \
    "modsig $(sha256sum body | cut -c1-64)" "modsig: the digest is of the file without its signature"
expect_exit 1 "--no-modsig" -- "$KTRUST" verify-ima --no-modsig "${R[@]}" m1
# a builtin key is not an .ima key: the kernel checks a modsig against .ima only
expect_exit 2 "modsig by a builtin key only" -- "$KTRUST" verify-ima --trust imakey.pem m1
cp m1 m2; flip m2 100
expect_exit 5 "modsig altered" -- "$KTRUST" verify-ima "${R[@]}" m2
# security.ima with an unknown key: the kernel falls back to the modsig
cp m1 m3
setfattr -n security.ima -v "0x$(v3 m3 stray sha256 3 2 2>/dev/null || echo 0404)" m3
head -c 100 /dev/urandom >x; evmctl ima_sign --key stray.key x >/dev/null 2>&1 &&
    setfattr -n security.ima -v "$(getfattr -e hex -n security.ima x | sed -n 's/^security.ima=//p')" m3
expect_exit 0 "unknown xattr key: the modsig decides" -- "$KTRUST" verify-ima "${R[@]}" m3
# a digest in security.ima: the modsig decides too
cp m1 m4; setfattr -n security.ima -v 0x0404"$(sha256sum m4 | cut -c1-64)" m4
expect_exit 0 "digest_ng xattr: the modsig decides" -- "$KTRUST" verify-ima "${R[@]}" m4
finish
