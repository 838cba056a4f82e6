#!/bin/bash
# audit's rollover section (the 2023 certificates): which Microsoft CAs KEK,
# db and dbx hold (the corpus dumps: efivars-1 with KEK CA 2011 only, the
# QEMU store with no 2023 CA; states built by adding certificates from
# secureboot_objects/certs), ready / at risk / not ready and why; the corpus
# shim (both signatures), a 2023-only and a 2011-only shim (its 2011 or 2023
# WIN_CERTIFICATE stripped; sbverify --list is the oracle) today, without
# UEFI CA 2011 in db and with it in dbx; PKfail (a PK made with "DO NOT
# TRUST" in its subject; one a kek_update_map.json lists as a test key);
# the KEK update for this PK (map given, PK in it or not); every finding
# says what to do; JSON objects typed rollover and finding; a bad map.
. "$(dirname "$0")/../lib/common.sh"
corpus
need_python_cryptography
for tool in jq openssl sbverify; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
FX="$PY $KT_SRC/tests/fixtures/rollover.py"
D=$CORPUS/debian
CE=$CORPUS/peers/secureboot-objects/certs
MAP=$CORPUS/peers/secureboot-objects/tree/PostSignedObjects/KEK/kek_update_map.json
QEMU=$CORPUS/peers/ovmf-swtpm-boot/efivars
EV1=$CORPUS/peers/shim-efivars/efivars-1
KEK11=$CE/MicCorKEKCA2011_2011-06-24.der
KEK23=$CE/microsoft-corporation-kek-2k-ca-2023.der
UEFI23=$CE/microsoft-uefi-ca-2023.der
UEFI11=$CE/MicCorUEFCA2011_2011-06-27.der
OROM23=$CE/microsoft-option-rom-uefi-ca-2023.der
A() { "$KTRUST" audit "$@"; }
ro() { jq -c 'select(.type == "rollover")'; }

$FX strip-sig "$D/shimx64.efi.signed" shim2023.efi 1
$FX strip-sig "$D/shimx64.efi.signed" shim2011.efi 0
expect_match "$(sbverify --list shim2023.efi 2>/dev/null | grep -A1 issuers)" "CN=Microsoft UEFI CA 2023" "oracle: 2023-only"
expect_match "$(sbverify --list shim2011.efi 2>/dev/null | grep -A1 issuers)" "CN=Microsoft Corporation UEFI CA 2011" "oracle: 2011-only"

# root SHIM VARS: an offline root with that shim and the corpus GRUB
root() {
    rm -rf "r-$1"
    mkdir -p "r-$1/boot/efi/EFI/debian" "r-$1/sys/firmware/efi"
    cp "$2" "r-$1/boot/efi/EFI/debian/shimx64.efi"
    cp "$D/grubx64.efi.signed" "r-$1/boot/efi/EFI/debian/grubx64.efi"
    cp -r "$3" "r-$1/sys/firmware/efi/efivars"
}

# ---- the corpus dumps ----
out=$(A --efivars "$EV1" --json | ro)
expect_eq "$(echo "$out" | jq -r '.state')" not_ready "efivars-1: not ready"
expect_eq "$(echo "$out" | jq -c '[.cas[] | select(.kek) | .name]')" '["Microsoft Corporation KEK CA 2011"]' "efivars-1: KEK holds KEK CA 2011 only"
expect_eq "$(echo "$out" | jq -c '[.cas[] | select(.db) | .name]')" \
    '["Microsoft Corporation UEFI CA 2011","Microsoft Windows Production PCA 2011"]' "efivars-1: db's Microsoft CAs"
expect_eq "$(echo "$out" | jq -r '.cas[] | select(.name == "Microsoft Corporation UEFI CA 2011") | .not_after')" 2026-06-27 "expiry date"
expect_eq "$(echo "$out" | jq -r '[.findings[].id] | join(" ")')" \
    "no_uefi_ca_2023 no_kek_2023 option_roms no_windows_ca_2023" "efivars-1: findings"
expect_match "$(echo "$out" | jq -r '.findings[0].todo')" \
    "^apply DBUpdate3P2023.bin \(signed under Microsoft Corporation KEK CA 2011, which this KEK holds\)" "efivars-1: what to do"
