#!/bin/bash
# Setup errors from option arguments (issue #16 item 2): an unusable --trust,
# --kernel or wrap-key input is a usage (64), unreadable (66) or malformed
# (4) error naming the option, never 1 ("unsigned") or 2; with --json every
# input still gets its object (verdict null, the error).
# Options as documented (issue #27 item 7): a bad option is ONE line on
# stderr and exit 64, for every command; verify-var and check-update take
# -v, wrap-key --json; the common options work before check-update.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/pki.sh"
cd "$T"
unset KTRUST_STORE
gen_ca ca "Opt CA"
gen_leaf signer "Opt CA" ca
gen_self modkey "Opt" "Opt Module Key"
$KTRUST wrap-key signer.pem -o w.efi >/dev/null 2>&1
osslsign w.efi w.signed.efi signer ca
head -c 3000 /dev/urandom >mod.body
sign_module mod.body mod.ko modkey.pem modkey.key
: >empty
printf 'hello\n-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n' >bad.pem
# a binary (not a PE) that happens to hold a PEM "BEGIN" line
{ head -c 200 /dev/zero; printf -- '-----BEGIN CERTIFICATE-----\n'; head -c 200 /dev/zero; } >blob.bin
expect_exit 0 "fixtures: the signed PE verifies with --trust ca.pem" -- $KTRUST verify-pe --trust ca.pem w.signed.efi

# check NAME WANT_EXIT REGEX -- CMD...: exit code and the one error line
check() {
    local name=$1 want=$2 re=$3
    shift 4
    local out rc
    out=$("$@" 2>&1 >/dev/null); rc=$?
    expect_eq "$rc" "$want" "$name: exit"
    expect_match "$out" "$re" "$name: message"
}
check "--trust empty file" 64 "^ktrust: --trust empty: an empty file, not certificates" -- $KTRUST verify-pe --trust empty w.signed.efi
check "--trust a PE" 64 "^ktrust: --trust w.efi: a PE image, not certificates" -- $KTRUST verify-pe --trust w.efi w.signed.efi
check "--trust a binary with BEGIN" 64 "^ktrust: --trust blob.bin: a binary file of another kind, not certificates" -- $KTRUST verify-pe --trust blob.bin w.signed.efi
check "--trust bad PEM text" 4 "^ktrust: --trust bad.pem: PEM" -- $KTRUST verify-pe --trust bad.pem w.signed.efi
check "--trust missing" 66 "^ktrust: --trust nope.pem: cannot open" -- $KTRUST verify-pe --trust nope.pem w.signed.efi
check "--cert (sbverify's name) is --trust" 64 "^ktrust: --trust empty: an empty file" -- $KTRUST verify-pe --cert empty w.signed.efi
check "verify-module --kernel given a module (swapped)" 64 "^ktrust: --kernel mod.ko: a kernel module, not a kernel image" -- $KTRUST verify-module --kernel mod.ko mod.ko
check "verify-module --kernel missing" 66 "^ktrust: --kernel nope: cannot open" -- $KTRUST verify-module --kernel nope mod.ko
check "verify-pkcs7 --trust a module" 64 "^ktrust: --trust mod.ko: a kernel module" -- $KTRUST verify-pkcs7 --trust mod.ko w.signed.efi
check "scan --trust empty" 64 "^ktrust: --trust empty: an empty file" -- $KTRUST scan --trust empty w.signed.efi
check "load-pe-key --trust a PE" 64 "^ktrust: --trust w.efi: a PE image" -- $KTRUST load-pe-key --store "$T/s.db" --trust w.efi w.signed.efi
check "wrap-key given a PE" 64 "^ktrust: w.signed.efi: a PE image, not a certificate" -- $KTRUST wrap-key w.signed.efi -o x.efi
check "wrap-key given an empty file" 64 "^ktrust: empty: an empty file, not a certificate" -- $KTRUST wrap-key empty -o x.efi
check "wrap-key given bad PEM" 4 "^ktrust: bad.pem: PEM" -- $KTRUST wrap-key bad.pem -o x.efi
expect_eq "$(test -e x.efi && echo written)" "" "wrap-key wrote nothing"
check "keyring add --trust an empty file" 64 "^ktrust: --trust empty: an empty file" -- $KTRUST keyring add --store "$T/s.db" --keyring platform --trust empty ca.pem
check "keyring add of a PE says what it is" 4 "^ktrust: w.efi: a PE image, not certificates" -- $KTRUST keyring add --store "$T/s.db" --keyring platform w.efi
json=$($KTRUST verify-pkcs7 --json --trust ca.pem ca.pem --data nope 2>/dev/null); rc=$?
expect_eq "$rc:$(printf '%s\n' "$json" | head -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["file"], d["verdict"], d["error"], d["reason"])')" "66:ca.pem None ENOENT --data nope: cannot open: No such file or directory" "verify-pkcs7 --data missing: an object for the signature"
expect_eq "$(printf '%s\n' "$json" | tail -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["type"], d["exit"], d["error"])')" "summary 66 nope: cannot open: No such file or directory" "verify-pkcs7 --data missing: then the summary with the error"

