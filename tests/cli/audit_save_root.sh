#!/bin/bash
# audit --save-root DIR (issue #27 item 9): what the audit read, copied into
# DIR as --root expects it; `audit --root DIR` then gives the same JSON and
# text apart from the root's name.  A non-empty DIR is refused before any
# work; the copy is written into a temporary sibling and renamed into place,
# so a failure leaves no DIR and no temporary.
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
D=$CORPUS/debian
EV=$CORPUS/peers/shim-efivars/efivars-1
VARS=sys/firmware/efi/efivars
LOG=sys/kernel/security/tpm0/binary_bios_measurements
R=lib/modules/6.1.0-57-amd64

# the root: as audit_offline_root.sh, plus boot entries (one to GRUB directly,
# found case-insensitively), modules in two folders, a file of the module tree
# that is not a module, and a TCG event log
mkdir -p r/boot/efi/EFI/debian r/$R/kernel/drivers r/$R/extra r/sys/firmware/efi "r/$(dirname $LOG)"
cp "$D/shimx64.efi.signed" r/boot/efi/EFI/debian/shimx64.efi
cp "$D/grubx64.efi.signed" r/boot/efi/EFI/debian/grubx64.efi
cp "$D/mmx64.efi.signed" r/boot/efi/EFI/debian/mmx64.efi
cp "$D/vmlinuz-6.1.0-57-amd64" r/boot/
mods=("$D"/modules/*.ko)
cp "${mods[@]:0:20}" r/$R/kernel/drivers/
cp "${mods[@]:20}" r/$R/extra/
echo "kernel/drivers/crc7.ko:" > r/$R/modules.dep
cp -r "$EV" r/$VARS
head -c 4000 /dev/urandom > r/$LOG
GV=8be4df61-93ca-11d2-aa0d-00e098032b8c
efi loadopt --efivar 7 --hd --desc debian --file '\EFI\debian\shimx64.efi' -o r/$VARS/Boot0001-$GV
efi loadopt --efivar 7 --hd --desc 'grub direct' --file '\efi\DEBIAN\grubx64.efi' --attrs 0 -o r/$VARS/Boot0003-$GV
efi loadopt --efivar 7 --hd --desc removable --file '\EFI\BOOT\BOOTX64.EFI' -o r/$VARS/Boot0002-$GV
efi u16 --efivar 7 1 3 2 -o r/$VARS/BootOrder-$GV
efi u16 --efivar 7 1 -o r/$VARS/BootCurrent-$GV

# norm NAME: the root's name and every path under it made ROOT
norm() { sed -e "s#\"$1/#\"ROOT/#g; s#\"root\":\"$1\"#\"root\":\"ROOT\"#g; s#\\b$1/#ROOT/#g; s#audit of $1\$#audit of ROOT#"; }

# --- save, then audit the copy -------------------------------------------------
"$KTRUST" audit --root r --json --save-root s >a1.json 2>err; rc=$?
expect_eq "$rc" 0 "audit --root r --save-root s: exit 0 (all trusted)"
n=$(( $(find r -type f ! -name modules.dep | wc -l) + 1 ))
expect_match "$(cat err)" "^ktrust: audit: saved $n files \([0-9]+ bytes\) to s$" "stderr: what was saved (every file but modules.dep, and ktrust-saved-root.json)"
expect_eq "$(jq -e . <a1.json >/dev/null && echo ok)" ok "stdout: the audit's JSON"
"$KTRUST" audit --root s --json >a2.json; rc2=$?
expect_eq "$rc2" "$rc" "audit --root s: the same exit code"
expect_eq "$(norm s <a2.json)" "$(norm r <a1.json)" "audit --root s: the same JSON apart from paths"
expect_eq "$(jq -c 'select(.section == "boot") | [.entries[] | .verdict]' a2.json)" '["trusted","untrusted",null]' \
    "... boot entries included (GRUB's, found case-insensitively, copied)"
expect_eq "$(jq -c 'select(.section == "modules") | .total' a2.json)" "${#mods[@]}" "... every module"
expect_eq "$("$KTRUST" audit --root s | norm s)" "$("$KTRUST" audit --root r | norm r)" "the same text report"
# the layout: as --root reads it
expect_exit 0 "efivars: every variable, byte for byte" -- diff -r r/$VARS s/$VARS
expect_exit 0 "the event log, byte for byte" -- cmp r/$LOG s/$LOG
expect_exit 0 "the kernel at boot/vmlinuz-RELEASE" -- cmp r/boot/vmlinuz-6.1.0-57-amd64 s/boot/vmlinuz-6.1.0-57-amd64
expect_exit 0 "shim at its place on the ESP" -- cmp r/boot/efi/EFI/debian/shimx64.efi s/boot/efi/EFI/debian/shimx64.efi
# modules (#36): each signed one as its signature and the digest of its
# signed content, at its place; the audit of that root is the one above
expect_eq "$(cd s/$R && find . -type f | sort)" "$(cd r/$R && find . -type f ! -name modules.dep | sort)" \
    "modules at their places in the tree"
expect_exit 1 "no file of the module tree that is not a module" -- test -e s/$R/modules.dep
expect_eq "$(head -1 s/$R/kernel/drivers/crc7.ko)" "ktrust-module-signature 1" "a module saved compact"
expect_eq "$(sed -n 's/^digest sha256 //p' s/$R/kernel/drivers/crc7.ko)" \
    "$("$KTRUST" verify-module --json r/$R/kernel/drivers/crc7.ko | jq -r '.signatures[0].digest')" \
    "... its digest: verify-module's of the whole module"
expect_eq "$(sed -n 's/^file sha256 //p' s/$R/kernel/drivers/crc7.ko)" \
    "$(sha256sum r/$R/kernel/drivers/crc7.ko | cut -d' ' -f1)" \
    "... and the SHA-256 of the whole file (Debian's module hash check)"
python3 -c 'import sys; sys.stdout.buffer.write(open(sys.argv[1], "rb").read().split(b"\n\n", 1)[1])' \
    s/$R/kernel/drivers/crc7.ko >trailer
expect_exit 0 "... then the module's bytes from its signature on" -- \
    cmp trailer <(tail -c "$(stat -c %s trailer)" r/$R/kernel/drivers/crc7.ko)
big=$(du -sb r/$R | cut -f1); small=$(du -sb s/$R | cut -f1)
expect_eq "$(( small * 5 < big ))" 1 "the modules take a fraction of their size ($small of $big bytes)"
m=s/ktrust-saved-root.json
expect_eq "$(jq -r '[.ktrust_version, .modules] | join(" ")' $m)" "$("$KTRUST" --version | cut -d' ' -f2) signature" \
    "ktrust-saved-root.json: the version, modules as signatures"
expect_eq "$(jq -r .hostname $m)" "" "... no hostname (the root has no etc/hostname)"
expect_match "$(jq -r .time $m)" '^20[0-9-]+T[0-9:]+Z$' "... the time"
# a copy of the module in the live tree is no saved module: a saved one is
# read as one only in a root that audit --save-root wrote
expect_exit 0 "verify-module on the module: trusted by the kernel's key" -- \
    "$KTRUST" verify-module --kernel r/boot/vmlinuz-6.1.0-57-amd64 r/$R/kernel/drivers/crc7.ko
expect_exit 5 "verify-module on its saved form: rejected (it is not the module)" -- \
    "$KTRUST" verify-module --kernel r/boot/vmlinuz-6.1.0-57-amd64 s/$R/kernel/drivers/crc7.ko
# --save-root-full: the modules whole, byte for byte, and the same audit
"$KTRUST" audit --root r --json --save-root-full sf >/dev/null 2>&1
expect_exit 0 "--save-root-full: modules whole at their places" -- diff -r -x modules.dep r/$R sf/$R
expect_eq "$(jq -r .modules sf/ktrust-saved-root.json)" whole "... ktrust-saved-root.json says so"
expect_eq "$("$KTRUST" audit --root sf --json | norm sf)" "$(norm s <a2.json)" \
    "audit of the compact root = audit of the full root, paths aside"
# a saved digest altered: that module is rejected, as the module would be
cp -r s st
python3 - st/$R/kernel/drivers/crc7.ko <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
i = b.index(b"\ndigest sha256 ") + 15
b = b[:i] + (b"1" if b[i:i + 1] != b"1" else b"2") + b[i + 1:]  # one hex digit changed
open(sys.argv[1], "wb").write(b)
PY
expect_eq "$(sed -n 's/^digest sha256 //p' st/$R/kernel/drivers/crc7.ko | wc -c)" 65 "(the altered digest is 64 hex digits)"
expect_eq "$("$KTRUST" audit --root st --json | jq -c 'select(.section == "modules") | [.trusted, (.not_loading[] | .verdict, .modules)]')" \
    '[40,"rejected",["kernel/drivers/crc7.ko"]]' "a saved digest altered: that module rejected"
# Debian's module hash check: crc7's file hash added to dbx; the Debian
# kernel refuses it, in the root and in its save; a save without the file
# hash (older ktrust) cannot tell
DBX=$VARS/dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f
for d in r s; do
    cp -r $d ${d}x
    efi esl --sha256-of r/$R/kernel/drivers/crc7.ko -o crc7.esl
    cat crc7.esl >>${d}x/$DBX
done
mods() { "$KTRUST" audit --root $1 --json | jq -c 'select(.section == "modules") | [.trusted, (.not_loading[] | .verdict, .modules)]'; }
expect_eq "$(mods rx)" '[40,"rejected",["kernel/drivers/crc7.ko"]]' "crc7's file hash in dbx: rejected (Debian kernel)"
expect_eq "$(mods sx)" '[40,"rejected",["kernel/drivers/crc7.ko"]]' "... and in the saved root"
sed -i '/^file sha256 /d' sx/$R/kernel/drivers/crc7.ko
expect_eq "$(mods sx)" '[40,"unsupported",["kernel/drivers/crc7.ko"]]' "... a save without the file hash: cannot tell"
echo myhost >r/etc-hostname; mkdir -p r/etc; mv r/etc-hostname r/etc/hostname
"$KTRUST" audit -q --root r --save-root sh
expect_eq "$(jq -r .hostname sh/ktrust-saved-root.json)" myhost "the hostname: the root's etc/hostname"
expect_eq "$(ls -d s.tmp* 2>/dev/null | wc -l)" 0 "no temporary left"

# a saved root saves the same root again (and an empty DIR is accepted)
mkdir s3
"$KTRUST" audit -q --root s --save-root s3; rc=$?
expect_eq "$rc" 0 "-q, into an empty directory: 0"
expect_exit 0 "the second copy is the first" -- diff -r -x ktrust-saved-root.json s s3

# --- refused before any work ------------------------------------------------
out=$("$KTRUST" audit --root r --json --save-root s 2>err); rc=$?
expect_eq "$rc" 64 "a non-empty DIR: 64"
expect_eq "$(jq -c '[.type, .exit, (.error | test("^s: is not empty"))]' <<<"$out")" '["summary",64,true]' \
    "... no report: only the summary object, with the error"
expect_eq "$(cat err)" "ktrust: s: is not empty (a saved root is written whole into a new or empty directory)" "... one line"
expect_exit 0 "... and DIR untouched" -- diff -r -x ktrust-saved-root.json s s3
echo x >afile
expect_exit 64 "a file as DIR: 64" -- "$KTRUST" audit --root r --save-root afile
out=$("$KTRUST" audit --root r --save-root nodir/s 2>&1); rc=$?
expect_eq "$rc" 66 "DIR's parent missing: 66"
expect_match "$out" "^ktrust: nodir/s: its parent directory nodir does not exist \(not created\)$" "... says so"

# --- a write that fails half way: no DIR, no temporary ------------------------
# (a file size limit: the kernel image, about 8 MB, cannot be written; SIGXFSZ
# ignored so that write() fails with EFBIG instead)
out=$(trap '' XFSZ; ulimit -f 2048; "$KTRUST" audit --root r --json --save-root half 2>&1 >/dev/null); rc=$?
expect_eq "$rc" 70 "a write failing half way: 70"
expect_match "$out" "write failed: File too large" "... the reason"
expect_match "$out" "ktrust: audit: nothing saved \(half not created\)" "... nothing saved"
expect_exit 1 "... no DIR" -- test -e half
expect_eq "$(ls -d half.tmp* 2>/dev/null | wc -l)" 0 "... no temporary left"
finish
