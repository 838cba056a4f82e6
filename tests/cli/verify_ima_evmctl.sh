#!/bin/bash
# verify-ima against evmctl (ima-evm-utils) as the oracle of the signature
# part, and the kernel's restrict_link_to_ima rule for the .ima keyring: RSA
# and ECDSA keys, sha256/sha384/sha512, security.ima and --sigfile; good,
# altered, wrong key, unknown key and a key the restriction refuses; then
# the attacks (truncated signature, sig_size past the blob, a key id
# collision, a hash the kernel refuses, a v3 blob claimed as v2, a symbolic
# link).  Needs root (security.* xattrs) on a filesystem that keeps them.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
. "$(dirname "$0")/../lib/ima.sh"
command -v evmctl >/dev/null || { echo "skipped: evmctl not installed (scripts/deps.sh)"; exit 77; }
ima_setup
# an ECDSA P-256 key the CA signs
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout eckey.key \
    -out eckey.csr -subj "/O=IMA/CN=IMA EC key" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >ec.ext
openssl x509 -req -in eckey.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out eckey.pem \
    -days 3650 -extfile ec.ext 2>/dev/null
for k in imakey stray eckey; do openssl x509 -in $k.pem -outform DER -out $k.der; done
R=(--trust ca.pem --ima-key imakey.pem --ima-key eckey.pem)

# evm_verdict FILE KEY.der [evmctl options]: 0 when evmctl says OK
evm_ok() { local f=$1 k=$2; shift 2; evmctl ima_verify "$@" --key "$k" "$f" >/dev/null 2>&1; }

n=0
for key in imakey eckey; do
    for alg in sha256 sha384 sha512; do
        n=$((n + 1))
        head -c $((1000 + n * 37)) /dev/urandom >f$n
        evmctl ima_sign -a $alg --key $key.key f$n >/dev/null 2>&1 || { bad "evmctl ima_sign $key $alg"; continue; }
        evm_ok f$n $key.der && ok || bad "evmctl: $key $alg good file"
        expect_exit 0 "$key $alg good" -- "$KTRUST" verify-ima "${R[@]}" f$n
        got=$("$KTRUST" verify-ima --json "${R[@]}" f$n | jq -r '.ima.hash_algorithm + " " + .ima.keyid')
        kid=$(evmctl ima_verify --key $key.der f$n 2>&1 | sed -n 's/^key 1: \([0-9a-f]*\) .*/\1/p')
        # (evmctl prints the id without leading zeros)
        expect_eq "$got" "$alg $(printf %08x "0x${kid:-0}")" "$key $alg: hash and key id as evmctl computes them"
        # the same signature as evmctl --sigfile writes it
        cp f$n g$n
        evmctl ima_sign -a $alg --sigfile --key $key.key g$n >/dev/null 2>&1
        expect_exit 0 "$key $alg sigfile" -- "$KTRUST" verify-ima --sigfile "${R[@]}" g$n
        # altered file: both reject
        flip f$n 100
        evm_ok f$n $key.der && bad "evmctl accepted an altered file" || ok
        expect_exit 5 "$key $alg altered" -- "$KTRUST" verify-ima "${R[@]}" f$n
    done
done

