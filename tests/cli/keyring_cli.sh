#!/bin/bash
# keyring add/list/remove/export/create: restrictions through the CLI, exit
# codes, the store left unchanged on refusal, efitools interoperability, and
# push into a real kernel keyring (checked with keyctl; skipped visibly).
source "$(dirname "$0")/../lib/common.sh"
export KTRUST_STORE=$T/store/sub/keyrings.db
cd "$T"
q() { "$@" >/dev/null 2>&1; }
q openssl req -x509 -newkey rsa:2048 -nodes -keyout root.key -out root.pem \
    -subj '/O=Test Org/CN=Test Root CA' -days 3650 -addext 'basicConstraints=critical,CA:TRUE'
printf 'basicConstraints=CA:TRUE\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' >ext
sign() {
    q openssl req -new -newkey rsa:2048 -nodes -keyout $1.key -out $1.csr -subj "$2"
    q openssl x509 -req -in $1.csr -CA $3.pem -CAkey $3.key -set_serial 0x$(openssl rand -hex 8) \
        -days 365 -out $1.pem -extfile ext
}
sign inter '/O=Test Org/CN=Test Intermediate' root
sign leaf '/O=Test Org/CN=Leaf Signing Key' inter
q openssl req -x509 -newkey rsa:2048 -nodes -keyout stranger.key -out stranger.pem \
    -subj '/O=Evil/CN=Stranger' -days 365
for f in root inter leaf stranger; do openssl x509 -in $f.pem -outform DER -out $f.der; done
count() { sqlite3 "$KTRUST_STORE" "select count(*) from keys${1:+ where keyring='$1'}"; }

# list on a store that does not exist yet: "no store" (66), nothing created;
# add does not create a missing directory for an explicit store path
out=$($KTRUST keyring list 2>&1); rc=$?
expect_eq "$rc" 66 "list without a store: 66"
expect_match "$out" "^ktrust: no store at $KTRUST_STORE " "list without a store: says so"
expect_exit 66 "add: the store's directory is not created" -- $KTRUST keyring add --keyring builtin root.pem
expect_eq "$(test -e "$T/store" && echo created)" "" "... nothing created"
mkdir -p "$T/store/sub"
expect_exit 0 "add root to builtin" -- $KTRUST keyring add --keyring builtin root.pem
expect_eq "$(count builtin)" 1 "builtin has root"
expect_eq "$(sqlite3 "$KTRUST_STORE" 'pragma journal_mode; pragma user_version' | tr '\n' ' ')" "wal 1 " "WAL and schema version"

# secondary refuses what no trusted key signed: exit 6, nothing written
before=$(sha256sum "$KTRUST_STORE" | cut -c1-64)
out=$($KTRUST keyring add --keyring secondary inter.pem stranger.pem 2>&1); rc=$?
expect_eq "$rc" 6 "stranger refused from secondary"
expect_match "$out" "^ktrust: stranger.pem: secondary: refused 'Evil: Stranger: [0-9a-f]+': no key in" "refusal message"
expect_eq "$(count secondary)" 0 "one transaction: inter not kept either"
expect_exit 6 "leaf before its signer" -- $KTRUST keyring add --keyring secondary leaf.pem
expect_exit 0 "inter then leaf in one command" -- $KTRUST keyring add --keyring secondary inter.pem leaf.der
expect_eq "$(count secondary)" 2 "secondary has 2"
expect_exit 0 "adding again is a no-op" -- $KTRUST keyring add --keyring secondary inter.pem
expect_eq "$(count secondary)" 2 "still 2"
expect_exit 0 "stranger into platform" -- $KTRUST keyring add --keyring platform stranger.pem
expect_exit 64 "unknown keyring" -- $KTRUST keyring add --keyring nosuch root.pem
expect_exit 4 "garbage input" -- $KTRUST keyring add --keyring platform ext
expect_exit 66 "missing file" -- $KTRUST keyring add --keyring platform nonexistent.pem

