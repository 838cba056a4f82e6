#!/bin/bash
# verify-pe on the real corpus (CONTRACT.md verdicts; oracles: pesign -h for
# the image digest, sbverify for the verdicts on the EFI binaries).
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in jq pesign osslsigncode objcopy openssl; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
D=$CORPUS/debian W=$CORPUS/windows U=$CORPUS/peers/uthenticode
MS11=$CORPUS/trust/microsoft-uefi-ca-2011.pem MS23=$CORPUS/trust/microsoft-uefi-ca-2023.pem
SHIM=$D/shimx64.efi.signed

# the Debian Secure Boot CA, from shim's .vendor_cert (4 LE u32 header, then the DER)
objcopy -O binary --only-section=.vendor_cert "$SHIM" "$T/vc.bin"
dd if="$T/vc.bin" of="$T/debian-ca.der" bs=1 skip=16 count=930 status=none
expect_eq "$(sha256sum < "$T/debian-ca.der" | cut -d' ' -f1)" \
    079646974bce09b1f04da67bd722d1fb0947ae4c4010bccdbba52d5b23cbf1a2 "Debian CA from .vendor_cert"
openssl x509 -inform DER -in "$T/debian-ca.der" -out "$T/debian-ca.pem"
DEB=$T/debian-ca.der

# shim: two entries, either Microsoft CA trusts it, nothing else does
expect_exit 0 "shim by UEFI CA 2011" -- "$KTRUST" verify-pe -q --trust "$MS11" "$SHIM"
expect_exit 0 "shim by UEFI CA 2023" -- "$KTRUST" verify-pe -q --trust "$MS23" "$SHIM"
expect_exit 2 "shim by the Debian CA" -- "$KTRUST" verify-pe -q --trust "$DEB" "$SHIM"
out=$("$KTRUST" verify-pe --json --trust "$MS11" "$SHIM")
expect_eq "$(jq -r '.signatures | length' <<<"$out")" 2 "shim: two signatures"
expect_eq "$(jq -r '[.signatures[].verdict] | join(",")' <<<"$out")" "trusted,untrusted" "shim 2011: per-signature verdicts"
expect_match "$(jq -r '.signatures[0].trusted_by' <<<"$out")" "Microsoft Corporation UEFI CA 2011" "shim trusted_by"
expect_eq "$(jq -r '.signatures[0].digest' <<<"$out")" \
    "$(pesign -h -i "$SHIM" | sed -n 's/^hash: //p')" "shim digest = pesign -h"
expect_eq "$(jq -r '.signatures[1].timestamp.kind // .signatures[1].timestamp.type' <<<"$out")" "rfc3161" "shim timestamp"
expect_eq "$(jq -r '.type' <<<"$out")" "pe" "type pe"
out=$("$KTRUST" verify-pe --json --trust "$MS23" "$SHIM")
expect_eq "$(jq -r '[.signatures[].verdict] | join(",")' <<<"$out")" "untrusted,trusted" "shim 2023: per-signature verdicts"
if command -v sbverify >/dev/null; then
    sbverify --cert "$MS11" "$SHIM" >/dev/null 2>&1
    expect_eq $? 0 "sbverify agrees: shim by 2011"
fi

# GRUB, MokManager, the kernel: the Debian CA, not the Microsoft CAs
for f in grubx64.efi.signed mmx64.efi.signed vmlinuz-6.1.0-57-amd64; do
    expect_exit 0 "$f by Debian CA" -- "$KTRUST" verify-pe -q --trust "$DEB" "$D/$f"
    expect_exit 2 "$f by Microsoft CAs" -- "$KTRUST" verify-pe -q --trust "$MS11" --trust "$MS23" "$D/$f"
    expect_exit 0 "$f --purpose kexec" -- "$KTRUST" verify-pe -q --purpose kexec --trust "$DEB" "$D/$f"
    if command -v sbverify >/dev/null; then
        sbverify --cert "$T/debian-ca.pem" "$D/$f" >/dev/null 2>&1
        expect_eq $? 0 "sbverify agrees: $f by Debian CA"
    fi
