#!/bin/bash
# chain and audit take a kernel image's builtin keys from the kernel-key
# cache ($KTRUST_CACHE/kernel-keys/SHA256, kcache_file.c) once they decoded
# them: the second run does not decode (the test build's
# $KTRUST_TEST_KCACHE_TRACE says "hit" or "decoded" per image) and says the
# same.  An entry is found only under the SHA-256 of the image in hand (a
# changed image at the same path with the same mtime is decoded again); a
# truncated, damaged or renamed entry is ignored and rewritten; a cache
# directory that is not this user's alone is not used; one that cannot be
# written does not fail the command; KTRUST_CACHE=off writes nothing;
# --kernel with no store (scan, verify-module) uses the same cache.  The
# corpus kernel is decoded 6 times (0.5 s each); the damage and permission
# cases use a small fake image through scan --kernel.  (The eviction of all
# but the 16 entries used last, and every truncation and byte change of an
# entry: tests/unit/test_kcache.c.)
. "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T" || exit 1
D=$CORPUS/debian
MS11=$CORPUS/trust/microsoft-uefi-ca-2011.pem
SHIM=$D/shimx64.efi.signed GRUB=$D/grubx64.efi.signed
MODS=("$D"/modules/*.ko)
cp "$D/vmlinuz-6.1.0-57-amd64" vmlinuz
export XDG_CACHE_HOME=$T/xdg-cache
C=$XDG_CACHE_HOME/ktrust # the default place, named below as KTRUST_CACHE too
E=$C/kernel-keys/$(sha256sum vmlinuz | cut -c1-64)
bash "$KT_SRC/tests/fixtures/make_kimage.sh" "$T/fx" >/dev/null || { echo "fixture generation failed"; exit 1; }
K=$T/fx/bzImage-gzip # a small fake image: a.der and b.der in its list

chain() { # CACHE ("": the default) -> the chain's JSON; the trace's lines in $T/trace
    rm -f "$T/trace"
    local set=(-u KTRUST_CACHE)
    [ -n "$1" ] && set=("KTRUST_CACHE=$1")
    env "${set[@]}" KTRUST_TEST_KCACHE_TRACE="$T/trace" \
        "$KTRUST_HOOKS" chain --json --db "$MS11" "$SHIM" "$GRUB" vmlinuz "${MODS[@]}" 2>&1
}
trace() { tr '\n' ' ' <"$T/trace" | sed 's/ $//'; }

# ---- the reference: no cache ----------------------------------------------
ref=$(chain off)
expect_eq "$(trace)" "decoded" "KTRUST_CACHE=off: decoded"
expect_eq "$(grep '"type":"chain"' <<<"$ref" | grep -c '"verdict":"trusted"')" "$((3 + ${#MODS[@]}))" \
    "every link and module trusted"
[ ! -e "$C" ] && [ ! -e "$XDG_CACHE_HOME" ]
expect_eq "$?" 0 "KTRUST_CACHE=off: nothing written"

# ---- first run decodes and saves; the second takes the cache ---------------
out1=$(chain "") # no KTRUST_CACHE: $XDG_CACHE_HOME/ktrust
expect_eq "$(trace)" "decoded" "first run: decoded"
expect_eq "$out1" "$ref" "first run: the same output"
expect_eq "$(stat -c %a "$C/kernel-keys") $(stat -c %a "$E")" "700 600" \
    "the entry in \$XDG_CACHE_HOME/ktrust/kernel-keys: private directory and entry"
out2=$(chain "$C")
expect_eq "$(trace)" "hit" "second run: from the cache, no decode"
expect_eq "$out2" "$ref" "second run: the same output"
kk=$("$KTRUST" kernel-keys --json vmlinuz | grep -o '"sha256":"[0-9a-f]*"' | cut -d'"' -f4)
cached=$(python3 -c 'import hashlib, struct, sys
b = open(sys.argv[1], "rb").read()
n, o = struct.unpack_from("<I", b, 48)[0], 52
for _ in range(n):
    l = struct.unpack_from("<I", b, o)[0]
    print(hashlib.sha256(b[o + 4:o + 4 + l]).hexdigest())
    o += 4 + l' "$E")
expect_eq "$cached" "$kk" "the entry holds the certificates kernel-keys finds"

# ---- audit uses the same entry ----------------------------------------------
: >"$T/file" # a file: "$T/file/cache" cannot be made
R=$T/root
mkdir -p "$R/sys/firmware/efi/efivars" "$R/boot/efi/EFI/debian" "$R/lib/modules/6.1.0-57-amd64"
cp "$CORPUS"/peers/ovmf-swtpm-boot/efivars/* "$R/sys/firmware/efi/efivars/"
cp "$SHIM" "$R/boot/efi/EFI/debian/shimx64.efi"
cp "$GRUB" "$R/boot/efi/EFI/debian/grubx64.efi"
cp vmlinuz "$R/boot/vmlinuz-6.1.0-57-amd64"
cp "${MODS[@]:0:3}" "$R/lib/modules/6.1.0-57-amd64/"
audit() { # CACHE -> audit's JSON
    rm -f "$T/trace"
    KTRUST_CACHE=$1 KTRUST_TEST_KCACHE_TRACE=$T/trace "$KTRUST_HOOKS" audit --json --root "$R" 2>&1
}
aref=$(audit off)
expect_eq "$(trace)" "decoded" "audit, no cache: decoded"
aout=$(audit "$C")
expect_eq "$(trace)" "hit" "audit: chain's entry, no decode"
expect_eq "$aout" "$aref" "audit: the same output"
expect_match "$(grep '"section":"modules"' <<<"$aout")" '"total":3,"trusted":3' "audit: the 3 modules trusted"

# ---- --kernel without a store (scan, verify-module) uses it too ---------------
# with a store, the store keeps them (scan_kernel_cache.sh)
for j in 1 2; do # -j 2: the background decode
    err=$(KTRUST_CACHE=$C "$KTRUST" scan -v -q -j $j --kernel vmlinuz "${MODS[@]:0:2}" 2>&1 >/dev/null)
    expect_match "$err" "vmlinuz: builtin keys from the kernel-key cache \(same SHA-256\)" \
        "scan -j $j --kernel, no store: from the cache"
done
expect_exit 0 "scan --kernel from the cache: the modules trusted" -- \
    env KTRUST_CACHE="$C" "$KTRUST" scan -q -j 2 --kernel vmlinuz "${MODS[@]}"
err=$(KTRUST_CACHE=$C "$KTRUST" verify-module -v --kernel vmlinuz "${MODS[0]}" 2>&1 >/dev/null)
expect_match "$err" "builtin keys from the kernel-key cache" "verify-module --kernel: from the cache"
err=$(KTRUST_CACHE=$T/kc2 "$KTRUST" scan -v -q --kernel "$K" "$T/fx/a.der" 2>&1 >/dev/null)
expect_match "$err" "builtin keys decoded, and cached$" "scan --kernel, empty cache: decoded, cached"
err=$(KTRUST_CACHE=$T/file/cache "$KTRUST" scan -v -q --kernel "$K" "$T/fx/a.der" 2>&1 >/dev/null)
expect_match "$err" "builtin keys decoded \(the kernel-key cache could not keep them\)" \
    "scan --kernel, cache not writable: decoded, said"

# ---- a changed image at the same path, with the same mtime -----------------
# another PE CheckSum: the file's SHA-256 changes, its Authenticode digest
# (which leaves CheckSum out) and signature do not, so the kernel stays trusted
cp -p vmlinuz vmlinuz.orig
python3 -c 'import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at = struct.unpack_from("<I", b, 0x3c)[0] + 4 + 20 + 64
b[at] ^= 0xff
open(sys.argv[1], "wb").write(b)' vmlinuz
touch -r vmlinuz.orig vmlinuz
E2=$C/kernel-keys/$(sha256sum vmlinuz | cut -c1-64)
out=$(chain "$C")
expect_eq "$(trace)" "decoded" "changed image, same path and mtime: decoded, not served"
expect_eq "$(grep -c '"verdict":"trusted"' <<<"$out")" "$(grep -c '"verdict":"trusted"' <<<"$ref")" \
    "the changed image is still trusted (CheckSum is outside the signed digest)"
[ -f "$E2" ] && [ -f "$E" ] && [ "$E" != "$E2" ]
expect_eq "$?" 0 "each image has its own entry"
# another image's entry under this image's name: it names the other image's
# digest inside, so it is not used
cp "$E" "$E2"
chain "$C" >/dev/null
expect_eq "$(trace)" "decoded" "an entry naming another image: decoded"
expect_eq "$(cmp -s "$E" "$E2"; echo $?)" 1 "... and rewritten for this image"
mv vmlinuz.orig vmlinuz

# ---- from here a small fake image (make_kimage.sh: a.der and b.der in its
# list) through scan --kernel, which decodes any image: each miss is cheap
E=$C/kernel-keys/$(sha256sum "$K" | cut -c1-64)
kscan() { # CACHE -> scan's file records; the trace's lines in $T/trace
    rm -f "$T/trace"
    env KTRUST_CACHE="$1" KTRUST_TEST_KCACHE_TRACE="$T/trace" \
        "$KTRUST_HOOKS" scan --json --kernel "$K" "$T/fx/a.der" "$T/fx/b.der" 2>&1 | grep '"file"'
}
kref=$(kscan off)
expect_eq "$(grep -c '"verdict":"trusted"' <<<"$kref")" 2 "fake image: its two keys are builtin"
kscan "$C" >/dev/null
expect_eq "$(trace)" "decoded" "fake image: decoded"
kscan "$C" >/dev/null
expect_eq "$(trace)" "hit" "fake image: then from the cache"

# ---- damaged entries: ignored and rewritten ---------------------------------
good=$(sha256sum <"$E")
damage() { # NAME CMD...: damage the entry, run, expect a decode and a rewrite
    local name=$1
    shift
    "$@"
    local out
    out=$(kscan "$C")
    expect_eq "$(trace)" "decoded" "$name: decoded"
    expect_eq "$out" "$kref" "$name: the same output"
    expect_eq "$(sha256sum <"$E")" "$good" "$name: entry rewritten"
}
damage "truncated entry" truncate -s 100 "$E"
damage "empty entry" truncate -s 0 "$E"
damage "one certificate byte flipped" python3 -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[200] ^= 1; open(sys.argv[1], "wb").write(b)' "$E"
damage "garbage" sh -c 'head -c 2000 /dev/urandom >"$1"' sh "$E"
damage "entry writable by others" chmod 666 "$E"
# whole and consistent, but sealed by another release (its decoder may have
# found other certificates): its trailer over "ktrust 0.0.0\n" and the body
damage "another release's entry" python3 -c 'import sys, hashlib
b = open(sys.argv[1], "rb").read()[:-32]
open(sys.argv[1], "wb").write(b + hashlib.sha256(b"ktrust 0.0.0\n" + b).digest())' "$E"
# the same body sealed with this release's line ("ktrust --version") is one
python3 -c 'import sys, hashlib
b = open(sys.argv[1], "rb").read()[:-32]
open(sys.argv[1], "wb").write(b + hashlib.sha256(sys.argv[2].encode() + b"\n" + b).digest())' \
    "$E" "$("$KTRUST" --version)"
kscan "$C" >/dev/null
expect_eq "$(trace)" "hit" "this release's seal: a hit (the release line is what differed)"
rm "$E" && mkdir "$E"
out=$(kscan "$C")
expect_eq "$(trace) $([ -d "$E" ] && echo dir)" "decoded dir" "a directory in the entry's place: decoded, left alone"
expect_eq "$out" "$kref" "... the same output"
rmdir "$E" && kscan "$C" >/dev/null

# ---- a cache directory that is not this user's alone is not used ------------
chmod 755 "$C/kernel-keys"
out=$(kscan "$C")
expect_eq "$(trace)" "decoded" "kernel-keys open to others (755): not used"
expect_eq "$out" "$kref" "... the same output"
chmod 700 "$C/kernel-keys"
mkdir -p "$T/other"
ln -s "$C/kernel-keys" "$T/other/kernel-keys"
out=$(kscan "$T/other")
expect_eq "$(trace)" "decoded" "kernel-keys a symbolic link: not used"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    mkdir -p "$T/theirs/kernel-keys"
    cp "$E" "$T/theirs/kernel-keys/"
    chmod 700 "$T/theirs/kernel-keys"
    chown -R nobody "$T/theirs/kernel-keys"
    out=$(kscan "$T/theirs")
    expect_eq "$(trace)" "decoded" "kernel-keys owned by another user (root's run): not used"
    expect_eq "$out" "$kref" "... the same output"
    chown -R 0 "$T/theirs/kernel-keys"
    chown nobody "$T/theirs/kernel-keys/${E##*/}"
    kscan "$T/theirs" >/dev/null
    expect_eq "$(trace)" "decoded" "an entry owned by another user: not used"
fi

# ---- a cache that cannot be written: the command works all the same ---------
for bad in "$T/file/cache" /proc/self/ktrust-cache; do
    out=$(kscan "$bad")
    expect_eq "$out" "$kref" "cache $bad cannot be made: the same output"
done
expect_exit 0 "unwritable cache: audit works" -- env KTRUST_CACHE="$T/file/cache" "$KTRUST" audit -q --root "$R"

finish