expect_eq "$(echo "$out" | jq -r '[.findings[].type] | unique | join(" ")')" finding "findings are typed"
expect_eq "$(echo "$out" | jq -r '.findings[] | select(.todo == "" or .what == "") | .id')" "" "every finding says what to do"
# the expected SHA-256 of the table is the certificates' own (openssl)
expect_eq "$(echo "$out" | jq -r '.cas[] | select(.name == "Microsoft UEFI CA 2023") | .sha256')" \
    "$(openssl x509 -inform der -in "$UEFI23" -noout -fingerprint -sha256 | sed 's/.*=//; s/://g' | tr A-F a-f)" "table: UEFI CA 2023 SHA-256"
expect_eq "$(echo "$out" | jq -r '.pk.sha1')" \
    "$(openssl x509 -inform der -in <(tail -c +$((4 + 28 + 16 + 1)) "$EV1"/PK-*) -noout -fingerprint -sha1 2>/dev/null | sed 's/.*=//; s/://g' | tr A-F a-f)" "PK SHA-1 thumbprint"
expect_eq "$(echo "$out" | jq -r '.pk.pkfail')" false "efivars-1: PK is no test key"
txt=$(A --efivars "$EV1")
expect_match "$txt" "rollover \(the 2023 certificates\): NOT READY — db lacks Microsoft UEFI CA 2023; KEK lacks Microsoft Corporation KEK 2K CA 2023" "text: the summary line"

# ---- the QEMU store with the corpus shim (dual-signed): boots by its 2011 signature only ----
root qemu "$D/shimx64.efi.signed" "$QEMU"
out=$(A --root r-qemu --json | ro)
expect_eq "$(echo "$out" | jq -r '.state')" not_ready "QEMU: not ready"
expect_eq "$(echo "$out" | jq -c '.images[0].boots')" \
    '{"today":true,"uefi_ca_2011_removed":false,"uefi_ca_2011_in_dbx":false}' "QEMU: dual shim today / after"
expect_eq "$(echo "$out" | jq -c '[.images[0].signatures[] | .microsoft_ca]')" \
    '["Microsoft Corporation UEFI CA 2011","Microsoft UEFI CA 2023"]' "QEMU: the shim's two signatures"
expect_match "$(echo "$out" | jq -r '.images[0].signatures[0].accepted_by.today')" "^Microsoft Corporation UEFI CA 2011: " "QEMU: 2011 signature accepted today"
expect_eq "$(echo "$out" | jq -r '.images[0].signatures[1].accepted_by.today')" null "QEMU: 2023 signature accepted by nothing"
expect_eq "$(echo "$out" | jq -c '.images[1].boots')" \
    '{"today":true,"uefi_ca_2011_removed":false,"uefi_ca_2011_in_dbx":false}' "QEMU: GRUB falls with shim"
expect_match "$(echo "$out" | jq -r '[.findings[].id] | join(" ")')" "shim_2011_only" "QEMU: finding shim_2011_only"

# ---- db + UEFI CA 2023 (KEK still 2011 only): at risk ----
$FX efivars "$QEMU" q23 db+=$UEFI23
root q23 "$D/shimx64.efi.signed" q23
out=$(A --root r-q23 --json | ro)
expect_eq "$(echo "$out" | jq -r '.state')" at_risk "db + 2023: at risk"
expect_eq "$(echo "$out" | jq -r '.why')" "KEK lacks Microsoft Corporation KEK 2K CA 2023" "db + 2023: why"
expect_eq "$(echo "$out" | jq -c '.images[0].boots')" \
    '{"today":true,"uefi_ca_2011_removed":true,"uefi_ca_2011_in_dbx":false}' "db + 2023: dual shim survives removal, not revocation"
expect_match "$(echo "$out" | jq -r '.images[0].signatures[1].accepted_by.uefi_ca_2011_removed')" "^Microsoft UEFI CA 2023: " "db + 2023: its 2023 signature carries it"
expect_match "$(echo "$out" | jq -r '[.findings[].id] | join(" ")')" "shim_dbx_2011" "db + 2023: the dbx note"
# the map: this PK (Debian's test PK) is not in it
out=$(A --root r-q23 --kek-map "$MAP" --json | ro)
expect_eq "$(echo "$out" | jq -r '.kek_update')" "" "map given, PK absent: empty"
expect_match "$(echo "$out" | jq -r '.findings[] | select(.id == "no_kek_2023") | .todo')" \
    "^no KEK update exists for this PK \(SHA-1 [0-9a-f]{40} is not in kek_update_map.json\): ask the vendor, or enroll your own keys" "no KEK update for this PK"

