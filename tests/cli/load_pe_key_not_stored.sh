#!/bin/bash
# No output claims a write that did not happen (issue #27 item 1).
# load-pe-key: a store that cannot be created is refused before anything is
# verified (before: "trusted; 1 key ... added to secondary", then exit 66);
# a trusted file whose keys were not kept (another file failed, or the commit
# failed) says "verified (trusted); not stored: WHY" with "added": [].
# keyring remove: "removed from" is printed only after the commit succeeded;
# keyring add: "added N" likewise.  Commit failures come from the test build's
# KTRUST_STORE_FAIL_AFTER ($KTRUST_HOOKS).
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/pki.sh"
cd "$T"
gen_ca platform "NS CA"
gen_leaf signer "NS CA" platform
gen_self vendor "Acme" "Acme Module Key"
$KTRUST wrap-key vendor.pem -o w.efi >/dev/null
osslsign w.efi w.signed.efi signer platform
js() { python3 -c 'import sys,json; o=json.loads(sys.stdin.readline()); print(eval(sys.argv[1]))' "$1"; }

# 1. the store's directory does not exist: refused first, nothing verified
out=$($KTRUST load-pe-key --trust platform.pem --store "$T/nodir/s.db" w.signed.efi 2>"$T/err"); rc=$?
expect_eq "$rc" 66 "missing store directory: 66"
expect_eq "$out" "" "missing store directory: no 'trusted ... added' line"
expect_match "$(cat err)" "^ktrust: $T/nodir/s.db: no store here, and its directory $T/nodir does not exist \(not created\)$" "... the reason"
expect_eq "$(wc -l <err)" 1 "... one line"
j=$($KTRUST load-pe-key --json --trust platform.pem --store "$T/nodir/s.db" w.signed.efi 2>/dev/null)
expect_eq "$(printf '%s' "$j" | js 'o["verdict"], o.get("added", [])')" "(None, [])" "JSON: no verdict, nothing added"
[ -e nodir ] && bad "the directory was not made" || ok
# the default store's directories are made: that still works
expect_exit 0 "default store (XDG, made): trusted and stored" -- \
    env XDG_DATA_HOME="$T/xdg-new/deep" $KTRUST load-pe-key -q --trust platform.pem w.signed.efi
expect_eq "$($KTRUST keyring list --store "$T/xdg-new/deep/ktrust/keyrings.db" | grep -c 'Acme Module Key')" 1 "... the key is in it"

# 2. a later file fails: the trusted one is verified, not stored, and says so
out=$($KTRUST load-pe-key --trust platform.pem --store "$T/s2.db" w.signed.efi w.efi 2>/dev/null); rc=$?
expect_eq "$rc" 1 "trusted + unsigned: exit 1"
expect_eq "$(printf '%s\n' "$out" | head -1)" "w.signed.efi: verified (trusted); not stored: w.efi failed, and all files are one store transaction" "trusted + unsigned: not stored, why"
expect_eq "$(printf '%s\n' "$out" | grep -c 'added to')" 0 "... no 'added to' line"
j=$($KTRUST load-pe-key --json --trust platform.pem --store "$T/s2.db" w.signed.efi w.efi 2>/dev/null)
expect_eq "$(printf '%s' "$j" | js 'o["verdict"], o["added"], o["blacklisted"], o["reason"]')" \
    "('trusted', [], 0, 'verified (trusted); not stored: w.efi failed, and all files are one store transaction')" "JSON: added [] and the reason"
[ -e s2.db ] && bad "no store made" || ok

# 3. the commit fails (test build: the first row write fails)
$KTRUST keyring add -q --store "$T/s3.db" --keyring platform platform.pem
before=$($KTRUST keyring list --store "$T/s3.db")
out=$(KTRUST_STORE_FAIL_AFTER=1 $KTRUST_HOOKS load-pe-key --store "$T/s3.db" --keyring platform w.signed.efi 2>"$T/err"); rc=$?
expect_eq "$rc" 70 "commit fails: 70"
expect_eq "$out" "w.signed.efi: verified (trusted); not stored: store: saving keys: disk full" "commit fails: not stored, why"
expect_match "$(cat err)" "nothing stored \(the store could not be written\)" "... and on stderr"
j=$(KTRUST_STORE_FAIL_AFTER=1 $KTRUST_HOOKS load-pe-key --json --store "$T/s3.db" --keyring platform w.signed.efi 2>/dev/null)
expect_eq "$(printf '%s' "$j" | js 'o["added"], o["reason"]')" "([], 'verified (trusted); not stored: store: saving keys: disk full')" "commit fails: JSON added []"
expect_eq "$($KTRUST keyring list --store "$T/s3.db")" "$before" "commit fails: store unchanged"
out=$($KTRUST load-pe-key --store "$T/s3.db" --keyring platform w.signed.efi 2>&1); rc=$?
expect_eq "$rc" 0 "then without the fault: stored"
expect_match "$out" "^w.signed.efi: trusted; 1 key from .keylist added to platform" "... and says so"

# 4. keyring remove: "removed from" only after the commit
id=$(openssl x509 -in vendor.pem -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' :' | tr A-F a-f)
before=$($KTRUST keyring list --store "$T/s3.db")
out=$(KTRUST_STORE_FAIL_AFTER=1 $KTRUST_HOOKS keyring remove --store "$T/s3.db" --keyring platform "$id" 2>"$T/err"); rc=$?
expect_eq "$rc" 70 "remove, commit fails: 70"
expect_eq "$out" "" "remove, commit fails: no 'removed from' line"
expect_match "$(cat err)" "nothing removed from platform" "... nothing removed, on stderr"
expect_eq "$(grep -c 'removed 1' err)" 0 "... no 'removed 1'"
j=$(KTRUST_STORE_FAIL_AFTER=1 $KTRUST_HOOKS keyring remove --json --store "$T/s3.db" --keyring platform "$id" 2>/dev/null)
expect_eq "$(printf '%s' "$j" | js 'o["removed"], o["error"]')" "(False, 'EIO')" "remove, commit fails: JSON removed false"
expect_eq "$($KTRUST keyring list --store "$T/s3.db")" "$before" "remove, commit fails: store unchanged"
out=$($KTRUST keyring remove --store "$T/s3.db" --keyring platform "$id" 2>/dev/null); rc=$?
expect_eq "$rc" 0 "remove without the fault: 0"
expect_match "$out" "^removed from platform: Acme Module Key" "... says removed"

# 5. keyring add: a missing directory or a failed commit claims nothing
out=$($KTRUST keyring add --store "$T/nodir/k.db" --keyring platform platform.pem 2>&1); rc=$?
expect_eq "$rc" 66 "keyring add, missing directory: 66"
expect_eq "$(printf '%s\n' "$out" | grep -c 'added')" 0 "... no 'added'"
out=$(KTRUST_STORE_FAIL_AFTER=1 $KTRUST_HOOKS keyring add --store "$T/s3.db" --keyring machine vendor.pem 2>&1); rc=$?
expect_eq "$rc" 70 "keyring add, commit fails: 70"
expect_eq "$(printf '%s\n' "$out" | grep -c 'added')" 0 "... no 'added'"
finish
