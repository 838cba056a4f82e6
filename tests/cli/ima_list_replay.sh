#!/usr/bin/env bash
# ima-list: a measurement list written by tests/fixtures/imalist.py from the
# kernel's description (ima_fs.c, ima_template_lib.c, ima_crypto.c,
# ima_queue.c), the oracle for PCR 10: the binary and the ASCII form, every
# template (ima, ima-ng, ima-sig), a violation (zeros listed, all ones
# extended), replayed in sha1 and sha256 to the generator's PCR 10; the
# boot_aggregate against PCRs 0-9; the list altered, the TPM's value off,
# a truncated list, a per-bank file name.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
gen() { python3 "$KT_SRC/tests/fixtures/imalist.py" "$@"; }
gen --entries 40 --template mix --signed-every 3 --violation-at 7 --binary l.bin --ascii l.txt --pcrs p.txt

for f in l.bin l.txt; do
    out=$("$KTRUST" ima-list "$f" --pcrs p.txt 2>&1)
    expect_eq "$?" 0 "$f: replays to the TPM's PCR 10"
    expect_match "$out" "^  sha1    10 match $(awk '$1=="sha1" && $2==10 {print $3}' p.txt)" "$f: sha1 PCR 10"
    expect_match "$out" "^  sha256  10 match $(awk '$1=="sha256" && $2==10 {print $3}' p.txt)" "$f: sha256 PCR 10"
    expect_match "$out" "40 entries \(1 violation\), templates ima 13, ima-ng 13, ima-sig 14" "$f: entries"
    expect_match "$out" "^boot_aggregate \(sha256\) matches PCRs 0-9" "$f: boot_aggregate"
done

# evmctl ima_measurement (ima-evm-utils), a second oracle: it replays the
# same binary lists (one template each: it refuses mixed lists) to the same
# PCR 10 in both banks, violations extended as all ones (--ignore-violations)
for tpl in ima-sig ima-ng; do
    gen --entries 30 --template $tpl --signed-every 4 --violation-at 5 --binary e.bin --pcrs ep.txt
    for b in sha1 sha256; do awk -v b=$b '$1==b {printf "PCR-%02d: %s\n", $2, $3}' ep.txt >"e_$b"; done
    evmctl ima_measurement --ignore-violations --pcrs sha1,e_sha1 --pcrs sha256,e_sha256 e.bin >evm.out 2>&1
    expect_eq "$?" 0 "$tpl: evmctl matches the generator's PCR 10"
    expect_exit 0 "$tpl: ktrust matches the same PCR 10" -- "$KTRUST" ima-list e.bin --pcrs ep.txt
    awk '$1=="sha1" && $2==10 {$3="00" substr($3,3)} {print}' ep.txt >ebad.txt
    awk '$1=="sha1" {printf "PCR-%02d: %s\n", $2, $3}' ebad.txt >e_sha1
    evmctl ima_measurement --ignore-violations --pcrs sha1,e_sha1 e.bin >evm.out 2>&1
    expect_eq "$?" 1 "$tpl: evmctl refuses another sha1 PCR 10"
    expect_exit 5 "$tpl: ktrust refuses it too" -- "$KTRUST" ima-list e.bin --pcrs ebad.txt
done

# the 'ima' template's boot_aggregate is the SHA-1 one over PCRs 0-7
gen --entries 3 --template ima --binary i.bin --pcrs ip.txt
out=$("$KTRUST" ima-list i.bin --pcrs ip.txt 2>&1)
expect_eq "$?" 0 "'ima' template: replays"
expect_match "$out" "^boot_aggregate \(sha1\) matches PCRs 0-7" "'ima' template: SHA-1 boot_aggregate"

# -v: every entry, the violation said
out=$("$KTRUST" ima-list l.bin -v --pcrs p.txt 2>&1)
expect_match "$out" "^       7 10 ima-sig   sha1:0{40} /usr/bin/file0006  VIOLATION" "-v: the violation"
expect_eq "$(printf '%s\n' "$out" | grep -c '^ *[0-9]* 10 ima')" 40 "-v: one line an entry"

# the TPM holds another PCR 10: exit 5, the two values said
awk '$1=="sha256" && $2==10 {$3="00" substr($3,3)} {print}' p.txt >bad.txt
out=$("$KTRUST" ima-list l.bin --pcrs bad.txt 2>&1)
expect_eq "$?" 5 "PCR 10 differs: exit 5"
expect_match "$out" "^  sha256  10 MISMATCH: the list replays to [0-9a-f]{64}, the TPM holds 00" "mismatch line"
expect_match "$out" "^  sha1    10 match" "the other bank still matches"

