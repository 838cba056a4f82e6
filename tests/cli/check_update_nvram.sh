#!/bin/bash
# check-update --apply and NVRAM (issue #35): an update whose write the
# firmware would refuse (over --max-var-size, or no room) is not applied, so
# the boot files are judged against the variables as they stay; at the
# limit it applies.  The same rule (kt_efivars_apply_file_nv) serves every
# command's --apply.
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
commas() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
Q=$CORPUS/peers/ovmf-swtpm-boot/efivars
DBX=$CORPUS/peers/secureboot-objects/tree/PostSignedObjects/DBX/amd64/DBXUpdate.bin
mkdir -p esp/EFI/debian up
cp "$CORPUS/debian/shimx64.efi.signed" esp/EFI/debian/shimx64.efi
cp "$DBX" up/
"$KTRUST" plan-updates --efivars "$Q" -q --write-efivars after up
want=$(( $(stat -c %s after/dbx-*) - 4 + 60 + 8 ))
C() { "$KTRUST" check-update --efivars "$Q" --apply "$DBX" "$@" esp; }
expect_match "$(C --max-var-size $((want - 1)))" \
    "not applied: does not fit: this dbx would be $(commas $want) bytes; this firmware takes at most $(commas $((want - 1))) per variable" \
    "over the per-variable limit: not applied"
expect_eq "$(C --max-var-size $((want - 1)) --json | jq -c 'select(.type=="apply") | [.applied, .variable, .verdict]')" \
    '[false,"dbx","refused"]' "JSON: not applied, refused"
expect_exit 0 "at the limit it applies" -- C --max-var-size $want -q
expect_match "$(C --var-store-free $((want - 1)))" 'not applied: does not fit: the write needs' "no room: not applied"
expect_exit 64 "a size that is not one" -- C --max-var-size lots -q
finish
