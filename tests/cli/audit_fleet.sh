#!/bin/bash
# A fleet's saved roots to one table (the README's recipe, run as written):
# a machine ready for the 2023 rollover (db + UEFI CA 2023, KEK + KEK 2K CA
# 2023, a 2023-only shim), one not ready (the QEMU store, the corpus shim),
# one saved with --save-root, one whose save is empty (nothing to audit) and
# one root that does not exist: every machine has its row, the failures with
# the error (a --json run that fails still ends with the summary object).
# The summary's rollover: {state, ready, missing}; --require-ready: exit 7
# when not ready, the worse code otherwise.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_python_cryptography
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
FX="$PY $KT_SRC/tests/fixtures/rollover.py"
D=$CORPUS/debian
CE=$CORPUS/peers/secureboot-objects/certs
QEMU=$CORPUS/peers/ovmf-swtpm-boot/efivars
A() { "$KTRUST" audit "$@"; }
summ() { jq -c "select(.type == \"summary\") | $1"; }

# root DIR SHIM VARS: an offline root with that shim and the corpus GRUB
root() {
    mkdir -p "$1/boot/efi/EFI/debian" "$1/sys/firmware/efi"
    cp "$2" "$1/boot/efi/EFI/debian/shimx64.efi"
    cp "$D/grubx64.efi.signed" "$1/boot/efi/EFI/debian/grubx64.efi"
    cp -r "$3" "$1/sys/firmware/efi/efivars"
}
$FX strip-sig "$D/shimx64.efi.signed" shim2023.efi 1
$FX efivars "$QEMU" qready "db+=$CE/microsoft-uefi-ca-2023.der" \
    "db+=$CE/microsoft-option-rom-uefi-ca-2023.der" \
    "kek=$CE/MicCorKEKCA2011_2011-06-24.der,$CE/microsoft-corporation-kek-2k-ca-2023.der"
mkdir roots
root roots/m1-ready shim2023.efi qready
root m2 "$D/shimx64.efi.signed" "$QEMU"
A --root m2 --save-root roots/m2-saved -q >/dev/null 2>&1
expect_eq $? 0 "m2 saved with --save-root"
mkdir roots/m3-empty

# the summary's readiness
j=$(A --json --root roots/m1-ready)
expect_eq "$(summ '[.schema, .verdict, .exit, .rollover, .error]' <<<"$j")" \
    '[1,"trusted",0,{"state":"ready","ready":true,"missing":[]},null]' "ready: rollover.ready true"
j=$(A --json --root roots/m2-saved)
expect_eq $? 0 "not ready: exit 0 without --require-ready"
expect_eq "$(summ '[.verdict, .exit, .rollover]' <<<"$j")" \
    '["trusted",0,{"state":"not_ready","ready":false,"missing":["no_uefi_ca_2023","no_kek_2023","shim_2011_only"]}]' \
    "not ready: what is missing, by finding id"
j=$(A --json --require-ready --root roots/m2-saved)
expect_eq $? 7 "--require-ready, not ready: exit 7"
expect_eq "$(summ '[.verdict, .exit]' <<<"$j")" '["trusted",7]' "--require-ready: the verdict stays, exit 7"
A --require-ready --root roots/m1-ready >/dev/null
expect_eq $? 0 "--require-ready, ready: exit 0"
A --require-ready -q --root roots/m3-empty
expect_eq $? 66 "--require-ready, nothing to audit: 66 (the worse code)"
A --require-ready --root m2 --efivars nope-vars -q 2>/dev/null
expect_eq $? 66 "--require-ready, a given --efivars that cannot be read: 66 (cannot answer, the worse code)"

# failures still print the summary, with the error
j=$(A --json --root roots/m9-missing 2>/dev/null)
expect_eq $? 66 "a root that does not exist: 66"
expect_eq "$j" '{"type":"summary","schema":1,"verdict":null,"exit":66,"counts":{},"interrupted":false,"error":"roots/m9-missing: cannot open: No such file or directory"}' \
    "a root that does not exist: the summary object alone, with the error"
expect_eq "$(A --json --bogus 2>/dev/null | summ '[.exit, .error]')" "[64,\"audit: unrecognized option '--bogus'\"]" \
    "a bad option: the summary object, exit 64"
expect_eq "$(A --json --root roots/m3-empty 2>/dev/null | summ '[.exit, .error, .rollover.state]')" \
    '[66,"nothing to audit: no EFI variables, ESP, kernel or modules found","unknown"]' "an empty root: says so"

# the README's recipe, run as written (between its fleet-recipe markers)
sed -n '/<!-- fleet-recipe -->/,/<!-- \/fleet-recipe -->/p' "$KT_SRC/README.md" | sed '1,2d;$d' | sed '$d' >recipe.sh
expect_match "$(cat recipe.sh)" "jq" "the recipe found in the README"
ln -s "$PWD/m9-never-saved" roots/m9-missing
table=$(PATH="$(dirname "$KTRUST"):$PATH" bash recipe.sh 2>/dev/null)
expect_eq "$table" "$(printf '%s\n' \
    "m1-ready	trusted	0	ready		" \
    "m2-saved	trusted	0	not_ready	no_uefi_ca_2023 no_kek_2023 shim_2011_only	" \
    "m3-empty		66	unknown		nothing to audit: no EFI variables, ESP, kernel or modules found" \
    "m9-missing		66			roots/m9-missing: cannot open: No such file or directory")" \
    "one row per machine, the failures too"
finish
