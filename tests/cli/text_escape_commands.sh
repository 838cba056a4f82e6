#!/bin/bash
# Every command's text output cannot be forged by its input (#23 item 7; audit
# has its own test, audit_text_escape.sh): certificates whose CN holds a
# newline and a fake verdict line ("\ntrusted: forged line"), ESC[2J, a C1 CSI
# (U+009B), a right-to-left override (U+202E) and a byte that is not UTF-8,
# used as the signer of a module, a PE and a PKCS#7 message, in an ESL, in a
# keyring; an .sbat column with the same; file names with a newline; error
# lines.  Each command prints exactly the lines of the same output for a plain
# name (the oracle: the same fixture with a plain CN), no raw control byte,
# no line of its own for the fake verdict.  JSON keeps the raw strings.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
need_python_cryptography
for tool in openssl sbsign objcopy jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1

# gen NAME plain|evil|bad: a self-signed code-signing certificate (NAME.pem,
# .der, .key) whose CN is plain, or holds the forgery; "bad" adds a byte that
# is not UTF-8 (openssl refuses to load that one: the library's input only)
cat > gen.py <<'PY'
import datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa, padding
from cryptography.x509.oid import NameOID, ExtendedKeyUsageOID
out, kind = sys.argv[1], sys.argv[2]
k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
cn = "Plain Signer" if kind == "plain" else "Evil\ntrusted: forged line\x1b[2J\u009b\u202eQ"
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
now = datetime.datetime(2024, 1, 1)
c = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(k.public_key())
     .serial_number(7).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=3650))
     .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), False)
     .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), False)
     .sign(k, hashes.SHA256()))
der = c.public_bytes(serialization.Encoding.DER)
tbs = c.tbs_certificate_bytes
# the last character of the CN (subject and issuer) patched: ESC, or 0xff
tail = {"plain": b"Q", "evil": b"\x1b", "bad": b"\xff"}[kind]
if kind != "plain":
    tbs = tbs.replace(b"\xe2\x80\xaeQ", b"\xe2\x80\xae" + tail)
def tlv(tag, body):
    n = len(body)
    ln = bytes([n]) if n < 0x80 else b"\x81" + bytes([n]) if n < 0x100 else b"\x82" + n.to_bytes(2, "big")
    return bytes([tag]) + ln + body
i = der.index(c.tbs_certificate_bytes) + len(c.tbs_certificate_bytes)
alg = der[i:i + 2 + der[i + 1]]
new = tlv(0x30, tbs + alg + tlv(0x03, b"\x00" + k.sign(tbs, padding.PKCS1v15(), hashes.SHA256())))
open(out + ".der", "wb").write(new)
open(out + ".pem", "wb").write(b"-----BEGIN CERTIFICATE-----\n" +
    __import__("base64").encodebytes(new) + b"-----END CERTIFICATE-----\n")
open(out + ".key", "wb").write(k.private_bytes(serialization.Encoding.PEM,
    serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()))
PY
$PY gen.py plain plain && $PY gen.py evil evil && $PY gen.py bad bad || { bad "fixtures"; finish; }
# esl NAME.der > out: one X509 EFI_SIGNATURE_LIST
esl() { efi esl --x509 "$1"; }

# clean NAME FILE: valid UTF-8; no C0 control but newline and tab, no DEL, no
# C1 control, no bidirectional override or isolate; no line that is the fake
# verdict ("trusted: forged")
clean() {
    local why
    why=$($PY - "$2" <<'PY'
import re, sys
b = open(sys.argv[1], "rb").read()
try:
    s = b.decode("utf-8")
except UnicodeDecodeError as e:
    print("not UTF-8: %r" % b[max(0, e.start - 20):e.end + 5]); sys.exit()
m = re.search("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]", s)
if m:
    print("raw %r in %r" % (m.group(), s[max(0, m.start() - 20):m.end() + 5])); sys.exit()
for line in s.split("\n"):
    if line.lstrip().startswith("trusted: forged"):
        print("a forged line: %r" % line); sys.exit()
PY
)
    if [ -z "$why" ]; then ok; else bad "$1: $why"; fi
}
# same NAME PLAIN-FILE EVIL-FILE: as many lines as the output for a plain name
same() {
    expect_eq "$(wc -l < "$3")" "$(wc -l < "$2")" "$1: one line per line of the plain output"
    clean "$1" "$3"
}
# run OUT -- CMD...: stdout and stderr of CMD into OUT
run() { local o=$1; shift 2; "$@" > "$o" 2>&1; }

