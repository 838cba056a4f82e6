#!/bin/bash
# scan and Ctrl-C (issue #16 item 4): on SIGINT/SIGTERM the files in hand
# finish, every output line is whole, the summary says interrupted, exit 130.
# The signal is raised by a test hook in the worker that finishes the N-th
# file ($KTRUST_SCAN_TEST_SIGNAL), so the test does not depend on timing.
# Also: results in walk order whatever -j, --list-skipped, "1 file",
# unreadable paths counted as unreadable.
source "$(dirname "$0")/../lib/common.sh"
cd "$T"
mkdir d
for i in 1 2 3 4 5 6 7 8; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout d/k$i.key \
        -out d/c$i.pem -subj "/CN=Scan $i" -days 30 2>/dev/null
done
rm d/*.key
echo "just text" >d/notes.txt
valid_json() { python3 -c '
import sys, json
for l in sys.stdin:
    json.loads(l)
print("ok")'; }

for sig in INT TERM; do
    hook=3; [ $sig = TERM ] && hook=3:TERM
    out=$(KTRUST_SCAN_TEST_SIGNAL=$hook $KTRUST scan --json -j 1 --trust d/c1.pem d); rc=$?
    expect_eq "$rc" 130 "SIG$sig: exit 130"
    expect_eq "$(printf '%s\n' "$out" | valid_json)" ok "SIG$sig: every line is whole JSON"
    expect_eq "$(printf '%s\n' "$out" | wc -l)" 4 "SIG$sig: three results and the summary"
    expect_eq "$(printf '%s\n' "$out" | head -3 | sed 's/.*"file":"\([^"]*\)".*/\1/' | tr '\n' ' ')" "d/c1.pem d/c2.pem d/c3.pem " "SIG$sig: the first three files, in name order"
    expect_eq "$(printf '%s\n' "$out" | tail -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["type"], d["interrupted"], sum(d["counts"].values()))')" "summary True 3" "SIG$sig: summary says interrupted"
done
out=$(KTRUST_SCAN_TEST_SIGNAL=2:TERM $KTRUST scan -j 1 d 2>/dev/null); rc=$?
expect_eq "$rc" 130 "text: exit 130"
expect_match "$out" "interrupted \(SIGTERM\)" "text: says interrupted"
expect_match "$out" "scanned 2 files: 2 verified, 0 skipped" "text: counts what was done"
# not interrupted: the summary says so
out=$($KTRUST scan --json -j 2 d | tail -1)
expect_match "$out" '"interrupted":false' "a full run: interrupted false"

# results in walk order whatever -j; the same lines from -j 1 and -j 4
a=$($KTRUST scan --json -j 1 d | grep -v '"summary"')
b=$($KTRUST scan --json -j 4 d | grep -v '"summary"')
expect_eq "$a" "$b" "-j 1 and -j 4: the same lines in the same order"
expect_eq "$(printf '%s\n' "$a" | sed 's/.*"file":"\([^"]*\)".*/\1/' | tr '\n' ' ')" "$(ls d/*.pem | LC_ALL=C sort | tr '\n' ' ')" "name order"
# paths are walked in the order given
out=$($KTRUST scan --json d/c5.pem d/c2.pem | grep -v summary | sed 's/.*"file":"\([^"]*\)".*/\1/' | tr '\n' ' ')
expect_eq "$out" "d/c5.pem d/c2.pem " "command-line paths keep their order"

# --list-skipped, "1 file", unreadable
out=$($KTRUST scan --list-skipped d)
expect_match "$out" "^d/notes.txt: skipped \(unknown\)$" "--list-skipped lists the text file"
expect_exit 0 "without it, no line for the skipped file" -- test -z "$($KTRUST scan d | grep notes.txt)"
out=$($KTRUST scan --json --list-skipped d | grep notes.txt)
expect_match "$out" '"verdict":null.*"skipped":true' "--json --list-skipped: an object"
out=$($KTRUST scan d/c1.pem)
expect_match "$out" "scanned 1 file: 1 verified, 0 skipped" "one file: '1 file'"
out=$($KTRUST scan --json /nonexistent 2>/dev/null); rc=$?
expect_eq "$rc" 66 "a missing path: 66"
expect_match "$(printf '%s\n' "$out" | head -1)" '^\{"file":"/nonexistent","type":null,"verdict":null,"error":"ENOENT"' "a missing path: type null, verdict null"
expect_match "$(printf '%s\n' "$out" | tail -1)" '"error":0,"unreadable":1,"skipped":0},.*"verified":0,' "a missing path is unreadable, not verified"
finish
