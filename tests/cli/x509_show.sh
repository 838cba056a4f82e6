#!/bin/bash
# `ktrust x509 show`: output forms, the exact JSON fields of CONTRACT.md,
# error lines and exit codes (0 ok, 3 unsupported, 4 malformed, 5 bad
# self-signature, 64 usage, 66 unreadable; the highest over several inputs).
source "$(dirname "$0")/../lib/common.sh"
corpus
G=$T/gen
bash "$KT_SRC/tests/fixtures/gen_certs.sh" "$G" || { bad "gen_certs.sh failed"; finish; }
MS=$CORPUS/trust/microsoft-uefi-ca-2011.pem

expect_exit 0 "--help" -- "$KTRUST" x509 show --help
expect_exit 64 "no file" -- "$KTRUST" x509 show
expect_exit 64 "bad subcommand" -- "$KTRUST" x509 frobnicate
expect_exit 64 "bad option" -- "$KTRUST" x509 show --bogus "$MS"
expect_exit 66 "missing file" -- "$KTRUST" x509 show "$T/nope.der"
expect_exit 0 "corpus PEM" -- "$KTRUST" x509 show "$MS"

# JSON: exactly the contract's fields, one record per certificate
keys=$("$KTRUST" x509 show --json "$MS" | python3 -c 'import json,sys; print(",".join(json.loads(sys.stdin.readline()).keys()))')
expect_eq "$keys" "type,description,subject,issuer,serial,skid,akid,not_before,not_after,key_algorithm,key_bits,signature_algorithm,self_signed,sha256,tbs_sha256" "JSON keys"
out=$("$KTRUST" x509 show --json "$MS")
expect_match "$out" '"description":"Microsoft Corporation UEFI CA 2011: 13adbf4309bd82709c8cd54f316ed522988a1bd4"' "MS description"
expect_match "$out" '"sha256":"48e99b991f57fc52f76149599bff0a58c47154229b9f8d603ac40d3500248507"' "MS sha256"
expect_match "$out" '"not_before":"2011-06-27T21:22:45Z"' "ISO time"
n=$("$KTRUST" x509 show --json "$G/bundle.pem" "$G/ca.der" | wc -l)
expect_eq "$n" 4 "NDJSON: bundle (3) + one DER"
akid=$("$KTRUST" x509 show --json "$G/nokid.der" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["skid"], j["akid"], j["serial"])')
expect_eq "$akid" "None None 7a9a88f1" "null skid/akid"

# JSON stays valid UTF-8 when the kernel's description carries Latin-1 bytes
d=$("$KTRUST" x509 show --json "$G/t61.der" | python3 -c 'import json,sys; print(json.loads(sys.stdin.buffer.read().decode("utf-8"))["description"][:27])')
expect_eq "$d" "Société: Clé de signature: " "T61 description in JSON"

# text
out=$("$KTRUST" x509 show "$G/leaf-rsa.der")
expect_match "$out" "description: +Test CA Org: Leaf Signer: [0-9a-f]{40}" "text description"
expect_match "$out" "extended key usage: +codeSigning moduleSigning" "text EKU"
expect_match "$out" "self-signed: +no" "text self-signed"
out=$("$KTRUST" x509 show - <"$G/ca.der")
expect_match "$out" "^-: certificate 1" "stdin"

# malformed: truncated certificate -> 4 and one error line with an offset
head -c 300 "$G/rsa2048.der" >"$T/trunc.der"
expect_exit 4 "truncated" -- "$KTRUST" x509 show "$T/trunc.der"
err=$("$KTRUST" x509 show "$T/trunc.der" 2>&1 >/dev/null)
expect_match "$err" "^ktrust: $T/trunc.der: .+ \(at offset [0-9]+\)$" "error line"
expect_eq "$(printf '%s\n' "$err" | wc -l)" 1 "one error line"
echo "not a certificate" >"$T/junk.txt"
expect_exit 4 "junk" -- "$KTRUST" x509 show "$T/junk.txt"
printf -- '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n' >"$T/key.pem"
expect_exit 4 "PEM without certificate" -- "$KTRUST" x509 show "$T/key.pem"

# unsupported: MD5 signature is shown, exit 3
expect_exit 3 "md5" -- "$KTRUST" x509 show "$G/md5.der"
out=$("$KTRUST" x509 show "$G/md5.der" 2>/dev/null)
expect_match "$out" "signature: +md5WithRSAEncryption \(unsupported\)" "md5 shown"

# rejected: a self-signed certificate whose signature does not verify
python3 -c 'import sys; d=bytearray(open(sys.argv[1],"rb").read()); d[-5]^=1; open(sys.argv[2],"wb").write(d)' \
    "$G/rsa2048.der" "$T/badsig.der"
expect_exit 5 "bad self-signature" -- "$KTRUST" x509 show "$T/badsig.der"

# several inputs: the highest code; -q prints nothing
expect_exit 66 "highest code" -- "$KTRUST" x509 show "$MS" "$T/trunc.der" "$T/nope.der"
expect_exit 4 "highest code (4)" -- "$KTRUST" x509 show "$G/md5.der" "$T/trunc.der" "$MS"
out=$("$KTRUST" x509 show -q "$MS" "$T/trunc.der" 2>&1)
expect_eq "$out" "" "-q silent"
finish
