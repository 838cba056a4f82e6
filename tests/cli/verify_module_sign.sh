#!/bin/bash
# verify-module on modules signed the way the kernel's scripts/sign-file signs
# them (openssl cms -sign -binary -noattr -nocerts, then struct + magic), and
# the required verdicts: trusted, flipped byte -> rejected, stripped ->
# unsigned, other key -> untrusted, bad sig_len -> malformed; compressed
# modules; openssl cms -verify as the oracle.
. "$(dirname "$0")/../lib/common.sh"

cd "$T"
mkkey() { # NAME CN [ec]
    local alg="-newkey rsa:2048"
    [ "${3:-}" = ec ] && alg="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
    openssl req -x509 $alg -nodes -keyout "$1.key" -out "$1.pem" -days 3650 -subj "/CN=$2" \
        -addext "keyUsage=digitalSignature" -addext "extendedKeyUsage=codeSigning" 2>/dev/null
    openssl x509 -in "$1.pem" -outform DER -out "$1.der"
}
# sign MODULE_IN KEYNAME OUT [md]: the sign-file recipe
sign() {
    local md=${4:-sha256}
    openssl cms -sign -binary -noattr -nocerts -outform DER -md "$md" \
        -signer "$2.pem" -inkey "$2.key" -in "$1" -out "$3.p7s" -nosmimecap 2>/dev/null || return 1
    local n
    n=$(stat -c %s "$3.p7s")
    {
        cat "$1" "$3.p7s"
        # algo hash id_type signer_len key_id_len pad[3] be32 sig_len
        printf '\x00\x00\x02\x00\x00\x00\x00\x00'
        printf "\\x$(printf %02x $((n >> 24 & 255)))\\x$(printf %02x $((n >> 16 & 255)))\\x$(printf %02x $((n >> 8 & 255)))\\x$(printf %02x $((n & 255)))"
        printf '~Module signature appended~\n'
    } > "$3"
}
# patch FILE OFFSET HEXBYTE
patch() { printf "\\x$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

mkkey good "Module Signing Key"
mkkey other "Another Key"
mkkey ec "EC Module Key" ec
head -c 200000 /dev/urandom > mod.ko
printf '\x7fELF' | dd of=mod.ko bs=1 conv=notrunc status=none

sign mod.ko good signed.ko
sign mod.ko good signed512.ko sha512
sign mod.ko other byother.ko
sign mod.ko ec signed_ec.ko

# oracle: the detached PKCS#7 verifies over the module body with openssl
openssl cms -verify -binary -inform DER -in signed.ko.p7s -content mod.ko -certfile good.pem \
    -CAfile good.pem -purpose any -out /dev/null 2>/dev/null
expect_eq "$?" 0 "openssl oracle accepts the sign-file signature"

expect_exit 0 "trusted" -- "$KTRUST" verify-module --trust good.pem signed.ko
expect_exit 0 "trusted sha512" -- "$KTRUST" verify-module --trust good.pem signed512.ko
expect_exit 0 "trusted ecdsa" -- "$KTRUST" verify-module --trust ec.pem signed_ec.ko
expect_exit 0 "trusted, DER trust file" -- "$KTRUST" verify-module --trust good.der signed.ko
expect_exit 1 "stripped signature -> unsigned" -- "$KTRUST" verify-module --trust good.pem mod.ko
expect_exit 2 "other key -> untrusted" -- "$KTRUST" verify-module --trust good.pem byother.ko
expect_exit 2 "no trusted keys -> untrusted" -- "$KTRUST" verify-module --trust other.pem signed.ko
# sha1 refused unless allowed
sign mod.ko good signed_sha1.ko sha1
expect_exit 3 "sha1 -> unsupported" -- "$KTRUST" verify-module --trust good.pem signed_sha1.ko
expect_exit 0 "sha1 with --allow-sha1" -- "$KTRUST" verify-module --allow-sha1 --trust good.pem signed_sha1.ko

# a flipped byte anywhere in the module body -> rejected; openssl agrees
for off in 0 1000 100000 199999; do
    cp signed.ko flip.ko
    b=$(od -An -tx1 -j "$off" -N1 flip.ko | tr -d ' ')
    patch flip.ko "$off" "$(printf %02x $((0x$b ^ 0x01)))"
    expect_exit 5 "flipped byte at $off -> rejected" -- "$KTRUST" verify-module --trust good.pem flip.ko
    head -c 200000 flip.ko > flipbody
    openssl cms -verify -binary -inform DER -in signed.ko.p7s -content flipbody -certfile good.pem \
        -CAfile good.pem -purpose any -out /dev/null 2>/dev/null
    expect_eq "$?" 4 "openssl rejects the flipped body at $off"
done
# a flipped byte inside the signature value -> rejected
size=$(stat -c %s signed.ko)
cp signed.ko sigflip.ko
off=$((size - 28 - 12 - 10))
patch sigflip.ko "$off" "$(printf %02x $((0x$(od -An -tx1 -j "$off" -N1 sigflip.ko | tr -d ' ') ^ 0x80)))"
expect_exit 5 "flipped signature byte -> rejected" -- "$KTRUST" verify-module --trust good.pem sigflip.ko

# struct module_signature checks
cp signed.ko badlen.ko
patch badlen.ko $((size - 28 - 4)) 7f # sig_len 0x7fxxxxxx: before the start of the file
expect_exit 4 "sig_len before the start -> malformed" -- "$KTRUST" verify-module --trust good.pem badlen.ko
out=$("$KTRUST" verify-module --trust good.pem badlen.ko 2>&1 >/dev/null)
expect_match "$out" "^ktrust: badlen.ko: module_signature: sig_len .* \(at offset [0-9]+\)$" "malformed error line"
cp signed.ko idtype.ko
patch idtype.ko $((size - 28 - 10)) 01
expect_exit 3 "id_type 1 -> unsupported" -- "$KTRUST" verify-module --trust good.pem idtype.ko
cp signed.ko pad.ko
patch pad.ko $((size - 28 - 6)) 01
expect_exit 4 "non-zero pad -> malformed" -- "$KTRUST" verify-module --trust good.pem pad.ko
printf '~Module signature appended~\n' > tiny.ko
expect_exit 4 "magic only -> malformed" -- "$KTRUST" verify-module tiny.ko
head -c $((size - 28 - 12 - 5)) signed.ko > trunc.body
{ cat trunc.body; tail -c 40 signed.ko; } > truncsig.ko
expect_exit 4 "truncated PKCS#7 -> malformed" -- "$KTRUST" verify-module --trust good.pem truncsig.ko

# compressed modules: the signature is inside the payload
xz -k -c signed.ko > signed.ko.xz
zstd -q -c signed.ko > signed.ko.zst
gzip -c signed.ko > signed.ko.gz
for f in signed.ko.xz signed.ko.zst signed.ko.gz; do
    expect_exit 0 "compressed $f trusted" -- "$KTRUST" verify-module --trust good.pem "$f"
done
json=$("$KTRUST" verify-module --json --trust good.pem signed.ko.zst)
expect_match "$json" '"compression":"zstd"' "json names the compression"
xz -c flip.ko > flip.ko.xz
expect_exit 5 "compressed flipped -> rejected" -- "$KTRUST" verify-module --trust good.pem flip.ko.xz
head -c 5000 signed.ko.xz > cut.ko.xz
expect_exit 4 "truncated xz -> malformed" -- "$KTRUST" verify-module --trust good.pem cut.ko.xz
head -c 5000 signed.ko.gz > cut.ko.gz
expect_exit 4 "truncated gzip -> malformed" -- "$KTRUST" verify-module --trust good.pem cut.ko.gz
head -c 5000 signed.ko.zst > cut.ko.zst
expect_exit 4 "truncated zstd -> malformed" -- "$KTRUST" verify-module --trust good.pem cut.ko.zst
mod_unsigned_xz=mod.ko.xz
xz -c mod.ko > "$mod_unsigned_xz"
expect_exit 1 "compressed unsigned -> unsigned" -- "$KTRUST" verify-module "$mod_unsigned_xz"

# several inputs: the exit code is the highest
expect_exit 5 "highest over inputs" -- "$KTRUST" verify-module --trust good.pem signed.ko mod.ko flip.ko byother.ko
expect_exit 66 "unreadable input" -- "$KTRUST" verify-module --trust good.pem does-not-exist.ko

# JSON per CONTRACT.md
json=$("$KTRUST" verify-module --json --trust good.pem signed.ko byother.ko)
expect_eq "$(printf '%s\n' "$json" | grep -vc '"type":"summary"')" 2 "one NDJSON line per input (then the summary)"
l1=$(printf '%s\n' "$json" | sed -n 1p)
l2=$(printf '%s\n' "$json" | sed -n 2p)
expect_match "$l1" '^\{"file":"signed.ko","type":"module","verdict":"trusted","error":null' "json trusted head"
expect_match "$l1" '"digest_algorithm":"sha256"' "json digest algorithm"
expect_match "$l1" '"trusted_by":"Module Signing Key: [0-9a-f]+"' "json trusted_by description"
expect_match "$l1" '"signer":\{"description":"Module Signing Key: ' "json signer is a certificate object"
expect_match "$l2" '"verdict":"untrusted","error":"ENOKEY"' "json untrusted"
expect_match "$l2" '"signer":\{"issuer":"CN=Another Key","serial":"[0-9a-f]+"' "json signer id without a key"
digest=$(sha256sum mod.ko | cut -d' ' -f1)
expect_match "$l1" "\"digest\":\"$digest\"" "json digest is the module body's sha256"
expect_exit 0 "quiet" -- "$KTRUST" verify-module -q --trust good.pem signed.ko
expect_eq "$("$KTRUST" verify-module -q --trust good.pem signed.ko byother.ko)" "" "-q prints nothing"

# --check-time: validity enforced only on request
expect_exit 0 "expired ignored by default" -- "$KTRUST" verify-module --trust good.pem signed.ko
expect_exit 5 "--check-time in 2099 -> rejected" -- "$KTRUST" verify-module --check-time=2099-01-01T00:00:00Z --trust good.pem signed.ko
expect_exit 0 "--check-time now" -- "$KTRUST" verify-module --check-time --trust good.pem signed.ko
expect_exit 64 "bad --check-time" -- "$KTRUST" verify-module --check-time=yesterday signed.ko

# an expired signing certificate: reported (time_valid false), enforced only
# with --check-time
mkdir ca && (cd ca && touch index.txt && echo 01 > serial &&
    printf '[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nserial=serial\nnew_certs_dir=.\ndefault_md=sha256\npolicy=p\nunique_subject=no\n[p]\ncommonName=supplied\n' > ca.cnf &&
    openssl req -new -newkey rsa:2048 -nodes -keyout ../exp.key -out exp.csr -subj "/CN=Expired Key" &&
    openssl ca -batch -config ca.cnf -selfsign -keyfile ../exp.key -in exp.csr -out ../exp.pem \
        -startdate 20200101000000Z -enddate 20210101000000Z -notext) >/dev/null 2>&1
sign mod.ko exp expired.ko
expect_exit 0 "expired signer: not enforced by default" -- "$KTRUST" verify-module --trust exp.pem expired.ko
json=$("$KTRUST" verify-module --json --trust exp.pem expired.ko)
expect_match "$json" '"time_valid":false' "expired signer reported"
expect_exit 5 "expired signer with --check-time" -- "$KTRUST" verify-module --check-time --trust exp.pem expired.ko
expect_exit 0 "--check-time inside its validity" -- "$KTRUST" verify-module --check-time=2020-06-01T00:00:00Z --trust exp.pem expired.ko

# keys from the store: builtin vouches for modules, platform does not;
# a blacklisted key rejects
"$KTRUST" keyring add --store st.db --keyring builtin good.pem >/dev/null 2>&1
"$KTRUST" keyring add --store st.db --keyring platform other.pem >/dev/null 2>&1
expect_exit 0 "store builtin key -> trusted" -- "$KTRUST" verify-module --store st.db signed.ko
expect_exit 2 "store platform key -> untrusted for modules" -- "$KTRUST" verify-module --store st.db byother.ko
"$KTRUST" keyring add --store st.db --keyring blacklist good.pem >/dev/null 2>&1
expect_exit 5 "blacklisted key -> rejected" -- "$KTRUST" verify-module --store st.db signed.ko

finish