# wrong key: the signature names imakey's id but stray signed it
head -c 3000 /dev/urandom >w1
KID=$("$KTRUST" x509 show --json imakey.pem | jq -r '.skid[-8:]')
evmctl ima_sign --keyid "$KID" --key stray.key w1 >/dev/null 2>&1
evm_ok w1 imakey.der && bad "evmctl accepted the wrong key" || ok
expect_exit 5 "wrong key (key id collision with a different key)" -- "$KTRUST" verify-ima "${R[@]}" w1
# the kernel's partial id match also takes the end of id 0 (serial then
# issuer name): a certificate issued by "CN=IMA CA Root" has id 0 ending in
# "Root" (526f6f74).  A signature naming that id finds imakey (and eckey) as
# the kernel's search would: imakey's verifies it (trusted; evmctl, which
# matches only its own key id, calls the key unknown), the stray key's does
# not (rejected, never unknown)
head -c 3000 /dev/urandom >i1; cp i1 i2
evmctl ima_sign --keyid 526f6f74 --key imakey.key i1 >/dev/null 2>&1
evm_ok i1 imakey.der && bad "evmctl matched the issuer's tail" || ok
expect_exit 0 "key id = the end of the issuer name" -- "$KTRUST" verify-ima "${R[@]}" i1
expect_eq "$("$KTRUST" verify-ima --json "${R[@]}" i1 | jq -r .ima.candidates)" 2 "two .ima keys have that id"
evmctl ima_sign --keyid 526f6f74 --key stray.key i2 >/dev/null 2>&1
expect_exit 5 "stray key naming the issuer's tail" -- "$KTRUST" verify-ima "${R[@]}" i2
# unknown key: evmctl knows only the stray key; ktrust's .ima has no key with that id
head -c 3000 /dev/urandom >u1
evmctl ima_sign --key imakey.key u1 >/dev/null 2>&1
evm_ok u1 stray.der && bad "evmctl accepted an unknown key" || ok
expect_exit 2 "unknown key" -- "$KTRUST" verify-ima --trust ca.pem --ima-key eckey.pem u1
# the restriction: evmctl checks the signature (good), the .ima keyring
# refuses the stray key (no builtin/secondary key signed it): refused
head -c 3000 /dev/urandom >s1
evmctl ima_sign --key stray.key s1 >/dev/null 2>&1
evm_ok s1 stray.der && ok || bad "evmctl: stray key's own signature"
expect_exit 6 "key the .ima restriction refuses" -- "$KTRUST" verify-ima --trust ca.pem --ima-key stray.pem s1
# ...and the kernel's own rule, where this kernel lets us build the keyring:
# a keyring restricted to a keyring holding the CA refuses the stray key
if command -v keyctl >/dev/null && RING=$(keyctl newring kt-ima-test-$$ @s 2>/dev/null); then
    CAR=$(keyctl newring kt-ima-ca-$$ @s)
    if openssl x509 -in ca.pem -outform DER | keyctl padd asymmetric "" "$CAR" >/dev/null 2>&1 &&
        keyctl restrict_keyring "$RING" asymmetric "key_or_keyring:$CAR" 2>/dev/null; then
        keyctl padd asymmetric "" "$RING" <stray.der >/dev/null 2>&1 && bad "kernel accepted the stray key" || ok
        keyctl padd asymmetric "" "$RING" <imakey.der >/dev/null 2>&1 && ok || bad "kernel refused the CA's key"
    else
        echo "note: kernel keyring oracle not run: this kernel refuses add_key/restrict_keyring here"
    fi
    keyctl unlink "$RING" @s >/dev/null 2>&1
    keyctl unlink "$CAR" @s >/dev/null 2>&1
else
    echo "note: kernel keyring oracle not run: no keyctl or no session keyring"
fi

