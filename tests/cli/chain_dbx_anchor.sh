#!/bin/bash
# chain: a dbx X509 entry is a trust anchor for denial (issue #23 item 3).
# dbx goes into the blacklist; a blacklisted certificate that issued a
# certificate of the signer's chain rejects the image (shim's
# check_denylist: deny before allow, whatever vouches -- db, the vendor
# certificate or MOK -- for dbx, MokListX and shim's vendor dbx; EDK2 IsForbiddenByDbx for the image firmware loads;
# the kernel's is_key_on_revocation_list).  The same files through
# check-update and verify-pe (the store's blacklist) give the same answer.
# Oracle for the issuer relation: osslsigncode verify -CAfile (OpenSSL with
# the certificate as the only root, what AuthenticodeVerify does).
. "$(dirname "$0")/../lib/common.sh"
. "$KT_SRC/tests/fixtures/dbx_anchor.sh"
for tool in osslsigncode sbsign sbattach cert-to-efi-sig-list jq openssl; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
corpus
dbx_anchor_fixtures "$T" || { echo "fixture generation failed"; exit 1; }
cd "$T" || exit 1
D=$CORPUS/debian
MS11=$CORPUS/trust/microsoft-uefi-ca-2011.pem
SHIM=$D/shimx64.efi.signed GRUB=$D/grubx64.efi.signed KERNEL=$D/vmlinuz-6.1.0-57-amd64
desc() { "$KTRUST" x509 show --json "$1" | jq -r .description; }
CA=$(desc ca.pem) LEAF=$(desc leaf.pem)
anchors() {
    osslsigncode verify -ignore-cdp -ignore-crl -CAfile "$1" -in "$2" 2>/dev/null | grep -qx Succeeded
}
link() { jq -c "select(.role == \"$1\") | [.verdict, .reason]" <<<"$2"; }

# a loader of the owner's: MokManager re-signed by the test leaf (its .sbat
# kept), trusted through MOK holding that leaf
cp "$D/mmx64.efi.signed" mm.efi && sbattach --remove mm.efi 2>/dev/null &&
    sbsign --key leaf.key --cert leaf.pem --output loader.efi mm.efi >/dev/null 2>&1 ||
    bad "re-signing MokManager"
anchors ca.pem loader.efi && ok || bad "oracle: the CA anchors the re-signed loader"
base=$("$KTRUST" chain --json --db "$MS11" --mok leaf.esl "$SHIM" loader.efi "$KERNEL")
expect_eq $? 0 "no dbx: every link trusted"
expect_eq "$(link loader "$base")" "[\"trusted\",\"signature 0 trusted: $LEAF vouches\"]" \
    "no dbx: the MOK leaf vouches for the loader"

# dbx = the CA that issued the leaf (the signature carries only the leaf)
out=$("$KTRUST" chain --json --db "$MS11" --mok leaf.esl --dbx ca.esl "$SHIM" loader.efi "$KERNEL")
expect_eq $? 5 "dbx = the signer's CA: exit 5"
expect_eq "$(link loader "$out")" \
    "[\"rejected\",\"signerInfo 0: certificate $LEAF is issued by the blacklisted $CA\"]" \
    "the loader is rejected: its signer was issued by the dbx CA"
expect_eq "$(link shim "$out")" "$(link shim "$base")" "shim is not affected"
expect_eq "$(link kernel "$out")" "$(link kernel "$base")" "the kernel is not affected"
# MOK holding the CA itself: deny comes first
expect_match "$(link loader "$("$KTRUST" chain --json --db "$MS11" --mok ca.esl --dbx ca.esl "$SHIM" loader.efi "$KERNEL")")" \
    "^\[\"rejected\",\"signerInfo 0: certificate $LEAF is issued by the blacklisted $CA\"\]" \
    "MOK = dbx = the CA: rejected"

# an unrelated CA or a look-alike (the CA's name, another key): nothing changes
for c in other look; do
    anchors $c.pem loader.efi && bad "oracle: $c must not anchor the loader" || ok
    expect_eq "$("$KTRUST" chain --json --db "$MS11" --mok leaf.esl --dbx $c.esl "$SHIM" loader.efi "$KERNEL")" \
        "$base" "dbx = $c: the same links, word for word"
done
# the leaf itself still rejects
expect_match "$(link loader "$("$KTRUST" chain --json --db "$MS11" --mok leaf.esl --dbx leaf.esl "$SHIM" loader.efi "$KERNEL")")" \
    "^\[\"rejected\",\"signerInfo 0: certificate $LEAF is blacklisted\"\]" "dbx = the leaf: rejected"

# shim's vendor dbx (the deauthorized part of .vendor_cert) holding the CA:
# a shim of our own (wrap-key --vendor-cert --dbx), trusted by db = inter
for v in ca look; do
    "$KTRUST" wrap-key -q other.pem --vendor-cert --dbx $v.esl -o fshim-$v.w.efi &&
        objcopy --add-section .sbat=body.csv --set-section-flags .sbat=contents,alloc,load,readonly,data \
            fshim-$v.w.efi fshim-$v.u.efi &&
        osslsigncode sign -certs ileaf.pem -ac inter.pem -key ileaf.key -in fshim-$v.u.efi \
            -out fshim-$v.efi >/dev/null 2>&1 || bad "building a shim with vendor dbx $v"
done
out=$("$KTRUST" chain --json --db inter.esl --mok leaf.esl fshim-ca.efi loader.efi "$KERNEL")
expect_match "$(link shim "$out")" '^\["trusted",".*and 1 vendor dbx entry now apply"\]' \
    "our shim is trusted, its vendor dbx applies"
