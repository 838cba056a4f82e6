#!/bin/bash
# verify-pe --sbat-level: every SPEC form (built-ins, payload file, efivarfs
# dump, shim:FILE[:latest|:automatic]) against a generated sbsign-signed
# image and the corpus GRUB/shim; the reason line and the JSON sbat object.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in objcopy sbsign sbverify jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
SHIM=$D/shimx64.efi.signed
DUMP=$CORPUS/peers/shim-efivars/efivars-1/SbatLevelRT-605dab50-e046-4300-abb6-3dd810dd8b23

openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -subj /CN=sbat-signer \
    -days 30 2>/dev/null
"$KTRUST" wrap-key c.pem -o w.efi >/dev/null
mk() { # mk OUT GRUBGEN: a signed image whose .sbat says grub,GEN
    printf 'sbat,1,SBAT Version,sbat,1,https://x\ngrub,%s,T,grub,2,https://y\n' "$2" > "$1.csv"
    objcopy --add-section .sbat="$1.csv" --set-section-flags .sbat=contents,alloc,load,readonly,data \
        w.efi "$1.u"
    sbsign --key k.pem --cert c.pem --output "$1" "$1.u" 2>/dev/null
}
mk g4.efi 4
mk g5.efi 5
sbverify --cert c.pem g4.efi >/dev/null 2>&1
expect_eq $? 0 "sbverify accepts the generated image"
V() { "$KTRUST" verify-pe --trust c.pem "$@"; }
expect_exit 0 "no level: trusted" -- V g4.efi
expect_exit 0 "original (2021030218): grub 4 passes" -- V --sbat-level original g4.efi
expect_exit 0 "automatic (2024040900, grub,4): equal passes" -- V --sbat-level automatic g4.efi
expect_exit 5 "latest (grub,5): grub 4 rejected" -- V --sbat-level latest g4.efi
expect_exit 0 "latest: grub 5 passes" -- V --sbat-level latest g5.efi
expect_exit 5 "the corpus shim's automatic (2025021800) revokes grub 4" -- \
    V --sbat-level "shim:$SHIM" g4.efi
expect_exit 5 "shim:FILE:automatic" -- V --sbat-level "shim:$SHIM:automatic" g4.efi
expect_exit 0 "the real SbatLevelRT dump (2021030218)" -- V --sbat-level "$DUMP" g4.efi
out=$(V --sbat-level "shim:$SHIM" g4.efi)
expect_match "$out" "^g4.efi: rejected \(revoked by SBAT: grub 4 < 5 \(level 2025021800\)\)" \
    "the reason line"
j=$(V --json --sbat-level "shim:$SHIM:latest" g4.efi)
expect_eq "$(jq -r '.verdict' <<<"$j")" rejected "JSON verdict"
expect_eq "$(jq -r '.error' <<<"$j")" EKEYREJECTED "JSON error"
expect_eq "$(jq -r '.sbat.level' <<<"$j")" 2025051000 "JSON level: the shim's latest"
expect_eq "$(jq -c '.sbat.revoked_by' <<<"$j")" \
    '{"component":"grub","generation":4,"level_generation":5}' "JSON revoked_by"
expect_eq "$(jq -r '[.sbat.entries[].component] | join(",")' <<<"$j")" "sbat,grub" "JSON entries"
expect_eq "$(jq -r '.signatures[0].verdict' <<<"$j")" trusted "the signature itself is fine"
j=$(V --json --sbat-level automatic g4.efi)
expect_eq "$(jq -c '[.verdict, .sbat.level, .sbat.revoked_by]' <<<"$j")" \
    '["trusted","2024040900",null]' "JSON passing"

# a payload file: names the level does not carry pass, a higher generation revokes
printf 'sbat,1,2099010100\nshim,9\ngrub.other,9\n' > lvl-other.txt
expect_exit 0 "other components only" -- V --sbat-level lvl-other.txt g4.efi
printf 'sbat,1,2099010100\ngrub,4\ngrub,9\n' > lvl-first.txt
expect_exit 0 "only the first entry of a name counts" -- V --sbat-level lvl-first.txt g4.efi
# efivarfs form of a revoking level (attribute word 0x06 first)
{ printf '\x06\x00\x00\x00'; printf 'sbat,1,2099010100\ngrub,6\n'; } > SbatLevel-dump
expect_exit 5 "efivarfs dump revokes" -- V --sbat-level SbatLevel-dump g5.efi

# an unsigned image is still refused by a revoking level, not just unsigned
expect_exit 5 "unsigned + revoked: rejected" -- "$KTRUST" verify-pe --sbat-level latest g4.efi.u
# an image without .sbat: not revoked, the text says shim would refuse to load it itself
out=$(V --sbat-level latest w.efi 2>&1)
expect_match "$out" "no .sbat section: shim refuses to load it itself" "missing .sbat noted"
# a malformed .sbat under a level: malformed, with the error line
printf 'grub,4\n' > bad.csv
objcopy --add-section .sbat=bad.csv --set-section-flags .sbat=contents,alloc,load,readonly,data w.efi bad.u
sbsign --key k.pem --cert c.pem --output bad.efi bad.u 2>/dev/null
expect_exit 4 "malformed .sbat" -- V --sbat-level latest bad.efi
expect_exit 0 "malformed .sbat without a level: not looked at" -- V bad.efi

# the corpus: GRUB (grub,5 grub.debian,5) against levels naming it higher
printf 'sbat,1,2099010100\ngrub.debian,6\n' > lvl-deb.txt
out=$("$KTRUST" verify-pe --sbat-level lvl-deb.txt "$D/grubx64.efi.signed")
expect_eq $? 5 "corpus GRUB revoked by grub.debian,6"
expect_match "$out" "revoked by SBAT: grub.debian 5 < 6 \(level 2099010100\)" "corpus reason"
expect_exit 2 "corpus GRUB passes the shim's latest (untrusted: no key given)" -- \
    "$KTRUST" verify-pe --sbat-level "shim:$SHIM:latest" "$D/grubx64.efi.signed"
expect_exit 0 "corpus shim passes its own latest" -- "$KTRUST" verify-pe \
    --trust "$CORPUS/trust/microsoft-uefi-ca-2011.pem" --sbat-level "shim:$SHIM:latest" "$SHIM"
printf 'sbat,1,2099010100\nshim,5\n' > lvl-shim5.txt
expect_exit 5 "corpus shim revoked by shim,5" -- "$KTRUST" verify-pe \
    --trust "$CORPUS/trust/microsoft-uefi-ca-2011.pem" --sbat-level lvl-shim5.txt "$SHIM"

# bad specs
expect_exit 66 "missing level file" -- V --sbat-level nonexistent g4.efi
expect_exit 4 "shim:FILE that is no PE" -- V --sbat-level shim:c.pem g4.efi
expect_exit 4 "shim:FILE without .sbatlevel" -- V --sbat-level shim:g4.efi g4.efi
printf 'sbat,1,1\ngrub\n' > lvl-bad.txt
out=$(V --sbat-level lvl-bad.txt g4.efi 2>&1)
expect_eq $? 4 "malformed level"
expect_match "$out" "lvl-bad.txt: SbatLevel: record 2 has 1 column, 2 needed \(at offset 9\)" \
    "malformed level error line"
finish
