#!/bin/bash
# ktrust unseal-check on signed PCR policies (issues #33/#34) against the real
# tools: a LUKS2 image enrolled with systemd 252's systemd-cryptenroll
# --tpm2-public-key=pcr.pub --tpm2-public-key-pcrs=11 on a swtpm (token 0:
# signed PCR 11 only; token 1: with a literal PCR 7 too), UKIs built from the
# stub (mkuki.sh) whose .pcrsig systemd-measure sign made.  ktrust's digest
# must equal each token's.  Then for each UKI, the real unseal as systemd 252's
# unlock does it: the TPM restarted, PCR 7 at its state, PCR 11 extended with
# the UKI's sections (hashed here, independently) and enter-initrd;
# PolicyPCR(11), the .pcrsig entry systemd's find_signature picks, the TPM's
# VerifySignature ticket, PolicyAuthorize, PolicyPCR(7), Unseal, and the
# secret opens the key slot (cryptsetup --test-passphrase).  ktrust's verdict
# must equal it: the good UKI unseals; another key's .pcrsig, a changed
# .cmdline, a tampered signature, another key's signature under our pkfp, a
# .pcrsig of another bank, one for another phase, none: do NOT.  The re-sign
# ktrust prints for the changed .cmdline, run, unseals.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl swtpm python3 measure
for t in tpm2_pcrextend tpm2_verifysignature systemd-cryptenroll cryptsetup; do
    command -v "$t" >/dev/null || { [ -n "${CI:-}" ] && { echo "CI: $t missing" >&2; exit 1; }
                                     echo "skipped: $t missing"; exit 77; }
done
need_python_cryptography
. "$KT_SRC/tests/lib/swtpm.sh"

A7=$(printf 'PCR 7 of state A' | sha256sum | cut -c1-64)
B7=$(printf 'PCR 7 of state B' | sha256sum | cut -c1-64)
swtpm_fresh
tpm2_pcrextend 7:sha256=$A7 || bad "tpm2_pcrextend"
tpm2_pcrread sha256:7 -o /dev/null >pcrsA.yaml
for k in pcr other; do
    openssl genrsa -out $k.key 2048 2>/dev/null
    openssl rsa -in $k.key -pubout -out $k.pub 2>/dev/null
done
truncate -s 32M img
head -c 32 /dev/urandom >key && chmod 600 key
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 img key || bad "luksFormat"
enroll() { systemd-cryptenroll --unlock-key-file=key --tpm2-device="$TCTI" --tpm2-public-key=pcr.pub \
               --tpm2-public-key-pcrs=11 "$@" img >/dev/null 2>&1 || bad "systemd-cryptenroll $*"; tpm_flush; }
enroll --tpm2-pcrs=
enroll --tpm2-pcrs=7

printf 'ID=debian\nVERSION_ID=12\n' >osrel
printf 'root=/dev/vda1 ro' >cmdline
printf 'root=/dev/vda1 ro init=/bin/sh' >cmdline2
head -c 20000 /dev/urandom >initrd
# sign KEY PUB [systemd-measure options]: the .pcrsig of the UKI of cmdline ($CMD)
sign() { $MEASURE sign --linux=$K --osrel=osrel --cmdline="${CMD:-cmdline}" --initrd=initrd --pcrpkey=pcr.pub \
             --private-key="$1" --public-key="$2" --tpm2-device="$TCTI" "${@:3}"; tpm_flush; }
uki() { "$MK" "$1" .linux=$K .osrel=osrel .cmdline="${CMD:-cmdline}" .initrd=initrd .pcrpkey=pcr.pub "${@:2}" >/dev/null; }
sign pcr.key pcr.pub --bank=sha256 >good.json || bad "systemd-measure sign"
sign other.key other.pub --bank=sha256 >other.json
sign pcr.key pcr.pub --bank=sha1 >sha1.json
sign pcr.key pcr.pub --bank=sha256 --phase=enter-initrd:leave-initrd >phase.json
FP=$(openssl rsa -pubin -in pcr.pub -RSAPublicKey_out -outform DER 2>/dev/null | sha256sum | cut -c1-64)
jq -c --arg fp "$FP" '.sha256 |= map(.pkfp = $fp)' other.json >forged.json
jq -c '.sha256[0].sig |= (("" + (.[0:1] | if . == "A" then "B" else "A" end)) + .[1:])' good.json >tampered.json
for u in good other sha1 phase forged tampered; do uki $u.efi .pcrsig=$u.json; done
CMD=cmdline2 uki cmdline2.efi .pcrsig=good.json
uki none.efi

