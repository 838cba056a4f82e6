#!/bin/bash
# chain: shim's allow list and MokIgnoreDB as shim 16.x applies them (#23.4;
# shim.c check_allowlist, mok.c; the kernel's uefi_check_ignore_db): a SHA-256
# image hash in db or MokList admits an image at shim's links, signed or not
# (the hash computed by efitools' hash-to-efi-sig-list, an independent
# oracle); MokIgnoreDB takes db away from what shim verifies (db still vouches
# for shim itself), its hashes too.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
for tool in objcopy sbsign jq hash-to-efi-sig-list cert-to-efi-sig-list; do
    command -v $tool >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
done
cd "$T" || exit 1
CH() { "$KTRUST" chain "$@"; }
loader() { jq -r 'select(.role == "loader") | "\(.verdict): \(.reason)"'; }
sect() { objcopy --add-section .sbat="$1" --set-section-flags .sbat=contents,alloc,load,readonly,data "$2" "$3"; }

gen_ca db "DB"
gen_ca vendor "Vendor"
# a shim: the vendor certificate, a .sbat that passes, signed by the db CA
"$KTRUST" wrap-key vendor.pem --vendor-cert -o shim.u >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\nshim,4,UEFI shim,shim,1,https://y\n' > shim.csv
sect shim.csv shim.u shim.s
sbsign --key db.key --cert db.pem --output shim.efi shim.s 2>/dev/null
# loaders with a .sbat: one signed by the db CA, one unsigned
openssl req -x509 -newkey rsa:2048 -nodes -keyout x.key -out x.pem -subj /CN=x -days 30 2>/dev/null
"$KTRUST" wrap-key x.pem -o plain.u >/dev/null
printf 'sbat,1,SBAT Version,sbat,1,https://x\ngrub,5,T,grub,2,https://y\n' > grub.csv
sect grub.csv plain.u unsigned.efi
sbsign --key db.key --cert db.pem --output dbsigned.efi unsigned.efi 2>/dev/null
sbsign --key vendor.key --cert vendor.pem --output kernel.efi plain.u 2>/dev/null
hash-to-efi-sig-list unsigned.efi unsigned-hash.esl >/dev/null
cert-to-efi-sig-list db.pem db.esl >/dev/null

# efivarfs directories: db (the CA, or the CA and the unsigned loader's hash),
# MokListRT (the hash), MokIgnoreDB
G=d719b2cb-3d3a-4596-a3bc-dad00e67656f MOKG=605dab50-e046-4300-abb6-3dd810dd8b23
var() { { printf '\x07\x00\x00\x00'; cat "${@:3}"; } > "$1/$2"; }
mkdir -p plain ignore hashdb hashdb-ignore hashmok
for d in plain ignore hashdb hashdb-ignore hashmok; do var $d db-$G db.esl; done
var hashdb db-$G db.esl unsigned-hash.esl
var hashdb-ignore db-$G db.esl unsigned-hash.esl
var hashmok MokListRT-$MOKG unsigned-hash.esl
printf '\x06\x00\x00\x00\x01' > ignore/MokIgnoreDB-$MOKG
printf '\x06\x00\x00\x00\x01' > hashdb-ignore/MokIgnoreDB-$MOKG

# db vouches for what shim verifies ... unless MokIgnoreDB
expect_match "$(CH --json --efivars plain shim.efi dbsigned.efi kernel.efi | loader)" \
    "^trusted: signature 0 trusted: DB Root: [0-9a-f]+ vouches$" "a loader signed by the db CA: trusted through db"
j=$(CH --json --efivars ignore shim.efi dbsigned.efi kernel.efi)
expect_eq "$(jq -r 'select(.role == "shim") | .verdict' <<<"$j")" trusted "MokIgnoreDB: db still vouches for shim (firmware)"
expect_eq "$(loader <<<"$j")" \
    "untrusted: no key in shim's vendor certificate or MOK (MokIgnoreDB: not db) vouches for its signer" \
    "MokIgnoreDB: the db-signed loader is untrusted"

# an image hash in db or MokList admits an unsigned loader
expect_eq "$(CH --json --efivars plain shim.efi unsigned.efi kernel.efi | loader)" \
    "unsigned: no signature: the image has no certificate table" "an unsigned loader: unsigned" 
expect_eq "$(CH --json --efivars hashdb shim.efi unsigned.efi kernel.efi | loader)" \
    "trusted: its SHA-256 image hash is in db" "its hash in db admits it (check_allowlist)"
expect_eq "$(CH --json --efivars hashmok shim.efi unsigned.efi kernel.efi | loader)" \
    "trusted: its SHA-256 image hash is in MokList" "its hash in MokList admits it"
expect_eq "$(CH --json --efivars hashdb-ignore shim.efi unsigned.efi kernel.efi | loader)" \
    "unsigned: no signature: the image has no certificate table" "MokIgnoreDB: db's hash admits nothing"
expect_eq "$(CH --json --db db.pem --mok unsigned-hash.esl shim.efi unsigned.efi kernel.efi | loader)" \
    "trusted: its SHA-256 image hash is in MokList" "--mok with the hash: the same"
# ... but only at shim's links: firmware does not start an unsigned shim for a MokList hash
hash-to-efi-sig-list shim.s shim-hash.esl >/dev/null
expect_eq "$(CH --json --db db.pem --mok shim-hash.esl shim.s unsigned.efi kernel.efi | jq -r 'select(.role == "shim") | .verdict')" \
    unsigned "a MokList hash does not admit shim itself"
# and a dbx entry still wins over the allow list
cp unsigned-hash.esl dbx.esl
expect_match "$(CH --json --db db.pem --dbx dbx.esl --mok unsigned-hash.esl shim.efi unsigned.efi kernel.efi | loader)" \
    "^unsigned: " "the same hash in dbx: not admitted (check_denylist first)"
finish
