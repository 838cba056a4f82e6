#!/bin/bash
# Signed updates that EDK2's variable driver refuses although their
# signature and authority check out: CheckSignatureListFormat (AuthService.c,
# at the end of VerifyTimeBasedPayload, user mode as well as setup mode)
# needs the first entry of each X509 list of PK, KEK, db, dbx and dbt to
# yield an RSA public key.  A db update carrying an EC certificate, and one
# whose X509 entry is no certificate, are refused by --apply (audit,
# check-update, eventlog --predict), by check-update --dbx and by
# plan-updates, with the reason, and the state and the PCR 7 prediction
# after them are the state before.  Updates signed by efitools'
# sign-efi-sig-list under a KEK made here.  (ktrust used to apply both:
# "db gained X509 (unparsable)".)
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in sign-efi-sig-list cert-to-efi-sig-list openssl jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
O=$CORPUS/peers/ovmf-swtpm-boot
G=11111111-2222-3333-4444-555555555555
GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
TS="2024-01-01 00:00:00"
openssl req -x509 -newkey rsa:2048 -nodes -keyout kek.key -out kek.pem -days 3650 \
    -subj "/CN=Test kek" 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.pem -days 3650 \
    -subj "/CN=Test rsa" 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ec.key -out ec.pem \
    -days 3650 -subj "/CN=Test ec" 2>/dev/null
cert-to-efi-sig-list -g $G kek.pem kek.esl >/dev/null
cert-to-efi-sig-list -g $G rsa.pem rsa.esl >/dev/null
openssl x509 -in ec.pem -outform DER -out ec.der
efi esl --x509 ec.der --owner $G -o ec.esl
printf '\x30\x06\x02\x01\x01\x02\x01\x02' > notcert.der   # a DER SEQUENCE, no certificate
efi esl --x509 notcert.der --owner $G -o notcert.esl
for n in rsa ec notcert; do
    sign-efi-sig-list -a -g $G -t "$TS" -k kek.key -c kek.pem db $n.esl db-$n.auth >/dev/null 2>&1 ||
        bad "sign-efi-sig-list db-$n.auth"
done
sign-efi-sig-list -a -g $G -t "$TS" -k kek.key -c kek.pem dbx ec.esl dbx-ec.auth >/dev/null 2>&1 ||
    bad "sign-efi-sig-list dbx-ec.auth"
# the QEMU machine's variables, its KEK this test's
rm -rf vars; cp -r "$O/efivars" vars; chmod -R u+w vars
{ printf '\x27\x00\x00\x00'; cat kek.esl; } > vars/KEK-$GLOBAL
mkdir -p esp/EFI/BOOT
cp "$CORPUS/debian/shimx64.efi.signed" esp/EFI/BOOT/BOOTX64.EFI

A() { "$KTRUST" audit --efivars vars --esp esp --kernel none --modules none "$@"; }
applied() { A --json --apply "$1" | jq -c 'select(.type=="apply") | [.applied, .variable, .verdict, (.gained|length)]'; }
dbcerts() { A --json "$@" | jq -r 'select(.section=="firmware") | .variables[] | select(.name=="db") | .certificates | length'; }
before=$(dbcerts)
expect_eq "$(applied db-rsa.auth)" '[true,"db","trusted",1]' "an RSA certificate: applied"
expect_eq "$(applied db-ec.auth)" '[false,"db","unsupported",0]' "an EC certificate: refused"
expect_eq "$(applied db-notcert.auth)" '[false,"db","malformed",0]' "no certificate: refused"
expect_match "$(A --apply db-ec.auth)" \
    'apply db-ec.auth: not applied: payload list 0 entry 0 is an ecdsa certificate: firmware refuses the write \(EDK2 CheckSignatureListFormat' \
    "text: the reason"
expect_eq "$(dbcerts --apply db-ec.auth)" "$before" "refused: db as before"
expect_eq "$(dbcerts --apply db-notcert.auth)" "$before" "refused: db as before (not a certificate)"
expect_eq "$(dbcerts --apply db-rsa.auth)" "$((before + 1))" "applied: one more in db"
expect_exit 3 "audit --apply: the refusal sets the exit code" -- A -q --apply db-ec.auth

