#!/bin/bash
# A machine whose shim is already dead: dbx holds Microsoft Corporation UEFI
# CA 2011 and the ESP has the corpus shim, signed by both the 2011 and the
# 2023 CA.  chain says rejected (EDK2 refuses an image any of whose
# signatures dbx revokes); every section of audit starts from that verdict:
# the outlook says it does not boot today (it used to say "still boots"),
# the rollover keeps the finding about the 2011 signature (it used to
# vanish) as not_ready, and the advice is what would boot: a shim signed by
# the 2023 CA only, once db holds that CA -- not the db update alone.  The
# advice checked with check-update --install: the 2023-only shim (its 2011
# WIN_CERTIFICATE stripped; sbverify --list the oracle) boots once db holds
# the 2023 CA, not before; the dual-signed shim boots in neither state.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_python_cryptography
for tool in jq sbverify; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
CE=$CORPUS/peers/secureboot-objects/certs
QEMU=$CORPUS/peers/ovmf-swtpm-boot/efivars
IMGDB=d719b2cb-3d3a-4596-a3bc-dad00e67656f
"$PY" "$KT_SRC/tests/fixtures/rollover.py" strip-sig "$D/shimx64.efi.signed" shim2023.efi 1
expect_match "$(sbverify --list shim2023.efi 2>/dev/null | grep -A1 issuers)" "CN=Microsoft UEFI CA 2023" \
    "oracle: the stripped shim is 2023-only"
efi esl --x509 "$CE/MicCorUEFCA2011_2011-06-27.der" --owner microsoft -o u11.esl
efi esl --x509 "$CE/microsoft-uefi-ca-2023.der" --owner microsoft -o u23.esl
# root NAME: the QEMU store with UEFI CA 2011 in dbx, the corpus shim and GRUB
root() {
    rm -rf "$1"
    mkdir -p "$1/boot/efi/EFI/debian" "$1/sys/firmware/efi"
    cp "$D/shimx64.efi.signed" "$1/boot/efi/EFI/debian/shimx64.efi"
    cp "$D/grubx64.efi.signed" "$1/boot/efi/EFI/debian/grubx64.efi"
    cp -r "$QEMU" "$1/sys/firmware/efi/efivars"; chmod -R u+w "$1"
    cat u11.esl >> "$1/sys/firmware/efi/efivars/dbx-$IMGDB"
}
root dead
root dead23; cat u23.esl >> "dead23/sys/firmware/efi/efivars/db-$IMGDB"
A() { "$KTRUST" audit --root "$1" --kernel none --modules none "${@:2}"; }

expect_exit 5 "chain: shim rejected today" -- "$KTRUST" chain --efivars dead/sys/firmware/efi/efivars -q \
    "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64"
for r in dead dead23; do
    j=$(A $r --json)
    expect_eq "$(jq -r 'select(.section=="chain") | .links[] | select(.role=="shim") | .verdict' <<<"$j")" \
        rejected "$r: the chain section: rejected"
    expect_eq "$(jq -c 'select(.section=="outlook") | .files[] | select(.role=="shim") | [.boots_today, .would_be_revoked]' <<<"$j")" \
        '[false,false]' "$r: the outlook starts from today's verdict"
    expect_match "$(A $r | grep -A2 '^outlook')" "shim .*: does not boot today \(the chain: rejected\)" "$r: outlook text"
    f=$(jq -c 'select(.type=="rollover") | .findings[] | select(.id=="shim_dbx_2011")' <<<"$j")
    expect_eq "$(jq -r .severity <<<"$f")" not_ready "$r: the 2011-signature finding stays, not_ready"
    expect_match "$(jq -r .what <<<"$f")" "^shim does not boot today: dbx holds Microsoft Corporation UEFI CA 2011" \
        "$r: what"
    expect_eq "$(jq -r 'select(.type=="rollover") | .state' <<<"$j")" not_ready "$r: rollover not ready"
    expect_match "$(jq -r 'select(.type=="rollover") | .why' <<<"$j")" "^shim does not boot today" "$r: why starts there"
done
expect_match "$(A dead --json | jq -r 'select(.type=="rollover") | .findings[] | select(.id=="shim_dbx_2011") | .todo')" \
    "DBUpdate3P2023.bin.*then install a shim signed by Microsoft UEFI CA 2023 only: the db update alone does not revive" \
    "no 2023 CA in db: both steps"
expect_match "$(A dead23 --json | jq -r 'select(.type=="rollover") | .findings[] | select(.id=="shim_dbx_2011") | .todo')" \
    "^install a shim signed by Microsoft UEFI CA 2023 only \(db holds that CA\)" "db holds the 2023 CA: the new shim"
# the advice, checked by the boot engine
inst() { "$KTRUST" check-update -q --install --efivars "$1/sys/firmware/efi/efivars" "$2" "$D/grubx64.efi.signed"; }
expect_exit 5 "the dual-signed shim: dead even with the 2023 CA in db" -- inst dead23 "$D/shimx64.efi.signed"
expect_exit 5 "a 2023-only shim before db holds the 2023 CA: does not boot" -- inst dead shim2023.efi
expect_exit 0 "a 2023-only shim once db holds it: boots" -- inst dead23 shim2023.efi
finish
