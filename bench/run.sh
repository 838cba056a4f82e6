#!/usr/bin/env bash
# make bench: build the release binary, prepare the data, print one table of
# ratios (ktrust time / reference time, measured in this script, same machine,
# warm page cache, best of N runs).  Output: bench/results.md (also printed).
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC"
make --no-print-directory all >/dev/null || exit 1
K=$SRC/build/ktrust
C=${KTRUST_CORPUS:-$SRC/../shared/corpus}
[ -f "$C/README.md" ] || { echo "bench: corpus not found at $C" >&2; exit 1; }
C=$(cd "$C" && pwd)
DATA=${KT_BENCH_DATA:-/tmp/ktrust-bench}
RUNS=${KT_BENCH_RUNS:-3}
OUT=$SRC/bench/results.md
mkdir -p "$DATA"

# --- data: the 4,023 modules of the Debian kernel package ------------------
if [ ! -f "$DATA/unpacked.ok" ]; then
    echo "bench: unpacking $(basename "$C"/debian/linux-image-*.deb) into $DATA/pkg ..." >&2
    rm -rf "$DATA/pkg"
    dpkg-deb -x "$C"/debian/linux-image-*.deb "$DATA/pkg" && touch "$DATA/unpacked.ok"
fi
MODDIR=$(echo "$DATA"/pkg/lib/modules/*)
find "$MODDIR" -name '*.ko*' -type f -print0 | sort -z > "$DATA/modules.list0"
NMOD=$(tr -cd '\0' < "$DATA/modules.list0" | wc -c)
MODBYTES=$(xargs -0 stat -c %s < "$DATA/modules.list0" | awk '{s+=$1} END {print s}')
VMLINUZ=$C/debian/vmlinuz-6.1.0-57-amd64

now() { date +%s.%N; }
# best TIME of RUNS runs of a command (stdout/stderr discarded)
best() {
    local b="" s e d
    for _ in $(seq "$RUNS"); do
        s=$(now); "$@" >/dev/null 2>&1; e=$(now)
        d=$(echo "$e - $s" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$d < $b" | bc -l)" = 1 ]; then b=$d; fi
    done
    printf '%.4f' "$b"
}
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
peak_rss_mib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'; }

# warm the cache
xargs -0 cat < "$DATA/modules.list0" > /dev/null

{
echo "# ktrust benchmarks"
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uname -sr); $(date -u +%Y-%m-%d)."
echo "Each time is the best of $RUNS runs with a warm page cache. Ratio = ktrust / reference (lower is better)."
echo
echo "## Modules: $NMOD signed modules, $((MODBYTES / 1048576)) MiB (Debian linux-image-6.1.0-57-amd64)"
echo
T_FLOOR=$(best sh -c "xargs -0 openssl dgst -sha256 < '$DATA/modules.list0'")
T_J1=$(best "$K" scan -q -j 1 --kernel "$VMLINUZ" "$MODDIR")
T_J2=$(best "$K" scan -q -j 2 --kernel "$VMLINUZ" "$MODDIR")
"$K" kernel-keys --pem "$VMLINUZ" > "$DATA/kernel-key.pem" 2>/dev/null
T_KK=$(best "$K" kernel-keys -q "$VMLINUZ")
T_T1=$(best "$K" scan -q -j 1 --trust "$DATA/kernel-key.pem" "$MODDIR")
T_T2=$(best "$K" scan -q -j 2 --trust "$DATA/kernel-key.pem" "$MODDIR")
RSA_PER_S=$(openssl speed -seconds 2 rsa4096 2>/dev/null | awk '/^rsa 4096/ {print $NF}')
T_RSA=$(echo "$NMOD / $RSA_PER_S" | bc -l)
echo "| run | seconds | MB/s | ratio to SHA-256 floor | target |"
echo "| --- | --- | --- | --- | --- |"
echo "| \`openssl dgst -sha256\` over the same files, one process (the floor) | $T_FLOOR | $(printf '%.0f' "$(echo "$MODBYTES / 1000000 / $T_FLOOR" | bc -l)") | 1.00 | |"
echo "| \`ktrust scan -j 1 --kernel\` (verify every signature) | $T_J1 | $(printf '%.0f' "$(echo "$MODBYTES / 1000000 / $T_J1" | bc -l)") | $(ratio "$T_J1" "$T_FLOOR") | ≤ 1.3 |"
echo "| \`ktrust scan -j 2 --kernel\` | $T_J2 | $(printf '%.0f' "$(echo "$MODBYTES / 1000000 / $T_J2" | bc -l)") | $(ratio "$T_J2" "$T_FLOOR") | ≤ 0.8 |"
echo
echo "Where the time goes:"
echo
echo "| part | seconds | ratio to the floor |"
echo "| --- | --- | --- |"
echo "| \`ktrust kernel-keys\` alone: xz-decoding the vmlinux up to its certificate list (once per run) | $T_KK | $(ratio "$T_KK" "$T_FLOOR") |"
echo "| \`ktrust scan -j 1 --trust KEY\` (the same verification without the kernel image) | $T_T1 | $(ratio "$T_T1" "$T_FLOOR") |"
echo "| \`ktrust scan -j 2 --trust KEY\` | $T_T2 | $(ratio "$T_T2" "$T_FLOOR") |"
echo "| $NMOD RSA-4096 signature checks alone, at \`openssl speed\`'s $RSA_PER_S verify/s | $(printf '%.4f' "$T_RSA") | $(ratio "$T_RSA" "$T_FLOOR") |"
echo
# openssl cms -verify per module, on a sample, extrapolated
SAMPLE=${KT_BENCH_CMS_SAMPLE:-200}
CMSDIR=$DATA/cms; rm -rf "$CMSDIR"; mkdir -p "$CMSDIR"
"$K" kernel-keys --pem "$VMLINUZ" > "$CMSDIR/kernel.pem" 2>/dev/null || true
i=0
while IFS= read -r -d '' m && [ $i -lt "$SAMPLE" ]; do
    case $m in *.ko) ;; *) continue ;; esac
    python3 "$SRC/bench/split_modsig.py" "$m" "$CMSDIR/$i.body" "$CMSDIR/$i.p7s" || continue
    i=$((i + 1))
done < "$DATA/modules.list0"
cms_loop() { for j in $(seq 0 $(($1 - 1))); do openssl cms -verify -binary -inform DER -in "$CMSDIR/$j.p7s" -content "$CMSDIR/$j.body" -certfile "$CMSDIR/kernel.pem" -nointern -noverify -purpose any -out /dev/null 2>/dev/null; done; }
if [ -s "$CMSDIR/kernel.pem" ] && [ $i -gt 0 ]; then
    RUNS_SAVE=$RUNS; RUNS=1
    T_CMS=$(best cms_loop "$i")
    RUNS=$RUNS_SAVE
    T_CMS_ALL=$(echo "$T_CMS * $NMOD / $i" | bc -l)
    echo "\`openssl cms -verify\` once per module (a loop of $i modules, extrapolated to $NMOD): $(printf '%.1f' "$T_CMS_ALL") s; \`ktrust scan -j 1 --kernel\` is $(printf '%.0f' "$(echo "$T_CMS_ALL / $T_J1" | bc -l)")× faster."
    echo
fi
RSS=$(peak_rss_mib "$K" scan -q -j 2 --kernel "$VMLINUZ" "$MODDIR")
echo "Peak RSS of \`ktrust scan -j 2\` over the tree: $RSS MiB (target ≤ 64 MiB)."
echo
echo "## PE images: ktrust verify-pe against the peers, per file"
echo
echo "| file | size | ktrust verify-pe (s) | sbverify --cert | ratio | pesign -h | ratio | osslsigncode verify | ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
DEBCA=$DATA/debian-ca.pem
"$K" load-pe-key --store "$DATA/bench.db" --trust "$C/trust/microsoft-uefi-ca-2011.pem" "$C/debian/shimx64.efi.signed" >/dev/null 2>&1 || true
"$K" keyring export --store "$DATA/bench.db" --keyring secondary --format pem -o "$DEBCA" >/dev/null 2>&1 || true
for f in "$C"/debian/*.efi.signed "$VMLINUZ" "$C"/windows/*.exe "$C"/peers/uthenticode/*/*.exe "$C"/peers/uthenticode/*.exe; do
    [ -f "$f" ] || continue
    case $f in *shimx64*) cert=$C/trust/microsoft-uefi-ca-2011.pem ;; *debian*) cert=$DEBCA ;; *) cert=$C/trust/microsoft-uefi-ca-2011.pem ;; esac
    tk=$(best "$K" verify-pe --allow-sha1 --trust "$cert" "$f")
    ts=$(best sbverify --cert "$cert" "$f")
    tp=$(best pesign -h -i "$f")
    to=$(best osslsigncode verify -ignore-cdp -ignore-crl -in "$f")
    echo "| $(basename "$f") | $(( $(stat -c %s "$f") / 1024 )) KiB | $tk | $ts | $(ratio "$tk" "$ts") | $tp | $(ratio "$tk" "$tp") | $to | $(ratio "$tk" "$to") |"
done
echo
echo "(sbverify and osslsigncode verify the signature against the given certificate; pesign -h only hashes the image.)"
} | tee "$OUT"
