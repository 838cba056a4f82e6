#!/bin/bash
# keyring add of Microsoft's signed dbx/db updates: verified first with
# --kek (nothing stored when it does not verify), a plain note without it;
# SVN records never become blacklisted image hashes.
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
S=$CORPUS/peers/secureboot-objects
KEK=$CORPUS/peers/shim-efivars/efivars-1/KEK-8be4df61-93ca-11d2-aa0d-00e098032b8c
KA() { "$KTRUST" keyring add --store ks.db "$@"; }
nbl() { "$KTRUST" keyring list --json --store ks.db --keyring blacklist | grep -c .; }

out=$(KA --keyring blacklist "$S/DBX/DBXUpdateSVN.bin" 2>&1)
expect_eq $? 0 "SVN update added without --kek"
expect_match "$out" "NOT verified \(give --kek or --pk" "said plainly: not verified"
expect_match "$out" "added 0 to blacklist" "3 SVN records: no image hash blacklisted"
out=$(KA --keyring blacklist --kek "$KEK" "$S/DBX/DBXUpdate-x86.bin" 2>&1)
expect_eq $? 0 "x86 dbx update verified with the KEK dump"
expect_match "$out" "verified \(append write, signed by Microsoft Corporation KEK CA 2011" "verified note"
expect_match "$out" "added 45 to blacklist" "45 hashes"
expect_eq "$(nbl)" 45 "45 blacklist entries stored"
out=$(KA --keyring blacklist --kek "$S/certs/WindowsOEMDevicesPK.der" "$S/DBX/DBXUpdate-amd64.bin" 2>&1)
expect_eq $? 2 "a KEK that did not sign it: refused (untrusted)"
expect_match "$out" "signed dbx update refused" "refusal said"
expect_eq "$(nbl)" 45 "nothing stored from the refused file"
# a tampered payload byte: rejected, nothing stored
cp "$S/DBX/DBXUpdate2024.bin" bad.bin
printf '\x00' | dd of=bad.bin bs=1 seek=$(($(stat -c %s bad.bin) - 1)) conv=notrunc status=none
cmp -s bad.bin "$S/DBX/DBXUpdate2024.bin" && printf '\x01' | dd of=bad.bin bs=1 seek=$(($(stat -c %s bad.bin) - 1)) conv=notrunc status=none
expect_exit 5 "tampered update: rejected" -- KA --keyring blacklist --kek "$KEK" bad.bin
expect_eq "$(nbl)" 45 "nothing stored from the tampered file"
# db update into platform, verified as db
out=$(KA --keyring platform --kek "$KEK" "$S/DB/DBUpdate2024-amd64.bin" 2>&1)
expect_eq $? 0 "db update into platform"
expect_match "$out" "signed db update verified" "verified as db"
finish