# list: text and JSON
out=$($KTRUST keyring list --keyring secondary)
expect_match "$out" "^secondary	trusted	Test Org: Test Intermediate: [0-9a-f]+	file:inter.pem" "text list"
json=$($KTRUST keyring list --json)
expect_eq "$(echo "$json" | wc -l)" 4 "one JSON line per key"
expect_eq "$(echo "$json" | python3 -c 'import sys,json; print(",".join(sorted({k for l in sys.stdin for k in json.loads(l)})))')" \
    "added,akid,description,issuer,key_algorithm,key_bits,keyring,not_after,not_before,self_signed,serial,sha256,signature_algorithm,skid,source,subject,tbs_sha256,trusted,type" "JSON fields"
want_sha=$(sha256sum leaf.der | cut -c1-64)
expect_eq "$(echo "$json" | python3 -c 'import sys,json; [print(d["sha256"]) for d in map(json.loads, sys.stdin) if d["subject"].endswith("Leaf Signing Key")]')" "$want_sha" "sha256 field"
# the description matches the kernel's: compare with keyctl when possible
skid=$(openssl x509 -in leaf.pem -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' :' | tr A-F a-f)
expect_match "$out" "Test Org: Leaf Signing Key: $skid" "description uses the SKID"

# user keyrings
expect_exit 64 "bad restriction" -- $KTRUST keyring create mine --restrict sometimes
expect_exit 64 "voucher must exist" -- $KTRUST keyring create mine --restrict signed-by:nosuch
expect_exit 0 "create signed-by" -- $KTRUST keyring create mine --restrict signed-by:secondary
expect_exit 64 "create twice" -- $KTRUST keyring create mine --restrict none
expect_exit 6 "mine refuses root-signed (root not in secondary)" -- $KTRUST keyring add --keyring mine inter.pem
expect_exit 0 "mine takes inter-signed leaf" -- $KTRUST keyring add --keyring mine leaf.pem
expect_eq "$(sqlite3 "$KTRUST_STORE" "select restriction||':'||vouchers from keyrings")" "signed-by:secondary" "keyring row"
expect_exit 0 "trusted-only keyring" -- $KTRUST keyring create strict --restrict trusted-only
expect_exit 6 "trusted-only refuses stranger" -- $KTRUST keyring add --keyring strict stranger.pem
expect_exit 0 "--trust: a run-only builtin key may sign" -- $KTRUST keyring create other --restrict none
expect_exit 0 "--trust run-only" -- $KTRUST keyring add --keyring strict --trust stranger.pem root.pem
expect_eq "$(count builtin)" 1 "--trust keys are not stored"

# remove: kernel-style partial ids, one transaction
tail8=${skid: -8}
expect_exit 2 "remove: no match, nothing removed" -- $KTRUST keyring remove --keyring secondary "$tail8" deadbeef
expect_eq "$(count secondary)" 2 "nothing removed"
expect_exit 0 "remove by SKID tail" -- $KTRUST keyring remove --keyring secondary "$tail8"
expect_eq "$(count secondary)" 1 "leaf removed"
expect_exit 0 "remove by description" -- $KTRUST keyring remove --keyring secondary "$(openssl x509 -in inter.pem -noout -ext subjectKeyIdentifier | tail -1 | tr -d ' :' | tr A-F a-f | sed 's/^/Test Org: Test Intermediate: /')"
expect_eq "$(count secondary)" 0 "secondary empty"
expect_exit 0 "re-add" -- $KTRUST keyring add --keyring secondary inter.pem leaf.pem

