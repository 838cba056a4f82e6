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
efi efivar --attrs 0x27 dbx.esl -o vars/dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f
j=$("$KTRUST" check-update --json --efivars vars --install sdboot.efi good.efi | jq -c 'select(.type == "install_check")')
expect_eq "$(jq -r '"\(.boots) \(.why)"' <<<"$j")" "false dbx" "install: systemd-boot in dbx"
finish
