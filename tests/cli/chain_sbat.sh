#!/bin/bash
# chain with SBAT: the real efivars (SbatLevelRT 2021030218) and the corpus
# shim (its own automatic 2025021800 / latest 2025051000); a newer variable
# kept; a level revoking GRUB (the kernel is then never loaded) or shim (the
# self-check powers the machine off); a generated shim whose own .sbatlevel
# would revoke itself; a loader without .sbat; SbatPolicy reset in secure mode.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
corpus
for tool in objcopy sbsign jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
EV=$CORPUS/peers/shim-efivars/efivars-1
MS11=$CORPUS/trust/microsoft-uefi-ca-2011.pem
SHIM=$D/shimx64.efi.signed GRUB=$D/grubx64.efi.signed KERNEL=$D/vmlinuz-6.1.0-57-amd64
CH() { "$KTRUST" chain "$@"; }
lvl() { jq -r 'select(.type == "sbat_level") | "\(.previous) \(.level)"'; }
role() { jq -c --arg r "$1" 'select(.role == $r) | [.verdict, .sbat]'; }

# the real variables: shim raises SbatLevel from 2021030218 to its automatic 2025021800
j=$(CH --json --efivars "$EV" "$SHIM" "$GRUB" "$KERNEL")
expect_eq $? 0 "efivars-1 + corpus chain: trusted"
expect_eq "$(lvl <<<"$j")" "2021030218 2025021800" "SbatLevelRT 2021030218 -> the shim's automatic"
expect_eq "$(role shim <<<"$j")" '["trusted","passes level 2025021800: sbat 1 >= 1, shim 4 >= 4"]' "shim self-check"
expect_eq "$(role loader <<<"$j")" '["trusted","passes level 2025021800: sbat 1 >= 1, grub 5 >= 5"]' "GRUB"
expect_eq "$(role kernel <<<"$j")" \
    '["trusted","no .sbat (not required: verified through shim'"'"'s protocol)"]' "kernel: no .sbat needed"
expect_eq "$(CH --json --efivars "$EV" --sbat-policy latest "$SHIM" "$GRUB" "$KERNEL" | lvl)" \
    "2021030218 2025051000" "--sbat-policy latest: the shim's latest"
expect_eq "$(CH --json --db "$MS11" --sbat-policy automatic "$SHIM" "$GRUB" "$KERNEL" | lvl)" \
    "null 2025021800" "no variable yet: the shim's automatic"
out=$(CH --efivars "$EV" --sbat-policy reset "$SHIM" "$GRUB" "$KERNEL")
expect_match "$out" "SbatPolicy reset is refused in secure mode" "reset refused in secure mode"
expect_match "$out" "SbatLevel: shim sets SbatLevel to its automatic 2025021800" "reset: automatic instead"

# a newer variable is kept (never downgraded): it revokes grub.debian 5
printf 'sbat,1,2099010100\nshim,4\ngrub.debian,6\n' > newer.txt
j=$(CH --json --efivars "$EV" --sbat-level newer.txt "$SHIM" "$GRUB" "$KERNEL")
expect_eq $? 5 "grub.debian,6: exit 5"
expect_eq "$(lvl <<<"$j")" "2099010100 2099010100" "newer variable kept"
expect_eq "$(role loader <<<"$j")" \
    '["rejected","revoked by SBAT: grub.debian 5 < 6 (level 2099010100)"]' "GRUB revoked by SBAT"
expect_match "$(role kernel <<<"$j")" "rejected" "the kernel is never loaded"
expect_match "$(jq -r 'select(.role == "kernel") | .reason' <<<"$j")" "never loaded: shim refused the loader" \
    "kernel reason"
# a level revoking shim itself: the self-check fails, the machine powers off
printf 'sbat,1,2099010100\nshim,5\n' > shim5.txt
j=$(CH --json --efivars "$EV" --sbat-level shim5.txt "$SHIM" "$GRUB" "$KERNEL")
expect_eq $? 5 "shim,5: exit 5"
expect_match "$(jq -r 'select(.role == "shim") | .reason' <<<"$j")" \
    "revoked by SBAT: shim 4 < 5 \(level 2099010100\): shim's self-check fails and it powers the machine off" \
    "shim powers off"
expect_match "$(jq -r 'select(.role == "loader") | .reason' <<<"$j")" "never loaded: shim failed its SBAT self-check" \
    "loader never loaded"

# generated: a shim whose own .sbatlevel would revoke itself, a loader without .sbat
gen_ca db "DB"
gen_ca vendor "Vendor"
"$KTRUST" wrap-key vendor.pem --vendor-cert -o shim.u >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\nshim,3,UEFI shim,shim,1,https://y\n' > shim.csv
efi sbatlevel --previous sbat,1,2025021800 shim,4 grub,5 --latest sbat,1,2025051000 shim,4 grub,5 -o sbatlevel.bin
objcopy --add-section .sbat=shim.csv --set-section-flags .sbat=contents,alloc,load,readonly,data \
    --add-section .sbatlevel=sbatlevel.bin --set-section-flags .sbatlevel=contents,alloc,load,readonly,data \
    shim.u shim2.u
