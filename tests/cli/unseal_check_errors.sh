#!/bin/bash
# ktrust unseal-check on inputs that are not what they claim: a file that is
# no LUKS2 header, a damaged header, a token JSON that does not parse or
# lacks its fields, a clevis JWE whose header or TPM2B_PUBLIC is garbage:
# one clear line on stderr, exit 4, nothing written; a token ktrust cannot
# recompute (a signed policy, systemd-pcrlock) is "cannot tell", exit 3.
# Token files are real enrolments' JSON (systemd-cryptenroll 252, clevis 19,
# fuzz/seeds/fuzz_seal_token) checked against the PCR 7 they were sealed to.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
S=$KT_SRC/fuzz/seeds/fuzz_seal_token
# the swtpm those tokens were sealed on had PCR 7 = SHA-256/SHA-1 extend of "a"
cat >pcrs.txt <<'EOF'
sha256 7 8c374a53782642f7514d087d26a3e733f1b806009a03e04a43b288ef2fa9f9c0
sha256 4 0000000000000000000000000000000000000000000000000000000000000000
sha1 7 b311ff7e540d671f5b54ed190d402a1d064fbecb
EOF
for f in "$S"/*.json; do
    expect_exit 0 "$(basename "$f"): unseals with the PCR 7 it was sealed to" -- "$KTRUST" unseal-check --pcrs pcrs.txt "$f"
done
sed 's/^sha1 7 b/sha1 7 c/' pcrs.txt >other.txt
expect_exit 5 "clevis sha1 token: another PCR 7 does not unseal" -- "$KTRUST" unseal-check --pcrs other.txt "$S/token1.json"
expect_exit 0 "systemd sha256 token: the sha1 change does not matter" -- "$KTRUST" unseal-check --pcrs other.txt "$S/token0.json"
grep -v '^sha256 7' pcrs.txt >no7.txt
out=$("$KTRUST" unseal-check --pcrs no7.txt "$S/token0.json")
expect_match "$out" 'today: cannot tell .*a PCR it is bound to was not read' "a PCR not read: cannot tell"
expect_exit 3 "a PCR not read: exit 3" -- "$KTRUST" unseal-check --pcrs no7.txt "$S/token0.json"

# kinds ktrust does not recompute: cannot tell, never guessed
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
t["tpm2_pubkey"] = "AAAA"; t["tpm2_pubkey_pcrs"] = [11]
json.dump(t, open("signed.json", "w"))
t = json.load(open(sys.argv[1])); t["tpm2_pcrlock"] = True
json.dump(t, open("pcrlock.json", "w"))' "$S/token0.json"
out=$("$KTRUST" unseal-check --pcrs pcrs.txt signed.json --json)
expect_match "$out" '"kind":"signed".*"unseals_today":null' "a signed policy: cannot tell"
expect_exit 3 "a signed policy: exit 3" -- "$KTRUST" unseal-check --pcrs pcrs.txt signed.json
expect_match "$("$KTRUST" unseal-check --pcrs pcrs.txt signed.json)" "cannot tell .*not an RSA public key" "a signed policy whose key is not one: said why"
expect_match "$("$KTRUST" unseal-check --pcrs pcrs.txt pcrlock.json)" 'cannot tell .*: a systemd-pcrlock policy' "pcrlock: cannot tell, said why"

# malformed: one line, exit 4, nothing written
err() { # NAME FILE REGEX
    local out rc before
    before=$(ls -A; sha256sum "$2")
    out=$("$KTRUST" unseal-check --pcrs pcrs.txt "$2" 2>&1 >/dev/null)
    rc=$?
    expect_eq "$(ls -A; sha256sum "$2")" "$before" "$1: nothing written"
    expect_eq "$rc" 4 "$1: exit"
    expect_eq "$(printf '%s\n' "$out" | wc -l)" 1 "$1: one error line"
    expect_match "$out" "^ktrust: $2: .*$3" "$1: says what"
}
head -c 65536 /dev/zero >zeros.img
err "not LUKS2" zeros.img 'not a LUKS2 header'
printf '{"type":"systemd-tpm2",' >trunc.json
err "truncated JSON" trunc.json '.'
printf '{"type":"systemd-tpm2","tpm2-pcrs":[7],"tpm2-policy-hash":"xyz"}' >hash.json
err "bad policy hash" hash.json 'tpm2-policy-hash is not a hex digest'
printf '{"type":"systemd-tpm2","tpm2-pcrs":[99],"tpm2-policy-hash":"%064d"}' 0 >pcr.json
err "PCR 99" pcr.json 'tpm2-pcrs: not a PCR number'
printf '{"type":"clevis","jwe":{"protected":"!!!"}}' >b64.json
err "clevis: header not base64url" b64.json 'jwe.protected is not base64url'
python3 -c '
import json, base64
h = base64.urlsafe_b64encode(json.dumps({"clevis": {"pin": "tpm2", "tpm2": {"pcr_ids": "7", "jwk_pub": "AAQAAQ"}}}).encode()).decode().rstrip("=")
json.dump({"type": "clevis", "jwe": {"protected": h}}, open("pub.json", "w"))'
err "clevis: jwk_pub not a TPM2B_PUBLIC" pub.json 'jwk_pub'
printf '{"type":"luks2-keyring"}' >other.json
err "not a TPM2 token" other.json 'not a TPM2 token'
# a LUKS2 header damaged where its JSON area is
if command -v cryptsetup >/dev/null; then
    truncate -s 16M img
    head -c 32 /dev/urandom >key
    cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 img key >/dev/null 2>&1
    expect_exit 0 "a LUKS2 image with no token: nothing to check" -- "$KTRUST" unseal-check img
    expect_match "$("$KTRUST" unseal-check img)" 'no TPM2 token' "no token: said"
    printf 'garbage!' | dd of=img bs=1 seek=4096 conv=notrunc 2>/dev/null
    printf 'garbage!' | dd of=img bs=1 seek=$((16384 + 4096)) conv=notrunc 2>/dev/null
    err "damaged LUKS2 header" img 'not a LUKS2 header'
fi
# no source: the volumes of /etc/crypttab under --root (paths, UUID= through
# /dev/disk/by-uuid, an absolute link resolved inside the root)
mkdir -p root/etc root/seal root/dev/disk/by-uuid root/dev/disk/by-label
cp "$S/token0.json" "$S/token1.json" root/seal/
ln -s ../../../seal/token1.json root/dev/disk/by-uuid/1234-abcd
ln -s /seal/token0.json root/dev/disk/by-label/data
printf '# name device key options\nroot /seal/token0.json none luks\nhome UUID=1234-abcd none luks,discard\nsrv LABEL=data none\n\n' >root/etc/crypttab
out=$("$KTRUST" unseal-check --root root --pcrs pcrs.txt --json)
expect_eq "$(printf '%s\n' "$out" | python3 -c '
import sys, json
for d in map(json.loads, sys.stdin):
    if d["type"] == "token": print(d["source"].split("root/")[-1], d["tool"], d["unseals_today"])')" "seal/token0.json systemd-tpm2 True
seal/token1.json clevis True
seal/token0.json systemd-tpm2 True" "--root: /etc/crypttab's volumes, links resolved inside the root"
expect_exit 66 "--root without /etc/crypttab" -- "$KTRUST" unseal-check --root root/seal --pcrs pcrs.txt
expect_exit 66 "a missing file" -- "$KTRUST" unseal-check missing.img
expect_exit 64 "no source in an offline run" -- "$KTRUST" unseal-check --pcrs pcrs.txt
expect_exit 64 "--apply without --efivars" -- "$KTRUST" unseal-check --eventlog x --apply y img
# a device as audit --save-root saves it: a directory of token-N.json (the
# number is the token's), read like a header; a bad one is a clear error
mkdir -p saved/dev/vda3 empty
cp "$S/token0.json" saved/dev/vda3/token-4.json
cp "$S/token1.json" saved/dev/vda3/token-11.json
echo 'not a token' >saved/dev/vda3/README
expect_eq "$("$KTRUST" unseal-check --pcrs pcrs.txt saved/dev/vda3 --json | jq -r 'select(.type=="token") | "\(.token) \(.unseals_today)"')" "4 true
11 true" "a saved device: its token-N.json files, in N's order"
expect_match "$("$KTRUST" unseal-check --pcrs pcrs.txt empty)" 'empty: no TPM2 token' "a saved device with no token"
printf '{"type":"systemd-tpm2","tpm2-pcrs":[7],"tpm2-policy-hash":"xyz"}' >saved/dev/vda3/token-12.json
expect_exit 4 "a saved token that does not parse: exit 4" -- "$KTRUST" unseal-check --pcrs pcrs.txt saved/dev/vda3
expect_match "$("$KTRUST" unseal-check --pcrs pcrs.txt saved/dev/vda3 2>&1)" 'saved/dev/vda3: .*tpm2-policy-hash is not a hex digest' "the error names the device and the field"
finish
