#!/bin/bash
# uki show / uki verify on real UKIs (objcopy + Debian's linuxx64.efi.stub,
# the corpus kernel) signed with sbsign: the sections and their roles as
# systemd 252's stub takes them (duplicates: the last; a longer name taken
# for a known one; .uname unknown), .osrel and .uname decoded; the verdict:
# trusted, untrusted, unsigned, a section changed after signing (rejected),
# SBAT revoked by a level (rejected), no .linux (malformed), not a PE.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl sbsign perl
printf 'ID=debian\nPRETTY_NAME="Debian GNU/Linux 12 \\"bookworm\\""\nVERSION_ID='"'"'12'"'"'\n' >osrel
printf 'root=/dev/vda1 ro' >cmdline
printf '6.1.0-57-amd64\n' >uname
head -c 4096 /dev/urandom >initrd
"$MK" uki.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .uname=uname >/dev/null ||
    exit $?
openssl req -new -x509 -newkey rsa:2048 -nodes -keyout db.key -out db.crt -days 30 \
    -subj /CN=ktrust-uki-test 2>/dev/null
openssl req -new -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.crt -days 30 \
    -subj /CN=other 2>/dev/null
sbsign --key db.key --cert db.crt --output signed.efi uki.efi 2>/dev/null

j=$("$KTRUST" uki show --json uki.efi)
expect_eq "$(jq -r '.type' <<<"$j")" uki "type"
expect_eq "$(jq -r '.stub' <<<"$j")" "$(
    sed -n 's/.*LoaderInfo: \(systemd-stub [^ ]*\) .*/\1/p' \
    < <(strings /usr/lib/systemd/boot/efi/linuxx64.efi.stub) | head -1)" "stub version from .sdmagic"
expect_eq "$(jq -r '.os_release.pretty_name' <<<"$j")" 'Debian GNU/Linux 12 "bookworm"' \
    ".osrel: quotes and escapes"
expect_eq "$(jq -r '.os_release.version_id' <<<"$j")" 12 ".osrel: single quotes"
expect_eq "$(jq -r '.uname' <<<"$j")" 6.1.0-57-amd64 ".uname"
expect_eq "$(jq -r '[.sections[] | select(.role == "measured") | .name] | join(" ")' <<<"$j")" \
    ".osrel .cmdline .linux .initrd" "measured sections, file order"
expect_eq "$(jq -r '.sections[] | select(.name == ".linux") | .sha256' <<<"$j")" \
    "$(sha256sum <"$K" | cut -d' ' -f1)" ".linux digest = the kernel's"
expect_eq "$(jq -r '.sections[] | select(.name == ".uname") | .role' <<<"$j")" unknown ".uname unknown"
expect_eq "$(jq -r '.findings | join(" ")' <<<"$j")" "out_of_order unknown" "findings"

# duplicates: objcopy refuses two sections of one name, so the second is
# renamed in the header afterwards; the stub takes the last
printf 'init=/bin/sh' >evil
"$MK" dup.efi .linux=$K .cmdline=cmdline .cmdlinX=evil >/dev/null
perl -0777 -pi -e 's/\.cmdlinX/.cmdline/' dup.efi
d=$("$KTRUST" uki show --json dup.efi)
expect_eq "$(jq -r '[.sections[] | select(.as == ".cmdline") | .role] | join(" ")' <<<"$d")" \
    "shadowed measured" "duplicate .cmdline: the last wins"
expect_match "$(jq -r '.findings | join(" ")' <<<"$d")" duplicate "duplicate finding"
"$MK" prefix.efi .linux=$K .osrel=osrel .osrelz=evil >/dev/null
p=$("$KTRUST" uki show --json prefix.efi)
expect_eq "$(jq -r '.sections[] | select(.name == ".osrelz") | "\(.role) \(.as)"' <<<"$p")" \
    "measured .osrel" ".osrelz is taken for .osrel (252 compares strlen(name) bytes)"
expect_match "$(jq -r '.findings | join(" ")' <<<"$p")" prefix_name "prefix finding"
expect_match "$("$KTRUST" uki show prefix.efi)" "taken for .osrel" "text names it"

