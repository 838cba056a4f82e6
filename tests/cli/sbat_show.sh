#!/bin/bash
# sbat show: the corpus shim/GRUB/MokManager .sbat against objcopy's copy of
# the section, generated images (BOM, CRLF, extra columns, malformed
# records), and the error paths.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in objcopy jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian

# Oracle: objcopy extracts the section; its text up to the first NUL,
# empty lines dropped, is what shim parses.
for f in shimx64.efi.signed grubx64.efi.signed mmx64.efi.signed; do
    objcopy -O binary --only-section=.sbat "$D/$f" sec.bin
    want=$(tr -d '\r' < sec.bin | sed 's/\x0.*//' | grep -v '^$' | tr -d '\0')
    got=$("$KTRUST" sbat show "$D/$f" | tail -n +2 | sed 's/^  //')
    expect_eq "$got" "$want" "$f: sbat show = objcopy's .sbat"
    n=$("$KTRUST" sbat show --json "$D/$f" | jq '.entries | length')
    expect_eq "$n" "$(printf '%s\n' "$want" | wc -l)" "$f: JSON entry count"
done
j=$("$KTRUST" sbat show --json "$D/grubx64.efi.signed")
expect_eq "$(jq -r '[.entries[] | "\(.component)=\(.generation)"] | join(" ")' <<<"$j")" \
    "sbat=1 grub=5 grub.debian=5 grub.debian12=1" "grub components and generations"
expect_eq "$(jq -r '.entries[1] | [.vendor, .package, .version, .url] | join("|")' <<<"$j")" \
    "Free Software Foundation|grub|2.06|https://www.gnu.org/software/grub/" "grub columns"
expect_eq "$(jq -r '.error' <<<"$j")" null "no error"
j=$("$KTRUST" sbat show --json "$D/shimx64.efi.signed")
expect_eq "$(jq -r '[.entries[] | "\(.component)=\(.generation)"] | join(" ")' <<<"$j")" \
    "sbat=1 shim=4 shim.debian=1" "shim components"
# the kernel has no .sbat: said, not an error
expect_exit 0 "kernel without .sbat" -- "$KTRUST" sbat show "$D/vmlinuz-6.1.0-57-amd64"
expect_match "$("$KTRUST" sbat show "$D/vmlinuz-6.1.0-57-amd64")" "no .sbat section" "kernel text"
expect_eq "$("$KTRUST" sbat show --json "$D/vmlinuz-6.1.0-57-amd64" | jq -c '[.present, .entries]')" \
    '[false,[]]' "kernel JSON"

# generated images
openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -subj /CN=sbat-test \
    -days 30 2>/dev/null
"$KTRUST" wrap-key c.pem -o w.efi >/dev/null
add() { objcopy --add-section .sbat="$2" --set-section-flags .sbat=contents,alloc,load,readonly,data w.efi "$1"; }
printf '\xef\xbb\xbfsbat,1,SBAT Version,sbat,1,https://x\r\n\ngrub,7,V,grub,2,https://y,extra,cols\n' > s1.csv
add g1.efi s1.csv
j=$("$KTRUST" sbat show --json g1.efi)
expect_eq "$(jq -r '[.entries[] | "\(.component)=\(.generation)=\(.url)"] | join(" ")' <<<"$j")" \
    "sbat=1=https://x grub=7=https://y" "BOM, CRLF, empty line, extra columns"
printf 'sbat,1,SBAT Version,sbat,1,https://x\ngrub,7,V,grub,2\n' > s2.csv
add g2.efi s2.csv
out=$("$KTRUST" sbat show g2.efi 2>&1); rc=$?
expect_eq $rc 4 "five columns: malformed"
off=$((0x$(objdump -h g2.efi | awk '$2 == ".sbat" {print $6}')))
expect_match "$out" "g2.efi: .sbat: record 2 has 5 columns, 6 needed \(at offset $((off + 37))\)" \
    "error line with the file offset"
expect_eq "$("$KTRUST" sbat show --json g2.efi 2>/dev/null | jq -r '.error')" \
    ".sbat: record 2 has 5 columns, 6 needed" "JSON error"
printf 'grub,,V,grub,2,u\n' > s3.csv
add g3.efi s3.csv
expect_exit 4 "empty column: malformed" -- "$KTRUST" sbat show g3.efi
expect_exit 4 "not a PE: malformed" -- "$KTRUST" sbat show c.pem
expect_exit 66 "missing file" -- "$KTRUST" sbat show nonexistent.efi
expect_exit 64 "no subcommand" -- "$KTRUST" sbat
expect_exit 64 "no file" -- "$KTRUST" sbat show
# several files: the highest code
expect_exit 4 "worst of several" -- "$KTRUST" sbat show g1.efi g2.efi
finish
