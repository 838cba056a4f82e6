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
PE_RUNS=${KT_BENCH_PE_RUNS:-10} # per PE file: milliseconds each, so more runs
PAIRS=${KT_BENCH_PAIRS:-40} # verify-pe against openssl dgst (bench/pe_floor.sh): alternated pairs
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

# best TIME of RUNS runs of a command (bench/best_of.py: no shell, no timer
# process inside the timed interval); $PREP, when set, runs before each timed
# run (untimed)
best() {
    if [ -n "${PREP:-}" ]; then
        python3 "$SRC/bench/best_of.py" "$RUNS" --prep "$PREP" -- "$@"
    else
        python3 "$SRC/bench/best_of.py" "$RUNS" -- "$@"
    fi
}
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
mbs() { printf '%.0f' "$(echo "$1 / 1000000 / $2" | bc -l)"; }
peak_rss_mib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'; }
# user and system CPU seconds of one run: "USER SYS"
cpu_split() { /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1; }
met() { [ "$(echo "$1 <= $2" | bc -l)" = 1 ] && echo yes || echo no; }

# warm the cache
xargs -0 cat < "$DATA/modules.list0" > /dev/null

# stores: one with the builtin key (no kernel decode), one empty for the
# kernel-key cache runs (copied fresh before each first run)
"$K" kernel-keys --pem "$VMLINUZ" > "$DATA/kernel-key.pem" 2>/dev/null
rm -f "$DATA/keyed.db" "$DATA/plain.db" "$DATA/run.db"
"$K" keyring add -q --store "$DATA/keyed.db" --keyring builtin "$DATA/kernel-key.pem"
"$K" keyring add -q --store "$DATA/plain.db" --keyring builtin "$C/trust/microsoft-uefi-ca-2011.pem"

# the 10x tree: the same module files hard-linked under ten directories
TEN=$DATA/tree10
if [ ! -f "$DATA/tree10.ok" ]; then
    rm -rf "$TEN"; mkdir -p "$TEN"
    for i in 0 1 2 3 4 5 6 7 8 9; do cp -al "$MODDIR" "$TEN/$i"; done
    touch "$DATA/tree10.ok"
fi

