#!/bin/bash
# verify-pkcs7 against `openssl cms -verify` on generated messages: with and
# without authenticated attributes, SKID and issuer+serial signer ids, RSA
# and ECDSA, SHA-256/384/512, chains of depth 1-3, attached and detached,
# BER (streamed, indefinite lengths), PEM, several signers.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"

ext() { # ca|leaf
    if [ "$1" = ca ]; then
        printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=keyCertSign,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n'
    else
        printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=codeSigning,emailProtection\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n'
    fi
}
newkey() { # NAME rsa|ec
    if [ "$2" = ec ]; then
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$1.key" 2>/dev/null
    else
        openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null
    fi
}
root() { # NAME CN alg
    newkey "$1" "$3"
    ext ca > ca.ext
    openssl req -x509 -new -key "$1.key" -subj "/CN=$2/O=Test" -days 3650 -out "$1.pem" \
        -extensions v3 -config <(printf '[req]\ndistinguished_name=dn\n[dn]\n[v3]\n'; cat ca.ext) 2>/dev/null
}
issue() { # NAME CN ISSUER ca|leaf alg
    newkey "$1" "$5"
    openssl req -new -key "$1.key" -subj "/CN=$2/O=Test" -out "$1.csr" 2>/dev/null
    ext "$4" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days 3650 \
        -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}

root root "Test Root CA" rsa
issue inter "Test Intermediate CA" root ca rsa
issue leaf "Test Leaf Signer" inter leaf rsa
issue leaf2 "Test Leaf Two" root leaf rsa
issue ecleaf "Test EC Signer" inter leaf ec
root selfsig "Self Signer" rsa
root stranger "Stranger Root" rsa
cat inter.pem root.pem > inter_root.pem
head -c 30000 /dev/urandom > data.bin
printf 'hello, ktrust\n' > small.txt

# compare NAME WANT_KTRUST_EXIT OPENSSL_ARGS -- KTRUST_ARGS
# openssl's verdict (0 ok / non-zero) must agree with ktrust (0 trusted / non-zero)
compare() {
    local name=$1 want=$2
    shift 2
    local oargs=()
    while [ "$1" != -- ]; do oargs+=("$1"); shift; done
    shift
    openssl cms -verify -purpose any "${oargs[@]}" -out /dev/null >/dev/null 2>&1
    local orc=$?
    "$KTRUST" verify-pkcs7 "$@" >/dev/null 2>&1
    local krc=$?
    expect_eq "$krc" "$want" "$name: ktrust exit"
    if [ "$want" = 0 ]; then expect_eq "$orc" 0 "$name: openssl agrees (verified)"
    else expect_eq "$([ "$orc" != 0 ] && echo fail)" fail "$name: openssl agrees (fails)"; fi
}

n=0
for md in sha256 sha384 sha512; do
  for attr in attr noattr; do
    for id in serial keyid; do
      for mode in detached attached; do
        flags=(-md "$md" -binary -outform DER)
        [ "$attr" = noattr ] && flags+=(-noattr)
        [ "$id" = keyid ] && flags+=(-keyid)
        [ "$mode" = attached ] && flags+=(-nodetach)
        out="m_${md}_${attr}_${id}_${mode}.p7"
        openssl cms -sign "${flags[@]}" -signer leaf.pem -inkey leaf.key -certfile inter_root.pem \
            -in data.bin -out "$out" 2>/dev/null || { bad "openssl sign $out"; continue; }
        n=$((n + 1))
        if [ "$id" = keyid ]; then
            # kernel rule (pkcs7_find_key, differs from openssl): a signer
            # named by SKID is never matched against the message's
            # certificates, so it chains to nothing; only the signer's own
            # key, trusted, vouches for it
            d=(); od=()
            [ "$mode" = detached ] && d=(--data data.bin) && od=(-content data.bin)
            expect_exit 2 "$out: SKID signer does not chain to a trusted root (kernel)" -- "$KTRUST" verify-pkcs7 "$out" "${d[@]}" --trust root.pem
            compare "$out: the signer key itself trusted" 0 -inform DER -in "$out" -binary "${od[@]}" -CAfile leaf.pem -partial_chain -- "$out" "${d[@]}" --trust leaf.pem
            if [ "$mode" = detached ]; then
                cp data.bin short.bin; flip short.bin 29999
                compare "$out tampered data, signer trusted" 5 -inform DER -in "$out" -binary -content short.bin -CAfile leaf.pem -partial_chain -- "$out" --data short.bin --trust leaf.pem
            fi
            continue
        fi
        if [ "$mode" = detached ]; then
            compare "$out trust root" 0 -inform DER -in "$out" -binary -content data.bin -CAfile root.pem -- "$out" --data data.bin --trust root.pem
            compare "$out untrusted" 2 -inform DER -in "$out" -binary -content data.bin -CAfile stranger.pem -- "$out" --data data.bin --trust stranger.pem
            cp data.bin short.bin; flip short.bin 29999
            compare "$out tampered data" 5 -inform DER -in "$out" -binary -content short.bin -CAfile root.pem -- "$out" --data short.bin --trust root.pem
        else
            compare "$out trust root" 0 -inform DER -in "$out" -binary -CAfile root.pem -- "$out" --trust root.pem
            compare "$out trust intermediate" 0 -inform DER -in "$out" -binary -CAfile inter.pem -partial_chain -- "$out" --trust inter.pem
        fi
      done
    done
  done
