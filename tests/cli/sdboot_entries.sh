#!/bin/bash
# uki entries ESP: systemd-boot's menu as systemd 252's systemd-boot builds
# it from an ESP with real UKIs (objcopy + Debian's linuxx64.efi.stub, the
# corpus kernel) signed with sbsign, Type #1 entries and the Loader*
# variables (UTF-16, systemd-boot's vendor GUID): the menu order (sort-key,
# version downwards, ids without a sort key after), which entry boots next
# by each rule (one-shot, LoaderEntryDefault, @saved, loader.conf's glob,
# the first), the verdicts (trusted, untrusted, unsigned), add-ons (their
# signature, a forbidden .linux), and the attacks: a path with '..', a link
# leaving the ESP, an efi= that is unsigned, a default that matches nothing.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl sbsign
LG=4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
uki_keys db other
printf 'root=/dev/vda1 ro\n' >cmdline
osrel() { printf 'ID=debian\nPRETTY_NAME="Debian %s"\nVERSION_ID=%s\n' "$1" "$1" >"osrel$1"; }
osrel 12
osrel 13
"$MK" u12.efi .linux=$K .osrel=osrel12 .cmdline=cmdline >/dev/null || exit $?
"$MK" u13.efi .linux=$K .osrel=osrel13 .cmdline=cmdline >/dev/null
"$MK" addon.efi .cmdline=cmdline >/dev/null
"$MK" badaddon.efi .cmdline=cmdline .linux=$K >/dev/null
E=esp
mkdir -p $E/EFI/Linux/debian-13.efi.extra.d $E/loader/entries $E/loader/addons $E/EFI/tools
sbsign --key db.key --cert db.crt --output $E/EFI/Linux/debian-13.efi u13.efi 2>/dev/null
sbsign --key other.key --cert other.crt --output $E/EFI/Linux/debian-12.efi u12.efi 2>/dev/null
sbsign --key db.key --cert db.crt --output $E/EFI/Linux/debian-13.efi.extra.d/good.addon.efi \
    addon.efi 2>/dev/null
sbsign --key db.key --cert db.crt --output $E/loader/addons/evil.addon.efi badaddon.efi 2>/dev/null
cp u13.efi $E/EFI/tools/unsigned.efi
printf 'title Fedora\nlinux /EFI/Linux/debian-13.efi\noptions quiet\noptions splash\n' \
    >$E/loader/entries/fedora.conf
printf 'title Tool\nefi \\EFI\\tools\\unsigned.efi\n' >$E/loader/entries/unsigned.conf
printf 'title nothing to boot\noptions x\n' >$E/loader/entries/bad.conf
printf 'title arm\narchitecture aa64\nefi /EFI/tools/unsigned.efi\n' >$E/loader/entries/arm.conf
printf 'title gone\nlinux /nope.efi\n' >$E/loader/entries/missing.conf
printf 'title climbs\nefi /EFI/tools/../Linux/debian-13.efi\n' >$E/loader/entries/dotdot.conf
ln -s "$PWD/u13.efi" $E/EFI/Linux/outside.efi
# version order (strverscmp_improved, newest first): 6.1.10, 6.1.10~rc1, 6.1.9
for v in a:6.1.10 b:6.1.9 c:6.1.10~rc1; do
    printf 'title k\nsort-key k\nversion %s\nefi /EFI/tools/unsigned.efi\n' "${v#*:}" \
        >$E/loader/entries/k-${v%%:*}.conf
done
V=vars
mkdir -p $V
var() { efi str16 --efivar 7 "$2" -o "$V/$1-$LG"; }
run() { "$KTRUST" uki entries --json --trust db.crt "$@" $E 2>err; }

j=$(run)
expect_eq "$(jq -r 'select(.type == "sdboot") | [.entries[].id] | join(" ")' <<<"$j")" \
    "debian-13.efi debian-12.efi k-a.conf k-c.conf k-b.conf unsigned.conf fedora.conf dotdot.conf" \
    "menu order: sort-keys, versions downwards (6.1.10 > 6.1.10~rc1 > 6.1.9); then ids downwards"
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule)"' <<<"$j")" \
    "debian-13.efi first" "nothing set: the first entry"
expect_eq "$(jq -r 'select(.type == "sdboot") | [.entries[] | select(.sort_key != "k") | "\(.id)=\(.verdict)"] | join(" ")' <<<"$j")" \
    "debian-13.efi=trusted debian-12.efi=untrusted unsigned.conf=unsigned fedora.conf=trusted dotdot.conf=malformed" \
    "verdicts"
expect_eq "$(jq -r 'select(.type == "sdboot") | .entries[] | select(.id == "fedora.conf") | .options' <<<"$j")" \
    "quiet splash" "options= gathered"
expect_eq "$(jq -r 'select(.type == "sdboot") | .entries[0].options' <<<"$j")" "root=/dev/vda1 ro" \
    "a UKI's options: its .cmdline"
expect_eq "$(jq -r 'select(.type == "sdboot") | .entries[0].title' <<<"$j")" "Debian 13" ".osrel's PRETTY_NAME"
expect_eq "$(jq -r 'select(.type == "sdboot") | [.entries[0].addons[] | "\(.file)=\(.verdict)"] | join(" ")' <<<"$j")" \
    "/EFI/Linux/debian-13.efi.extra.d/good.addon.efi=trusted /loader/addons/evil.addon.efi=rejected" \
    "add-ons: the UKI's own, then the global ones"
