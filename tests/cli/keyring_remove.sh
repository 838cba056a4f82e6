#!/bin/bash
# keyring remove (issue #16 item 1): an id that matches several keys is
# refused (64, listing them) unless --all; --dry-run changes nothing; what is
# removed is printed; --json has an object per id.
source "$(dirname "$0")/../lib/common.sh"
cd "$T"
export KTRUST_STORE=$T/k.db
# three unrelated keys with the same subject and issuer "CN=Same CA": the
# kernel's id 0 (serial + raw issuer) lets a trailing part of the issuer's
# bytes (" CA" = 204341) match all three, as "... 1" matched a whole store
for i in 1 2 3; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout k$i.key \
        -out k$i.pem -subj '/CN=Same CA' -days 30 2>/dev/null
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout o.key -out o.pem \
    -subj '/CN=Other' -days 30 2>/dev/null
cat k1.pem k2.pem k3.pem o.pem >all.pem
$KTRUST keyring add -q --keyring platform all.pem
count() { $KTRUST keyring list --keyring platform | wc -l; }
sha() { openssl x509 -in "$1" -outform DER | sha256sum | cut -c1-64; }
expect_eq "$(count)" 4 "four keys"
id=$(printf ' CA' | od -An -tx1 | tr -d ' \n')
expect_eq "$(openssl x509 -in k1.pem -noout -issuer | grep -c 'CN *= *Same CA$')" 1 "the issuer ends in ' CA'"

out=$($KTRUST keyring remove --keyring platform "$id" 2>&1); rc=$?
expect_eq "$rc" 64 "an id matching 3 keys: refused with 64"
expect_match "$out" "^ktrust: '$id' matches 3 keys in platform \(nothing removed\)" "refusal says how many"
expect_eq "$(printf '%s\n' "$out" | grep -c '^  matches platform: Same CA: ')" 3 "refusal lists the three"
for i in 1 2 3; do expect_match "$out" "sha256 $(sha k$i.pem)" "refusal names k$i by its sha256"; done
expect_eq "$(count)" 4 "nothing removed after a refusal"

out=$($KTRUST keyring remove --keyring platform --all --dry-run "$id" 2>/dev/null); rc=$?
expect_eq "$rc" 0 "--all --dry-run: 0"
expect_eq "$(printf '%s\n' "$out" | grep -c '^would remove from platform: Same CA: ')" 3 "--dry-run says what would go"
expect_eq "$(count)" 4 "--dry-run removes nothing"
expect_eq "$(ls k.db* | tr '\n' ' ')" "k.db " "no -wal/-shm left behind"

# one key by its full SHA-256 (exact): removed, and said so
s2=$(sha k2.pem)
out=$($KTRUST keyring remove --keyring platform "$s2" 2>/dev/null); rc=$?
expect_eq "$rc" 0 "remove by sha256: 0"
expect_match "$out" "^removed from platform: Same CA: [0-9a-f]+ \(sha256 $s2\)$" "says what it removed"
expect_eq "$(count)" 3 "one key less"
expect_eq "$($KTRUST keyring list --keyring platform --json | grep -c "\"sha256\":\"$s2\"")" 0 "k2 is gone"
expect_exit 2 "the same id again: no key matches (2)" -- $KTRUST keyring remove --keyring platform "$s2"

# --json: one object per id; a refusal has its matches and removed false
json=$($KTRUST keyring remove --json --keyring platform "$id" 2>/dev/null); rc=$?
expect_eq "$rc" 64 "--json refusal: 64"
expect_eq "$(printf '%s\n' "$json" | head -1 | python3 -c 'import sys,json; d=json.loads(sys.stdin.read()); print(d["id"], len(d["matches"]), d["removed"], d["error"])')" "$id 2 False EINVAL" "--json refusal object"
expect_eq "$(printf '%s\n' "$json" | tail -1 | python3 -c 'import sys,json; d=json.loads(sys.stdin.read()); print(d["type"], d["exit"], d["error"] is not None)')" "summary 64 True" "--json refusal: then the summary with the error"
json=$($KTRUST keyring remove --json --keyring platform --all "$id" 2>/dev/null); rc=$?
expect_eq "$rc" 0 "--json --all: 0"
expect_eq "$(printf '%s\n' "$json" | python3 -c 'import sys,json; d=json.loads(sys.stdin.read()); print(len(d["matches"]), d["removed"], d["dry_run"], sorted(m["sha256"] for m in d["matches"]) == sorted(sys.argv[1:]))' "$(sha k1.pem)" "$(sha k3.pem)")" "2 True False True" "--json --all object names what went"
expect_eq "$(count)" 1 "only Other is left"

# several ids: one that fails means none is removed
out=$($KTRUST keyring remove --keyring platform "$(sha o.pem)" ffffffffffffffffff 2>&1); rc=$?
expect_eq "$rc" 2 "an unknown id among several: 2"
expect_eq "$(count)" 1 "... and the good id was not removed either"
finish
