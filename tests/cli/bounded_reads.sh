#!/bin/bash
# Reads are bounded (issue #27 item 5): a device, FIFO or pipe is read to at
# most KT_FILE_STREAM_MAX (32 MiB) and then refused with one line and exit 66,
# so /dev/zero or an endless writer costs well under 64 MiB and ends at once
# (`timeout` below is only a guard against a hang, not a measurement).  Before:
# 4 GiB read into memory (peak 4.2 GB) before the refusal.
source "$(dirname "$0")/../lib/common.sh"
cd "$T"
TIME=/usr/bin/time
[ -x "$TIME" ] || TIME=
# under ASan (make asan-check) the shadow memory needs terabytes of address
# space and inflates RSS: the refusal is checked, the memory bound is not
VLIMIT=1048576
if objdump -p "$KTRUST" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    TIME= VLIMIT=unlimited
    echo "sanitizer build: the 64 MiB peak and the address-space limit are not checked"
fi

# run_bounded NAME CMD...: exit 66, the one-line refusal, peak RSS < 64 MiB
run_bounded() {
    local name=$1
    shift
    local rc peak
    if [ -n "$TIME" ]; then
        (ulimit -v $VLIMIT; timeout 60 "$TIME" -o "$T/peak" -f %M "$@") >"$T/out" 2>"$T/err"
    else
        (ulimit -v $VLIMIT; timeout 60 "$@") >"$T/out" 2>"$T/err"
    fi
    rc=$?
    expect_eq "$rc" 66 "$name: exit"
    # one line about the input (load-pe-key adds "nothing stored")
    expect_eq "$(grep -cv 'nothing stored' "$T/err")" 1 "$name: one line on stderr"
    expect_match "$(head -1 "$T/err")" "^ktrust: .*: a (character device|pipe or FIFO) giving more than 32 MiB, the most ktrust reads from a stream; give a regular file \(at offset 33554432\)$" "$name: the message"
    if [ -n "$TIME" ]; then
        peak=$(tail -1 "$T/peak")
        [ "$peak" -lt 65536 ] && ok || bad "$name: peak RSS $peak KiB, want < 65536"
    fi
}

for c in "verify-pe" "verify-module" "verify-pkcs7" "x509 show" "kernel-keys" "esl show" \
    "sbat show" "verify-var --var db" "load-pe-key" "check-update --dbx" "audit --dbx"; do
    # shellcheck disable=SC2086
    run_bounded "$c /dev/zero" $KTRUST $c /dev/zero
done
run_bounded "wrap-key /dev/zero" $KTRUST wrap-key /dev/zero -o w.efi
[ -e w.efi ] && bad "wrap-key: no output written" || ok
run_bounded "chain --db /dev/zero" $KTRUST chain --db /dev/zero a b c
run_bounded "verify-pe - from a pipe" bash -c "$KTRUST verify-pe - </dev/zero"

# a FIFO with an endless writer: refused, not a hang
mkfifo fifo
for c in verify-module verify-pe; do
    cat /dev/zero >fifo 2>/dev/null &
    w=$!
    run_bounded "$c FIFO" $KTRUST $c fifo
    kill "$w" 2>/dev/null
    wait "$w" 2>/dev/null
done

# exactly 32 MiB from a pipe is read whole (the limit is "more than")
out=$(head -c 33554432 /dev/zero | $KTRUST verify-module - 2>&1)
expect_eq "$?" 1 "32 MiB from a pipe: read, then unsigned"
finish
