#!/usr/bin/env bash
# bench/pe_floor.sh K CORPUS DEBIAN-CA DATA PAIRS: the "verify-pe at its
# hashing floor" section of bench/results.md (#38; called by bench/run.sh,
# runs alone too).  `verify-pe` of a big PE against `openssl dgst -sha256` of
# the same file, whole processes timed in alternated pairs (bench/pairs.py):
# the corpus vmlinuz (8 MB, Debian-signed) and a generated UKI-sized image
# (~60 MB: a stub PE from `ktrust wrap-key` with the vmlinuz as .linux and
# 52 MiB of random bytes as .initrd, signed by sbsign with a generated key).
# Target: at most 1.10x, best of the pairs and median of the per-pair ratios.
# Then `uki verify` (#34) of a real UKI of the same size (Debian's
# linuxx64.efi.stub through tests/fixtures/mkuki.sh): the Authenticode pass
# plus one SHA-256 pass over the sections (each section's digest, PCR 11),
# so about twice the floor; no target.
set -u
K=$1 C=$2 DEBCA=$3 DATA=$4 PAIRS=${5:-40}
SRC=$(cd "$(dirname "$0")/.." && pwd)
VMLINUZ=$C/debian/vmlinuz-6.1.0-57-amd64
TARGET=1.10
met() { [ "$(echo "$1 <= $2" | bc -l)" = 1 ] && echo yes || echo no; }

# the UKI, made once per data directory
UKI=$DATA/uki/uki.efi
if [ ! -s "$UKI" ] && command -v sbsign >/dev/null && command -v objcopy >/dev/null; then
    U=$DATA/uki
    rm -rf "$U" && mkdir -p "$U"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$U/uki.key" -out "$U/uki.pem" \
        -subj /CN=ktrust-bench-uki -days 3650 2>/dev/null &&
        "$K" wrap-key "$U/uki.pem" -o "$U/stub.efi" >/dev/null &&
        head -c $((52 << 20)) /dev/urandom >"$U/initrd" &&
        objcopy --add-section .linux="$VMLINUZ" --change-section-vma .linux=0x10000 \
            --set-section-flags .linux=contents,alloc,load,readonly,data \
            --add-section .initrd="$U/initrd" --change-section-vma .initrd=0x1000000 \
            --set-section-flags .initrd=contents,alloc,load,readonly,data \
            "$U/stub.efi" "$U/uki.unsigned" &&
        sbsign --key "$U/uki.key" --cert "$U/uki.pem" --output "$UKI" "$U/uki.unsigned" \
            >/dev/null 2>&1
    rm -f "$U/initrd" "$U/uki.unsigned" "$U/stub.efi"
fi

# a real UKI (systemd-boot-efi's stub), made once per data directory
RUKI=$DATA/uki/real.efi
if [ ! -s "$RUKI" ] && [ -s "$DATA/uki/uki.pem" ] && command -v sbsign >/dev/null; then
    U=$DATA/uki
    head -c $((52 << 20)) /dev/urandom >"$U/initrd" && printf 'ID=debian\n' >"$U/osrel" &&
        printf 'root=/dev/vda1' >"$U/cmdline" &&
        "$SRC/tests/fixtures/mkuki.sh" "$U/real.unsigned" .linux="$VMLINUZ" .osrel="$U/osrel" \
            .cmdline="$U/cmdline" .initrd="$U/initrd" >/dev/null &&
        sbsign --key "$U/uki.key" --cert "$U/uki.pem" --output "$RUKI" "$U/real.unsigned" \
            >/dev/null 2>&1
    rm -f "$U/initrd" "$U/real.unsigned"
fi

echo "## verify-pe at its hashing floor: against \`openssl dgst -sha256\` of the same file"
echo
echo "Whole processes, $PAIRS pairs, the two commands alternated (bench/pairs.py), warm page cache. Ratio = verify-pe / dgst: of the best runs, and the median of the per-pair ratios; CPU = median user + system seconds of one run (waiting for a busy core is not in it). Target ≤ $TARGET×."
echo
echo "| file | size | verify-pe best / median (s) | dgst best / median (s) | ratio best | ratio median | CPU verify-pe / dgst (s) | ratio CPU | met |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
row() { # NAME FILE CERT [COMMAND WORDS: verify-pe]
    local name=$1 file=$2 cert=$3
    shift 3
    [ $# -gt 0 ] || set -- verify-pe
    [ -s "$file" ] && [ -s "$cert" ] || { echo "| $name | (not made: sbsign, objcopy, systemd-boot-efi?) | | | | | | | |"; return; }
    if ! "$K" "$@" -q --trust "$cert" "$file"; then
        echo "| $name | $* does not call it trusted: not timed | | | | | | | |"
        return
    fi
    set -- "$name" "$file" "$cert" "$@"
    cat "$2" >/dev/null
    read -r KB KM DB DM RB RM KC DC RC < <(python3 "$SRC/bench/pairs.py" "$PAIRS" -- \
        "$K" "${@:4}" -q --trust "$3" "$2" -- openssl dgst -sha256 "$2")
    echo "| $1 | $(awk -v b="$(stat -c %s "$2")" 'BEGIN {printf "%.1f", b / 1048576}') MiB | $KB / $KM | $DB / $DM | $RB | $RM | $KC / $DC | $RC | $(met "$RB" $TARGET) / $(met "$RM" $TARGET) |"
}
row "$(basename "$VMLINUZ") (Debian-signed)" "$VMLINUZ" "$DEBCA"
row "UKI-sized image (stub + vmlinuz + 52 MiB initrd, sbsign)" "$UKI" "$DATA/uki/uki.pem"
echo
echo "\`ktrust uki verify\` of a real UKI (Debian's linuxx64.efi.stub, the vmlinuz, 52 MiB initrd, sbsign): the Authenticode pass and one SHA-256 pass over its sections (their digests, PCR 11), so about twice the floor; no target."
echo
echo "| file | size | uki verify best / median (s) | dgst best / median (s) | ratio best | ratio median | CPU uki verify / dgst (s) | ratio CPU | ≤ 1.10× |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
row "UKI (systemd-stub 252 + vmlinuz + 52 MiB initrd, sbsign)" "$RUKI" "$DATA/uki/uki.pem" uki verify
echo
