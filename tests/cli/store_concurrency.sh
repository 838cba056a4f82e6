#!/bin/bash
# Several processes adding at once (and one creating the store): all succeed,
# nothing is lost.
source "$(dirname "$0")/../lib/common.sh"
need_python_cryptography
cd "$T"
W=6
for w in $(seq 1 $W); do "$PY" "$KT_SRC/tests/fixtures/gen_bulk_certs.py" 150 w$w.der w$w $((w * 100000)); done
mkdir db
export KTRUST_STORE=$T/db/keyrings.db   # does not exist yet: the writers race to create it
pids=()
for w in $(seq 1 $W); do
    ( for part in 1 2; do $KTRUST keyring add -q --keyring machine w$w.der 2>>err$w || exit 1; done ) &
    pids+=($!)
done
# a reader at the same time must never fail
# (before the first writer made it, "no store at" with 66 is the right answer)
lister() { local rc; $KTRUST keyring list >/dev/null 2>>"$1"; rc=$?; [ $rc = 0 ] || { [ $rc = 66 ] && tail -1 "$1" | grep -q '^ktrust: no store at '; }; }
( for i in 1 2 3 4 5; do lister err_r || exit 1; done ) &
reader=$!
for p in "${pids[@]}"; do
    wait $p
    expect_eq "$?" 0 "writer $p succeeded"
done
wait $reader
expect_eq "$?" 0 "concurrent reader succeeded"
expect_eq "$(sqlite3 "$KTRUST_STORE" 'select count(*) from keys')" $((W * 150)) "nothing lost"
expect_eq "$(sqlite3 "$KTRUST_STORE" 'select count(distinct sha256) from keys')" $((W * 150)) "no duplicates"
expect_eq "$(sqlite3 "$KTRUST_STORE" 'pragma integrity_check')" ok "integrity"
# concurrent keyring creation + adds to it
pids=()
for w in 1 2 3; do
    ( $KTRUST keyring create -q u$w --restrict none 2>>errc$w && $KTRUST keyring add -q --keyring u$w w$w.der 2>>errc$w ) &
    pids+=($!)
done
for p in "${pids[@]}"; do wait $p; expect_eq "$?" 0 "create+add $p"; done
expect_eq "$(sqlite3 "$KTRUST_STORE" "select count(*) from keys where keyring like 'u%'")" 450 "user keyrings filled"
# the race to create a new store: writers and readers start together on a
# path that does not exist yet (this once lost to "PRAGMA journal_mode" and
# to a reader seeing a half-made schema)
"$PY" "$KT_SRC/tests/fixtures/gen_bulk_certs.py" 1 one.der one 1
fails=0
for it in $(seq 1 8); do
    mkdir race$it
    export KTRUST_STORE=$T/race$it/k.db
    pids=()
    for w in 1 2 3 4; do ( $KTRUST keyring add -q --keyring builtin one.der 2>>err_race ) & pids+=($!); done
    for w in 1 2; do ( lister err_race$it.$w ) & pids+=($!); done
    for p in "${pids[@]}"; do wait $p || fails=$((fails + 1)); done
    [ "$(sqlite3 "$KTRUST_STORE" 'select count(*) from keys')" = 1 ] || fails=$((fails + 1))
done
expect_eq "$fails" 0 "racing to create the store: every process succeeds"
cat err* 2>/dev/null | head -20 >&2
finish