# ---- 2023-only and 2011-only shims ----
root s23 shim2023.efi q23
out=$(A --root r-s23 --json | ro)
expect_eq "$(echo "$out" | jq -c '.images[0].boots')" \
    '{"today":true,"uefi_ca_2011_removed":true,"uefi_ca_2011_in_dbx":true}' "2023-only shim: boots in every state"
expect_eq "$(echo "$out" | jq -r '[.findings[].id | select(startswith("shim"))] | length')" 0 "2023-only shim: no shim finding"
root s23q shim2023.efi "$QEMU"
out=$(A --root r-s23q --json)
expect_eq "$(echo "$out" | jq -r 'select(.section == "chain") | .links[0].verdict')" untrusted "2023-only shim, QEMU db: does not boot"
expect_eq "$(echo "$out" | ro | jq -c '.images[0].boots.today')" false "2023-only shim, QEMU db: rollover agrees"
root s11 shim2011.efi q23
out=$(A --root r-s11 --json | ro)
expect_eq "$(echo "$out" | jq -c '.images[0].boots')" \
    '{"today":true,"uefi_ca_2011_removed":false,"uefi_ca_2011_in_dbx":false}' "2011-only shim"
expect_match "$(echo "$out" | jq -r '.findings[] | select(.id == "shim_2011_only") | .todo')" \
    "^install a shim signed by Microsoft UEFI CA 2023" "2011-only shim with db 2023: what to do"

# ---- ready: db + UEFI CA 2023 + Option ROM CA 2023, KEK + KEK 2K CA 2023 ----
$FX efivars "$QEMU" qready db+=$UEFI23 db+=$OROM23 "kek=$KEK11,$KEK23"
root ready shim2023.efi qready
out=$(A --root r-ready --json | ro)
expect_eq "$(echo "$out" | jq -r '.state')" ready "ready"
expect_match "$(echo "$out" | jq -r '.why')" "^db holds Microsoft UEFI CA 2023 and KEK holds Microsoft Corporation KEK 2K CA 2023; shim boots without UEFI CA 2011" "ready: why"
expect_match "$(A --root r-ready)" "rollover \(the 2023 certificates\): ready — " "text: ready"
# UEFI CA 2011 already in dbx: the table says so, db's copy no longer counts
$FX efivars "$QEMU" qrev db+=$UEFI23 dbx+=$UEFI11
expect_eq "$(A --efivars qrev --json | ro | jq -c '.cas[] | select(.name == "Microsoft Corporation UEFI CA 2011") | [.db, .dbx]')" \
    '[true,true]' "UEFI CA 2011 in db and dbx"

# recognised by name and key, not by name alone: a certificate named "Microsoft
# UEFI CA 2023" with its real public key (issued by a CA of ours) counts; one
# with another key does not
$PY - "$UEFI23" <<'PY'
import datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
ms = x509.load_der_x509_certificate(open(sys.argv[1], "rb").read())
ca = rsa.generate_private_key(public_exponent=65537, key_size=2048)
other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "Microsoft UEFI CA 2023")])
def cert(pub, out):
    t = datetime.datetime(2024, 1, 1)
    c = (x509.CertificateBuilder().subject_name(name)
         .issuer_name(x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "Not Microsoft")]))
         .public_key(pub).serial_number(7).not_valid_before(t).not_valid_after(t + datetime.timedelta(days=30))
         .sign(ca, hashes.SHA256()))
    open(out, "wb").write(c.public_bytes(serialization.Encoding.DER))
cert(ms.public_key(), "samekey.der")
cert(other.public_key(), "otherkey.der")
PY
$FX efivars "$QEMU" qsame db+=samekey.der
$FX efivars "$QEMU" qother db+=otherkey.der
expect_eq "$(A --efivars qsame --json | ro | jq -r '.cas[] | select(.name == "Microsoft UEFI CA 2023") | .db')" true "same name and key: the CA"
expect_eq "$(A --efivars qother --json | ro | jq -r '.cas[] | select(.name == "Microsoft UEFI CA 2023") | .db')" false "same name, another key: not the CA"

# ---- PKfail ----
openssl req -x509 -newkey rsa:2048 -nodes -keyout pk.key -out pk.pem -days 30 \
    -subj "/CN=DO NOT TRUST - AMI Test PK" 2>/dev/null
