#!/bin/bash
# plan-updates: which signed updates apply to a machine and in what order.
# Microsoft's tree (corpus subset) on the QEMU store: the db update before
# the dbx updates, no OEM KEK file for this PK (kek_update_map.json has no
# entry); then a machine of our own (PK/KEK made here, updates signed with
# efitools' sign-efi-sig-list): a KEK update signed by this PK in a folder
# with spaces, a db update signed only under the new KEK (it applies only
# after the KEK step) that replaces db with Microsoft UEFI CA 2023 alone: the
# dual-signed corpus shim still boots by its 2023 signature once db has the
# 2023 CA; a dbx update revoking Microsoft UEFI CA 2011 then stops it
# (firmware, EDK2's DxeImageVerificationHandler, rejects an image when dbx
# revokes any of its signatures: exit 5); another PK's KEK file does not
# apply; the map names this PK's file when it is missing.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/plan.sh"
plan_setup sign-efi-sig-list cert-to-efi-sig-list python3

# --- Microsoft's tree on the QEMU store ---------------------------------------
P --efivars "$Q" --esp esp --json "$TREE" > ms.json
expect_exit 0 "the tree on the QEMU store" -- P --efivars "$Q" --esp esp -q "$TREE"
steps=$(jq -r 'select(.type=="plan") | .steps[] | .file | sub(".*/PostSignedObjects/"; "")' ms.json | tr '\n' ' ')
expect_match "$steps" '^Optional/DB/amd64/DBUpdate2024.bin DBX/' "the db update comes before every dbx update"
expect_eq "$(jq -r 'select(.type=="update" and .variable=="KEK") | .applies' ms.json | sort -u)" false \
    "no OEM's KEK update applies to this PK"
expect_match "$(jq -r 'select(.type=="update" and (.file|test("Acer"))) | .reason' ms.json)" \
    'Acer Platform Key.*is not the PK' "why the Acer file does not apply"
expect_match "$(jq -r 'select(.type=="plan") | .kek' ms.json)" \
    '^no KEK update exists for this PK .*cannot get KEK 2023 from Microsoft' "no file for this PK"
expect_eq "$(jq -c 'select(.type=="plan") | [.final.db_uefi_ca_2023, .final.shim_2023_only_boots, .final.shim.verdict]' ms.json)" \
    '[false,false,"trusted"]' "after the plan: still no UEFI CA 2023, shim boots"
expect_eq "$(jq -c 'select(.type=="summary") | [.verdict, .exit, .counts.updates, .counts.apply, .counts.steps, .interrupted]' ms.json)" \
    '["keeps_booting",0,28,5,4,false]' "summary: plan words (was 'trusted'); the x86 dbx is not a step on this x64 ESP"
# where the plan ends (#36 item 4): the readiness after the last step, and the
# update the audit's advice names that the tree does not hold
expect_eq "$(jq -c 'select(.type=="plan") | [.end.readiness, .end.why]' ms.json)" \
    '["not_ready","db will lack Microsoft UEFI CA 2023; KEK will lack Microsoft Corporation KEK 2K CA 2023"]' \
    "the end: still not ready"
expect_match "$(jq -r 'select(.type=="plan") | .end.not_given' ms.json)" \
    '^DBUpdate3P2023.bin \(adds Microsoft UEFI CA 2023 to db\) is not among the UPDATES' \
    "the advice's update is not among the UPDATES"
txt=$(P --efivars "$Q" --esp esp "$TREE")
expect_match "$(echo "$txt" | grep '^after the last step')" \
    '^after the last step: still NOT READY: db will lack Microsoft UEFI CA 2023' "text: the end"
expect_match "$(echo "$txt" | grep '^not given')" '^not given: DBUpdate3P2023.bin' "text: not given"
expect_eq "$(echo "$txt" | tail -1)" "plan: 4 steps; the ESP's chain boots after each" "text: the last line"
expect_eq "$(P --efivars "$Q" --json "$TREE" | jq -r 'select(.type=="summary") | .verdict')" \
    not_judged "no ESP: the chain not judged"
# --apply FILE is an update too; -v accepted; a bad option is one line
expect_eq "$(P --efivars "$Q" --json --apply "$TREE/PostSignedObjects/Optional/DB/amd64/DBUpdate2024.bin" |
    jq -c 'select(.type=="summary") | .counts.steps')" 1 "--apply FILE"
