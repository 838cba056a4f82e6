#!/bin/bash
# --json gaps (issue #16 item 5): an object for every input, unreadable and
# malformed ones included; null (not "error"/"unreadable") where nothing was
# verified; keyring add/create/remove/export speak JSON too.
# One JSON shape (issue #27 item 6): every object of every command has a
# type; every command that reports on several inputs or a whole system ends
# with the same summary object; would_be_revoked is a bool wherever it is;
# chain's records come in the text's order.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/pki.sh"
cd "$T"
unset KTRUST_STORE
gen_ca ca "Json CA"
gen_leaf signer "Json CA" ca
gen_ca two "Json Two"
head -c 500 /dev/urandom >garbage
printf -- '-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n' >bad.pem
openssl x509 -in ca.pem -outform DER -out ca.der
head -c 300 ca.der >trunc.der
cat two.pem bad.pem >mixed.pem
py() { python3 -c "import sys, json
rows = [json.loads(l) for l in sys.stdin]
$1"; }

# x509 show: one object per certificate or failure, then (a failing run)
# the summary object with the first error
out=$($KTRUST x509 show --json ca.pem nope.pem trunc.der garbage 2>/dev/null); rc=$?
expect_eq "$rc" 66 "x509 show: worst exit (66)"
expect_eq "$(printf '%s\n' "$out" | py 'print(len(rows)); [print(r.get("file"), r.get("error"), r.get("subject")) for r in rows[:-1]]; print(rows[-1]["type"], rows[-1]["exit"], rows[-1]["error"])')" \
"5
None None O=Json CA, CN=Json CA Root
nope.pem ENOENT None
trunc.der EBADMSG None
garbage EBADMSG None
summary 66 nope.pem: cannot open: No such file or directory" "x509 show: four objects, then the failure's summary"
out=$($KTRUST x509 show --json mixed.pem 2>/dev/null)
expect_eq "$(printf '%s\n' "$out" | py 'print(len(rows), rows[0]["subject"], rows[1]["file"], rows[1]["error"])')" "2 O=Json Two, CN=Json Two Root mixed.pem EBADMSG" "x509 show: a bundle with a bad PEM block"
expect_match "$(printf '%s\n' "$out" | sed -n 2p)" '"index":null,"error":"EBADMSG","reason":"PEM' "x509 show: the error object"

# kernel-keys: unreadable and not-a-kernel inputs have objects
out=$($KTRUST kernel-keys --json nope garbage 2>/dev/null); rc=$?
expect_eq "$rc" 66 "kernel-keys: exit 66"
expect_eq "$(printf '%s\n' "$out" | py '[print(r["file"], r["error"], r["index"]) for r in rows[:-1]]')" \
"nope ENOENT None
garbage EBADMSG None" "kernel-keys: an object per image"

# chain: an unreadable link has verdict null
$KTRUST wrap-key signer.pem -o w.u >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\nshim,4,UEFI shim,shim,1,https://y\n' > shim.csv
objcopy --add-section .sbat=shim.csv --set-section-flags .sbat=contents,alloc,load,readonly,data w.u w.efi
osslsign w.efi w.signed.efi signer ca
out=$($KTRUST chain --json --db ca.pem w.signed.efi nope.efi w.signed.efi 2>/dev/null)
expect_eq "$(printf '%s\n' "$out" | py '[print(r["role"], r["verdict"], r["error"]) for r in [r for r in rows if "role" in r][:2]]')" \
"shim trusted None
loader None ENOENT" "chain: the unreadable loader has verdict null"

# keyring add / create / export / remove --json
export KTRUST_STORE=$T/k.db
out=$($KTRUST keyring add --json --keyring platform ca.pem two.pem)
expect_eq "$(printf '%s\n' "$out" | py '[print(r["file"], r["stored"], len(r["keys"]), r["keys"][0]["subject"], r["error"]) for r in rows]')" \
"ca.pem True 1 O=Json CA, CN=Json CA Root None
two.pem True 1 O=Json Two, CN=Json Two Root None" "keyring add --json: an object per file"
out=$($KTRUST keyring add --json --keyring platform ca.pem garbage 2>/dev/null); rc=$?
expect_eq "$rc:$(printf '%s\n' "$out" | py '[print(r["file"], r["stored"], r["error"]) for r in rows]' | tr '\n' ' ')" \
"4:ca.pem False None garbage False EBADMSG " "keyring add --json failure: nothing stored, the culprit named"
out=$($KTRUST keyring create --json mine --restrict trusted-only)
expect_eq "$(printf '%s\n' "$out" | py 'r=rows[0]; print(r["keyring"], r["restriction"], r["created"])')" "mine trusted-only True" "keyring create --json"
out=$($KTRUST keyring export --json --keyring platform)
expect_eq "$(printf '%s\n' "$out" | py 'print(len(rows), all(r["keyring"] == "platform" and r["pem"].startswith("-----BEGIN CERTIFICATE-----") for r in rows))')" "2 True" "keyring export --json: an object per key with its PEM"
printf '%s\n' "$out" | head -1 | py 'sys.stdout.write(rows[0]["pem"])' >exp.pem
expect_eq "$(openssl x509 -in exp.pem -noout -fingerprint -sha256 | tr -d : | cut -d= -f2 | tr A-F a-f)" "$(printf '%s\n' "$out" | head -1 | py 'print(rows[0]["sha256"])')" "the exported PEM is the key (openssl)"
out=$($KTRUST keyring export --json --keyring platform -o all.pem)
expect_eq "$(printf '%s\n' "$out" | py 'r=rows[0]; print(r["file"], r["format"], r["keys"])'):$(grep -c BEGIN all.pem)" "all.pem pem 2:2" "keyring export --json -o: what was written"
s=$(openssl x509 -in two.pem -outform DER | sha256sum | cut -c1-64)
out=$($KTRUST keyring remove --json --keyring platform "$s")
expect_eq "$(printf '%s\n' "$out" | py 'r=rows[0]; print(r["removed"], r["matches"][0]["sha256"])')" "True $s" "keyring remove --json"
# ---- one JSON shape (issue #27 item 6) ---------------------------------------
unset KTRUST_STORE
export KTRUST_STORE=$T/shape.db
gen_self modkey "Shape" "Shape Module Key"
head -c 3000 /dev/urandom >mod.body
sign_module mod.body mod.ko modkey.pem modkey.key
# an EFI signature list of one SHA-256 (the signed PE's Authenticode hash is
# not needed: any hash makes a dbx update to check against)
efi esl --owner shim --sha256 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f -o dbx.esl
mkdir -p root/boot/efi
# shape CMD...: every line of --json output is an object with a type; prints
# "no type: ..." for one without, and the summary's shape when there is one
shape() { "$@" 2>/dev/null | python3 -c '
import sys, json
rows = [json.loads(l) for l in sys.stdin if l.strip()]
bad = [sorted(r)[:4] for r in rows if not isinstance(r.get("type"), (str, type(None))) or "type" not in r]
wbr = [r for r in rows for k, v in r.items() if k == "would_be_revoked" and not isinstance(v, bool)]
sums = [r for r in rows if r.get("type") == "summary"]
out = []
if not rows: out.append("no output")
if bad: out.append("no type: %s" % bad[0])
if wbr: out.append("would_be_revoked not a bool")
if sums:
    s = sums[-1]
    ok = (s is rows[-1] and len(sums) == 1 and (s["verdict"] is None or isinstance(s["verdict"], str))
          and type(s["exit"]) is int and type(s["interrupted"]) is bool
          and isinstance(s["counts"], dict) and all(type(v) is int for v in s["counts"].values()))
    out.append("summary %s" % ("ok" if ok else "WRONG: %s" % s))
print("; ".join(out) or "typed")'; }

$KTRUST keyring add --keyring platform ca.pem >/dev/null 2>&1
expect_eq "$(shape $KTRUST x509 show --json ca.pem nope.pem garbage)" "summary ok" "x509 show: every object typed, the failure's summary"
expect_eq "$(shape $KTRUST kernel-keys --json garbage nope)" "summary ok" "kernel-keys: every object typed, the failure's summary"
expect_eq "$(shape $KTRUST esl show --json dbx.esl garbage)" "typed" "esl show: every object typed"
expect_eq "$(shape $KTRUST sbat show --json w.efi w.signed.efi)" "typed" "sbat show: every object typed"
expect_eq "$(shape $KTRUST keyring list --json)" "typed" "keyring list: every object typed"
expect_eq "$(shape $KTRUST keyring export --json --keyring platform)" "typed" "keyring export: every object typed"
expect_eq "$(shape $KTRUST keyring export --json --keyring platform -o shape.pem)" "typed" "keyring export -o: typed"
expect_eq "$(shape $KTRUST keyring add --json --keyring platform two.pem)" "typed" "keyring add: typed"
expect_eq "$(shape $KTRUST keyring create --json shape --restrict trusted-only)" "typed" "keyring create: typed"
s2=$(openssl x509 -in two.pem -outform DER | sha256sum | cut -c1-64)
expect_eq "$(shape $KTRUST keyring remove --json --keyring platform "$s2")" "typed" "keyring remove: typed"
expect_eq "$(shape $KTRUST load-pe-key --json --store "$T/shape2.db" --trust ca.pem w.signed.efi)" "typed" "load-pe-key: typed"
expect_eq "$(shape $KTRUST wrap-key --json signer.pem -o w2.efi)" "typed" "wrap-key --json: typed"
# one input: no summary; several: the summary ends the output
expect_eq "$(shape $KTRUST verify-pe --json --trust ca.pem w.signed.efi)" "typed" "verify-pe, one file: no summary"
expect_eq "$(shape $KTRUST verify-pe --json --trust ca.pem w.signed.efi w.efi nope.efi)" "summary ok" "verify-pe, several files: the summary"
expect_eq "$(shape $KTRUST verify-pe --json --trust garbage w.signed.efi w.efi)" "summary ok" "verify-pe, a setup error: the summary still ends it"
expect_eq "$(shape $KTRUST verify-module --json --trust modkey.pem mod.ko mod.body)" "summary ok" "verify-module, several files: the summary"
expect_eq "$(shape $KTRUST verify-pkcs7 --json --trust ca.pem ca.pem)" "typed" "verify-pkcs7: typed"
expect_eq "$(shape $KTRUST verify-var --json --var db garbage ca.pem)" "summary ok" "verify-var, several files: the summary"
expect_eq "$(shape $KTRUST scan --json --trust ca.pem .)" "summary ok" "scan: the summary"
expect_eq "$(shape $KTRUST check-update --json --dbx dbx.esl w.signed.efi nope.efi)" "summary ok" "check-update: the summary"
expect_eq "$(shape $KTRUST chain --json --db ca.pem w.signed.efi w.signed.efi w.signed.efi)" "summary ok" "chain: the summary"
expect_eq "$(shape $KTRUST audit --json --root root)" "summary ok" "audit: the summary"

# the summary's values
out=$($KTRUST verify-pe --json --trust ca.pem w.signed.efi w.efi nope.efi 2>/dev/null); rc=$?
expect_eq "$rc:$(printf '%s\n' "$out" | tail -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); c=d["counts"]; print(d["verdict"], d["exit"], c["trusted"], c["unsigned"], c["unreadable"], d["interrupted"])')" \
    "66:unsigned 66 1 1 1 False" "verify-pe summary: worst verdict, exit, counts"
out=$($KTRUST check-update --json --dbx dbx.esl w.signed.efi 2>/dev/null)
expect_eq "$(printf '%s\n' "$out" | python3 -c '
import sys, json
rows = [json.loads(l) for l in sys.stdin]
f, s = rows[0], rows[-1]
print(f["type"], f["would_be_revoked"], s["type"], s["schema"], s["verdict"], s["exit"], s["counts"]["still_boots"], s["counts"]["would_be_revoked"], sorted(set(s) & {"would_be_revoked", "summary", "files", "unreadable"}))')" \
    "update_check False summary 1 still_boots 0 1 0 []" "check-update: typed files; the summary (the counts only in counts)"
out=$($KTRUST audit --json --root root 2>/dev/null)
expect_eq "$(printf '%s\n' "$out" | python3 -c '
import sys, json
rows = [json.loads(l) for l in sys.stdin]
print(" ".join(r["type"] + ":" + r.get("section", "-") for r in rows))
s = rows[-1]
print(sorted(set(s) & {"section", "exit_code", "parts_missing", "modules_not_loading"}), s["exit"], sorted(s["counts"]))')" \
    "audit:parts audit:firmware audit:sbat audit:boot audit:chain audit:modules audit:outlook summary:-
[] 66 ['modules_not_loading', 'parts_missing', 'would_be_revoked']" \
    "audit: each section typed; the summary only the summary's fields (schema 1; an ESP with no boot chain: cannot answer, 66)"
# chain: the records in the text's order (SbatLevel before the links)
out=$($KTRUST chain --json --db ca.pem w.signed.efi w.signed.efi w.signed.efi 2>/dev/null)
txt=$($KTRUST chain --db ca.pem w.signed.efi w.signed.efi w.signed.efi 2>/dev/null)
expect_eq "$(printf '%s\n' "$out" | python3 -c '
import sys, json
print(" ".join(json.loads(l).get("role") or json.loads(l)["type"] for l in sys.stdin))')" \
    "sbat_level shim loader kernel summary" "chain --json: sbat_level first, as in the text"
expect_match "$(printf '%s\n' "$txt" | grep -n 'SbatLevel\|shim ' | cut -d: -f2 | tr '\n' ' ')" "^SbatLevel .*shim" "chain text: SbatLevel before the links"
finish
