#!/bin/bash
# ktrust audit over an offline root laid out from the corpus (ESP with the
# Debian shim, GRUB and MokManager; boot/vmlinuz; lib/modules with the 41
# corpus modules; efivars from peers/shim-efivars/efivars-1): all trusted;
# the db/KEK/PK counts against efitools' sig-list-to-certs; a dbx revoking
# shim (pesign's hash) and an SbatLevel revoking GRUB in the variables; the
# outlook of a --dbx update; an unsigned module; roots with parts missing
# and with nothing; the live system; JSON sections read by jq; DOT rendered
# by graphviz.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in jq pesign python3 sig-list-to-certs openssl; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
EV=$CORPUS/peers/shim-efivars/efivars-1
A() { "$KTRUST" audit "$@"; }
sec() { jq -c --arg s "$1" "select(.section == \$s) | $2"; }
summ() { jq -c "select(.type == \"summary\") | $1"; }

# esl TYPE-GUID HEX... > out: one EFI_SIGNATURE_LIST of hashes (owner zero)
esl() { efi esl --type "$1" --hash "${@:2}"; }
SHA256=c1c41626-504c-4092-aca9-41f936934328

mkroot() { # mkroot DIR: the whole system
    mkdir -p "$1/boot/efi/EFI/debian" "$1/lib/modules/6.1.0-57-amd64/kernel" "$1/sys/firmware/efi"
    cp "$D/shimx64.efi.signed" "$1/boot/efi/EFI/debian/shimx64.efi"
    cp "$D/grubx64.efi.signed" "$1/boot/efi/EFI/debian/grubx64.efi"
    cp "$D/mmx64.efi.signed" "$1/boot/efi/EFI/debian/mmx64.efi"
    cp "$D/vmlinuz-6.1.0-57-amd64" "$1/boot/"
    cp "$D"/modules/*.ko "$1/lib/modules/6.1.0-57-amd64/kernel/"
    cp -r "$EV" "$1/sys/firmware/efi/efivars"
}
VARS=sys/firmware/efi/efivars
mkroot r
n_ko=$(ls "$D"/modules/*.ko | wc -l)

# --- the whole system: every link trusted -----------------------------------
j=$(A --root r --json 2>full.err)
expect_eq $? 0 "full root: exit 0"
expect_eq "$(jq -e . <<<"$j" >/dev/null && echo ok)" ok "every line is JSON"
expect_eq "$(jq -r '.section // .type' <<<"$j" | tr '\n' ' ')" "parts firmware sbat boot chain modules outlook rollover nvram summary " "sections, in order"
expect_eq "$(sec parts '[.efivars.found, .esp.found, .kernel.found, .modules.found, .release]' <<<"$j")" \
    '[true,true,true,true,"6.1.0-57-amd64"]' "parts found; release from boot/vmlinuz-*"
expect_eq "$(sec firmware '[.secure_boot, .setup_mode, .mok_trusted]' <<<"$j")" '[true,false,false]' "SecureBoot 1, SetupMode 0"
# the certificate counts against efitools (the efivarfs attribute word stripped)
for v in PK KEK db; do
    f=$(ls r/$VARS/$v-*)
    tail -c +5 "$f" > $v.esl
    mkdir -p certs-$v && (cd certs-$v && sig-list-to-certs ../$v.esl c >/dev/null 2>&1)
    want=$(ls certs-$v/*.der 2>/dev/null | wc -l)
    expect_eq "$(sec firmware ".variables[] | select(.name == \"$v\") | .x509" <<<"$j")" "$want" "$v: X509 entries as sig-list-to-certs"
done
# owners and their entry counts, as esl show lists the entries
for v in KEK db dbx MokListRT; do
    want=$("$KTRUST" esl show --json r/$VARS/$v-* | jq -s -c 'group_by(.owner) | map({guid: .[0].owner, entries: length}) | sort_by(.guid)')
    expect_eq "$(sec firmware ".variables[] | select(.name == \"$v\") | .owners | map({guid, entries}) | sort_by(.guid)" <<<"$j")" \
        "$want" "$v: owners as esl show"
done
expect_eq "$(sec firmware '.variables[] | select(.name == "dbx") | .owners[0].name' <<<"$j")" '"Microsoft"' "Microsoft's owner GUID named"
expect_match "$(sec firmware '.variables[] | select(.name == "db") | .certificates[]' <<<"$j")" \
    "Microsoft Corporation UEFI CA 2011" "db certificates by description"
expect_eq "$(sec sbat '[.current, .next_boot]' <<<"$j")" '["2021030218","2025021800"]' "SbatLevel in force and next boot"
expect_eq "$(sec chain '[.links[] | .verdict]' <<<"$j")" '["trusted","trusted","trusted"]' "shim, loader, kernel trusted"
expect_eq "$(sec chain '.links[1].sbat' <<<"$j")" '"passes level 2025021800: sbat 1 >= 1, grub 5 >= 5"' "GRUB's SBAT"
expect_eq "$(sec modules '[.total, .trusted, (.not_loading | length)]' <<<"$j")" "[$n_ko,$n_ko,0]" "every module trusted"
expect_eq "$(sec outlook '[.sbat_latest, (.files | map(.role)), (.files | map(.would_be_revoked) | any)]' <<<"$j")" \
    '["2025051000",["shim","loader","mokmanager","kernel"],false]' "outlook: latest SbatLevel revokes nothing"
expect_eq "$(summ '[.verdict, .exit, .counts.parts_missing]' <<<"$j")" '["trusted",0,0]' "summary"
# the same verdicts as chain --efivars with the same files
c=$("$KTRUST" chain --json --efivars r/$VARS r/boot/efi/EFI/debian/shimx64.efi r/boot/efi/EFI/debian/grubx64.efi \
    r/boot/vmlinuz-6.1.0-57-amd64 | jq -r 'select(.role) | .reason' | tr '\n' '|')
expect_eq "$(sec chain '.links[] | .reason' <<<"$j" | jq -r . | tr '\n' '|')" "$c" "the reasons chain --efivars gives"
out=$(A --root r --dot full.dot) # the text, and the DOT drawn below
expect_match "$out" "summary: every link present is trusted; 0 parts missing; 0 modules would not load" "text summary"
expect_match "$out" "MokListRT  1 certificate.*boot images only" "MOK contents"

# --- boot entries: BootOrder 0001 (the audited shim, current), 0003 (GRUB
# started by firmware directly: db does not vouch), 0002 (a file not on the
# ESP), 0004 (no variable), 0005 (malformed)
cp -r r rb
GV=8be4df61-93ca-11d2-aa0d-00e098032b8c
efi loadopt --efivar 7 --hd --desc debian --file '\EFI\debian\shimx64.efi' -o rb/$VARS/Boot0001-$GV
efi loadopt --efivar 7 --hd --desc 'grub direct' --file '\efi\DEBIAN\grubx64.efi' --attrs 0 -o rb/$VARS/Boot0003-$GV
efi loadopt --efivar 7 --hd --desc removable --file '\EFI\BOOT\BOOTX64.EFI' -o rb/$VARS/Boot0002-$GV
efi efivar --attrs 7 --hex 01000000ff7f -o rb/$VARS/Boot0005-$GV
efi loadopt --efivar 7 --hd --desc 'climbs out' --file '\EFI\..\..\vmlinuz-6.1.0-57-amd64' -o rb/$VARS/Boot0006-$GV
efi u16 --efivar 7 1 3 2 4 5 6 -o rb/$VARS/BootOrder-$GV
efi u16 --efivar 7 1 -o rb/$VARS/BootCurrent-$GV
j=$(A --root rb --json)
expect_eq $? 0 "boot entries do not change the chain's verdict"
expect_eq "$(sec boot '[.boot_current, (.entries | map(.number))]' <<<"$j")" '[1,["0001","0003","0002","0004","0005","0006"]]' "BootOrder"
expect_eq "$(sec boot '.entries[0] | [.description, .file, .current, .audited, .verdict]' <<<"$j")" \
    '["debian","/EFI/debian/shimx64.efi",true,true,"trusted"]' "Boot0001: the audited shim"
expect_eq "$(sec boot '.entries[1] | [.active, .path, .audited, .verdict]' <<<"$j")" \
    '[false,"rb/boot/efi/EFI/debian/grubx64.efi",false,"untrusted"]' "Boot0003: GRUB found case-insensitively, db does not vouch"
expect_eq "$(sec boot '.entries[2] | [.path, .verdict, .reason]' <<<"$j")" \
    '[null,null,"/EFI/BOOT/BOOTX64.EFI is not on the ESP audited"]' "Boot0002: not on the ESP"
expect_eq "$(sec boot '.entries[3] | [.present, .reason]' <<<"$j")" '[false,"no Boot0004 variable"]' "Boot0004: missing"
expect_eq "$(sec boot '.entries[4] | [.present, .description, .reason]' <<<"$j")" \
    '[true,null,"Boot0005: not an EFI_LOAD_OPTION"]' "Boot0005: malformed"
expect_eq "$(sec boot '.entries[5] | [.path, .verdict]' <<<"$j")" '[null,null]' "Boot0006: .. does not leave the ESP"
txt=$(A --root rb --dot boot.dot) # the DOT to the file, the text to stdout
expect_match "$(cat boot.dot)" 'b1 \[label="Boot0003\\ngrub direct\\ngrubx64.efi\\nuntrusted", fillcolor=gold\]' "DOT: a boot entry node"
expect_eq "$(grep -c 'label="Boot0001' boot.dot)" 0 "DOT: the audited entry is the chain itself"
if command -v dot >/dev/null; then
    dot -Tsvg boot.dot > boot.svg
    expect_eq $? 0 "graphviz renders boot entries"
fi
expect_match "$txt" 'Boot0001\* "debian" /EFI/debian/shimx64.efi: trusted \(the chain below\)' "text: the current entry"
rm -rf rb

# --- the outlook of a dbx update revoking GRUB (pesign's hash): exit unchanged
gh=$(pesign -h -i "$D/grubx64.efi.signed" | sed -n 's/^hash: //p')
esl $SHA256 "$gh" > grub-dbx.esl
j=$(A --root r --json --dbx grub-dbx.esl)
expect_eq $? 0 "an update in --dbx is an outlook: exit 0"
expect_eq "$(sec outlook '.files[] | select(.role == "loader") | [.would_be_revoked, .by_dbx, .by_sbat]' <<<"$j")" \
    '[true,true,false]' "the update would revoke GRUB"
expect_match "$(sec outlook '.files[] | select(.role == "loader") | .detail' <<<"$j")" "sha256 image hash $gh" "by its hash"
expect_eq "$(sec outlook '[.files[] | select(.role != "loader") | .would_be_revoked] | any' <<<"$j")" false "nothing else"
expect_eq "$(summ .counts.would_be_revoked <<<"$j")" 1 "summary counts it"
printf 'not an esl at all, too short' > bad.esl
out=$(A --root r --dbx bad.esl 2>&1)
expect_eq $? 4 "an unparsable --dbx file: 4"
expect_match "$out" "^ktrust: bad.esl: " "the error names the file"

# --- dbx in the variables revokes shim: rejected, GRUB and the kernel untrusted
cp -r r rx
sh=$(pesign -h -i "$D/shimx64.efi.signed" | sed -n 's/^hash: //p')
esl $SHA256 "$sh" >> "$(ls rx/$VARS/dbx-*)"
j=$(A --root rx --json)
expect_eq $? 5 "dbx revokes shim: exit 5"
expect_eq "$(sec chain '[.links[] | .verdict]' <<<"$j")" '["rejected","untrusted","untrusted"]' "shim rejected, the rest untrusted"
expect_match "$(sec chain '.links[1].hint' <<<"$j")" \
    "signed by Debian Secure Boot Signer.*shim is not trusted: load the vendor certificate from shim \(.ktrust load-pe-key --keyring platform rx/boot/efi/EFI/debian/shimx64.efi. with the Microsoft CA in platform\) or pass .--trust CA." \
    "the hint names what would vouch and how"
expect_eq "$(sec modules '[.trusted, .not_loading[0].count, .not_loading[0].verdict]' <<<"$j")" "[0,$n_ko,\"untrusted\"]" \
    "no module loads"
expect_match "$(sec modules '.not_loading[0].reason' <<<"$j")" "the kernel is not trusted" "modules grouped by reason"
expect_match "$(sec modules '.not_loading[0].hint' <<<"$j")" "the kernel is not trusted: fix the kernel link first" "module hint"
rm -rf rx

# --- an SbatLevel in the variables revoking GRUB: the kernel is never loaded
cp -r r rs
rm -f rs/$VARS/SbatLevel-*
# (0x06, BS|RT: the attribute word of shim's SbatLevelRT mirror, as in the
# corpus; 0x07 would be an SbatLevel with RT, which shim replaces: #23)
{ printf '\x06\x00\x00\x00'; printf 'sbat,1,2099010100\nshim,4\ngrub.debian,6\n'; } > "$(ls rs/$VARS/SbatLevelRT-*)"
j=$(A --root rs --json)
expect_eq $? 5 "SbatLevel revokes GRUB: exit 5"
expect_eq "$(sec sbat '[.current, .next_boot]' <<<"$j")" '["2099010100","2099010100"]' "a newer level is kept"
expect_eq "$(sec chain '[.links[] | .verdict]' <<<"$j")" '["trusted","rejected","rejected"]' "GRUB revoked, kernel never loaded"
expect_match "$(sec chain '.links[1].reason' <<<"$j")" "revoked by SBAT: grub.debian 5 < 6" "GRUB's reason"
expect_match "$(sec chain '.links[2].reason' <<<"$j")" "never loaded: shim refused the loader" "kernel's reason"
rm -rf rs

# --- a module without a signature: grouped, the worst verdict is the exit code
cp -r r rm1
head -c 4096 "$(ls "$D"/modules/*.ko | head -1)" > rm1/lib/modules/6.1.0-57-amd64/kernel/zz-cut.ko
j=$(A --root rm1 --json)
expect_eq $? 1 "an unsigned module: exit 1"
expect_eq "$(sec modules '[.total, .trusted, .not_loading[0].verdict, .not_loading[0].modules]' <<<"$j")" \
    "[$((n_ko + 1)),$n_ko,\"unsigned\",[\"kernel/zz-cut.ko\"]]" "the cut module, by name"
rm -rf rm1

# --- a module signed by a key no keyring holds (the kernel trusted): the hint
# names the signer and MOK with MokListTrustedRT
cp -r r rm2
openssl req -x509 -newkey rsa:2048 -nodes -keyout acme.key -out acme.pem -days 30 \
    -subj "/O=Acme Corp/CN=Acme Module Signing" -addext extendedKeyUsage=codeSigning 2>/dev/null
head -c 5000 /dev/urandom > acme.ko
openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 -nosmimecap \
    -signer acme.pem -inkey acme.key -in acme.ko -out acme.p7s 2>/dev/null
python3 - acme.ko acme.p7s <<'PY'
import struct, sys
sig = open(sys.argv[2], "rb").read()
with open(sys.argv[1], "ab") as f:
    f.write(sig + struct.pack(">BBBBBxxxI", 0, 0, 2, 0, 0, len(sig)) + b"~Module signature appended~\n")
PY
cp acme.ko rm2/lib/modules/6.1.0-57-amd64/kernel/acme.ko
j=$(A --root rm2 --json)
expect_eq $? 2 "a module no key vouches for: exit 2"
expect_eq "$(sec modules '[.trusted, .not_loading[0].verdict, .not_loading[0].modules[0]]' <<<"$j")" \
    "[$n_ko,\"untrusted\",\"kernel/acme.ko\"]" "grouped as untrusted"
expect_match "$(sec modules '.not_loading[0].hint' <<<"$j")" \
    "signed by a key .*, which no builtin, secondary or machine key holds: enroll its certificate in MOK .*mokutil --trust-mok" \
    "the hint names the signer and MOK"
rm -rf rm2

# --- parts missing --------------------------------------------------------
mkdir -p esp-only/boot/efi/EFI/debian
cp "$D/shimx64.efi.signed" esp-only/boot/efi/EFI/debian/shimx64.efi
j=$(A --root esp-only --json)
expect_eq $? 2 "only a shim, no db: untrusted (2)"
expect_eq "$(sec parts '[.efivars.found, .esp.found, .kernel.found, .modules.found]' <<<"$j")" \
    '[false,true,false,false]' "what is found"
expect_eq "$(sec chain '[.links[] | [.present, .verdict]]' <<<"$j")" '[[true,"untrusted"],[false,null],[false,null]]' \
    "missing links reported as missing"
expect_match "$(sec chain '.links[0].hint' <<<"$j")" "no db variable was found" "the shim hint says why"
expect_eq "$(summ .counts.parts_missing <<<"$j")" 3 "three parts missing"
out=$(A --root esp-only)
expect_match "$out" "loader  missing \(looked for esp-only/boot/efi/EFI/debian/grubx64.efi\)" "missing loader in text"
# explicit paths, BOOTX64.EFI fallback on an ESP given with --esp
mkdir -p esp2/EFI/BOOT
cp "$D/shimx64.efi.signed" esp2/EFI/BOOT/BOOTX64.EFI
cp "$D/grubx64.efi.signed" esp2/EFI/BOOT/grubx64.efi
j=$(A --root empty-does-not-matter --esp esp2 --efivars "$EV" --kernel "$D/vmlinuz-6.1.0-57-amd64" --modules "$D/modules" --json 2>/dev/null)
expect_eq $? 66 "--root that does not exist: 66"
expect_eq "$(summ '[.schema, .verdict, .exit, .error]' <<<"$j")" \
    '[1,null,66,"empty-does-not-matter: cannot open: No such file or directory"]' \
    "--json and a root that does not exist: the summary object still, with the error"
j=$(A --esp esp2 --efivars "$EV" --kernel "$D/vmlinuz-6.1.0-57-amd64" --modules "$D/modules" --json)
expect_eq $? 0 "explicit --esp --efivars --kernel --modules: trusted"
expect_eq "$(sec chain '[.links[] | .file]' <<<"$j")" \
    "[\"esp2/EFI/BOOT/BOOTX64.EFI\",\"esp2/EFI/BOOT/grubx64.efi\",\"$D/vmlinuz-6.1.0-57-amd64\"]" "BOOTX64.EFI, GRUB beside it"
expect_eq "$(sec modules .total <<<"$j")" "$n_ko" "--modules DIR"
mkdir nothing
out=$(A --root nothing)
expect_eq $? 66 "nothing at all: 66"
expect_match "$out" "summary: nothing to audit" "says so"
expect_exit 64 "an argument: usage" -- A r

# --- the live system: whatever it lacks is reported --------------------------
j=$(A --json)
rc=$?
expect_eq "$(jq -e . <<<"$j" >/dev/null && echo ok)" ok "live: JSON"
if [ ! -d /sys/firmware/efi/efivars ] && [ ! -d "/lib/modules/$(uname -r)" ] && [ ! -e /boot/efi/EFI ] \
    && [ ! -e /efi/EFI ] && [ ! -e /boot/EFI ] && [ ! -e "/boot/vmlinuz-$(uname -r)" ]; then
    expect_eq $rc 66 "live, no EFI, no kernel, no modules: 66"
    expect_eq "$(summ '[.verdict, .exit, .counts.parts_missing]' <<<"$j")" '[null,66,4]' "live summary"
    expect_match "$(A 2>&1)" "no EFI variables \(not booted with UEFI" "live text says why"
else
    expect_eq "$(summ .exit <<<"$j")" $rc "live: exit code as the summary says"
fi

# --- progress on stderr: on a terminal only, cleared at the end ---------------
if command -v script >/dev/null; then
    p=$(script -qec "'$KTRUST' audit --root r --json >/dev/null" /dev/null | tr '\r' '\n')
    expect_eq "$(grep -c 'verifying modules' <<<"$p")" "$n_ko" "one progress update per module on a tty"
    expect_match "$(grep 'verifying modules' <<<"$p" | tail -1)" "verifying modules $n_ko/$n_ko" "last update"
fi
expect_eq "$(wc -c < full.err)" 0 "no progress when stderr is not a tty" # the first run's

# --- an empty modules folder: no module, no crash (qsort of nothing; UBSan in make asan-check)
mkroot r0
rm -f r0/lib/modules/6.1.0-57-amd64/kernel/*.ko
j=$(A --root r0 --json); rc=$?
expect_eq "$rc" 0 "empty modules folder: exit 0"
expect_eq "$(sec modules '.total // .count // 0' <<<"$j" | head -1)" 0 "empty modules folder: no module counted"
# --- DOT --------------------------------------------------------------------
A --root esp-only --dot audit.dot >/dev/null
expect_match "$(cat audit.dot)" 'shim \[label="shim.*untrusted", fillcolor=gold\]' "untrusted shim coloured"
expect_match "$(cat audit.dot)" 'loader \[label="loader.*missing' "missing loader drawn"
if command -v dot >/dev/null; then
    dot -Tsvg audit.dot > audit.svg
    expect_eq $? 0 "graphviz renders it"
    dot -Tsvg full.dot > full.svg # drawn by the full root's text run
    expect_eq $? 0 "graphviz renders the full root"
    expect_match "$(cat full.svg)" "palegreen" "trusted links green"
elif [ -n "${CI:-}" ]; then
    bad "graphviz (dot) not installed"
fi
echo "audit: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
