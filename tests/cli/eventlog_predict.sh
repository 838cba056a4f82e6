#!/bin/bash
# ktrust eventlog --predict (issue #26): PCR 7 after a change, checked
# against an independent oracle: tpm2_eventlog's PCR 7 digests replayed in
# Python with the changed events' digests recomputed by hashlib from the
# UEFI_VARIABLE_DATA rule.  The OVMF+swtpm boot with the variables it had
# predicts exactly its own PCR 7 (read from its TPM); one more dbx hash, the
# 2023 UEFI CA added to db, a db holding only the 2023 CA (shim then verified
# by the 2023 CA: the authority event changes too), a newer SbatLevel, a signed
# db update (--apply) each give the oracle's value; an older SbatLevel changes
# nothing (shim raises it first).
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v tpm2_eventlog >/dev/null || { [ -n "${CI:-}" ] && exit 1; echo "skipped: tpm2_eventlog missing"; exit 77; }
cd "$T"
pcr_oracle_setup
fresh() { rm -rf vars; cp -r "$O/efivars" vars; chmod -R u+w vars; }
# the oracle (common.sh): PCR 7 (PCR $OPCR) replayed from tpm2_eventlog's
# digests; arguments "EVENTNUM NAME GUID FILE" replace an event's digest by
# the hash of UEFI_VARIABLE_DATA(GUID, NAME, contents of FILE); "EVENTNUM =
# SHA1 SHA256" by the given digests
EFIG=8be4df61-93ca-11d2-aa0d-00e098032b8c
DBG=d719b2cb-3d3a-4596-a3bc-dad00e67656f
SHIMG=605dab50-e046-4300-abb6-3dd810dd8b23
data() { tail -c +5 "$1"; }   # an efivarfs file without its attribute word
esl_hash() { efi esl --owner microsoft --sha256 "$(printf 'one more revoked image' | sha256sum | cut -c1-64)"; }
esl_cert() { efi esl --owner microsoft --x509 "$1"; }
CA2023=$CORPUS/peers/secureboot-objects/certs/microsoft-uefi-ca-2023.der
TPM7="sha1 $(awk '$1=="sha1" && $2==7 {print $3}' "$O/pcrs.txt")
sha256 $(awk '$1=="sha256" && $2==7 {print $3}' "$O/pcrs.txt")"

# 1. identity: the variables it booted with predict the PCR 7 its TPM holds
fresh
expect_eq "$(predicted --efivars vars --esp esp)" "$TPM7" "identity: the boot's own variables predict its own PCR 7 (pcrs.txt)"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" '#25 EV_EFI_VARIABLE_AUTHORITY db: unchanged: .*BOOTX64.EFI verified by Microsoft Corporation UEFI CA 2011' "identity: shim still verified by the 2011 CA (the boot engine on the ESP)"
expect_match "$out" 'PCR 7 does not change: secrets sealed to PCR 7 keep unsealing' "identity: nothing breaks"
expect_eq "$(oracle)" "$TPM7" "the oracle itself replays to pcrs.txt"

# 2. one more dbx hash
fresh; f=$(ls vars/dbx-*); esl_hash >>"$f"; data "$f" >dbx.new
want=$(oracle "8 dbx $DBG dbx.new")
got=$(predicted --efivars vars --esp esp)
expect_eq "$got" "$want" "dbx + one hash: the oracle's PCR 7"
[ "$got" != "$TPM7" ] && ok || bad "dbx + one hash: PCR 7 must change"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" '#8 EV_EFI_VARIABLE_DRIVER_CONFIG dbx: CHANGES' "dbx: the dbx event changes"
expect_match "$out" 'PCR 7 changes: secrets sealed to PCR 7 will not unseal; re-enroll after the update \(systemd-cryptenroll --wipe-slot=tpm2 --tpm2-device=auto --tpm2-pcrs=7\) or seal to a signed policy' "dbx: the sealing policy that breaks, and what to do"
# the same through the yaml and pcrlock outputs
yaml=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --predict-format yaml)
expect_eq "$(printf '%s\n' "$yaml" | python3 -c '
import sys
b = None
for l in sys.stdin:
    if not l.startswith("    "): b = l.strip().rstrip(":")
    elif l.split(":")[0].strip() == "7": print(b, l.split("0x")[1].strip().lower())')" "$want" "--predict-format yaml: tpm2_pcrread style, the predicted values"
