#!/bin/bash
# unseal-check, plan-updates and audit judge a signed PCR policy by the UKI
# systemd-boot boots next (kt_sdboot_next_uki through kt_seal_uki_open_for),
# without a TPM: the token (tests/fixtures/mktoken_signed.py: PolicyAuthorize
# by the key as the TPM computes it) and the .pcrsig (mkpcrsig.py: PolicyPCR
# over PCR 11 at enter-initrd, signed with openssl) are made here, not by
# ktrust.  Two UKIs in EFI/Linux with the same sections: b.efi's .pcrsig
# signs its PCR 11, a.efi has none.
#   - no systemd-boot on the ESP, two UKIs: cannot tell which boots (exit 3);
#   - systemd-boot, no variables: its first entry (b.efi, ids downwards)
#     unseals; LoaderEntryDefault = a.efi: a.efi, does NOT unseal (exit 5);
#   - LoaderEntryOneShot beats LoaderEntryDefault; --uki beats both.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl python3
SDB=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
[ -f $SDB ] || { echo "skipped: systemd-boot-efi not installed"; exit 77; }
F=$KT_SRC/tests/fixtures
LG=4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
printf 'ID=debian\nVERSION_ID=12\n' >osrel
printf 'root=/dev/vda1 ro' >cmdline
openssl genrsa -out pcr.key 2048 2>/dev/null
openssl rsa -in pcr.key -pubout -out pcr.pub 2>/dev/null
python3 $F/mktoken_signed.py pcr.pub tok.json || exit 1
python3 $F/mkpcrsig.py pcr.key pcr.pub sig.json .linux=$K .osrel=osrel .cmdline=cmdline .pcrpkey=pcr.pub
mkdir -p esp/EFI/Linux vars
"$MK" esp/EFI/Linux/a.efi .linux=$K .osrel=osrel .cmdline=cmdline .pcrpkey=pcr.pub >/dev/null || exit $?
"$MK" esp/EFI/Linux/b.efi .linux=$K .osrel=osrel .cmdline=cmdline .pcrpkey=pcr.pub .pcrsig=sig.json >/dev/null
expect_eq "$("$KTRUST" uki show esp/EFI/Linux/b.efi --json | jq -r .pcrsig.status)" "valid" \
    "the .pcrsig made here checks out (ktrust's reading of it)"
printf 'sha256 7 8c374a53782642f7514d087d26a3e733f1b806009a03e04a43b288ef2fa9f9c0\n' >pcrs.txt
O=$CORPUS/peers/ovmf-swtpm-boot
uc() { "$KTRUST" unseal-check --pcrs pcrs.txt --eventlog "$O/eventlog.bin" --esp esp "$@" tok.json; }
which() { uc "$@" --json | jq -r 'select(.type == "token") | "\(.signed.uki) \(.unseals_today)"'; }

expect_eq "$(which)" "null null" "no systemd-boot, two UKIs in EFI/Linux: no UKI, cannot tell"
expect_exit 3 "no systemd-boot, two UKIs: exit 3" -- uc
mkdir -p esp/EFI/systemd
cp $SDB esp/EFI/systemd/systemd-bootx64.efi
expect_eq "$(which)" "esp/EFI/Linux/b.efi true" "systemd-boot, no variables: its first entry's UKI, signed: unseals"
efi str16 --efivar 7 a.efi -o vars/LoaderEntryDefault-$LG
expect_eq "$(which --efivars vars)" "esp/EFI/Linux/a.efi false" \
    "LoaderEntryDefault picks a.efi (no .pcrsig): does not unseal"
expect_exit 5 "the next entry's UKI does not cover the token: exit 5" -- uc --efivars vars
efi str16 --efivar 7 b.efi -o vars/LoaderEntryOneShot-$LG
expect_eq "$(which --efivars vars)" "esp/EFI/Linux/b.efi true" "LoaderEntryOneShot beats LoaderEntryDefault"
expect_eq "$(which --efivars vars --uki esp/EFI/Linux/a.efi)" "esp/EFI/Linux/a.efi false" "--uki beats the entries"
rm vars/LoaderEntryOneShot-$LG
# plan-updates and audit take the same rule (the variables of the snapshot)
cp -r "$O/efivars" ev && cp vars/* ev/
mkdir -p r/etc r/boot && cp tok.json r/tok.json && echo "data /tok.json none" >r/etc/crypttab
cp -r esp r/boot/efi
DBXU=$CORPUS/peers/secureboot-objects/DBX/DBXUpdate2024.bin
expect_eq "$("$KTRUST" plan-updates --efivars ev --eventlog "$O/eventlog.bin" --luks tok.json --esp esp "$DBXU" --json |
    jq -r 'select(.type=="plan") | .steps[0].after.sealed[0] | "\(.signed.uki) \(.signed.pcrsig)"')" \
    "esp/EFI/Linux/a.efi no_pcrsig" "plan-updates: the UKI LoaderEntryDefault picks"
finish