# the kernel in .linux: its builtin keys, so the chain goes on to modules
expect_eq "$("$KTRUST" kernel-keys uki.efi | tail -n +2)" "$("$KTRUST" kernel-keys "$K" | tail -n +2)" \
    "kernel-keys of the UKI = of its kernel"
expect_exit 0 "a Debian module under --kernel UKI" -- \
    "$KTRUST" verify-module --kernel uki.efi "$CORPUS/debian/modules/crc7.ko"

# verdicts
expect_exit 0 "signed, trusted" -- "$KTRUST" uki verify signed.efi --trust db.crt
expect_exit 2 "signed, another key" -- "$KTRUST" uki verify signed.efi --trust other.crt
expect_exit 1 "unsigned" -- "$KTRUST" uki verify uki.efi --trust db.crt
v=$("$KTRUST" uki verify --json signed.efi --trust db.crt)
expect_eq "$(jq -r '"\(.type) \(.verdict) \(.signatures | length)"' <<<"$v")" "uki trusted 1" \
    "verify JSON: verdict and signatures"
expect_eq "$(jq -r '.pcr11.sha256.ready' <<<"$v")" "$(jq -r '.pcr11.sha256.ready' <<<"$j")" \
    "signing does not change PCR 11"
# verify-pe recognises a UKI (and no other PE)
expect_eq "$("$KTRUST" verify-pe --json signed.efi --trust db.crt | jq -r '.uki')" true \
    "verify-pe: a UKI"
expect_match "$("$KTRUST" verify-pe signed.efi --trust db.crt)" "unified kernel image" \
    "verify-pe text: a UKI"
expect_eq "$("$KTRUST" verify-pe --json "$CORPUS/debian/shimx64.efi.signed" | jq -r '.uki')" null \
    "verify-pe: shim is no UKI"
# the UKI flag comes from the verdict's own parse: verify-pe opens the file once
if command -v strace >/dev/null; then
    strace -f -e trace=openat -o pe.trace "$KTRUST" verify-pe signed.efi --trust db.crt >/dev/null
    expect_eq "$(grep -c '"signed.efi"' pe.trace)" 1 "verify-pe opens a UKI once"
fi
# a byte of .cmdline changed after signing
cp signed.efi changed.efi
off=$((16#$(objdump -h changed.efi | awk '$2 == ".cmdline" {print $6}')))
flip changed.efi "$off"
expect_exit 5 "section changed after signing" -- "$KTRUST" uki verify changed.efi --trust db.crt
c=$("$KTRUST" uki show --json changed.efi)
[ "$(jq -r '.pcr11.sha256.ready' <<<"$c")" != "$(jq -r '.pcr11.sha256.ready' <<<"$j")" ] && ok ||
    bad "the changed .cmdline changes PCR 11"
# SBAT: the stub's .sbat says systemd,1; a level at systemd,2 revokes it
printf 'sbat,1,2099010100\nsystemd,2\n' >level
expect_exit 5 "SBAT revoked" -- "$KTRUST" uki verify signed.efi --trust db.crt --sbat-level level
printf 'sbat,1,2099010100\nsystemd,1\n' >level1
expect_exit 0 "SBAT at the level" -- "$KTRUST" uki verify signed.efi --trust db.crt --sbat-level level1
# no .linux: the stub refuses it
"$MK" nolinux.efi .cmdline=cmdline >/dev/null
expect_exit 4 "no .linux (show)" -- "$KTRUST" uki show nolinux.efi
out=$("$KTRUST" uki verify nolinux.efi --trust db.crt 2>&1)
expect_eq "$?" 4 "no .linux (verify)"
expect_match "$out" "no .linux section" "no .linux: said"
# not a PE
head -c 4096 /dev/urandom >junk.efi
expect_exit 4 "not a PE" -- "$KTRUST" uki show junk.efi
expect_exit 66 "missing file" -- "$KTRUST" uki show nonexistent.efi
expect_exit 64 "unknown subcommand" -- "$KTRUST" uki frob uki.efi
expect_exit 64 "unknown bank" -- "$KTRUST" uki show --bank md5 uki.efi
n=$("$KTRUST" uki verify --json signed.efi uki.efi --trust db.crt | tail -1 | jq -r '"\(.type) \(.exit)"')
expect_eq "$n" "summary 1" "several UKIs: the summary"
finish