expect_match "$yaml" '^  sha1:$' "yaml: bank lines"
pl=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --predict-format pcrlock)
expect_eq "$(printf '%s\n' "$pl" | python3 -c '
import sys, json, hashlib
r = json.load(sys.stdin)["records"]
for alg in ("sha1", "sha256"):
    p = bytes(hashlib.new(alg).digest_size)
    for x in r:
        assert x["pcr"] == 7
        d = [y["digest"] for y in x["digests"] if y["hashAlg"] == alg][0]
        p = hashlib.new(alg, p + bytes.fromhex(d)).digest()
    print(alg, p.hex())')" "$want" "--predict-format pcrlock: the records replay to the predicted PCR 7"

# 3. Microsoft UEFI CA 2023 added to db: the db event changes, shim is still verified by its first (2011) signature
fresh; f=$(ls vars/db-*); esl_cert "$CA2023" >>"$f"; data "$f" >db.new
expect_eq "$(predicted --efivars vars --esp esp)" "$(oracle "7 db $DBG db.new")" "db + UEFI CA 2023: the oracle's PCR 7"

# 4. db holding only the 2023 CA: shim verified by its 2023 signature, the authority event changes
fresh; f=$(ls vars/db-*); { head -c 4 "$f"; esl_cert "$CA2023"; } >db.var; cp db.var "$f"; data "$f" >db.new
tail -c +29 db.new >auth.new   # the EFI_SIGNATURE_DATA: owner GUID + certificate
want=$(oracle "7 db $DBG db.new" "25 db $DBG auth.new")
expect_eq "$(predicted --efivars vars --esp esp)" "$want" "db = UEFI CA 2023 only: the oracle's PCR 7 (db and authority events)"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" '#25 EV_EFI_VARIABLE_AUTHORITY db: CHANGES: .*verified by Microsoft UEFI CA 2023' "the authority is now the 2023 CA"
# without --esp the authority cannot be worked out, and the output says so
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars)
expect_match "$out" '#25 EV_EFI_VARIABLE_AUTHORITY db: kept: no --esp: the logged authority kept' "no --esp: the logged authority kept, said"

# 5. SbatLevel: an older one changes nothing (shim raises it), a newer one stays and is measured
fresh
expect_eq "$(predicted --efivars vars --esp esp --sbat-level original)" "$TPM7" "SbatLevel original (2021030218): PCR 7 unchanged"
printf 'sbat,1,2025051000\nshim,4\ngrub,5\ngrub.proxmox,2\n' >latest.txt
want=$(oracle "29 SbatLevel $SHIMG latest.txt")
expect_eq "$(predicted --efivars vars --esp esp --sbat-level latest.txt)" "$want" "a newer SbatLevel: shim's SbatLevel event with it"
[ "$want" != "$TPM7" ] && ok || bad "a newer SbatLevel must change PCR 7"

# 6. --apply a signed db update (Microsoft's DBUpdate2024: Windows UEFI CA 2023, append)
fresh
json=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --json --apply "$CORPUS/peers/secureboot-objects/DB/DBUpdate2024-amd64.bin"); rc=$?
expect_eq "$rc" 0 "--apply: exit 0"
expect_match "$json" '"type":"apply"' "--apply: what the update changed"
expect_match "$json" '"type":"predicted_event","event":7,"pcr":7,"event_type":"EV_EFI_VARIABLE_DRIVER_CONFIG","variable":"db","prediction":"changed"' "--apply: the db event changes"
expect_match "$json" '"type":"prediction","bank":"sha256","pcr":7,"now":"75677db6f14082d3bfec4d14bdd75c8d72612ef6914ca99cd5a5997b7a21309d","predicted":"[0-9a-f]{64}","changes":true' "--apply: PCR 7 changes"

# 7. a MOK change: shim measures into PCR 14 the hash of MokListRT ("MokList"
# event); MokListRT holding the vendor certificate alone (what this boot had,
# rebuilt from its MokListRT authority event) predicts the TPM's PCR 14; one
# more MOK changes it to the oracle's value (hashlib over the new list)
fresh
efi esl --efivar 6 --entry "$("$KTRUST" eventlog "$LOG" --json | jq -r 'select(.type == "event" and .index == 31) | .variable.data')" \
    -o "vars/MokListRT-$SHIMG"
