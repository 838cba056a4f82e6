#!/bin/bash
# chain with systemd-boot (#34): firmware -> systemd-boot -> UKI with our own
# key in db (sbctl style: no shim, every image through firmware's db and
# dbx, MOK and SBAT play no part) and firmware -> shim -> systemd-boot -> UKI
# (the corpus shim under OVMF's Microsoft db, our key as a MOK: shim's
# protocol); the UKI's builtin keys vouch for a module; a UKI signed by an
# untrusted key, systemd-boot unsigned or in dbx, are not trusted.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl sbsign pesign
SDB=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
[ -f $SDB ] || { echo "skipped: systemd-boot-efi not installed"; exit 77; }
VARS=$CORPUS/peers/ovmf-swtpm-boot/efivars
MOD=$CORPUS/debian/modules/crc7.ko
uki_keys db other
printf 'ID=debian\nVERSION_ID=12\n' >osrel
"$MK" uki.efi .linux=$K .osrel=osrel >/dev/null || exit $?
sbsign --key db.key --cert db.crt --output sdboot.efi $SDB 2>/dev/null
sbsign --key db.key --cert db.crt --output good.efi uki.efi 2>/dev/null
sbsign --key other.key --cert other.crt --output other.efi uki.efi 2>/dev/null
cp $SDB unsigned-sdboot.efi
role_verdicts() { jq -r 'select(.type == "chain") | "\(.role)=\(.verdict)"' | paste -sd' '; }

# no shim: db vouches for systemd-boot and for the UKI it loads
j=$("$KTRUST" chain --json --db db.crt sdboot.efi good.efi "$MOD")
expect_eq "$(role_verdicts <<<"$j")" "loader=trusted kernel=trusted module=trusted" \
    "firmware -> systemd-boot -> UKI -> module (the UKI's builtin keys)"
expect_eq "$(jq -r 'select(.role == "kernel") | .parent' <<<"$j")" loader "the UKI hangs off systemd-boot"
expect_eq "$(jq -r 'select(.type == "sbat_level") | .type' <<<"$j")" "" "no shim: no SBAT record"
expect_exit 2 "a UKI signed by a key db lacks: untrusted" -- \
    "$KTRUST" chain -q --db db.crt sdboot.efi other.efi
expect_exit 1 "systemd-boot unsigned: not trusted" -- \
    "$KTRUST" chain -q --db db.crt unsigned-sdboot.efi good.efi
expect_exit 2 "no shim: a MOK does not vouch for the UKI" -- \
    "$KTRUST" chain -q --db db.crt --mok other.crt sdboot.efi other.efi
efi esl --sha256 "$(pesign -h -i sdboot.efi | sed -n 's/^hash: //p')" -o dbx.esl
j=$("$KTRUST" chain --json --db db.crt --dbx dbx.esl sdboot.efi good.efi)
expect_eq "$(jq -r 'select(.role == "loader") | .verdict' <<<"$j")" rejected \
    "systemd-boot's Authenticode hash in dbx: rejected"
expect_exit 2 "systemd-boot is not a shim: the order is fine, no complaint" -- \
    "$KTRUST" chain -q --db db.crt sdboot.efi other.efi
expect_eq "$("$KTRUST" chain --db db.crt sdboot.efi good.efi 2>&1 | grep -c 'order looks wrong')" 0 \
    "no order warning"
expect_exit 64 "systemd-boot alone: its UKI is required" -- "$KTRUST" chain --db db.crt sdboot.efi

# shim's protocol: the corpus shim (Microsoft's UEFI CA in OVMF's db), our
# key as a MOK for systemd-boot and the UKI
j=$("$KTRUST" chain --json --efivars "$VARS" --mok db.crt "$CORPUS/debian/shimx64.efi.signed" \
    sdboot.efi good.efi "$MOD")
expect_eq "$(role_verdicts <<<"$j")" "shim=trusted loader=trusted kernel=trusted module=trusted" \
    "firmware -> shim -> systemd-boot -> UKI -> module, MOK"
j=$("$KTRUST" chain --json --efivars "$VARS" --mok db.crt "$CORPUS/debian/shimx64.efi.signed" \
    sdboot.efi other.efi)
expect_eq "$(role_verdicts <<<"$j")" "shim=trusted loader=trusted kernel=untrusted" \
    "shim -> systemd-boot -> a UKI no MOK vouches for"
j=$("$KTRUST" chain --json --efivars "$VARS" "$CORPUS/debian/shimx64.efi.signed" sdboot.efi good.efi)
expect_eq "$(role_verdicts <<<"$j")" "shim=trusted loader=untrusted kernel=untrusted" \
    "without the MOK systemd-boot is not trusted by shim"

# check-update --install: a new systemd-boot (no shim) and the UKIs behind it
mkdir -p vars
efi esl --x509 db.crt -o db.esl
efi efivar --attrs 0x27 db.esl -o vars/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f
j=$("$KTRUST" check-update --json --efivars vars --install sdboot.efi good.efi | jq -c 'select(.type == "install_check")')
expect_eq "$(jq -r '"\(.boots) \(.why)"' <<<"$j")" "true boots" "install: new systemd-boot and UKI boot"
j=$("$KTRUST" check-update --json --efivars vars --install sdboot.efi other.efi | jq -c 'select(.type == "install_check")')
expect_eq "$(jq -r '"\(.boots) \(.why)"' <<<"$j")" "false no_db" "install: a UKI db does not vouch for"
expect_exit 5 "install: an unsigned systemd-boot" -- \
    "$KTRUST" check-update -q --efivars vars --install unsigned-sdboot.efi good.efi
