#!/bin/bash
# check-update over a directory laid out like an ESP (the corpus shim, GRUB,
# MokManager, kernel): Microsoft's dbx updates revoke none of them; dbx
# entries made from the files themselves revoke them by image hash (SHA-256
# from pesign -h, SHA-384 from osslsigncode), by certificate and by TBS
# hash; a PE32 image is checked (fwupd skips those); SbatLevel; descriptions
# from dbx_info; unparsable files reported.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in pesign osslsigncode openssl jq python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
S=$CORPUS/peers/secureboot-objects
mkdir -p esp/EFI/debian esp/EFI/BOOT
cp "$D/shimx64.efi.signed" esp/EFI/debian/shimx64.efi
cp "$D/grubx64.efi.signed" esp/EFI/debian/grubx64.efi
cp "$D/mmx64.efi.signed" esp/EFI/debian/mmx64.efi
cp "$D/shimx64.efi.signed" esp/EFI/BOOT/BOOTX64.EFI
cp "$D/vmlinuz-6.1.0-57-amd64" esp/vmlinuz
printf 'shimx64.efi,debian,,This is the boot entry for debian\n' > esp/EFI/debian/BOOTX64.CSV
CU() { "$KTRUST" check-update "$@"; }

# esl TYPE-GUID HEX... > out: one EFI_SIGNATURE_LIST of hashes (owner zero)
esl() { efi esl --type "$1" --hash "${@:2}"; }
SHA256=c1c41626-504c-4092-aca9-41f936934328
SHA384=ff3e5307-9fd0-48c9-85f1-8ad56c701e01
X509SHA256=3bd2a492-96c0-4079-b420-fcf98ef103ed

# Microsoft's updates (signed files) and a real dbx dump, combined: nothing revoked
j=$(CU --json --dbx "$S/DBX/DBXUpdate-amd64.bin" --dbx "$S/DBX/DBXUpdate2024.bin" \
    --dbx "$S/DBX/DBXUpdateSVN.bin" \
    --dbx "$CORPUS/peers/shim-efivars/efivars-0/dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f" \
    --sbat-level "shim:$D/shimx64.efi.signed:latest" esp)
expect_eq $? 0 "corpus ESP vs Microsoft's dbx and the shim's latest level: exit 0"
expect_eq "$(jq -c 'select(.type == "summary")' <<<"$j")" '{"type":"summary","schema":1,"verdict":"still_boots","exit":0,"counts":{"still_boots":5,"would_be_revoked":0,"malformed":0,"unreadable":0},"interrupted":false,"error":null}' \
    "summary: 5 PE files (the CSV is no PE), none revoked"
expect_eq "$(jq -r 'select(.file) | .verdict' <<<"$j" | sort -u)" still_boots "every file still boots"
expect_eq "$(jq -r 'select(.file | test("vmlinuz")?) | .sbat_missing' <<<"$j")" true "kernel: no .sbat"

# --db: the real firmware db (efivars-0, holds the Microsoft UEFI CA 2011) vouches for shim only
j=$(CU --json --dbx "$S/DBX/DBXUpdate-x86.bin" \
    --db "$CORPUS/peers/shim-efivars/efivars-0/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f" esp)
expect_eq "$(jq -r 'select(.signed_by_db == true) | .file' <<<"$j" | sort | tr '\n' ' ')" \
    "esp/EFI/BOOT/BOOTX64.EFI esp/EFI/debian/shimx64.efi " "db vouches for the two shims"
expect_match "$(jq -r 'select(.file == "esp/EFI/debian/shimx64.efi") | .db_certificate' <<<"$j")" \
    "^Microsoft Corporation UEFI CA 2011" "by the UEFI CA 2011"
expect_eq "$(jq -r 'select(.file == "esp/EFI/debian/grubx64.efi") | .signed_by_db' <<<"$j")" false "not GRUB"

# grub's SHA-256 Authenticode hash (pesign -h) as an image entry
gh=$(pesign -h -i esp/EFI/debian/grubx64.efi | sed -n 's/^hash: //p')
esl $SHA256 0000000000000000000000000000000000000000000000000000000000000000 "$gh" > grub.esl
j=$(CU --json --dbx grub.esl esp)
expect_eq $? 5 "grub's hash in dbx: exit 5"
expect_eq "$(jq -r 'select(.would_be_revoked == true) | .file' <<<"$j")" esp/EFI/debian/grubx64.efi "only grub"
expect_eq "$(jq -c 'select(.would_be_revoked == true) | .reasons[] | [.by, .detail]' <<<"$j")" \
    "[\"image_hash\",\"sha256 image hash $gh\"]" "the reason: image hash"
