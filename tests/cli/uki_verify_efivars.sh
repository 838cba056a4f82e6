#!/bin/bash
# uki verify --efivars DIR: a UKI judged as systemd-boot 252 would start it
# under a snapshot of the variables (kt_chain_uki).  Without shim's run-time
# mirrors, the firmware's db and dbx: trusted by a db certificate (0), no db
# entry (2), its signer's certificate or its Authenticode hash in dbx (5).
# With MokListRT/SbatLevelRT (shim ran): MokListRT vouches, MokListXRT
# revokes, and a .sbat generation below the SbatLevel is rejected (5)
# (the real boots: tests/boot/uki.py uki_dbx_signer, uki_sbat_low).
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl sbsign python3
printf 'ID=debian\n' >osrel
"$MK" uki.efi .linux=$K .osrel=osrel >/dev/null || exit $?
openssl req -new -x509 -newkey rsa:2048 -nodes -keyout db.key -out db.crt -days 30 \
    -subj /CN=ktrust-uki-efivars 2>/dev/null
openssl x509 -in db.crt -outform der -out db.der
sbsign --key db.key --cert db.crt --output signed.efi uki.efi 2>/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\nktrust,1,ktrust,ktrust,1,https://k.t/\n' >low.csv
objcopy --update-section .sbat=low.csv uki.efi low.unsigned
sbsign --key db.key --cert db.crt --output low.efi low.unsigned 2>/dev/null
G=d719b2cb-3d3a-4596-a3bc-dad00e67656f S=605dab50-e046-4300-abb6-3dd810dd8b23
mk() { rm -rf "$1"; mkdir -p "$1"; }
v() { "$KTRUST" uki verify --efivars "$@" >out.txt 2>&1; echo $?; }
mk fw; efi esl --x509 db.der --efivar 0x27 -o fw/db-$G
expect_eq "$(v fw signed.efi)" 0 "db holds the signer: trusted"
expect_match "$(cat out.txt)" "verified by: the firmware" "the firmware verifies it"
expect_eq "$(v fw uki.efi)" 1 "unsigned"
mk none; efi esl --sha256 "$(printf x | sha256sum | cut -d' ' -f1)" --efivar 0x27 -o none/db-$G
expect_eq "$(v none signed.efi)" 2 "no db entry: untrusted"
mk dbx; cp fw/db-$G dbx/; efi esl --x509 db.der --efivar 0x27 -o dbx/dbx-$G
expect_eq "$(v dbx signed.efi)" 5 "its signer in dbx: rejected"
expect_match "$(cat out.txt)" "blacklisted|dbx" "the reason names the revocation"
mk mok; cp none/db-$G mok/; efi esl --x509 db.der --efivar 0x6 -o mok/MokListRT-$S
expect_eq "$(v mok signed.efi)" 0 "shim ran, MokListRT holds the signer: trusted"
expect_match "$(cat out.txt)" "verified by: shim" "shim verifies it"
efi esl --x509 db.der --efivar 0x6 -o mok/MokListXRT-$S
expect_eq "$(v mok signed.efi)" 5 "MokListXRT holds it: rejected"
mk sbat; cp fw/db-$G sbat/
printf 'sbat,1,2099010100\nktrust,2\n' | efi efivar --attrs 0x6 -o sbat/SbatLevelRT-$S
expect_eq "$(v sbat signed.efi)" 0 "SbatLevelRT: the stub's .sbat passes"
expect_eq "$(v sbat low.efi)" 5 ".sbat ktrust,1 below the level's ktrust,2: rejected"
expect_match "$(cat out.txt)" "ktrust" "the reason names the component"
expect_eq "$(v fw low.efi)" 0 "no shim: nobody checks SBAT"
expect_exit 66 "an efivars directory that does not exist" -- "$KTRUST" uki verify --efivars nodir signed.efi
printf 'not a level' | efi efivar --attrs 0x6 -o sbat/SbatLevelRT-$S
expect_exit 4 "an SbatLevelRT that does not parse: no verdict" -- "$KTRUST" uki verify --efivars sbat signed.efi
expect_match "$("$KTRUST" uki verify --efivars sbat signed.efi 2>/dev/null)" "^cannot answer: sbat: " \
    "... said as the conclusion"
finish
