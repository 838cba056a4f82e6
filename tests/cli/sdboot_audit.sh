#!/bin/bash
# audit finds systemd-boot on the ESP (#34) and reports the chain it boots:
# firmware -> systemd-boot (EFI/systemd/systemd-bootx64.efi or
# EFI/BOOT/BOOTX64.EFI, no shim: db and dbx judge the UKI too) -> the UKI
# that boots next (LoaderEntryDefault from the efivars snapshot), and
# firmware -> shim -> systemd-boot as shim's second stage (grubx64.efi) ->
# UKI under a MOK.  A UKI signed by a key db lacks, an unsigned
# systemd-boot, and a next entry whose path has '..' are not "trusted".
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl sbsign
SDB=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
[ -f $SDB ] || { echo "skipped: systemd-boot-efi not installed"; exit 77; }
LG=4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
SG=605dab50-e046-4300-abb6-3dd810dd8b23
uki_keys db other
printf 'ID=debian\nVERSION_ID=12\n' >osrel
"$MK" uki.efi .linux=$K .osrel=osrel >/dev/null || exit $?
sbsign --key db.key --cert db.crt --output sdboot.efi $SDB 2>/dev/null
mkdir -p esp/EFI/systemd esp/EFI/Linux vars
cp sdboot.efi esp/EFI/systemd/systemd-bootx64.efi
sbsign --key db.key --cert db.crt --output esp/EFI/Linux/b-good.efi uki.efi 2>/dev/null
sbsign --key other.key --cert other.crt --output esp/EFI/Linux/a-other.efi uki.efi 2>/dev/null
efi esl --x509 db.crt -o db.esl
efi efivar --attrs 0x27 db.esl -o vars/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f
chain() { "$KTRUST" audit --json --efivars "$1" --esp "$2" | jq -c 'select(.section == "chain")'; }
links() { jq -r '[.links[] | "\(.role)=\(.verdict)"] | join(" ")'; }

c=$(chain vars esp)
expect_eq "$(jq -r '.sdboot | "\(.no_shim) \(.next) \(.kind) \(.rule)"' <<<"$c")" \
    "true b-good.efi uki first" "systemd-boot found, no shim; the first entry boots next"
expect_eq "$(links <<<"$c")" "shim=null loader=trusted kernel=trusted" \
    "firmware -> systemd-boot -> UKI (own key in db)"
expect_match "$(jq -r '.links[2].file' <<<"$c")" "EFI/Linux/b-good.efi" "the kernel link is the UKI"
expect_exit 0 "audit: trusted" -- "$KTRUST" audit -q --efivars vars --esp esp
expect_match "$("$KTRUST" audit --efivars vars --esp esp)" \
    "systemd-boot boots next: b-good.efi .uki, rule: first." "the text names the entry"

efi str16 --efivar 7 a-other.efi -o vars/LoaderEntryDefault-$LG
c=$(chain vars esp)
expect_eq "$(jq -r '.sdboot | "\(.next) \(.rule)"' <<<"$c") $(links <<<"$c")" \
    "a-other.efi efivar shim=null loader=trusted kernel=untrusted" \
    "LoaderEntryDefault picks the UKI signed by a key db lacks"
expect_exit 2 "audit: untrusted" -- "$KTRUST" audit -q --efivars vars --esp esp
rm vars/LoaderEntryDefault-$LG

# the removable path: BOOTX64.EFI is systemd-boot, unsigned
mkdir -p esp2/EFI/BOOT esp2/EFI/Linux
cp $SDB esp2/EFI/BOOT/BOOTX64.EFI
cp esp/EFI/Linux/b-good.efi esp2/EFI/Linux/
c=$(chain vars esp2)
expect_eq "$(jq -r '.sdboot.no_shim' <<<"$c") $(links <<<"$c")" \
    "true shim=null loader=unsigned kernel=trusted" "BOOTX64.EFI that is systemd-boot is no shim"
expect_exit 1 "audit: unsigned systemd-boot" -- "$KTRUST" audit -q --efivars vars --esp esp2

# the attack: the next entry's path climbs with '..': never judged
mkdir -p esp/loader/entries
printf 'title climbs\nefi /EFI/systemd/../Linux/a-other.efi\n' >esp/loader/entries/z.conf
efi str16 --efivar 7 z.conf -o vars/LoaderEntryOneShot-$LG
expect_exit 66 "audit: a next entry with '..' is no answer, never trusted" -- \
    "$KTRUST" audit -q --efivars vars --esp esp
expect_match "$("$KTRUST" audit --efivars vars --esp esp 2>&1)" "z.conf: /EFI/systemd/../Linux/a-other.efi has" \
    "the reason names the entry"
rm -rf esp/loader vars/LoaderEntryOneShot-$LG

# shim's second stage: the corpus shim under OVMF's Microsoft db, systemd-boot
# as grubx64.efi, our key in MokListRT
cp -r "$CORPUS/peers/ovmf-swtpm-boot/efivars" mvars
chmod -R u+w mvars
efi esl --x509 db.crt --efivar 6 -o mvars/MokListRT-$SG
mkdir -p esp3/EFI/debian esp3/EFI/Linux
cp "$CORPUS/debian/shimx64.efi.signed" esp3/EFI/debian/shimx64.efi
cp sdboot.efi esp3/EFI/debian/grubx64.efi
cp esp/EFI/Linux/b-good.efi esp3/EFI/Linux/
c=$(chain mvars esp3)
expect_eq "$(jq -r '.sdboot | "\(.no_shim) \(.next)"' <<<"$c") $(links <<<"$c")" \
    "false b-good.efi shim=trusted loader=trusted kernel=trusted" \
    "firmware -> shim -> systemd-boot -> UKI (MOK)"
rm mvars/MokListRT-$SG
c=$(chain mvars esp3)
expect_eq "$(links <<<"$c")" "shim=trusted loader=untrusted kernel=untrusted" "without the MOK"
finish
