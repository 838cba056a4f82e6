#!/bin/bash
# One ESP lookup (#31 item 2): every command that looks a path up on an ESP
# (audit --esp / --root, eventlog --predict --esp, check-update --install's
# current loader, plan-updates --esp) matches each component without
# regard to case, as FAT does, and never reads a file outside the ESP: a
# symbolic link whose target is absolute, or relative but climbing above
# the ESP's top with "..", is refused; a relative link that stays on the ESP
# is followed.  The bait: each link leads to a real boot binary outside the
# ESP, so reading it shows as a different answer.  check-update PATH walks
# the ESP without following links met in it.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in jq pesign python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
O=$CORPUS/peers/ovmf-swtpm-boot
Q=$O/efivars
SHIM=$D/shimx64.efi.signed
GRUB=$D/grubx64.efi.signed
mkdir -p out
cp "$SHIM" out/shimx64.efi # outside every ESP below
cp "$GRUB" out/grubx64.efi
up=$(printf '../%.0s' $(seq 1 12)) # far above any ESP's top

# --- eventlog --predict --esp: PCR 4 event 26 is \EFI\BOOT\BOOTX64.EFI -------
# ev ESP: event 26's prediction and note
ev() { "$KTRUST" eventlog "$O/eventlog.bin" --predict --efivars "$Q" --esp "$1" --json |
           jq -r 'select(.type == "predicted_event" and .event == 26) | "\(.prediction) \(.note)"'; }
mkdir -p plain/EFI/BOOT && cp "$SHIM" plain/EFI/BOOT/BOOTX64.EFI
expect_eq "$(ev plain)" "same plain/EFI/BOOT/BOOTX64.EFI" "eventlog: the shim it booted, unchanged"
mkdir -p lower/efi/boot && cp "$SHIM" lower/efi/boot/bootx64.efi
expect_eq "$(ev lower)" "same lower/efi/boot/bootx64.efi" "eventlog: found whatever the case"
mkdir -p abs/EFI/BOOT && ln -s "$T/out/grubx64.efi" abs/EFI/BOOT/BOOTX64.EFI
expect_eq "$(ev abs)" 'kept_unknown \EFI\BOOT\BOOTX64.EFI is not on the ESP: kept' \
    "eventlog: an absolute link out of the ESP is refused (the old lookup read GRUB outside: changed)"
mkdir -p rel/EFI/BOOT && ln -s "$up$T/out/grubx64.efi" rel/EFI/BOOT/BOOTX64.EFI
expect_eq "$(ev rel)" 'kept_unknown \EFI\BOOT\BOOTX64.EFI is not on the ESP: kept' \
    "eventlog: a relative link climbing out of the ESP is refused"
mkdir -p dir/EFI && ln -s "$T/lower/efi/boot" dir/EFI/BOOT
expect_eq "$(ev dir)" 'kept_unknown \EFI\BOOT\BOOTX64.EFI is not on the ESP: kept' \
    "eventlog: a directory link out of the ESP is refused"
mkdir -p inside/EFI/BOOT && cp "$SHIM" inside/shim.efi && ln -s ../../shim.efi inside/EFI/BOOT/BOOTX64.EFI
expect_eq "$(ev inside)" "same inside/shim.efi" "eventlog: a link that stays on the ESP is followed"

# --- audit --esp: shim, GRUB and MokManager on the ESP -----------------------
# chain ESP [ARGS]: each link's [present, file]
chain() { "$KTRUST" audit --efivars "$Q" --esp "$@" --kernel none --modules none --json |
              jq -c 'select(.section == "chain") | [.links[0:2][] | [.present, .file]]'; }
mkdir -p a1/EFI/debian && ln -s "$T/out/shimx64.efi" a1/EFI/debian/shimx64.efi
expect_eq "$(chain a1)" '[[false,"a1/EFI/*/shimx64.efi"],[false,"a1/EFI/*/grubx64.efi"]]' \
    "audit: a shim linking out of the ESP is not the ESP's shim"
mkdir -p a2/EFI/debian && cp "$SHIM" a2/EFI/debian/shimx64.efi
ln -s "$up$T/out/grubx64.efi" a2/EFI/debian/grubx64.efi
expect_eq "$(chain a2)" '[[true,"a2/EFI/debian/shimx64.efi"],[false,"a2/EFI/debian/grubx64.efi"]]' \
    "audit: a loader climbing out of the ESP is missing"
mkdir -p a3/efi/Debian && cp "$SHIM" a3/efi/Debian/SHIMX64.EFI && cp "$GRUB" a3/efi/Debian/GrubX64.efi
expect_eq "$(chain a3)" '[[true,"a3/efi/Debian/SHIMX64.EFI"],[true,"a3/efi/Debian/GrubX64.efi"]]' \
    "audit: names in another case are found"

# --- audit --root and check-update --install: the ESP under a root ----------
mkdir -p r/boot/efi/EFI/debian r/sys/firmware/efi
cp -r "$Q" r/sys/firmware/efi/efivars
cp "$SHIM" r/boot/efi/EFI/debian/shimx64.efi
cp "$GRUB" r/boot/grub-in-root.efi # inside the root, outside its ESP
ln -s ../../../grub-in-root.efi r/boot/efi/EFI/debian/grubx64.efi
loaders() { "$KTRUST" check-update --install --root r --json "$SHIM" | jq -c 'select(.type == "install_check") | .loaders'; }
expect_eq "$("$KTRUST" audit --root r --json | jq -c 'select(.section == "chain") | .links[1] | [.present, .file]')" \
    '[false,"r/boot/efi/EFI/debian/grubx64.efi"]' "audit --root: a loader climbing out of the ESP into the root is missing"
expect_eq "$(loaders)" '[]' "check-update --install: no current loader from outside the ESP"
cp "$GRUB" r/boot/efi/EFI/debian/grub-real.efi
ln -sf grub-real.efi r/boot/efi/EFI/debian/grubx64.efi
expect_eq "$(loaders)" '["r/boot/efi/EFI/debian/grub-real.efi"]' "check-update --install: a link on the ESP is followed"

# --- plan-updates --esp: the ESP's shim judged on each state -----------------
# (an update to plan: an empty UPDATES, /dev/null, is "cannot answer" since #36)
plan() { "$KTRUST" plan-updates --efivars "$Q" --esp "$1" --json "$CORPUS/peers/secureboot-objects/DB/DBUpdate2024-amd64.bin" |
    jq -c 'select(.type == "plan") | .before.shim.verdict'; }
expect_eq "$(plan a3)" '"trusted"' "plan-updates: the shim in another case"
expect_eq "$(plan a1)" null "plan-updates: a shim linking out of the ESP is not judged"

# --- check-update ESP: the walk does not follow a link met in the ESP --------
# a dbx holding the Authenticode SHA-256 of the file outside
h=$(pesign -h -i "$T/out/grubx64.efi" | sed -n 's/^hash: //p')
python3 - "$h" > dbx.esl <<'PY'
import struct, sys, uuid
t = uuid.UUID("c1c41626-504c-4092-aca9-41f936934328").bytes_le
h = bytes.fromhex(sys.argv[1])
sys.stdout.buffer.write(t + struct.pack("<III", 28 + 16 + len(h), 0, 16 + len(h)) + bytes(16) + h)
PY
expect_exit 5 "check-update: the dbx revokes GRUB itself (the oracle)" -- "$KTRUST" check-update --dbx dbx.esl -q out/grubx64.efi
expect_exit 0 "check-update ESP: the link to GRUB outside is not followed" -- "$KTRUST" check-update --dbx dbx.esl -q a2

finish
