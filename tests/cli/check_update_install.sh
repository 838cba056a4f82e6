#!/bin/bash
# check-update --install NEW_SHIM [NEW_LOADER ...]: would this machine, with
# its variables in force, boot the new binaries?  The QEMU store (db: UEFI CA
# 2011 and Windows PCA 2011, no 2023 CA) refuses a 2023-only shim (made by
# stripping the corpus shim's 2011 signature; sbverify --list is the
# oracle for what is left) and boots it once Microsoft UEFI CA 2023 is in
# db; dbx refuses it by its CA or by its image hash (pesign -h); an
# SbatLevel in force that revokes grub,5 refuses the loader; -q prints
# nothing; --json ends with the summary object; bad inputs.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_python_cryptography
for tool in sbverify pesign jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
FX="$PY $KT_SRC/tests/fixtures/rollover.py"
D=$CORPUS/debian
CE=$CORPUS/peers/secureboot-objects/certs
QEMU=$CORPUS/peers/ovmf-swtpm-boot/efivars
SHIM=$D/shimx64.efi.signed
GRUB=$D/grubx64.efi.signed
CI() { "$KTRUST" check-update --install "$@"; }

$FX strip-sig "$SHIM" shim2023.efi 1
$FX strip-sig "$SHIM" shim2011.efi 0
# the oracle: one signature left, the 2023 one / the 2011 one
expect_eq "$(sbverify --list shim2023.efi 2>/dev/null | grep -c '^signature')" 1 "2023-only shim: one signature"
expect_match "$(sbverify --list shim2023.efi 2>/dev/null)" "issuers:.*
.*CN=Microsoft UEFI CA 2023" "2023-only shim: issued by UEFI CA 2023"
expect_match "$(sbverify --list shim2011.efi 2>/dev/null)" "CN=Microsoft Corporation UEFI CA 2011" "2011-only shim"

$FX efivars "$QEMU" q23 db+=$CE/microsoft-uefi-ca-2023.der
$FX efivars "$QEMU" q23dbx db+=$CE/microsoft-uefi-ca-2023.der dbx+=$CE/microsoft-uefi-ca-2023.der
H=$(pesign -h -i shim2023.efi 2>/dev/null | awk '/hash:/ {print $2}')
expect_match "$H" '^[0-9a-f]{64}$' "pesign gives the image hash"
$FX efivars "$QEMU" q23hash db+=$CE/microsoft-uefi-ca-2023.der dbxhash+=$H
$FX efivars "$QEMU" qsbat 'sbat=sbat,1,2099010100\nshim,4\ngrub,6\n'

# a db without the 2023 CA: the 2023-only shim does not boot (5), with the reason
out=$(CI --efivars "$QEMU" shim2023.efi "$GRUB")
expect_eq "$?" 5 "2023-only shim, QEMU db: exit"
expect_match "$out" "^no: no db entry accepts any signature of the new shim" "2023-only shim: reason"
expect_match "$out" "signature 0 \(Microsoft UEFI CA 2023" "2023-only shim: the CA its signature reaches"
# ... the dual-signed and the 2011-only shim do (their 2011 signature)
out=$(CI --efivars "$QEMU" "$SHIM" "$GRUB")
expect_eq "$?" 0 "dual-signed shim, QEMU db: exit"
expect_match "$out" "signature 0 .*accepted by Microsoft Corporation UEFI CA 2011" "dual-signed: 2011 signature accepted"
expect_match "$out" "signature 1 .*no db entry accepts it" "dual-signed: 2023 signature not"
expect_exit 0 "2011-only shim, QEMU db" -- CI --efivars "$QEMU" shim2011.efi "$GRUB"
# with the 2023 CA in db: 0
out=$(CI --efivars q23 shim2023.efi "$GRUB")
expect_eq "$?" 0 "2023-only shim, db + UEFI CA 2023: exit"
expect_match "$out" "^yes: the new shim boots \(signature 0: Microsoft UEFI CA 2023" "boots: by which db entry"
# dbx: the CA revoked, or the image hash listed
out=$(CI --efivars q23dbx shim2023.efi "$GRUB")
expect_eq "$?" 5 "dbx holds its CA: exit"
expect_match "$out" "^no: dbx revokes the new shim" "dbx holds its CA: reason"
out=$(CI --efivars q23hash shim2023.efi)
expect_eq "$?" 5 "dbx holds its image hash: exit"
expect_match "$out" "^no: dbx revokes the new shim" "dbx image hash: reason"
# the image hash leaves out the signatures: the dual-signed shim is the same image
expect_exit 5 "the dual-signed shim has that image hash too" -- CI --efivars q23hash "$SHIM"
expect_exit 0 "the same shim without that dbx entry" -- CI --efivars q23 "$SHIM"
# SBAT: the level in force revokes grub,5
out=$(CI --efivars qsbat "$SHIM" "$GRUB")
expect_eq "$?" 5 "SBAT-revoked loader: exit"
expect_match "$out" "grub 5 < 6" "SBAT: the component"
expect_match "$out" "SbatLevel: in force 2099010100; the new shim would apply 2099010100" "SBAT: both levels"
expect_exit 0 "the same level, shim alone" -- CI --efivars qsbat "$SHIM"
# a loader no key shim trusts vouches for (signed under UEFI CA 2023, which
# neither this db nor Debian's vendor certificate holds); one db holds
# (UEFI CA 2011) is fine: shim verifies with db too
out=$(CI --efivars "$QEMU" "$SHIM" "$GRUB" shim2023.efi)
expect_eq "$?" 5 "loader signed by no key shim trusts: exit"
expect_match "$out" "^no: shim2023.efi: no key in db, shim's vendor certificate or MOK vouches" "loader: reason"
expect_eq "$(CI --json --efivars "$QEMU" "$SHIM" "$GRUB" shim2023.efi | head -1 | jq -r '.why, .stopped_at' | tr '\n' ' ')" \
    "shim_keys shim2023.efi " "json: the loader that stops it"
