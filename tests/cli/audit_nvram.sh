#!/bin/bash
# audit's NVRAM section (issue #35): the store's numbers saved beside a
# root's efivars, the Secure Boot variables' sizes as EDK2 counts them
# (60-byte header, UTF-16 name, data), and an --apply update the firmware
# would refuse (over the per-variable limit, or no room for its new copy) is
# not applied: the variables stay as they were and the verdict is refused
# (6); under the limit it applies, with the size --write-efivars agrees on.
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
Q=$CORPUS/peers/ovmf-swtpm-boot/efivars
DBX=$CORPUS/peers/secureboot-objects/tree/PostSignedObjects/DBX/amd64/DBXUpdate.bin
A() { "$KTRUST" audit --root root "$@"; }
mkdir -p root/sys/firmware/efi up
cp -r "$Q" root/sys/firmware/efi/efivars
printf 'storage_space 262144\nremaining_space 50000\n' > root/sys/firmware/efi/efivarfs-statfs
cp "$DBX" up/
"$KTRUST" plan-updates --efivars "$Q" -q --write-efivars after up
want=$(( $(stat -c %s after/dbx-*) - 4 + 60 + 8 ))
dbx0=$(( $(stat -c %s "$Q"/dbx-*) - 4 + 60 + 8 ))

A --json > plain.json
expect_eq "$(jq -c 'select(.section=="nvram") | .limits | [.max_var_size, .store_size, .store_free, .source]' plain.json)" \
    '[null,262144,50000,"saved statfs"]' "the saved numbers; no per-variable limit invented"
expect_eq "$(jq -r 'select(.section=="nvram") | .variables[] | select(.fit.variable=="dbx") | .fit.after' plain.json)" \
    "$dbx0" "dbx's size: header, name, data"

expect_exit 6 "an --apply write over the per-variable limit is refused" -- \
    A --apply "$DBX" --max-var-size $((want - 1)) -q
A --apply "$DBX" --max-var-size $((want - 1)) > big.txt
expect_match "$(cat big.txt)" "not applied: does not fit: this dbx would be $(commas $want) bytes; this firmware takes at most $(commas $((want - 1))) per variable" \
    "the refusal, with the numbers"
expect_eq "$(A --apply "$DBX" --max-var-size $((want - 1)) --json | jq -r 'select(.section=="nvram") | .variables[] | select(.fit.variable=="dbx") | "\(.changed) \(.fit.after)"')" \
    "false $dbx0" "dbx stays as it was"
# (the root holds variables only: audit's verdict is "cannot answer" for the
# missing boot chain, #36; the write itself is what is judged here)
expect_eq "$(A --apply "$DBX" --max-var-size $want --json 2>/dev/null | jq -r 'select(.type=="apply") | .applied')" \
    true "at the limit it applies"
A --apply "$DBX" --max-var-size $want --json > ok.json
expect_eq "$(jq -r 'select(.section=="nvram") | .variables[] | select(.changed) | "\(.fit.variable) \(.fit.before) \(.fit.after) \(.fit.too_big) \(.fit.no_room)"' ok.json)" \
    "dbx $dbx0 $want false false" "the write: before, after, fits, room"
expect_eq "$(jq -r 'select(.section=="nvram") | .limits.store_free_after' ok.json)" "$((50000 - want + dbx0))" \
    "the free space after it"
expect_exit 6 "no room for the new copy" -- A --apply "$DBX" --var-store-free $((want - 1)) -q
finish
