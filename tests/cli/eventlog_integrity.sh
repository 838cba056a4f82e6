#!/bin/bash
# The event log's own integrity: for the event types whose digest is defined
# over the event data (EV_SEPARATOR, EV_ACTION/EV_EFI_ACTION, the UEFI
# variable events; EV_NO_ACTION: zero digests), each bank's digest is
# recomputed.  The OVMF+swtpm boot's log is consistent; a copy whose db
# event data was altered (one byte of a certificate) still replays to the
# TPM's PCRs, but is reported: event number, offsets, bank, the digest
# logged and the data's hash (checked against Python's hashlib), exit 5, in
# text and JSON; eventlog --predict builds no prediction on it.  Also an
# altered separator, and a non-zero digest on the EV_NO_ACTION header.
# (ktrust used to show and explain such a log as genuine: exit 0.)
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
O=$CORPUS/peers/ovmf-swtpm-boot
EL() { "$KTRUST" eventlog "$@"; }
# the event's offset and where its data starts (JSON of the unaltered log)
ev() { EL "$O/eventlog.bin" --json | jq -r "select(.type==\"event\" and .index==$1) | .offset"; }
expect_exit 0 "the genuine log" -- EL "$O/eventlog.bin" -q
expect_eq "$(EL "$O/eventlog.bin" --json | jq -c 'select(.type=="digest_mismatch")')" "" "genuine: no mismatch"
expect_eq "$(EL "$O/eventlog.bin" --json | jq -r 'select(.type=="summary") | .counts.digests_mismatching')" 0 \
    "genuine: summary count 0"

# db (event 7): a byte of its certificate changed; the header of a crypto-agile
# event with sha1 and sha256 is 72 bytes, UEFI_VARIABLE_DATA's for "db" 36
db=$(ev 7)
expect_eq "$db" 4232 "the db event's offset"
cp "$O/eventlog.bin" db.bin; chmod u+w db.bin
flip db.bin $((db + 72 + 36 + 1000))
out=$(EL db.bin --pcrs "$O/pcrs.txt"); rc=$?
expect_eq $rc 5 "altered db event: exit 5"
expect_match "$out" "event 7 \(offset 4232, PCR 7, EV_EFI_VARIABLE_DRIVER_CONFIG\): the sha1 digest at offset 4246 is a233adbc63e3fdc5f73693a3cc4a27041714383f, its data hashes to [0-9a-f]{40}" \
    "text: event, offsets, bank, digests"
expect_match "$out" "PCR 7 .*matches|matches" "the replay still matches the TPM (the digests were not touched)"
j=$(EL db.bin --json | jq -c 'select(.type=="digest_mismatch")')
expect_eq "$(jq -c '[.event, .offset, .digest_offset, .pcr, .event_type, .bank, .rule, .logged]' <<<"$j")" \
    '[7,4232,4246,7,"EV_EFI_VARIABLE_DRIVER_CONFIG","sha1","data","a233adbc63e3fdc5f73693a3cc4a27041714383f"]' \
    "JSON: the mismatch"
want=$(python3 -c 'import hashlib,sys; b=open("db.bin","rb").read(); o=int(sys.argv[1]); n=int.from_bytes(b[o+68:o+72],"little"); print(hashlib.sha1(b[o+72:o+72+n]).hexdigest())' "$db")
expect_eq "$(jq -r .expected <<<"$j")" "$want" "the data's hash, as hashlib computes it"
expect_eq "$(EL db.bin --json | jq -r 'select(.type=="summary") | [.exit, .counts.digests_mismatching] | @tsv')" \
    "5	1" "JSON summary: exit 5, one mismatch"
# no prediction built on it
out=$(EL db.bin --predict --efivars "$O/efivars" --json 2>err.txt); rc=$?
expect_eq $rc 5 "--predict on the altered log: exit 5"
expect_eq "$(jq -c 'select(.type=="prediction")' <<<"$out")" "" "--predict: no prediction presented"
expect_match "$(cat err.txt)" "event 7 \(PCR 7\): its data does not match its sha1 digest: the log was altered, no prediction is built on it" \
    "--predict: the reason"
expect_exit 0 "--predict on the genuine log" -- EL "$O/eventlog.bin" --predict --efivars "$O/efivars" -q

# audit over a root holding the altered log: the measured-boot section says so
# and concludes nothing from it (it used to say "changed since the last boot: db")
mkdir -p r/sys/firmware/efi r/sys/kernel/security/tpm0
cp -r "$O/efivars" r/sys/firmware/efi/efivars
cp db.bin r/sys/kernel/security/tpm0/binary_bios_measurements
j=$("$KTRUST" audit --root r --kernel none --modules none --json | jq -c 'select(.section=="measured_boot")')
expect_eq "$(jq -c '[.altered, .changed_since_last_boot, .pcr7]' <<<"$j")" \
    '["event 7 (PCR 7) at offset 4232","",null]' "audit: the altered log, nothing concluded"
cp "$O/eventlog.bin" r/sys/kernel/security/tpm0/binary_bios_measurements
expect_eq "$("$KTRUST" audit --root r --kernel none --modules none --json | jq -c 'select(.section=="measured_boot") | .altered')" \
    null "audit: the genuine log is not altered"

# a separator (event 9): its 4 bytes changed
sep=$(ev 9)
cp "$O/eventlog.bin" sep.bin; chmod u+w sep.bin
flip sep.bin $((sep + 72))
expect_eq "$(EL sep.bin --json | jq -c 'select(.type=="digest_mismatch") | [.event, .event_type, .bank]')" \
    '[9,"EV_SEPARATOR","sha1"]' "an altered separator"
# EV_NO_ACTION (the Spec ID header, SHA-1 format: its digest at byte 8) must be zeros
cp "$O/eventlog.bin" hdr.bin; chmod u+w hdr.bin
flip hdr.bin 8
expect_eq "$(EL hdr.bin --json | jq -c 'select(.type=="digest_mismatch") | [.event, .rule, .expected]')" \
    '[0,"zero","0000000000000000000000000000000000000000"]' "EV_NO_ACTION with a digest"
expect_match "$(EL hdr.bin)" "must be zeros" "text: EV_NO_ACTION"
finish
