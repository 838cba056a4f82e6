#!/bin/bash
# uki show: .pcrsig checked as systemd's tpm2-pubkey unlock uses it.  The
# oracle makes it: systemd-measure sign (systemd 252; a swtpm for its trial
# session) over the same sections, put into the UKI with objcopy: valid,
# every phase signed, the pkfp of .pcrpkey.  Then what must not pass: a
# signature tampered with (invalid), a command line changed after signing
# (mismatch), another key's .pcrpkey (mismatch), no .pcrpkey, not JSON
# (invalid), no .pcrsig (absent), a bank it has no entries for.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl swtpm python3 measure
printf 'ID=debian\nVERSION_ID=12\n' >osrel
printf 'root=/dev/vda1 ro' >cmdline
head -c 20000 /dev/urandom >initrd
openssl genrsa -out pcr.key 2048 2>/dev/null
openssl rsa -in pcr.key -pubout -out pcr.pub 2>/dev/null
openssl genrsa -out other.key 2048 2>/dev/null
openssl rsa -in other.key -pubout -out other.pub 2>/dev/null

mkdir st
SWPID=
trap '[ -n "$SWPID" ] && kill $SWPID 2>/dev/null; wait $SWPID 2>/dev/null; rm -rf "$T"' EXIT
swtpm_start "$T/st" || { bad "swtpm did not start"; finish; }
sign() { # sign KEY PUB CMDLINE [BANK...] > JSON
    local i banks=("${@:4}")
    [ ${#banks[@]} -gt 0 ] || banks=(sha256)
    for i in $(seq 50); do
        $MEASURE sign --linux=$K --osrel=osrel --cmdline="$3" --initrd=initrd --pcrpkey="$2" \
            "${banks[@]/#/--bank=}" --private-key="$1" --public-key="$2" \
            --tpm2-device=swtpm:host=127.0.0.1,port=$PORT 2>/dev/null && return 0
        sleep 0.1 # swtpm still starting
    done
    return 1
}
sign pcr.key pcr.pub cmdline >pcrsig.json || { bad "systemd-measure sign failed"; finish; }
status() { "$KTRUST" uki show --json "$@" | jq -r '.pcrsig.status'; }

"$MK" good.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .pcrpkey=pcr.pub \
    .pcrsig=pcrsig.json >/dev/null || exit $?
j=$("$KTRUST" uki show --json good.efi)
expect_eq "$(jq -r '.pcrsig.status' <<<"$j")" valid "systemd-measure sign's .pcrsig: valid"
expect_eq "$(jq -r '.pcrsig.signed_phases | join(" ")' <<<"$j")" \
    "enter-initrd leave-initrd sysinit ready" "every phase signed"
expect_eq "$(jq -r '.pcrsig.pkfp' <<<"$j")" "$(jq -r '.sha256[0].pkfp' pcrsig.json)" \
    "pkfp = systemd-measure's"
expect_eq "$(jq -r '.pcrsig.pkfp' <<<"$j")" \
    "$(openssl rsa -pubin -in pcr.pub -RSAPublicKey_out -outform DER 2>/dev/null | sha256sum | cut -d' ' -f1)" \
    "pkfp = SHA-256 of the PKCS#1 public key"
expect_match "$("$KTRUST" uki show good.efi)" "pcrsig sha256: valid" "text"

# a signature bit flipped (its first byte)
jq -c '.sha256[0].sig |= (("" + (.[0:1] | if . == "A" then "B" else "A" end)) + .[1:])' \
    pcrsig.json >bad.json
"$MK" badsig.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .pcrpkey=pcr.pub \
    .pcrsig=bad.json >/dev/null
expect_eq "$(status badsig.efi)" invalid "a tampered signature: invalid"
# the command line changed after signing
printf 'root=/dev/vda1 ro init=/bin/sh' >cmdline2
"$MK" changed.efi .linux=$K .osrel=osrel .cmdline=cmdline2 .initrd=initrd .pcrpkey=pcr.pub \
    .pcrsig=pcrsig.json >/dev/null
expect_eq "$(status changed.efi)" mismatch "a section changed after signing: mismatch"
# signed by one key, another key in .pcrpkey
"$MK" otherkey.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .pcrpkey=other.pub \
    .pcrsig=pcrsig.json >/dev/null
expect_eq "$(status otherkey.efi)" mismatch "another .pcrpkey: mismatch"
# no .pcrpkey, not JSON, no .pcrsig, a bank without entries
"$MK" nokey.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .pcrsig=pcrsig.json >/dev/null
expect_eq "$(status nokey.efi)" invalid "no .pcrpkey: invalid"
printf '{"sha256": [' >notjson
"$MK" notjson.efi .linux=$K .pcrpkey=pcr.pub .pcrsig=notjson >/dev/null
expect_eq "$(status notjson.efi)" invalid "not JSON: invalid"
"$MK" none.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .pcrpkey=pcr.pub >/dev/null
expect_eq "$(status none.efi)" absent "no .pcrsig: absent"
expect_eq "$(status --bank sha1 good.efi)" mismatch "no sha1 entries: mismatch"
# systemd's find_signature stops at the first entry for PCR 11 whose pkfp,
# pol or sig it cannot decode (json_variant_unhex/_unbase64 fail): the
# unlock fails even though a later entry signs this UKI.  Anyone who can
# rewrite .pcrsig (no key needed) prepends one; it must not stay "valid"
for bad in '{"pcrs":[11],"pkfp":"not hex","pol":"00","sig":"AA=="}' \
           '(.sha256[0] | .pol = "zz")' '(.sha256[0] | .sig = 5)' '(.sha256[0] | .pkfp = 7)'; do
    jq -c ".sha256 = [$bad] + .sha256" pcrsig.json >pre.json
    "$MK" pre.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .pcrpkey=pcr.pub \
        .pcrsig=pre.json >/dev/null
    expect_eq "$(status pre.efi)" invalid "an undecodable entry before the good ones ($bad): invalid"
done
# ...but one for other PCRs, or another key's, is skipped before decoding
for skip in '{"pcrs":[7],"pkfp":"not hex"}' '(.sha256[0] | .pkfp = "00" | .pol = "zz")'; do
    jq -c ".sha256 = [$skip] + .sha256" pcrsig.json >pre.json
    "$MK" pre.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .pcrpkey=pcr.pub \
        .pcrsig=pre.json >/dev/null
    expect_eq "$(status pre.efi)" valid "an entry systemd skips ($skip): still valid"
done

# audit: the next UKI's .pcrsig in every bank systemd-measure signed
# (--bank=sha1 --bank=sha256 --bank=sha384); an entry tampered with in the
# sha1 bank alone is invalid there and nowhere else
SDB=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
if [ -f $SDB ]; then
    sign pcr.key pcr.pub cmdline sha1 sha256 sha384 >banks.json || bad "systemd-measure sign --bank x3 failed"
    mkdir -p esp/EFI/systemd esp/EFI/Linux
    cp $SDB esp/EFI/systemd/systemd-bootx64.efi
    "$MK" esp/EFI/Linux/banks.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd \
        .pcrpkey=pcr.pub .pcrsig=banks.json >/dev/null
    banks() { "$KTRUST" audit --json --esp esp | jq -r 'select(.section == "chain") |
        [.sdboot.pcrsig_banks[] | "\(.bank)=\(.status)"] | join(" ")'; }
    expect_eq "$(banks)" "sha1=valid sha256=valid sha384=valid" "audit: .pcrsig valid in each bank signed"
    jq -c '.sha1[0].sig |= (("" + (.[0:1] | if . == "A" then "B" else "A" end)) + .[1:])' \
        banks.json >banks-bad.json
    "$MK" esp/EFI/Linux/banks.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd \
        .pcrpkey=pcr.pub .pcrsig=banks-bad.json >/dev/null
    expect_eq "$(banks)" "sha1=invalid sha256=valid sha384=valid" \
        "audit: the sha1 entry tampered with: invalid in sha1 only"
    t=$("$KTRUST" audit --esp esp)
    expect_match "$t" "PCR 11 policy \(.pcrsig sha1\): invalid \(the enter-initrd entry's signature does not verify" \
        "audit text: the sha1 bank's status"
    expect_match "$t" "PCR 11 policy \(.pcrsig sha384\): signed for enter-initrd" "audit text: the sha384 bank's"
fi
finish
