#!/bin/bash
# verify-pe on images built by wrap-key and signed by sbsign, pesign and
# osslsigncode: hashes, several signatures, nested signatures, the EKU rule,
# and tampered variants.  Oracles: sbverify, osslsigncode verify, pesign -h.
. "$(dirname "$0")/../lib/common.sh"
. "$KT_SRC/tests/fixtures/pe_fixtures.sh"
for tool in sbsign sbverify pesign osslsigncode certutil pk12util jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
pe_fixtures "$T" || { echo "fixture generation failed"; exit 1; }
pesign_db "$T" leaf
cd "$T" || exit 1
V() { "$KTRUST" verify-pe -q "$@"; }
u32() { od -An -tu4 -j"$2" -N4 "$1" | tr -d ' '; }
put32() { printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($3 & 255)) $(($3 >> 8 & 255)) $(($3 >> 16 & 255)) $(($3 >> 24 & 255)))" |
    dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
flip() { local b; b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' '); printf "$(printf '\\x%02x' $((b ^ 1)))" |
    dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
pehdr() { u32 "$1" 60; }
certdir() { echo $(($(pehdr "$1") + 24 + 112 + 32)); }
oss_digest() { osslsigncode verify -ignore-cdp -ignore-crl -CAfile ca.pem -in "$1" 2>/dev/null |
    sed -n 's/^Calculated message digest : *\([0-9A-F]*\).*/\1/p' | head -1 | tr A-F a-f; }

# sbsign, pesign: SHA-256
sbsign --key leaf.key --cert leaf.pem --output sb.efi wrap.efi 2>/dev/null
pesign -n nss -c leaf -i wrap.efi -o ps.efi -s >/dev/null 2>&1
for f in sb.efi ps.efi; do
    expect_exit 0 "$f trusted by the CA" -- V --trust ca.pem $f
    expect_exit 0 "$f trusted by its own cert" -- V --trust leaf.pem $f
    expect_exit 2 "$f untrusted by a rogue CA" -- V --trust rogue.pem $f
    sbverify --cert ca.pem $f >/dev/null 2>&1
    expect_eq $? 0 "sbverify agrees on $f"
    expect_eq "$("$KTRUST" verify-pe --json --trust ca.pem $f | jq -r '.signatures[0].digest')" \
        "$(pesign -h -i $f | sed -n 's/^hash: //p')" "$f digest = pesign -h"
done
expect_exit 2 "no keys at all: untrusted" -- V --trust rogue.pem sb.efi

# osslsigncode with each hash
for h in sha1 sha256 sha384 sha512; do
    osslsigncode sign -certs chain.pem -key leaf.key -h $h -in wrap.efi -out o-$h.efi >/dev/null 2>&1
    out=$("$KTRUST" verify-pe --json --allow-sha1 --trust ca.pem o-$h.efi)
    expect_eq "$(jq -r .verdict <<<"$out")" trusted "osslsigncode $h trusted"
    expect_eq "$(jq -r '.signatures[0].digest_algorithm' <<<"$out")" $h "osslsigncode $h algorithm"
    expect_eq "$(jq -r '.signatures[0].digest' <<<"$out")" "$(oss_digest o-$h.efi)" "$h digest = osslsigncode's"
    expect_eq "$(jq -r '.signatures[0].chain | length' <<<"$out")" 2 "$h chain of two"
done
expect_exit 3 "sha1 refused without --allow-sha1" -- V --trust ca.pem o-sha1.efi
expect_match "$("$KTRUST" verify-pe --trust ca.pem o-sha1.efi 2>&1)" "--allow-sha1" "sha1 message names the flag"

# several signatures (sbsign appends; pesign adds a second entry)
sbsign --key noeku.key --cert noeku.pem --output two.efi sb.efi 2>/dev/null
out=$("$KTRUST" verify-pe --json --trust ca.pem two.efi)
expect_eq "$(jq -r '.signatures | length' <<<"$out")" 2 "two entries"
expect_eq "$(jq -r '[.signatures[].verdict] | join(",")' <<<"$out")" "trusted,trusted" "both trusted (no EKU is fine)"
expect_exit 0 "one trusted signature is enough" -- V --trust noeku.pem two.efi
sbverify --cert ca.pem two.efi >/dev/null 2>&1
expect_eq $? 0 "sbverify agrees on two.efi"
# kexec reads the first entry only (issue #11.5): the second entry's trusted
# signer does not vouch there, while firmware (uefi) takes any entry
expect_exit 2 "kexec: only the second entry is trusted -> untrusted" -- V --purpose kexec --trust noeku.pem two.efi
expect_match "$("$KTRUST" verify-pe --purpose kexec --trust noeku.pem two.efi 2>&1)" "kexec reads the first entry only" "... and says why"
expect_exit 0 "kexec: the first entry trusted" -- V --purpose kexec --trust ca.pem two.efi
# a PKCS#7 of 64 KiB or more (a 3-byte length): the kernel's
# pefile_strip_sig_wrapper refuses it (EMSGSIZE), firmware does not
for i in $(seq 100); do openssl req -x509 -key leaf.key -days 30 -set_serial $i \
    -subj "/CN=filler $i/O=$(printf 'A%.0s' $(seq 64))" 2>/dev/null; done >filler.pem
