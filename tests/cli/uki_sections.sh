#!/bin/bash
# uki show: what the stub takes from a section's header, on UKIs whose
# section headers are edited after objcopy: VirtualSize above SizeOfRawData
# (the loaded bytes end in zeros: measured, digest over the zero fill),
# VirtualSize 0 (the stub's "not found": empty, not measured), a section
# past SizeOfImage (EDK2 refuses: malformed, 4), SizeOfImage over 1 GiB (not
# modelled, 3).
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup python3
printf 'root=/dev/vda1' >cmdline
printf 'ID=debian\n' >osrel
"$MK" uki.efi .linux=$K .osrel=osrel .cmdline=cmdline >/dev/null || exit $?
# edit NAME FIELD VALUE IN OUT: a section header's VirtualSize ("vsize") or
# the optional header's SizeOfImage ("image")
edit() {
    python3 - "$@" <<'PY'
import struct, sys
name, field, value, src, dst = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), sys.argv[4], sys.argv[5]
d = bytearray(open(src, "rb").read())
pe = struct.unpack_from("<I", d, 0x3C)[0]
n, opt = struct.unpack_from("<H", d, pe + 6)[0], struct.unpack_from("<H", d, pe + 20)[0]
if field == "image":
    struct.pack_into("<I", d, pe + 24 + 56, value)
for i in range(n):
    s = pe + 24 + opt + 40 * i
    if field == "vsize" and d[s:s + 8].rstrip(b"\0") == name.encode():
        struct.pack_into("<I", d, s + 8, value)
open(dst, "wb").write(d)
PY
}
edit .cmdline vsize 0x300 uki.efi zerofill.efi
want=$(python3 - <<'PY'
import hashlib, struct
d = open("zerofill.efi", "rb").read()
pe = struct.unpack_from("<I", d, 0x3C)[0]
n, opt = struct.unpack_from("<H", d, pe + 6)[0], struct.unpack_from("<H", d, pe + 20)[0]
for i in range(n):
    s = pe + 24 + opt + 40 * i
    if d[s:s + 8].rstrip(b"\0") == b".cmdline":
        raw, ptr = struct.unpack_from("<II", d, s + 16)
        print(hashlib.sha256(d[ptr:ptr + raw] + bytes(0x300 - raw)).hexdigest())
PY
)
j=$("$KTRUST" uki show --json zerofill.efi)
expect_eq "$(jq -r '.sections[] | select(.name == ".cmdline") | "\(.role) \(.size) \(.sha256)"' <<<"$j")" \
    "measured 768 $want" "VirtualSize above the raw data: measured with its zero fill"
[ "$(jq -r '.pcr11.sha256.stub' <<<"$j")" != "$("$KTRUST" uki show --json uki.efi | jq -r '.pcr11.sha256.stub')" ] &&
    ok || bad "the zero fill changes PCR 11"
edit .osrel vsize 0 uki.efi empty.efi
e=$("$KTRUST" uki show --json empty.efi)
expect_eq "$(jq -r '.sections[] | select(.name == ".osrel") | .role' <<<"$e")" empty "VirtualSize 0: empty"
"$MK" noosrel.efi .linux=$K .cmdline=cmdline >/dev/null
expect_eq "$(jq -r '.pcr11.sha256.ready' <<<"$e")" \
    "$("$KTRUST" uki show --json noosrel.efi | jq -r '.pcr11.sha256.ready')" \
    "an empty .osrel is not measured: PCR 11 as without it"
edit .cmdline vsize 0x10000000 uki.efi past.efi
out=$("$KTRUST" uki show past.efi 2>&1)
expect_eq "$?" 4 "a section past SizeOfImage: malformed"
expect_match "$out" "SizeOfImage" "said"
edit "" image 0x80000000 uki.efi huge.efi
expect_exit 3 "SizeOfImage over 1 GiB: not modelled" -- "$KTRUST" uki show huge.efi
finish
