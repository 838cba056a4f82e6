#!/bin/bash
# check-update: a dbx X509 entry is a trust anchor for denial (issue #23
# item 3; EDK2 IsForbiddenByDbx verifies the signature with each dbx
# certificate as the root, shim's check_denylist does the same on dbx,
# vendor dbx and MokListX).  A dbx holding the CA that issued the signer
# revokes the image although the signature carries only the leaf, also when
# db holds the same CA or the leaf itself; an intermediate in the message
# issued by a dbx root revokes; an unrelated CA, or a look-alike with the
# CA's name and another key, revokes nothing; the leaf itself still revokes.
# Oracle: osslsigncode verify -CAfile CERT (OpenSSL's PKCS7_verify with CERT
# as the only trusted root, what AuthenticodeVerify does) succeeds exactly
# for the dbx certificates that revoke by the issuer rule.  Corpus: the
# Debian Secure Boot CA (shim's vendor certificate) revokes GRUB, MokManager
# and the kernel, never shim.
. "$(dirname "$0")/../lib/common.sh"
. "$KT_SRC/tests/fixtures/dbx_anchor.sh"
for tool in osslsigncode sbsign cert-to-efi-sig-list jq openssl; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
dbx_anchor_fixtures "$T" || { echo "fixture generation failed"; exit 1; }
cd "$T" || exit 1
CU() { "$KTRUST" check-update "$@"; }
# anchors CERT IMAGE: does OpenSSL verify IMAGE's signature with CERT as the root?
anchors() {
    osslsigncode verify -ignore-cdp -ignore-crl -CAfile "$1" -in "$2" 2>/dev/null | grep -qx Succeeded
}
desc() { "$KTRUST" x509 show --json "$1" | jq -r .description; }
CA=$(desc ca.pem) LEAF=$(desc leaf.pem)

# the oracle's view: ca anchors s.efi, other and the look-alike do not
anchors ca.pem s.efi && ok || bad "oracle: ca.pem anchors s.efi"
anchors other.pem s.efi && bad "oracle: other.pem must not anchor s.efi" || ok
anchors look.pem s.efi && bad "oracle: the look-alike must not anchor s.efi" || ok
anchors root.pem i.efi && ok || bad "oracle: root.pem anchors i.efi (through the intermediate in the message)"
expect_eq "$(osslsigncode extract-signature -in s.efi -out s.p7 >/dev/null 2>&1;
            openssl pkcs7 -inform DER -in s.p7 -print_certs -noout | grep -c '^subject')" 1 \
    "sbsign put the leaf only into the signature"

# the CA that issued the signer, not in the signature: revoked
j=$(CU --json --dbx ca.esl s.efi)
expect_eq $? 5 "dbx = the signer's CA: exit 5"
expect_eq "$(jq -r 'select(.file) | .verdict' <<<"$j")" would_be_revoked "dbx = CA: would be revoked"
expect_eq "$(jq -c 'select(.file) | [.reasons[] | .by]' <<<"$j")" '["certificate"]' "one reason, by certificate"
expect_eq "$(jq -r 'select(.file) | .reasons[0].detail' <<<"$j")" "certificate $CA, the issuer of $LEAF" \
    "the reason names the dbx certificate and the certificate it issued"
out=$(CU --dbx ca.esl s.efi)
expect_match "$out" "s.efi: would be revoked" "text verdict"
expect_match "$out" "by certificate: certificate $CA, the issuer of $LEAF" "text reason"
# ... also when db holds the same CA (db vouches, dbx wins), or the leaf itself
j=$(CU --json --dbx ca.esl --db ca.esl s.efi)
expect_eq $? 5 "dbx and db = the CA: exit 5"
expect_eq "$(jq -c 'select(.file) | [.verdict, .signed_by_db]' <<<"$j")" '["would_be_revoked",true]' \
    "db vouches, the dbx CA still revokes"
expect_exit 5 "db = the leaf, dbx = its CA: revoked" -- CU -q --dbx ca.esl --db leaf.esl s.efi

