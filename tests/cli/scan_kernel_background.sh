#!/bin/bash
# scan -j 2 --kernel decodes the kernel image on a thread of its own while the
# workers read and digest modules (kt_scan_verify with -j 2 or more, modules
# kept prepared until the keys are in).  The results must be exactly those of
# -j 1, which decodes first: on the corpus (modules, PE images, certificates),
# on a tampered and an unsigned module, past the 4,096 modules kept waiting
# (hard links), and when the image turns out to be no kernel: the same setup
# error and exit code, and no result printed.
. "$(dirname "$0")/../lib/common.sh"
corpus
export KTRUST_CACHE=off # the decode on its own thread is what is tested: no cache hit
V=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
D=$T/tree
mkdir -p "$D/mods" "$D/many"
cp "$CORPUS"/debian/modules/*.ko "$D/mods/"
cp "$CORPUS"/debian/shimx64.efi.signed "$CORPUS"/trust/microsoft-uefi-ca-2011.pem "$D/"
cp "$D/mods/crc7.ko" "$D/mods/crc7-tampered.ko"
printf '\x01' | dd of="$D/mods/crc7-tampered.ko" bs=1 seek=2000 conv=notrunc 2>/dev/null
head -c 3000 "$D/mods/crc7.ko" >"$D/mods/unsigned.ko"
printf 'not a signed object\n' >"$D/notes.txt"
# 4,300 modules: more than the 4,096 kept waiting for the keys
for i in $(seq 1 100); do
    mkdir "$D/many/$i"
    ln "$D"/mods/[a-b]*.ko "$D"/mods/[c-z]*.ko "$D/many/$i/" 2>/dev/null
done
nmany=$(find "$D/many" -type f | wc -l)
[ "$nmany" -gt 4096 ]
expect_eq "$?" 0 "more than 4096 modules under many/ ($nmany)"

run() { # JOBS [extra args] -> sorted per-file records (the summary's timing left out)
    local j=$1
    shift
    "$KTRUST" scan --json -j "$j" "$@" "$D" 2>"$T/err.$j" | grep '"file"' | sort
}
for how in "no store" "a store"; do
    args=(--kernel "$V")
    if [ "$how" = "a store" ]; then
        rm -f "$T/s.db"
        "$KTRUST" keyring add -q --store "$T/s.db" --keyring builtin "$D/microsoft-uefi-ca-2011.pem"
        cp "$T/s.db" "$T/s0.db"
        args+=(--store "$T/s.db")
    fi
    one=$(run 1 "${args[@]}")
    rc1=$?
    [ "$how" = "a store" ] && cp "$T/s0.db" "$T/s.db" # no cached keys: decoded again
    two=$("$KTRUST" scan -v --json -j 2 "${args[@]}" "$D" 2>"$T/err.2" | grep '"file"' | sort)
    expect_match "$(cat "$T/err.2")" "builtin keys decoded" "$how: -j 2 decoded the image"
    expect_eq "$(printf '%s\n' "$two" | wc -l)" "$(printf '%s\n' "$one" | wc -l)" "$how: as many records"
    expect_eq "$two" "$one" "$how: -j 2 (background decode) gives -j 1's records"
    expect_eq "$(printf '%s\n' "$two" | grep '"type":"module"' | grep -c '"verdict":"trusted"')" \
        $((41 * 101)) "$how: the 41 corpus modules and their 100 links each trusted"
    expect_match "$(printf '%s\n' "$two" | grep crc7-tampered)" '"verdict":"rejected"' "$how: tampered module rejected"
    expect_match "$(printf '%s\n' "$two" | grep '/unsigned.ko')" '"verdict":"(unsigned|malformed)"' "$how: cut module not trusted"
done
# exit codes agree too (text mode)
"$KTRUST" scan -q -j 1 --kernel "$V" "$D"
rc1=$?
"$KTRUST" scan -q -j 2 --kernel "$V" "$D"
expect_eq "$?" "$rc1" "same exit code"

# ---- an image that is no kernel: the setup error, nothing else -------------
printf 'text, not a kernel\n' >"$T/notakernel"
for j in 1 2; do
    out=$("$KTRUST" scan -j $j --kernel "$T/notakernel" "$D" 2>"$T/kerr.$j")
    echo $? >"$T/krc.$j"
    printf '%s' "$out" >"$T/kout.$j"
done
expect_eq "$(cat "$T/krc.2")" "$(cat "$T/krc.1")" "bad --kernel: same exit code ($(cat "$T/krc.1"))"
expect_eq "$(cat "$T/kerr.2")" "$(cat "$T/kerr.1")" "bad --kernel: same message"
expect_match "$(cat "$T/kerr.2")" "^ktrust: --kernel .*notakernel" "bad --kernel: the message names the option and file"
expect_eq "$(cat "$T/kout.2")" "$(cat "$T/kout.1")" "bad --kernel: same stdout"
expect_eq "$(grep -c . "$T/kout.2")" 0 "bad --kernel: no result printed"
j1=$("$KTRUST" scan --json -j 1 --kernel "$T/notakernel" "$D" 2>/dev/null)
j2=$("$KTRUST" scan --json -j 2 --kernel "$T/notakernel" "$D" 2>/dev/null)
expect_eq "$j2" "$j1" "bad --kernel: same JSON"
finish
