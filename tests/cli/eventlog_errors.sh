#!/bin/bash
# ktrust eventlog (issue #26): a malformed log is one error line with the
# byte offset and exit 4 -- truncated anywhere, an event size past the end, a
# digest of a bank the Spec ID event does not list, a bad Spec ID event, a PCR
# index over 23 -- never a crash or a silent pass; a missing log exits 66;
# options that need --predict, a bad --predict-format, two logs exit 64.
. "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T"
LOG=$CORPUS/peers/ovmf-swtpm-boot/eventlog.bin
# truncated inside event 5 (it starts at 512 and holds 1041 bytes of data)
head -c 1000 "$LOG" >cut.bin
out=$("$KTRUST" eventlog cut.bin 2>&1 >/dev/null); rc=$?
expect_eq "$rc" 4 "truncated: exit 4"
expect_eq "$out" "ktrust: cut.bin: event 5: data size 1041 runs past the end (484 bytes left) (at offset 512)" "truncated: one line, the event and its offset"
# every cut is an error with an offset or a whole log (at an event boundary), never a crash
bad_cuts=0
for n in $(seq 1 37 15065); do
    head -c "$n" "$LOG" >c.bin
    "$KTRUST" eventlog c.bin >/dev/null 2>e.txt; rc=$?
    if [ "$rc" = 4 ]; then grep -Eq '^ktrust: c.bin: .*\(at offset [0-9]+\)$' e.txt || bad_cuts=$((bad_cuts + 1))
    elif [ "$rc" != 0 ]; then bad_cuts=$((bad_cuts + 1)); fi
done
expect_eq "$bad_cuts" 0 "every truncation: exit 4 with an offset (or 0 at an event boundary)"
PYTHONPATH="$KT_SRC/tests/fixtures" python3 - <<'PY'
import struct
import efi as E
def ev2(pcr, t, digs, data): return E.tcg_event2(pcr, t, data, digs)
hdr = E.tcg_specid([(0x0b, 32)])
open("alg.bin", "wb").write(hdr + ev2(0, 8, [(0x04, b"\1" * 20)], b"x"))          # sha1 not listed
open("pcr.bin", "wb").write(hdr + ev2(30, 8, [(0x0b, b"\1" * 32)], b"x"))         # PCR 30
open("nalg.bin", "wb").write(E.tcg_specid([]))                                     # no algorithms
open("size.bin", "wb").write(hdr + ev2(0, 8, [(0x0b, b"\1" * 32)], b"")[:-4] + struct.pack("<I", 99999))
open("empty.bin", "wb").write(b"")
# an authority event whose UEFI_VARIABLE_DATA lies about its name length
bad = b"\0" * 16 + struct.pack("<QQ", 1000, 0)
open("var.bin", "wb").write(hdr + ev2(7, 0x800000e0, [(0x0b, b"\1" * 32)], bad))
PY
expect_eq "$("$KTRUST" eventlog alg.bin 2>&1 >/dev/null)" "ktrust: alg.bin: event 1: digest algorithm 0x0004 not listed by the Spec ID event (at offset 77)" "a bank not in the Spec ID event"
expect_exit 4 "a bank not in the Spec ID event: exit 4" -- "$KTRUST" eventlog alg.bin
expect_eq "$("$KTRUST" eventlog pcr.bin 2>&1 >/dev/null)" "ktrust: pcr.bin: event 1: PCR index 30 out of range (0-23) (at offset 65)" "a PCR index over 23"
expect_match "$("$KTRUST" eventlog nalg.bin 2>&1 >/dev/null)" '^ktrust: nalg.bin: Spec ID event: 0 algorithms \(1-8 expected\) \(at offset [0-9]+\)$' "a Spec ID event without banks"
expect_match "$("$KTRUST" eventlog size.bin 2>&1 >/dev/null)" '^ktrust: size.bin: event 1: data size 99999 runs past the end \(0 bytes left\) \(at offset [0-9]+\)$' "an event size past the end"
expect_match "$("$KTRUST" eventlog empty.bin 2>&1 >/dev/null)" '^ktrust: empty.bin: empty event log \(at offset 0\)$' "an empty file"
expect_exit 4 "an empty file: exit 4" -- "$KTRUST" eventlog empty.bin
out=$("$KTRUST" eventlog var.bin 2>&1); rc=$?
expect_eq "$rc" 4 "an authority event that is no UEFI_VARIABLE_DATA: exit 4"
expect_match "$out" 'ktrust: PCR 7: event 1: UnicodeNameLength 1000 runs past the event data \(at offset [0-9]+\)' "named with its offset"
expect_match "$out" 'undecodable UEFI_VARIABLE_DATA' "the event itself is still shown"
expect_exit 4 "--predict on it: exit 4" -- "$KTRUST" eventlog var.bin --predict
# unreadable, usage
expect_exit 66 "a missing log: exit 66" -- "$KTRUST" eventlog nothere.bin
expect_match "$("$KTRUST" eventlog --json nothere.bin 2>/dev/null)" '^\{"type":"summary","schema":1,"verdict":null,"exit":66,.*"error":"nothere.bin: cannot open' "a missing log: the JSON summary says 66, and why"
expect_exit 64 "--apply without --predict" -- "$KTRUST" eventlog "$LOG" --apply x.auth
expect_exit 64 "--sbat-level without --predict" -- "$KTRUST" eventlog "$LOG" --sbat-level latest
expect_exit 64 "a bad --predict-format" -- "$KTRUST" eventlog "$LOG" --predict --predict-format toml
expect_exit 64 "two logs" -- "$KTRUST" eventlog "$LOG" "$LOG"
expect_exit 64 "--apply without --efivars" -- "$KTRUST" eventlog "$LOG" --predict --apply x.auth --root "$T/none"
expect_exit 66 "--efivars that is not there" -- "$KTRUST" eventlog "$LOG" --efivars "$T/none"
finish