# export: der (kernel list), pem (openssl reads it), esl (efitools reads it)
$KTRUST keyring export --keyring secondary --format der -o sec.der
expect_eq "$(cat inter.der leaf.der | sha256sum)" "$(sha256sum <sec.der)" "der export = certificates back to back"
$KTRUST keyring export --keyring secondary --format pem >sec.pem
expect_eq "$(openssl crl2pkcs7 -nocrl -certfile sec.pem | openssl pkcs7 -print_certs -noout | grep -c subject)" 2 "pem export readable by openssl"
if command -v sig-list-to-certs >/dev/null; then
    $KTRUST keyring export --keyring secondary --format esl -o sec.esl
    mkdir -p out && (cd out && sig-list-to-certs ../sec.esl c >/dev/null 2>&1)
    expect_eq "$(cat out/c-0.der out/c-1.der 2>/dev/null | sha256sum)" "$(cat inter.der leaf.der | sha256sum)" "efitools sig-list-to-certs reads our ESL"
    cert-to-efi-sig-list stranger.pem db.esl >/dev/null
    expect_exit 0 "efitools ESL into machine" -- $KTRUST keyring add --keyring machine db.esl
    expect_match "$($KTRUST keyring list --keyring machine)" "Evil: Stranger.*file:db.esl#0.0" "ESL key listed"
    # a dbx: the stranger's ESL + a hash list into the blacklist
    head -c 100 /dev/urandom >blob.bin
    openssl dgst -sha256 -binary blob.bin >blob.sha
    expect_exit 0 "revocation cert into the blacklist" -- $KTRUST keyring add --keyring blacklist db.esl
    expect_exit 5 "a blacklisted key is refused" -- $KTRUST keyring add --keyring platform stranger.der
    $KTRUST keyring export --keyring blacklist --format esl -o dbx.esl
    mkdir -p out2 && (cd out2 && sig-list-to-certs ../dbx.esl c >/dev/null 2>&1)
    expect_eq "$(sha256sum <out2/c-0.der)" "$(sha256sum <stranger.der)" "blacklist ESL round trip"
    # efitools' hash list of a PE image: a bin: hash equal to pesign's digest
    if command -v hash-to-efi-sig-list >/dev/null && command -v pesign >/dev/null &&
        $KTRUST wrap-key root.pem -o w.efi >/dev/null 2>&1 && hash-to-efi-sig-list w.efi h.esl >/dev/null 2>&1; then
        want=$(pesign -h -i w.efi | awk '{print $2}')
        expect_exit 0 "hash ESL into the blacklist" -- $KTRUST keyring add --keyring blacklist h.esl
        expect_match "$($KTRUST keyring list --keyring blacklist)" "^blacklist	bin:sha256	$want	file:h.esl#0.0" "bin: hash = pesign digest"
        expect_exit 0 "hash ESL into platform (an allow list)" -- $KTRUST keyring add --keyring platform h.esl
        expect_eq "$(sqlite3 "$KTRUST_STORE" 'select count(*) from blacklist')" 1 "allow-list hashes are not blacklisted"
        expect_exit 2 "remove an absent hash" -- $KTRUST keyring remove --keyring blacklist "tbs:$want"
        expect_exit 0 "remove the bin: hash" -- $KTRUST keyring remove --keyring blacklist "bin:$want"
        expect_eq "$(sqlite3 "$KTRUST_STORE" 'select count(*) from blacklist')" 0 "hash removed from the store"
    else
        echo "note: hash-to-efi-sig-list/pesign/wrap-key unavailable: hash ESL case skipped"
    fi
else
    echo "note: efitools not installed, ESL interoperability skipped"
fi

# push into the kernel: the kernel's description must equal ktrust's
if id=$(keyctl newring kt-test-$$ @u 2>/dev/null) && keyctl padd asymmetric "" "$id" <root.der >/dev/null 2>&1; then
    keyctl clear "$id"
    out=$($KTRUST keyring push --keyring secondary --to "$id" --json); rc=$?
    expect_eq "$rc" 0 "push exit code"
    expect_eq "$(echo "$out" | grep -c '"match":true')" 2 "both descriptions match"
    want=$($KTRUST keyring list --keyring secondary | cut -f3 | sort)
    got=$(for k in $(keyctl rlist "$id"); do keyctl rdescribe "$k" | cut -d';' -f5-; done | sort)
    expect_eq "$got" "$want" "kernel descriptions (keyctl) = ktrust descriptions"
    keyctl unlink "$id" @u >/dev/null 2>&1
else
    echo "note: kernel asymmetric keys unavailable (keyctl padd failed): push test skipped"
fi
expect_exit 64 "push needs --to" -- $KTRUST keyring push --keyring secondary

expect_eq "$(sqlite3 "$KTRUST_STORE" 'pragma integrity_check')" ok "integrity"
finish