done

# Windows: signtool trusted via its issuer carried in the message; 7za unsigned
ST=$W/signtool-electron-windows-sign-1.2.2.exe
osslsigncode extract-signature -in "$ST" -out "$T/st.p7" >/dev/null 2>&1
openssl pkcs7 -inform DER -in "$T/st.p7" -print_certs 2>/dev/null |
    awk '/^subject=.*Microsoft Code Signing PCA 2010/{p=1} p && /BEGIN/{q=1} q{print} /END/{if(q)exit}' > "$T/pca2010.pem"
expect_match "$(openssl x509 -in "$T/pca2010.pem" -noout -subject)" "PCA 2010" "PCA 2010 extracted"
expect_exit 0 "signtool by PCA 2010" -- "$KTRUST" verify-pe -q --trust "$T/pca2010.pem" "$ST"
expect_exit 2 "signtool by UEFI CA" -- "$KTRUST" verify-pe -q --trust "$MS11" "$ST"
out=$("$KTRUST" verify-pe --json --trust "$T/pca2010.pem" "$ST")
expect_match "$(jq -c '.signatures[0].timestamp' <<<"$out")" '"time":"2021-' "signtool RFC 3161 time"
expect_exit 1 "7za unsigned" -- "$KTRUST" verify-pe -q "$W/7za-x64-unsigned.exe"
expect_exit 5 "several files: highest code" -- "$KTRUST" verify-pe -q --trust "$MS11" "$SHIM" "$W/7za-x64-unsigned.exe" "$U/A_SSLippery_Slope.exe"

# every corpus PE: our digest equals pesign's
for f in "$D"/*.signed "$D"/vmlinuz-* "$ST" "$U"/32/*.exe "$U"/64/*.exe "$U/A_SSLippery_Slope.exe"; do
    want=$(pesign -h -i "$f" 2>/dev/null | sed -n 's/^hash: //p')
    got=$("$KTRUST" verify-pe --json --allow-sha1 "$f" | jq -r '[.signatures[] | select(.digest_algorithm=="sha256") | .digest][0] // empty')
    [ -z "$got" ] && continue # unsigned or SHA-1 only: covered by the unit test
    expect_eq "$got" "$want" "digest vs pesign: ${f##*/}"
done

