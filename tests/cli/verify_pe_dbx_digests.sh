#!/bin/bash
# The blacklist's image hashes (bin:, a dbx) against images signed with any
# digest (issue #11 items 3 and 10): firmware and shim hash an image with
# every algorithm the dbx holds, so an image whose SHA-256 Authenticode hash
# is blacklisted is rejected whatever digest its signature uses; and the
# rejected signature still shows its signer resolved (description), in text
# and JSON.  Oracles: pesign -h (the SHA-256 Authenticode hash of every
# signed image equals the dbx entry) and efitools hash-to-efi-sig-list (the
# dbx itself).
. "$(dirname "$0")/../lib/common.sh"
. "$KT_SRC/tests/fixtures/pe_fixtures.sh"
for tool in sbsign osslsigncode pesign hash-to-efi-sig-list jq; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
pe_fixtures "$T" || { echo "fixture generation failed"; exit 1; }
cd "$T" || exit 1
export KTRUST_STORE=$T/store.db

# the same image signed four ways, and an unrelated image (wrap-key of the CA)
sbsign --key leaf.key --cert leaf.pem --output sb256.efi wrap.efi 2>/dev/null
for h in sha256 sha384 sha512; do
    osslsigncode sign -certs chain.pem -key leaf.key -h $h -in wrap.efi -out o-$h.efi >/dev/null 2>&1
done
"$KTRUST" wrap-key -q ca.pem -o other.efi
osslsigncode sign -certs chain.pem -key leaf.key -h sha384 -in other.efi -out other384.efi >/dev/null 2>&1

# the dbx: efitools' SHA-256 hash list of the unsigned image
hash-to-efi-sig-list wrap.efi dbx.esl >/dev/null
want=$(pesign -h -i wrap.efi | sed -n 's/^hash: //p')
expect_exit 0 "dbx into the blacklist" -- "$KTRUST" keyring add --keyring blacklist dbx.esl
expect_match "$("$KTRUST" keyring list --keyring blacklist)" "bin:sha256	$want" "the dbx entry is pesign's hash"
for f in sb256.efi o-sha256.efi o-sha384.efi o-sha512.efi; do
    expect_eq "$(pesign -h -i $f | sed -n 's/^hash: //p')" "$want" "$f: pesign's SHA-256 hash is the dbx entry"
done

# every signed form of the blacklisted image is rejected
for f in sb256.efi o-sha256.efi o-sha384.efi o-sha512.efi; do
    expect_exit 5 "$f: blacklisted by its SHA-256 hash" -- "$KTRUST" verify-pe -q --trust ca.pem $f
done
out=$("$KTRUST" verify-pe --json --trust ca.pem o-sha384.efi)
expect_eq "$(jq -r .verdict <<<"$out")" rejected "sha384-signed: verdict rejected"
expect_match "$(jq -r .reason <<<"$out")" "sha256 digest is blacklisted" "the reason names the blacklisted digest"
expect_eq "$(jq -r '.signatures[0].digest_algorithm' <<<"$out")" sha384 "the signature's own digest is still shown"
# the unrelated image, signed the same way, is still trusted
expect_exit 0 "an image not in the dbx stays trusted (sha384)" -- "$KTRUST" verify-pe -q --trust ca.pem other384.efi
expect_exit 0 "... and without the dbx the sha384 image is trusted" -- \
    env -u KTRUST_STORE "$KTRUST" verify-pe -q --trust ca.pem o-sha384.efi

# item 10: the rejected signature's signer is resolved, not only issuer+serial
desc=$(jq -r '.signatures[0].signer.description' <<<"$("$KTRUST" verify-pe --json --trust ca.pem other384.efi)")
expect_match "$desc" "^ktrust test: code signer: [0-9a-f]{40}$" "signer description of a trusted image"
for f in sb256.efi o-sha384.efi; do
    out=$("$KTRUST" verify-pe --json --trust ca.pem $f)
    expect_eq "$(jq -r '.signatures[0].verdict' <<<"$out")" rejected "$f: signature rejected"
    expect_eq "$(jq -r '.signatures[0].signer.description' <<<"$out")" "$desc" "$f: JSON signer resolved"
    txt=$("$KTRUST" verify-pe --trust ca.pem $f 2>&1)
    expect_match "$txt" "signer: $desc" "$f: text signer resolved"
done
# and without any key: the signer comes from the message's certificates
out=$("$KTRUST" verify-pe --json --trust rogue.pem o-sha512.efi)
expect_eq "$(jq -r .verdict <<<"$out")" rejected "no trusted key: still rejected by the dbx"
expect_eq "$(jq -r '.signatures[0].signer.description' <<<"$out")" "$desc" "no trusted key: signer resolved"
finish
