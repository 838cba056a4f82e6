#!/bin/bash
# --apply FILE (chain, audit, check-update): signed updates applied to the
# variables as firmware applies them.  Updates are signed by efitools'
# sign-efi-sig-list (an independent signer) under a PK and KEK made here,
# and Microsoft's own updates from the corpus: the variable is the one the
# signature covers; PK/KEK authority; append drops entries already there;
# replace replaces; an empty replace deletes; setup mode needs no
# authority; a file that does not verify is reported and not applied;
# several apply in order; the command then runs on the resulting state.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in sign-efi-sig-list cert-to-efi-sig-list openssl jq python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
. "$KT_SRC/tests/lib/pki.sh"
cd "$T" || exit 1
D=$CORPUS/debian
S=$CORPUS/peers/secureboot-objects
TS="2024-01-01 00:00:00"
G=11111111-2222-3333-4444-555555555555
GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
IMGDB=d719b2cb-3d3a-4596-a3bc-dad00e67656f

for k in pk kek kek2 other a b c; do
    openssl req -x509 -newkey rsa:2048 -nodes -keyout $k.key -out $k.pem -days 3650 \
        -subj "/CN=Test $k" 2>/dev/null
    cert-to-efi-sig-list -g $G $k.pem $k.esl >/dev/null
done
cert-to-efi-sig-list -g $G "$CORPUS/trust/microsoft-uefi-ca-2011.pem" msca.esl >/dev/null
# sign VAR SIGNER ESL OUT [-a]
sign() { sign-efi-sig-list ${5:-} -g $G -t "$TS" -k $2.key -c $2.pem $1 $3 $4 >/dev/null 2>&1 ||
         bad "sign-efi-sig-list $4"; }
# var DIR NAME GUID FILE: an efivarfs file (attributes NV|BS|RT|TIME_AUTH)
var() { { printf '\x27\x00\x00\x00'; cat "$4"; } > "$1/$2-$3"; }
state() {
    rm -rf "$1"; mkdir -p "$1"
    var "$1" PK $GLOBAL pk.esl
    var "$1" KEK $GLOBAL kek.esl
    var "$1" db $IMGDB a.esl
    printf '\x06\x00\x00\x00\x01' > "$1/SecureBoot-$GLOBAL"
    printf '\x06\x00\x00\x00\x00' > "$1/SetupMode-$GLOBAL"
}
state vars
: > empty.esl
cat a.esl b.esl > ab.esl
sign db kek b.esl db-add-b.auth -a
sign db kek ab.esl db-add-ab.auth -a
sign db kek c.esl db-set-c.auth
sign db kek empty.esl db-delete.auth
sign KEK pk kek2.esl kek-add-kek2.auth -a
sign KEK kek kek2.esl kek-by-kek.auth -a
sign db kek2 b.esl db-by-kek2.auth -a
sign db other b.esl db-by-other.auth -a
sign dbx kek msca.esl dbx-msca.auth -a
cp db-add-b.auth tampered.auth
flip tampered.auth $(( $(stat -c %s tampered.auth) - 40 ))
A() { "$KTRUST" audit --efivars vars --esp esp --kernel none --modules none --json "$@"; }
applied() { A "$@" | jq -c 'select(.type=="apply") | [.applied, .variable, .write, (.gained|length), (.lost|length), .already_present]'; }
dbcerts() { A "$@" | jq -r 'select(.section=="firmware") | .variables[] | select(.name=="db") | .certificates | length'; }
mkdir -p esp

# the target is the variable the signature covers; KEK vouches for db
expect_eq "$(applied --apply db-add-b.auth)" '[true,"db","append",1,0,0]' "db append under KEK"
out=$("$KTRUST" audit --efivars vars --esp esp --kernel none --modules none --apply db-add-b.auth)
expect_match "$out" 'apply db-add-b.auth: db append write, authorized by Test kek' "text names the authority"
expect_match "$out" 'db gained X509 Test b' "text names the certificate gained"
# append drops what is already there (a and b: a is)
expect_eq "$(applied --apply db-add-ab.auth)" '[true,"db","append",1,0,1]' "append drops present entries"
expect_eq "$(applied --apply db-add-b.auth --apply db-add-b.auth | tail -1)" '[true,"db","append",0,0,1]' \
    "the same update twice: nothing new the second time"