# --- x509 show, esl show: the non-UTF-8 certificate too ----------------------
for c in evil bad; do
    run x.plain -- "$KTRUST" x509 show plain.pem
    run x.$c -- "$KTRUST" x509 show $c.pem
    same "x509 show ($c)" x.plain x.$c
    esl plain.der > plain.esl; esl $c.der > $c.esl
    run e.plain -- "$KTRUST" esl show plain.esl
    run e.$c -- "$KTRUST" esl show $c.esl
    same "esl show ($c)" e.plain e.$c
done
expect_match "$(cat x.bad)" '^  description: +Evil\\x0atrusted: forged line\\x1b\[2J\\u009b\\u202e\\xff: 07$' \
    "x509 show: the description on one line, escaped"
expect_match "$(cat x.bad)" '^  subject: +CN=Evil\\0Atrusted: forged line\\1B\[2J\\u009b\\u202e' \
    "x509 show: the subject as the library escapes it (\\0A), the rest escaped"
expect_match "$(cat e.evil)" '^    Evil\\x0atrusted: forged line\\x1b\[2J\\u009b\\u202e\\x1b: 07$' "esl show: the description"
expect_eq "$("$KTRUST" x509 show --json bad.pem | jq -r '.description' | head -1)" "Evil" \
    "JSON: the raw description (jq decodes the newline)"

# --- verify-module: trusted (signer, trusted by) and untrusted (issuer name) -
head -c 4096 /dev/urandom > body
printf '\x7fELF' | dd of=body bs=1 conv=notrunc status=none
for c in plain evil; do
    sign_module body $c.ko $c.pem $c.key || bad "sign_module $c"
    run m.$c -- "$KTRUST" verify-module -v --trust $c.pem $c.ko
    run mu.$c -- "$KTRUST" verify-module -v --trust bad.pem $c.ko
done
sed -i 's/^plain\.ko/evil.ko/' m.plain mu.plain
same "verify-module trusted" m.plain m.evil
same "verify-module untrusted" mu.plain mu.evil
expect_match "$(cat m.evil)" '^    trusted by: Evil\\x0atrusted: forged line' "verify-module: trusted by, escaped"
expect_match "$(cat mu.evil)" '^    signer: issuer CN=Evil\?trusted: forged line\?\[2J' "verify-module: signer's issuer, escaped"
# a module whose file name holds the fake line
cp body "u"$'\n'"trusted: forged.ko"
run mn -- "$KTRUST" verify-module --trust evil.pem "u"$'\n'"trusted: forged.ko"
expect_eq "$(wc -l < mn)" 1 "verify-module: one line"
expect_match "$(cat mn)" '^u\\x0atrusted: forged\.ko: unsigned' "verify-module: the file name on one line"

# --- verify-pkcs7: the signer's certificate in the message -------------------
printf 'signed data\n' > data
for c in plain evil; do
    openssl cms -sign -binary -outform DER -md sha256 -nosmimecap -signer $c.pem -inkey $c.key \
        -in data -out $c.p7s 2>/dev/null || bad "openssl cms $c"
    run p.$c -- "$KTRUST" verify-pkcs7 -v --trust $c.pem --data data $c.p7s
    run pu.$c -- "$KTRUST" verify-pkcs7 -v --trust bad.pem --data data $c.p7s
done
sed -i 's/^plain\.p7s/evil.p7s/' p.plain pu.plain
same "verify-pkcs7 trusted" p.plain p.evil
same "verify-pkcs7 untrusted" pu.plain pu.evil
expect_match "$(cat pu.evil)" '^    signer: Evil\\x0atrusted: forged line' "verify-pkcs7: the signer, escaped"

