#!/bin/bash
# A store that cannot be written: read-only medium, corrupted file, foreign
# database, newer schema, full disk (a small tmpfs, else an injected failure).
# Each: a one-line error, nothing written, no crash.
source "$(dirname "$0")/../lib/common.sh"
cd "$T"
q() { "$@" >/dev/null 2>&1; }
q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout a.key -out a.pem -subj '/CN=Key A' -days 30
q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout b.key -out b.pem -subj '/CN=Key B' -days 30
cat a.pem b.pem >ab.pem
one_line() { [ "$(printf '%s\n' "$1" | wc -l)" = 1 ] && printf '%s' "$1" | grep -q '^ktrust: '; }

# corrupted: garbage bytes
head -c 8192 /dev/urandom >garbage.db
sum=$(sha256sum <garbage.db)
for cmd in "keyring list" "keyring add --keyring builtin a.pem" "keyring export --keyring builtin --format pem"; do
    out=$(KTRUST_STORE=$T/garbage.db $KTRUST $cmd 2>&1 >/dev/null); rc=$?
    expect_eq "$rc" 4 "garbage store: $cmd: exit"
    expect_match "$out" "^ktrust: $T/garbage.db: store: .*not a ktrust store or corrupted database$" "garbage store: $cmd: message"
done
expect_eq "$(sha256sum <garbage.db)" "$sum" "garbage store unchanged"
# a verifying command's loader sees the same error (x509 show needs no store: use keyring list)

# a foreign SQLite database
sqlite3 foreign.db 'create table t(x); insert into t values(1)'
out=$(KTRUST_STORE=$T/foreign.db $KTRUST keyring list 2>&1); rc=$?
expect_eq "$rc" 4 "foreign db: exit"
expect_match "$out" "not a ktrust store" "foreign db: message"

# a truncated ktrust store: first page kept, the rest cut
KTRUST_STORE=$T/trunc.db $KTRUST keyring add -q --keyring builtin ab.pem
sqlite3 trunc.db 'pragma wal_checkpoint(truncate)' >/dev/null
sqlite3 trunc.db "pragma journal_mode=delete" >/dev/null
head -c 5000 trunc.db >t2 && mv t2 trunc.db && rm -f trunc.db-wal trunc.db-shm
out=$(KTRUST_STORE=$T/trunc.db $KTRUST keyring list 2>&1); rc=$?
expect_match "$rc" "^(4|66|70)$" "truncated store: an error exit ($rc)"
expect_eq "$(one_line "$out" && echo yes)" yes "truncated store: one line: $out"

# a newer schema
KTRUST_STORE=$T/new.db $KTRUST keyring add -q --keyring builtin a.pem
sqlite3 new.db 'pragma user_version=99'
out=$(KTRUST_STORE=$T/new.db $KTRUST keyring add --keyring builtin b.pem 2>&1); rc=$?
expect_eq "$rc" 70 "newer schema: exit"
expect_match "$out" "schema version 99 is newer" "newer schema: message"
expect_eq "$(sqlite3 new.db 'select count(*) from keys')" 1 "newer schema: nothing written"

# an injected write failure half way (works without root): a test hook,
# only in the test build of the CLI ($KTRUST_HOOKS)
KTRUST_STORE=$T/inj.db $KTRUST keyring add -q --keyring builtin a.pem
out=$(KTRUST_STORE=$T/inj.db KTRUST_STORE_FAIL_AFTER=1 $KTRUST_HOOKS keyring add --keyring machine ab.pem 2>&1); rc=$?
expect_eq "$rc" 70 "injected full disk: exit"
expect_match "$out" "store: saving keys: disk full" "injected full disk: message"
expect_eq "$(sqlite3 inj.db 'select count(*) from keys; pragma integrity_check' | tr '\n' ' ')" "1 ok " "injected: nothing written"
# the release CLI (what is installed) has no hooks: the environment of a
# process cannot make its store writes fail
expect_exit 0 "release build ignores KTRUST_STORE_FAIL_AFTER" -- \
    env KTRUST_STORE=$T/inj.db KTRUST_STORE_FAIL_AFTER=1 $KTRUST keyring add -q --keyring machine ab.pem
expect_eq "$(sqlite3 inj.db 'select count(*) from keys')" 3 "release build: every key written"

# read-only medium and a real full disk: tmpfs, when we may mount
if [ "$(id -u)" = 0 ] && mkdir -p mnt && mount -t tmpfs -o size=600k tmpfs mnt 2>/dev/null; then
    trap 'umount "$T/mnt" 2>/dev/null; rm -rf "$T"' EXIT
    export KTRUST_STORE=$T/mnt/keyrings.db
    $KTRUST keyring add -q --keyring builtin a.pem
    python3 -c 'import cryptography' 2>/dev/null && python3 - <<'PY'
import datetime
from cryptography import x509
from cryptography.x509.oid import NameOID
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
key = ec.generate_private_key(ec.SECP256R1())
ca = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Bulk CA")])
t = datetime.datetime(2025, 1, 1)
with open("bulk.der", "wb") as f:
    for i in range(3000):
        subj = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bulk key %d" % i)])
        c = (x509.CertificateBuilder().subject_name(subj).issuer_name(ca).public_key(key.public_key())
             .serial_number(1000 + i).not_valid_before(t).not_valid_after(t + datetime.timedelta(days=9))
             .sign(key, hashes.SHA256()))
        f.write(c.public_bytes(serialization.Encoding.DER))
PY
    [ -f bulk.der ] || for i in $(seq 1 40); do cat ab.pem; done >bulk.der # fallback: fewer bytes
    out=$($KTRUST keyring add --keyring machine bulk.der 2>&1); rc=$?
    expect_eq "$rc" 70 "full tmpfs: exit ($out)"
    expect_match "$out" "^ktrust: $T/mnt/keyrings.db: store: .*disk full$" "full tmpfs: message"
    expect_eq "$(sqlite3 mnt/keyrings.db 'select count(*) from keys; pragma integrity_check' | tr '\n' ' ')" "1 ok " "full tmpfs: nothing lost, nothing half-written"
    expect_exit 0 "store usable after a full disk" -- $KTRUST keyring add -q --keyring builtin b.pem
    expect_eq "$(sqlite3 mnt/keyrings.db 'select count(*) from keys')" 2 "small add after full disk"
    # read-only medium: reads work, writes fail cleanly
    mount -o remount,ro mnt
    expect_exit 0 "read-only medium: list" -- $KTRUST keyring list
    expect_eq "$($KTRUST keyring list | wc -l)" 2 "read-only medium: both keys listed"
    out=$($KTRUST keyring add --keyring machine b.pem 2>&1); rc=$?
    expect_eq "$rc" 66 "read-only medium: add exit"
    expect_match "$out" "^ktrust: $T/mnt/keyrings.db: store: store is read-only$" "read-only medium: message"
    umount mnt
else
    echo "note: cannot mount a tmpfs here: real full-disk and read-only medium cases skipped (injected failure tested above)"
    if [ "$(id -u)" != 0 ]; then
        KTRUST_STORE=$T/ro.db $KTRUST keyring add -q --keyring builtin a.pem
        chmod 444 ro.db
        expect_exit 66 "read-only file: add" -- env KTRUST_STORE=$T/ro.db $KTRUST keyring add --keyring builtin b.pem
    fi
fi
finish
