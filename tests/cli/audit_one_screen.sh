#!/bin/bash
# Output a person reads (#36 items 2, 5, 6): audit's text starts with the
# verdict and fits one screen (<= 60 lines) on a saved root of the corpus
# (was 79: per-signature what-ifs, owners and passing SBAT lines now under
# -v); offline (--efivars and --esp, no --root) it says "the parts given",
# not "this system (live)", and looks for no kernel or modules; an expiry
# is said in the tense the day calls for (was "it expires in 2026" on
# 2026-12-05); audit takes --eventlog, --sbat-level and --dbx-update
# (--dbx the old spelling); eventlog --pcrs says the PCRs the TPM gave no value for in one
# line (was one line each, -v keeps them); eventlog --predict and
# plan-updates on another machine's log say so ("cannot answer") instead of
# attributing its PK and KEK to the update.
. "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T" || exit 1
D=$CORPUS/debian
Q=$CORPUS/peers/ovmf-swtpm-boot/efivars
LOG=$CORPUS/peers/ovmf-swtpm-boot/eventlog.bin
E1=$CORPUS/peers/shim-efivars/efivars-1
DBX=$CORPUS/peers/secureboot-objects/DBX/DBXUpdate-amd64.bin

mkdir -p esp/EFI/debian
cp "$D/shimx64.efi.signed" esp/EFI/debian/shimx64.efi
cp "$D/grubx64.efi.signed" esp/EFI/debian/grubx64.efi
R=$T/root
mkdir -p "$R/sys/firmware/efi/efivars" "$R/boot/efi" "$R/sys/kernel/security/tpm0" \
    "$R/lib/modules/6.1.0-57-amd64"