{
echo "# ktrust benchmarks"
echo
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(uname -sr); $(date -u +%Y-%m-%d); load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Each time is the best of $RUNS runs with a warm page cache. Ratio = ktrust / reference (lower is better)."
echo
echo "## Modules: $NMOD signed modules, $((MODBYTES / 1048576)) MiB (Debian linux-image-6.1.0-57-amd64)"
echo
T_DGST=$(best sh -c "xargs -0 openssl dgst -sha256 < '$DATA/modules.list0'")
RSA_PER_S=$(openssl speed -seconds 3 rsa4096 2>/dev/null | awk '/^rsa 4096/ {print $NF}')
T_RSA=$(printf '%.4f' "$(echo "$NMOD / $RSA_PER_S" | bc -l)")
F=$(printf '%.4f' "$(echo "$T_DGST + $T_RSA" | bc -l)")
T_KK=$(best "$K" kernel-keys -q "$VMLINUZ")
T_S1=$(best "$K" scan -q -j 1 --store "$DATA/keyed.db" "$MODDIR")
T_S2=$(best "$K" scan -q -j 2 --store "$DATA/keyed.db" "$MODDIR")
PREP="cp '$DATA/plain.db' '$DATA/run.db'"
T_K1=$(best "$K" scan -q -j 2 --store "$DATA/run.db" --kernel "$VMLINUZ" "$MODDIR")
PREP=
T_K2=$(best "$K" scan -q -j 2 --store "$DATA/run.db" --kernel "$VMLINUZ" "$MODDIR")
T_KNS=$(best "$K" scan -q -j 2 --kernel "$VMLINUZ" "$MODDIR")
K1_TARGET=$(printf '%.4f' "$(echo "$T_KK + 0.35 * $F" | bc -l)")
RUNS_SAVE=$RUNS; RUNS=1
T_TEN=$(best "$K" scan -q -j 2 --store "$DATA/keyed.db" "$TEN")
RUNS=$RUNS_SAVE
RSS1=$(peak_rss_mib "$K" scan -q -j 2 --store "$DATA/run.db" --kernel "$VMLINUZ" "$MODDIR")
PREP="cp '$DATA/plain.db' '$DATA/run.db'"; eval "$PREP"; PREP=
RSSK=$(peak_rss_mib "$K" scan -q -j 2 --store "$DATA/run.db" --kernel "$VMLINUZ" "$MODDIR")
RSS10=$(peak_rss_mib "$K" scan -q -j 2 --store "$DATA/keyed.db" "$TEN")
echo "The floor F = T(\`openssl dgst -sha256\` over the same files, one process) + $NMOD × t_verify (RSA-4096 at \`openssl speed -seconds 3\`'s $RSA_PER_S verify/s) = $T_DGST + $T_RSA = **$F s**."
echo
echo "| run | seconds | MB/s | ratio to F | target | met |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| \`openssl dgst -sha256\`, one process | $T_DGST | $(mbs "$MODBYTES" "$T_DGST") | $(ratio "$T_DGST" "$F") | | |"
echo "| \`scan -j 1\`, builtin key in the store | $T_S1 | $(mbs "$MODBYTES" "$T_S1") | $(ratio "$T_S1" "$F") | ≤ 1.15 | $(met "$(ratio "$T_S1" "$F")" 1.15) |"
echo "| \`scan -j 2\`, builtin key in the store | $T_S2 | $(mbs "$MODBYTES" "$T_S2") | $(ratio "$T_S2" "$F") | ≤ 0.60 | $(met "$(ratio "$T_S2" "$F")" 0.60) |"
echo "| \`scan -j 2 --kernel\`, first run (store without the image's keys) | $T_K1 | $(mbs "$MODBYTES" "$T_K1") | $(ratio "$T_K1" "$F") | ≤ T(kernel-keys) + 0.35 F = $K1_TARGET s | $(met "$T_K1" "$K1_TARGET") |"
echo "| \`scan -j 2 --kernel\`, next runs (keys from the store's cache) | $T_K2 | $(mbs "$MODBYTES" "$T_K2") | $(ratio "$T_K2" "$F") | one hash of the image more than \`scan -j 2\` | |"
echo "| \`scan -j 2 --kernel\`, no store (decoded every run) | $T_KNS | $(mbs "$MODBYTES" "$T_KNS") | $(ratio "$T_KNS" "$F") | | |"
echo "| \`kernel-keys\` alone: xz-decoding the vmlinux up to its list | $T_KK | | $(ratio "$T_KK" "$F") | | |"
echo "| \`scan -j 2\` over the 10× tree ($((NMOD * 10)) files, one run) | $T_TEN | $(mbs "$((MODBYTES * 10))" "$T_TEN") | $(ratio "$T_TEN" "$F") | ≤ 10.5 × \`scan -j 2\` = $(printf '%.4f' "$(echo "10.5 * $T_S2" | bc -l)") s | $(met "$T_TEN" "$(echo "10.5 * $T_S2" | bc -l)") ($(ratio "$T_TEN" "$T_S2")×) |"
echo
echo "Peak RSS: \`scan -j 2 --kernel\` $RSSK MiB on a first run, $RSS1 MiB from the cache; \`scan -j 2\` over the 10× tree $RSS10 MiB (target ≤ 64 MiB, the same for 1× and 10×)."
echo
echo "Where the time goes (CPU seconds of one run, from \`time\`; hashing and signature checks are the reference costs above):"
echo
echo "| run | user | system | of which hashing | of which signature checks | the rest (ktrust, libc, I/O, waiting) |"
echo "| --- | --- | --- | --- | --- | --- |"
read -r DU DS <<<"$(cpu_split sh -c "xargs -0 openssl dgst -sha256 < '$DATA/modules.list0'")"
echo "| \`openssl dgst -sha256\` | $DU | $DS | $(printf '%.2f' "$(echo "$DU" | bc -l)") | 0 | |"
for j in 1 2; do
    read -r U S <<<"$(cpu_split "$K" scan -q -j $j --store "$DATA/keyed.db" "$MODDIR")"
    echo "| \`scan -j $j\` | $U | $S | $DU | $T_RSA | $(printf '%.2f' "$(echo "$U + $S - $DU - $T_RSA" | bc -l)") |"
done
read -r U S <<<"$(cpu_split "$K" kernel-keys -q "$VMLINUZ")"
echo "| \`kernel-keys\` | $U | $S | | | xz decode |"
echo
# a sampling profile of scan -j 1: the share of each part of the process
if perf record -q -F 2000 -o "$DATA/perf.data" -- "$K" scan -q -j 1 --store "$DATA/keyed.db" "$MODDIR" >/dev/null 2>&1; then
    perf report -i "$DATA/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null |
        awk '/^ +[0-9.]+%/ {p=$1; sub("%","",p); d=$2;
             if (d ~ /libcrypto/) c+=p; else if (d ~ /kernel/) k+=p; else if (d ~ /^libc/) l+=p;
             else if (d == "ktrust") o+=p; else r+=p}
             END {printf "%.1f %.1f %.1f %.1f %.1f\n", c, k, l, o, r}' >"$DATA/perf.split"
    read -r PC PK PL PO PR <"$DATA/perf.split"
    echo "Profile of \`scan -j 1\` (perf, share of samples, and that share of its $T_S1 s): libcrypto (hashing and signature checks) $PC% ($(printf '%.3f' "$(echo "$PC * $T_S1 / 100" | bc -l)") s); the kernel (open, read copies, page cache) $PK% ($(printf '%.3f' "$(echo "$PK * $T_S1 / 100" | bc -l)") s); libc $PL%; ktrust's own code $PO%; the rest (loader, other libraries) $PR%."
    echo
