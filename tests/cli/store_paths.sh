#!/bin/bash
# Store paths (issue #16 item 7): a typo in --store creates no directory
# tree; reading a store that does not exist is "no store at PATH" (66); a
# directory is "is a directory"; readers leave no -wal/-shm files; a
# load-pe-key that stores nothing creates no store; -v names the store.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/pki.sh"
cd "$T"
unset KTRUST_STORE
gen_ca ca "Paths CA"
gen_leaf signer "Paths CA" ca
gen_ca rogue "Rogue CA"
gen_leaf rsigner "Rogue CA" rogue
$KTRUST wrap-key signer.pem -o w.efi >/dev/null 2>&1
osslsign w.efi w.signed.efi signer ca
osslsign w.efi w.rogue.efi rsigner rogue
expect_exit 0 "fixtures: signed PE" -- test -s w.signed.efi

# a typo'd directory: nothing created, for writers and readers
out=$($KTRUST keyring add --store "$T/tpyo/sub/k.db" --keyring builtin ca.pem 2>&1); rc=$?
expect_eq "$rc" 66 "add into a missing directory: 66"
expect_match "$out" "^ktrust: $T/tpyo/sub/k.db: .*directory $T/tpyo/sub does not exist \(not created\)$" "add: names the missing directory"
expect_eq "$(test -e tpyo && echo created)" "" "add: no directory tree created"
for cmd in "keyring list" "keyring export --keyring builtin" "verify-pe w.signed.efi" "scan w.signed.efi"; do
    out=$($KTRUST $cmd --store "$T/none.db" 2>&1 >/dev/null); rc=$?
    expect_eq "$rc" 66 "$cmd on a missing store: 66"
    expect_match "$out" "^ktrust: no store at $T/none.db" "$cmd: 'no store at PATH'"
    expect_eq "$(test -e none.db && echo created)" "" "$cmd: creates nothing"
done
# the same through $KTRUST_STORE
out=$(KTRUST_STORE=$T/none.db $KTRUST keyring list 2>&1); rc=$?
expect_eq "$rc:$(test -e none.db && echo created)" "66:" "\$KTRUST_STORE missing: 66, nothing created"

# a directory given as the store
mkdir adir
for cmd in "keyring list" "keyring add --keyring builtin ca.pem" "verify-pe w.signed.efi"; do
    out=$($KTRUST $cmd --store "$T/adir" 2>&1 >/dev/null); rc=$?
    expect_eq "$rc" 66 "$cmd on a directory: 66"
    expect_match "$out" "^ktrust: $T/adir: is a directory" "$cmd: 'is a directory', not 'disk I/O error'"
done

# a load-pe-key that stores nothing (untrusted) creates no store
out=$($KTRUST load-pe-key --store "$T/pe.db" --trust ca.pem w.rogue.efi 2>&1); rc=$?
expect_eq "$rc" 2 "untrusted wrapper: 2"
expect_eq "$(ls pe.db* 2>/dev/null)" "" "load-pe-key storing nothing: no store file"
# one that stores something makes it, in an existing directory only
expect_exit 66 "load-pe-key into a missing directory: 66" -- $KTRUST load-pe-key --store "$T/nodir/pe.db" --trust ca.pem w.signed.efi
expect_exit 0 "trusted wrapper: stored" -- $KTRUST load-pe-key --store "$T/pe.db" --trust ca.pem w.signed.efi
expect_eq "$(sqlite3 pe.db 'select count(*) from keys')" 1 "the wrapped key is in the new store"

# readers leave no -wal/-shm; a reader never writes
$KTRUST keyring add -q --store "$T/r.db" --keyring builtin ca.pem
sum=$(sha256sum <r.db)
expect_eq "$(ls r.db* | tr '\n' ' ')" "r.db " "after a write: only the store file"
$KTRUST keyring list --store "$T/r.db" >/dev/null
$KTRUST keyring export --store "$T/r.db" --keyring builtin >/dev/null
$KTRUST verify-pe --store "$T/r.db" w.signed.efi >/dev/null
$KTRUST scan -q --store "$T/r.db" w.signed.efi >/dev/null
expect_eq "$(ls r.db* | tr '\n' ' ')" "r.db " "after readers: no -wal/-shm"
expect_eq "$(sha256sum <r.db)" "$sum" "readers did not change the store"
# a reader of a read-only store file still works
chmod 444 r.db
expect_exit 0 "read-only store file: verify-pe reads it" -- $KTRUST verify-pe --store "$T/r.db" w.signed.efi
chmod 644 r.db

# -v says which store
out=$($KTRUST verify-pe -v --store "$T/r.db" w.signed.efi 2>&1 >/dev/null)
expect_match "$out" "^ktrust: store: $T/r.db \(read, 1 key\)$" "-v: the store read and its size"
out=$($KTRUST verify-pe -v --trust ca.pem w.signed.efi 2>&1 >/dev/null)
expect_match "$out" "^ktrust: store: none" "-v with --trust only: no store"
out=$(HOME=$T/home XDG_DATA_HOME= $KTRUST verify-pe -v w.signed.efi 2>&1 >/dev/null)
expect_match "$out" "^ktrust: store: $T/home/.local/share/ktrust/keyrings.db \(does not exist" "-v: the default store, missing"
out=$($KTRUST keyring list -v --store "$T/r.db" 2>&1 >/dev/null)
expect_match "$out" "^ktrust: store: $T/r.db \(read, 1 key\)$" "keyring list -v"
# the default store (and only it) gets its directories
HOME=$T/home XDG_DATA_HOME= $KTRUST keyring add -q --keyring builtin ca.pem
expect_exit 0 "the default store is created with its directories" -- test -f "$T/home/.local/share/ktrust/keyrings.db"
finish