expect_exit 0 "-v" -- P --efivars "$Q" -v -q "$TREE"
expect_eq "$(P --bogus 2>&1 | wc -l)" 1 "a bad option: one line"
# the right file for this machine: the ESP's shim is x64 (PE machine 0x8664);
# dbx_info_msft_latest.json lists the x86 file's hashes under ia32 only
expect_match "$(jq -r 'select(.type=="update" and (.file|test("DBX/x86/"))) | "\(.applies) \(.step) \(.reason)"' ms.json)" \
    '^true null skipped: for ia32 \(dbx_info lists its hashes there\), not this machine.s x64' "the x86 dbx is skipped, and why"
expect_eq "$(jq -r 'select(.type=="plan") | .steps[] | .file' ms.json | grep -c '/x86/')" 0 "no x86 step"
expect_eq "$(P --efivars "$Q" --esp esp --all-arches --json "$TREE" | jq -r 'select(.type=="summary") | .counts.steps')" 5 \
    "--all-arches: the x86 dbx too"
# without dbx_info: the folder Microsoft's tree puts it in
mkdir -p nodbxinfo && cp -r "$TREE/PostSignedObjects" nodbxinfo/
expect_match "$(P --efivars "$Q" --esp esp --json nodbxinfo | jq -r 'select(.type=="update" and (.file|test("DBX/x86/"))) | .reason')" \
    '^skipped: for ia32 \(its folder\)' "the folder when there is no dbx_info"
# one screen: other platform keys' KEK files in one line (-v lists them),
# shim's and the loader's lines only when a step changes them, what each dbx revokes
P --efivars "$Q" --esp esp "$TREE" > ms.txt
expect_eq "$(($(wc -l < ms.txt) <= 45))" 1 "the plan on the corpus tree fits one screen ($(wc -l < ms.txt) lines)"
expect_match "$(cat ms.txt)" 'KEK +23 KEK updates for other platform keys' "other PKs' KEK files in one line"
expect_eq "$(grep -c 'is not the PK' ms.txt)" 0 "... not one line each"
expect_eq "$(P --efivars "$Q" --esp esp -v "$TREE" | grep -c 'is not the PK')" 23 "-v lists them"
expect_eq "$(grep -c '^  shim: ' ms.txt)" 1 "shim's line once: no step changes it"
expect_match "$(cat ms.txt)" 'revokes: every image signed under Microsoft Windows Production PCA 2011; 3 SVN records' \
    "what DBXUpdate2024 revokes"
expect_match "$(cat ms.txt)" 'revokes: 3 SVN records' "what DBXUpdateSVN revokes"
# --eventlog: PCR 7 after each step.  Before any step it is the TPM's own
# PCR 7 of that boot (pcrs.txt: independent); after DBUpdate2024 it is what
# `eventlog --predict --apply` says for the same update
Qlog=$CORPUS/peers/ovmf-swtpm-boot/eventlog.bin
tpm7=$(awk '$1 == "sha256" && $2 == 7 {print $3}' "$CORPUS/peers/ovmf-swtpm-boot/pcrs.txt")
P --efivars "$Q" --eventlog "$Qlog" --json "$TREE" > pcr.json
expect_eq "$(jq -r 'select(.type=="plan") | .before.pcr7 | "\(.value) \(.changes)"' pcr.json)" "$tpm7 false" \
    "before the plan: PCR 7 is the TPM's"
db24=$TREE/PostSignedObjects/Optional/DB/amd64/DBUpdate2024.bin
want=$("$KTRUST" eventlog "$Qlog" --predict --efivars "$Q" --apply "$db24" --json |
       jq -r 'select(.type=="prediction" and .bank=="sha256" and .pcr==7) | .predicted')
expect_eq "$(jq -r 'select(.type=="plan") | .steps[0].after.pcr7 | "\(.value) \(.changes)"' pcr.json)" "$want true" \
    "after DBUpdate2024: PCR 7 as eventlog --predict --apply says"
expect_match "$(P --efivars "$Q" --eventlog "$Qlog" "$TREE")" 'secrets sealed to PCR 7 will not unseal' \
    "text: the sealing advice"
expect_exit 4 "--eventlog that does not parse" -- P --efivars "$Q" --eventlog "$CORPUS/README.md" -q "$TREE"

# --write-efivars: the state after the plan, read back: every update is then in force
P --efivars "$Q" -q --write-efivars after "$TREE"
expect_eq "$(P --efivars after --json "$TREE" | jq -r 'select(.type=="update" and .applies) | .reason' | sort -u)" \
    "$(printf 'already in force: db holds every entry\nalready in force: dbx holds every entry')" \
    "the state written after the plan holds every update"
expect_exit 64 "--write-efivars into a non-empty directory" -- P --efivars "$Q" -q --write-efivars after "$TREE"