sbsign --key db.key --cert db.pem --output shim.efi shim2.u 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout x.key -out x.pem -subj /CN=x -days 30 2>/dev/null
"$KTRUST" wrap-key x.pem -o plain.u >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\ngrub,5,T,grub,2,https://y\n' > grub.csv
objcopy --add-section .sbat=grub.csv --set-section-flags .sbat=contents,alloc,load,readonly,data plain.u grub.u
sbsign --key vendor.key --cert vendor.pem --output loader.efi grub.u 2>/dev/null
sbsign --key vendor.key --cert vendor.pem --output nosbat.efi plain.u 2>/dev/null
sbsign --key vendor.key --cert vendor.pem --output kernel.efi plain.u 2>/dev/null
# (kernel.efi is no kernel image: its link is malformed; shim and loader are what count here)
# a candidate level that would revoke the running shim: set_sbat_uefi_variable
# fails, and in secure mode efi_main goes to die: nothing boots (#23.2)
j=$(CH --json --db db.pem --sbat-policy automatic shim.efi loader.efi kernel.efi)
expect_eq $? 5 "generated shim,3 whose own level revokes it: exit 5"
expect_eq "$(jq -r 'select(.role == "shim" or .role == "loader") | .verdict' <<<"$j" | tr '\n' ' ')" \
    "rejected rejected " "generated chain with shim,3: shim stops, the loader is never loaded"
expect_match "$(jq -r 'select(.type == "sbat_level") | .note' <<<"$j")" \
    "shim's automatic level 2025021800 not applied: it would revoke shim itself" "self-revoking level refused"
expect_match "$(jq -r 'select(.role == "shim") | .reason' <<<"$j")" "its SbatLevel cannot be set, so it stops" \
    "the shim's reason says why it stops"
expect_match "$(jq -r 'select(.role == "loader") | .reason' <<<"$j")" \
    "never loaded: shim stopped: its new SbatLevel would revoke shim itself" "the loader's reason"
expect_eq "$(lvl <<<"$j")" "null null" "no level applied"
# ... outside secure mode shim goes on (the level is still not set)
mkdir -p off
cert-to-efi-sig-list db.pem off/db.esl >/dev/null 2>&1 || openssl x509 -in db.pem -outform DER -out off/db.esl
{ printf '\x27\x00\x00\x00'; cat off/db.esl; } > off/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f
printf '\x06\x00\x00\x00\x00' > off/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c
j=$(CH --json --efivars off shim.efi loader.efi kernel.efi)
expect_eq "$(jq -r 'select(.role == "shim" or .role == "loader") | .verdict' <<<"$j" | tr '\n' ' ')" \
    "trusted trusted " "Secure Boot off: shim goes on without setting the level"
# a shim that passes its own level (shim,4): SBAT applies with no SBAT option at
# all, as shim applies it in secure mode (#23.2)
printf 'sbat,1,SBAT Version,sbat,1,https://x\nshim,4,UEFI shim,shim,1,https://y\n' > shim4.csv
objcopy --add-section .sbat=shim4.csv --set-section-flags .sbat=contents,alloc,load,readonly,data \
    --add-section .sbatlevel=sbatlevel.bin --set-section-flags .sbatlevel=contents,alloc,load,readonly,data \
    shim.u shim4.u
sbsign --key db.key --cert db.pem --output shim4.efi shim4.u 2>/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\ngrub,4,T,grub,2,https://y\n' > grub4.csv
objcopy --add-section .sbat=grub4.csv --set-section-flags .sbat=contents,alloc,load,readonly,data plain.u grub4.u
sbsign --key vendor.key --cert vendor.pem --output grub4.efi grub4.u 2>/dev/null
j=$(CH --json --db db.pem shim4.efi loader.efi kernel.efi)
expect_eq "$(role loader <<<"$j")" '["trusted","passes level 2025021800: sbat 1 >= 1, grub 5 >= 5"]' \
    "no SBAT option: the shim's automatic level applies, grub,5 passes"
j=$(CH --json --db db.pem shim4.efi grub4.efi kernel.efi)
expect_eq $? 5 "no SBAT option: a grub,4 loader: exit 5"
expect_eq "$(role loader <<<"$j")" \
    '["rejected","revoked by SBAT: grub 4 < 5 (level 2025021800)"]' "no SBAT option: grub,4 revoked by the shim's own level"
expect_match "$(CH --db db.pem shim4.efi grub4.efi kernel.efi)" "chain: NOT every link is trusted" \
    "the text verdict says so"
j=$(CH --json --db db.pem --sbat-policy automatic shim4.efi nosbat.efi kernel.efi)
expect_eq $? 5 "a loader without .sbat: exit 5"
expect_eq "$(role loader <<<"$j")" '["rejected","no .sbat section: shim refuses to load it"]' "loader without .sbat"
expect_eq "$(CH --json --db db.pem shim4.efi nosbat.efi kernel.efi | jq -c 'select(.role == "loader") | [.verdict, .sbat]')" \
    '["rejected","no .sbat section: shim refuses to load it"]' "without SBAT options, a loader without .sbat is refused too"
# usage
expect_exit 64 "bad --sbat-policy" -- CH --db db.pem --sbat-policy newest shim.efi loader.efi kernel.efi
expect_exit 66 "missing --efivars dir" -- CH --efivars nonexistent shim.efi loader.efi kernel.efi
finish