# check-update --install NEW_UKI alone: the ESP's systemd-boot (and shim) stay
mkdir -p esp/EFI/systemd esp/EFI/Linux
cp sdboot.efi esp/EFI/systemd/systemd-bootx64.efi
cp good.efi esp/EFI/Linux/debian.efi
inst() { "$KTRUST" check-update --json --efivars "$1" --esp "$2" --install "$3" |
             jq -r 'select(.type == "install_check") | "\(.boots) \(.why) \(.file)"'; }
expect_eq "$(inst vars esp good.efi)" "true boots good.efi" "install a UKI alone: the ESP's systemd-boot starts it"
expect_eq "$(inst vars esp other.efi)" "false no_db other.efi" "install a UKI alone: db does not vouch for it"
expect_match "$("$KTRUST" check-update --efivars vars --esp esp --install good.efi)" \
    "the current systemd-boot stays: esp/EFI/systemd/systemd-bootx64.efi" "text: which systemd-boot judges it"
cp unsigned-sdboot.efi esp/EFI/systemd/systemd-bootx64.efi
expect_exit 5 "install a UKI alone: the ESP's systemd-boot is unsigned" -- \
    "$KTRUST" check-update -q --efivars vars --esp esp --install good.efi
mkdir -p noboot/EFI/Linux
expect_exit 66 "install a UKI alone, no systemd-boot on the ESP: cannot answer" -- \
    "$KTRUST" check-update -q --efivars vars --esp noboot --install good.efi
# shim -> systemd-boot (grubx64.efi) -> the new UKI, our key a MOK
mkdir -p shimesp/EFI/BOOT mokvars
cp "$CORPUS/debian/shimx64.efi.signed" shimesp/EFI/BOOT/BOOTX64.EFI
cp sdboot.efi shimesp/EFI/BOOT/grubx64.efi
cp "$VARS"/* mokvars/
efi esl --x509 db.crt -o mok.esl
efi efivar --attrs 0x6 mok.esl -o mokvars/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23
expect_eq "$(inst mokvars shimesp good.efi)" "true boots good.efi" "install a UKI alone behind shim and systemd-boot: the MOK vouches"
expect_eq "$(inst mokvars shimesp other.efi)" "false shim_keys other.efi" "behind shim: a UKI no MOK vouches for"
# shim where distributions put it, EFI/debian/shimx64.efi, started by a
# Boot#### of BootOrder (no EFI/BOOT/BOOTX64.EFI): the same lookup of the
# program firmware starts (kt_boot_first_stage), then BootNext's
GV=8be4df61-93ca-11d2-aa0d-00e098032b8c
mkdir -p distesp/EFI/debian distesp/EFI/systemd distvars
cp "$CORPUS/debian/shimx64.efi.signed" distesp/EFI/debian/shimx64.efi
cp sdboot.efi distesp/EFI/debian/grubx64.efi
cp mokvars/* distvars/
rm -f distvars/Boot0*-$GV distvars/BootOrder-$GV
efi loadopt --efivar 7 --hd --desc debian --file '\EFI\debian\shimx64.efi' -o distvars/Boot0001-$GV
efi loadopt --efivar 7 --hd --desc 'systemd-boot' --file '\EFI\systemd\systemd-bootx64.efi' -o distvars/Boot0002-$GV
efi u16 --efivar 7 1 2 -o distvars/BootOrder-$GV
cp sdboot.efi distesp/EFI/systemd/systemd-bootx64.efi
expect_eq "$(inst distvars distesp good.efi)" "true boots good.efi" \
    "install a UKI alone: shim at EFI/debian/shimx64.efi by BootOrder, the MOK vouches"
expect_eq "$(inst distvars distesp other.efi)" "false shim_keys other.efi" \
    "install a UKI alone: shim by BootOrder judges with shim's keys"
efi u16 --efivar 7 2 -o distvars/BootNext-$GV
expect_eq "$("$KTRUST" check-update --json --efivars distvars --esp distesp --install good.efi |
    jq -r 'select(.type == "install_check") | "\(.boots) \(.why) \(.stopped_at)"')" \
    "false no_db distesp/EFI/systemd/systemd-bootx64.efi" \
    "BootNext starts systemd-boot without shim: db (Microsoft's) does not vouch for it"
rm distvars/BootNext-$GV distvars/Boot0001-$GV
expect_eq "$("$KTRUST" check-update --json --efivars distvars --esp distesp --install good.efi |
    jq -r 'select(.type == "install_check") | "\(.boots) \(.why) \(.stopped_at)"')" \
    "false no_db distesp/EFI/systemd/systemd-bootx64.efi" \
    "BootOrder's Boot0001 gone: its next entry, systemd-boot itself"
efi efivar --attrs 0x27 dbx.esl -o vars/dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f
j=$("$KTRUST" check-update --json --efivars vars --install sdboot.efi good.efi | jq -c 'select(.type == "install_check")')
expect_eq "$(jq -r '"\(.boots) \(.why)"' <<<"$j")" "false dbx" "install: systemd-boot in dbx"
cp sdboot.efi esp/EFI/systemd/systemd-bootx64.efi
expect_eq "$("$KTRUST" check-update --json --efivars vars --esp esp --install good.efi |
    jq -r 'select(.type == "install_check") | "\(.boots) \(.why) \(.stopped_at)"')" "false dbx esp/EFI/systemd/systemd-bootx64.efi" \
    "install a UKI alone: the ESP's systemd-boot is in dbx"
finish
