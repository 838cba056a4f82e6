#!/bin/bash
# Modules signed by a .platform key (the UEFI db): a mainline kernel's
# mod_verify_sig searches builtin, secondary and machine only and refuses
# them; Debian's kernels (db-mok-keyring patch, 5.3.9-1 to 6.0, and again
# from 6.1.20-2) search .platform too when those find no key.  The kernel is
# told by its banner: the corpus kernel ("... Debian 6.1.192-3 ...") against
# the same image with the banner of a mainline build and of Debian 6.1.20-1
# (before the patch came back).  A booted 6.1.192-3 loads such a module
# (tests/boot/uki.py, uki_measured); a blacklisted key or a key in no
# keyring is refused whatever the kernel.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_sign_file
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
K=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
MOD=$CORPUS/debian/modules/crc7.ko
for n in db other; do
    openssl req -new -x509 -newkey rsa:2048 -nodes -keyout $n.key -out $n.crt -days 30 \
        -subj "/CN=ktrust-$n" -addext extendedKeyUsage=codeSigning 2>/dev/null || bad "key $n"
done
# crc7 without Debian's signature, signed by our db key and by another key
python3 - "$MOD" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
m = b"~Module signature appended~\n"
n = struct.unpack(">I", d[-len(m) - 4:-len(m)])[0]
open("bare.ko", "wb").write(d[:-len(m) - 12 - n])
EOF
for n in db other; do cp bare.ko $n.ko; "$SIGN_FILE" sha256 $n.key $n.crt $n.ko || bad "sign-file $n"; done
# the same kernel image with another banner (same length: the setup header's
# pointer stays; the builtin keys are in the compressed payload, untouched)
banner() { kernel_banner "$K" "$@"; }
banner mainline "(debian-kernel@lists.debian.org)" "(builder@kernel.example.invalid)" \
    "Debian 6.1.192-3" "SMP 6.1.192-3  "
banner deb6120-1 "Debian 6.1.192-3" "Debian 6.1.20-1"
banner deb6120-2 "Debian 6.1.192-3" "Debian 6.1.20-2"
banner deb510 "Debian 6.1.192-3" "Debian 5.10.21-1"
banner debrc "Debian 6.1.192-3" "Debian 6.1~rc3-1"
banner deb62 "Debian 6.1.192-3" "Debian 6.2.7-1"
banner deb63rc "Debian 6.1.192-3" "Debian 6.3~rc7-1"
banner deb63 "Debian 6.1.192-3" "Debian 6.3.7-1"
"$KTRUST" keyring add -q --store s.db --keyring platform db.crt || bad "db key into platform"

# the Debian kernel: trusted, and the verdict names .platform and the patch
out=$("$KTRUST" verify-module --store s.db --kernel "$K" db.ko 2>/dev/null)
expect_eq "$?" 0 "Debian 6.1.192-3: a db-signed module loads (.platform retry)"
expect_match "$out" "trusted \(via \.platform: Debian's db-mok-keyring patch" "the text names .platform"
j=$("$KTRUST" verify-module --json --store s.db --kernel "$K" db.ko 2>/dev/null | head -1)
expect_eq "$(jq -r '"\(.verdict) \(.keyring) \(.via)"' <<<"$j")" \
    "trusted platform Debian's db-mok-keyring patch" "JSON: verdict, keyring, via"
expect_eq "$(jq -r '.signatures[0].trusted_by' <<<"$j" | cut -d: -f1)" ktrust-db "JSON: the db key vouched"
# the other kernels: mainline's rule
expect_exit 2 "a mainline build of the same kernel: untrusted" -- \
    "$KTRUST" verify-module -q --store s.db --kernel mainline db.ko
expect_exit 2 "Debian 6.1.20-1 (the patch dropped in 6.1~rc3, back in 6.1.20-2): untrusted" -- \
    "$KTRUST" verify-module -q --store s.db --kernel deb6120-1 db.ko
expect_exit 0 "Debian 6.1.20-2: trusted" -- "$KTRUST" verify-module -q --store s.db --kernel deb6120-2 db.ko
expect_exit 0 "Debian 5.10 (bullseye): trusted" -- "$KTRUST" verify-module -q --store s.db --kernel deb510 db.ko
expect_exit 2 "Debian 6.1~rc3-1 (the refresh that dropped it): untrusted" -- \
    "$KTRUST" verify-module -q --store s.db --kernel debrc db.ko
