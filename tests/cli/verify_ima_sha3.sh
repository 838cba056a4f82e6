#!/usr/bin/env bash
# SHA-3 IMA signatures (hash_algo 20-22: sha3-256/384/512, which Linux 6.7's
# hash_info, rsa-pkcs1pad and ecdsa take): evmctl 1.4 cannot sign them, so
# the v2 blob is built here (type 3, version 2, hash_algo, be32 key id, be16
# size) around `openssl dgst -sha3-* -sign`, and `openssl dgst -verify` is
# the oracle.  verify-ima --sigfile: good (RSA and ECDSA), altered, the
# header's algorithm changed; then an ima-sig list whose d-ng field says
# "sha3-256:" judges the same signature.  Before, verify-ima answered
# "ktrust cannot compute it" (exit 3).
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
cd "$T"
gen_ca ca "IMA CA"
gen_leaf imakey "IMA" ca
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout eckey.key \
    -out eckey.csr -subj "/O=IMA/CN=IMA EC key" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >ec.ext
openssl x509 -req -in eckey.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out eckey.pem \
    -days 3650 -extfile ec.ext 2>/dev/null
R=(--trust ca.pem --ima-key imakey.pem --ima-key eckey.pem)

# sign FILE KEY ALGO HASH_ALGO_NUMBER: FILE.sig as evmctl --sigfile writes it
sign() {
    local kid
    kid=$("$KTRUST" x509 show --json "$2.pem" | jq -r '.skid[-8:]')
    openssl dgst -"$3" -sign "$2.key" -binary -out "$1.raw" "$1" || return 1
    { printf '\x03\x02'"\\x$(printf %02x "$4")"; printf '%s' "$kid" | xxd -r -p
      printf '%04x' "$(stat -c %s "$1.raw")" | xxd -r -p; cat "$1.raw"; } >"$1.sig"
}
n=0
for key in imakey eckey; do
    for a in "sha3-256 20" "sha3-384 21" "sha3-512 22"; do
        set -- $a
        n=$((n + 1))
        head -c $((500 + n * 41)) /dev/urandom >f$n
        sign f$n $key "$1" "$2" || { bad "openssl dgst -$1 -sign"; continue; }
        openssl x509 -in $key.pem -pubkey -noout >$key.pub
        openssl dgst -"$1" -verify $key.pub -signature f$n.raw f$n >/dev/null && ok || bad "oracle: $key $1"
        expect_exit 0 "$key $1 good" -- "$KTRUST" verify-ima --sigfile "${R[@]}" f$n
        expect_eq "$("$KTRUST" verify-ima --sigfile --json "${R[@]}" f$n | jq -r '.ima.hash_algorithm + " " + .linux_since')" \
            "$1 6.7" "$key $1: JSON hash, linux_since"
        expect_match "$("$KTRUST" verify-ima --sigfile "${R[@]}" f$n)" \
            "^f$n: trusted \\(for Linux 6.7 or later: older kernels refuse its algorithm\\)" "$key $1: the release said"
    done
done
# altered content: the oracle and ktrust reject
cp f1 g1; cp f1.sig g1.sig; printf x >>g1
openssl dgst -sha3-256 -verify imakey.pub -signature f1.raw g1 >/dev/null 2>&1 && bad "oracle: altered" || ok
expect_exit 5 "sha3-256 altered" -- "$KTRUST" verify-ima --sigfile "${R[@]}" g1
# the header says sha256 over a sha3-256 signature: ktrust hashes the file
# with sha256 (as the kernel would) and the signature does not match
cp f1 h1; { printf '\x03\x02\x04'; tail -c +4 f1.sig; } >h1.sig
expect_exit 5 "sha3-256 signature under a sha256 header" -- "$KTRUST" verify-ima --sigfile "${R[@]}" h1

# the measurement list: a file measured with ima_hash=sha3-256 ("sha3-256:" in d-ng)
python3 "$KT_SRC/tests/fixtures/imalist.py" --entries 1 --binary l.bin --pcrs p.txt --file-alg sha3-256 \
    --file /etc/good=f1:f1.sig --file /etc/changed=g1:f1.sig
out=$("$KTRUST" ima-list l.bin --pcrs p.txt "${R[@]}" -v 2>&1)
expect_eq "$?" 0 "sha3-256 list replays"
expect_match "$(printf '%s\n' "$out" | grep ' /etc/good')" "signature trusted, key" "list: sha3-256 trusted"
expect_match "$(printf '%s\n' "$out" | grep ' /etc/changed')" "signature rejected" "list: sha3-256 changed"
finish
