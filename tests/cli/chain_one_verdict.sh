#!/bin/bash
# One firmware verdict (issue #31 item 1): db, dbx and SbatLevel made to
# disagree between the paths that used to answer them separately, and one
# answer now from chain, check-update, audit and eventlog --predict.
#  1. dbx: a certificate in an image's PKCS#7 bag but off its signer's chain.
#     Firmware (EDK2 IsForbiddenByDbx) builds the chain from the signer: it
#     boots.  check-update and audit's outlook used to check every
#     certificate of the bag and call it revoked.
#  2. db: a root R and its intermediate I both in db, R first.  Firmware
#     (IsAllowedByDb) takes the first db entry that verifies the signature:
#     R.  The chain's keyring used to name I (nearest the signer), and so did
#     check-update's db vouching and the event log's db authority event.
#  3. SbatLevel: SbatPolicy=latest (shim sets its latest level), and a level
#     whose version column is newer but date older (shim keeps it).  The
#     event log used to compare date stamps only.
# Oracles: osslsigncode verify (chain building), a Python replay of
# tpm2_eventlog's digests with the replaced event, objcopy's .sbatlevel.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in jq osslsigncode cert-to-efi-sig-list openssl objcopy tpm2_eventlog strace; do
    command -v $tool >/dev/null || { [ -n "${CI:-}" ] && exit 1; echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
O=$CORPUS/peers/ovmf-swtpm-boot
LOG=$O/eventlog.bin
GRUB=$D/grubx64.efi.signed KERNEL=$D/vmlinuz-6.1.0-57-amd64 SHIM=$D/shimx64.efi.signed
DBG=d719b2cb-3d3a-4596-a3bc-dad00e67656f
SHIMG=605dab50-e046-4300-abb6-3dd810dd8b23
VARS=sys/firmware/efi/efivars
link() { jq -r --arg r "$1" "select(.type == \"chain\" and .role == \$r) | $2"; }
sec() { jq -c --arg s "$1" "select(.section == \$s) | $2"; }
cert() { # NAME SUBJ [ISSUER_NAME]: a key and certificate (a CA unless signed as a leaf)
    if [ -z "${3:-}" ]; then
        openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 30 \
            -subj "/CN=$2" -addext basicConstraints=critical,CA:TRUE 2>/dev/null
    else
        openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
        printf 'basicConstraints=critical,CA:%s\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n%s\n' \
            "$4" "${5:-}" > "$1.ext"
        openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days 30 \
            -extfile "$1.ext" -out "$1.pem" 2>/dev/null
    fi
    openssl x509 -in "$1.pem" -outform DER -out "$1.der"
}
mkroot() {
    mkdir -p "$1/boot/efi/EFI/debian" "$1/lib/modules/6.1.0-57-amd64/kernel" "$1/sys/firmware/efi"
    cp "$SHIM" "$1/boot/efi/EFI/debian/shimx64.efi"
    cp "$2" "$1/boot/efi/EFI/debian/grubx64.efi"
    cp "$D/mmx64.efi.signed" "$1/boot/efi/EFI/debian/mmx64.efi"
    cp "$KERNEL" "$1/boot/"
    cp "$(ls "$D"/modules/*.ko | head -1)" "$1/lib/modules/6.1.0-57-amd64/kernel/"
    cp -r "$CORPUS/peers/shim-efivars/efivars-1" "$1/$VARS"
}

# ---- 1. dbx: a certificate in the bag, off the signer's chain --------------
cert sig "fw-test signer"
cert x "fw-test revoked CA"
# an unsigned shim-like image with a .sbat (shim's self-check) to sign below
"$KTRUST" wrap-key sig.pem --vendor-cert -o v.efi >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\nshim,4,UEFI shim,shim,1,https://y\n' > sbat.csv
objcopy --add-section .sbat=sbat.csv --set-section-flags .sbat=contents,alloc,load,readonly,data v.efi w.efi
osslsigncode sign -certs sig.pem -key sig.key -ac x.pem -in w.efi -out wx.efi >/dev/null 2>&1
cert-to-efi-sig-list sig.pem sig.esl >/dev/null
cert-to-efi-sig-list x.pem x.esl >/dev/null
osslsigncode extract-signature -in wx.efi -out wx.p7 >/dev/null 2>&1
expect_eq "$(openssl pkcs7 -inform DER -in wx.p7 -print_certs -noout | grep -c 'subject=CN = fw-test revoked CA')" 1 \
    "the revoked CA is in the signature's bag"
osslsigncode verify -ignore-cdp -ignore-crl -CAfile x.pem -in wx.efi >/dev/null 2>&1 &&
    bad "oracle: the revoked CA must not anchor the signer's chain" || ok
j=$("$KTRUST" chain --json --db sig.esl --dbx x.esl wx.efi "$GRUB" "$KERNEL")
expect_eq "$(link shim .verdict <<<"$j")" trusted "chain: firmware boots it (the CA is off the signer's chain)"
j=$("$KTRUST" check-update --json --dbx x.esl --db sig.esl wx.efi)
expect_eq $? 0 "check-update: exit 0"
expect_eq "$(jq -c 'select(.file) | [.verdict, .reasons, .db_certificate]' <<<"$j")" \
    "[\"still_boots\",[],\"$(openssl x509 -in sig.pem -noout -subject | sed 's/^subject=CN = //'): $(openssl x509 -in sig.pem -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' :' | tr A-F a-f)\"]" \
    "check-update: still boots, and db names the signer's entry"
mkroot r1 wx.efi
j=$("$KTRUST" audit --root r1 --json --dbx x.esl)
expect_eq "$(sec outlook '[.files[] | select(.role == "loader") | .would_be_revoked]' <<<"$j")" '[false]' \
    "audit's outlook: the same answer"
# the CA on the chain (it issued the signer) does revoke, in every path
cert y "fw-test issuing CA"
cert leaf "fw-test leaf" y FALSE "extendedKeyUsage=codeSigning"
osslsigncode sign -certs leaf.pem -key leaf.key -in w.efi -out wy.efi >/dev/null 2>&1
cert-to-efi-sig-list y.pem y.esl >/dev/null
j=$("$KTRUST" chain --json --db y.esl --dbx y.esl wy.efi "$GRUB" "$KERNEL")
expect_eq "$(link shim .verdict <<<"$j")" rejected "chain: the issuing CA in dbx refuses it"
j=$("$KTRUST" check-update --json --dbx y.esl wy.efi)
expect_match "$(jq -r 'select(.file) | .reasons[0] | "\(.by) \(.detail)"' <<<"$j")" \
    '^certificate certificate fw-test issuing CA: [0-9a-f]{40}, the issuer of fw-test leaf' \
    "check-update: the issuing CA, as the chain names it"

# ---- 2. db: root before intermediate, the first entry verifies ----------------
cert R "fw-test root"
cert I "fw-test intermediate" R TRUE
cert L "fw-test leaf signer" I FALSE "extendedKeyUsage=codeSigning"
cat L.pem I.pem > LI.pem
osslsigncode sign -certs LI.pem -key L.key -in w.efi -out wl.efi >/dev/null 2>&1
cert-to-efi-sig-list -g 11111111-1111-1111-1111-111111111111 R.pem R.esl >/dev/null
cert-to-efi-sig-list -g 22222222-2222-2222-2222-222222222222 I.pem I.esl >/dev/null
cat R.esl I.esl > RI.esl
rdesc="fw-test root: $(openssl x509 -in R.pem -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' :' | tr A-F a-f)"
j=$("$KTRUST" chain --json --db RI.esl wl.efi "$GRUB" "$KERNEL")
expect_eq "$(link shim '[.verdict, .trusted_by]|@tsv' <<<"$j")" "$(printf 'trusted\t%s' "$rdesc")" \
    "chain: db's first entry (the root) accepts it"
j=$("$KTRUST" check-update --json --dbx x.esl --db RI.esl wl.efi)
expect_eq "$(jq -r 'select(.file) | .db_certificate' <<<"$j")" "$rdesc" "check-update: the same db entry"
# the event log: the db authority event firmware measures is that entry (owner 1111... + R)
rm -rf vars esp && cp -r "$O/efivars" vars && chmod -R u+w vars
{ printf '\x27\x00\x00\x00'; cat RI.esl; } > "vars/db-$DBG"
mkdir -p esp/EFI/BOOT && cp wl.efi esp/EFI/BOOT/BOOTX64.EFI
tail -c +5 "vars/db-$DBG" > db.data
{ printf '\x11%.0s' $(seq 16); cat R.der; } > entryR.bin
tpm2_eventlog "$LOG" >log.yaml 2>/dev/null
oracle() { python3 "$KT_SRC/tests/fixtures/pcr_oracle.py" "$@" | sed -n 's/^sha256 //p'; }
p7() { "$KTRUST" eventlog "$LOG" --predict --json "$@" |
       jq -r 'select(.type == "prediction" and .bank == "sha256" and .pcr == 7) | .predicted'; }
n_db=$(awk '/EventNum:/ {n=$3} /EV_EFI_VARIABLE_DRIVER_CONFIG/ {c=n} /UnicodeName: db$/ && c==n {print n; exit}' log.yaml)
n_auth=$(awk '/EventNum:/ {n=$3} /EV_EFI_VARIABLE_AUTHORITY/ {a=n} /UnicodeName: db$/ && a==n {print n; exit}' log.yaml)
expect_eq "$n_db $n_auth" "7 25" "the log's db variable and db authority events"
expect_eq "$(p7 --efivars vars --esp esp)" "$(oracle "7 db $DBG db.data" "25 db $DBG entryR.bin")" \
    "eventlog --predict: the authority event is db entry 0 (the root, owner 1111...)"
expect_match "$("$KTRUST" eventlog "$LOG" --predict --efivars vars --esp esp)" \
    "#25 EV_EFI_VARIABLE_AUTHORITY db: .*verified by $rdesc" "and says so"

# ---- 3. SbatLevel: SbatPolicy=latest, and a newer version column ------------
objcopy -O binary --only-section=.sbatlevel "$SHIM" sl.bin
python3 -c '
import struct, sys
d = open("sl.bin", "rb").read(); v, a, l = struct.unpack_from("<III", d, 0)
open("latest.txt", "wb").write(d[4 + l:d.index(b"\0", 4 + l)])'
rm -rf vars esp && cp -r "$O/efivars" vars && chmod -R u+w vars
printf '\x07\x00\x00\x00\x01' > "vars/SbatPolicy-$SHIMG"
mkdir -p esp/EFI/BOOT && cp "$SHIM" esp/EFI/BOOT/BOOTX64.EFI
want=$(oracle "29 SbatLevel $SHIMG latest.txt")
expect_eq "$(p7 --efivars vars --esp esp)" "$want" "SbatPolicy=latest: shim's latest level measured"
expect_eq "$("$KTRUST" chain --json --efivars vars "$SHIM" "$GRUB" "$KERNEL" | jq -r 'select(.type == "sbat_level") | .level')" \
    "$(head -1 latest.txt | cut -d, -f3)" "chain: the same level"
printf 'sbat,2,2024010100\nshim,4\ngrub,5\n' > v2.txt
rm "vars/SbatPolicy-$SHIMG"
expect_eq "$(p7 --efivars vars --esp esp --sbat-level v2.txt)" "$(oracle "29 SbatLevel $SHIMG v2.txt")" \
    "a newer version column, an older date: shim keeps it, and it is measured"
expect_eq "$("$KTRUST" chain --json --efivars vars --sbat-level v2.txt "$SHIM" "$GRUB" "$KERNEL" | jq -r 'select(.type == "sbat_level") | .level')" \
    2024010100 "chain: kept too"

# ---- one pass: each boot file opened once per chain run ---------------------
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    strace -f -e trace=openat -o st.txt "$KTRUST" chain -q --db sig.esl wx.efi "$GRUB" "$KERNEL"
run=$(sed -n '/sig\.esl/,$p' st.txt)   # after the CLI's order check: the chain run
for f in wx.efi grubx64.efi.signed vmlinuz-6.1.0-57-amd64; do
    expect_eq "$(grep -c "$f\"" <<<"$run")" 1 "chain run: $f opened once"
done
finish