done
expect_eq "$n" 24 "24 sign variants made"

# chains of depth 1, 2, 3 (certificates in the message: the signer and its issuers)
openssl cms -sign -binary -outform DER -nodetach -signer selfsig.pem -inkey selfsig.key -in small.txt -out d1.p7 2>/dev/null
openssl cms -sign -binary -outform DER -nodetach -signer leaf2.pem -inkey leaf2.key -certfile root.pem -in small.txt -out d2.p7 2>/dev/null
openssl cms -sign -binary -outform DER -nodetach -signer leaf.pem -inkey leaf.key -certfile inter_root.pem -in small.txt -out d3.p7 2>/dev/null
openssl cms -sign -binary -outform DER -nodetach -signer leaf.pem -inkey leaf.key -certfile inter.pem -in small.txt -out d3noroot.p7 2>/dev/null
compare "depth 1 self-signed trusted" 0 -inform DER -in d1.p7 -binary -CAfile selfsig.pem -- d1.p7 --trust selfsig.pem
compare "depth 1 unknown self-signed" 2 -inform DER -in d1.p7 -binary -CAfile root.pem -- d1.p7 --trust root.pem
compare "depth 2" 0 -inform DER -in d2.p7 -binary -CAfile root.pem -- d2.p7 --trust root.pem
compare "depth 3" 0 -inform DER -in d3.p7 -binary -CAfile root.pem -- d3.p7 --trust root.pem
compare "depth 3, root not in message" 0 -inform DER -in d3noroot.p7 -binary -CAfile root.pem -- d3noroot.p7 --trust root.pem
compare "depth 3, leaf itself trusted" 0 -inform DER -in d3.p7 -binary -CAfile leaf.pem -partial_chain -- d3.p7 --trust leaf.pem
compare "depth 3, stranger" 2 -inform DER -in d3.p7 -binary -CAfile stranger.pem -- d3.p7 --trust stranger.pem
json=$("$KTRUST" verify-pkcs7 --json --trust root.pem d3.p7)
expect_match "$json" '"chain":\["Test Leaf Signer: [0-9a-f]+","Test Intermediate CA: [0-9a-f]+","Test Root CA: [0-9a-f]+"\]' "json chain of 3 descriptions (CN alone: it starts with O)"
expect_match "$json" '"trusted_by":"Test Root CA: [0-9a-f]+"' "json trusted_by root"
expect_match "$json" '^\{"file":"d3.p7","type":"pkcs7","verdict":"trusted","error":null,"reason":' "json head"

