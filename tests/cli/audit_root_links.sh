#!/bin/bash
# ktrust audit --root DIR stays inside DIR (#23 item 6): every part and every
# file audit reads is looked up as the audited system sees it.  A symbolic
# link under the root with an absolute target (/boot/vmlinuz-X -> /usr/...,
# lib -> /usr/lib, boot/efi -> /...) is the root's file, never the host's;
# ".." in a link stops at the root's top.  The bait: each absolute target
# exists on the host too ($H, this test's own scratch directory) with other
# content, so reading the host's file shows as a different verdict.  Files on
# the ESP are looked up inside the ESP (firmware reads them from that
# volume).  Modules: links in the modules directory are not followed.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in jq pesign python3 sbattach; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
EV=$CORPUS/peers/shim-efivars/efivars-1
K=vmlinuz-6.1.0-57-amd64
REL=6.1.0-57-amd64
VARS=sys/firmware/efi/efivars
A() { "$KTRUST" audit "$@"; }
sec() { jq -c --arg s "$1" "select(.section == \$s) | $2"; }
H=$T/host # absolute: the host's copy; r$H is the root's
mkdir -p "$H"
ko=$(ls "$D"/modules/*.ko | head -1)

mkroot() { # mkroot DIR: shim, GRUB, MokManager, the kernel, two modules, efivars
    mkdir -p "$1/boot/efi/EFI/debian" "$1/lib/modules/$REL/kernel" "$1/sys/firmware/efi"
    cp "$D/shimx64.efi.signed" "$1/boot/efi/EFI/debian/shimx64.efi"
    cp "$D/grubx64.efi.signed" "$1/boot/efi/EFI/debian/grubx64.efi"
    cp "$D/mmx64.efi.signed" "$1/boot/efi/EFI/debian/mmx64.efi"
    cp "$D/$K" "$1/boot/"
    cp $(ls "$D"/modules/*.ko | head -2) "$1/lib/modules/$REL/kernel/"
    cp -r "$EV" "$1/$VARS"
}
# esl TYPE-GUID HEX > out: one EFI_SIGNATURE_LIST of one hash (owner zero)
esl() { efi esl --type "$1" --hash "$2"; }
SHA256=c1c41626-504c-4092-aca9-41f936934328

# the reference: the whole root, no links: every link trusted, exit 0
mkroot ref
j=$(A --root ref --json)
expect_eq $? 0 "no links: exit 0"
expect_eq "$(sec chain '[.links[] | .verdict]' <<<"$j")" '["trusted","trusted","trusted"]' "no links: trusted"

# the kernel without its signature (sbattach): the root's own copy
cp "$D/$K" unsigned-$K && sbattach --remove unsigned-$K
want_unsigned=$("$KTRUST" chain --json --efivars "$EV" "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" \
    unsigned-$K | jq -r 'select(.role == "kernel") | .verdict')
expect_eq "$want_unsigned" unsigned "oracle: chain calls the stripped kernel unsigned"

# --- boot/vmlinuz-X -> /abs/path: the root's file, not the host's ----------
mkroot rk
cp "$D/$K" "$H/$K"                          # the host's: signed, trusted
mkdir -p "rk$H" && cp unsigned-$K "rk$H/$K" # the root's: unsigned
rm rk/boot/$K && ln -s "$H/$K" rk/boot/$K
j=$(A --root rk --json)
expect_eq $? 2 "absolute kernel link: the root's unsigned kernel (its modules then untrusted), exit 2"
expect_eq "$(sec parts '[.kernel.found, .kernel.path, .release]' <<<"$j")" "[true,\"rk$H/$K\",\"$REL\"]" \
    "the kernel is the root's copy (path inside the root)"
expect_eq "$(sec chain '.links[2] | [.file, .verdict]' <<<"$j")" "[\"rk$H/$K\",\"unsigned\"]" \
    "kernel link: the root's file, unsigned as chain says"
expect_eq "$(sec outlook '.files[] | select(.role == "kernel") | .file' <<<"$j")" "\"rk$H/$K\"" \
    "the outlook reads the root's kernel too"
# the root has no copy: missing, never the host's
rm "rk$H/$K"
j=$(A --root rk --json)
expect_eq "$(sec parts '.kernel.found' <<<"$j")" false "a link to a file the root lacks: the kernel is missing"
expect_eq "$(sec parts '.kernel.path | startswith("rk/")' <<<"$j")" true "looked for inside the root"
expect_eq "$(sec chain '.links[2].present' <<<"$j")" false "no kernel link from the host"
# the newest-kernel fallback (no --release matching uname) sees the root's link the same way
mkdir -p "rk$H" && cp unsigned-$K "rk$H/$K"
j=$(A --root rk --json)
expect_eq "$(sec parts '.kernel.path' <<<"$j")" "\"rk$H/$K\"" "newest kernel: the root's copy"

# --- ".." climbing out of the root stops at its top --------------------------
mkroot rd
mkdir -p "rd$H" && cp unsigned-$K "rd$H/$K"
up=$(printf '../%.0s' $(seq 1 40))
rm rd/boot/$K && ln -s "$up${H#/}/$K" rd/boot/$K
j=$(A --root rd --json)
expect_eq $? 2 "a relative link climbing out: clamped at the root, exit 2"
expect_eq "$(sec chain '.links[2] | [.file, .verdict]' <<<"$j")" "[\"rd$H/$K\",\"unsigned\"]" \
    "../../..: the root's file"

# --- lib -> /abs/usr/lib (merged /usr): the modules are the root's ----------
mkroot rm
mkdir -p "$H/lib/modules/$REL/kernel" "rm$H/lib/modules/$REL/kernel"
cp $(ls "$D"/modules/*.ko | head -3) "$H/lib/modules/$REL/kernel/" # the host's: 3 signed
head -c 4096 "$ko" > "rm$H/lib/modules/$REL/kernel/cut.ko"        # the root's: 1 unsigned
rm -r rm/lib && ln -s "$H/lib" rm/lib
j=$(A --root rm --json)
expect_eq $? 1 "lib -> /abs: the root's unsigned module, exit 1"
expect_eq "$(sec parts '.modules.path' <<<"$j")" "\"rm$H/lib/modules/$REL\"" "the modules directory inside the root"
expect_eq "$(sec modules '[.total, .trusted, .not_loading[0].verdict, .not_loading[0].modules]' <<<"$j")" \
    '[1,0,"unsigned",["kernel/cut.ko"]]' "the root's one module, not the host's three"
# a module that is a link (to the host's signed module): not followed
cp "$ko" "$H/evil.ko"
ln -s "$H/evil.ko" "rm$H/lib/modules/$REL/kernel/evil.ko"
ln -s "$H/lib/modules" "rm$H/lib/modules/$REL/kernel/dir-link"
j=$(A --root rm --json)
expect_eq "$(sec modules '[.total, .trusted]' <<<"$j")" '[1,0]' "links in the modules directory are not followed"

# --- boot/efi -> /abs: the root's ESP ---------------------------------------
mkroot re
mkdir -p "$H/esp" && cp -r re/boot/efi/EFI "$H/esp/" # the host's: the whole ESP
rm -r re/boot/efi && ln -s "$H/esp" re/boot/efi      # the root has none there
j=$(A --root re --json)
expect_eq "$(sec parts '.esp.found' <<<"$j")" false "an ESP link to what the root lacks: no ESP"
expect_eq "$(sec chain '[.links[] | .present]' <<<"$j")" '[false,false,true]' "no shim, no GRUB from the host"
mkdir -p "re$H/esp/EFI/debian" && cp "$D/shimx64.efi.signed" "re$H/esp/EFI/debian/shimx64.efi"
j=$(A --root re --json)
expect_eq "$(sec parts '[.esp.found, .esp.path]' <<<"$j")" "[true,\"re$H/esp\"]" "the root's ESP"
expect_eq "$(sec chain '[.links[] | .present]' <<<"$j")" '[true,false,true]' "the root's shim, GRUB missing there"
expect_eq "$(sec chain '.links[0].file' <<<"$j")" "\"re$H/esp/EFI/debian/shimx64.efi\"" "shim inside the root"

# --- a file on the ESP linking out of it: looked up inside the ESP ----------
mkroot rf
cp "$D/grubx64.efi.signed" "$H/grubx64.efi"
mkdir -p "rf$H" && cp "$D/grubx64.efi.signed" "rf$H/grubx64.efi"
rm rf/boot/efi/EFI/debian/grubx64.efi && ln -s "$H/grubx64.efi" rf/boot/efi/EFI/debian/grubx64.efi
GV=8be4df61-93ca-11d2-aa0d-00e098032b8c
efi loadopt --efivar 7 --desc 'grub link' --file '\EFI\debian\grubx64.efi' -o rf/$VARS/Boot0001-$GV
efi loadopt --efivar 7 --desc mm --file '\EFI\debian\mmx64.efi' -o rf/$VARS/Boot0002-$GV
efi u16 --efivar 7 1 2 -o rf/$VARS/BootOrder-$GV
j=$(A --root rf --json)
expect_eq "$(sec chain '.links[1] | [.present, .file]' <<<"$j")" \
    '[false,"rf/boot/efi/EFI/debian/grubx64.efi"]' "GRUB linking out of the ESP: missing, not the host's"
expect_eq "$(sec boot '.entries[0] | [.path, .verdict, .reason]' <<<"$j")" \
    '[null,null,"/EFI/debian/grubx64.efi is not on the ESP audited"]' "a boot entry's file linking out of the ESP: not on it"
expect_eq "$(sec boot '.entries[1] | [.path, .verdict]' <<<"$j")" \
    '["rf/boot/efi/EFI/debian/mmx64.efi","untrusted"]' "a plain file on the ESP: as before"
# a link that stays on the ESP is followed
mv "rf$H/grubx64.efi" rf/boot/efi/EFI/debian/grub-real.efi
rm rf/boot/efi/EFI/debian/grubx64.efi && ln -s grub-real.efi rf/boot/efi/EFI/debian/grubx64.efi
j=$(A --root rf --json)
expect_eq "$(sec chain '.links[1] | [.present, .file, .verdict]' <<<"$j")" \
    '[true,"rf/boot/efi/EFI/debian/grub-real.efi","trusted"]' "a link inside the ESP: followed"
expect_eq "$(sec boot '.entries[0] | [.path, .verdict]' <<<"$j")" \
    '["rf/boot/efi/EFI/debian/grub-real.efi","untrusted"]' "the boot entry follows it too (db does not vouch for GRUB)"

# --- sys/firmware/efi/efivars -> /abs: the root's variables ------------------
mkroot rv
cp -r "$EV" "$H/efivars" # the host's: the corpus variables, shim boots
mkdir -p "rv$H" && cp -r "$EV" "rv$H/efivars"
sh=$(pesign -h -i "$D/shimx64.efi.signed" | sed -n 's/^hash: //p')
esl $SHA256 "$sh" >> "$(ls "rv$H"/efivars/dbx-*)" # the root's: dbx revokes shim
rm -r rv/$VARS && ln -s "$H/efivars" rv/$VARS
j=$(A --root rv --json)
expect_eq $? 5 "efivars link: the root's dbx revokes shim, exit 5"
expect_eq "$(sec parts '.efivars.path' <<<"$j")" "\"rv$H/efivars\"" "the variables inside the root"
expect_eq "$(sec chain '[.links[] | .verdict]' <<<"$j")" '["rejected","untrusted","untrusted"]' "shim rejected by the root's dbx"

# --- a variable file that is a link: efivarfs holds none, never followed ------
mkroot rs
printf '\x06\x00\x00\x00\x00' > "$H/SecureBoot-off" # the host's file: Secure Boot off
sbv=$(ls rs/$VARS/SecureBoot-*)
rm "$sbv" && ln -s "$H/SecureBoot-off" "$sbv"
j=$(A --root rs --json)
expect_eq "$(sec firmware '.secure_boot' <<<"$j")" null "a SecureBoot variable that links out: not read (was false, the host's)"

# --- text output names the root's files -------------------------------------
out=$(A --root rk)
expect_match "$out" "rk$H/$K" "text: the root's kernel"

echo "audit root links: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
