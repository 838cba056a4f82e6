#!/usr/bin/env bash
# audit: the IMA measurement section, when the root has a list: its entries,
# PCR 10 against the root's TPM PCR files, the boot_aggregate, the signed and
# unsigned counts; a list that differs from the TPM said; a malformed list
# said, not fatal; no list, no section (the rest of the report unchanged).
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T"
mkroot() {
    mkdir -p "$1/boot/efi/EFI/debian" "$1/sys/firmware/efi"
    cp "$CORPUS/debian/shimx64.efi.signed" "$1/boot/efi/EFI/debian/shimx64.efi"
    cp -r "$CORPUS/peers/shim-efivars/efivars-1" "$1/sys/firmware/efi/efivars"
}
mkroot plain
mkroot r
python3 "$KT_SRC/tests/fixtures/imalist.py" --entries 20 --signed-every 4 --binary l.bin --pcrs p.txt
mkdir -p r/sys/kernel/security/ima r/sys/class/tpm/tpm0/pcr-sha1 r/sys/class/tpm/tpm0/pcr-sha256
cp l.bin r/sys/kernel/security/ima/binary_runtime_measurements
while read -r b i v; do echo "$v" >"r/sys/class/tpm/tpm0/pcr-$b/$i"; done <p.txt

out=$("$KTRUST" audit --root r 2>&1)
expect_match "$out" "^IMA measurement list r/sys/kernel/security/ima/binary_runtime_measurements: 20 entries; 5 files measured with a signature, 14 without$" "text: entries and signatures"
expect_match "$out" "^  PCR 10 matches the TPM's \(sha1 sha256\); boot_aggregate matches PCRs 0-9$" "text: PCR 10 and boot_aggregate"
j=$("$KTRUST" audit --root r --json 2>/dev/null | jq -c 'select(.section == "ima") | [.entries, .signed, .unsigned, .pcr10_match, .boot_aggregate]')
expect_eq "$j" '[20,5,14,true,"match"]' "JSON section"

# --save-root keeps the list and the PCR files: the saved root's audit has
# the same IMA section (paths aside)
"$KTRUST" audit --root r --save-root saved >/dev/null 2>&1
expect_eq "$(cmp saved/sys/kernel/security/ima/binary_runtime_measurements l.bin && echo same)" same \
    "--save-root: the list copied"
expect_eq "$(cat saved/sys/class/tpm/tpm0/pcr-sha256/10)" "$(cat r/sys/class/tpm/tpm0/pcr-sha256/10)" \
    "--save-root: the PCR files copied"
expect_eq "$("$KTRUST" audit --root saved --json 2>/dev/null | jq -c 'select(.section == "ima") | [.entries, .signed, .unsigned, .pcr10_match, .boot_aggregate]')" \
    "$j" "the saved root's IMA section is the original's"
expect_eq "$("$KTRUST" audit --root saved 2>&1 | grep '^  PCR 10')" "$(echo "$out" | grep '^  PCR 10')" \
    "the saved root's PCR 10 line"

# the TPM holds another PCR 10
awk '$1=="sha256" && $2==10 {$3="00" substr($3,3)} {print}' p.txt | while read -r b i v; do echo "$v" >"r/sys/class/tpm/tpm0/pcr-$b/$i"; done
out=$("$KTRUST" audit --root r 2>&1)
expect_match "$out" "^  PCR 10 DIFFERS from the TPM's \(sha256\)" "text: PCR 10 differs"

# a truncated list: said, the audit goes on
head -c 100 l.bin >r/sys/kernel/security/ima/binary_runtime_measurements
out=$("$KTRUST" audit --root r 2>&1)
expect_match "$out" "^IMA measurement list .*: not read: .*truncated" "a malformed list said"
expect_match "$out" "^summary: " "the audit still ends with its summary"

# no list: no section, the same report otherwise
a=$("$KTRUST" audit --root plain 2>&1 | grep -v '^IMA\|^  PCR 10')
b=$("$KTRUST" audit --root plain 2>&1)
expect_eq "$a" "$b" "no list: no IMA lines"
expect_eq "$("$KTRUST" audit --root plain --json 2>/dev/null | jq -c 'select(.section == "ima")')" "" "no list: no JSON section"
finish
