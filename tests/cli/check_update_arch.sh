#!/bin/bash
# check-update with a dbx update for another architecture (issue #27 item
# 11).  A dbx image hash says nothing of its architecture; Microsoft's
# dbx_info lists every published hash under one (x64, ia32, aarch64, arm).
# With --dbx-info, when dbx_info lists the update's hashes for other
# architectures only, check-update says the update is for them, not for the
# binaries checked (their PE machine type).  Without dbx_info it cannot know
# and says nothing (other_arch null).  Fixtures: the corpus x86 and amd64
# DBX updates, and an arm64 one built here from dbx_info's aarch64 hashes.
. "$(dirname "$0")/../lib/common.sh"
corpus
S=$CORPUS/peers/secureboot-objects
INFO=$S/DBX/dbx_info_msft_latest.json
cd "$T"
mkdir esp
cp "$CORPUS"/debian/shimx64.efi.signed esp/shimx64.efi
cp "$CORPUS"/debian/grubx64.efi.signed esp/grubx64.efi
# the oracle for the binaries' architecture: the PE header's Machine field
machines=$(python3 -c '
import struct, sys
for f in sys.argv[1:]:
    b = open(f, "rb").read()
    off = struct.unpack_from("<I", b, 0x3c)[0]
    print(hex(struct.unpack_from("<H", b, off + 4)[0]))' esp/*.efi | sort -u)
expect_eq "$machines" 0x8664 "fixtures: both binaries are x64 (PE Machine 0x8664)"
# an arm64 dbx: an EFI signature list of dbx_info's aarch64 SHA-256 hashes
efi esl --owner microsoft --sha256 $(jq -r '.images.aarch64[] | select(.hashType == "SHA256") | .authenticodeHash' "$INFO") -o dbx-arm64.esl
n_arm=$(python3 -c 'import json,sys; print(sum(e["hashType"] == "SHA256" for e in json.load(open(sys.argv[1]))["images"]["aarch64"]))' "$INFO")

arch() { python3 -c '
import sys, json
r = [json.loads(l) for l in sys.stdin if "\"update_arch\"" in l][0]
print(r["other_arch"], ",".join(r["update_arches"]), ",".join(r["image_arches"]), r["hashes"], r["for_images"], r["for_others"], r["unlisted"])'; }

# the x86 (ia32) update against x64 binaries
j=$($KTRUST check-update --json --dbx "$S/DBX/DBXUpdate-x86.bin" --dbx-info "$INFO" esp); rc=$?
expect_eq "$rc" 0 "x86 update: nothing revoked (exit 0)"
expect_eq "$(arch <<<"$j")" "True ia32 x64 45 0 45 0" "x86 update: for ia32, not for the x64 binaries"
out=$($KTRUST check-update --dbx "$S/DBX/DBXUpdate-x86.bin" --dbx-info "$INFO" esp)
expect_match "$out" "note: this update is for ia32: dbx_info lists 45 of its 45 image hashes for ia32, none for x64" "x86 update: the text says so"
# the arm64 update built from dbx_info
j=$($KTRUST check-update --json --dbx dbx-arm64.esl --dbx-info "$INFO" esp)
expect_eq "$(arch <<<"$j")" "True aarch64 x64 $n_arm 0 $n_arm 0" "arm64 update: for aarch64, not for x64"
out=$($KTRUST check-update --dbx dbx-arm64.esl --dbx-info "$INFO" esp)
expect_match "$out" "this update is for aarch64" "arm64 update: the text says so"
# the amd64 update: for x64 (one of its hashes is also listed for ia32)
j=$($KTRUST check-update --json --dbx "$S/DBX/DBXUpdate-amd64.bin" --dbx-info "$INFO" esp)
expect_eq "$(arch <<<"$j")" "False x64,ia32 x64 443 443 0 0" "amd64 update: for the binaries' architecture"
out=$($KTRUST check-update --dbx "$S/DBX/DBXUpdate-amd64.bin" --dbx-info "$INFO" esp)
expect_eq "$(grep -c 'this update is for' <<<"$out")" 0 "amd64 update: no note"
# both updates at once: some hashes are for x64, so no note
j=$($KTRUST check-update --json --dbx "$S/DBX/DBXUpdate-x86.bin" --dbx dbx-arm64.esl --dbx "$S/DBX/DBXUpdate-amd64.bin" --dbx-info "$INFO" esp)
expect_eq "$(arch <<<"$j" | cut -d' ' -f1)" False "x86 + arm64 + amd64: some hashes are for x64"
# without dbx_info: nothing to go on
j=$($KTRUST check-update --json --dbx "$S/DBX/DBXUpdate-x86.bin" esp)
expect_eq "$(arch <<<"$j")" "None  x64 45 0 0 45" "no dbx_info: cannot tell (other_arch null)"
out=$($KTRUST check-update --dbx "$S/DBX/DBXUpdate-x86.bin" esp)
expect_eq "$(grep -c 'this update is for' <<<"$out")" 0 "no dbx_info: no note"
# hashes dbx_info does not list are said to be possibly for any architecture
cat dbx-arm64.esl > mixed.esl
efi esl --owner microsoft --sha256 0000000000000000000000000000000000000000000000000000000000000000 >>mixed.esl
out=$($KTRUST check-update --dbx mixed.esl --dbx-info "$INFO" esp)
expect_match "$out" "this update is for aarch64.*\(1 hash dbx_info does not list may be for any architecture\)" "an unlisted hash is named as unknown"
# -v: each file's format and architecture
out=$($KTRUST check-update -v --dbx "$S/DBX/DBXUpdate-x86.bin" esp)
expect_eq "$(grep -c '  format: pe32+, machine x64' <<<"$out")" 2 "-v: each file's machine"
finish
