#!/bin/bash
# audit: a dbx (or MokListX) X509 entry is a trust anchor for denial (issue
# #23 item 3).  The Debian Secure Boot CA (shim's vendor certificate), whose
# leaves sign GRUB, MokManager and the kernel without the CA in their
# signatures: as a --dbx update the outlook says they would be revoked (shim
# not); in the variables' dbx, or in MokListXRT, the boot chain rejects GRUB
# and the kernel, naming the CA.  An unrelated CA in dbx changes nothing.
# Oracle for the issuer relation: osslsigncode verify -CAfile.
. "$(dirname "$0")/../lib/common.sh"
corpus
for tool in jq osslsigncode cert-to-efi-sig-list openssl; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
D=$CORPUS/debian
EV=$CORPUS/peers/shim-efivars/efivars-1
MS11=$CORPUS/trust/microsoft-uefi-ca-2011.pem
VARS=sys/firmware/efi/efivars
sec() { jq -c --arg s "$1" "select(.section == \$s) | $2"; }
mkroot() {
    mkdir -p "$1/boot/efi/EFI/debian" "$1/lib/modules/6.1.0-57-amd64/kernel" "$1/sys/firmware/efi"
    cp "$D/shimx64.efi.signed" "$1/boot/efi/EFI/debian/shimx64.efi"
    cp "$D/grubx64.efi.signed" "$1/boot/efi/EFI/debian/grubx64.efi"
    cp "$D/mmx64.efi.signed" "$1/boot/efi/EFI/debian/mmx64.efi"
    cp "$D/vmlinuz-6.1.0-57-amd64" "$1/boot/"
    cp "$(ls "$D"/modules/*.ko | head -1)" "$1/lib/modules/6.1.0-57-amd64/kernel/"
    cp -r "$EV" "$1/$VARS"
}

KTRUST_STORE=$T/st.db "$KTRUST" load-pe-key -q --trust "$MS11" "$D/shimx64.efi.signed" || bad "load-pe-key"
KTRUST_STORE=$T/st.db "$KTRUST" keyring export --keyring secondary --format pem -o debca.pem
expect_eq "$(openssl x509 -in debca.pem -noout -subject)" "subject=CN = Debian Secure Boot CA" "the Debian CA"
cert-to-efi-sig-list debca.pem debca.esl >/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.pem -days 30 \
    -subj "/CN=Other CA" 2>/dev/null
cert-to-efi-sig-list other.pem other.esl >/dev/null
for f in grubx64 mmx64; do
    osslsigncode verify -ignore-cdp -ignore-crl -CAfile debca.pem -in "$D/$f.efi.signed" 2>/dev/null |
        grep -qx Succeeded && ok || bad "oracle: the Debian CA anchors $f"
done
mkroot r
base=$("$KTRUST" audit --root r --json)
expect_eq $? 0 "the corpus system: exit 0"

# the outlook of a dbx update holding the CA
j=$("$KTRUST" audit --root r --json --dbx debca.esl)
expect_eq "$(sec outlook '[.files[] | [.role, .would_be_revoked, .by_dbx]]' <<<"$j")" \
    '[["shim",false,false],["loader",true,true],["mokmanager",true,true],["kernel",true,true]]' \
    "outlook: GRUB, MokManager and the kernel would be revoked, shim not"
expect_match "$(sec outlook '.files[] | select(.role == "loader") | .detail' <<<"$j")" \
    '^"certificate Debian Secure Boot CA: [0-9a-f]{40}, the issuer of Debian Secure Boot Signer 2022 - grub2: ' \
    "outlook: the CA that issued GRUB's signer"
expect_eq "$(sec chain . <<<"$j")" "$(sec chain . <<<"$base")" "an update in --dbx leaves today's chain alone"
j=$("$KTRUST" audit --root r --json --dbx other.esl)
expect_eq "$(sec outlook '[.files[] | .would_be_revoked] | any' <<<"$j")" false "outlook: an unrelated CA revokes nothing"

# the CA in the variables' dbx (an EFI_SIGNATURE_LIST appended after the attribute word)
for v in dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f MokListXRT-605dab50-e046-4300-abb6-3dd810dd8b23; do
    rm -rf rx && mkroot rx
    if [ -f "rx/$VARS/$v" ]; then cat debca.esl >> "rx/$VARS/$v"
    else { printf '\x06\x00\x00\x00'; cat debca.esl; } > "rx/$VARS/$v"; fi
    j=$("$KTRUST" audit --root rx --json)
    expect_eq $? 5 "${v%%-*} holds the Debian CA: exit 5"
    for role in loader kernel; do
        expect_match "$(sec chain ".links[] | select(.role == \"$role\") | [.verdict, .reason]" <<<"$j")" \
            '^\["rejected","signerInfo 0: certificate Debian Secure Boot Signer 2022 - (grub2|linux): [0-9a-f]{40} is issued by the blacklisted Debian Secure Boot CA: ' \
            "${v%%-*}: $role rejected, its signer issued by the Debian CA"
    done
done
# an unrelated CA in the variables' dbx: the same chain
rm -rf ro && mkroot ro
cat other.esl >> "ro/$VARS/dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f"
j=$("$KTRUST" audit --root ro --json)
expect_eq $? 0 "an unrelated CA in dbx: exit 0"
expect_eq "$(sec chain '[.links[] | [.role, .verdict, .reason]]' <<<"$j")" \
    "$(sec chain '[.links[] | [.role, .verdict, .reason]]' <<<"$base")" "an unrelated CA in dbx: the same links"
finish