TPM14="sha1 $(awk '$1=="sha1" && $2==14 {print $3}' "$O/pcrs.txt")
sha256 $(awk '$1=="sha256" && $2==14 {print $3}' "$O/pcrs.txt")"
expect_eq "$(OPCR=14 predicted --efivars vars --esp esp)" "$TPM14" "MOK identity: MokListRT = the vendor certificate predicts the TPM's PCR 14"
esl_cert "$CA2023" >>"vars/MokListRT-$SHIMG"
data "vars/MokListRT-$SHIMG" >mok.new
h1=$(sha1sum <mok.new | cut -c1-40); h256=$(sha256sum <mok.new | cut -c1-64)
want14=$(OPCR=14 oracle "27 = $h1 $h256")
expect_eq "$(OPCR=14 predicted --efivars vars --esp esp)" "$want14" "one more MOK: PCR 14 is the oracle's"
[ "$want14" != "$TPM14" ] && ok || bad "one more MOK must change PCR 14"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" '#27 EV_IPL: CHANGES: the hash of MokListRT' "the MokList event changes"
expect_match "$out" 'PCR 14 changes \(shim.s MOK lists\)' "the PCR 14 sealing note"
expect_eq "$(predicted --efivars vars --esp esp)" "$TPM7" "one more MOK (grub still verified by the vendor certificate): PCR 7 unchanged"

# 8. PCR 4: the boot applications on the ESP measured again (their Authenticode
# digests; oracle: pesign -h); the kernel (loaded from memory) kept
command -v pesign >/dev/null || { [ -n "${CI:-}" ] && exit 1; echo "skipped PCR 4: pesign missing"; finish; }
fresh
cp "$CORPUS/debian/grubx64.efi.signed" esp/EFI/BOOT/grubx64.efi
TPM4="sha1 $(awk '$1=="sha1" && $2==4 {print $3}' "$O/pcrs.txt")
sha256 $(awk '$1=="sha256" && $2==4 {print $3}' "$O/pcrs.txt")"
expect_eq "$(OPCR=4 predicted --efivars vars --esp esp)" "$TPM4" "PCR 4 identity: shim and GRUB on the ESP predict the PCR 4 its TPM held"
cp "$CORPUS/debian/mmx64.efi.signed" esp/EFI/BOOT/grubx64.efi   # another second-stage binary
h1=$(pesign -h -d sha1 -i esp/EFI/BOOT/grubx64.efi | awk '{print $2}')
h256=$(pesign -h -i esp/EFI/BOOT/grubx64.efi | awk '{print $2}')
want4=$(OPCR=4 oracle "32 = $h1 $h256")
expect_eq "$(OPCR=4 predicted --efivars vars --esp esp)" "$want4" "another grubx64.efi: PCR 4 is the oracle's (pesign's Authenticode digests)"
[ "$want4" != "$TPM4" ] && ok || bad "another grubx64.efi must change PCR 4"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" '#32 EV_EFI_BOOT_SERVICES_APPLICATION: CHANGES: .*grubx64.efi' "PCR 4: the GRUB event changes"
expect_match "$out" '#42 EV_EFI_BOOT_SERVICES_APPLICATION: kept \(unknown\): no file path' "PCR 4: the kernel (no file path) is kept, said"
expect_match "$out" 'PCR 4 changes \(other boot binaries\)' "PCR 4: the sealing note"
expect_match "$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --predict-format yaml)" '    4 : 0x[0-9A-F]{40}' "yaml: PCR 4 with --esp"
# a newer SbatLevel in --efivars (no --sbat-level) predicts what --sbat-level
# with the same level predicts (boot.tpm checks that one against a real TPM)
QV=$CORPUS/peers/ovmf-swtpm-boot
cp -r "$QV/efivars" sbatvars
printf '\x07\x00\x00\x00sbat,1,2099010100\nshim,4\ngrub,5\n' > sbatvars/SbatLevel-605dab50-e046-4300-abb6-3dd810dd8b23
printf 'sbat,1,2099010100\nshim,4\ngrub,5\n' > lvl2099.txt
p7() { "$KTRUST" eventlog "$QV/eventlog.bin" --predict "$@" --json |
       jq -r 'select(.type=="prediction" and .bank=="sha256" and .pcr==7) | "\(.predicted) \(.changes)"'; }
from_vars=$(p7 --efivars sbatvars)
expect_eq "$from_vars" "$(p7 --efivars "$QV/efivars" --sbat-level lvl2099.txt)" \
    "a newer SbatLevel in --efivars predicts as --sbat-level does"
expect_match "$from_vars" ' true$' "and PCR 7 changes"
finish
