#!/bin/bash
# Damaged input keeps its verdict, and the reason says what was found (issue
# #27 item 3): a module cut short, a module missing its last bytes, an empty
# file, data after the marker, a module never signed are all "unsigned" (1,
# the kernel's ENODATA), each with its own reason; a PE cut short says where
# it ends.  Before: every module case said "no '~Module signature appended~'
# marker at the end", and an empty PE "no MZ signature".
source "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T"
M=$CORPUS/debian/modules/crc7.ko
S=$CORPUS/debian/shimx64.efi.signed
size=$(stat -c %s "$M")
# the ELF layout, from python (an oracle independent of ktrust): where the
# section header table ends, and where the signature starts
read -r shoff shend sigstart < <(python3 - "$M" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', d, 0x28)
ent, num = struct.unpack_from('<HH', d, 0x3a)
i = d.rfind(b'~Module signature appended~\n')
siglen, = struct.unpack_from('>I', d, i - 4)
print(shoff, shoff + ent * num, i - 12 - siglen)
PY
)
expect_eq "$shend" "$sigstart" "oracle: the signature follows the section header table"

reason() { $KTRUST --json verify-module "$1" 2>/dev/null | python3 -c 'import sys,json; o=json.loads(sys.stdin.readline()); print(o["verdict"], "|", o["reason"])'; }
check() { # NAME FILE REGEX: exit 1, verdict unsigned, the reason
    local out rc
    out=$($KTRUST verify-module "$2" 2>&1); rc=$?
    expect_eq "$rc" 1 "$1: exit 1 (unsigned)"
    expect_match "$out" "^$2: unsigned \(no module signature marker: $3\)$" "$1: text reason"
    expect_match "$(reason "$2")" "^unsigned \| no module signature marker: $3$" "$1: JSON reason"
}

head -c 5000 "$M" >first5000.ko
check "first 5000 bytes" first5000.ko "the file ends after 5000 bytes, inside the ELF section header table \(bytes $shoff to $shend\): truncated"
head -c $((shoff - 100)) "$M" >early.ko
check "cut inside the sections" early.ko "the file ends after $((shoff - 100)) bytes, inside the ELF sections \(the section header table starts at $shoff\): truncated"
head -c $((size - 10)) "$M" >minus10.ko
check "missing its last 10 bytes" minus10.ko "the file ends after $((size - 10)) bytes, inside the marker \(its first 18 of 28 bytes\): truncated"
head -c "$sigstart" "$M" >never.ko
check "the module without its signature" never.ko "the ELF file ends with its section header table \($sigstart bytes\): never signed"
head -c $((sigstart + 100)) "$M" >sigcut.ko
check "signature cut short" sigcut.ko "100 bytes follow the ELF section header table \(which ends at $sigstart\) but do not end with the marker: a signature cut short, or other data"
{ cat "$M"; printf 'xy'; } >after.ko
check "data after the marker" after.ko "the marker is at offset $((size - 28)), followed by 2 bytes that should not be there"
head -c 30 "$M" >hdr.ko
check "cut inside the ELF header" hdr.ko "the file ends after 30 bytes, inside the 64-byte ELF header"
: >empty.ko
check "empty file" empty.ko "empty file"
expect_match "$($KTRUST verify-module /dev/null 2>&1)" "^/dev/null: unsigned \(no module signature marker: empty file\)$" "/dev/null: empty file"
printf 'hello world\n' >text.ko
check "not ELF" text.ko "not an ELF file \(12 bytes\)"
# the whole module still verifies as before (signed: its verdict is not "unsigned")
out=$($KTRUST verify-module "$M" 2>&1)
expect_eq "$(printf '%s' "$out" | grep -c 'no module signature marker')" 0 "the whole module: no marker complaint"

# verify-pe: a PE cut short says where it ends (malformed, 4)
: >empty.efi
out=$($KTRUST verify-pe empty.efi 2>/dev/null); rc=$?
expect_eq "$rc:$out" "4:empty.efi: malformed (empty file)" "verify-pe: empty file"
head -c 30 "$S" >s30.efi
expect_eq "$($KTRUST verify-pe s30.efi 2>/dev/null)" "s30.efi: malformed (DOS header: the file ends after 30 bytes, inside the 64-byte DOS header)" "verify-pe: cut in the DOS header"
head -c 100 "$S" >s100.efi
expect_match "$($KTRUST verify-pe s100.efi 2>/dev/null)" "^s100.efi: malformed \(DOS header: e_lfanew [0-9]+ points past the end: the file ends after 100 bytes, before the PE and COFF headers" "verify-pe: cut before the PE header"
head -c 1000 "$S" >s1000.efi
expect_match "$($KTRUST verify-pe s1000.efi 2>/dev/null)" "past the end of the file \(1000\)" "verify-pe: cut in the headers: the length"
head -c 1040000 "$S" >s1040000.efi
expect_match "$($KTRUST verify-pe s1040000.efi 2>/dev/null)" "certificate table \([0-9]+ bytes at [0-9]+\) runs past the end of the file \(1040000\)" "verify-pe: cut in the certificate table"
finish
