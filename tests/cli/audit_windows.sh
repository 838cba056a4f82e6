#!/bin/bash
# audit, dual boot (issue #35): a Windows boot manager on the ESP
# (EFI/Microsoft/Boot/bootmgfw.efi, found case-blind) is judged by firmware's
# db and dbx, today and with Microsoft Windows Production PCA 2011 in dbx
# (what DBXUpdate2024 adds).  A boot manager under a test PCA in db boots in
# both (it is not PCA 2011's: no order to follow); after an --apply that
# revokes its PCA it is rejected.  Without one nothing is printed.  (No
# binary signed under the real PCA 2011 is in the corpus: that state's
# rejection is shown by plan-updates' test PCA, tests/cli/plan_updates_windows.sh.)
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/dualboot.sh"
dualboot_setup "Audit dual boot" pk kek pca
dualboot_leaf bm pca "Audit bootmgr"
dualboot_pe bm bootmgfw.efi
mkdir -p root/sys/firmware/efi/efivars root/boot/efi/EFI/MICROSOFT/Boot
V=root/sys/firmware/efi/efivars
var $V PK $GLOBAL pk.esl
var $V KEK $GLOBAL kek.esl
var $V db $IMGDB pca.esl
A() { "$KTRUST" audit --root root "$@"; }
expect_eq "$(A --json | jq -r 'select(.section=="windows_boot_manager") | .file')" "" "no boot manager: no section"
cp bootmgfw.efi root/boot/efi/EFI/MICROSOFT/Boot/BOOTMGFW.EFI
A --json > a.json
expect_match "$(jq -r 'select(.section=="windows_boot_manager") | .file' a.json)" '/EFI/MICROSOFT/Boot/BOOTMGFW.EFI$' \
    "found case-blind on the ESP"
expect_eq "$(jq -c 'select(.section=="windows_boot_manager") | [.today.verdict, .pca_2011_in_dbx.verdict, .needs_2023_boot_manager_first]' a.json)" \
    '["trusted","trusted",false]' "under a test PCA: boots in both states, no order to follow"
expect_match "$(A)" 'Windows boot manager .*BOOTMGFW.EFI: trusted: .*Audit dual boot pca' "text: its verdict and the db entry"
sign-efi-sig-list -a -g $G -t "2024-01-01 00:00:00" -k kek.key -c kek.pem dbx pca.esl revoke.auth >/dev/null 2>&1
expect_match "$(A --apply revoke.auth --json | jq -r 'select(.section=="windows_boot_manager") | .today | .verdict + ": " + .reason')" \
    '^rejected: .*blacklisted Audit dual boot pca' "after an --apply revoking its PCA: rejected"
finish
