#!/bin/bash
# ktrust eventlog --predict after the changes #32 found real boots contradict
# (EDK2 2022.11 Tcg2Dxe / AuthVariableLib / DxeImageVerificationLib, shim
# 16.1 mok.c), each checked against the PCR oracle (tpm2_eventlog's digests
# replayed with events replaced, dropped or added; boot.tpm checks the same
# changes against real OVMF + swtpm boots):
#   - the PK deleted: setup mode, SecureBoot 0, PK measured with no data, no
#     authority events (firmware and shim verify nothing), SbatLevel reset to
#     the original payload (shim outside secure mode, SbatPolicy unset);
#   - setup mode: a KEK write whose signature does not verify applies (EDK2
#     checks only the format), then a self-signed PK: Secure Boot on again;
#   - dbt created: measured after dbx; dbr: not measured;
#   - MokListTrusted set: no MokListTrustedRT, shim logs no event in PCR 14;
#   - the 2011 CA appended to db under another owner: the authority event
#     names the first entry still.
# A view without SetupMode (the variables someone gave) keeps what it lacks.
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v tpm2_eventlog >/dev/null || { [ -n "${CI:-}" ] && exit 1; echo "skipped: tpm2_eventlog missing"; exit 77; }
for t in cert-to-efi-sig-list sign-efi-sig-list; do
    command -v $t >/dev/null || { [ -n "${CI:-}" ] && exit 1; echo "skipped: $t missing"; exit 77; }
done
cd "$T"
pcr_oracle_setup
EFIG=8be4df61-93ca-11d2-aa0d-00e098032b8c
DBG=d719b2cb-3d3a-4596-a3bc-dad00e67656f
SHIMG=605dab50-e046-4300-abb6-3dd810dd8b23
# a whole view: the boot's variables and SetupMode (firmware always exposes it)
whole() { rm -rf vars; cp -r "$O/efivars" vars; chmod -R u+w vars; printf "\x06\x00\x00\x00\x0$1" >"vars/SetupMode-$EFIG"; }
data() { tail -c +5 "$1"; }
TPM7="sha1 $(awk '$1=="sha1" && $2==7 {print $3}' "$O/pcrs.txt")
sha256 $(awk '$1=="sha256" && $2==7 {print $3}' "$O/pcrs.txt")"
TPM14="sha1 $(awk '$1=="sha1" && $2==14 {print $3}' "$O/pcrs.txt")
sha256 $(awk '$1=="sha256" && $2==14 {print $3}' "$O/pcrs.txt")"
: >empty; printf '\x00' >sb0

# 0. the whole view of the boot itself predicts its own PCR 7
whole 0
expect_eq "$(predicted --efivars vars --esp esp)" "$TPM7" "identity: the whole view predicts the TPM's PCR 7"

# 1. the PK deleted: setup mode at the next boot
whole 1; rm vars/PK-*
printf 'sbat,1,2021030218\n' >original.txt
want=$(oracle "4 SecureBoot $EFIG sb0" "5 PK $EFIG empty" "25 drop" "29 SbatLevel $SHIMG original.txt" "31 drop")
expect_eq "$(predicted --efivars vars --esp esp)" "$want" "PK deleted: SecureBoot 0, PK empty, no authority events, SbatLevel reset by shim outside secure mode (the oracle's PCR 7)"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" '#4 EV_EFI_VARIABLE_DRIVER_CONFIG SecureBoot: CHANGES: no PK: setup mode' "PK deleted: SecureBoot changes, said why"
expect_match "$out" '#5 EV_EFI_VARIABLE_DRIVER_CONFIG PK: CHANGES: PK does not exist in the new state: firmware measures it with no data' "PK deleted: the PK event measures no data"
expect_match "$out" '#25 EV_EFI_VARIABLE_AUTHORITY db: NOT MEASURED: Secure Boot off' "PK deleted: firmware's authority event is not measured"
expect_match "$out" '#31 EV_EFI_VARIABLE_AUTHORITY MokListRT: NOT MEASURED' "PK deleted: shim's authority event is not measured"
expect_match "$out" '#29 EV_EFI_VARIABLE_AUTHORITY SbatLevel: CHANGES: shim sets SbatLevel to its original \(reset\)' "PK deleted: shim resets SbatLevel outside secure mode"
json=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --json)
expect_match "$json" '"event":25,"pcr":7,"event_type":"EV_EFI_VARIABLE_AUTHORITY","variable":"db","prediction":"removed"' "JSON: prediction removed"
recs=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --predict-format pcrlock | python3 -c '
import sys, json; print(len(json.load(sys.stdin)["records"]))')
expect_eq "$recs" 7 "pcrlock: the events not measured are not records (5 variables, separator, SbatLevel)"
# a view without SetupMode: the PK may simply not have been given
rm "vars/SetupMode-$EFIG"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" '#5 EV_EFI_VARIABLE_DRIVER_CONFIG PK: kept \(unknown\): PK is absent in the new state' "no SetupMode: a missing PK is kept, said"