expect_exit 0 "a loader db vouches for" -- CI --efivars "$QEMU" "$SHIM" shim2011.efi
# Secure Boot off in the variables: the same answer, and a note saying so
$FX efivars "$QEMU" qoff secureboot=0
out=$(CI --efivars qoff shim2023.efi)
expect_eq "$?" 5 "Secure Boot off: still the answer for Secure Boot on"
expect_match "$out" "note: Secure Boot is off in these variables" "Secure Boot off: the note"
# -q: nothing at all, the exit code only
out=$(CI -q --efivars "$QEMU" shim2023.efi "$GRUB" 2>&1)
expect_eq "$?:$out" "5:" "-q: exit 5 and no output"
out=$(CI -q --efivars q23 shim2023.efi "$GRUB" 2>&1)
expect_eq "$?:$out" "0:" "-q: exit 0 and no output"
# --root: the variables under ROOT/sys/firmware/efi/efivars
mkdir -p root/sys/firmware/efi && cp -r q23 root/sys/firmware/efi/efivars
expect_exit 0 "--root" -- CI --root root shim2023.efi "$GRUB"
# no NEW_LOADER: the loader on the ESP today stays behind the new shim
mkdir -p root/boot/efi/EFI/debian
cp "$GRUB" root/boot/efi/EFI/debian/grubx64.efi
cp "$SHIM" root/boot/efi/EFI/debian/shimx64.efi
out=$(CI --root root shim2023.efi)
expect_eq "$?" 0 "--root, the current GRUB: exit"
expect_match "$out" "^the current loader stays: root/boot/efi/EFI/debian/grubx64.efi" "the current loader, named"
expect_match "$out" "and 1 loader behind it" "the current loader, checked"
cp shim2023.efi root/boot/efi/EFI/debian/grubx64.efi
expect_exit 5 "--root, a current loader no shim key vouches for" -- CI --root root --efivars "$QEMU" "$SHIM"
expect_eq "$(CI --json --root root --efivars "$QEMU" "$SHIM" | head -1 | jq -r '.loaders[0], .why' | tr '\n' ' ')" \
    "root/boot/efi/EFI/debian/grubx64.efi shim_keys " "json: the current loader listed"
# --json: the answer, then the summary object
out=$(CI --json --efivars "$QEMU" shim2023.efi "$GRUB")
expect_eq "$(echo "$out" | head -1 | jq -r '[.type, .boots, .why, .signatures[0].accepted] | @tsv')" \
    "$(printf 'install_check\tfalse\tno_db\tfalse')" "json: the answer"
expect_eq "$(echo "$out" | tail -1 | jq -c '.')" \
    '{"type":"summary","schema":1,"verdict":"rejected","exit":5,"counts":{"does_not_boot":1},"interrupted":false,"error":null}' "json: summary"
expect_eq "$(CI --json --efivars q23 shim2023.efi | tail -1 | jq -r '.verdict, .exit' | tr '\n' ' ')" \
    "trusted 0 " "json: summary when it boots"
expect_eq "$(CI --json --efivars qsbat "$SHIM" "$GRUB" | head -1 | jq -r '.why, .sbat.current, .sbat.applied' | tr '\n' ' ')" \
    "sbat 2099010100 2099010100 " "json: sbat"
# bad inputs: one line each, documented exit codes
printf 'MZ not a PE' > bad.efi
out=$(CI --efivars q23 bad.efi 2>&1)
expect_eq "$?" 4 "a shim that cannot be parsed: 4"
expect_match "$out" "^ktrust: bad.efi: " "malformed shim: one error line"
out=$(CI --json --efivars q23 bad.efi 2>/dev/null)
expect_eq "$?" 4 "json, malformed shim: 4"
expect_eq "$(echo "$out" | jq -c '[.type, .boots, .verdict, .error, .stopped_at]' | tr '\n' ' ')" \
    '["install_check",null,null,"ELIBBAD","bad.efi"] ["summary",null,"malformed","bad.efi: DOS header: the file ends after 11 bytes, inside the 64-byte DOS header",null] ' \
    "json, malformed shim: an object, then the summary with the error"
expect_eq "$(CI --json --efivars q23 shim2023.efi missing.efi 2>/dev/null | tail -1 | jq -c '[.exit, .counts]')" \
    '[66,{"unreadable":1}]' "json, unreadable loader: the summary"
expect_exit 66 "a shim that cannot be read" -- CI --efivars q23 missing.efi
expect_exit 66 "a loader that cannot be read" -- CI --efivars q23 shim2023.efi missing.efi
out=$(CI --efivars nowhere shim2023.efi 2>&1)
expect_eq "$?" 66 "no variables: 66"
expect_match "$out" "^ktrust: nowhere: cannot read the firmware variables" "no variables: message"
expect_exit 64 "--install with --sbat-level" -- "$KTRUST" check-update --install --sbat-level latest shim2023.efi
expect_exit 64 "--root without --install" -- "$KTRUST" check-update --root q23 --sbat-level latest shim2023.efi
# --efivars without --install: the dbx in force is checked (apply_updates.sh)
expect_exit 0 "--efivars without --install checks the dbx in force" -- "$KTRUST" check-update -q --efivars q23 --sbat-level latest shim2023.efi
expect_exit 64 "--install without a shim" -- CI --efivars q23
finish
