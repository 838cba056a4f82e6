#!/bin/bash
# Offline is offline: a run given another system's parts (--root, --efivars,
# --esp, files) opens nothing of the host it runs on.  Each command runs
# under `strace -f -e trace=%file`; a /sys, /proc (but the process's own),
# /boot, /lib/modules or /etc path opened (the dynamic loader's ld.so.cache
# aside) fails the test.  Before this, plan-updates --root ran a whole audit
# per state that read the live /sys/firmware/efi/efivars and the live TCG
# event log, and plan-updates --efivars looked for the live kernel and
# modules and read the live event log.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_strace
cd "$T" || exit 1
D=$CORPUS/debian
Q=$CORPUS/peers/ovmf-swtpm-boot/efivars
LOG=$CORPUS/peers/ovmf-swtpm-boot/eventlog.bin
TREE=$CORPUS/peers/secureboot-objects/tree
DBX=$TREE/PostSignedObjects/DBX/amd64/DBXUpdate.bin

mkdir -p esp/EFI/debian
cp "$D/shimx64.efi.signed" esp/EFI/debian/shimx64.efi
cp "$D/grubx64.efi.signed" esp/EFI/debian/grubx64.efi
# a saved system: variables, ESP, kernel, event log (no modules)
R=$T/root
mkdir -p "$R/sys/firmware/efi/efivars" "$R/boot/efi" "$R/sys/kernel/security/tpm0"
cp "$Q"/* "$R/sys/firmware/efi/efivars/"
cp -r esp/EFI "$R/boot/efi/"
cp "$D/vmlinuz-6.1.0-57-amd64" "$R/boot/"
cp "$LOG" "$R/sys/kernel/security/tpm0/binary_bios_measurements"

# the host paths a trace shows opened (one per line, "" when none)
host_paths() {
    grep -oE '"(/sys|/proc|/boot|/lib/modules|/usr/lib/modules|/etc)(/[^"]*)?"' "$1" |
        grep -vE '^"/proc/(self|thread-self|[0-9]+)(/|")|^"/etc/ld\.so\.(cache|preload)"' |
        sort -u | tr '\n' ' '
}

# offline NAME -- CMD...: CMD (any exit) opens no host path
offline() {
    local name=$1
    shift 2
    strace -f -e trace=%file -o run.trace "$@" >/dev/null 2>&1
    if ! grep -q '^[0-9]* *execve(' run.trace; then
        bad "$name: no trace"
        return
    fi
    expect_eq "$(host_paths run.trace)" "" "$name: host paths opened"
}

offline "audit --root" -- "$KTRUST" audit --root "$R"
# the IMA measurement list under the root: ima-list and audit's IMA section
mkdir -p "$R/sys/kernel/security/ima"
python3 "$KT_SRC/tests/fixtures/imalist.py" --entries 5 --binary "$R/sys/kernel/security/ima/binary_runtime_measurements" \
    --pcrs ima-pcrs.txt
offline "ima-list --root" -- "$KTRUST" ima-list --root "$R" -v
offline "ima-list FILE --pcrs" -- "$KTRUST" ima-list "$R/sys/kernel/security/ima/binary_runtime_measurements" --pcrs ima-pcrs.txt
offline "audit --root (with an IMA list)" -- "$KTRUST" audit --root "$R"
offline "audit --root --json" -- "$KTRUST" audit --root "$R" --json
offline "audit --root --dbx" -- "$KTRUST" audit --root "$R" --dbx "$DBX"
# #36 item 2: --efivars and --esp without --root looked for the host's
# kernel (uname, /boot) and modules, and read the live event log
offline "audit --efivars --esp" -- "$KTRUST" audit --efivars "$Q" --esp esp
offline "audit --efivars --esp --json" -- "$KTRUST" audit --efivars "$Q" --esp esp --json
offline "plan-updates --efivars --esp" -- "$KTRUST" plan-updates --efivars "$Q" --esp esp "$TREE"
offline "plan-updates --root" -- "$KTRUST" plan-updates --root "$R" "$TREE"
offline "eventlog --predict --efivars" -- "$KTRUST" eventlog "$LOG" --predict --efivars "$Q"
offline "eventlog --predict --efivars --esp --apply" -- \
    "$KTRUST" eventlog "$LOG" --predict --efivars "$Q" --esp esp --apply "$DBX"
offline "check-update --dbx" -- "$KTRUST" check-update --dbx "$DBX" esp
offline "check-update --efivars --sbat-level" -- \
    "$KTRUST" check-update --efivars "$Q" --sbat-level latest esp
offline "check-update --install --efivars" -- \
    "$KTRUST" check-update --install --efivars "$Q" esp/EFI/debian/shimx64.efi
offline "check-update --install --root" -- \
    "$KTRUST" check-update --install --root "$R" esp/EFI/debian/shimx64.efi

# the check itself sees a host path when one is opened
strace -f -e trace=%file -o live.trace cat /proc/version /etc/hostname >/dev/null 2>&1
expect_eq "$(host_paths live.trace)" '"/etc/hostname" "/proc/version" ' "the check sees host paths"
# and --root's event log is the root's: plan-updates predicts PCR 7 from it
expect_match "$("$KTRUST" plan-updates --root "$R" --json "$TREE" | jq -r 'select(.type=="plan") | .before.pcr7.value')" \
    '^[0-9a-f]{64}$' "plan-updates --root: PCR 7 from the root's event log"
finish