# replace replaces; an empty replace deletes
expect_eq "$(applied --apply db-set-c.auth)" '[true,"db","replace",1,1,0]' "replace"
expect_match "$(A --apply db-delete.auth | jq -c 'select(.section=="firmware") | .variables[] | select(.name=="db") | .present')" false "empty replace deletes db"
# PK vouches for KEK, a KEK does not
expect_eq "$(applied --apply kek-add-kek2.auth)" '[true,"KEK","append",1,0,0]' "KEK append under PK"
expect_eq "$(applied --apply kek-by-kek.auth)" '[false,"KEK","append",0,0,0]' "KEK signed by a KEK: refused"
expect_exit 2 "a refused update sets the exit code (untrusted)" -- A --apply kek-by-kek.auth
# several apply in order: the KEK update makes kek2 an authority for db
expect_eq "$(applied --apply kek-add-kek2.auth --apply db-by-kek2.auth | tail -1)" '[true,"db","append",1,0,0]' \
    "in order: KEK first, then a db update under the new KEK"
expect_eq "$(applied --apply db-by-kek2.auth --apply kek-add-kek2.auth | head -1)" '[false,"db","append",0,0,0]' \
    "the other order: the db update has no authority yet"
expect_eq "$(applied --apply db-by-other.auth)" '[false,"db","append",0,0,0]' "another owner's key: refused"
expect_eq "$(dbcerts --apply db-by-other.auth)" 1 "a refused update changes nothing"
# a tampered update covers no variable's signed bytes
expect_eq "$(applied --apply tampered.auth)" '[false,null,null,0,0,0]' "tampered: no variable"
expect_exit 5 "tampered: rejected" -- A --apply tampered.auth
expect_match "$(A --apply tampered.auth | jq -r 'select(.type=="apply") | .reason')" 'covers none of' \
    "tampered: the reason"
# setup mode: no PK, so a db write needs no authority (EDK2 ProcessVarWithKek)
state setup; rm setup/PK-*; printf '\x06\x00\x00\x00\x01' > "setup/SetupMode-$GLOBAL"
out=$("$KTRUST" audit --efivars setup --esp esp --kernel none --modules none --json --apply db-by-other.auth |
      jq -c 'select(.type=="apply") | [.applied, .setup_mode]')
expect_eq "$out" '[true,true]' "setup mode: applied without an authority"
# a PK present is user mode whatever SetupMode says (EDK2 derives the mode from the PK)
state lying; printf '\x06\x00\x00\x00\x01' > "lying/SetupMode-$GLOBAL"
out=$("$KTRUST" audit --efivars lying --esp esp --kernel none --modules none --json --apply db-by-other.auth |
      jq -c 'select(.type=="apply") | [.applied, .setup_mode]')
expect_eq "$out" '[false,false]' "SetupMode=1 beside a PK: still user mode, refused"
# not a signed update at all
expect_exit 4 "not a signed update" -- A --apply a.esl
expect_exit 66 "missing file" -- A --apply nonexistent.auth

# Microsoft's own: DBUpdate2024 under KEK CA 2011 (efivars-1 holds it); an OEM's KEK update is not for this PK
E1=$CORPUS/peers/shim-efivars/efivars-1
out=$("$KTRUST" audit --efivars "$E1" --esp esp --kernel none --modules none --json \
      --apply "$S/DB/DBUpdate2024-amd64.bin" --apply "$S/KEK/AMI_KEKUpdate_AMI_PK1.bin" |
      jq -c 'select(.type=="apply") | [.applied, .variable, .authority, .gained]')
expect_eq "$(echo "$out" | head -1)" '[true,"db","Microsoft Corporation KEK CA 2011",["X509 Windows UEFI CA 2023"]]' \
    "DBUpdate2024 on efivars-1"
expect_eq "$(echo "$out" | tail -1)" '[false,"KEK",null,[]]' "an OEM's KEK update: not this machine's PK"

# the command runs on the state after the updates: a dbx update revoking
# the CA that signed shim (chain, audit, check-update agree)
state vars; var vars db $IMGDB msca.esl
chain() { "$KTRUST" chain --efivars vars -q "$@" "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64"; }
expect_exit 0 "chain before the dbx update" -- chain
expect_exit 5 "chain after it: shim revoked" -- chain --apply dbx-msca.auth
expect_exit 64 "chain --apply without --efivars" -- "$KTRUST" chain --db a.pem --apply dbx-msca.auth \
    "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64"
mkdir -p esp2/EFI/debian; cp "$D/shimx64.efi.signed" esp2/EFI/debian/shimx64.efi
expect_exit 0 "check-update: the dbx in force revokes nothing" -- "$KTRUST" check-update -q --efivars vars esp2
expect_exit 5 "check-update --apply: the dbx after it revokes shim" -- \
    "$KTRUST" check-update -q --efivars vars --apply dbx-msca.auth esp2
out=$("$KTRUST" check-update --efivars vars --apply dbx-msca.auth esp2)
expect_match "$out" 'dbx gained X509 Microsoft Corporation UEFI CA 2011' "check-update prints the change"
finish
