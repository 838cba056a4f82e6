#!/bin/bash
# #23 items 1 and 8: .sbat and SbatLevel read exactly as shim reads them,
# through every command that applies SBAT (verify-pe, check-update, chain).
# Generated images whose .sbat hides a revoked generation after a CR (a
# CR-only file, a CR inside a line) are revoked; " 5", a tab and an empty
# seventh column pass; a level line "grub, 5" is 5; a .sbat shim ignores
# (SizeOfRawData < VirtualSize) is not a second .sbat.  SbatLevel dumps are
# recognised by their attribute word (0x23 is '#'), and the variable is kept
# or replaced as shim's preserve_sbat_uefi_variable decides.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
for tool in objcopy sbsign jq python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1

gen_ca db "DB"
gen_ca vendor "Vendor"
openssl req -x509 -newkey rsa:2048 -nodes -keyout x.key -out x.pem -subj /CN=x -days 30 2>/dev/null
"$KTRUST" wrap-key x.pem -o plain.u >/dev/null
addsec() { # addsec IN OUT NAME=FILE...
    local in=$1 out=$2 a=()
    shift 2
    for s in "$@"; do
        a+=(--add-section "$s" --set-section-flags "${s%%=*}=contents,alloc,load,readonly,data")
    done
    objcopy "${a[@]}" "$in" "$out"
}
# mk NAME CSV-BYTES (printf format): a loader signed by the vendor key
mk() {
    printf "$2" > "$1.csv"
    addsec plain.u "$1.u" .sbat="$1.csv"
    sbsign --key vendor.key --cert vendor.pem --output "$1.efi" "$1.u" 2>/dev/null
}
H='sbat,1,SBAT Version,sbat,1,https://x'
mk cronly "$H\\rgrub,4,T,grub,2,https://y\\r"
mk crin "$H\\ngrub,5,T,grub,2,https://y\\rgrub,4,T,grub,2,https://y\\n"
mk nulhide "$H\\n\\0grub,4,T,grub,2,https://y\\n"
mk space "$H\\ngrub, 5,T,grub,2,https://y\\n"
mk tab "$H\\ngrub,\\t5,T,grub,2,https://y\\n"
mk seventh "$H\\ngrub,5,T,grub,2,https://y,\\n"
mk seventh2 "$H\\ngrub,5,T,grub,2,https://y,,more\\n"
mk g4 "$H\\ngrub,4,T,grub,2,https://y\\n"
mk g5 "$H\\ngrub,5,T,grub,2,https://y\\n"
# an ignored .sbat (SizeOfRawData < VirtualSize) before the real one: objcopy
# puts ".sbat" (grub,1: revoked if it were read) before ".sbaz" (grub,5); the
# first gets a VirtualSize past its SizeOfRawData, the second is renamed
# ".sbat", then the image is signed
printf "$H\\ngrub,1,T,grub,2,https://y\\n" > g1.csv
addsec plain.u ign2.u .sbaz=g5.csv .sbat=g1.csv
python3 - ign2.u <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
pe = struct.unpack_from("<I", b, 0x3c)[0]
n = struct.unpack_from("<H", b, pe + 6)[0]
opt = struct.unpack_from("<H", b, pe + 20)[0]
sec = pe + 24 + opt
names = [bytes(b[sec + 40 * i:sec + 40 * i + 8]) for i in range(n)]
assert names.index(b".sbat\0\0\0") < names.index(b".sbaz\0\0\0"), names
for i in range(n):
    h = sec + 40 * i
    if b[h:h + 8] == b".sbat\0\0\0":
        raw = struct.unpack_from("<I", b, h + 16)[0]
        struct.pack_into("<I", b, h + 8, raw + 0x1000)
    elif b[h:h + 8] == b".sbaz\0\0\0":
        b[h:h + 8] = b".sbat\0\0\0"
open(p, "wb").write(bytes(b))
PY
sbsign --key vendor.key --cert vendor.pem --output ign.efi ign2.u 2>/dev/null

VP() { "$KTRUST" verify-pe --trust vendor.pem "$@"; }
# --- verify-pe --sbat-level
expect_exit 5 "CR-only .sbat: the grub,4 after a CR is revoked by latest (grub,5)" -- \
    VP --sbat-level latest cronly.efi
expect_exit 5 "CR inside a line: grub,4 is a record of its own, revoked" -- \
    VP --sbat-level latest crin.efi
expect_match "$(VP --sbat-level latest crin.efi)" "revoked by SBAT: grub 4 < 5 \(level 2025051000\)" \
    "CR inside: the reason"
expect_exit 0 "a record after a NUL is not read (real shim 16.1 stops at the first NUL)" -- \
    VP --sbat-level latest nulhide.efi
expect_match "$(VP --json --sbat-level latest nulhide.efi | jq -c '[.sbat.entries[].generation]')" \
    '^\[1\]$' "NUL: only the records before it"
