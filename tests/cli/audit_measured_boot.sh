#!/bin/bash
# audit's measured-boot outlook (#26 in audit): with the firmware's event log
# under the root, PCR 7 of the last boot is the TPM's (pcrs.txt of the real
# OVMF boot: an independent value), the next boot's equals it while nothing
# changed, differs after --apply DBUpdate2024 (the value eventlog --predict
# --apply gives), and a db changed since the last boot is named.
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
Q=$CORPUS/peers/ovmf-swtpm-boot
DB24=$CORPUS/peers/secureboot-objects/DB/DBUpdate2024-amd64.bin
mkdir -p r/sys/firmware/efi/efivars r/sys/kernel/security/tpm0
cp "$Q"/efivars/* r/sys/firmware/efi/efivars/
cp "$Q/eventlog.bin" r/sys/kernel/security/tpm0/binary_bios_measurements
mb() { "$KTRUST" audit --root r --json "$@" | jq -c 'select(.section == "measured_boot")'; }
tpm7=$(awk '$1 == "sha256" && $2 == 7 {print $3}' "$Q/pcrs.txt")
expect_eq "$(mb | jq -r '.pcr7 | "\(.last_boot) \(.next_boot) \(.changes)"')" "$tpm7 $tpm7 false" \
    "nothing changed: the next boot's PCR 7 is the TPM's"
want=$("$KTRUST" eventlog "$Q/eventlog.bin" --predict --efivars "$Q/efivars" --apply "$DB24" --json |
       jq -r 'select(.type=="prediction" and .bank=="sha256" and .pcr==7) | .predicted')
expect_eq "$(mb --apply "$DB24" | jq -r '.pcr7 | "\(.next_boot) \(.changes)"')" "$want true" \
    "after --apply DBUpdate2024: PCR 7 changes, as eventlog --predict says"
expect_match "$("$KTRUST" audit --root r --apply "$DB24")" 'secrets sealed to PCR 7 will not unseal' \
    "text: the sealing advice"
expect_eq "$(mb --apply "$DB24" | jq -r .changed_since_last_boot)" "" "--apply is not a change since the last boot"
# db changed on the machine since the last boot (the variable as DBUpdate2024 leaves it)
"$KTRUST" plan-updates -q --efivars r/sys/firmware/efi/efivars --write-efivars after "$DB24"
cp after/db-* r/sys/firmware/efi/efivars/
expect_eq "$(mb | jq -r '"\(.changed_since_last_boot) \(.pcr7.changes)"')" "db true" \
    "db changed since the last boot: named, and PCR 7 will differ"
rm r/sys/kernel/security/tpm0/binary_bios_measurements
expect_eq "$(mb)" "" "no log: no measured-boot section"
finish
