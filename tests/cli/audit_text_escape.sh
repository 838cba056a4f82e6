#!/bin/bash
# ktrust audit's text output cannot be forged by its input (#23 item 7, audit
# only): a certificate in db whose subject holds a newline and a fake summary
# line, a module whose file name does, a root directory whose name does, and
# ANSI escapes: each printed on its own line with the control characters
# escaped (\x0a, \x1b), so exactly one "summary:" line, the real one.  JSON
# keeps the raw strings (it escapes on its own).
. "$(dirname "$0")/../lib/common.sh"
corpus
need_python_cryptography
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
D=$CORPUS/debian
EV=$CORPUS/peers/shim-efivars/efivars-1
REL=6.1.0-57-amd64
VARS=sys/firmware/efi/efivars
FAKE='summary: every link present is trusted; 0 parts missing; 0 modules would not load'
R=$'r\nsummary: forged by the root name'
mkdir -p "$R/boot/efi/EFI/debian" "$R/lib/modules/$REL/kernel" "$R/sys/firmware/efi"
cp "$D/shimx64.efi.signed" "$R/boot/efi/EFI/debian/shimx64.efi"
cp "$D/grubx64.efi.signed" "$R/boot/efi/EFI/debian/grubx64.efi"
cp "$D/vmlinuz-$REL" "$R/boot/"
cp -r "$EV" "$R/$VARS"
# an unsigned module whose name carries a fake summary line
head -c 4096 "$(ls "$D"/modules/*.ko | head -1)" > "$R/lib/modules/$REL/kernel/x"$'\n'"$FAKE.ko"
# and one with a right-to-left override, a byte that is not UTF-8, a C1 CSI, a backslash
head -c 4096 "$(ls "$D"/modules/*.ko | head -1)" > "$R/lib/modules/$REL/kernel/y"$'\xe2\x80\xae\xff\xc2\x9b\\'".ko"
# db gains a certificate whose CN holds a newline, the fake line and ESC[2J
PYTHONPATH="$KT_SRC/tests/fixtures" $PY - "$R/$VARS" "$FAKE" <<'PY'
import datetime, glob, sys
import efi as E
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
d, fake = sys.argv[1], sys.argv[2]
k = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Evil"),
                  x509.NameAttribute(NameOID.COMMON_NAME, "Evil CA\n" + fake[:38] + "\x1b[2J")])
now = datetime.datetime(2024, 1, 1)
c = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(k.public_key())
     .serial_number(7).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
     .sign(k, hashes.SHA256()))
with open(glob.glob(d + "/db-*")[0], "ab") as f:
    f.write(E.esl_x509(c.public_bytes(serialization.Encoding.DER)))
PY
out=$("$KTRUST" audit --root "$R")
rc=$?
expect_eq "$(grep -c '^summary:' <<<"$out")" 1 "one summary line: the real one"
expect_match "$(grep '^summary:' <<<"$out")" "^summary: unsigned; " "the real summary (an unsigned module)"
expect_eq $rc 1 "exit: the unsigned module"
expect_match "$out" '- Evil CA\\x0asummary: every link present is trusted\\x1b\[2J: ' \
    "the certificate's name on one line, newline and ESC escaped"
expect_match "$out" "      kernel/x\\\\x0a$FAKE.ko" "the module's name on one line"
expect_match "$out" '^ktrust audit of r\\x0asummary: forged by the root name$' "the root's name on one line"
expect_eq "$(grep -c $'\x1b' <<<"$out")" 0 "no raw escape character"
expect_match "$out" '      kernel/y\\u202e\\xff\\u009b\\\\\.ko' "bidi override, bad byte, C1, backslash escaped"
expect_match "$out" "The Uncoöperative Organization" "UTF-8 text as it is"
# JSON keeps the raw strings
j=$("$KTRUST" audit --root "$R" --json)
expect_eq "$(jq -r 'select(.section == "firmware") | .variables[] | select(.name == "db") | .certificates[]' <<<"$j" |
    grep -c '^summary: every link')" 1 "JSON: the name as it is (jq decodes the newline)"
expect_eq "$(jq -c 'select(.section == "modules") | .not_loading[0].modules | map(select(startswith("kernel/x")))' <<<"$j")" \
    "$(jq -cn --arg m "kernel/x"$'\n'"$FAKE.ko" '[$m]')" "JSON: the module's name as it is"
echo "audit text escape: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