# uthenticode's assets
for a in 32/pegoat-authenticode.exe 32/pegoat-authenticode_duplicated.exe 64/pegoat-authenticode.exe \
    32/pegoat-authenticode-nested.exe 64/pegoat-authenticode-nested.exe; do
    n=${a//\//_}
    osslsigncode extract-signature -in "$U/$a" -out "$T/$n.p7" >/dev/null 2>&1
    openssl pkcs7 -inform DER -in "$T/$n.p7" -print_certs 2>/dev/null | sed -n '/BEGIN/,/END/p;/END/q' > "$T/$n.pem"
    # osslsigncode reads only one entry of a two-entry table: same signer as the single one
    [ -s "$T/$n.pem" ] || cp "$T/32_pegoat-authenticode.exe.pem" "$T/$n.pem"
    expect_exit 3 "$a: SHA-1 refused without --allow-sha1" -- "$KTRUST" verify-pe -q --trust "$T/$n.pem" "$U/$a"
    expect_exit 0 "$a: verifies" -- "$KTRUST" verify-pe -q --allow-sha1 --trust "$T/$n.pem" "$U/$a"
    expect_exit 2 "$a: untrusted without its cert" -- "$KTRUST" verify-pe -q --allow-sha1 "$U/$a"
done
msg=$("$KTRUST" verify-pe --trust "$T/32_pegoat-authenticode.exe.pem" "$U/32/pegoat-authenticode.exe" 2>&1)
expect_match "$msg" "--allow-sha1" "SHA-1 refusal names --allow-sha1"
for b in 32 64; do
    out=$("$KTRUST" verify-pe --json --allow-sha1 --trust "$T/${b}_pegoat-authenticode-nested.exe.pem" "$U/$b/pegoat-authenticode-nested.exe")
    expect_eq "$(jq -r '.signatures[0].nested | length' <<<"$out")" 1 "$b-bit nested signature shown"
    expect_eq "$(jq -r '.signatures[0].digest_algorithm' <<<"$out")" sha1 "$b-bit outer sha1"
    expect_match "$(jq -r '.signatures[0].nested[0].digest_algorithm' <<<"$out")" '^sha(256|384|512)$' "$b-bit nested hash"
    expect_eq "$(jq -r '.signatures[0].nested[0].digest' <<<"$out")" \
        "$(pesign -h -i "$U/$b/pegoat-authenticode-nested.exe" | sed -n 's/^hash: //p')" "$b-bit nested digest = pesign"
done
out=$("$KTRUST" verify-pe --json --allow-sha1 "$U/32/pegoat-authenticode_duplicated.exe")
expect_eq "$(jq -r '.signatures | length' <<<"$out")" 2 "duplicated: two entries"
expect_exit 5 "A_SSLippery_Slope: EKU" -- "$KTRUST" verify-pe -q --allow-sha1 "$U/A_SSLippery_Slope.exe"
msg=$("$KTRUST" verify-pe --allow-sha1 "$U/A_SSLippery_Slope.exe" 2>&1)
expect_match "$msg" "extendedKeyUsage" "A_SSLippery_Slope: reason names the EKU"
expect_exit 4 "YourPhone: stuffing" -- "$KTRUST" verify-pe -q "$U/YourPhone.exe"
msg=$("$KTRUST" verify-pe "$U/YourPhone.exe" 2>&1)
expect_match "$msg" "ktrust: .*YourPhone.exe: certificate table .*\(at offset [0-9]+\)" "YourPhone: error line with offset"
expect_exit 1 "pegoat unsigned" -- "$KTRUST" verify-pe -q "$U/32/pegoat.exe"

# PE32 fixtures: the unsigned 32-bit pegoat signed by each tool
. "$KT_SRC/tests/fixtures/pe_fixtures.sh"
if command -v sbsign >/dev/null && command -v pesign >/dev/null && command -v certutil >/dev/null; then
    pe_fixtures "$T/fx" && pesign_db "$T/fx" leaf
    (
        cd "$T/fx" || exit 1
        sbsign --key leaf.key --cert leaf.pem --output p32.sb.exe "$U/32/pegoat.exe" 2>/dev/null
        pesign -n nss -c leaf -i "$U/32/pegoat.exe" -o p32.ps.exe -s >/dev/null 2>&1
        osslsigncode sign -certs chain.pem -key leaf.key -in "$U/32/pegoat.exe" -out p32.oss.exe >/dev/null 2>&1
    )
    for f in p32.sb.exe p32.ps.exe p32.oss.exe; do
        expect_exit 0 "PE32 $f trusted" -- "$KTRUST" verify-pe -q --trust "$T/fx/ca.pem" "$T/fx/$f"
        expect_exit 2 "PE32 $f untrusted by rogue" -- "$KTRUST" verify-pe -q --trust "$T/fx/rogue.pem" "$T/fx/$f"
        sbverify --cert "$T/fx/ca.pem" "$T/fx/$f" >/dev/null 2>&1
        expect_eq $? 0 "sbverify agrees: PE32 $f"
    done
    expect_eq "$("$KTRUST" verify-pe --json --trust "$T/fx/ca.pem" "$T/fx/p32.sb.exe" | jq -r '.signatures[0].digest')" \
        "$(pesign -h -i "$U/32/pegoat.exe" | sed -n 's/^hash: //p')" "PE32 signed digest = pesign -h of the unsigned image"
fi
finish
