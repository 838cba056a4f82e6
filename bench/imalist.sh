#!/usr/bin/env bash
# bench/imalist.sh K RUNS [PAIRS]: the IMA measurement list section of
# bench/results.md (called by bench/run.sh; runs alone too): `ktrust
# ima-list` replaying a 100,000-entry ima-sig list (tests/fixtures/imalist.py:
# every tenth file signed by a key .ima lacks, a violation) in sha1 and
# sha256 against the TPM's PCR 10, next to the SHA-256 floor of its bytes
# (`openssl dgst -sha256` of the same file), whole processes in alternated
# pairs (bench/pairs.py); the ASCII form too.
set -u
K=$1 RUNS=${2:-10} PAIRS=${3:-10}
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/kt-bench-ima.XXXXXX")
trap 'rm -rf "$W"' EXIT
unset KTRUST_STORE
export XDG_DATA_HOME=$W # the default store, missing: empty keyrings, an empty .ima
N=100000
python3 "$SRC/tests/fixtures/imalist.py" --entries $N --signed-every 10 --violation-at 500 \
    --binary "$W/list.bin" --ascii "$W/list.txt" --pcrs "$W/pcrs.txt"
"$K" ima-list -q "$W/list.bin" --pcrs "$W/pcrs.txt" >/dev/null 2>&1 ||
    { echo "ima-list does not replay the generated list: exit $?" >&2; exit 1; }
best() { python3 "$SRC/bench/best_of.py" "$RUNS" -- "$@"; }
read -r KB KM DB DM RB RM KC DC RC < <(python3 "$SRC/bench/pairs.py" "$PAIRS" -- \
    "$K" ima-list -q "$W/list.bin" --pcrs "$W/pcrs.txt" -- openssl dgst -sha256 "$W/list.bin")
T_ASCII=$(best "$K" ima-list -q "$W/list.txt" --pcrs "$W/pcrs.txt")
T_VER=$(best "$K" --version)
echo "## IMA measurement list: replay PCR 10"
echo
echo "A $N-entry ima-sig list from tests/fixtures/imalist.py: $(( $(stat -c %s "$W/list.bin") / 1024 )) KiB binary, $(( $(stat -c %s "$W/list.txt") / 1024 )) KiB ASCII; every entry's data checked against its SHA-1 digest, PCR 10 replayed in sha1 and sha256 (a SHA-256 of each entry's template data) and compared with the TPM's, every tenth entry's signature looked up in .ima. Whole processes, $PAIRS alternated pairs (bench/pairs.py) against \`openssl dgst -sha256\` of the same bytes, the floor of any replay that reads them."
echo
echo "| run | best s | median s | CPU s |"
echo "| --- | --- | --- | --- |"
echo "| \`ktrust ima-list -q LIST --pcrs FILE\` (binary) | $KB | $KM | $KC |"
echo "| \`openssl dgst -sha256 LIST\` (the floor) | $DB | $DM | $DC |"
echo "| \`ktrust ima-list -q\` of the ASCII form (best of $RUNS) | $T_ASCII | | |"
echo "| \`ktrust --version\` (start-up alone, best of $RUNS) | $T_VER | | |"
echo
echo "ima-list / floor: $RB× (best), $RM× (median of pairs), $RC× (CPU)."
echo
