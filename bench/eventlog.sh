#!/usr/bin/env bash
# bench/eventlog.sh K CORPUS RUNS: the event-log section of bench/results.md
# (called by bench/run.sh; runs alone too): parse + replay (+ decode, PCR 7
# explained) of a ~33 KB real log, against tpm2_eventlog on the same file and
# ktrust's start-up alone.
set -u
K=$1 C=$2 RUNS=${3:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
LOG=$C/peers/tpm2-eventlogs/event-gce-ubuntu-2104-log.bin
best() { python3 "$SRC/bench/best_of.py" "$RUNS" -- "$@"; }
T_EV=$(best "$K" eventlog -q "$LOG")
T_JSON=$(best "$K" eventlog --json "$LOG")
T_VER=$(best "$K" --version)
T_TPM=$(command -v tpm2_eventlog >/dev/null && best tpm2_eventlog "$LOG" || echo "")
echo "## Event log: parse and replay"
echo
echo "$(basename "$LOG"): $(( $(stat -c %s "$LOG") / 1024 )) KiB, $("$K" eventlog --json "$LOG" | head -1 | python3 -c 'import sys,json; d=json.load(sys.stdin); print(d["events"], "events,", len(d["banks"]), "banks")'). Best of $RUNS runs, whole processes."
echo
echo "| run | seconds |"
echo "| --- | --- |"
echo "| \`ktrust eventlog -q\` (parse, replay 3 banks, PCR 7 explained) | $T_EV |"
echo "| \`ktrust eventlog --json\` (every event decoded and printed) | $T_JSON |"
echo "| \`ktrust --version\` (start-up alone) | $T_VER |"
[ -n "$T_TPM" ] && echo "| \`tpm2_eventlog\` (parse, print, replay) | $T_TPM |"
echo
echo "Parse + replay + explanation beyond start-up: $(printf '%.4f' "$(echo "$T_EV - $T_VER" | bc -l)") s (the bar: a few milliseconds)."
echo