sbsign --key leaf.key --cert leaf.pem --addcert filler.pem --output big.efi wrap.efi 2>/dev/null
expect_eq "$(od -An -tx1 -j "$(( $(od -An -tu4 -j $(( $(od -An -tu4 -j 60 -N4 big.efi) + 24 + 144 )) -N4 big.efi) + 9 ))" -N1 big.efi | tr -d ' ')" 83 \
    "fixture: the PKCS#7 has a 3-byte length"
expect_exit 0 "uefi: a 64 KiB PKCS#7 is trusted (sbverify agrees)" -- V --trust ca.pem big.efi
expect_exit 0 "... sbverify" -- sbverify --cert ca.pem big.efi
expect_exit 4 "kexec: the kernel refuses a 64 KiB PKCS#7 (EMSGSIZE)" -- V --purpose kexec --trust ca.pem big.efi

# nested (osslsigncode -nest), a different hash from the outer signature
osslsigncode sign -certs chain.pem -key leaf.key -h sha512 -nest -in ps.efi -out nest.efi >/dev/null 2>&1
out=$("$KTRUST" verify-pe --json --trust ca.pem nest.efi)
expect_eq "$(jq -r .verdict <<<"$out")" trusted "nested: trusted"
expect_eq "$(jq -r '.signatures[0].nested | length' <<<"$out")" 1 "nested shown"
expect_eq "$(jq -r '.signatures[0].nested[0].digest_algorithm' <<<"$out")" sha512 "nested sha512"
expect_eq "$(jq -r '.signatures[0].nested[0].verdict' <<<"$out")" trusted "nested verdict"

# a nested signature never vouches (issue #11.5): outer by an unknown
# self-signed key, nested by the trusted chain
osslsigncode sign -certs rogue.pem -key rogue.key -in wrap.efi -out rogue.efi >/dev/null 2>&1
osslsigncode sign -certs chain.pem -key leaf.key -nest -in rogue.efi -out rogue-nest.efi >/dev/null 2>&1
out=$("$KTRUST" verify-pe --json --trust ca.pem rogue-nest.efi)
expect_eq "$(jq -r '.signatures[0].nested[0].verdict' <<<"$out")" trusted "the nested signature itself verifies to the CA"
expect_eq "$(jq -r .verdict <<<"$out")" untrusted "but an untrusted outer signature leaves the file untrusted"
expect_match "$(jq -r .reason <<<"$out")" "nested signatures never establish trust" "... and the reason says so"
expect_exit 2 "exit 2" -- V --trust ca.pem rogue-nest.efi
expect_exit 0 "the outer signer trusted: trusted" -- V --trust rogue.pem rogue-nest.efi

# the EKU rule: a TLS server certificate must not sign code
osslsigncode sign -certs tls.pem -key tls.key -in wrap.efi -out tls.efi >/dev/null 2>&1
expect_exit 5 "serverAuth-only EKU rejected" -- V --trust ca.pem tls.efi
osslsigncode sign -certs tls.pem -key tls.key -nest -in sb.efi -out tlsnest.efi >/dev/null 2>&1
expect_exit 5 "a rejected nested signature rejects the file" -- V --trust ca.pem tlsnest.efi

# RFC 3161 timestamp (osslsigncode's built-in TSA, offline, at a fixed time)
osslsigncode sign -certs chain.pem -key leaf.key -TSA-certs tsachain.pem -TSA-key tsa.key \
    -TSA-time 1700000000 -in wrap.efi -out ts.efi >/dev/null 2>&1
out=$("$KTRUST" verify-pe --json --trust ca.pem ts.efi)
expect_eq "$(jq -r .verdict <<<"$out")" trusted "timestamped: trusted"
expect_eq "$(jq -r '.signatures[0].timestamp.time' <<<"$out")" "2023-11-14T22:13:20Z" "timestamp time"
expect_eq "$(jq -r '.signatures[0].timestamp.verdict' <<<"$out")" trusted "TSA chain vouched for by the CA"
expect_match "$(jq -r '.signatures[0].timestamp.signer.description' <<<"$out")" "test TSA" "timestamp signer"
out=$("$KTRUST" verify-pe --json --trust leaf.pem ts.efi)
expect_eq "$(jq -r '.signatures[0].timestamp.verdict' <<<"$out")" untrusted "TSA not vouched for by the leaf alone"
# a forged genTime: the token no longer verifies; the signature itself is unaffected
at=$(grep -obUa "20231114221320Z" ts.efi | head -1 | cut -d: -f1)
cp ts.efi ts-forged.efi; printf '2' | dd of=ts-forged.efi bs=1 seek=$((at + 3)) conv=notrunc status=none
out=$("$KTRUST" verify-pe --json --trust ca.pem ts-forged.efi)
expect_eq "$(jq -r .verdict <<<"$out")" trusted "forged timestamp: signature still trusted"
expect_eq "$(jq -r '.signatures[0].timestamp.verdict' <<<"$out")" rejected "forged timestamp detected"