# --- verify-pe, load-pe-key: sbsign'd wrappers; sbat show --------------------
"$KTRUST" wrap-key plain.pem -o w.efi >/dev/null || bad "wrap-key"
"$KTRUST" wrap-key bad.pem -o w.bad.efi >/dev/null || bad "wrap-key bad"
for c in plain evil; do
    w=w.efi; [ $c = evil ] && w=w.bad.efi # the wrapped key named by load-pe-key
    sbsign_pe $w $c.efi $c || bad "sbsign $c"
    run v.$c -- "$KTRUST" verify-pe -v --trust $c.pem $c.efi
    run vu.$c -- "$KTRUST" verify-pe -v --trust bad.pem $c.efi
    run l.$c -- "$KTRUST" load-pe-key --store $c.db --trust $c.pem $c.efi
done
sed -i 's/^plain\.efi/evil.efi/' v.plain vu.plain l.plain
same "verify-pe trusted" v.plain v.evil
same "verify-pe untrusted" vu.plain vu.evil
same "load-pe-key" l.plain l.evil
expect_match "$(cat l.evil)" '^  \+ Evil\\x0atrusted: forged line\\x1b\[2J\\u009b\\u202e\\xff: 07$' "load-pe-key: the key added, escaped"
# .sbat columns: ESC, U+202E, 0xff, a C1 CSI as UTF-8 and as one byte
add_sbat() { objcopy --add-section .sbat="$2" --set-section-flags .sbat=contents,alloc,load,readonly,data w.efi "$1"; }
printf 'sbat,1,SBAT Version,sbat,1,https://x\ngrub,1,Plain Vendor,grub,2,https://y\n' > plain.csv
printf 'sbat,1,SBAT Version,sbat,1,https://x\ngrub,1,Evil\x1b[2J\xe2\x80\xae\xff\xc2\x9b\x9b,grub,2,https://y\n' > evil.csv
add_sbat s.plain.efi plain.csv; add_sbat s.evil.efi evil.csv
run s.plain -- "$KTRUST" sbat show s.plain.efi
run s.evil -- "$KTRUST" sbat show s.evil.efi
same "sbat show" s.plain s.evil
expect_match "$(cat s.evil)" '^  grub,1,Evil\\x1b\[2J\\u202e\\xff\\u009b\\x9b,grub,2,https://y$' "sbat show: the column escaped"
expect_eq "$("$KTRUST" sbat show --json s.evil.efi | jq -r '.entries[1].vendor' | head -c 5 | od -An -tx1)" \
    " 45 76 69 6c 1b" "JSON: the raw column (jq decodes the ESC)"

# --- keyring add/list/remove: tab-separated fields stay four -----------------
S=$T/k.db
N="k"$'\n'"trusted: forged"$'\t'"x.pem"
cp evil.pem "$N"
"$KTRUST" keyring create evilring --store "$S" --restrict none >/dev/null 2>&1
run ka -- "$KTRUST" keyring add --store "$S" --keyring evilring bad.pem "$N"
expect_eq "$(cat ka)" "ktrust: added 2 to evilring" "keyring add"
run kl -- "$KTRUST" keyring list --store "$S" --keyring evilring
expect_eq "$(wc -l < kl)" 2 "keyring list: one line per key"
expect_eq "$(awk -F'\t' '{print NF}' kl | sort -u)" 4 "keyring list: four fields on each line"
clean "keyring list" kl
expect_match "$(cat kl)" $'\t''file:k\\x0atrusted: forged\\x09x\.pem$' "keyring list: the source file name escaped"
run kr -- "$KTRUST" keyring remove --store "$S" --keyring evilring --dry-run --all 07
expect_eq "$(wc -l < kr)" 3 "keyring remove: one line per key (and the total)"
clean "keyring remove" kr

# --- scan: a file name with the fake line ------------------------------------
mkdir tree
cp evil.ko "tree/u"$'\n'"trusted: forged.ko"; cp w.efi tree/
run sc -- "$KTRUST" scan --trust evil.pem tree
clean "scan" sc
expect_match "$(cat sc)" '^tree/u\\x0atrusted: forged\.ko: trusted$' "scan: the file name on one line"

# --- check-update: db vouches, named by the certificate ----------------------
run cu.plain -- "$KTRUST" check-update --dbx bad.esl --db plain.pem plain.efi
run cu.evil -- "$KTRUST" check-update --dbx bad.esl --db evil.pem evil.efi
sed -i 's/^plain\.efi/evil.efi/' cu.plain
same "check-update" cu.plain cu.evil
expect_match "$(cat cu.evil)" '^  signed by db: Evil\\x0atrusted: forged line' "check-update: the db certificate escaped"