expect_exit 0 "generation \" 5\" is 5: passes latest" -- VP --sbat-level latest space.efi
expect_exit 0 "generation \"\\t5\" is 5: passes latest" -- VP --sbat-level latest tab.efi
expect_exit 0 "a trailing comma (empty seventh column) is not an error" -- \
    VP --sbat-level latest seventh.efi
expect_exit 0 "an empty seventh column and an eighth" -- VP --sbat-level latest seventh2.efi
expect_exit 0 "an ignored .sbat before the real one: not two .sbat sections" -- \
    VP --sbat-level latest ign.efi
expect_match "$(VP --json --sbat-level latest ign.efi | jq -c '[.sbat.entries[].component]')" \
    '\["sbat","grub"\]' "the counted .sbat is read"
printf 'sbat,1,2099010100\ngrub, 5\n' > lvl-space.txt
expect_exit 5 "a level line \"grub, 5\" is 5: grub 4 revoked" -- VP --sbat-level lvl-space.txt g4.efi
expect_exit 0 "a level line \"grub, 5\": grub 5 passes" -- VP --sbat-level lvl-space.txt g5.efi
printf 'sbat,1,2099010100\rgrub,5\r' > lvl-cr.txt
expect_exit 5 "a CR-only level revokes grub 4" -- VP --sbat-level lvl-cr.txt g4.efi
# item 8: an SbatLevel dump whose attribute word is 0x23 ('#', NV|BS|TIME_AUTH)
{ printf '\x23\x00\x00\x00'; printf 'sbat,1,2099010100\ngrub,5\n'; } > SbatLevel-23
expect_exit 5 "a 0x23 dump is a dump: it revokes grub 4" -- VP --sbat-level SbatLevel-23 g4.efi
expect_exit 0 "a 0x23 dump: grub 5 passes" -- VP --sbat-level SbatLevel-23 g5.efi

# --- check-update --sbat-level: the same files in an ESP
mkdir -p esp/EFI/t
cp cronly.efi crin.efi nulhide.efi space.efi tab.efi seventh.efi seventh2.efi ign.efi esp/EFI/t/
CU() { "$KTRUST" check-update --json "$@"; }
j=$(CU --sbat-level latest esp)
expect_eq $? 5 "check-update: exit 5"
expect_eq "$(jq -r 'select(.would_be_revoked == true) | .file' <<<"$j" | sort | tr '\n' ' ')" \
    "esp/EFI/t/crin.efi esp/EFI/t/cronly.efi " \
    "check-update: exactly the CR-hidden grub,4 would be revoked"
expect_eq "$(jq -r 'select(.file and .would_be_revoked != true) | .file' <<<"$j" | sort | tr '\n' ' ')" \
    "esp/EFI/t/ign.efi esp/EFI/t/nulhide.efi esp/EFI/t/seventh.efi esp/EFI/t/seventh2.efi esp/EFI/t/space.efi esp/EFI/t/tab.efi " \
    "check-update: \" 5\", tab, empty seventh column and the ignored .sbat still boot"
expect_exit 0 "check-update: nothing malformed among the passing ones" -- \
    CU --sbat-level latest esp/EFI/t/space.efi esp/EFI/t/tab.efi esp/EFI/t/seventh.efi \
    esp/EFI/t/seventh2.efi esp/EFI/t/ign.efi
expect_exit 5 "check-update: a level line \"grub, 5\" revokes grub 4" -- \
    CU --sbat-level lvl-space.txt g4.efi
expect_exit 5 "check-update: a 0x23 dump revokes grub 4" -- CU --sbat-level SbatLevel-23 g4.efi

# --- chain: a generated shim (vendor certificate, shim,4, its own
# .sbatlevel automatic 2025021800 shim,4 grub,5) and these loaders
"$KTRUST" wrap-key vendor.pem --vendor-cert -o shim.u >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\nshim,4,UEFI shim,shim,1,https://y\n' > shim.csv
efi sbatlevel --previous sbat,1,2025021800 shim,4 grub,5 --latest sbat,1,2025051000 shim,4 grub,5 -o sbatlevel.bin
addsec shim.u shim2.u .sbat=shim.csv .sbatlevel=sbatlevel.bin
sbsign --key db.key --cert db.pem --output shim.efi shim2.u 2>/dev/null
sbsign --key vendor.key --cert vendor.pem --output kernel.efi plain.u 2>/dev/null
CH() { "$KTRUST" chain --json --db db.pem "$@"; }
loader() { jq -c 'select(.role == "loader") | [.verdict, .sbat]'; }
lvl() { jq -r 'select(.type == "sbat_level") | "\(.previous) \(.level)"'; }
expect_eq "$(CH --sbat-policy automatic shim.efi g5.efi kernel.efi | loader)" \
    '["trusted","passes level 2025021800: sbat 1 >= 1, grub 5 >= 5"]' "chain: grub 5 passes"
# real shim 16.1 stops reading .sbat at the first NUL (tests/boot sbat_after_nul, sbat_nul_line_start)
expect_eq "$(CH --sbat-policy automatic shim.efi nulhide.efi kernel.efi | loader)" \
    '["trusted","passes level 2025021800: sbat 1 >= 1"]' "chain: nulhide: nothing after the NUL is read"