# kernel rule (pkcs7_verify_sig_chain, differs from openssl): chains inside
# a message follow the AKID only; a certificate without one ends the chain
# even when its issuer, by name, is in the message
newkey noakid rsa
openssl req -new -key noakid.key -subj "/CN=Test No AKID Signer/O=Test" -out noakid.csr 2>/dev/null
printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=none\n' > noakid.ext
openssl x509 -req -in noakid.csr -CA inter.pem -CAkey inter.key -CAcreateserial -days 3650 -extfile noakid.ext -out noakid.pem 2>/dev/null
openssl cms -sign -binary -outform DER -nodetach -signer noakid.pem -inkey noakid.key -certfile inter_root.pem -in small.txt -out noakid.p7 2>/dev/null
openssl cms -verify -purpose any -inform DER -in noakid.p7 -binary -CAfile root.pem -out /dev/null >/dev/null 2>&1
expect_eq $? 0 "openssl chains the AKID-less signer by issuer name"
expect_exit 2 "ktrust, as the kernel, does not: untrusted" -- "$KTRUST" verify-pkcs7 noakid.p7 --trust root.pem
expect_match "$("$KTRUST" verify-pkcs7 noakid.p7 --trust root.pem 2>&1)" "chain ends at Test No AKID Signer" "... the chain ends at the signer"
expect_exit 2 "its issuer trusted: untrusted too (no AKID: the kernel looks up no issuer)" -- "$KTRUST" verify-pkcs7 noakid.p7 --trust inter.pem
compare "the signer itself trusted" 0 -inform DER -in noakid.p7 -binary -CAfile noakid.pem -partial_chain -- noakid.p7 --trust noakid.pem

# ECDSA signer
openssl cms -sign -binary -outform DER -nodetach -md sha384 -signer ecleaf.pem -inkey ecleaf.key -certfile inter_root.pem -in data.bin -out ec.p7 2>/dev/null
compare "ecdsa p-384" 0 -inform DER -in ec.p7 -binary -CAfile root.pem -- ec.p7 --trust root.pem
openssl cms -sign -binary -outform DER -nodetach -noattr -keyid -signer ecleaf.pem -inkey ecleaf.key -certfile inter_root.pem -in data.bin -out ec2.p7 2>/dev/null
compare "ecdsa noattr keyid, signer trusted" 0 -inform DER -in ec2.p7 -binary -CAfile ecleaf.pem -partial_chain -- ec2.p7 --trust ecleaf.pem
expect_exit 2 "ecdsa noattr keyid, root trusted: SKID signer chains to nothing (kernel)" -- "$KTRUST" verify-pkcs7 ec2.p7 --trust root.pem
# RSA-PSS
openssl cms -sign -binary -outform DER -nodetach -signer leaf.pem -inkey leaf.key -keyopt rsa_padding_mode:pss -certfile inter_root.pem -in data.bin -out pss.p7 2>/dev/null
compare "rsa-pss" 0 -inform DER -in pss.p7 -binary -CAfile root.pem -- pss.p7 --trust root.pem

# BER: streamed (indefinite lengths, constructed OCTET STRING content)
openssl cms -sign -binary -stream -outform DER -nodetach -signer leaf.pem -inkey leaf.key -certfile inter_root.pem -in data.bin -out ber.p7 2>/dev/null
expect_eq "$(od -An -tx1 -j1 -N1 ber.p7 | tr -d ' ')" 80 "streamed message has an indefinite length"
compare "ber streamed" 0 -inform DER -in ber.p7 -binary -CAfile root.pem -- ber.p7 --trust root.pem
# PEM
openssl cms -sign -binary -outform PEM -nodetach -signer leaf.pem -inkey leaf.key -certfile inter_root.pem -in data.bin -out pem.p7 2>/dev/null
compare "pem" 0 -inform PEM -in pem.p7 -binary -CAfile root.pem -- pem.p7 --trust root.pem
# smime -sign (PKCS#7 1.5 style)
openssl smime -sign -binary -outform DER -nodetach -signer leaf.pem -inkey leaf.key -certfile inter_root.pem -in data.bin -out smime.p7 2>/dev/null
compare "openssl smime" 0 -inform DER -in smime.p7 -binary -CAfile root.pem -- smime.p7 --trust root.pem