# 2. setup mode: a KEK write whose signature does not verify, then a self-signed PK
G=a1b2c3d4-0000-4000-8000-000000000032
for n in PK KEK other; do
    openssl req -new -x509 -newkey rsa:2048 -nodes -subj "/CN=setup $n/" -keyout $n.key -out $n.crt -days 3650 2>/dev/null
done
cert-to-efi-sig-list -g $G PK.crt PK.esl; cert-to-efi-sig-list -g $G KEK.crt KEK.esl
sign-efi-sig-list -t "2026-01-01 00:00:00" -g $G -k PK.key -c PK.crt PK PK.esl PK.auth >/dev/null
sign-efi-sig-list -t "2026-01-01 00:00:00" -g $G -k other.key -c other.crt KEK KEK.esl signed.auth >/dev/null
python3 -c '
import sys
d = bytearray(open("signed.auth", "rb").read())
end = 16 + int.from_bytes(d[16:20], "little")
for i in range(end - 16, end): d[i] ^= 0x5a
open("KEK.auth", "wb").write(d)'
cp KEK.auth garbage.auth
whole 1; rm vars/PK-*
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --apply KEK.auth --apply PK.auth); rc=$?
expect_eq "$rc" 0 "setup mode: both writes apply (exit 0)"
expect_match "$out" 'apply KEK.auth: KEK replace write \(setup mode: no authority needed\)' "setup mode: the KEK write whose signature does not verify applies (EDK2 checks no signature)"
expect_match "$out" 'apply PK.auth: PK replace write' "setup mode: the self-signed PK applies"
want=$(oracle "5 PK $EFIG PK.esl" "6 KEK $EFIG KEK.esl")
expect_eq "$(predicted --efivars vars --esp esp --apply KEK.auth --apply PK.auth)" "$want" "PK re-enrolled: Secure Boot on again, PK and KEK the new ones (the oracle's PCR 7)"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --apply garbage.auth)
expect_match "$out" 'apply garbage.auth: not applied: the signature covers none of' "setup mode: a write that names no variable (signature or file name) is not applied"
whole 0
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp --apply KEK.auth)
expect_match "$out" 'apply KEK.auth: not applied' "user mode: the KEK write whose signature does not verify is refused"

# 3. dbt created: measured after dbx, before the separator; dbr: not measured
whole 0
efi esl --efivar 0x27 --x509 KEK.crt -o "vars/dbt-$DBG"; data "vars/dbt-$DBG" >dbt.new
efi esl --efivar 0x27 --x509 other.crt -o "vars/dbr-$DBG"
want=$(oracle "9+ dbt $DBG dbt.new")
expect_eq "$(predicted --efivars vars --esp esp)" "$want" "dbt created (dbr too): the oracle's PCR 7 with a dbt event before the separator, none for dbr"
out=$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)
expect_match "$out" 'NEW EV_EFI_VARIABLE_DRIVER_CONFIG dbt before #9: dbt exists in the new state' "dbt: the new event, said"
rm "vars/dbt-$DBG"
expect_eq "$(predicted --efivars vars --esp esp)" "$TPM7" "dbr alone: PCR 7 unchanged (EDK2 2022.11 does not measure dbr)"

# 4. the 2011 UEFI CA appended to db under another owner: the authority names the first entry
whole 0
f=$(ls vars/db-*)
efi esl --owner 77fa9abd-0359-4d32-bd60-28f4e78f7b32 --x509 "$CORPUS/trust/microsoft-uefi-ca-2011.pem" >>"$f"; data "$f" >db.new
expect_eq "$(predicted --efivars vars --esp esp)" "$(oracle "7 db $DBG db.new")" "db + the 2011 CA under another owner: only the db event changes (the authority is the first entry)"

# 5. MokListTrusted set: shim creates no MokListTrustedRT and logs nothing in PCR 14
whole 0
efi esl --efivar 6 --entry "$("$KTRUST" eventlog "$LOG" --json | jq -r 'select(.type == "event" and .index == 31) | .variable.data')" \
    -o "vars/MokListRT-$SHIMG"
printf '\x06\x00\x00\x00\x01' >"vars/MokListTrustedRT-$SHIMG"
expect_eq "$(OPCR=14 predicted --efivars vars --esp esp)" "$TPM14" "MokListTrustedRT = 1 (MokListTrusted not set): PCR 14 the TPM's"
rm "vars/MokListTrustedRT-$SHIMG"
expect_eq "$(OPCR=14 predicted --efivars vars --esp esp)" "$(OPCR=14 oracle "30 drop")" "MokListTrusted set: no MokListTrusted event (the oracle's PCR 14)"
expect_match "$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)" '#30 EV_IPL: NOT MEASURED: MokListTrustedRT absent' "MokListTrusted: said"
finish
