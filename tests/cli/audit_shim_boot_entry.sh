#!/bin/bash
# audit finds the shim the firmware starts: BootNext's, else BootOrder's
# first active load option whose file is a shimx64.efi on the ESP
# (kt_boot_first_stage, the lookup check-update --install uses), and only
# without one the first EFI/<vendor>/shimx64.efi by name.  On a disk with
# two vendors' shims the name order picked the wrong one.  The bait: an
# unsigned shim under EFI/aaa (first by name), the signed Debian shim under
# EFI/debian.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_tools jq sbattach python3
cd "$T" || exit 1
D=$CORPUS/debian
GV=8be4df61-93ca-11d2-aa0d-00e098032b8c
mkdir -p esp/EFI/aaa esp/EFI/debian vars
cp "$CORPUS"/peers/shim-efivars/efivars-1/* vars/
cp "$D/shimx64.efi.signed" esp/EFI/debian/shimx64.efi
cp "$D/grubx64.efi.signed" esp/EFI/debian/grubx64.efi
cp "$D/shimx64.efi.signed" esp/EFI/aaa/shimx64.efi && sbattach --remove esp/EFI/aaa/shimx64.efi
cp "$D/grubx64.efi.signed" esp/EFI/aaa/grubx64.efi
shim() { "$KTRUST" audit --json --efivars vars --esp esp | jq -r 'select(.section == "chain") | .links[0] | "\(.file) \(.verdict)"'; }
# no boot entries: the first vendor by name (the old rule, kept as the fallback)
expect_eq "$(shim)" "esp/EFI/aaa/shimx64.efi untrusted" "no Boot####: EFI/aaa by name"
efi loadopt --efivar 7 --hd --desc debian --file '\EFI\debian\shimx64.efi' -o vars/Boot0001-$GV
efi loadopt --efivar 7 --hd --desc aaa --file '\EFI\aaa\shimx64.efi' -o vars/Boot0002-$GV
efi u16 --efivar 7 1 2 -o vars/BootOrder-$GV
expect_eq "$(shim)" "esp/EFI/debian/shimx64.efi trusted" "BootOrder's Boot0001: the Debian shim, trusted"
efi u16 --efivar 7 2 -o vars/BootNext-$GV
expect_eq "$(shim)" "esp/EFI/aaa/shimx64.efi untrusted" "BootNext Boot0002: EFI/aaa's shim"
# BootNext of another size than a UINT16 is dropped (EDK2's BdsEntry): BootOrder's
printf '\x07\x00\x00\x00\x02\x00\x00\x00' >vars/BootNext-$GV
expect_eq "$(shim)" "esp/EFI/debian/shimx64.efi trusted" "a 4-byte BootNext: dropped, BootOrder's Boot0001"
rm vars/BootNext-$GV
# an APP-category option (LOAD_OPTION_CATEGORY 0x100) is no boot option
efi loadopt --efivar 7 --hd --attrs 0x101 --desc app --file '\EFI\aaa\shimx64.efi' -o vars/Boot0003-$GV
efi u16 --efivar 7 3 1 -o vars/BootOrder-$GV
expect_eq "$(shim)" "esp/EFI/debian/shimx64.efi trusted" "an APP option first: skipped, Boot0001"
efi u16 --efivar 7 1 2 -o vars/BootOrder-$GV
# an inactive Boot0001 is skipped (LOAD_OPTION_ACTIVE), Boot0002 starts
efi loadopt --efivar 7 --hd --attrs 0 --desc debian --file '\EFI\debian\shimx64.efi' -o vars/Boot0001-$GV
expect_eq "$(shim)" "esp/EFI/aaa/shimx64.efi untrusted" "inactive Boot0001: BootOrder's next, EFI/aaa"
# a boot entry naming a file not on the ESP: the name-order fallback
efi loadopt --efivar 7 --hd --desc gone --file '\EFI\gone\shimx64.efi' -o vars/Boot0002-$GV
efi u16 --efivar 7 2 -o vars/BootOrder-$GV
expect_eq "$(shim)" "esp/EFI/aaa/shimx64.efi untrusted" "entry's file missing: EFI/aaa by name"
# a first stage that is no shim (systemd-boot's path): the fallback too
efi loadopt --efivar 7 --hd --desc grub --file '\EFI\debian\grubx64.efi' -o vars/Boot0002-$GV
expect_eq "$(shim)" "esp/EFI/aaa/shimx64.efi untrusted" "first stage not a shimx64.efi: EFI/aaa by name"
finish