# --- a machine of our own ----------------------------------------------------------
G=11111111-2222-3333-4444-555555555555
GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
IMGDB=d719b2cb-3d3a-4596-a3bc-dad00e67656f
for k in pk kek kek2 otherpk; do
    openssl req -x509 -newkey rsa:2048 -nodes -keyout $k.key -out $k.pem -days 3650 \
        -subj "/CN=Plan $k" 2>/dev/null
    cert-to-efi-sig-list -g $G $k.pem $k.esl >/dev/null
done
cert-to-efi-sig-list -g $G "$CORPUS/trust/microsoft-uefi-ca-2011.pem" ca2011.esl >/dev/null
cert-to-efi-sig-list -g $G "$CORPUS/trust/microsoft-uefi-ca-2023.pem" ca2023.esl >/dev/null
sign() { sign-efi-sig-list ${5--a} -g $G -t "2024-01-01 00:00:00" -k $2.key -c $2.pem $1 $3 "$4" >/dev/null 2>&1 ||
         bad "sign $4"; }
var() { { printf '\x27\x00\x00\x00'; cat "$4"; } > "$1/$2-$3"; }
mkdir -p vars
var vars PK $GLOBAL pk.esl
var vars KEK $GLOBAL kek.esl
var vars db $IMGDB ca2011.esl
mkdir -p "up/KEK/My OEM (& co)" up/DB up/DBX
sign KEK pk kek2.esl "up/KEK/My OEM (& co)/KEKUpdate_Mine_PK1.bin"
sign KEK otherpk kek2.esl "up/KEK/My OEM (& co)/KEKUpdate_Other_PK1.bin"
sign db kek2 ca2023.esl up/DB/DBReplace2023.bin ""
sign dbx kek ca2011.esl up/DBX/DBXRevoke2011.bin
mv up/DBX dbx-later
P --efivars vars --esp esp --json up > mine.json
order=$(jq -r 'select(.type=="plan") | .steps[] | .file | sub(".*/"; "")' mine.json | tr '\n' ' ')
expect_eq "$order" "KEKUpdate_Mine_PK1.bin DBReplace2023.bin " \
    "KEK first, then the db update signed under the new KEK"
expect_eq "$(jq -r 'select(.type=="update" and (.file|test("Other"))) | .applies' mine.json)" false \
    "another PK's KEK file does not apply"
expect_match "$(jq -r 'select(.type=="plan") | .kek' mine.json)" 'KEKUpdate_Mine_PK1.bin \(signed by this PK\) changes KEK but does not carry' "the KEK story"
expect_match "$(jq -r 'select(.type=="plan") | .final.shim.reason' mine.json)" 'Microsoft UEFI CA 2023' \
    "after the plan shim boots by its 2023 signature"
expect_eq "$(jq -c 'select(.type=="plan") | [.final.db_uefi_ca_2011, .final.db_uefi_ca_2023, .final.shim_2023_only_boots]' mine.json)" \
    '[false,true,true]' "the final state"
expect_exit 0 "the plan keeps the machine booting" -- P --efivars vars --esp esp -q up
# a dbx update revoking UEFI CA 2011 stops the dual-signed shim, 2023 CA or not
mv dbx-later up/DBX
expect_exit 5 "a plan step that stops shim booting" -- P --efivars vars --esp esp -q up
P --efivars vars --esp esp --json up > revoke.json
expect_eq "$(jq -r 'select(.type=="plan") | .steps[-1].file | sub(".*/"; "")' revoke.json)" DBXRevoke2011.bin \
    "the dbx update is the last step"
expect_match "$(jq -r 'select(.type=="plan") | .final.shim | .verdict + ": " + .reason' revoke.json)" \
    '^rejected: .*Microsoft Corporation UEFI CA 2011.*blacklisted' "shim rejected after the dbx step"
# the map names this PK's file when it is not among the updates
rm "up/KEK/My OEM (& co)/KEKUpdate_Mine_PK1.bin"
thumb=$(openssl x509 -in pk.pem -outform DER | sha1sum | cut -c1-40)
printf '{"%s": {"KEKUpdate": "MyOEM/KEKUpdate_Mine_PK1.bin"}}' "$thumb" > up/KEK/kek_update_map.json
expect_match "$(P --efivars vars --json up | jq -r 'select(.type=="plan") | .kek')" \
    'lists MyOEM/KEKUpdate_Mine_PK1.bin for it' "the map names the missing file"

expect_exit 64 "no UPDATES" -- P --efivars vars
expect_exit 66 "no variables" -- P --efivars nonexistent up
finish