expect_eq "$(jq -r 'select(.type == "sdboot") | .entries[0].addons[1].forbidden_sections | join(" ")' <<<"$j")" \
    ".linux" "an add-on with .linux: forbidden"
expect_eq "$(jq -r 'select(.type == "summary") | .exit' <<<"$j")" 0 "exit: the next entry's verdict"
expect_match "$(cat err)" "bad.conf: neither linux nor efi" "an entry with no program: dropped, said"
expect_match "$(cat err)" "arm.conf: line 2: architecture 'aa64' is not x64" "another architecture"
expect_match "$(cat err)" "missing.conf: linux /nope.efi: no such file" "a missing program"
expect_match "$(cat err)" "dotdot.conf: efi /EFI/tools/../Linux/debian-13.efi: the path has" "'..' never judged"
expect_match "$(cat err)" "outside.efi: a link that leaves the ESP" "a link out of the ESP: not read"

# loader.conf's default: a glob, matched against the lower-case ids
printf '# comment\ntimeout abc\ndefualt x\ndefault   DEBIAN-12*\n' >$E/loader/loader.conf
j=$(run)
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule)"' <<<"$j")" \
    "debian-12.efi config" "loader.conf default glob (case-blind)"
expect_exit 2 "the next entry untrusted: exit 2" -- "$KTRUST" uki entries --trust db.crt -q $E
expect_match "$(cat err)" "loader.conf: line 2: timeout: 'abc' is not a value" "a bad timeout: file, line"
expect_match "$(cat err)" "loader.conf: line 3: unknown key 'defualt'" "a misspelt key"

# LoaderEntryDefault beats loader.conf; upper case matches
var LoaderEntryDefault FEDORA.CONF
j=$(run --efivars $V)
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule) \(.variables.LoaderEntryDefault)"' <<<"$j")" \
    "fedora.conf efivar FEDORA.CONF" "LoaderEntryDefault over loader.conf"

# the one-shot first; the boot after it goes back to the default
var LoaderEntryOneShot unsigned.conf
j=$(run --efivars $V)
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule) \(.after_oneshot.id) \(.after_oneshot.rule)"' <<<"$j")" \
    "unsigned.conf oneshot fedora.conf efivar" "LoaderEntryOneShot, then the default"
expect_exit 1 "an unsigned efi= boots next: exit 1" -- "$KTRUST" uki entries --trust db.crt -q --efivars $V $E

# a one-shot or default that matches nothing falls through
var LoaderEntryOneShot nosuch.conf
var LoaderEntryDefault '@saved'
var LoaderEntryLastBooted debian-13.efi
j=$(run --efivars $V)
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule)"' <<<"$j")" \
    "debian-13.efi saved" "@saved in LoaderEntryDefault: LoaderEntryLastBooted"
var LoaderEntryDefault 'zzz*'
j=$(run --efivars $V)
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule)"' <<<"$j")" \
    "debian-12.efi config" "a default matching nothing: loader.conf's"

# the attack: make the '..' entry the default: never trusted
var LoaderEntryDefault dotdot.conf
expect_exit 4 "a '..' entry boots next: malformed, never trusted" -- \
    "$KTRUST" uki entries --trust db.crt -q --efivars $V $E

# a glob longer than ktrust keeps (256 bytes): systemd-boot matches all of
# it; cut, it matched what the whole one does not ("*"x252 is every entry:
# the old code said the first, debian-13.efi, boots; systemd-boot boots
# fedora.conf).  Not answered (3), never a guessed entry
LONG="$(printf '%.0s*' $(seq 300))fedora.conf"
var LoaderEntryOneShot "$LONG"
j=$(run --efivars $V)
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule)"' <<<"$j")" "null unknown" \
    "a one-shot too long for ktrust: not answered"
expect_exit 3 "a one-shot too long for ktrust: exit 3" -- "$KTRUST" uki entries --trust db.crt -q --efivars $V $E
expect_match "$(cat err)" "too long for ktrust .*not answered" "said"
var LoaderEntryOneShot nosuch.conf
cp $E/loader/loader.conf conf.saved
printf 'default %s\n' "$LONG" >$E/loader/loader.conf
j=$(run)
expect_eq "$(jq -r 'select(.type == "sdboot") | "\(.next.id) \(.next.rule)"' <<<"$j")" "null unknown" \
    "loader.conf's default too long for ktrust: not answered"
cp conf.saved $E/loader/loader.conf

# boot counting: no tries left sorts last
mv $E/EFI/Linux/debian-13.efi $E/EFI/Linux/debian-13+0-3.efi
rm -f $V/LoaderEntry*
j=$(run --efivars $V)
expect_eq "$(jq -r 'select(.type == "sdboot") | [.entries[].id] | join(" ")' <<<"$j")" \
    "debian-12.efi k-a.conf k-c.conf k-b.conf unsigned.conf dotdot.conf debian-13+0-3.efi" \
    "no tries left: last (and fedora.conf, whose linux= was renamed, dropped)"
expect_exit 66 "no loader/ nor EFI/Linux/" -- "$KTRUST" uki entries $V
expect_exit 64 "no ESP" -- "$KTRUST" uki entries
finish