# check-update: --apply refuses; a signed --dbx update firmware refuses is an error, not a dbx
out=$("$KTRUST" check-update --efivars vars --apply db-notcert.auth esp 2>&1)
expect_eq $? 4 "check-update --apply: no certificate, exit 4"
expect_match "$out" "not applied: payload list 0 entry 0 is not a certificate" "check-update: the reason"
out=$("$KTRUST" check-update --dbx dbx-ec.auth esp 2>&1)
expect_eq $? 3 "check-update --dbx with an EC certificate: refused"
expect_match "$out" "dbx-ec.auth: .*firmware refuses the write" "check-update --dbx: the reason"
expect_exit 0 "check-update --dbx: the same list unsigned is a list, checked" -- \
    "$KTRUST" check-update -q --dbx ec.esl esp

# eventlog --predict --apply: a refused update is an input not used, so no
# prediction stands on it (#36: never an all-clear the input did not earn):
# no predicted PCR 7, "cannot answer" naming the file, the input's exit code
pred() { "$KTRUST" eventlog "$O/eventlog.bin" --predict --efivars vars --esp esp --json "$@" |
         jq -r 'select(.type=="prediction" and .pcr==7) | .bank + " " + .predicted'; }
base=$(pred)
[ -n "$base" ] && ok || bad "PCR 7 predicted without the refused update"
for f in db-ec.auth db-notcert.auth; do
    expect_eq "$(pred --apply $f 2>/dev/null)" "" "$f: no PCR 7 predicted after a refused update"
    out=$("$KTRUST" eventlog "$O/eventlog.bin" --predict --efivars vars --esp esp --apply $f 2>&1)
    rc=$?
    [ "$rc" != 0 ] && ok || bad "$f: eventlog --predict exits non-zero"
    expect_match "$(printf '%s\n' "$out" | tail -1)" "cannot answer: .*$f" "$f: the last line says cannot answer"
done
[ "$(pred --apply db-rsa.auth)" != "$base" ] && ok || bad "an applied db update changes PCR 7"

# firmware generations: setup mode (no PK), a PK written signed by another key:
# EDK2 2022.11 wants it self-signed, edk2-stable202302 no longer does by default
rm -rf setup; cp -r vars setup; rm setup/PK-$GLOBAL
cert-to-efi-sig-list -g $G rsa.pem pk.esl >/dev/null
sign-efi-sig-list -g $G -t "$TS" -k kek.key -c kek.pem PK pk.esl pk-by-kek.auth >/dev/null 2>&1 ||
    bad "sign-efi-sig-list pk-by-kek.auth"
sign-efi-sig-list -g $G -t "$TS" -k rsa.key -c rsa.pem PK pk.esl pk-self.auth >/dev/null 2>&1 ||
    bad "sign-efi-sig-list pk-self.auth"
SA() { "$KTRUST" audit --efivars setup --esp esp --kernel none --modules none --json --apply "$1" |
       jq -c 'select(.type=="apply") | [.applied, .variable, .accepted_from]'; }
expect_eq "$(SA pk-self.auth)" '[true,"PK",null]' "setup mode: a self-signed PK is enrolled"
expect_eq "$(SA pk-by-kek.auth)" '[false,"PK","edk2-stable202302"]' \
    "setup mode: a PK not signed by itself: refused by 2022.11, accepted from edk2-stable202302"
expect_match "$("$KTRUST" audit --efivars setup --esp esp --kernel none --modules none --apply pk-by-kek.auth)" \
    "not applied: setup mode: the PK written is not signed by itself: refused by EDK2 2022.11 \(Debian 12's OVMF\), accepted from edk2-stable202302 unless the platform sets PcdRequireSelfSignedPk" \
    "text: the generation"

# plan-updates: the update does not apply, and says why
mkdir -p upd; cp db-ec.auth db-notcert.auth upd/
json=$("$KTRUST" plan-updates --efivars vars --esp esp --json upd)
expect_eq "$(jq -r 'select(.type=="update") | .applies' <<<"$json" | sort -u)" false "plan: neither applies"
expect_match "$(jq -r 'select(.type=="update" and (.file|test("db-ec"))) | .reason' <<<"$json")" \
    "ecdsa certificate: firmware refuses the write" "plan: the reason"
finish