openssl x509 -in pk.pem -outform der -out pk.der
$FX efivars q23 qpk pk=pk.der
out=$(A --efivars qpk --json | ro)
expect_eq "$(echo "$out" | jq -r '.pk.pkfail')" true "PKfail: by subject"
expect_eq "$(echo "$out" | jq -r '.state')" at_risk "PKfail: at risk"
expect_match "$(echo "$out" | jq -r '.findings[] | select(.id == "pkfail") | .what')" \
    "its private key is public, so anyone can sign KEK and db updates" "PKfail: the reason"
expect_match "$(echo "$out" | jq -r '.findings[] | select(.id == "pkfail") | .todo')" "enroll your own keys" "PKfail: what to do"
expect_match "$(A --efivars qpk)" "AT RISK — .*the PK is a known test key \(PKfail\)" "PKfail: text summary"
# a PK the map lists as a test key (by its SHA-1 thumbprint), and the KEK update it names
openssl req -x509 -newkey rsa:2048 -nodes -keyout oem.key -out oem.pem -days 30 -subj "/CN=Some OEM PK" 2>/dev/null
openssl x509 -in oem.pem -outform der -out oem.der
T1=$(openssl x509 -in oem.pem -noout -fingerprint -sha1 | sed 's/.*=//; s/://g' | tr A-F a-f)
printf '{"%s": {"KEKUpdate": "OEM/KEKUpdate_OEM_PK1.bin", "Certificate": {"serial_number": "01", "issued_to": "CN=DO NOT TRUST - AMI Test PK", "issued_by": "CN=DO NOT TRUST - AMI Test PK"}}}' "$T1" > map-test.json
printf '{"%s": {"KEKUpdate": "OEM/KEKUpdate_OEM_PK1.bin", "Certificate": {"serial_number": "01", "issued_to": "CN=Some OEM PK", "issued_by": "CN=Some OEM PK"}}}' "$T1" > map-oem.json
$FX efivars q23 qoem pk=oem.der
out=$(A --efivars qoem --json | ro)
expect_eq "$(echo "$out" | jq -r '.pk.pkfail, .kek_update' | tr '\n' ' ')" "false null " "OEM PK, no map"
out=$(A --efivars qoem --kek-map map-oem.json --json | ro)
expect_eq "$(echo "$out" | jq -r '.pk.pkfail, .kek_update' | tr '\n' ' ')" "false OEM/KEKUpdate_OEM_PK1.bin " "OEM PK in the map"
expect_match "$(echo "$out" | jq -r '.findings[] | select(.id == "no_kek_2023") | .todo')" \
    "^apply OEM/KEKUpdate_OEM_PK1.bin: kek_update_map.json names it for this PK" "KEK update named"
out=$(A --efivars qoem --kek-map map-test.json --json | ro)
expect_eq "$(echo "$out" | jq -r '.pk.pkfail')" true "PKfail: by the map's test entry"
expect_match "$(echo "$out" | jq -r '.pk.pkfail_reason')" "DO NOT TRUST - AMI Test PK" "PKfail: the map's name"

# "test" as a word of the map's name, not inside one ("Latest")
sed 's/DO NOT TRUST - AMI Test PK/Latest OEM PK/g' map-test.json > map-latest.json
expect_eq "$(A --efivars qoem --kek-map map-latest.json --json | ro | jq -r '.pk.pkfail')" false "PKfail: not for 'Latest'"
sed 's/DO NOT TRUST - AMI Test PK/UEFI PK Aava test/g' map-test.json > map-aava.json
expect_eq "$(A --efivars qoem --kek-map map-aava.json --json | ro | jq -r '.pk.pkfail')" true "PKfail: a map name ending in 'test'"

# ---- a bad map: one error line, documented exit codes ----
printf '{"a": ' > bad.json
out=$(A --efivars qoem --kek-map bad.json 2>&1 >/dev/null)
expect_eq "$?" 4 "a map that does not parse: 4"
expect_match "$out" "^ktrust: bad.json: .*\(at offset [0-9]+\)$" "bad map: one line with the offset"
expect_exit 66 "a map that cannot be read" -- A --efivars qoem --kek-map missing.json
# no variables: no rollover section
expect_eq "$(A --root r-none --efivars nowhere --json 2>/dev/null | ro)" "" "no variables: no rollover object"
finish