expect_eq "$(jq -c 'select(.type == "summary") | [(.counts | add), .counts.would_be_revoked]' <<<"$j")" '[5,1]' "summary counts"
out=$(CU --dbx grub.esl esp)
expect_match "$out" "esp/EFI/debian/grubx64.efi: would be revoked" "text verdict"
expect_match "$out" "esp/EFI/debian/shimx64.efi: still boots" "text still boots"
# descriptions from a dbx_info document naming that hash
python3 - "$S/DBX/dbx_info_msft_latest.json" "$gh" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["images"]["x64"].append({"authenticodeHash": sys.argv[2].upper(), "hashType": "SHA256",
    "flatHash": "", "filename": "grubx64.efi", "description": "CVE-2099-0001 (test)",
    "companyName": "Debian", "dateOfAddition": "2099-01-01", "signingAuthority": "x"})
json.dump(d, open("info.json", "w"))
PY
expect_eq "$(CU --json --dbx grub.esl --dbx-info info.json esp | jq -r 'select(.would_be_revoked == true) | .reasons[0].description')" \
    "grubx64.efi (Debian, x64, added 2099-01-01): CVE-2099-0001 (test)" "dbx_info description"
expect_eq "$(CU --json --dbx grub.esl --dbx-info "$S/DBX/dbx_info_msft_latest.json" esp | jq -r 'select(.would_be_revoked == true) | .reasons[0].description')" \
    null "not in Microsoft's list: no description"

# GRUB's signer certificate as an X509 entry, and its TBS hash as X509_SHA256
osslsigncode extract-signature -in esp/EFI/debian/grubx64.efi -out grub.p7 >/dev/null 2>&1
openssl pkcs7 -inform DER -in grub.p7 -print_certs -out grubcerts.pem
openssl x509 -in grubcerts.pem -outform DER -out signer.der
openssl x509 -in grubcerts.pem -out signer.pem
cert-to-efi-sig-list signer.pem signer.esl >/dev/null 2>&1 || efi esl --x509 signer.der -o signer.esl
j=$(CU --json --dbx signer.esl esp)
expect_eq $? 5 "the grub signer certificate in dbx: exit 5"
expect_eq "$(jq -r 'select(.would_be_revoked == true) | .file' <<<"$j")" esp/EFI/debian/grubx64.efi "certificate: grub"
expect_eq "$(jq -r 'select(.would_be_revoked == true) | .reasons[0].by' <<<"$j")" certificate "by certificate"
expect_match "$(jq -r 'select(.would_be_revoked == true) | .reasons[0].detail' <<<"$j")" "Debian Secure Boot Signer 2022 - grub2" \
    "certificate detail"
openssl asn1parse -inform DER -in signer.der -strparse 4 -noout -out tbs.der >/dev/null 2>&1
th=$(sha256sum tbs.der | cut -d' ' -f1)
efi esl --x509-sha256 "$th" > tbs.esl
j=$(CU --json --dbx tbs.esl esp)
expect_eq $? 5 "the signer's TBS hash in dbx: exit 5"
expect_eq "$(jq -r 'select(.would_be_revoked == true) | .reasons[0].by' <<<"$j")" certificate_tbs "by certificate_tbs"
expect_match "$(jq -r 'select(.would_be_revoked == true) | .reasons[0].detail' <<<"$j")" "sha256 of its TBS $th" "TBS detail"

# SbatLevel: grub.debian,6 revokes GRUB; a level naming shim,5 revokes shim and MokManager
printf 'sbat,1,2099010100\ngrub.debian,6\n' > lvl.txt
j=$(CU --json --sbat-level lvl.txt esp)
expect_eq $? 5 "SBAT revokes grub"
expect_eq "$(jq -c 'select(.would_be_revoked == true) | [.file, .reasons[0].by, .reasons[0].detail]' <<<"$j")" \
    '["esp/EFI/debian/grubx64.efi","sbat","grub.debian 5 < 6 (level 2099010100)"]' "SBAT reason"
printf 'sbat,1,2099010100\nshim,5\n' > lvl2.txt
expect_eq "$(CU --json --sbat-level lvl2.txt esp | jq -r 'select(.would_be_revoked == true) | .file' | sort | tr '\n' ' ')" \
    "esp/EFI/BOOT/BOOTX64.EFI esp/EFI/debian/mmx64.efi esp/EFI/debian/shimx64.efi " "shim,5: shim and MokManager"