# --json: one object per input even when the setup failed
json=$($KTRUST verify-pe --json --trust empty w.signed.efi w.efi 2>/dev/null); rc=$?
expect_eq "$rc" 64 "--json setup error: exit"
expect_eq "$(printf '%s\n' "$json" | python3 -c '
import sys, json
rows = [json.loads(l) for l in sys.stdin]
for d in rows[:-1]:
    print(d["file"], d["type"], d["verdict"], d["error"], d["reason"].startswith("--trust empty: "))
s = rows[-1]
print(s["type"], s["verdict"], s["exit"], s["counts"]["unreadable"])')" \
"w.signed.efi pe None EMEDIUMTYPE True
w.efi pe None EMEDIUMTYPE True
summary None 64 2" "--json: an object per input, verdict null, then the summary"
json=$($KTRUST verify-module --json --kernel nope mod.ko 2>/dev/null); rc=$?
expect_eq "$rc:$(printf '%s\n' "$json" | head -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["verdict"], d["error"])')" "66:None ENOENT" "--json --kernel missing: object"
json=$($KTRUST verify-pe --json --store "$T/none.db" w.signed.efi 2>/dev/null); rc=$?
expect_eq "$rc:$(printf '%s\n' "$json" | head -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["verdict"], d["error"])')" "66:None ENOENT" "--json missing store: object"
# ---- options as documented (issue #27 item 7) --------------------------------
# one line on stderr, exit 64, for every command and every kind of mistake
one_line() { # NAME -- CMD...
    local name=$1 err rc
    shift 2
    err=$("$@" 2>&1 >/dev/null); rc=$?
    expect_eq "$rc:$(printf '%s\n' "$err" | grep -c .)" "64:1" "$name: exit 64, one line"
    expect_match "$err" "^ktrust [a-z0-9-]*: .*\(try 'ktrust [a-z0-9-]* --help'\)$" "$name: says where the help is"
}
for c in "x509 show" "keyring list" "keyring add" kernel-keys verify-pkcs7 verify-module verify-pe \
         load-pe-key wrap-key chain scan "esl show" "sbat show" verify-var check-update audit \
         eventlog plan-updates; do
    one_line "$c --zz-bogus" -- $KTRUST $c --zz-bogus x
    one_line "$c -Z" -- $KTRUST $c -Z x
done
one_line "verify-pe --store (no argument)" -- $KTRUST verify-pe w.signed.efi --store
one_line "scan -j (no argument)" -- $KTRUST scan d -j
one_line "verify-pe --json=1" -- $KTRUST verify-pe --json=1 w.signed.efi
expect_match "$($KTRUST verify-pe --zz-bogus x 2>&1)" "^ktrust verify-pe: unrecognized option '--zz-bogus'" "the message names the option"
expect_match "$($KTRUST keyring list --zz-bogus 2>&1)" "^ktrust keyring: unrecognized option '--zz-bogus'" "keyring: the command's name, not the subcommand's"
# -v where the README promises it
expect_eq "$($KTRUST verify-var -v --var db ca.pem >/dev/null 2>&1; echo $?)" 1 "verify-var -v: accepted (ca.pem is no signed update: 1)"
efi esl --owner shim --sha256 0000000000000000000000000000000000000000000000000000000000000000 -o zero.esl
out=$($KTRUST check-update -v --dbx zero.esl w.signed.efi 2>&1); rc=$?
expect_eq "$rc" 0 "check-update -v: accepted"
expect_match "$out" "format: pe32\+, machine x64" "check-update -v: each file's format and machine"
# eventlog and plan-updates take -v too (#36 item 5; they refused it)
expect_eq "$($KTRUST eventlog -v nonexistent.log >/dev/null 2>&1; echo $?)" 66 "eventlog -v: accepted"
expect_eq "$($KTRUST plan-updates -v --efivars nonexistent-dir x >/dev/null 2>&1; echo $?)" 66 \
    "plan-updates -v: accepted"
# wrap-key --json
out=$($KTRUST wrap-key --json signer.pem -o wj.efi); rc=$?
expect_eq "$rc:$(python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["type"], d["file"], d["written"], d["section"], d["certificates"], d["bytes"] == int(sys.argv[1]))' "$(stat -c %s wj.efi)" <<<"$out")" \
    "0:wrap_key wj.efi True .keylist 1 True" "wrap-key --json: what was written"
out=$($KTRUST wrap-key --json empty -o wk.efi 2>/dev/null); rc=$?
expect_eq "$rc:$(head -1 <<<"$out" | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["written"], d["exit"])'):$(test -e wk.efi && echo written)" \
    "64:False 64:" "wrap-key --json, a bad input: written false, nothing written"
# the common options before check-update: --trust is its --db (what vouches)
out=$($KTRUST --trust ca.pem --json check-update --dbx zero.esl w.signed.efi); rc=$?
expect_eq "$rc:$(head -1 <<<"$out" | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["signed_by_db"])')" "0:True" \
    "ktrust --trust F --json check-update: accepted, --trust vouches as --db"
out=$($KTRUST --json -q check-update --cert modkey.pem --dbx zero.esl w.signed.efi 2>/dev/null | head -1)
expect_eq "$(python3 -c 'import sys,json; print(json.load(sys.stdin)["signed_by_db"])' <<<"$out")" False "--cert another CA: not signed by db"
finish