# attacks on the blob: each must never be "trusted"
head -c 2000 /dev/urandom >a1
evmctl ima_sign --key imakey.key a1 >/dev/null 2>&1
X=$(getfattr -e hex -n security.ima a1 2>/dev/null | sed -n 's/^security.ima=0x//p')
setx() { cp a1 "$1"; setfattr -n security.ima -v "0x$2" "$1"; }
setx t1 "${X:0:$((${#X} - 2))}"                                 # one byte short
expect_exit 4 "truncated signature" -- "$KTRUST" verify-ima "${R[@]}" t1
setx t2 "${X:0:14}ffff${X:18}"                                  # sig_size 65535
expect_exit 4 "sig_size beyond the blob" -- "$KTRUST" verify-ima "${R[@]}" t2
setx t3 "${X:0:18}"                                             # the header alone
expect_exit 4 "header without a signature" -- "$KTRUST" verify-ima "${R[@]}" t3
setx t4 "${X:0:4}0b${X:6}"                                      # hash_algo 11: wp256
expect_exit 3 "a hash the kernel refuses (wp256)" -- "$KTRUST" verify-ima "${R[@]}" t4
setx t5 "${X:0:4}17${X:6}"                                      # hash_algo 23: past the table
expect_exit 3 "hash_algo past HASH_ALGO__LAST" -- "$KTRUST" verify-ima "${R[@]}" t5
setx t6 "${X:0:2}03${X:4}"                                      # version 3 in a type 3
expect_exit 5 "v3 blob claimed as v2 (type 3)" -- "$KTRUST" verify-ima "${R[@]}" t6
setx t7 "06${X:2}"                                              # type 6 with a v2 header
expect_exit 5 "v2 blob as an IMA_VERITY_DIGSIG" -- "$KTRUST" verify-ima "${R[@]}" t7
setx t8 "0404$(sha256sum a1 | cut -c1-64)"                       # a digest, not a signature
expect_exit 1 "digest_ng is unsigned" -- "$KTRUST" verify-ima "${R[@]}" t8
expect_match "$("$KTRUST" verify-ima "${R[@]}" t8 2>&1)" "matches the file" "digest_ng matches"
ln -s a1 link
expect_exit 66 "symbolic link refused" -- "$KTRUST" verify-ima "${R[@]}" link
expect_exit 0 "the file itself" -- "$KTRUST" verify-ima "${R[@]}" a1
cp a1 n1; setfattr -x security.ima n1 2>/dev/null
expect_exit 1 "no security.ima" -- "$KTRUST" verify-ima "${R[@]}" n1
# SHA-1 is refused unless allowed (as the other verifying commands)
cp a1 h1; evmctl ima_sign -a sha1 --key imakey.key h1 >/dev/null 2>&1
expect_exit 3 "sha1 refused" -- "$KTRUST" verify-ima "${R[@]}" h1
expect_exit 0 "sha1 allowed" -- "$KTRUST" verify-ima --allow-sha1 "${R[@]}" h1
# portable EVM (evmctl sign --portable): security.evm over the protected
# xattrs and uid/gid/mode, with the .evm keyring's key; evmctl verify is the
# oracle for each change
E=(--evm --trust ca.pem --ima-key imakey.pem --evm-key imakey.pem)
head -c 1500 /dev/urandom >e1
evmctl sign --portable --imasig --key imakey.key e1 >/dev/null 2>&1
evm_verify() { evmctl verify --key imakey.der "$1" >/dev/null 2>&1; }
evm_verify e1 && ok || bad "evmctl verify: portable good"
expect_exit 0 "portable EVM good" -- "$KTRUST" verify-ima "${E[@]}" e1
expect_eq "$("$KTRUST" verify-ima --json "${E[@]}" e1 | jq -r .evm.verdict)" trusted "evm object"
chmod 600 e1
evm_verify e1 && bad "evmctl accepted a changed mode" || ok
expect_exit 5 "portable EVM: mode changed" -- "$KTRUST" verify-ima "${E[@]}" e1
chmod 644 e1; chown 1234 e1
evm_verify e1 && bad "evmctl accepted a changed owner" || ok
expect_exit 5 "portable EVM: owner changed" -- "$KTRUST" verify-ima "${E[@]}" e1
chown 0 e1
expect_exit 0 "portable EVM: owner back" -- "$KTRUST" verify-ima "${E[@]}" e1
# a new IMA signature: the EVM one no longer covers security.ima
evmctl ima_sign -a sha512 --key imakey.key e1 >/dev/null 2>&1
evm_verify e1 && bad "evmctl accepted a changed security.ima" || ok
expect_exit 5 "portable EVM: security.ima changed" -- "$KTRUST" verify-ima "${E[@]}" e1
expect_exit 0 "the IMA signature alone" -- "$KTRUST" verify-ima "${R[@]}" e1
# no .evm key: untrusted; an HMAC: not verifiable offline; none at all
expect_exit 2 "portable EVM: no .evm key" -- "$KTRUST" verify-ima --evm "${R[@]}" e1
setfattr -n security.evm -v 0x02"$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')" e1
expect_exit 3 "EVM HMAC is not verifiable offline" -- "$KTRUST" verify-ima "${E[@]}" e1
expect_match "$("$KTRUST" verify-ima "${E[@]}" e1 2>&1)" "machine's EVM key" "HMAC said plainly"
setfattr -x security.evm e1
expect_exit 1 "--evm and no security.evm" -- "$KTRUST" verify-ima "${E[@]}" e1

# several files: the worst exit, a summary line
expect_exit 5 "several files" -- "$KTRUST" verify-ima "${R[@]}" a1 f1
expect_eq "$("$KTRUST" verify-ima --json "${R[@]}" a1 f1 | tail -1 | jq -r '.type + " " + .verdict')" \
    "summary rejected" "summary"
finish