# PCR 0 differs: the boot_aggregate does not match
awk '$1=="sha256" && $2==0 {$3="00" substr($3,3)} {print}' p.txt >bad0.txt
out=$("$KTRUST" ima-list l.bin --pcrs bad0.txt 2>&1)
expect_eq "$?" 5 "boot_aggregate differs: exit 5"
expect_match "$out" "^boot_aggregate \(sha256\) MISMATCH" "boot_aggregate mismatch line"

# a file name changed in the list: its data no longer hashes to its digest
cp l.bin alt.bin
off=$(grep -boa 'file0002' alt.bin | head -1 | cut -d: -f1)
flip alt.bin "$off"
out=$("$KTRUST" ima-list alt.bin --pcrs p.txt 2>&1)
expect_eq "$?" 5 "altered list: exit 5"
expect_match "$out" "1 entry whose template data does not hash to the listed digest \(the first: entry 3\)" "altered entry named"

# truncated: exit 4, the field and the offset
head -c $(($(stat -c %s l.bin) - 7)) l.bin >trunc.bin
out=$("$KTRUST" ima-list trunc.bin 2>&1)
expect_eq "$?" 4 "truncated: exit 4"
expect_match "$out" "^ktrust: trunc.bin: .*truncated.*\(at offset [0-9]+\)" "truncated: field and offset"
printf '10 zz ima-ng x y\n' >junk.txt
out=$("$KTRUST" ima-list junk.txt 2>&1)
expect_eq "$?" 4 "a bad ASCII line: exit 4"
expect_match "$out" "line 1: template digest" "bad ASCII line named"
# a PCR index no TPM has
python3 -c 'import sys; d=open("l.bin","rb").read(); sys.stdout.buffer.write(b"\x18"+d[1:])' >pcr24.bin
out=$("$KTRUST" ima-list pcr24.bin 2>&1)
expect_eq "$?" 4 "PCR 24: exit 4"
expect_match "$out" "pcr: 24 is no PCR" "PCR 24 named"

# an empty file is no list: the kernel's starts with boot_aggregate
: >empty.bin
expect_exit 4 "an empty list: malformed" -- "$KTRUST" ima-list empty.bin

# --root: the live path under a root
mkdir -p root/sys/kernel/security/ima root/sys/class/tpm/tpm0/pcr-sha256 root/sys/class/tpm/tpm0/pcr-sha1
cp l.bin root/sys/kernel/security/ima/binary_runtime_measurements
while read -r b i v; do echo "$v" >"root/sys/class/tpm/tpm0/pcr-$b/$i"; done <p.txt
out=$("$KTRUST" ima-list --root root 2>&1)
expect_eq "$?" 0 "--root: the list and the TPM's PCR files under it"
expect_match "$out" "^  sha256  10 match" "--root: PCR 10 checked against the root's TPM files"

# a per-bank file (a newer kernel's binary_runtime_measurements_sha256):
# its digests are sha256; read as such, the sha256 bank replays from them
python3 - <<'PY'
import hashlib, struct
d = open("l.bin", "rb").read()
out, o = bytearray(), 0
while o < len(d):
    pcr, dg = d[o:o+4], d[o+4:o+24]
    n = struct.unpack_from("<I", d, o + 24)[0]
    name = d[o+28:o+28+n]
    p = o + 28 + n
    if name == b"ima":
        body = d[p:p+20+4+struct.unpack_from("<I", d, p+20)[0]]
        hashed = d[p:p+20] + d[p+24:p+24+len(body)-24].ljust(256, b"\0")
    else:
        body = d[p:p+4+struct.unpack_from("<I", d, p)[0]]
        hashed = body[4:]
    s256 = bytes(32) if dg == bytes(20) else hashlib.sha256(hashed).digest()
    out += pcr + s256 + d[o+24:o+28+n] + body
    o = p + len(body)
open("binary_runtime_measurements_sha256", "wb").write(out)
PY
out=$("$KTRUST" ima-list binary_runtime_measurements_sha256 --bank sha256 --pcrs p.txt 2>&1)
expect_eq "$?" 0 "per-bank sha256 list: replays"
expect_match "$out" "^  sha256  10 match" "per-bank sha256 list: PCR 10"
finish
