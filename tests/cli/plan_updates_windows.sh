#!/bin/bash
# plan-updates, dual boot (issue #35): a Windows boot manager on the ESP
# (EFI/Microsoft/Boot/bootmgfw.efi) is judged by firmware's db and dbx in
# each state, as shim is.  A dbx update that revokes the CA it is signed
# under (here a test PCA in db, as DBXUpdate2024.bin revokes Microsoft
# Windows Production PCA 2011) would stop it: the step is held back with the
# order that keeps Windows booting (exit 5), and the rest of the plan goes
# on.  When db already holds Windows UEFI CA 2023 the advice is only to boot
# Windows once; a boot manager signed under another CA in db (the 2023 one)
# lets the dbx update apply.  check-update sees the same boot manager
# revoked.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/dualboot.sh"
dualboot_setup "Dual boot test" pk kek pca pca23
P() { "$KTRUST" plan-updates "$@"; }
# a boot manager signed by a leaf under each PCA
dualboot_leaf bootmgr pca "Dual boot bootmgr"
dualboot_leaf bootmgr23 pca23 "Dual boot bootmgr23"
dualboot_pe bootmgr win2011.efi # a PE32+ nobody here wrote
dualboot_pe bootmgr23 win2023.efi
mkdir -p esp/EFI/Microsoft/Boot vars up
cp win2011.efi esp/EFI/Microsoft/Boot/bootmgfw.efi
var() { { printf '\x27\x00\x00\x00'; cat "$4"; } > "$1/$2-$3"; }
var vars PK $GLOBAL pk.esl
var vars KEK $GLOBAL kek.esl
cat pca.esl pca23.esl > db.esl
var vars db $IMGDB db.esl
sign-efi-sig-list -a -g $G -t "2024-01-01 00:00:00" -k kek.key -c kek.pem dbx pca.esl up/DBXRevokePCA.bin \
    >/dev/null 2>&1 || bad "sign the dbx update"

expect_exit 5 "a dbx step that would stop the Windows boot manager" -- P --efivars vars --esp esp -q up
P --efivars vars --esp esp --json up > held.json
expect_eq "$(jq -c 'select(.type=="update") | [.applies, .step, .held]' held.json)" '[true,null,true]' \
    "verifies, held back, not a step"
expect_match "$(jq -r 'select(.type=="update") | .reason' held.json)" \
    '^held back: it would stop the Windows boot manager on the ESP \(EFI/Microsoft/Boot/bootmgfw.efi: .*\); apply DBUpdate2024 first, and boot Windows once so that it installs its 2023-signed boot manager; then DBXRevokePCA.bin$' \
    "the order to follow"
expect_eq "$(jq -c 'select(.type=="plan") | [.windows_boot_manager_file != null, .before.windows_boot_manager.verdict, .steps]' held.json)" \
    '[true,"trusted",[]]' "found on the ESP, boots now, nothing applied"
expect_match "$(P --efivars vars --esp esp up)" 'Windows boot manager: trusted:' "text: its verdict"

# db already holds Windows UEFI CA 2023: only boot Windows once
openssl x509 -inform DER -in "$CORPUS/peers/secureboot-objects/tree/PreSignedObjects/DB/Certificates/windows uefi ca 2023.der" \
    -out w23.pem
cert-to-efi-sig-list -g $G w23.pem w23.esl >/dev/null
cat pca.esl pca23.esl w23.esl > db2.esl
mkdir -p vars2 && cp vars/PK-* vars/KEK-* vars2/ && var vars2 db $IMGDB db2.esl
expect_match "$(P --efivars vars2 --esp esp --json up | jq -r 'select(.type=="update") | .reason')" \
    '; db holds Windows UEFI CA 2023: boot Windows once so that it installs its 2023-signed boot manager; then DBXRevokePCA.bin$' \
    "db holds the 2023 CA: boot Windows once"

# the boot manager Windows installs later, signed under the other CA: the dbx applies
cp win2023.efi esp/EFI/Microsoft/Boot/bootmgfw.efi
expect_exit 0 "a boot manager under another CA in db" -- P --efivars vars --esp esp -q up
expect_eq "$(P --efivars vars --esp esp --json up | jq -c 'select(.type=="plan") | [(.steps | length), .final.windows_boot_manager.verdict]')" \
    '[1,"trusted"]' "the dbx step applies, Windows still boots"

# check-update sees the 2011-signed one revoked
cp win2011.efi esp/EFI/Microsoft/Boot/bootmgfw.efi
expect_exit 5 "check-update: the boot manager would be revoked" -- \
    "$KTRUST" check-update --dbx up/DBXRevokePCA.bin -q esp
finish
