#!/usr/bin/env bash
# bench/sealed.sh K CORPUS RUNS: the sealed-secrets section of bench/results.md
# (called by bench/run.sh; runs alone too): plan-updates on the corpus's
# OVMF+swtpm machine with 5 of Microsoft's signed updates (5 steps, PCR 7
# predicted after each), alone and with 8 TPM-sealed tokens checked against
# every step (--luks: systemd-cryptenroll token JSON, PCR 7 and PCRs 4+7).
# The bar: the tokens cost milliseconds beyond the plan itself (one
# prediction per state serves both), a ratio near 1.
set -u
K=$1 C=$2 RUNS=${3:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
O=$C/peers/ovmf-swtpm-boot
S=$C/peers/secureboot-objects
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
best() { python3 "$SRC/bench/best_of.py" "$RUNS" -- "$@"; }
UPD=("$S/DB/DBUpdate2024-amd64.bin" "$S/DBX/DBXUpdate-amd64.bin" "$S/DBX/DBXUpdate-x86.bin"
     "$S/DBX/DBXUpdate2024.bin" "$S/DBX/DBXUpdateSVN.bin")
LUKS=()
for i in $(seq 1 8); do
    pcrs=$([ $((i % 2)) = 0 ] && echo '[4,7]' || echo '[7]')
    printf '{"type":"systemd-tpm2","keyslots":["%d"],"tpm2-pcrs":%s,"tpm2-pcr-bank":"sha256","tpm2-policy-hash":"%064x","tpm2-pin":false}\n' \
        "$i" "$pcrs" "$i" >"$T/token$i.json"
    LUKS+=(--luks "$T/token$i.json")
done
PLAN=("$K" plan-updates --efivars "$O/efivars" --eventlog "$O/eventlog.bin" -q "${UPD[@]}")
steps=$("${PLAN[@]:0:6}" --json "${UPD[@]}" | python3 -c 'import sys, json
for d in map(json.loads, sys.stdin):
    if d["type"] == "plan": print(len(d["steps"]))')
checked=$("${PLAN[@]:0:6}" "${LUKS[@]}" --json "${UPD[@]}" | python3 -c 'import sys, json
for d in map(json.loads, sys.stdin):
    if d["type"] == "plan": print(sum(len(s["after"]["sealed"]) for s in d["steps"]))')
T_PLAN=$(best "${PLAN[@]}")
T_SEAL=$(best "${PLAN[@]}" "${LUKS[@]}")
echo "## Sealed secrets: 8 tokens against a plan of $steps steps"
echo
echo "plan-updates on the corpus's OVMF+swtpm machine ($steps steps, PCR 7 predicted after each), then with 8 sealed tokens (--luks, token JSON; $checked verdicts). Best of $RUNS runs, whole processes."
echo
echo "| run | seconds |"
echo "| --- | --- |"
echo "| \`plan-updates\` ($steps steps) | $T_PLAN |"
echo "| \`plan-updates --luks\` x8 | $T_SEAL |"
echo
echo "The tokens beyond the plan: $(printf '%.4f' "$(echo "$T_SEAL - $T_PLAN" | bc -l)") s, ratio $(printf '%.2f' "$(echo "$T_SEAL / $T_PLAN" | bc -l)") (the bar: milliseconds, a ratio near 1)."
echo