expect_eq "$(link loader "$out")" \
    "[\"rejected\",\"signerInfo 0: certificate $LEAF is issued by the blacklisted $CA\"]" \
    "vendor dbx = the CA: the MOK-vouched loader is rejected"
out=$("$KTRUST" chain --json --db inter.esl --mok leaf.esl fshim-look.efi loader.efi "$KERNEL")
expect_eq "$(link loader "$out")" "[\"trusted\",\"signature 0 trusted: $LEAF vouches\"]" \
    "vendor dbx = the look-alike: the loader stays trusted"

# the image firmware loads: db holds the leaf itself, dbx its CA (IsForbiddenByDbx)
out=$("$KTRUST" chain --json --db leaf.esl --dbx ca.esl s.efi "$GRUB" "$KERNEL")
expect_eq "$(link shim "$out")" \
    "[\"rejected\",\"signerInfo 0: certificate $LEAF is issued by the blacklisted $CA\"]" \
    "firmware: db = the leaf, dbx = its CA: rejected"
expect_match "$(link shim "$("$KTRUST" chain --json --db leaf.esl --dbx other.esl s.efi "$GRUB" "$KERNEL")")" \
    '^\["trusted",' "firmware: dbx = an unrelated CA: trusted"
# an intermediate carried in the message, issued by a dbx root; db = the intermediate
out=$("$KTRUST" chain --json --db inter.esl --dbx root.esl i.efi "$GRUB" "$KERNEL")
expect_eq "$(link shim "$out")" \
    "[\"rejected\",\"signerInfo 0: certificate $(desc inter.pem) is issued by the blacklisted $(desc root.pem)\"]" \
    "firmware: the dbx root issued the intermediate in the message"

# the corpus: the Debian Secure Boot CA (shim's vendor certificate) in dbx
# rejects GRUB and the kernel, whose signatures carry only their leaves
KTRUST_STORE=$T/st.db "$KTRUST" load-pe-key -q --trust "$MS11" "$SHIM" || bad "load-pe-key"
KTRUST_STORE=$T/st.db "$KTRUST" keyring export --keyring secondary --format pem -o debca.pem
cert-to-efi-sig-list debca.pem debca.esl >/dev/null
anchors debca.pem "$GRUB" && ok || bad "oracle: the Debian CA anchors GRUB"
out=$("$KTRUST" chain --json --db "$MS11" --dbx debca.esl "$SHIM" "$GRUB" "$KERNEL")
expect_eq $? 5 "Debian CA in dbx: exit 5"
expect_match "$(link loader "$out")" \
    '^\["rejected","signerInfo 0: certificate Debian Secure Boot Signer 2022 - grub2: [0-9a-f]{40} is issued by the blacklisted Debian Secure Boot CA: ' \
    "GRUB rejected: its signer was issued by the Debian CA"
expect_match "$(link kernel "$out")" \
    '^\["rejected","signerInfo 0: certificate Debian Secure Boot Signer 2022 - linux: [0-9a-f]{40} is issued by the blacklisted Debian Secure Boot CA: ' \
    "the kernel rejected: its signer was issued by the Debian CA"

# check-update, chain and verify-pe agree on the same files
for c in ca other look leaf; do
    "$KTRUST" check-update -q --dbx $c.esl loader.efi; cu=$?
    "$KTRUST" chain -q --db "$MS11" --mok leaf.esl --dbx $c.esl "$SHIM" loader.efi "$KERNEL"; ch=$?
    rm -f st-$c.db
    KTRUST_STORE=$T/st-$c.db "$KTRUST" keyring add -q --keyring blacklist $c.esl
    KTRUST_STORE=$T/st-$c.db "$KTRUST" verify-pe -q --trust leaf.pem loader.efi 2>/dev/null; vp=$?
    case $c in ca|leaf) want=5 ;; *) want=0 ;; esac
    expect_eq "$cu $ch $vp" "$want $want $want" "dbx = $c: check-update, chain and verify-pe agree"
done
# shim's own vendor certificate (the Debian CA) in dbx: firmware runs shim
# (judged by its Microsoft signature) and shim refuses what the CA signed,
# as real shim 16.1 does under OVMF (tests/boot dbx_debian_ca)
"$KTRUST" load-pe-key -q --store vendor.db --keyring platform --trust "$MS11" "$SHIM" >/dev/null 2>&1
"$KTRUST" keyring export --store vendor.db --keyring platform --format pem -o vendor-all.pem 2>/dev/null
python3 - <<'PY'
import re
pems = re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----\n", open("vendor-all.pem").read(), re.S)
open("debca.pem", "w").write(pems[-1])
PY
expect_eq "$(desc debca.pem | cut -d: -f1)" "Debian Secure Boot CA" "the Debian CA from shim's .vendor_cert"
cert-to-efi-sig-list debca.pem debca.esl >/dev/null
j=$("$KTRUST" chain --json --db "$MS11" --dbx debca.esl "$SHIM" "$GRUB" "$KERNEL")
expect_eq "$(link shim "$j" | jq -r '.[0]')" trusted "vendor CA in dbx: shim still runs"
expect_match "$(link shim "$j" | jq -r '.[1]')" "its vendor certificate is in dbx" "vendor CA in dbx: said at shim"
expect_match "$(link loader "$j")" '"rejected",".*issued by the blacklisted Debian Secure Boot CA' \
    "vendor CA in dbx: shim refuses GRUB"
finish