cp "$Q"/* "$R/sys/firmware/efi/efivars/"
cp -r esp/EFI "$R/boot/efi/"
cp "$D/vmlinuz-6.1.0-57-amd64" "$R/boot/"
cp "$LOG" "$R/sys/kernel/security/tpm0/binary_bios_measurements"
cp -r "$D/modules/." "$R/lib/modules/6.1.0-57-amd64/"

# the verdict first, one screen, the details under -v
out=$("$KTRUST" audit --root "$R")
n=$(printf '%s\n' "$out" | wc -l)
[ "$n" -le 60 ] && ok || bad "audit text is $n lines, want <= 60"
expect_match "$(printf '%s\n' "$out" | sed -n 2p)" \
    '^verdict: every link present is trusted; .*; rollover NOT READY \(-v: every detail\)$' "line 2: the verdict"
expect_match "$(printf '%s\n' "$out" | tail -1)" '^summary: every link present is trusted' "the last line too"
expect_eq "$(printf '%s\n' "$out" | grep -c '^    signature [0-9] (')" 0 "no per-signature what-ifs by default"
outv=$("$KTRUST" audit --root "$R" -v)
expect_eq "$(printf '%s\n' "$outv" | grep -c '^    signature [0-9] (')" 3 "-v: each signature's what-ifs"
expect_match "$(printf '%s\n' "$outv" | grep -c 'owners:')" '^[1-9]' "-v: the owners"
# the tense of an expiry: KEK CA 2011's notAfter is 2026-06-24
today=$(date -u +%F)
if [[ "$today" > 2026-06-24 ]]; then want="expired on 2026-06-24"; else want="expires on 2026-06-24"; fi
expect_match "$out" "KEK CA 2011 $want" "the tense of KEK CA 2011's expiry"
if [[ "$today" > 2026-06-27 ]]; then want="expired on 2026-06-27"; else want="expires on 2026-06-27"; fi
expect_match "$("$KTRUST" eventlog "$LOG")" "option ROMs; it $want\)" "eventlog: UEFI CA 2011's expiry"

# offline: the parts given, nothing of this host
out=$("$KTRUST" audit --efivars "$Q" --esp esp)
expect_eq "$(printf '%s\n' "$out" | head -1)" \
    "ktrust audit of the parts given (offline: nothing of this host)" "offline: not 'this system (live)'"
expect_match "$(printf '%s\n' "$out" | grep '^  kernel ')" 'not given$' "offline: no host kernel"
expect_match "$(printf '%s\n' "$out" | grep '^  modules ')" 'not given$' "offline: no host modules"
expect_match "$(printf '%s\n' "$out" | tail -1)" '0 parts missing' "offline: a part not given is not missing"
# --eventlog and --dbx-update (the old --dbx still works)
out=$("$KTRUST" audit --efivars "$Q" --esp esp --eventlog "$LOG")
expect_match "$out" "measured boot: event log $LOG" "audit --eventlog LOG"
a=$("$KTRUST" audit --efivars "$Q" --esp esp --dbx-update "$DBX" --json | jq -c 'select(.section=="outlook")')
b=$("$KTRUST" audit --efivars "$Q" --esp esp --dbx "$DBX" --json | jq -c 'select(.section=="outlook")')
expect_eq "$a" "$b" "audit --dbx-update = --dbx"
expect_match "$a" 'DBXUpdate-amd64.bin' "... the update is used"
# --sbat-level SPEC: the SbatLevel before boot for the chain (as chain takes it)
expect_match "$("$KTRUST" audit --efivars "$Q" --esp esp --sbat-level latest)" \
    '^SbatLevel: in force 2025051000;' "audit --sbat-level latest"
# check-update: --dbx-update, --esp as a PATH
a=$("$KTRUST" check-update --dbx-update "$DBX" --esp esp --json | jq -c 'select(.type=="summary")')
b=$("$KTRUST" check-update --dbx "$DBX" esp --json | jq -c 'select(.type=="summary")')
expect_eq "$a" "$b" "check-update --dbx-update --esp DIR = --dbx FILE DIR"
expect_match "$a" '"would_be_revoked":0' "... the ESP's files checked"

# eventlog --pcrs: one line for the PCRs the TPM gave no value for
out=$("$KTRUST" eventlog "$LOG" --pcrs "$CORPUS/peers/ovmf-swtpm-boot/pcrs.txt")
expect_eq "$(printf '%s\n' "$out" | grep -c 'not read from the TPM')" 1 "one unchecked-PCRs line"
expect_match "$out" '  [0-9]+ PCRs not read from the TPM, not checked: sha1 [0-9]' "... listing them by bank"
outv=$("$KTRUST" eventlog "$LOG" --pcrs "$CORPUS/peers/ovmf-swtpm-boot/pcrs.txt" -v)
[ "$(printf '%s\n' "$outv" | grep -c 'not read from the TPM: not checked')" -gt 1 ] && ok ||
    bad "-v: one line per unchecked PCR"

# another machine's log: the shim-efivars machine's variables, the OVMF log
out=$("$KTRUST" eventlog "$LOG" --predict --efivars "$E1" --apply "$DBX" 2>/dev/null)
expect_eq "$?" 66 "eventlog --predict, another machine's log: exit"
expect_match "$(printf '%s\n' "$out" | tail -1)" "^cannot answer: .*another machine's: the PK and KEK it measured differ" \
    "... says so"
expect_eq "$(printf '%s\n' "$out" | grep -c 'PK: CHANGES')" 0 "... and does not blame the update"
# without --apply the variables' own PK and KEK are the change predicted
# (keys re-enrolled since the last boot): no "cannot answer"
expect_exit 0 "eventlog --predict, PK and KEK re-enrolled, no update" -- \
    "$KTRUST" eventlog "$LOG" --predict --efivars "$E1"
out=$("$KTRUST" plan-updates --efivars "$E1" --eventlog "$LOG" "$DBX" 2>/dev/null)
expect_eq "$?" 66 "plan-updates, another machine's log: exit"
expect_match "$out" "^cannot answer: .*another machine's" "... says so"
# its own log: a prediction as before
expect_exit 0 "eventlog --predict, its own variables" -- \
    "$KTRUST" eventlog "$LOG" --predict --efivars "$Q" --apply "$DBX"
finish
