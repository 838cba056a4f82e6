#!/bin/bash
# ktrust esl show (issue #16 item 8): entries with list/index, type, owner
# GUID, certificate or hash; dbx SVN records decoded, not shown as image
# hashes.  Oracles: efitools (cert-to-efi-sig-list, hash-to-efi-sig-list),
# openssl, and Microsoft's dbx_info JSON for the SVN records.
. "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T"
fp() { openssl x509 -in "$1" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d : | tr A-F a-f; }
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout a.key -out a.pem \
    -subj '/O=Esl Org/CN=Esl Key A' -days 30 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout b.key -out b.pem -subj '/CN=Esl Key B' -days 30 2>/dev/null
cert-to-efi-sig-list -g 11111111-2222-3333-4444-555555555555 a.pem a.esl >/dev/null
cert-to-efi-sig-list -g aabbccdd-eeff-0011-2233-445566778899 b.pem b.esl >/dev/null
head -c 100 /dev/urandom >blob
# a SHA256 list by hand (UEFI spec layout; efitools' hash-to-efi-sig-list
# hashes PE images only)
efi esl --sha256-of blob --owner 01234567-89ab-cdef-0123-456789abcdef -o h.esl
cat a.esl b.esl h.esl >all.esl
{ printf '\x07\x00\x00\x00'; cat all.esl; } >all.var   # efivarfs form

json=$("$KTRUST" esl show --json all.var); rc=$?
expect_eq "$rc" 0 "esl show --json: 0"
rows() { printf '%s\n' "$json" | python3 -c "import sys, json
for l in sys.stdin:
    d = json.loads(l); v = d['value']
    print(d['list'], d['index'], d['type'], d['owner'], v['sha256'] if isinstance(v, dict) else v)"; }
expect_eq "$(rows)" "0 0 x509 11111111-2222-3333-4444-555555555555 $(fp a.pem)
1 0 x509 aabbccdd-eeff-0011-2233-445566778899 $(fp b.pem)
2 0 sha256 01234567-89ab-cdef-0123-456789abcdef $(sha256sum <blob | cut -c1-64)" "every entry: list, index, type, owner (efitools' GUID), certificate sha256 (openssl), hash"
expect_match "$(printf '%s\n' "$json" | head -1)" '"description":"Esl Org: Esl Key A: [0-9a-f]+"' "the certificate object has the kernel description"
text=$("$KTRUST" esl show all.esl)
expect_match "$text" "^all.esl: 0.0 x509 owner 11111111-2222-3333-4444-555555555555" "text: one line per entry"
expect_match "$text" "subject O=Esl Org, CN=Esl Key A" "text: the subject"
expect_match "$text" "all.esl: 3 entries: 2 certificates, 1 hash, 0 SVN records$" "text: totals"

# SVN records in Microsoft's DBXUpdateSVN (a signed update): decoded, and
# equal to what Microsoft's dbx_info JSON says (guid, version major.minor)
X=$CORPUS/peers/secureboot-objects/DBX
got=$("$KTRUST" esl show --json "$X/DBXUpdateSVN.bin" | python3 -c "import sys, json
for l in sys.stdin:
    d = json.loads(l); v = d['value']
    print(d['type'], d['owner'], v['guid'], '%d.%d' % (v['major'], v['minor']))" | sort)
want=$(python3 -c "import json
for s in json.load(open('$X/dbx_info_msft_latest.json'))['svns']:
    print('svn', '9d132b6c-59d5-4388-ab1c-185cfcb2eb92', s['guid'].split('}')[0].strip('{'), s['version'])" | sort)
expect_eq "$got" "$want" "SVN records match Microsoft's dbx_info (guid, version)"
expect_eq "$(echo "$want" | wc -l)" 3 "three SVN records in the oracle"
expect_match "$("$KTRUST" esl show "$X/DBXUpdateSVN.bin")" "0 hashes, 3 SVN records" "text: SVN records are not counted as hashes"
# the same 32 bytes under another owner are an ordinary image hash
python3 - "$X/DBXUpdateSVN.bin" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 16 + struct.unpack_from("<I", d, 16)[0]       # skip EFI_VARIABLE_AUTHENTICATION_2
esl = bytearray(d[off:])
esl[28:44] = bytes(16)                               # first entry's owner: zero GUID
open("notsvn.esl", "wb").write(esl)
PY
expect_match "$("$KTRUST" esl show --json notsvn.esl | head -1)" '"type":"sha256","owner":"00000000-0000-0000-0000-000000000000","value":"01612b139dd5598843ab1c185c3cb2eb92000009' "another owner: a sha256 hash"

# bad inputs: an object each, exit codes
head -c 60 all.esl >trunc.esl
json=$("$KTRUST" esl show --json trunc.esl nope a.pem 2>/dev/null); rc=$?
expect_eq "$rc" 66 "bad inputs: the worst code"
expect_eq "$(printf '%s\n' "$json" | python3 -c "import sys, json
for l in sys.stdin:
    d = json.loads(l); print(d['file'], d['error'])")" "trunc.esl EBADMSG
nope ENOENT
a.pem EBADMSG" "an object for every bad input"
expect_exit 4 "a truncated list: 4" -- "$KTRUST" esl show trunc.esl
expect_exit 64 "no file: usage" -- "$KTRUST" esl show
finish
