#!/bin/bash
# --trust bundles (issue #16 item 3): one certificate the strict parser
# refuses (a GeneralizedTime before 2050, which distribution CA bundles
# carry) is skipped with a one-line warning naming its index and subject; the
# rest verify.  --trust-system reads the distribution bundle, and says its
# skipped certificates only with -v (issue #27 item 10).
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/pki.sh"
cd "$T"
unset KTRUST_STORE
gen_ca ca "Bundle CA"
gen_leaf signer "Bundle CA" ca
gen_ca other "Other CA"
$KTRUST wrap-key signer.pem -o w.efi >/dev/null 2>&1
osslsign w.efi w.signed.efi signer ca
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout odd.key -out odd.pem \
    -subj '/O=Odd Org/CN=Odd Time Root' -days 30 2>/dev/null
openssl x509 -in odd.pem -outform DER -out odd.der
python3 "$KT_SRC/tests/fixtures/gentime_cert.py" odd.der oddg.der
openssl x509 -inform DER -in oddg.der -out oddg.pem
# the oracle: openssl reads the odd certificate; ktrust's strict parser does not
expect_exit 0 "openssl parses the GeneralizedTime certificate" -- openssl x509 -in oddg.pem -noout -subject
expect_exit 4 "ktrust refuses it alone" -- $KTRUST x509 show oddg.pem
cat other.pem oddg.pem ca.pem >bundle.pem
expect_exit 0 "osslsigncode verifies against the bundle" -- osslsigncode verify -ignore-cdp -ignore-crl -CAfile bundle.pem -in w.signed.efi

out=$($KTRUST verify-pe --trust bundle.pem w.signed.efi 2>&1 >/dev/null); rc=$?
expect_eq "$rc" 0 "verify-pe against the bundle: trusted"
expect_eq "$(printf '%s\n' "$out" | grep -c .)" 1 "exactly one warning line"
expect_match "$out" "^ktrust: warning: --trust bundle.pem: certificate 2 \(O=Odd Org, CN=Odd Time Root\) skipped: .*GeneralizedTime for a year before 2050" "the warning names index and subject"
expect_exit 0 "-q: trusted, and quiet" -- test -z "$($KTRUST verify-pe -q --trust bundle.pem w.signed.efi 2>&1)"
json=$($KTRUST verify-pe --json --trust bundle.pem w.signed.efi 2>/dev/null)
expect_eq "$(printf '%s' "$json" | python3 -c 'import sys,json; print(json.load(sys.stdin)["verdict"])')" trusted "--json: stdout is only the result"
# the skipped certificate is really not trusted: a PE it signs is not trusted
openssl req -new -newkey rsa:2048 -nodes -keyout s2.key -out s2.csr -subj '/CN=Odd signer' 2>/dev/null
printf 'extendedKeyUsage=codeSigning\n' >s2.ext
openssl x509 -req -in s2.csr -CA odd.pem -CAkey odd.key -CAcreateserial -out s2.pem -days 20 -extfile s2.ext 2>/dev/null
osslsigncode sign -certs s2.pem -key s2.key -in w.efi -out w.odd.efi >/dev/null 2>&1
expect_exit 2 "a PE under the skipped root: untrusted" -- $KTRUST verify-pe -q --trust bundle.pem w.odd.efi
# a bundle of nothing usable is an error naming the option (4)
out=$($KTRUST verify-pe --trust oddg.pem w.signed.efi 2>&1); rc=$?
expect_eq "$rc" 4 "a bundle with no usable certificate: 4"
expect_match "$out" "^ktrust: --trust oddg.pem: .*GeneralizedTime" "... naming the option"
# the same leniency for the DER certificate list form
cat other.pem | openssl x509 -outform DER >list.der; cat oddg.der >>list.der; openssl x509 -in ca.pem -outform DER >>list.der
out=$($KTRUST verify-pe --trust list.der w.signed.efi 2>&1 >/dev/null); rc=$?
expect_eq "$rc:$(printf '%s\n' "$out" | grep -c 'certificate 2 (O=Odd Org, CN=Odd Time Root) skipped')" "0:1" "DER certificate list: skipped, trusted"
# keyring add (which stores) stays strict: all or nothing
expect_exit 4 "keyring add of the bundle: refused whole" -- $KTRUST keyring add --store "$T/k.db" --keyring platform bundle.pem

# --trust-system: the distribution bundle
sys=/etc/ssl/certs/ca-certificates.crt
if [ -s "$sys" ]; then
    out=$($KTRUST verify-pe --trust-system w.signed.efi 2>&1 >/dev/null); rc=$?
    expect_eq "$rc" 2 "--trust-system: our CA is not in it: untrusted (not an error)"
    # (#27 item 10) the bundle's skipped certificates are the same on every
    # run: nothing on stderr without -v, each one line with -v
    expect_eq "$out" "" "--trust-system without -v: nothing on stderr"
    outv=$($KTRUST verify-pe -v --trust-system w.signed.efi 2>&1 >/dev/null)
    skipped=$(printf '%s\n' "$outv" | grep -c '^ktrust: warning: --trust-system '"$sys"': certificate [0-9]* (.*) skipped: ')
    expect_eq "$(printf '%s\n' "$outv" | grep -v '^ktrust: store: ' | grep -c .)" "$skipped" "--trust-system -v: only the skip lines"
    # the same file named with --trust (the user's choice): warned without -v
    outt=$($KTRUST verify-pe --trust "$sys" w.signed.efi 2>&1 >/dev/null)
    expect_eq "$(printf '%s\n' "$outt" | grep -c '^ktrust: warning: --trust '"$sys"': certificate [0-9]* (.*) skipped: ')" "$skipped" "--trust BUNDLE: the same skips, warned"
    expect_exit 0 "--trust-system with --trust ca.pem: trusted" -- $KTRUST verify-pe -q --trust-system --trust ca.pem w.signed.efi
    n=$(grep -c 'BEGIN CERTIFICATE' "$sys")
    echo "system bundle: $n certificates, $skipped skipped" >&2
else
    echo "no $sys: --trust-system not exercised" >&2
fi
finish
