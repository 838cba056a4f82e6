#!/bin/bash
# ktrust kernel-keys: the builtin keys of the corpus Debian kernel (checked
# against xz + openssl on the bytes ktrust points at), fake bzImages with
# every kernel compression, and the error cases with their exit codes.
. "$(dirname "$0")/../lib/common.sh"

field() { # JSON-LINE KEY -> string or number value
    printf '%s' "$1" | grep -o "\"$2\":\"\\?[^,\"}]*" | head -1 | sed 's/.*:"\?//'
}
fp() { openssl x509 -inform DER -in "$1" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d : | tr A-F a-f; }

# ---- fake images -----------------------------------------------------------
bash "$KT_SRC/tests/fixtures/make_kimage.sh" "$T/fx" || { echo "fixture generation failed"; exit 1; }
fa=$(fp "$T/fx/a.der")
fb=$(fp "$T/fx/b.der")
for img in bzImage-gzip bzImage-xz bzImage-lzma bzImage-zstd bzImage-lz4 bzImage-lz4frame vmlinux.elf; do
    out=$("$KTRUST" kernel-keys --json "$T/fx/$img")
    rc=$?
    expect_eq "$rc" 0 "$img: exit"
    expect_eq "$(printf '%s\n' "$out" | wc -l)" 2 "$img: two keys (decoys ignored)"
    expect_eq "$(field "$(printf '%s\n' "$out" | sed -n 1p)" sha256)" "$fa" "$img: first key is a.der"
    expect_eq "$(field "$(printf '%s\n' "$out" | sed -n 2p)" sha256)" "$fb" "$img: second key is b.der"
done
out=$("$KTRUST" kernel-keys "$T/fx/bzImage-zstd")
expect_match "$out" "builtin key 2" "text output numbers keys"
expect_match "$out" "subject: +CN=Extra trusted key" "text output shows the subject"

# no list, unsupported compression, garbage, truncation, unreadable, usage
expect_exit 1 "only decoys: no list" -- "$KTRUST" kernel-keys "$T/fx/nolist.bzImage"
err=$("$KTRUST" kernel-keys "$T/fx/nolist.bzImage" 2>&1)
expect_match "$err" "^ktrust: .*nolist.bzImage: no builtin certificate list found" "no-list message"
if [ -f "$T/fx/bzImage-bzip2" ]; then
    expect_exit 3 "bzip2 unsupported" -- "$KTRUST" kernel-keys "$T/fx/bzImage-bzip2"
    err=$("$KTRUST" kernel-keys "$T/fx/bzImage-bzip2" 2>&1)
    expect_match "$err" "bzip2 .*\(at offset 1024\)$" "bzip2 message with offset"
fi
printf 'not a kernel at all, just text\n' >"$T/text"
expect_exit 4 "garbage" -- "$KTRUST" kernel-keys "$T/text"
head -c 300000 "$T/fx/bzImage-xz" >"$T/cut"
expect_exit 4 "truncated xz payload" -- "$KTRUST" kernel-keys "$T/cut"
err=$("$KTRUST" kernel-keys "$T/cut" 2>&1)
expect_match "$err" "^ktrust: .*cut: .*payload .*outside.*\(at offset 584\)$" "truncation names the payload field"
expect_exit 66 "missing file" -- "$KTRUST" kernel-keys "$T/nope"
expect_exit 64 "no argument" -- "$KTRUST" kernel-keys
expect_exit 0 "help" -- "$KTRUST" kernel-keys --help
expect_exit 0 "-q" -- "$KTRUST" kernel-keys -q "$T/fx/bzImage-gzip"
expect_eq "$("$KTRUST" kernel-keys -q "$T/fx/bzImage-gzip" 2>&1)" "" "-q prints nothing"
# several images: the worst exit code wins
expect_exit 4 "worst of several" -- "$KTRUST" kernel-keys "$T/fx/bzImage-gzip" "$T/text" "$T/fx/nolist.bzImage"

# ---- streaming --kernel: decoding stops at the list --------------------------
# a vmlinux with 12 MiB after its list, as a bare xz stream whose tail is cut:
# a --kernel user (kt_kimage_foreach_cert) still gets the keys, since it stops
# decoding once the list and its size words are seen; a cut before the list
# is an error.  (data.p7 is signed by a.der, the list's first key.)
{ cat "$T/fx/vmlinux.bin"; yes 'filler after the certificate list' | head -c $((12 << 20)); } |
    xz -0 -c >"$T/big.xz"
