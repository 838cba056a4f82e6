#!/usr/bin/env bash
# make demo tells the main story and each step's verdict is the one it says:
# a platform-only CA cannot vouch a wrapped key into secondary (6), a builtin
# one can (0), the module then verifies, a rogue wrapper changes nothing.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
out=$(bash "$KT_SRC/scripts/demo.sh" "$KTRUST" 2>&1); rc=$?
expect_eq "$rc" 0 "the demo runs to the end"
step() { sed -n "/^== $1\\./,/^== $(($1 + 1))\\./p" <<<"$out"; }
expect_match "$(step 2)" 'acme.ko: untrusted' "step 2: the module is untrusted"
expect_match "$(step 4)" 'refused: only Stand-in UEFI CA Root.* in keyring platform vouched' "step 4: platform may not vouch for secondary"
expect_match "$(step 4)" '\(exit 6\)' "step 4: exit 6"
expect_match "$(step 5)" '1 key from .keylist added to secondary, flagged trusted' "step 5: builtin vouches"
expect_match "$(step 6)" 'acme.ko: trusted' "step 6: the module verifies"
expect_match "$(step 7)" 'store unchanged: yes' "step 7: a rogue wrapper changes nothing"
corpus
expect_match "$out" 'chain: every link trusted' "step 8: the real Debian chain"
finish
