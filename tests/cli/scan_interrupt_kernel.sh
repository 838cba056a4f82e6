#!/bin/bash
# Ctrl-C while scan --kernel is still decoding the kernel image (issue #27
# item 8): exit 130 and the same interrupted summary as a later interrupt,
# never death by the signal and no output.  The signal is raised by a test
# hook ($KTRUST_TEST_DECODE_SIGNAL, compiled only into $KTRUST_HOOKS) at the
# start of the decode, before the kernel's keys are in: with -j 1 the decode
# runs before the walk, with -j 2 on a thread of its own beside it.  No
# timing: the signal lands at that point in every run.
. "$(dirname "$0")/../lib/common.sh"
corpus
V=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
TR=$CORPUS/trust/microsoft-uefi-ca-2011.pem
unset KTRUST_STORE
mkdir "$T/mods"
cp "$CORPUS"/debian/modules/*.ko "$T/mods/"
n_mods=$(ls "$T/mods" | wc -l)
# the summary's fields, checked the same way for every run
summary() { python3 -c '
import sys, json
rows = [json.loads(l) for l in sys.stdin]
s = rows[-1]
c = s["counts"]
ok = (s["type"] == "summary" and
      all(k in s for k in ("verdict", "exit", "counts", "interrupted")) and
      sum(v for k, v in c.items()) == len(rows) - 1 and
      all(r.get("type") for r in rows))
print(s["interrupted"], s["exit"], ok)'; }

for sig in INT TERM; do
    for j in 1 2; do
        out=$(KTRUST_TEST_DECODE_SIGNAL=$sig $KTRUST_HOOKS scan --json -j $j --trust "$TR" \
              --kernel "$V" "$T/mods" 2>"$T/err"); rc=$?
        expect_eq "$rc" 130 "SIG$sig during the decode, -j $j: exit 130"
        expect_eq "$(printf '%s\n' "$out" | summary)" "True 130 True" \
            "SIG$sig during the decode, -j $j: the interrupted summary ends the output, its counts add up"
        expect_eq "$(cat "$T/err")" "" "SIG$sig during the decode, -j $j: no error line"
    done
done
# -j 1 decodes before the walk: the walk never starts, nothing is verified
out=$(KTRUST_TEST_DECODE_SIGNAL=INT $KTRUST_HOOKS scan --json -j 1 --trust "$TR" --kernel "$V" "$T/mods")
expect_eq "$(printf '%s\n' "$out" | wc -l):$(printf '%s\n' "$out" | tail -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(sum(d["counts"].values()), d["verdict"])')" \
    "1:0 None" "-j 1: the summary alone, 0 files, verdict null"
# text output: says interrupted, exit 130
out=$(KTRUST_TEST_DECODE_SIGNAL=INT $KTRUST_HOOKS scan -j 2 --trust "$TR" --kernel "$V" "$T/mods" 2>/dev/null); rc=$?
expect_eq "$rc" 130 "text: exit 130"
expect_match "$out" "interrupted \(SIGINT\)" "text: says interrupted"
# without the signal the same run verifies every module (the hook is all that differs)
out=$($KTRUST_HOOKS scan --json -j 2 --trust "$TR" --kernel "$V" "$T/mods")
expect_eq "$(printf '%s\n' "$out" | tail -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["interrupted"], d["counts"]["trusted"])')" \
    "False $n_mods" "no signal: every module trusted, not interrupted"
# the installed program has no such hook: the variable changes nothing
out=$(KTRUST_TEST_DECODE_SIGNAL=INT $KTRUST scan --json -j 1 --trust "$TR" --kernel "$V" "$T/mods"); rc=$?
expect_eq "$rc:$(printf '%s\n' "$out" | tail -1 | python3 -c 'import sys,json; print(json.load(sys.stdin)["interrupted"])')" \
    "0:False" "\$KTRUST ignores the hook's variable"
finish