bigsz=$(stat -c %s "$T/big.xz")
head -c $((bigsz - 100)) "$T/big.xz" >"$T/tailcut.xz"
head -c 100000 "$T/big.xz" >"$T/earlycut.xz"
printf 'signed by the builtin key\n' >"$T/data.txt"
openssl cms -sign -binary -noattr -nodetach -signer "$T/fx/a.pem" -inkey "$T/fx/a.key" \
    -outform DER -in "$T/data.txt" -out "$T/data.p7" 2>/dev/null
expect_exit 2 "without --kernel the signer is unknown" -- "$KTRUST" verify-pkcs7 -q "$T/data.p7"
expect_exit 0 "--kernel whole stream" -- "$KTRUST" verify-pkcs7 -q --kernel "$T/big.xz" "$T/data.p7"
expect_exit 0 "--kernel with the tail after the list cut" -- \
    "$KTRUST" verify-pkcs7 -q --kernel "$T/tailcut.xz" "$T/data.p7"
expect_exit 4 "--kernel cut before the list" -- \
    "$KTRUST" verify-pkcs7 -q --kernel "$T/earlycut.xz" "$T/data.p7"
err=$("$KTRUST" verify-pkcs7 --kernel "$T/earlycut.xz" "$T/data.p7" 2>&1)
expect_match "$err" "xz stream: truncated \(at offset 100000\)" "cut before the list: where"
expect_exit 0 "--kernel bzImage-lz4" -- "$KTRUST" verify-pkcs7 -q --kernel "$T/fx/bzImage-lz4" "$T/data.p7"
expect_exit 0 "scan --kernel with the tail cut" -- "$KTRUST" scan -q --kernel "$T/tailcut.xz" "$T/fx/a.der"

# ---- the corpus kernel -----------------------------------------------------
corpus
K=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
out=$("$KTRUST" kernel-keys --json "$K")
expect_eq "$?" 0 "corpus: exit"
expect_eq "$(printf '%s\n' "$out" | wc -l)" 1 "corpus: exactly one key"
expect_eq "$(field "$out" serial)" 5ee11331142993a99cd5035b98534874661bdee5 "corpus: serial"
expect_eq "$(field "$out" subject)" "CN=Build time autogenerated kernel key" "corpus: subject"
expect_eq "$(field "$out" compression)" xz "corpus: xz"
# oracle: decompress with xz ourselves, cut the certificate ktrust reports
# and let openssl read it
off=$(field "$out" vmlinux_offset)
ss=$(od -An -tu1 -j $((0x1f1)) -N1 "$K" | tr -d ' ')
po=$(od -An -tu4 -j $((0x248)) -N4 "$K" | tr -d ' ')
pl=$(od -An -tu4 -j $((0x24c)) -N4 "$K" | tr -d ' ')
tail -c +$(((ss + 1) * 512 + po + 1)) "$K" | head -c "$pl" | xz -dc 2>/dev/null >"$T/vmlinux"
len=$((0x$(tail -c +$((off + 3)) "$T/vmlinux" | head -c 2 | od -An -tx1 | tr -d ' ') + 4))
tail -c +$((off + 1)) "$T/vmlinux" | head -c "$len" >"$T/key.der"
expect_eq "$(openssl x509 -inform DER -in "$T/key.der" -noout -serial | cut -d= -f2 | tr A-F a-f)" \
    5ee11331142993a99cd5035b98534874661bdee5 "corpus: openssl reads the same certificate"
expect_eq "$(fp "$T/key.der")" "$(field "$out" sha256)" "corpus: sha256 matches openssl"
# ktrust reads the uncompressed vmlinux the same way
out2=$("$KTRUST" kernel-keys --json "$T/vmlinux")
expect_eq "$(field "$out2" sha256)" "$(field "$out" sha256)" "corpus: raw vmlinux gives the same key"
expect_eq "$(field "$out2" compression)" none "corpus: raw vmlinux compression none"
# --pem: openssl reads the same certificate
if [ -n "${CORPUS:-}" ]; then
    expect_eq "$("$KTRUST" kernel-keys --pem "$CORPUS/debian/vmlinuz-6.1.0-57-amd64" | openssl x509 -noout -serial)" \
        "serial=5EE11331142993A99CD5035B98534874661BDEE5" "kernel-keys --pem: openssl reads the builtin key"
fi
finish
