#!/bin/bash
# Memory on hostile input (#32): every command keeps its peak resident set
# (getrusage RUSAGE_CHILDREN ru_maxrss, measured by tests/lib/peak_rss.py)
# under 64 MiB, whatever the input: decompression bombs as .ko.xz/.ko.zst/
# .ko.gz, a 100 MiB signed module (streamed: digested as it is decoded, only
# its tail kept), a module whose xz dictionary would need more memory than
# the bound.
. "$(dirname "$0")/../lib/common.sh"

cd "$T"
MAX=64
# under ASan (make asan-check) the shadow memory inflates RSS: the verdicts
# are checked, the bound is not (as in bounded_reads.sh)
SAN=
if objdump -p "$KTRUST" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    SAN=1
    echo "sanitizer build: the peaks are shown, not checked"
fi
peak() { # WANT_EXIT NAME CMD...
    local want=$1 name=$2 out lim=$MAX
    shift 2
    [ -n "$SAN" ] && lim=1000000
    if out=$(python3 "$KT_SRC/tests/lib/peak_rss.py" "$want" "$lim" "$@" 2>&1); then
        ok
    else
        bad "$name: $out"
    fi
    echo "$name: $out"
}

openssl req -x509 -newkey rsa:2048 -nodes -keyout good.key -out good.pem -days 3650 \
    -subj "/CN=Module Key" -addext "keyUsage=digitalSignature" \
    -addext "extendedKeyUsage=codeSigning" 2>/dev/null
# sign IN OUT: scripts/sign-file's layout (PKCS#7, struct module_signature, marker)
sign() {
    openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 -signer good.pem \
        -inkey good.key -in "$1" -out "$2.p7s" -nosmimecap 2>/dev/null || return 1
    python3 - "$1" "$2.p7s" "$2" <<'PY'
import sys
body, sig = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
trailer = bytes([0, 0, 2, 0, 0, 0, 0, 0]) + len(sig).to_bytes(4, "big")
open(sys.argv[3], "wb").write(body + sig + trailer + b"~Module signature appended~\n")
PY
}

# bombs: 320 MiB of zeros (the limit is 256 MiB: refused as malformed)
head -c 16M /dev/zero | xz -1 -T1 > z16.xz
for _ in $(seq 20); do cat z16.xz; done > bomb.ko.xz   # concatenated streams
head -c 320M /dev/zero | zstd -q -1 > bomb.ko.zst
head -c 320M /dev/zero | gzip -1 > bomb.ko.gz
for f in bomb.ko.xz bomb.ko.zst bomb.ko.gz; do
    peak 4 "$f refused" "$KTRUST" verify-module --trust good.pem "$f"
done

# a large module that verifies: 100 MiB, signed, compressed; then one byte
# of its signed content flipped (the second, digesting pass sees it)
{ printf '\177ELF\002\001\001'; head -c 100M /dev/zero; } > big.ko
sign big.ko bigs.ko
cp bigs.ko bigflip_s.ko
flip bigflip_s.ko 1000
xz -1 -T1 -k bigs.ko; zstd -q -k bigs.ko; gzip -1 -k bigs.ko
xz -1 -T1 -c bigflip_s.ko > bigflip.ko.xz
for f in bigs.ko.xz bigs.ko.zst bigs.ko.gz; do
    peak 0 "$f trusted" "$KTRUST" verify-module --trust good.pem "$f"
done
peak 5 "bigflip.ko.xz rejected" "$KTRUST" verify-module --trust good.pem bigflip.ko.xz
# the digest of the signed content, streamed, is sha256sum's over big.ko
expect_match "$("$KTRUST" verify-module --trust good.pem --json bigs.ko.zst)" \
    "\"digest\":\"$(sha256sum big.ko | cut -d' ' -f1)\"" "the streamed digest (sha256sum)"

# an xz stream whose dictionary needs more than the decoder's bound
{ printf '\177ELF\002\001\001'; head -c 100000 /dev/urandom; } > small.ko
sign small.ko smalls.ko
xz -T1 --lzma2=preset=6,dict=128MiB -c smalls.ko > dict.ko.xz
peak 4 "dict.ko.xz refused" "$KTRUST" verify-module --trust good.pem dict.ko.xz
expect_match "$("$KTRUST" verify-module --trust good.pem dict.ko.xz 2>&1)" \
    'decoder memory limit' "the dictionary's limit named"
xz -T1 -c smalls.ko > ok.ko.xz
peak 0 "a default xz module trusted" "$KTRUST" verify-module --trust good.pem ok.ko.xz

