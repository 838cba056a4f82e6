#!/bin/bash
# Crash safety: kill -9 a `keyring add` of 3,000 certificates at random
# points, many times; every run must leave the store passing
# PRAGMA integrity_check with either all of them or none.
source "$(dirname "$0")/../lib/common.sh"
need_python_cryptography
cd "$T"
"$PY" "$KT_SRC/tests/fixtures/gen_bulk_certs.py" 3000 bulk.der bulk 1000
"$PY" "$KT_SRC/tests/fixtures/gen_bulk_certs.py" 1 seed.der seed 1
# the seed store: one key, so the database exists before every run
KTRUST_STORE=$T/seed.db $KTRUST keyring add -q --keyring builtin seed.der
expect_eq "$(sqlite3 seed.db 'select count(*) from keys')" 1 "seed store"

# how long does a full add take here (ASan builds are slower)?
cp seed.db full.db
start=$(date +%s%N)
KTRUST_STORE=$T/full.db $KTRUST keyring add -q --keyring machine bulk.der
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "$(sqlite3 full.db 'select count(*) from keys')" 3001 "an uninterrupted add stores all 3000"

# Parsing the certificates takes most of an add; the writes and the commit
# come at its end.  Odd runs kill anywhere in [0, 1.1 x duration], even runs
# in the last part [0.7, 1.1 x duration] where the transaction is written.
RUNS=${KT_CRASH_RUNS:-6}
none=0 all=0
for i in $(seq 1 $RUNS); do
    rm -f run.db run.db-wal run.db-shm
    cp seed.db run.db
    KTRUST_STORE=$T/run.db $KTRUST keyring add -q --keyring machine bulk.der &
    pid=$!
    if [ $((i % 2)) = 1 ]; then
        delay=$(( RANDOM * 32768 + RANDOM ))
        delay=$(( delay % (ms * 11 / 10 + 1) ))
    else
        delay=$(( RANDOM * 32768 + RANDOM ))
        delay=$(( ms * 7 / 10 + delay % (ms * 4 / 10 + 1) ))
    fi
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    ic=$(sqlite3 run.db 'pragma integrity_check')
    n=$(sqlite3 run.db 'select count(*) from keys')
    expect_eq "$ic" ok "run $i (killed after ${delay}ms): integrity_check"
    case $n in
    1) none=$((none + 1)); ok ;;
    3001) all=$((all + 1)); ok ;;
    *) bad "run $i (killed after ${delay}ms): $n keys, want 1 or 3001" ;;
    esac
    # the store still works after the crash
    if [ $i = 1 ]; then
        expect_exit 0 "store usable after kill -9" -- env KTRUST_STORE=$T/run.db $KTRUST keyring add -q --keyring machine bulk.der
        expect_eq "$(sqlite3 run.db 'select count(*) from keys')" 3001 "complete after re-run"
    fi
done
# Kills certainly inside the write transaction: a test hook (only in
# $KTRUST_HOOKS, the test build of the CLI) sleeps 2 ms
# after each insert (about 6 s of writing), and we kill early in it, once
# the WAL holds 100 kB: seconds before the commit, however loaded the
# machine (with 150us, 0.45 s in all, a slow poll could miss the window).
mid=0
for i in $(seq 1 $((RUNS / 2))); do
    rm -f run.db run.db-wal run.db-shm
    cp seed.db run.db
    KTRUST_STORE=$T/run.db KTRUST_STORE_INSERT_DELAY_US=2000 $KTRUST_HOOKS keyring add -q --keyring machine bulk.der &
    pid=$!
    # wait until the transaction has written something (the WAL grows):
    # however long the parse before it takes (an ASan build on a loaded
    # machine), while the add runs; 400 polls were 4 s plus the forks
    for w in $(seq 1 12000); do
        [ "$(stat -c %s run.db-wal 2>/dev/null || echo 0)" -gt 100000 ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.01
    done
    sleep "0.0$((RANDOM % 10))"
    wal=$(stat -c %s run.db-wal 2>/dev/null || echo 0)
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    expect_eq "$(sqlite3 run.db 'pragma integrity_check')" ok "mid-write run $i: integrity_check"
    n=$(sqlite3 run.db 'select count(*) from keys')
    expect_eq "$n" 1 "mid-write run $i: killed while writing leaves none"
    [ "$n" = 1 ] && [ "$wal" -gt 100000 ] && mid=$((mid + 1))
done
[ "$mid" -gt 0 ] && ok || bad "no run was killed with uncommitted frames in the WAL"
echo "crash runs: $RUNS (full add ${ms}ms): $none left none, $all left all; $mid killed mid-write left none"
finish
