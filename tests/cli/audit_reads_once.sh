#!/bin/bash
# audit reads a system once: the boot engine runs at most once per state the
# report shows (today; Microsoft UEFI CA 2011 removed from db; added to dbx),
# and each boot file is opened once per chain run (plus once by the snapshot
# that every other section reads: boot entries, the outlook, each
# signature); the TCG event log is opened once (the rollover's option-ROM
# finding and the measured-boot outlook share one parse).
# Counted with strace (openat of each file).  The kernel is a link of
# today's chain run only, so its count gives the opens per chain run (k: 1,
# the engine opens each image once for Authenticode and SBAT alike); the
# shim's count then gives the chain runs.  Before: shim 12 opens (5.5 runs
# of k=2), the event log 2.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_strace
for tool in python3 jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
Q=$CORPUS/peers/ovmf-swtpm-boot/efivars
DBX=$CORPUS/peers/secureboot-objects/tree/PostSignedObjects/DBX/amd64/DBXUpdate.bin
R=$T/root
V=$R/sys/firmware/efi/efivars
mkdir -p "$V" "$R/boot/efi/EFI/debian" "$R/sys/kernel/security/tpm0"
cp "$Q"/* "$V/"
cp "$D/shimx64.efi.signed" "$R/boot/efi/EFI/debian/shimx64.efi"
cp "$D/grubx64.efi.signed" "$R/boot/efi/EFI/debian/grubx64.efi"
cp "$D/mmx64.efi.signed" "$R/boot/efi/EFI/debian/mmx64.efi"
cp "$D/vmlinuz-6.1.0-57-amd64" "$R/boot/"
cp "$CORPUS/peers/ovmf-swtpm-boot/eventlog.bin" "$R/sys/kernel/security/tpm0/binary_bios_measurements"
# a boot entry that starts the audited shim (its firmware verdict is read
# from the snapshot too)
python3 - "$V" <<'PY'
import glob, os, struct, sys
d, g = sys.argv[1], "8be4df61-93ca-11d2-aa0d-00e098032b8c"
for f in glob.glob(f"{d}/Boot[0-9A-F][0-9A-F][0-9A-F][0-9A-F]-{g}") + glob.glob(f"{d}/BootOrder-{g}"):
    os.remove(f)
def var(name, data):
    open(f"{d}/{name}-{g}", "wb").write(b"\x07\x00\x00\x00" + data)
u = lambda s: (s + "\0").encode("utf-16-le")
fp = u("\\EFI\\debian\\shimx64.efi")
dp = bytes([4, 4]) + struct.pack("<H", 4 + len(fp)) + fp + bytes([0x7f, 0xff, 4, 0])
var("Boot0001", struct.pack("<IH", 1, len(dp)) + u("debian") + dp)
var("BootOrder", struct.pack("<H", 1))
PY

# opens FILE-PATTERN: openat calls of files matching it in run.trace
opens() { grep -E '(open|openat)\(' run.trace | grep -cE "\"[^\"]*$1\""; }

# check NAME -- CMD...: one audit under strace
check() {
    local name=$1
    shift 2
    strace -f -e trace=open,openat -o run.trace "$@" >/dev/null 2>&1
    local shim grub mm kernel log k runs
    shim=$(opens 'EFI/debian/shimx64\.efi') grub=$(opens 'EFI/debian/grubx64\.efi')
    mm=$(opens 'EFI/debian/mmx64\.efi') kernel=$(opens 'boot/vmlinuz-6\.1\.0-57-amd64')
    log=$(opens 'binary_bios_measurements')
    k=$((kernel - 1))
    expect_eq "$k" 1 "$name: the engine opens an image once per run (kernel: $kernel opens)"
    [ "$k" -ge 1 ] || k=1
    runs=$(((shim - 1) / k))
    expect_eq "$(((shim - 1) % k))" 0 "$name: shim's opens ($shim) are the snapshot's and k=$k per chain run"
    expect_match "$runs" '^[1-3]$' "$name: the chain runs at most once per state (3 states; $runs runs)"
    expect_eq "$grub" "$shim" "$name: the loader opened as often as the shim (each chain run, the snapshot)"
    expect_eq "$mm" 1 "$name: MokManager (outlook only) opened once"
    expect_eq "$log" 1 "$name: the event log opened once"
}

check "audit --root" -- "$KTRUST" audit --root "$R"
check "audit --root --dbx --json" -- "$KTRUST" audit --root "$R" --dbx "$DBX" --json
j=$("$KTRUST" audit --root "$R" --json)
expect_eq "$(jq -r 'select(.section=="boot") | .entries[0] | [.audited, .verdict] | @tsv' <<<"$j")" \
    "$(printf 'true\ttrusted')" "the boot entry is the audited shim"
expect_eq "$(jq -r 'select(.section=="rollover") | .images | length' <<<"$j")" 2 \
    "the rollover shows the shim and the loader"
finish
