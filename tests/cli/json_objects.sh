#!/bin/bash
# --json gaps (issue #16 item 5): an object for every input, unreadable and
# malformed ones included; null (not "error"/"unreadable") where nothing was
# verified; keyring add/create/remove/export speak JSON too.
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

# x509 show: one object per certificate or failure
out=$($KTRUST x509 show --json ca.pem nope.pem trunc.der garbage 2>/dev/null); rc=$?
expect_eq "$rc" 66 "x509 show: worst exit (66)"
expect_eq "$(printf '%s\n' "$out" | py 'print(len(rows)); [print(r.get("file"), r.get("error"), r.get("subject")) for r in rows]')" \
"4
None None O=Json CA, CN=Json CA Root
nope.pem ENOENT None
trunc.der EBADMSG None
garbage EBADMSG None" "x509 show: four objects"
out=$($KTRUST x509 show --json mixed.pem 2>/dev/null)
expect_eq "$(printf '%s\n' "$out" | py 'print(len(rows), rows[0]["subject"], rows[1]["file"], rows[1]["error"])')" "2 O=Json Two, CN=Json Two Root mixed.pem EBADMSG" "x509 show: a bundle with a bad PEM block"
expect_match "$(printf '%s\n' "$out" | sed -n 2p)" '"index":null,"error":"EBADMSG","reason":"PEM' "x509 show: the error object"

# kernel-keys: unreadable and not-a-kernel inputs have objects
out=$($KTRUST kernel-keys --json nope garbage 2>/dev/null); rc=$?
expect_eq "$rc" 66 "kernel-keys: exit 66"
expect_eq "$(printf '%s\n' "$out" | py '[print(r["file"], r["error"], r["index"]) for r in rows]')" \
"nope ENOENT None
garbage EBADMSG None" "kernel-keys: an object per image"

# chain: an unreadable link has verdict null
$KTRUST wrap-key signer.pem -o w.u >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\nshim,4,UEFI shim,shim,1,https://y\n' > shim.csv
objcopy --add-section .sbat=shim.csv --set-section-flags .sbat=contents,alloc,load,readonly,data w.u w.efi
osslsign w.efi w.signed.efi signer ca
out=$($KTRUST chain --json --db ca.pem w.signed.efi nope.efi w.signed.efi 2>/dev/null)
expect_eq "$(printf '%s\n' "$out" | py '[print(r["role"], r["verdict"], r["error"]) for r in rows[:2]]')" \
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
finish