fi
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
    s=$(date +%s.%N); cms_loop "$i"; e=$(date +%s.%N)
    T_CMS=$(echo "$e - $s" | bc -l)
    T_CMS_ALL=$(echo "$T_CMS * $NMOD / $i" | bc -l)
    echo "\`openssl cms -verify\` once per module (a loop of $i modules, extrapolated to $NMOD): $(printf '%.1f' "$T_CMS_ALL") s; \`ktrust scan -j 1\` is $(printf '%.0f' "$(echo "$T_CMS_ALL / $T_S1" | bc -l)")× faster."
    echo
fi
echo "## PE images: ktrust verify-pe against the peers, per file"
echo
echo "Each figure is the best of $PE_RUNS runs."
echo
echo "| file | size | ktrust verify-pe (s) | sbverify --cert | ratio | pesign -h | ratio | osslsigncode verify | ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
DEBCA=$DATA/debian-ca.pem
"$K" load-pe-key --store "$DATA/bench.db" --trust "$C/trust/microsoft-uefi-ca-2011.pem" "$C/debian/shimx64.efi.signed" >/dev/null 2>&1 || true
"$K" keyring export --store "$DATA/bench.db" --keyring secondary --format pem -o "$DEBCA" >/dev/null 2>&1 || true
RUNS_SAVE=$RUNS; RUNS=$PE_RUNS
for f in "$C"/debian/*.efi.signed "$VMLINUZ" "$C"/windows/*.exe "$C"/peers/uthenticode/*/*.exe "$C"/peers/uthenticode/*.exe; do
    [ -f "$f" ] || continue
    case $f in *shimx64*) cert=$C/trust/microsoft-uefi-ca-2011.pem ;; *debian*) cert=$DEBCA ;; *) cert=$C/trust/microsoft-uefi-ca-2011.pem ;; esac
    tk=$(best "$K" verify-pe --allow-sha1 --trust "$cert" "$f")
    ts=$(best sbverify --cert "$cert" "$f")
    tp=$(best pesign -h -i "$f")
    to=$(best osslsigncode verify -ignore-cdp -ignore-crl -in "$f")
    if [ "$f" = "$VMLINUZ" ]; then
        PE_VS_SB=$(ratio "$tk" "$ts")
        PE_K=$tk PE_S=$ts
        PE_DGST=$(best openssl dgst -sha256 "$f")
        PE_VER=$(best "$K" --version)
    fi
    echo "| $(basename "$f") | $(( $(stat -c %s "$f") / 1024 )) KiB | $tk | $ts | $(ratio "$tk" "$ts") | $tp | $(ratio "$tk" "$tp") | $to | $(ratio "$tk" "$to") |"
done
RUNS=$RUNS_SAVE
echo
echo "(sbverify and osslsigncode verify the signature against the given certificate; pesign -h only hashes the image.)"
echo
echo "\`verify-pe\` of the 8 MB vmlinuz: ${PE_VS_SB:-?}× \`sbverify --cert\` (target ≤ 0.5: $(met "${PE_VS_SB:-9}" 0.5))."
if [ -n "${PE_DGST:-}" ]; then
    echo
    echo "Its floor: \`openssl dgst -sha256\` of the same file (a process start, OpenSSL's initialisation, one SHA-256 pass, which every verifier pays) takes $PE_DGST s, and \`ktrust --version\` (ktrust's start-up alone) $PE_VER s; \`verify-pe\` takes $PE_K s ($(ratio "$PE_K" "$PE_DGST")× that floor), \`sbverify\` $PE_S s ($(ratio "$PE_S" "$PE_DGST")×)."
fi
echo
bash "$SRC/bench/pe_floor.sh" "$K" "$C" "$DEBCA" "$DATA" "$PAIRS"
echo "## plan-updates over a secureboot_objects-sized tree"
echo
# ~600 update files as upstream has them: the corpus subset's files copied
# into 26 OEM folders (names with spaces), plus its db/dbx updates
PLAN=$DATA/plan-tree; rm -rf "$PLAN"; mkdir -p "$PLAN"
cp -r "$C/peers/secureboot-objects/tree/." "$PLAN/"
for n in $(seq 1 25); do
    mkdir -p "$PLAN/PostSignedObjects/KEK/OEM $n (& co)"
    cp "$C"/peers/secureboot-objects/tree/PostSignedObjects/KEK/*/*.bin "$PLAN/PostSignedObjects/KEK/OEM $n (& co)/"
