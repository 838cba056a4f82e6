#!/bin/bash
# ktrust eventlog --pcrs (issue #26): the replay checked against PCR values
# read from a TPM in each form the sealing tools and the kernel give them
# (tpm2_pcrread YAML, sysfs pcr-BANK/N files, BANK PCR HEX lines; under
# --root, the live sysfs path by default); a PCR that differs is said plainly
# and exits 5; a PCR file that is not one exits 4, a missing one 66.
. "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T"
O=$CORPUS/peers/ovmf-swtpm-boot
LOG=$O/eventlog.bin
expect_exit 0 "BANK PCR HEX lines (pcrs.txt from the real boot)" -- "$KTRUST" eventlog "$LOG" --pcrs "$O/pcrs.txt"
out=$("$KTRUST" eventlog "$LOG" --pcrs "$O/pcrs.txt" -q)
expect_match "$out" 'every PCR the log measures matches \(22\)' "22 PCRs match"
# tpm2_pcrread's YAML (upper-case hex), from the same values
python3 - "$O/pcrs.txt" <<'PY' >pcrread.yaml
import sys
banks = {}
for l in open(sys.argv[1]):
    b, i, v = l.split(); banks.setdefault(b, []).append((int(i), v))
for b, vals in banks.items():
    print("  %s:" % b)
    for i, v in vals: print("    %-2d: 0x%s" % (i, v.upper()))
PY
expect_exit 0 "tpm2_pcrread YAML" -- "$KTRUST" eventlog "$LOG" --pcrs pcrread.yaml
# sysfs: pcr-sha1/N, pcr-sha256/N, as /sys/class/tpm/tpm0 has them
mkdir -p root/sys/class/tpm/tpm0/pcr-sha1 root/sys/class/tpm/tpm0/pcr-sha256 root/sys/kernel/security/tpm0
while read -r b i v; do echo "${v^^}" >"root/sys/class/tpm/tpm0/pcr-$b/$i"; done <"$O/pcrs.txt"
expect_exit 0 "a sysfs tpm0 directory" -- "$KTRUST" eventlog "$LOG" --pcrs root/sys/class/tpm/tpm0
expect_exit 0 "one pcr-BANK directory" -- "$KTRUST" eventlog "$LOG" --pcrs root/sys/class/tpm/tpm0/pcr-sha256
# --root: the log and the PCRs from the live paths under it
cp "$LOG" root/sys/kernel/security/tpm0/binary_bios_measurements
json=$("$KTRUST" eventlog --root root --json); rc=$?
expect_eq "$rc" 0 "--root: the live log and PCRs under it"
expect_eq "$(printf '%s\n' "$json" | grep -c '"type":"pcr".*"match":true')" 22 "--root: the sysfs PCRs are read by default and match"
# one PCR differs: said plainly, exit 5
f=root/sys/class/tpm/tpm0/pcr-sha256/7
v=$(cat "$f"); d=${v:0:1}; [ "$d" = 0 ] && n=1 || n=0
echo "$n${v:1}" >"$f"   # another hex digit in front: another value
out=$("$KTRUST" eventlog --root root 2>&1); rc=$?
expect_eq "$rc" 5 "a PCR that differs: exit 5"
expect_match "$out" 'sha256   7 MISMATCH: the log replays to 75677db6f14082d3bfec4d14bdd75c8d72612ef6914ca99cd5a5997b7a21309d, the TPM holds' "the mismatch is named"
expect_match "$out" 'the log is incomplete or the TPM was extended outside the log' "and explained"
expect_match "$("$KTRUST" eventlog --root root --json | tail -1)" '"verdict":"rejected","exit":5,.*"pcrs_matching":21,"pcrs_mismatching":1' "JSON summary: 21 match, 1 mismatch"
# a PCR the firmware log does not measure (10: IMA) is not a mismatch
grep -v '^sha256 10 ' "$O/pcrs.txt" >lines.txt; echo "sha256 10 $(printf '22%.0s' $(seq 32))" >>lines.txt
out=$("$KTRUST" eventlog "$LOG" --pcrs lines.txt); rc=$?
expect_eq "$rc" 0 "PCR 10 (not in the firmware log) is not compared"
expect_match "$out" 'sha256  10 not measured by the firmware log' "and says so"
# bad inputs
echo "this is not a pcr file" >junk.txt
out=$("$KTRUST" eventlog "$LOG" --pcrs junk.txt 2>&1); rc=$?
expect_eq "$rc" 4 "a file that is no PCR list: exit 4"
expect_match "$out" '^ktrust: junk.txt: line 1: not tpm2_pcrread YAML nor BANK PCR HEX lines' "one error line"
echo "sha256 7 zz" >badhex.txt
expect_exit 4 "a value that is not hex: exit 4" -- "$KTRUST" eventlog "$LOG" --pcrs badhex.txt
expect_exit 66 "a missing PCR file: exit 66" -- "$KTRUST" eventlog "$LOG" --pcrs nothere.yaml
finish