# the 6.2 and 6.3~rc experimental uploads came before the patch was back
# (6.1.20-2): not known to carry it, so mainline's rule
expect_exit 2 "Debian 6.2.7-1 (experimental, before the patch came back): untrusted" -- \
    "$KTRUST" verify-module -q --store s.db --kernel deb62 db.ko
expect_exit 2 "Debian 6.3~rc7-1: untrusted" -- "$KTRUST" verify-module -q --store s.db --kernel deb63rc db.ko
expect_exit 0 "Debian 6.3.7-1: trusted" -- "$KTRUST" verify-module -q --store s.db --kernel deb63 db.ko
expect_exit 2 "no --kernel: mainline's rule assumed" -- "$KTRUST" verify-module -q --store s.db db.ko
j=$("$KTRUST" verify-module --json --store s.db --kernel mainline db.ko 2>/dev/null | head -1)
expect_eq "$(jq -r '"\(.keyring) \(.via)"' <<<"$j")" "null null" "mainline: no keyring/via in JSON"
# never trusted wrongly: a key in no keyring, a blacklisted db key
expect_exit 2 "Debian kernel, a key in no keyring: untrusted" -- \
    "$KTRUST" verify-module -q --store s.db --kernel "$K" other.ko
cp s.db bl.db
"$KTRUST" keyring add -q --store bl.db --keyring blacklist db.crt || bad "db key into blacklist"
expect_exit 5 "Debian kernel, the db key blacklisted: rejected (no retry after a rejection)" -- \
    "$KTRUST" verify-module -q --store bl.db --kernel "$K" db.ko
# Debian's own signature: builtin, no retry, no via
j=$("$KTRUST" verify-module --json --store s.db --kernel "$K" "$MOD" 2>/dev/null | head -1)
expect_eq "$(jq -r '"\(.verdict) \(.keyring)"' <<<"$j")" "trusted null" "a builtin-signed module: no via"
# scan takes the same rule
out=$("$KTRUST" scan --store s.db --kernel "$K" db.ko other.ko 2>/dev/null)
expect_match "$out" "db.ko: trusted \(via \.platform" "scan: the db-signed module via .platform"
expect_match "$out" "other.ko: untrusted" "scan: the other key's module untrusted"

# chain: firmware -> systemd-boot -> UKI (our db key), modules behind it
if sdboot_ukis db.key db.crt deb="$K" mainline=mainline; then
    v() { jq -r 'select(.role == "module") | .verdict' | paste -sd' '; }
    j=$("$KTRUST" chain --json --db db.crt sdboot.efi deb.efi db.ko other.ko)
    expect_eq "$(v <<<"$j")" "trusted untrusted" "chain, Debian UKI: db-signed trusted, other untrusted"
    expect_match "$(jq -r 'select(.role == "module") | .reason' <<<"$j" | head -1)" \
        "vouches via \.platform \(Debian's db-mok-keyring patch" "chain: the reason names .platform"
    j=$("$KTRUST" chain --json --db db.crt sdboot.efi mainline.efi db.ko)
    expect_eq "$(v <<<"$j")" "untrusted" "chain, a mainline UKI: the db-signed module untrusted"
    efi esl --x509 db.crt -o dbx.esl
    openssl req -new -x509 -newkey rsa:2048 -nodes -keyout db2.key -out db2.crt -days 30 \
        -subj "/CN=ktrust-db2" 2>/dev/null
    sbsign --key db2.key --cert db2.crt --output sdboot2.efi $SDBOOT_EFI 2>/dev/null
    sbsign --key db2.key --cert db2.crt --output deb2.efi deb.unsigned 2>/dev/null
    j=$("$KTRUST" chain --json --db db2.crt --db db.crt --dbx dbx.esl sdboot2.efi deb2.efi db.ko)
    expect_eq "$(v <<<"$j")" "rejected" "chain, Debian UKI, the module's db key also in dbx: rejected"
else
    echo "note: chain part skipped (sbsign, objcopy or systemd-boot-efi missing)"
fi
finish
