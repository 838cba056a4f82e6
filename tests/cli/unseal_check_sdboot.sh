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
#   - LoaderEntryOneShot beats LoaderEntryDefault; --uki beats both;
#   - plan-updates, check-update --install NEW_UKI (the new UKI's .pcrsig)
#     and audit of a whole root (crypttab, ESP, add-ons) take the same rule.
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
# which UKI and why (kt_sdboot_pick_uki), the same fields for every command
choice() { jq -r 'select(.type == "token") | .signed.uki_choice | "\(.uki) \(.entry) \(.rule)"'; }
mv esp/EFI/Linux/a.efi a.efi
expect_eq "$(uc --json | choice)" "/EFI/Linux/b.efi null only" "no systemd-boot, one UKI in EFI/Linux: the only one"
expect_match "$(uc)" "UKI esp/EFI/Linux/b.efi \(the only UKI in EFI/Linux \(no systemd-boot\)\)" "text: the only one"
mv a.efi esp/EFI/Linux/a.efi
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
expect_eq "$(uc --efivars vars --json | choice)" "/EFI/Linux/b.efi b.efi oneshot" "unseal-check: the UKI, its entry, the rule"
expect_eq "$(uc --efivars vars --uki esp/EFI/Linux/a.efi --json | choice)" "/EFI/Linux/a.efi null given" \
    "unseal-check --uki: given, on the ESP"
expect_match "$(uc --efivars vars)" "UKI esp/EFI/Linux/b.efi \(of systemd-boot's next entry b.efi \(oneshot\)\)" \
    "unseal-check text: the entry and the rule"
