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
corpus
for tool in sign-efi-sig-list cert-to-efi-sig-list sbsign openssl jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
G=11111111-2222-3333-4444-555555555555
GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
IMGDB=d719b2cb-3d3a-4596-a3bc-dad00e67656f
for k in pk kek pca; do
    openssl req -x509 -newkey rsa:2048 -nodes -keyout $k.key -out $k.pem -days 3650 \
        -subj "/CN=Audit dual boot $k" -addext basicConstraints=critical,CA:TRUE 2>/dev/null
    cert-to-efi-sig-list -g $G $k.pem $k.esl >/dev/null
done
openssl req -newkey rsa:2048 -nodes -keyout bm.key -out bm.csr -subj "/CN=Audit bootmgr" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=codeSigning\n' > ext.cnf
openssl x509 -req -in bm.csr -CA pca.pem -CAkey pca.key -CAcreateserial -out bm.pem -days 365 \
    -extfile ext.cnf 2>/dev/null
sbsign --key bm.key --cert bm.pem --output bootmgfw.efi "$CORPUS/windows/7za-x64-unsigned.exe" >/dev/null 2>&1
mkdir -p root/sys/firmware/efi/efivars root/boot/efi/EFI/MICROSOFT/Boot
var() { { printf '\x27\x00\x00\x00'; cat "$3"; } > "root/sys/firmware/efi/efivars/$1-$2"; }
var PK $GLOBAL pk.esl
var KEK $GLOBAL kek.esl
var db $IMGDB pca.esl
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
