#!/bin/bash
# EFI signature lists through the CLI, with efitools as the oracle in both
# directions: cert-to-efi-sig-list -> ktrust keyring add; ktrust keyring
# export --format esl -> sig-list-to-certs; real efivars; malformed lists.
. "$(dirname "$0")/../lib/common.sh"

fp() { openssl x509 -inform DER -in "$1" -noout -fingerprint -sha256 | cut -d= -f2 | tr -d : | tr A-F a-f; }
S=$T/store.db

bash "$KT_SRC/tests/fixtures/make_kimage.sh" "$T/fx" certs || { echo "fixture generation failed"; exit 1; }
for c in a b; do
    cert-to-efi-sig-list -g 11111111-2222-3333-4444-555555555555 "$T/fx/$c.pem" "$T/$c.esl" >/dev/null
done
cat "$T/a.esl" "$T/b.esl" >"$T/ab.esl" # two lists in one file
expect_exit 0 "add efitools ESL" -- "$KTRUST" keyring add --store "$S" --keyring platform "$T/ab.esl"
list=$("$KTRUST" keyring list --store "$S" --keyring platform --json)
expect_eq "$(printf '%s\n' "$list" | grep -c '"sha256"')" 2 "two keys from two lists"
expect_match "$list" "\"sha256\":\"$(fp "$T/fx/a.der")\"" "a.der is in"
expect_match "$list" "\"sha256\":\"$(fp "$T/fx/b.der")\"" "b.der is in"

# efivarfs form (4-byte attribute prefix) of the same list
{ printf '\x07\x00\x00\x00'; cat "$T/a.esl"; } >"$T/a.var"
expect_exit 0 "add efivarfs file" -- "$KTRUST" keyring add --store "$T/s2.db" --keyring platform "$T/a.var"
expect_match "$("$KTRUST" keyring list --store "$T/s2.db" --keyring platform --json)" \
    "\"sha256\":\"$(fp "$T/fx/a.der")\"" "prefix skipped"

# export -> sig-list-to-certs gives the same DER back
expect_exit 0 "export esl" -- "$KTRUST" keyring export --store "$S" --keyring platform --format esl -o "$T/out.esl"
(cd "$T" && sig-list-to-certs out.esl back >/dev/null 2>&1)
n=0
for f in "$T"/back-*.der; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    if cmp -s "$f" "$T/fx/a.der" || cmp -s "$f" "$T/fx/b.der"; then ok; else bad "exported $f is neither a.der nor b.der"; fi
done
expect_eq "$n" 2 "sig-list-to-certs finds two certificates"

# malformed lists: exit 4 and an offset
le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) \
    $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
bad_list() { # name listsize headersize sigsize: a.esl with its sizes replaced
    {
        head -c 16 "$T/a.esl"
        printf "$(le32 "$2")$(le32 "$3")$(le32 "$4")"
        tail -c +29 "$T/a.esl"
    } >"$T/$1.esl"
}
sz=$(stat -c %s "$T/a.esl")
sig=$((sz - 28))
bad_list past_end $((sz + 100)) 0 "$sig"
bad_list odd_header "$sz" 1 "$sig"
bad_list sig_zero "$sz" 0 0
bad_list sig_nodiv "$sz" 0 $((sig - 1))
for c in "past_end 16 SignatureListSize" "odd_header 20 SignatureHeaderSize" \
    "sig_zero 24 SignatureSize" "sig_nodiv 24 SignatureSize"; do
    set -- $c
    out=$("$KTRUST" keyring add --store "$T/bad.db" --keyring platform "$T/$1.esl" 2>&1)
    expect_eq "$?" 4 "$1: exit 4"
    expect_match "$out" "^ktrust: .*$1.esl: .*$3.*\(at offset $2\)$" \
        "$1: one line naming $3 at offset $2"
done

# the real db of a PC
corpus
DB=$CORPUS/peers/shim-efivars/efivars-0/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f
expect_exit 0 "add corpus db" -- "$KTRUST" keyring add --store "$T/db.db" --keyring platform "$DB"
expect_match "$("$KTRUST" keyring list --store "$T/db.db" --keyring platform --json)" \
    '"sha256":"48e99b991f57fc52f76149599bff0a58c47154229b9f8d603ac40d3500248507"' \
    "Microsoft Corporation UEFI CA 2011 from db"
"$KTRUST" keyring export --store "$T/db.db" --keyring platform --format esl -o "$T/db.esl"
(cd "$T" && sig-list-to-certs db.esl dbc >/dev/null 2>&1)
expect_eq "$(ls "$T"/dbc-*.der 2>/dev/null | wc -l)" 6 "six certificates exported from db"
expect_match "$(for f in "$T"/dbc-*.der; do fp "$f"; done)" 48e99b991f57fc52f76149599bff0a58c47154229b9f8d603ac40d3500248507 \
    "sig-list-to-certs recovers the Microsoft CA"
finish