# nothing changes for an unrelated CA or a look-alike (same name, other key)
for c in other look; do
    j=$(CU --json --dbx $c.esl --db ca.esl s.efi)
    expect_eq $? 0 "dbx = $c: exit 0"
    expect_eq "$(jq -c 'select(.file) | [.verdict, .reasons, .signed_by_db]' <<<"$j")" \
        '["still_boots",[],true]' "dbx = $c: still boots, no reason"
done

# the leaf itself still revokes, named once, as before
j=$(CU --json --dbx leaf.esl s.efi)
expect_eq $? 5 "dbx = the leaf: exit 5"
expect_eq "$(jq -c 'select(.file) | [.reasons[] | .detail]' <<<"$j")" "[\"certificate $LEAF\"]" \
    "dbx = the leaf: the leaf's own entry"
# the leaf and its CA both listed: two entries, two reasons
expect_eq "$(CU --json --dbx leaf.esl --dbx ca.esl s.efi | jq -r 'select(.file) | .reasons | length')" 2 \
    "leaf and CA listed: two reasons"

# an intermediate carried in the message, issued by a dbx root
ROOT=$(desc root.pem) INTER=$(desc inter.pem)
j=$(CU --json --dbx root.esl i.efi)
expect_eq $? 5 "dbx = the root above the intermediate: exit 5"
expect_eq "$(jq -r 'select(.file) | .reasons[0].detail' <<<"$j")" "certificate $ROOT, the issuer of $INTER" \
    "the root issued the intermediate"
j=$(CU --json --dbx inter.esl i.efi)
expect_eq "$(jq -r 'select(.file) | .reasons[0].detail' <<<"$j")" "certificate $INTER" \
    "the intermediate itself: named once, as the certificate"
expect_exit 0 "the root of another chain revokes nothing" -- CU -q --dbx root.esl s.efi
expect_exit 0 "the CA of another chain revokes nothing" -- CU -q --dbx ca.esl i.efi

# the corpus: the Debian Secure Boot CA (shim's vendor certificate) in dbx
corpus
D=$CORPUS/debian
MS11=$CORPUS/trust/microsoft-uefi-ca-2011.pem
KTRUST_STORE=$T/st.db "$KTRUST" load-pe-key -q --trust "$MS11" "$D/shimx64.efi.signed" ||
    bad "load-pe-key of the corpus shim"
KTRUST_STORE=$T/st.db "$KTRUST" keyring export --keyring secondary --format pem -o debca.pem
expect_eq "$(openssl x509 -in debca.pem -noout -subject)" "subject=CN = Debian Secure Boot CA" \
    "shim's vendor certificate is the Debian Secure Boot CA"
cert-to-efi-sig-list debca.pem debca.esl >/dev/null
for f in grubx64 mmx64; do
    anchors debca.pem "$D/$f.efi.signed" && ok || bad "oracle: the Debian CA anchors $f"
done
anchors debca.pem "$D/shimx64.efi.signed" && bad "oracle: the Debian CA must not anchor shim" || ok
for db in "" "--db $MS11 --db debca.esl"; do
    # shellcheck disable=SC2086
    j=$(CU --json --dbx debca.esl $db "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" \
        "$D/mmx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64")
    expect_eq $? 5 "Debian CA in dbx ${db:+(with db)}: exit 5"
    expect_eq "$(jq -r 'select(.would_be_revoked == true) | .file | sub(".*/"; "")' <<<"$j" | tr '\n' ' ')" \
        "grubx64.efi.signed mmx64.efi.signed vmlinuz-6.1.0-57-amd64 " \
        "GRUB, MokManager and the kernel are revoked ${db:+(with db)}"
    expect_eq "$(jq -r 'select(.file | test("shimx64")?) | .verdict' <<<"$j")" still_boots "shim still boots"
    expect_match "$(jq -r 'select(.file | test("grubx64")?) | .reasons[0].detail' <<<"$j")" \
        "^certificate Debian Secure Boot CA: [0-9a-f]{40}, the issuer of Debian Secure Boot Signer 2022 - grub2: " \
        "GRUB: the CA that issued its signer"
done
finish
