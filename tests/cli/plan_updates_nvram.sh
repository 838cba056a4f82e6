#!/bin/bash
# plan-updates: does each step's write fit in the firmware's NVRAM (issue
# #35).  EDK2 refuses an authenticated variable whose header (60 bytes),
# UTF-16 name and data pass PcdMaxAuthVariableSize, and a write needs room
# for a new copy of the whole variable.  On the QEMU store with Microsoft's
# tree: the variable's size after each step is the size of what the plan
# writes with --write-efivars (the data after the firmware's duplicate
# filtering) plus header and name; a per-variable limit under the amd64 dbx
# refuses that step with the numbers and the way out (exit 5) and the rest
# of the plan goes on; a store without room refuses it too; unknown limits
# are said to be unknown; the store's numbers saved beside a root's efivars
# (audit --save-root keeps them) are read back; shim's runtime mirrors
# (MokListRT...) are counted against the free space after the plan.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/plan.sh"
plan_setup
DBX=$TREE/PostSignedObjects/DBX/amd64/DBXUpdate.bin
mkdir up && cp "$DBX" up/

# the size after the step: the dbx the plan writes, header and name added
P --efivars "$Q" -q --write-efivars after up
want=$(( $(stat -c %s after/dbx-*) - 4 + 60 + 8 ))
P --efivars "$Q" --json up > unknown.json
expect_eq "$(jq -r 'select(.type=="update") | .nvram | "\(.variable) \(.after) \(.write)"' unknown.json)" "dbx $want $want" \
    "the dbx after the step: its data after duplicate filtering, 60-byte header, UTF-16 name"
expect_eq "$(jq -c 'select(.type=="update") | .nvram | [.too_big, .no_room]' unknown.json)" '[null,null]' \
    "no limit known: neither is guessed"
expect_eq "$(jq -c 'select(.type=="plan") | .nvram_limits | [.max_var_size, .store_free, .source]' unknown.json)" \
    '[null,null,null]' "the plan's limits: unknown"
expect_match "$(P --efivars "$Q" up)" 'per-variable limit unknown.*free space unknown' "text: unknown, said plainly"
txt=$(P --efivars "$Q" --esp esp "$TREE")
expect_eq "$(grep -c 'limit unknown' <<<"$txt") $(grep -c 'free space unknown' <<<"$txt")" "1 1" \
    "text: the unknown limits said once, not at every step"
expect_eq "$(grep -c '^  nvram: ' <<<"$txt")" 4 "text: each of the 4 steps still has its sizes"

# a per-variable limit one byte under it: refused, with the numbers and the way out
lim=$((want - 1))
expect_exit 5 "a dbx over the per-variable limit" -- P --efivars "$Q" --esp esp --max-var-size $lim -q "$TREE"
P --efivars "$Q" --esp esp --max-var-size $lim --json "$TREE" > big.json
commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
expect_match "$(jq -r 'select(.type=="update" and (.file|test("DBX/amd64"))) | .reason' big.json)" \
    "^does not fit: this dbx would be $(commas $want) bytes; this firmware takes at most $(commas $lim) per variable; the way out: .*replace write of dbx signed by a KEK holder \(this update's signer: Microsoft Corporation KEK CA 2011\) or the PK holder \(Debian" \
    "the refusal: sizes, limit, whose signature clears stale entries"
expect_eq "$(jq -c 'select(.type=="update" and (.file|test("DBX/amd64"))) | [.applies, .step, .nvram.too_big]' big.json)" \
    '[true,null,true]' "verifies, not a step, too big"
expect_eq "$(jq -r 'select(.type=="plan") | [.steps[].file | sub(".*/"; "")] | join(" ")' big.json)" \
    "DBUpdate2024.bin DBXUpdate2024.bin DBXUpdateSVN.bin" "the rest of the plan goes on"
expect_exit 0 "at the limit it fits" -- P --efivars "$Q" --esp esp --max-var-size $want -q up
# OVMF's own limit (0x8400): everything fits
expect_exit 0 "OVMF's 0x8400" -- P --efivars "$Q" --esp esp --max-var-size 0x8400 -q "$TREE"

# the store's free space: a write needs room for the whole new copy
expect_exit 5 "no room for the new copy" -- P --efivars "$Q" --var-store-free $((want - 1)) -q up
expect_match "$(P --efivars "$Q" --var-store-free $((want - 1)) --json up | jq -r 'select(.type=="update") | .reason')" \
    '^does not fit: the write needs .* bytes free \(a new copy of dbx before the old one is reclaimed\); the store has' \
    "the no-room refusal"

# the numbers saved beside a root's efivars (what audit --save-root writes)
mkdir -p root/sys/firmware/efi
cp -r "$Q" root/sys/firmware/efi/efivars
printf 'storage_space 262144\nremaining_space 50000\n' > root/sys/firmware/efi/efivarfs-statfs
P --root root --json up > saved.json
expect_eq "$(jq -c 'select(.type=="plan") | .nvram_limits | [.store_size, .store_free, .store_free_after, .source]' saved.json)" \
    "[262144,50000,$((50000 - want + $(jq -r 'select(.type=="update") | .nvram.before' saved.json))),\"saved statfs\"]" \
    "the saved statfs: size, free, free after the plan"
"$KTRUST" audit --root root --save-root saved -q >/dev/null 2>&1
expect_eq "$(cat saved/sys/firmware/efi/efivarfs-statfs 2>/dev/null)" "$(printf 'storage_space 262144\nremaining_space 50000')" \
    "audit --save-root keeps the store's numbers"

# shim's runtime mirrors at the next boot: counted against the free space after the plan
openssl req -x509 -newkey rsa:2048 -nodes -keyout mok.key -outform DER -out mok.der -days 30 \
    -subj "/CN=nvram MOK" 2>/dev/null
efi esl --x509 mok.der -o mok.esl
efi efivar --attrs 0x6 mok.esl -o root/sys/firmware/efi/efivars/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23
mirror=$(( $(stat -c %s mok.esl) + 60 + 20 ))
expect_eq "$(P --root root --json up | jq -c 'select(.type=="plan") | .nvram_limits.shim_mirrors | [.MokListRT, .total, .room]')" \
    "[$mirror,$mirror,true]" "MokListRT's size (header, name, data), room"
tight=$(( want - $(jq -r 'select(.type=="update") | .nvram.before' saved.json) + mirror - 1 ))
printf 'storage_space 262144\nremaining_space %d\n' $tight > root/sys/firmware/efi/efivarfs-statfs
expect_match "$(P --root root up)" "shim's runtime mirrors need .*NO ROOM \(shim would stop: Volume Full\)" \
    "the dbx fits but leaves shim no room"
finish