done
NPLAN=$(find "$PLAN" -name '*.bin' | wc -l)
PESP=$DATA/plan-esp; mkdir -p "$PESP/EFI/debian"
cp "$C/debian/shimx64.efi.signed" "$PESP/EFI/debian/shimx64.efi"
cp "$C/debian/grubx64.efi.signed" "$PESP/EFI/debian/grubx64.efi"
QV=$C/peers/ovmf-swtpm-boot/efivars
T_PLAN=$(best "$K" plan-updates -q --efivars "$QV" --esp "$PESP" "$PLAN")
T_VV=$(best sh -c "find '$PLAN' -name '*.bin' -print0 | xargs -0 '$K' verify-var -q --var KEK >/dev/null 2>&1; true")
echo "| run | seconds | target |"
echo "| --- | --- | --- |"
echo "| \`plan-updates --esp\` over $NPLAN update files (QEMU store, corpus shim + GRUB) | $T_PLAN | well under 1 s: $(met "$T_PLAN" 1.0) |"
echo "| reference: \`verify-var\` of the same files in one process (signatures only, no plan) | $T_VV | |"
echo
echo "plan-updates / verify-var: $(ratio "$T_PLAN" "$T_VV")×."
bash "$SRC/bench/eventlog.sh" "$K" "$C" "$PE_RUNS"
bash "$SRC/bench/sealed.sh" "$K" "$C" "$PE_RUNS"
bash "$SRC/bench/imalist.sh" "$K" "$PE_RUNS" "$PAIRS"
} | tee "$OUT"