# legacy countersignature (PKCS#9), made offline by tests/fixtures/pe_countersign.py
if command -v python3 >/dev/null; then
    python3 "$KT_SRC/tests/fixtures/pe_countersign.py" sb.efi cs.efi tsa.pem tsa.key
    out=$("$KTRUST" verify-pe --json --trust ca.pem cs.efi)
    expect_eq "$(jq -r .verdict <<<"$out")" trusted "countersigned: trusted"
    expect_eq "$(jq -r '.signatures[0].timestamp.kind' <<<"$out")" countersignature "countersignature kind"
    expect_eq "$(jq -r '.signatures[0].timestamp.verdict' <<<"$out")" trusted "countersigner vouched for by the CA"
    expect_match "$(jq -r '.signatures[0].timestamp.signer.description' <<<"$out")" "test TSA" "countersigner"
    expect_match "$(jq -r '.signatures[0].timestamp.time' <<<"$out")" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T' "countersignature time"
    out=$("$KTRUST" verify-pe --json --trust leaf.pem cs.efi)
    expect_eq "$(jq -r '.signatures[0].timestamp.verdict' <<<"$out")" untrusted "countersigner not vouched for by the leaf"
    python3 "$KT_SRC/tests/fixtures/pe_countersign.py" sb.efi csbad.efi tsa.pem tsa.key --tamper
    out=$("$KTRUST" verify-pe --json --trust ca.pem csbad.efi)
    expect_eq "$(jq -r '.signatures[0].timestamp.verdict' <<<"$out")" rejected "countersignature over other bytes: rejected"
    expect_eq "$(jq -r .verdict <<<"$out")" trusted "a bad countersignature does not change the signature's verdict"
    sbverify --cert ca.pem cs.efi >/dev/null 2>&1
    expect_eq $? 0 "sbverify still verifies the countersigned image"
fi

# tampering
cp sb.efi t-sect.efi; flip t-sect.efi 1024
expect_exit 5 "flipped byte in a section" -- V --trust ca.pem t-sect.efi
sbverify --cert ca.pem t-sect.efi >/dev/null 2>&1
expect_eq $? 1 "sbverify rejects the flipped section too"
cp sb.efi t-hdr.efi; flip t-hdr.efi $(($(pehdr t-hdr.efi) + 8))
expect_exit 5 "flipped byte in the headers" -- V --trust ca.pem t-hdr.efi
off=$(u32 sb.efi $(certdir sb.efi)); len=$(u32 sb.efi $(($(certdir sb.efi) + 4)))
cp sb.efi t-sig.efi; flip t-sig.efi $((off + len - 40))
"$KTRUST" verify-pe -q --trust ca.pem t-sig.efi; rc=$?
[ $rc = 5 ] || [ $rc = 4 ] && ok || bad "flipped signature byte: exit $rc, want 5 or 4"
cp sb.efi t-sum.efi; put32 t-sum.efi $(($(pehdr t-sum.efi) + 24 + 64)) 305419896
expect_exit 0 "checksum changed: still trusted" -- V --trust ca.pem t-sum.efi
cp sb.efi t-trunc.efi; truncate -s -16 t-trunc.efi
expect_exit 4 "certificate table truncated" -- V --trust ca.pem t-trunc.efi
cp sb.efi t-past.efi; put32 t-past.efi $(($(certdir sb.efi) + 4)) $((len + 4096))
expect_exit 4 "certificate table past the end" -- V --trust ca.pem t-past.efi
cp sb.efi t-zero.efi; put32 t-zero.efi $off 0
expect_exit 4 "zero-length entry" -- V --trust ca.pem t-zero.efi
cp sb.efi t-rev.efi; printf '\x00\x01' | dd of=t-rev.efi bs=1 seek=$((off + 4)) conv=notrunc status=none
expect_exit 4 "wrong revision" -- V --trust ca.pem t-rev.efi
cp sb.efi t-extra.efi; printf 'EXTRADATA' >> t-extra.efi
expect_exit 4 "extra data after the table" -- V --trust ca.pem t-extra.efi
msg=$("$KTRUST" verify-pe --trust ca.pem t-extra.efi 2>&1)
expect_match "$msg" "ktrust: t-extra.efi: .*follow the certificate table \(at offset [0-9]+\)" "error line names the offset"
expect_exit 66 "missing file" -- V --trust ca.pem nosuch.efi
expect_exit 64 "bad purpose" -- "$KTRUST" verify-pe --purpose module sb.efi
finish