# the TPM's side: the key as systemd 252 loads it (TPM2B_PUBLIC), the PCR 11
# extends of a UKI's parts, systemd's find_signature over a .pcrsig
python3 - pcr.pub key.tss <<'PY'
import sys, struct
from cryptography.hazmat.primitives.serialization import load_pem_public_key
k = load_pem_public_key(open(sys.argv[1], "rb").read()).public_numbers()
n = k.n.to_bytes((k.n.bit_length() + 7) // 8, "big")
t = (struct.pack(">HHIH", 1, 0x000B, 0x00060040, 0) + struct.pack(">HHHI", 0x10, 0x10, len(n) * 8, k.e)
     + struct.pack(">H", len(n)) + n)
open(sys.argv[2], "wb").write(struct.pack(">H", len(t)) + t)
PY
extends() { python3 - "$@" <<'PY'
import sys, hashlib
for name, f in zip((".linux", ".osrel", ".cmdline", ".initrd", ".pcrpkey"), sys.argv[1:]):
    print(hashlib.sha256(name.encode() + b"\0").hexdigest())
    print(hashlib.sha256(open(f, "rb").read()).hexdigest())
print(hashlib.sha256(b"enter-initrd").hexdigest())
PY
}
find_sig() { python3 - "$@" <<'PY'
import sys, json, base64
sig = json.load(open(sys.argv[1])) if sys.argv[1] != "-" else {}
pol = open(sys.argv[2], "rb").read().hex()
for e in sig.get("sha256", []):
    if e.get("pcrs") == [11] and e.get("pkfp") == sys.argv[3] and e.get("pol") == pol and "sig" in e:
        open(sys.argv[4], "wb").write(base64.b64decode(e["sig"])); sys.exit(0)
sys.exit(1)
PY
}
for i in 0 1; do
    cryptsetup token export --token-id $i img | python3 -c '
import sys, json, base64, struct
b = base64.b64decode(json.load(sys.stdin)["tpm2-blob"]); n = struct.unpack(">H", b[:2])[0]
open("priv'$i'", "wb").write(b[:2 + n]); open("pub'$i'", "wb").write(b[2 + n:])'
done
# real TOKEN CMDLINE PCRSIG [PCR7]: does the token unseal at this UKI's boot?
# REAL="$REAL yes|no " (not in a subshell: it restarts the TPM)
real() {
    swtpm_fresh
    tpm2_pcrextend 7:sha256=${4:-$A7}
    while read -r d; do tpm2_pcrextend 11:sha256=$d; done < <(extends $K osrel "$2" initrd pcr.pub)
    tpm2_pcrread sha256:11 -o pcr11.bin >/dev/null
    tpm2_createprimary -Q -C o -g sha256 -G ecc256:aes128cfb -c primary.ctx \
        -a 'restricted|decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth' && tpm_flush
    tpm2_load -Q -C primary.ctx -u pub$1 -r priv$1 -c obj.ctx && tpm_flush
    tpm2_loadexternal -Q -C o -u key.tss -c key.ctx -n key.name && tpm_flush
    tpm2_startauthsession --policy-session -S s.ctx
    tpm2_policypcr -Q -S s.ctx -l sha256:11 -L approved.bin
    local ok=no
    rm -f secret
    if find_sig "$3" approved.bin "$FP" sig.raw &&
        tpm2_verifysignature -Q -c key.ctx -g sha256 -m approved.bin -s sig.raw -f rsassa -t tk 2>/dev/null &&
        tpm2_policyauthorize -Q -S s.ctx -i approved.bin -n key.name -t tk &&
        { [ "$1" = 0 ] || tpm2_policypcr -Q -S s.ctx -l sha256:7; } &&
        tpm2_unseal -c obj.ctx -p session:s.ctx -o secret 2>/dev/null &&
        base64 -w0 secret >pass && cryptsetup open -q --test-passphrase --key-slot $((1 + $1)) --key-file pass img
    then ok=yes; fi
    tpm_flush
    REAL="$REAL$ok "
}
verdicts() { "$KTRUST" unseal-check --pcrs "${PCRS:-pcrsA.yaml}" "$@" img --json |
             jq -r 'select(.type == "token") | if .unseals_today == true then "yes" elif .unseals_today == false then "no" else "?" end' | tr '\n' ' '; }

# 1. the digests: ktrust's equals each token's; no UKI: cannot tell
tok=$(cryptsetup luksDump --dump-json-metadata img | jq -r '[.tokens[] | ."tpm2-policy-hash"] | join(" ")')
got=$("$KTRUST" unseal-check --pcrs pcrsA.yaml img --json | jq -r 'select(.type == "token") | .signed.computed_digest' | tr '\n' ' ')
expect_eq "$got" "$tok " "PolicyAuthorize(key) [+ PolicyPCR(7)]: ktrust's digest = tpm2-policy-hash"
expect_eq "$("$KTRUST" unseal-check --pcrs pcrsA.yaml img --json | jq -r 'select(.type == "token") | .signed.pkfp' | sort -u)" "$FP" "pkfp of tpm2_pubkey"
expect_exit 3 "no UKI: cannot tell" -- "$KTRUST" unseal-check --pcrs pcrsA.yaml img
expect_match "$("$KTRUST" unseal-check --pcrs pcrsA.yaml img)" "no UKI was given" "the reason"

# 2. each UKI: ktrust's verdicts (tokens 0 1) = the real unseals
check() { # UKI CMDLINE PCRSIG WANT
    local k
    k=$(verdicts --uki "$1")
    REAL=
    real 0 "$2" "$3" >/dev/null
    real 1 "$2" "$3" >/dev/null
    expect_eq "$k" "$REAL" "$1: ktrust = the TPM"
    expect_eq "$REAL" "$4" "$1: the TPM unseals as expected"
}
check good.efi cmdline good.json "yes yes "
j=$("$KTRUST" unseal-check --pcrs pcrsA.yaml --uki good.efi img --json | jq -s '.[0].signed')
expect_eq "$(jq -r .pcr11_enter_initrd <<<"$j")" "$(xxd -p -c 64 pcr11.bin)" "PCR 11 at enter-initrd = the TPM's after the UKI's extends"
expect_eq "$(jq -r .approved_policy <<<"$j")" "$(xxd -p -c 64 approved.bin)" "the approved policy = the TPM's PolicyPCR(11) digest"
check other.efi cmdline other.json "no no "
check cmdline2.efi cmdline2 good.json "no no "
check tampered.efi cmdline tampered.json "no no "
check forged.efi cmdline forged.json "no no "
check sha1.efi cmdline sha1.json "no no "
check phase.efi cmdline phase.json "no no "
check none.efi cmdline - "no no "
expect_exit 5 "a UKI whose .pcrsig does not cover it: exit 5" -- "$KTRUST" unseal-check --pcrs pcrsA.yaml --uki cmdline2.efi img
# the literal PCR 7 changed: token 1 no longer unseals, token 0 does
sed "s/0x[0-9A-Fa-f]*/0x$B7/" pcrsA.yaml >pcrsB.yaml
swtpm_fresh
tpm2_pcrextend 7:sha256=$B7 && tpm2_pcrread sha256:7 -o /dev/null >pcrsB.yaml
k=$(PCRS=pcrsB.yaml verdicts --uki good.efi)
REAL=
real 0 cmdline good.json $B7 >/dev/null
real 1 cmdline good.json $B7 >/dev/null
expect_eq "$k" "$REAL" "PCR 7 changed: ktrust = the TPM"
expect_eq "$REAL" "yes no " "PCR 7 changed: only the token without it unseals"
# the one UKI in --esp's EFI/Linux is the one judged
mkdir -p esp/EFI/Linux && cp good.efi esp/EFI/Linux/debian.efi
expect_eq "$("$KTRUST" unseal-check --pcrs pcrsA.yaml --eventlog "$CORPUS/peers/ovmf-swtpm-boot/eventlog.bin" \
    --esp esp img --json | jq -r 'select(.type == "token") | .signed.uki' | sort -u)" "esp/EFI/Linux/debian.efi" "--esp: its UKI"

# 4. the same verdicts in plan-updates' steps and check-update --install (token 0
#    has no literal PCR: a dbx update or a new shim leaves it unsealing; token 1
#    is bound to PCR 7 of state A, not the corpus boot's: its .pcrsig is not looked at)
O=$CORPUS/peers/ovmf-swtpm-boot
DBXU=$CORPUS/peers/secureboot-objects/DBX/DBXUpdate2024.bin
for u in good.efi cmdline2.efi; do
    P=$("$KTRUST" plan-updates --efivars "$O/efivars" --eventlog "$O/eventlog.bin" --luks img --uki $u "$DBXU" --json |
        jq -r 'select(.type=="plan") | .steps[0].after.sealed[] | "\(.kind) \(.unseals_after) \(.signed.pcrsig)"' | tr '\n' ' ')
    want="signed true ok signed false null "
    [ $u = cmdline2.efi ] && want="signed false no_entry signed false null "
    expect_eq "$P" "$want" "plan-updates --uki $u: the signed tokens after the dbx step"
done
expect_eq "$("$KTRUST" plan-updates --efivars "$O/efivars" --eventlog "$O/eventlog.bin" --luks img --esp esp "$DBXU" --json |
    jq -r 'select(.type=="plan") | .steps[0].after.sealed[0] | "\(.unseals_after) \(.signed.uki)"')" \
    "true esp/EFI/Linux/debian.efi" "plan-updates: the ESP's UKI"