# check-update --dbx over a 48 MB ESL (a million SHA-256 entries): the
# hashes are indexed where they lie (4 bytes each), never copied; bound: the
# input plus a fixed 24 MiB.  The image's own hash among them revokes it.
# (the corpus's shim when it is there; else the walk finds no PE)
mkdir esp
img=$KT_SRC/../shared/corpus/debian/shimx64.efi.signed
pehash=
if [ -f "$img" ]; then
    cp "$img" esp/shimx64.efi
    pehash=$("$KTRUST" verify-pe --json esp/shimx64.efi |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["signatures"][0]["digest"])')
fi
PYTHONPATH=$KT_SRC/tests/fixtures python3 - "$pehash" <<'PY'
import hashlib, sys
import efi as E
ds = [hashlib.sha256(i.to_bytes(4, "little")).digest() for i in range(1000000)]
open("huge.esl", "wb").write(E.esl_sha256(*ds))
if sys.argv[1]:
    ds[500000] = bytes.fromhex(sys.argv[1])
    open("huge_hit.esl", "wb").write(E.esl_sha256(*ds))
PY
MAX=$(( $(stat -c %s huge.esl) / 1048576 + 24 ))
peak 0 "check-update --dbx huge.esl" "$KTRUST" check-update --dbx huge.esl esp
if [ -n "$pehash" ]; then
    peak 5 "check-update --dbx huge_hit.esl (revoked)" "$KTRUST" check-update --dbx huge_hit.esl esp
fi
MAX=64

# a PE with the most sections its header can name (65535), each with 512
# bytes of raw data: verify-pe and check-update hash it within the bound
python3 - <<'PY'
import struct
n, raw, align = 65535, 0x200, 0x200
soh = (0x40 + 4 + 20 + 240 + 40 * n + align - 1) // align * align
opt = struct.pack("<HBBIIIIIQIIHHHHHHIIIIHHQQQQII", 0x20B, 14, 0, 0x1000 * n, 0, 0, 0x1000,
                  0x1000, 0x140000000, 0x1000, align, 6, 0, 0, 0, 6, 0, 0, 0x1000 * (n + 1),
                  soh, 0, 10, 0x160, 0x100000, 0x1000, 0x100000, 0x1000, 0, 16) + bytes(16 * 8)
pe = (b"MZ" + bytes(58) + struct.pack("<I", 0x40) + b"PE\0\0" +
      struct.pack("<HHIIIHH", 0x8664, n, 0, 0, 0, 240, 0x22) + opt +
      b"".join(struct.pack("<8sIIIIIIHHI", b".t", 0x1000, 0x1000 * (i + 1), raw, soh + i * raw,
                           0, 0, 0, 0, 0x60000020) for i in range(n)))
open("sections.efi", "wb").write(pe + bytes(soh - len(pe)) + b"\xcc" * (raw * n))
PY
peak 1 "verify-pe: 65535 sections (unsigned)" "$KTRUST" verify-pe sections.efi
mkdir esp2 && cp sections.efi esp2/
efi esl --sha256 "$(printf '%064d' 1)" >small.esl
peak 0 "check-update: 65535 sections" "$KTRUST" check-update --dbx small.esl esp2

# event logs: a million events is refused (a firmware log has hundreds; the
# limit is 65536), one just under the limit is read within the bound
PYTHONPATH=$KT_SRC/tests/fixtures python3 - <<'PY'
import efi as E
ev = E.tcg_event2(8, 0x0D, b"x" * 8)  # EV_IPL
head = E.tcg_specid()
open("million.log", "wb").write(head + ev * 1000000)
open("many.log", "wb").write(head + ev * 65000)
PY
peak 4 "eventlog: a million events refused" "$KTRUST" eventlog million.log
expect_match "$("$KTRUST" eventlog million.log 2>&1)" 'more than 65536 events' "... says why"
peak 0 "eventlog: 65000 events" "$KTRUST" eventlog many.log
peak 0 "eventlog --json: 65000 events" "$KTRUST" eventlog --json many.log
# the IMA measurement list: read in one pass, nothing kept per entry (the
# file plus one entry); a 500,000-entry list (43 MiB mapped) and an ASCII line
# of 40 MiB (refused past the longest line an entry can make)
python3 "$KT_SRC/tests/fixtures/imalist.py" --entries 2 --template ima-ng --binary one.ima
python3 -c 'import sys; d=open("one.ima","rb").read(); sys.stdout.buffer.write(d * 250000)' >many.ima
peak 0 "ima-list: 500,000 entries" "$KTRUST" ima-list -q many.ima
python3 -c 'import sys; sys.stdout.write("10 " + "0" * 40 + " ima-sig sha256:00 /x " + "ab" * (20 << 20) + "\n")' >longline.ima
peak 4 "ima-list: a 40 MiB ASCII line refused" "$KTRUST" ima-list -q longline.ima

finish
