#!/bin/bash
# Debian's module hash check (db-mok-keyring/0003, "MODSIGN: checking the
# blacklisted hash before loading a kernel module"): after a module's
# signature verifies, mod_is_hash_blacklisted takes the SHA-256 of the whole
# module as loaded (content, PKCS#7, struct module_signature and the
# "~Module signature appended~" marker) and refuses it when that hash is a
# bin: hash of the blacklist (dbx, MokListXRT).  Mainline has no such check.
# A module signed by a trusted key whose file hash is in dbx: rejected under
# the corpus Debian kernel, trusted under a mainline build of it (banner
# rewritten); hashes of other bytes (the content, the file without the
# marker, another module) change nothing.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_sign_file
need_tools jq xz
cd "$T" || exit 1
K=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
openssl req -new -x509 -newkey rsa:2048 -nodes -keyout our.key -out our.crt -days 30 \
    -subj "/CN=ktrust-modhash" -addext extendedKeyUsage=codeSigning 2>/dev/null || bad "key"
# crc7 and crc-itu-t without Debian's signature, signed by our key; big.ko:
# over the size held whole when compressed (KT_MODSIG_WHOLE_MAX), streamed
python3 - "$CORPUS/debian/modules/crc7.ko" "$CORPUS/debian/modules/dccp_ipv6.ko" <<'EOF'
import struct, sys
m = b"~Module signature appended~\n"
def bare(p):
    d = open(p, "rb").read()
    n = struct.unpack(">I", d[-len(m) - 4:-len(m)])[0]
    return d[:-len(m) - 12 - n]
open("mod.ko", "wb").write(bare(sys.argv[1]))
open("other.ko", "wb").write(bare(sys.argv[2]))
open("big.ko", "wb").write(bare(sys.argv[1]) + bytes(9 << 20))
EOF
cp mod.ko content.ko
for f in mod other big; do "$SIGN_FILE" sha256 our.key our.crt $f.ko || bad "sign-file $f"; done
xz -k -T1 -3 mod.ko && xz -k -T1 -3 big.ko
head -c -28 mod.ko > nomarker.bin
banner() { kernel_banner "$K" "$@"; }
banner mainline "(debian-kernel@lists.debian.org)" "(builder@kernel.example.invalid)" \
    "Debian 6.1.192-3" "SMP 6.1.192-3  "
banner epoch "Debian 6.1.192-3" "Debian 1:6.1.9-1" # a version the parser does not read
# stores: dbx holds the whole file's hash (what the patch hashes), or that
# of other bytes
store() { # NAME FILE...
    efi esl --sha256-of "${@:2}" -o $1.esl
    "$KTRUST" keyring add -q --store $1.db --keyring blacklist $1.esl || bad "dbx into $1"
}
store file mod.ko big.ko
store content content.ko
store nomarker nomarker.bin
store other other.ko
H=$(sha256sum mod.ko | cut -d' ' -f1)
vm() { "$KTRUST" verify-module --trust our.crt "$@"; }

expect_exit 0 "no hash listed, Debian kernel: trusted" -- vm -q --kernel "$K" mod.ko
out=$(vm --store file.db --kernel "$K" mod.ko 2>&1); rc=$?
expect_eq "$rc" 5 "Debian 6.1.192-3, the module's file hash in dbx: rejected"
expect_match "$out" "module hash $H .*Debian's db-mok-keyring module hash check" \
    "the reason names the hash and the patch"
j=$(vm --json --store file.db --kernel "$K" mod.ko 2>/dev/null | head -1)
expect_eq "$(jq -r .verdict <<<"$j")" rejected "JSON: rejected"
expect_exit 0 "a mainline build of the same kernel: trusted (the check is Debian's)" -- \
    vm -q --store file.db --kernel mainline mod.ko
expect_exit 0 "no --kernel: mainline's rule, trusted" -- vm -q --store file.db mod.ko
expect_exit 5 "a Debian version with an epoch: still Debian's check, rejected" -- \
    vm -q --store file.db --kernel epoch mod.ko
expect_exit 5 ".ko.xz: the decompressed file's hash, rejected" -- \
    vm -q --store file.db --kernel "$K" mod.ko.xz
expect_exit 5 "a module over 8 MiB compressed (streamed): rejected" -- \
    vm -q --store file.db --kernel "$K" big.ko.xz
expect_exit 0 "another module's hash in dbx: this one trusted" -- \
    vm -q --store other.db --kernel "$K" mod.ko
expect_exit 5 "... and that one rejected" -- vm -q --store other.db --kernel "$K" other.ko
expect_exit 0 "the hash of the content without its signature: no match" -- \
    vm -q --store content.db --kernel "$K" mod.ko
expect_exit 0 "the hash of the file without the marker: no match" -- \
    vm -q --store nomarker.db --kernel "$K" mod.ko
expect_exit 2 "a key in no keyring: untrusted (the hash is looked up after a good signature only)" -- \
    "$KTRUST" verify-module -q --store file.db --kernel "$K" mod.ko
out=$("$KTRUST" scan --trust our.crt --store file.db --kernel "$K" mod.ko other.ko 2>/dev/null)
expect_match "$out" "mod.ko: rejected" "scan: the listed module rejected"
expect_match "$out" "other.ko: trusted" "scan: the other trusted"

# chain: firmware -> systemd-boot -> UKI (Debian's or a mainline kernel), the
# module signed by a db key (.platform, Debian's retry) and its hash in dbx
if sdboot_ukis our.key our.crt deb="$K"; then
    v() { jq -r 'select(.role == "module") | .verdict' | paste -sd' '; }
    j=$("$KTRUST" chain --json --db our.crt sdboot.efi deb.efi mod.ko other.ko)
    expect_eq "$(v <<<"$j")" "trusted trusted" "chain, Debian UKI, empty dbx: both trusted"
    j=$("$KTRUST" chain --json --db our.crt --dbx file.esl sdboot.efi deb.efi mod.ko other.ko)
    expect_eq "$(v <<<"$j")" "rejected trusted" "chain, the module's hash in dbx: rejected, the other trusted"
    expect_match "$(jq -r 'select(.role == "module") | .reason' <<<"$j" | head -1)" \
        "module hash $H" "chain: the reason names the hash"
else
    echo "note: chain part skipped (sbsign, objcopy or systemd-boot-efi missing)"
fi
finish