# several signers
openssl cms -sign -binary -outform DER -nodetach -signer leaf.pem -inkey leaf.key -signer leaf2.pem -inkey leaf2.key -certfile inter_root.pem -in data.bin -out two.p7 2>/dev/null
compare "two signers" 0 -inform DER -in two.p7 -binary -CAfile root.pem -- two.p7 --trust root.pem
json=$("$KTRUST" verify-pkcs7 --json --trust root.pem two.p7)
expect_match "$json" '"signatures":\[\{"index":0,.*\{"index":1,' "json lists both signers"
# the last signer's signature is the last bytes of a message without unsigned attributes
cp two.p7 twobad.p7
sz=$(stat -c %s twobad.p7)
b=$(od -An -tx1 -j $((sz - 1)) -N1 twobad.p7 | tr -d ' ')
printf "\\x$(printf %02x $((0x$b ^ 0xff)))" | dd of=twobad.p7 bs=1 seek=$((sz - 1)) conv=notrunc status=none
compare "two signers, one bad" 5 -inform DER -in twobad.p7 -binary -CAfile root.pem -- twobad.p7 --trust root.pem
json=$("$KTRUST" verify-pkcs7 --json --trust root.pem twobad.p7)
expect_match "$json" '\{"index":0,.*"verdict":"trusted".*\{"index":1,.*"verdict":"rejected"' "per-signer verdicts"
# kernel rule (differs from openssl, which wants every signer to chain): one
# trusted signer is enough when no signer is rejected
openssl cms -sign -binary -outform DER -nodetach -signer leaf.pem -inkey leaf.key -signer selfsig.pem -inkey selfsig.key -certfile inter_root.pem -in data.bin -out mixed.p7 2>/dev/null
expect_exit 0 "one trusted + one unknown signer -> trusted (kernel rule)" -- "$KTRUST" verify-pkcs7 --trust root.pem mixed.p7

# hashes refused / allowed
openssl cms -sign -binary -outform DER -nodetach -md sha1 -signer leaf.pem -inkey leaf.key -certfile inter_root.pem -in data.bin -out sha1.p7 2>/dev/null
expect_exit 3 "sha1 -> unsupported" -- "$KTRUST" verify-pkcs7 --trust root.pem sha1.p7
expect_exit 0 "sha1 --allow-sha1" -- "$KTRUST" verify-pkcs7 --allow-sha1 --trust root.pem sha1.p7

# malformed / unsigned / usage
head -c 500 d3.p7 > trunc.p7
expect_exit 4 "truncated -> malformed" -- "$KTRUST" verify-pkcs7 --trust root.pem trunc.p7
out=$("$KTRUST" verify-pkcs7 --trust root.pem trunc.p7 2>&1 >/dev/null)
expect_match "$out" '^ktrust: trunc.p7: .*\(at offset [0-9]+\)$' "error line with offset"
: > empty.p7
expect_exit 1 "empty -> unsigned" -- "$KTRUST" verify-pkcs7 empty.p7
expect_exit 4 "detached without --data" -- "$KTRUST" verify-pkcs7 --trust root.pem m_sha256_attr_serial_detached.p7
expect_exit 5 "attached with different --data" -- "$KTRUST" verify-pkcs7 --trust root.pem --data data.bin d3.p7
expect_exit 0 "attached with the same --data" -- "$KTRUST" verify-pkcs7 --trust root.pem --data small.txt d2.p7
expect_exit 64 "no argument" -- "$KTRUST" verify-pkcs7
expect_exit 66 "missing file" -- "$KTRUST" verify-pkcs7 nope.p7
# purpose module: needs data without authenticated attributes
expect_exit 5 "purpose module with attributes -> rejected" -- "$KTRUST" verify-pkcs7 --purpose module --trust root.pem d3.p7
expect_exit 0 "purpose module without attributes" -- "$KTRUST" verify-pkcs7 --purpose module --trust root.pem m_sha256_noattr_serial_attached.p7
# --check-time enforces validity (certificates valid for 10 years)
expect_exit 5 "--check-time=2099 -> rejected" -- "$KTRUST" verify-pkcs7 --check-time=2099-06-01 --trust root.pem d3.p7
expect_exit 0 "--check-time (now)" -- "$KTRUST" verify-pkcs7 --check-time --trust root.pem d3.p7
finish
