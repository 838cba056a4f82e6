# Sourced by the plan-updates tests on Microsoft's tree (plan_updates.sh,
# plan_updates_nvram.sh) after common.sh:
#   plan_setup TOOL...  checks the corpus and the tools (jq, openssl and
#       TOOL...), moves into $T and sets $D (the corpus's Debian binaries),
#       $TREE (Microsoft's update tree), $Q (the QEMU store's efivars) and
#       P (ktrust plan-updates); esp/ holds Debian's signed shim and GRUB.
plan_setup() {
    corpus
    need_tools jq openssl "$@"
    cd "$T" || exit 1
    D=$CORPUS/debian
    TREE=$CORPUS/peers/secureboot-objects/tree
    Q=$CORPUS/peers/ovmf-swtpm-boot/efivars
    mkdir -p esp/EFI/debian
    cp "$D/shimx64.efi.signed" esp/EFI/debian/shimx64.efi
    cp "$D/grubx64.efi.signed" esp/EFI/debian/grubx64.efi
}
P() { "$KTRUST" plan-updates "$@"; }