# --- kernel-keys: a vmlinux whose builtin list holds the certificate ---------
# (the layout of certs/system_certificates.S, as tests/fixtures/make_kimage.sh)
for c in plain bad; do
    $PY - $c.der vmlinux.$c <<'PY'
import os, struct, sys
der = open(sys.argv[1], "rb").read()
b = b"\x7fELF" + os.urandom(3000)
b += bytes(-len(b) % 8) + der + bytes(4096) + struct.pack("<I", 0)
b += bytes(-len(b) % 8) + struct.pack("<QQ", len(der), len(der)) + os.urandom(3000)
open(sys.argv[2], "wb").write(b)
PY
    run kk.$c -- "$KTRUST" kernel-keys vmlinux.$c
done
sed -i 's/^vmlinux\.plain/vmlinux.bad/' kk.plain
same "kernel-keys" kk.plain kk.bad
expect_match "$(cat kk.bad)" '^  description: +Evil\\x0atrusted: forged line' "kernel-keys: the description escaped"

# --- verify-var --list: a db update whose payload holds the certificate -------
if command -v sign-efi-sig-list >/dev/null; then
    for c in plain bad; do
        sign-efi-sig-list -t "2024-01-01 00:00:00" -k plain.key -c plain.pem db $c.esl $c.auth \
            >/dev/null 2>&1 || bad "sign-efi-sig-list $c"
        run vv.$c -- "$KTRUST" verify-var --var db --kek plain.pem --list $c.auth
    done
    sed -i 's/^plain\.auth/bad.auth/' vv.plain
    same "verify-var --list" vv.plain vv.bad
    expect_match "$(cat vv.bad)" '^    x509: Evil\\x0atrusted: forged line\\x1b\[2J\\u009b\\u202e\\xff: 07$' \
        "verify-var: the payload's certificate escaped"
else
    echo "verify-var part skipped: sign-efi-sig-list not installed"
fi

# --- chain: db and module file names (the corpus's shim, GRUB, kernel) -------
C=${KTRUST_CORPUS:-$KT_SRC/../shared/corpus}
if [ -f "$C/README.md" ]; then
    D=$C/debian
    cp evil.pem "db"$'\n'"trusted: forged.pem"
    cp evil.ko "m"$'\n'"trusted: forged.ko"
    links=("$D/shimx64.efi.signed" "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64")
    run ch.plain -- "$KTRUST" chain --db evil.pem "${links[@]}" evil.ko
    run ch.evil -- "$KTRUST" chain --db "db"$'\n'"trusted: forged.pem" "${links[@]}" "m"$'\n'"trusted: forged.ko"
    same "chain" ch.plain ch.evil
    expect_match "$(cat ch.evil)" '^db: db\\x0atrusted: forged\.pem$' "chain: the db file name on one line"
    expect_match "$(cat ch.evil)" ' module m\\x0atrusted: forged\.ko: untrusted' "chain: the module's name on one line"
else
    echo "chain part skipped: corpus not found"
fi

# --- error lines: file names, usage errors, library reasons ------------------
run er1 -- "$KTRUST" verify-pe "no"$'\n'"trusted: forged.efi"
expect_eq "$(wc -l < er1)" 1 "a missing file: one error line"
clean "missing file" er1
run er2 -- "$KTRUST" verify-pe --purpose "x"$'\n'"trusted: forged" w.efi
expect_eq "$(wc -l < er2)" 1 "a usage error: one line"
clean "usage error" er2
run er3 -- "$KTRUST" $'\e[2J'"trusted"
expect_eq "$(wc -l < er3)" 1 "an unknown command: one line"
clean "unknown command" er3
printf 'x' > "bad"$'\n'"trusted: forged.esl"
run er4 -- "$KTRUST" esl show "bad"$'\n'"trusted: forged.esl"
expect_eq "$(wc -l < er4)" 1 "a malformed ESL: one error line"
clean "malformed ESL" er4
run er5 -- "$KTRUST" keyring list --store "$S" --keyring $'no\nsuch'
expect_eq "$(wc -l < er5)" 1 "an unknown keyring: one error line"
clean "unknown keyring" er5
finish
