#!/bin/bash
# make demo without the corpus: the demo still runs and says which corpus
# file is missing and how to supply it (KTRUST_CORPUS or ../shared/corpus).
. "$(dirname "$0")/../lib/common.sh"
for tool in openssl osslsigncode; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
out=$(KTRUST_CORPUS="$T/no-corpus" bash "$KT_SRC/scripts/demo.sh" "$KTRUST" 2>&1)
expect_eq $? 0 "the demo runs without the corpus"
expect_match "$out" "skipping the real Debian chain: $T/no-corpus/README.md not found" "names the missing file"
expect_match "$out" "point KTRUST_CORPUS=DIR at it" "says how to supply it"
# a corpus without the efivars the audit step needs: named
mkdir -p "$T/part/debian" "$T/part/trust"
touch "$T/part/README.md" "$T/part/debian/shimx64.efi.signed" "$T/part/debian/grubx64.efi.signed" \
    "$T/part/debian/vmlinuz-6.1.0-57-amd64" "$T/part/trust/microsoft-uefi-ca-2011.pem"
out=$(KTRUST_CORPUS="$T/part" bash "$KT_SRC/scripts/demo.sh" "$KTRUST" 2>&1)
expect_match "$out" "part/peers/shim-efivars/efivars-1 not found" "names the missing efivars"
echo "demo_messages: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
