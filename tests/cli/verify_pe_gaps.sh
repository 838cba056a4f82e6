#!/bin/bash
# Gaps between sections: the image digest hashes the rest of the file from
# offset SumOfBytesHashed (the header range's and the sections' sizes added
# up), as the kernel (pefile_digest_pe_contents), shim and EDK2 do, not from
# the end of the last section.  With a gap, the end of the last section is
# hashed twice and the gap itself is not hashed, except the part of it that
# lies past SumOfBytesHashed when the gap is longer than the last section.
# Oracles: sbverify (and sbsign, which signs that digest), pesign -h (the
# same digest of the unsigned image).  osslsigncode hashes the file linearly
# (the gap included), a digest the kernel would refuse: so does ktrust.
. "$(dirname "$0")/../lib/common.sh"
for tool in sbsign sbverify pesign osslsigncode python3; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
openssl req -x509 -newkey rsa:2048 -nodes -keyout k.key -out k.pem -days 3650 \
    -subj "/CN=gap signer" 2>/dev/null
"$KTRUST" wrap-key -q k.pem -o w.efi || { bad "wrap-key"; finish; }
gap() { python3 "$KT_SRC/tests/fixtures/pe_gap.py" "$@"; }
sign() { sbsign --key k.key --cert k.pem --output "$2" "$1" >/dev/null 2>&1; }
digest() { "$KTRUST" verify-pe --json --trust k.pem "$1" | sed -n 's/.*"digest":"\([0-9a-f]*\)".*/\1/p'; }
verdict() { "$KTRUST" verify-pe -q --trust k.pem "$1"; echo $?; }
sbv() { sbverify --cert k.pem "$1" >/dev/null 2>&1; echo $?; }
# the last section's size (raw), for a gap longer than it
lastsize=$(python3 -c '
import struct,sys
d=open(sys.argv[1],"rb").read(); c=struct.unpack_from("<I",d,0x3C)[0]+4
n,=struct.unpack_from("<H",d,c+2); o,=struct.unpack_from("<H",d,c+16)
h=[c+20+o+40*i for i in range(n)]
l=max(h,key=lambda x: struct.unpack_from("<I",d,x+20)[0]); print(struct.unpack_from("<I",d,l+16)[0])' w.efi)
[ "$lastsize" -gt 0 ] && ok || bad "the last section's size: '$lastsize'"

for g in 512 $((lastsize + 512)); do
    gap w.efi g$g.efi $g
    sign g$g.efi g$g.signed.efi
    expect_eq "$(sbv g$g.signed.efi)" 0 "gap $g: sbverify verifies sbsign's signature"
    expect_eq "$(verdict g$g.signed.efi)" 0 "gap $g: trusted, as sbverify and the kernel's rule say"
    expect_eq "$(digest g$g.signed.efi)" "$(pesign -h -i g$g.efi | sed -n 's/^hash: //p')" \
        "gap $g: ktrust's image digest is pesign's"
    # a byte of the gap that no digest range covers: both still verify
    raw=$(python3 -c '
import struct,sys
d=open(sys.argv[1],"rb").read(); c=struct.unpack_from("<I",d,0x3C)[0]+4
n,=struct.unpack_from("<H",d,c+2); o,=struct.unpack_from("<H",d,c+16)
h=[c+20+o+40*i for i in range(n)]
print(max(struct.unpack_from("<I",d,x+20)[0] for x in h))' g$g.signed.efi)
    cp g$g.signed.efi head.efi
    flip head.efi $((raw - g))
    expect_eq "$(sbv head.efi) $(verdict head.efi)" "0 0" "gap $g: its first byte is not signed (sbverify, ktrust)"
    # the end of the last section (hashed twice) is signed
    end=$((raw + lastsize - 1))
    cp g$g.signed.efi tail.efi
    flip tail.efi $end
    expect_eq "$(sbv tail.efi) $(verdict tail.efi)" "1 5" "gap $g: the last section's last byte is signed"
done
# a gap longer than the last section: its last 512 bytes lie past
# SumOfBytesHashed and are hashed
g=$((lastsize + 512))
cp g$g.signed.efi late.efi
flip late.efi $((raw - 10))
expect_eq "$(sbv late.efi) $(verdict late.efi)" "1 5" "long gap: its end (past SumOfBytesHashed) is signed"

# osslsigncode signs a linear digest (the gap hashed): not what the kernel computes
osslsigncode sign -certs k.pem -key k.key -in g512.efi -out g512.ossl.efi >/dev/null 2>&1 ||
    bad "osslsigncode sign"
expect_eq "$(sbv g512.ossl.efi) $(verdict g512.ossl.efi)" "1 5" \
    "osslsigncode's digest of a gapped image: rejected (sbverify agrees)"
finish
