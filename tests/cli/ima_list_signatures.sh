#!/usr/bin/env bash
# ima-list: the signatures an ima-sig list measured, judged against the
# .ima keyring, with evmctl ima_verify as the oracle for each file: signed
# by a key builtin (--trust) vouches for (trusted), the file changed after
# signing (the list holds the new digest: rejected), signed by a key .ima
# does not hold (untrusted: unknown key id), signed by a key the .ima
# restriction refused (refused), and a file without a signature.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
command -v evmctl >/dev/null || { echo "skipped: evmctl not found"; exit 77; }
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 30 -subj /CN=Test-CA \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,digitalSignature 2>/dev/null
printf 'keyUsage=critical,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >ext
for k in ima other; do
    openssl req -newkey rsa:2048 -nodes -keyout $k.key -out $k.csr -subj "/CN=Test-$k-key" 2>/dev/null
    openssl x509 -req -in $k.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $k.pem -days 30 -extfile ext 2>/dev/null
done
# a key nobody vouches for: self-signed
openssl req -x509 -newkey rsa:2048 -nodes -keyout rogue.key -out rogue.pem -days 30 -subj /CN=Test-rogue-key \
    -addext keyUsage=critical,digitalSignature 2>/dev/null
echo good >good; echo before >changed; echo other >byother; echo rogue >byrogue; echo none >unsigned
evmctl ima_sign --key ima.key --sigfile -a sha256 good >/dev/null 2>&1
evmctl ima_sign --key ima.key --sigfile -a sha256 changed >/dev/null 2>&1
evmctl ima_sign --key other.key --sigfile -a sha256 byother >/dev/null 2>&1
evmctl ima_sign --key rogue.key --sigfile -a sha256 byrogue >/dev/null 2>&1
echo after >changed
python3 "$KT_SRC/tests/fixtures/imalist.py" --entries 1 --binary l.bin --pcrs p.txt \
    --file /etc/good=good:good.sig --file /etc/changed=changed:changed.sig \
    --file /etc/byother=byother:byother.sig --file /etc/byrogue=byrogue:byrogue.sig \
    --file /etc/unsigned=unsigned

# the oracle: evmctl with the .ima key's certificate
openssl x509 -in ima.pem -outform DER -out ima.der
openssl x509 -in rogue.pem -outform DER -out rogue.der
evm() { evmctl ima_verify --sigfile -k "$2" "$1" >/dev/null 2>&1 && echo ok || echo fail; }
expect_eq "$(evm good ima.der)" ok "evmctl: good verifies"
expect_eq "$(evm changed ima.der)" fail "evmctl: changed fails"
expect_eq "$(evm byother ima.der)" fail "evmctl: other key's signature fails with the .ima key"
expect_eq "$(evm byrogue rogue.der)" ok "evmctl: the rogue signature verifies with its own key"

out=$("$KTRUST" ima-list l.bin --pcrs p.txt --trust ca.pem --ima-key ima.der --ima-key rogue.der -v -q 2>&1)
expect_eq "$?" 0 "the list checks out whatever its signatures say"
out=$("$KTRUST" ima-list l.bin --pcrs p.txt --trust ca.pem --ima-key ima.der --ima-key rogue.der -v 2>err)
line() { printf '%s\n' "$out" | grep " /etc/$1"; }
expect_match "$(line good)" "signature trusted, key 'Test-ima-key" "good: trusted (evmctl: ok)"
expect_match "$(line changed)" "signature rejected" "changed: rejected (evmctl: fail)"
expect_match "$(line byother)" "signature untrusted, key id [0-9a-f]{8}$" "byother: untrusted, unknown key id"
expect_match "$(line byrogue)" "signature refused" "byrogue: refused by the .ima restriction"
expect_match "$(line unsigned)" "/etc/unsigned$" "unsigned: no signature"
expect_match "$(cat err)" "rogue.der: 1 certificate refused by the .ima restriction" "the refusal said"
expect_match "$out" "signatures measured: 4 files with a security.ima signature, 1 without" "counts"
expect_match "$out" "^  trusted         1  key 'Test-ima-key" "by whom: trusted"
expect_match "$out" "^  untrusted       1  key id [0-9a-f]{8}: no key of .ima has it" "by whom: unknown key"

# JSON: the counts by verdict and by signer
j=$("$KTRUST" ima-list l.bin --pcrs p.txt --trust ca.pem --ima-key ima.der --ima-key rogue.der --json 2>/dev/null)
got=$(printf '%s\n' "$j" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["type"] == "ima_list":
        print(sorted(o["signature_verdicts"].items()), o["signed"], o["unsigned"], len(o["signers"]))')
expect_eq "$got" "[('refused', 1), ('rejected', 1), ('trusted', 1), ('untrusted', 1)] 4 1 3" "JSON counts (good and changed: one signer)"
# without keys: every signature's key is unknown
out=$("$KTRUST" ima-list l.bin --pcrs p.txt --trust ca.pem 2>&1)
expect_match "$out" "^  untrusted       1  key id" "no .ima keys: untrusted"
finish