mkdir -p r/etc r/boot/efi/EFI/Linux && cp img r/img && echo "data /img none" >r/etc/crypttab
cp good.efi r/boot/efi/EFI/Linux/debian.efi
expect_eq "$("$KTRUST" audit --root r --eventlog "$O/eventlog.bin" --efivars "$O/efivars" --json |
    jq -r '.. | objects | select(has("tokens")) | .tokens[0] | "\(.unseals_after) \(.signed.pcrsig)"')" \
    "true ok" "audit: the signed token judged by the root's ESP's UKI"
expect_match "$("$KTRUST" check-update --install --efivars "$O/efivars" --eventlog "$O/eventlog.bin" --luks img \
    --uki cmdline2.efi "$CORPUS/debian/shimx64.efi.signed")" \
    "sealed: img token 0 \(systemd-tpm2 signed policy, PCRs none\): does NOT unseal" "check-update --install: the UKI's .pcrsig decides"

# 3. the re-sign ktrust prints for the changed command line, run: it unseals
txt=$("$KTRUST" unseal-check --pcrs pcrsA.yaml --uki cmdline2.efi img)
expect_match "$txt" "re-seal before the change: cryptsetup token export --token-id 0 img \| jq -r .tpm2_pubkey \| base64 -d >PUBKEY.pem && /usr/lib/systemd/systemd-measure sign --linux=LINUX --osrel=OSREL --cmdline=CMDLINE --initrd=INITRD --pcrpkey=PCRPKEY --bank=sha256 --phase=enter-initrd --private-key=PRIVATE.pem --public-key=PUBKEY.pem >pcrsig.json" "the re-sign command"
expect_match "$txt" "nothing to wipe" "no re-enrolment"
cmd=$("$KTRUST" unseal-check --pcrs pcrsA.yaml --uki cmdline2.efi img --json | jq -rs '.[0].reseal[0].command')
cmd=${cmd//LINUX/$K}; cmd=${cmd//=OSREL/=osrel}; cmd=${cmd//=CMDLINE/=cmdline2}; cmd=${cmd//=INITRD/=initrd}
cmd=${cmd//PCRPKEY/pcr.pub}; cmd=${cmd//PRIVATE.pem/pcr.key}; cmd=${cmd//--bank=/--tpm2-device=$TCTI --bank=}
(eval "$cmd") || bad "the printed re-sign failed: $cmd"
tpm_flush
expect_eq "$(cat PUBKEY.pem)" "$(cat pcr.pub)" "the token's key, exported"
CMD=cmdline2 uki resigned.efi .pcrsig=pcrsig.json
check resigned.efi cmdline2 pcrsig.json "yes yes "
finish
