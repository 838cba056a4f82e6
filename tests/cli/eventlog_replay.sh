#!/bin/bash
# ktrust eventlog (issue #26): every corpus log parses, its events are the
# ones tpm2_eventlog (tpm2-tools, the oracle) sees -- same count, same PCR
# and type for each -- and every PCR of every bank replays to the value
# tpm2_eventlog computes now and to the one tpm2-tools' fixture expects
# (the .bin.yaml `pcrs:` block); the OVMF+swtpm boot log replays to the
# PCRs read from its TPM (pcrs.txt).
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v tpm2_eventlog >/dev/null || { [ -n "${CI:-}" ] && exit 1; echo "skipped: tpm2_eventlog missing"; exit 77; }
cd "$T"
L=$CORPUS/peers/tpm2-eventlogs
# the oracle's PCR block and its events as "PCR TYPE" lines
pcrs_of() { python3 -c '
import sys
on = False; bank = None
for l in sys.stdin:
    if l.startswith("pcrs:"): on = True; continue
    if not on: continue
    s = l.strip()
    if not s: continue
    if l.startswith("    "):
        i, v = s.split(":", 1); print(bank, int(i), v.strip()[2:].lower())
    else: bank = s.rstrip(":")'; }
events_of() { python3 -c '
import sys
pcr = None
for l in sys.stdin:
    s = l.strip()
    if s.startswith("PCRIndex:") or s.startswith("- PCRIndex:"): pcr = s.split(":")[1].strip()
    elif s.startswith("EventType:") and pcr is not None and not l.startswith("      "):
        print(pcr, s.split(":")[1].strip()); pcr = None'; }
mine_pcrs() { python3 -c '
import sys, json
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "pcr": print(d["bank"], d["index"], d["value"])'; }
mine_events() { python3 -c '
import sys, json
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "event": print(d["pcr"], d["event_type"])'; }

for f in "$L"/*.bin "$CORPUS/peers/ovmf-swtpm-boot/eventlog.bin"; do
    n=${f#$CORPUS/peers/}
    json=$("$KTRUST" eventlog "$f" --json 2>err); rc=$?
    expect_eq "$rc" 0 "$n: exit 0"
    tpm2_eventlog "$f" >oracle.yaml 2>/dev/null
    expect_eq "$(printf '%s\n' "$json" | mine_pcrs | sort)" "$(pcrs_of <oracle.yaml | sort)" \
        "$n: every PCR of every bank replays to tpm2_eventlog's value"
    mine=$(printf '%s\n' "$json" | mine_events)
    expect_eq "$mine" "$(events_of <oracle.yaml)" "$n: the same events (PCR, type) as tpm2_eventlog, in order"
    if [ -f "$f.yaml" ]; then
        expect_eq "$(printf '%s\n' "$json" | mine_pcrs | sort)" "$(pcrs_of <"$f.yaml" | sort)" \
            "$n: the PCRs tpm2-tools' fixture expects"
    fi
    expect_match "$(printf '%s\n' "$json" | tail -1)" '^\{"type":"summary","schema":1,"verdict":"trusted","exit":0,"counts":\{"events":[0-9]+' "$n: the summary object"
done
# the OVMF boot: PCRs read from its TPM (pcrs.txt) for every PCR the log measures
O=$CORPUS/peers/ovmf-swtpm-boot
got=$("$KTRUST" eventlog "$O/eventlog.bin" --json | mine_pcrs | sort)
want=$(while read -r b i v; do printf '%s\n' "$got" | grep -q "^$b $i " && echo "$b $i $v"; done <"$O/pcrs.txt" | sort)
expect_eq "$got" "$want" "ovmf-swtpm-boot: the replay equals the PCRs read from the TPM"
expect_eq "$(printf '%s\n' "$got" | wc -l)" 22 "ovmf-swtpm-boot: PCRs 0-9 and 14 in both banks"
# text: the decoded PCR 7 story
text=$("$KTRUST" eventlog "$O/eventlog.bin")
expect_match "$text" '#5 pcr 7 EV_EFI_VARIABLE_DRIVER_CONFIG: PK \(8be4df61-93ca-11d2-aa0d-00e098032b8c\), 1005 bytes: 1 certificate' "text: PK decoded with its signature list"
expect_match "$text" '#26 pcr 4 EV_EFI_BOOT_SERVICES_APPLICATION: PciRoot\(0x0\)/Pci\(0x2,0x0\)/' "text: the device path as text"
expect_match "$text" '#27 pcr 14 EV_IPL: "MokList"' "text: strings"
expect_match "$text" '#25 firmware: db entry \(db\): .*CN=Microsoft Corporation UEFI CA 2011' "PCR 7 explained: the db entry that verified shim"
expect_match "$text" '#31 shim: vendor certificate or MOK \(MokListRT\): CN=Debian Secure Boot CA' "PCR 7 explained: shim's vendor certificate"
expect_match "$text" '#29 shim: the SbatLevel it enforced \(SbatLevel\): sbat,1,2025021800' "PCR 7 explained: shim's SbatLevel"
# JSON: the authority objects #25 needs (Microsoft UEFI CA 2011)
auth=$("$KTRUST" eventlog "$O/eventlog.bin" --json | grep '"type":"authority"' | head -1)
expect_match "$auth" '"source":"firmware_db".*"ms_uefi_ca_2011":true.*"image":"PciRoot' "JSON: the db authority object"
expect_match "$("$KTRUST" eventlog "$O/eventlog.bin" --json | tail -1)" '"authorized_by_ms_uefi_ca_2011":1' "summary counts what the 2011 CA authorized"
# unknown events are shown raw, never dropped: a SHA-1 log with an unknown type
PYTHONPATH="$KT_SRC/tests/fixtures" python3 - <<'PY'
import efi as E
def ev(pcr, t, data): return E.tcg_event1(pcr, t, data, b"\x11" * 20)
open("odd.bin", "wb").write(ev(0, 0x8, b"v1\0") + ev(2, 0x7777, b"\xde\xad\xbe\xef"))
PY
out=$("$KTRUST" eventlog odd.bin); rc=$?
expect_eq "$rc" 0 "a SHA-1 log with an unknown event type: exit 0"
expect_match "$out" '#1 pcr 2 0x00007777: 4 bytes: deadbeef' "the unknown event is shown raw"
expect_match "$("$KTRUST" eventlog odd.bin --json | grep '"index":1')" '"event_type":"0x00007777".*"data":"deadbeef"' "JSON: raw data"
expect_eq "$(tpm2_eventlog odd.bin 2>/dev/null | grep -c 'EventType:')" 2 "tpm2_eventlog sees the same 2 events"
finish