rm vars/LoaderEntryOneShot-$LG
# plan-updates and audit take the same rule (the variables of the snapshot)
cp -r "$O/efivars" ev && cp vars/* ev/
mkdir -p r/etc r/boot && cp tok.json r/tok.json && echo "data /tok.json none" >r/etc/crypttab
cp -r esp r/boot/efi
DBXU=$CORPUS/peers/secureboot-objects/DBX/DBXUpdate2024.bin
expect_eq "$("$KTRUST" plan-updates --efivars ev --eventlog "$O/eventlog.bin" --luks tok.json --esp esp "$DBXU" --json |
    jq -r 'select(.type=="plan") | .steps[0].after.sealed[0] | "\(.signed.uki) \(.signed.pcrsig)"')" \
    "esp/EFI/Linux/a.efi no_pcrsig" "plan-updates: the UKI LoaderEntryDefault picks"
expect_eq "$("$KTRUST" plan-updates --efivars ev --eventlog "$O/eventlog.bin" --luks tok.json --esp esp "$DBXU" --json |
    jq -r 'select(.type=="plan") | .steps[0].after.sealed[0] | .signed.uki_choice | "\(.uki) \(.entry) \(.rule)"')" \
    "/EFI/Linux/a.efi a.efi efivar" "plan-updates: which UKI, entry and rule"
# check-update --install NEW_UKI alone: the tokens judged by the new UKI
# (LoaderEntryDefault's a.efi boots today; b.efi's .pcrsig covers them)
ci() { "$KTRUST" check-update --efivars ev --eventlog "$O/eventlog.bin" --luks tok.json --esp esp \
           --install "$1" --json | jq -r 'select(.type == "install_check") | .sealed[0] |
           "\(.signed.uki) \(.signed.pcrsig) \(.unseals_after)"'; }
expect_eq "$(ci esp/EFI/Linux/b.efi)" "esp/EFI/Linux/b.efi ok true" "check-update --install b.efi: its .pcrsig covers the token"
"$MK" new.efi .linux=$K .osrel=osrel .cmdline=osrel .pcrpkey=pcr.pub .pcrsig=sig.json >/dev/null
expect_eq "$(ci new.efi)" "new.efi no_entry false" "a new UKI whose .pcrsig signs another PCR 11: does not unseal"
expect_match "$("$KTRUST" check-update --efivars ev --eventlog "$O/eventlog.bin" --luks tok.json --esp esp --install new.efi)" \
    "the current systemd-boot stays: esp/EFI/systemd/systemd-bootx64.efi" "text: the ESP's systemd-boot judges the new UKI"
# audit of the whole root (#34's "done when"): the chain's systemd-boot part
# names the next entry, its UKI's .pcrsig status, its add-ons; the sealed
# section judges the crypttab's token by that UKI
mkdir -p r/boot/efi/EFI/Linux/a.efi.extra.d r/boot/efi/loader/addons
"$MK" r/boot/efi/EFI/Linux/a.efi.extra.d/bad.addon.efi .linux=$K .cmdline=cmdline >/dev/null
"$MK" r/boot/efi/loader/addons/ok.addon.efi .cmdline=cmdline >/dev/null
aud() { "$KTRUST" audit --root r --eventlog "$O/eventlog.bin" --efivars "$1" "${@:2}"; }
j=$(aud ev --json)
expect_eq "$(jq -r 'select(.section == "chain") | .sdboot | "\(.next) \(.rule) \(.pcrsig.status) \(.addons.count) \(.addons.forbidden_sections | join(",")) \(.addons.loaded)"' <<<"$j")" \
    "a.efi efivar absent 2 .linux false" "audit: the next UKI (LoaderEntryDefault), no .pcrsig, its two add-ons (one with .linux), 252 ignores them"
expect_eq "$(jq -r '.. | objects | select(has("tokens")) | .tokens[0] | "\(.signed.uki) \(.unseals_after)"' <<<"$j")" \
    "r/boot/efi/EFI/Linux/a.efi false" "audit: the sealed token judged by that UKI: does not unseal"
expect_eq "$(jq -r '.. | objects | select(has("tokens")) | .tokens[0].signed.uki_choice | "\(.uki) \(.entry) \(.rule)"' <<<"$j")" \
    "/EFI/Linux/a.efi a.efi efivar" "audit: the sealed token's UKI, entry and rule, as the chain's sdboot says"
t=$(aud ev)
expect_match "$t" "PCR 11 policy \(.pcrsig sha256\): absent" "audit text: the PCR 11 policy status"
expect_match "$t" "add-ons: 2, [0-9]+ refused \(forbidden sections: .linux\); its stub \(systemd 252\) ignores them" \
    "audit text: the add-ons"
cp -r ev ev2 && efi str16 --efivar 7 b.efi -o ev2/LoaderEntryDefault-$LG
j=$(aud ev2 --json)
expect_eq "$(jq -r 'select(.section == "chain") | .sdboot | "\(.next) \(.pcrsig.status) \(.pcrsig.signed_phases | join(",")) \(.addons.count)"' <<<"$j")" \
    "b.efi valid enter-initrd 1" "audit: b.efi's .pcrsig valid for enter-initrd; only the global add-on"
expect_eq "$(jq -r '.. | objects | select(has("tokens")) | .tokens[0] | "\(.signed.uki) \(.unseals_after)"' <<<"$j")" \
    "r/boot/efi/EFI/Linux/b.efi true" "audit: the sealed token unseals with b.efi"
expect_match "$(aud ev2)" "PCR 11 policy \(.pcrsig sha256\): signed for enter-initrd by .pcrpkey [0-9a-f]{64}" \
    "audit text: signed for which phase, by which key"
# the banks the sealed keys use: the crypttab's token (sha256) against
# b.efi's .pcrsig in that bank; bound to sha384, a bank .pcrsig lacks
expect_eq "$(jq -r 'select(.section == "chain") | [.sdboot.pcrsig_banks[] | "\(.bank)=\(.status),\(.present),\(.sealed_keys)"] | join(" ")' <<<"$j")" \
    "sha256=valid,true,1" "audit: .pcrsig's banks, the sealed key's bank among them"
jq -c '."tpm2-pcr-bank" = "sha384"' tok.json >r/tok.json
j=$(aud ev2 --json)
expect_eq "$(jq -r 'select(.section == "chain") | [.sdboot.pcrsig_banks[] | "\(.bank)=\(.status),\(.present),\(.sealed_keys)"] | join(" ")' <<<"$j")" \
    "sha256=valid,true,0 sha384=mismatch,false,1" "audit: a key sealed in sha384, a bank .pcrsig has no entries for"
expect_match "$(aud ev2)" "PCR 11 policy \(.pcrsig sha384\): mismatch \(.pcrsig has no sha384 entries\): .* in this bank does not unseal with this UKI \(1 sealed key uses this bank\)" \
    "audit text: the sealed key's bank"
finish