# dbx and SBAT together: both reasons on one file
expect_eq "$(CU --json --dbx grub.esl --sbat-level lvl.txt esp | jq -r 'select(.would_be_revoked == true) | [.reasons[].by] | join(",")')" \
    "image_hash,sbat" "two reasons"

# a PE32 image (fwupd skips 32-bit ones): uthenticode's pegoat, its SHA-256 from their suite
P32=$CORPUS/peers/uthenticode/32/pegoat-authenticode.exe
if [ -f "$P32" ]; then
    esl $SHA256 ea013992f99840f76dcac225dd1262edcec3254511b250a6d1e98d99fc48f815 > p32.esl
    j=$(CU --json --dbx p32.esl "$P32")
    expect_eq $? 5 "PE32 image revoked"
    expect_eq "$(jq -r 'select(.file) | .format' <<<"$j")" pe32 "format pe32"
fi

# SHA-384 image entries: the Authenticode hash in that algorithm (osslsigncode's)
openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -subj /CN=cu-test -days 30 2>/dev/null
"$KTRUST" wrap-key c.pem -o w.efi >/dev/null
osslsigncode sign -certs c.pem -key k.pem -h sha384 -in w.efi -out w384.efi >/dev/null 2>&1
h384=$(osslsigncode verify -ignore-cdp -ignore-crl -CAfile c.pem -in w384.efi 2>/dev/null |
    sed -n 's/^Calculated message digest : *\([0-9A-Fa-f]*\).*/\1/p' | head -1 | tr A-F a-f)
expect_eq "${#h384}" 96 "osslsigncode gave a SHA-384 digest"
esl $SHA384 "$h384" > h384.esl
j=$(CU --json --dbx h384.esl w384.efi)
expect_eq $? 5 "SHA-384 dbx entry revokes"
expect_eq "$(jq -r 'select(.file) | .reasons[0].detail' <<<"$j")" "sha384 image hash $h384" "sha384 detail"

# a certificate Microsoft revoked (DBXUpdate2024: Windows Production PCA 2011), carried in
# an image's PKCS#7 bag but not on its signer's chain: firmware builds the chain from the
# signer (EDK2 IsForbiddenByDbx: AuthenticodeVerify with the dbx entry as root), so the
# entry denies nothing here (until 2026-12 check-update checked every certificate of the bag
# and called it revoked, while chain and the real firmware boot it: SECURITY.md)
openssl x509 -inform DER -in "$S/certs/MicWinProPCA2011_2011-10-19.der" -out pca.pem
osslsigncode sign -certs c.pem -key k.pem -ac pca.pem -in w.efi -out wpca.efi >/dev/null 2>&1
j=$(CU --json --dbx "$S/DBX/DBXUpdate2024.bin" --dbx-info "$S/DBX/dbx_info_msft_latest.json" wpca.efi w.efi)
expect_eq $? 0 "PCA 2011 in the bag, off the signer's chain: exit 0"
expect_eq "$(jq -r 'select(.file) | .verdict' <<<"$j" | sort -u)" still_boots "both still boot"

# unparsable files are reported, never passed: exit 4 when nothing is revoked
mkdir bad
head -c 300 "$D/grubx64.efi.signed" > bad/trunc.efi
printf 'not a PE at all' > bad/notpe.efi
printf 'MZ garbage' > bad/mz.bin
printf 'plain text' > bad/readme.txt
j=$(CU --json --dbx grub.esl bad)
expect_eq $? 4 "unparsable PEs: exit 4"
expect_eq "$(jq -c 'select(.type == "summary") | [(.counts | add), .counts.malformed]' <<<"$j")" '[3,3]' "3 candidates, 3 unparsable (the .txt skipped)"
expect_eq "$(jq -r 'select(.file) | .verdict' <<<"$j" | sort -u)" malformed "verdict malformed"
expect_exit 5 "revoked wins over unparsable" -- CU --dbx grub.esl bad esp
# usage
expect_exit 64 "nothing to check" -- CU esp
expect_exit 64 "no PATH" -- CU --dbx grub.esl
expect_exit 66 "missing PATH" -- CU --dbx grub.esl nonexistent
expect_exit 4 "malformed --dbx" -- CU --dbx c.pem esp
expect_exit 4 "malformed --dbx-info" -- CU --dbx grub.esl --dbx-info c.pem esp
finish