for f in cronly crin; do
    j=$(CH --sbat-policy automatic shim.efi $f.efi kernel.efi)
    expect_eq "$(loader <<<"$j")" \
        '["rejected","revoked by SBAT: grub 4 < 5 (level 2025021800)"]' "chain: $f: the hidden grub,4 revoked"
    expect_match "$(jq -r 'select(.role == "kernel") | .reason' <<<"$j")" \
        "never loaded: shim refused the loader" "chain: $f: kernel never loaded"
done
for f in space tab seventh seventh2 ign; do
    expect_eq "$(CH --sbat-policy automatic shim.efi $f.efi kernel.efi | loader)" \
        '["trusted","passes level 2025021800: sbat 1 >= 1, grub 5 >= 5"]' "chain: $f passes"
done
# a current level "grub, 5" (as 5) that shim keeps: grub 4 revoked
printf 'sbat,1,2099010100\nshim,4\ngrub, 5\n' > cur-space.txt
j=$(CH --sbat-level cur-space.txt shim.efi g4.efi kernel.efi)
expect_eq "$(lvl <<<"$j")" "2099010100 2099010100" "chain: the newer level kept"
expect_eq "$(loader <<<"$j")" '["rejected","revoked by SBAT: grub 4 < 5 (level 2099010100)"]' \
    "chain: \"grub, 5\" in the variable revokes grub 4"

# --- item 8: keep or replace, as shim's preserve_sbat_uefi_variable
kr() { CH --sbat-level "$1" shim.efi g5.efi kernel.efi | lvl; }
note() { CH --sbat-level "$1" shim.efi g5.efi kernel.efi | jq -r 'select(.type == "sbat_level") | .note'; }
{ printf '\x03\x00\x00\x00'; printf 'sbat,1,2099010100\nshim,4\n'; } > d03
{ printf '\x23\x00\x00\x00'; printf 'sbat,1,2099010100\nshim,4\n'; } > d23
{ printf '\x07\x00\x00\x00'; printf 'sbat,1,2099010100\nshim,4\n'; } > d07
{ printf '\x06\x00\x00\x00'; printf 'sbat,1,2099010100\nshim,4\n'; } > d06
expect_eq "$(kr d03)" "2099010100 2099010100" "SbatLevel NV|BS (0x03), newer: kept"
expect_eq "$(kr d23)" "2099010100 2099010100" "SbatLevel NV|BS|TIME_AUTH (0x23), newer: kept"
expect_eq "$(kr d06)" "2099010100 2099010100" "the SbatLevelRT mirror (0x06): taken as shim's own"
expect_eq "$(kr d07)" "2099010100 2025021800" \
    "SbatLevel with RT (0x07, as the OS could write it): shim replaces it"
expect_match "$(note d07)" "its attributes 0x7 are not the 0x3 or 0x23 shim accepts" "0x07: the note says why"
# the version column: sbat,2 is kept although its date is older
printf 'sbat,2,2020010100\nshim,4\n' > v2.txt
expect_eq "$(kr v2.txt)" "2020010100 2020010100" "a newer version column: kept"
expect_match "$(note v2.txt)" "its version column is newer" "version: the note"
# the date stamp, compared byte-wise over ten bytes as shim does
printf 'sbat,1,02099010100\nshim,4\n' > z.txt
expect_eq "$(kr z.txt)" "02099010100 2025021800" "a date stamp with a leading zero sorts low: replaced"
printf 'sbat,1,2030\nshim,4\ngrub,6\n' > short.txt
expect_eq "$(kr short.txt)" "2030 2030" "a short date stamp \"2030\" compares above 2025021800: kept"
# shorter than sbat,1,2021030218\n: replaced whatever its date
printf 'sbat,1,2099010100' > trunc.txt
expect_eq "$(kr trunc.txt)" "2099010100 2025021800" "17 bytes: replaced"
# outside secure mode with no SbatPolicy, shim resets SbatLevel to the
# original payload without the keep-or-replace check (before: automatic,
# and a newer variable kept)
mkdir ev
printf '\x06\x00\x00\x00\x00' > ev/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
cp d06 ev/SbatLevelRT-605dab50-e046-4300-abb6-3dd810dd8b23
expect_eq "$(CH --efivars ev shim.efi g5.efi kernel.efi | lvl)" "2099010100 2021030218" \
    "SecureBoot 0, no SbatPolicy: reset to 2021030218"
expect_match "$(CH --efivars ev shim.efi g5.efi kernel.efi | jq -r 'select(.type == "sbat_level") | .note')" \
    "shim sets SbatLevel to its original \(reset\) 2021030218 \(was 2099010100\)" "reset: the note"
expect_eq "$(CH --efivars ev --sbat-policy automatic shim.efi g5.efi kernel.efi | lvl)" \
    "2099010100 2099010100" "SecureBoot 0, SbatPolicy automatic: the newer variable kept"
finish
