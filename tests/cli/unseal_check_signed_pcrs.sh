#!/bin/bash
# unseal-check on a signed PCR policy (systemd-cryptenroll 252
# --tpm2-public-key) whose tpm2_pubkey_pcrs name more than PCR 11.  At the
# unlock (in the initrd) systemd-cryptsetup has PolicyPCR over those PCRs'
# values then; ktrust predicts PCR 11 at enter-initrd from the UKI and takes
# the others from the PCR values given, which are the initrd's only for PCRs
# the running system no longer extends.  PCR 10 (IMA measures the initrd's
# and the system's files) and 15-23 are not: a .pcrsig entry that signs
# today's PCR 10 with the UKI's PCR 11 (values never in the TPM together)
# must be "cannot tell", never "unseals".  PCR 7 (set before the kernel) is
# taken: the same entry built over PCR 7 unseals.  The token, .pcrsig and
# signatures are made here with openssl and python (systemd-measure signs
# PCR 11 only).
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl python3
printf 'ID=debian\nVERSION_ID=12\n' >osrel
printf 'root=/dev/vda1 ro' >cmdline
openssl genrsa -out pcr.key 2048 2>/dev/null
openssl rsa -in pcr.key -pubout -out pcr.pub 2>/dev/null
"$MK" plain.efi .linux=$K .osrel=osrel .cmdline=cmdline .pcrpkey=pcr.pub >/dev/null || exit $?
P11=$("$KTRUST" uki show --json plain.efi | jq -r '.pcr11.sha256["enter-initrd"]')
expect_match "$P11" '^[0-9a-f]{64}$' "the UKI's PCR 11 at enter-initrd"
# today's PCRs 0-10 (sha256)
for i in $(seq 0 10); do
    echo "sha256 $i $(printf 'PCR %d today' $i | sha256sum | cut -c1-64)"
done >pcrs.txt
FP=$(openssl rsa -pubin -in pcr.pub -RSAPublicKey_out -outform DER 2>/dev/null | sha256sum | cut -c1-64)

# case OTHER: a token over PCRs OTHER+11 and a UKI whose .pcrsig signs the
# PolicyPCR of today's PCR OTHER with the UKI's PCR 11
case_for() {
    local o=$1
    python3 - "$o" "$P11" pcrs.txt pcr.pub "$FP" <<'PY' >pol$o
import hashlib, struct, sys
o, p11, pcrs, pub, fp = int(sys.argv[1]), bytes.fromhex(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
vals = {int(l.split()[1]): bytes.fromhex(l.split()[2]) for l in open(pcrs)}
vals[11] = p11
bm = bytearray(3)
for p in (o, 11):
    bm[p // 8] |= 1 << (p % 8)
sel = struct.pack(">IHB", 1, 0x000B, 3) + bytes(bm)
dg = hashlib.sha256(b"".join(vals[p] for p in sorted((o, 11)))).digest()
# TPM2_PolicyPCR: H(0^32 || TPM_CC_PolicyPCR || selection || H(values))
print(hashlib.sha256(bytes(32) + struct.pack(">I", 0x17F) + sel + dg).hexdigest())
PY
    xxd -r -p pol$o >pol$o.bin
    openssl dgst -sha256 -sign pcr.key -out sig$o pol$o.bin
    jq -nc --argjson o "$o" --arg fp "$FP" --arg pol "$(cat pol$o)" --arg sig "$(base64 -w0 sig$o)" \
        '{sha256: [{pcrs: [$o, 11], pkfp: $fp, pol: $pol, sig: $sig}]}' >pcrsig$o.json
    "$MK" uki$o.efi .linux=$K .osrel=osrel .cmdline=cmdline .pcrpkey=pcr.pub .pcrsig=pcrsig$o.json >/dev/null
    jq -nc --argjson o "$o" --arg pub "$(base64 -w0 pcr.pub)" \
        '{type: "systemd-tpm2", keyslots: ["1"], "tpm2-blob": "AA==", "tpm2-pcrs": [],
          "tpm2-pcr-bank": "sha256", "tpm2-primary-alg": "ecc", "tpm2-policy-hash": ("0" * 64),
          "tpm2-pin": false, tpm2_pubkey: $pub, tpm2_pubkey_pcrs: [$o, 11]}' >tok$o.json
    # the policy hash the enrolment wrote: PolicyAuthorize by the key (ktrust's,
    # checked against systemd-cryptenroll in unseal_check_signed_tpm.sh)
    local d
    d=$("$KTRUST" unseal-check --json tok$o.json --pcrs pcrs.txt --uki uki$o.efi 2>/dev/null |
        jq -r 'select(.signed != null) | .signed.computed_digest' | head -1)
    jq -c --arg d "$d" '."tpm2-policy-hash" = $d' tok$o.json >t && mv t tok$o.json
}
case_for 7
case_for 10
j7=$("$KTRUST" unseal-check --json tok7.json --pcrs pcrs.txt --uki uki7.efi 2>/dev/null)
expect_eq "$(jq -r 'select(.signed != null) | .signed.pcrsig' <<<"$j7")" ok "PCRs 7+11: the .pcrsig entry verifies"
expect_exit 0 "PCRs 7+11: unseals" -- "$KTRUST" unseal-check -q tok7.json --pcrs pcrs.txt --uki uki7.efi
out=$("$KTRUST" unseal-check tok10.json --pcrs pcrs.txt --uki uki10.efi 2>&1)
expect_match "$out" "today: cannot tell" "PCRs 10+11: cannot tell (the old code: unseals)"
expect_match "$out" "PCR 10" "the reason names PCR 10"
finish
