# Sourced by tests: generate keys, certificates and signed objects with
# openssl / osslsigncode / sbsign in the current directory.

# gen_ca NAME "Org"            -> NAME.pem NAME.key (self-signed CA, SKID)
gen_ca() {
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 3650 \
        -subj "/O=$2/CN=$2 Root" -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,digitalSignature \
        -addext subjectKeyIdentifier=hash 2>/dev/null
}

# gen_leaf NAME "Org" ISSUER [EKU]  -> NAME.pem NAME.key signed by ISSUER (AKID keyid)
gen_leaf() {
    local eku=${4:-codeSigning}
    openssl req -new -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" \
        -subj "/O=$2/CN=$2 $1" 2>/dev/null
    {
        echo "basicConstraints=CA:FALSE"
        [ "$eku" = none ] || echo "extendedKeyUsage=$eku"
        echo "subjectKeyIdentifier=hash"
        echo "authorityKeyIdentifier=keyid"
    } > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -out "$1.pem" \
        -days 3650 -extfile "$1.ext" 2>/dev/null
}

# gen_self NAME "O" "CN"  -> a self-signed non-CA key (a vendor module-signing key)
gen_self() {
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 3650 \
        -subj "/O=$2/CN=$3" -addext extendedKeyUsage=codeSigning 2>/dev/null
}

# sign_module IN OUT CERT KEY: the kernel's sign-file format
sign_module() {
    local sig
    sig=$(mktemp)
    openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 -nosmimecap \
        -signer "$3" -inkey "$4" -in "$1" -out "$sig" 2>/dev/null || return 1
    local n
    n=$(stat -c %s "$sig")
    {
        cat "$1" "$sig"
        printf '\x00\x00\x02\x00\x00\x00\x00\x00'
        printf "\\x$(printf %02x $((n >> 24 & 255)))\\x$(printf %02x $((n >> 16 & 255)))\\x$(printf %02x $((n >> 8 & 255)))\\x$(printf %02x $((n & 255)))"
        printf '~Module signature appended~\n'
    } > "$2"
    rm -f "$sig"
}

# osslsign IN OUT SIGNER CA [HASH]: Authenticode with the CA in the message
osslsign() {
    osslsigncode sign -certs "$3.pem" -ac "$4.pem" -key "$3.key" -h "${5:-sha256}" \
        -in "$1" -out "$2" >/dev/null 2>&1
}

# sbsign_pe IN OUT SIGNER
sbsign_pe() {
    sbsign --key "$3.key" --cert "$3.pem" --output "$2" "$1" >/dev/null 2>&1
}

# pesign_pe IN OUT SIGNER CA: pesign with a throw-away NSS database
pesign_pe() {
    local db
    db=$(mktemp -d)
    certutil -N -d "$db" --empty-password >/dev/null 2>&1 || return 1
    openssl pkcs12 -export -inkey "$3.key" -in "$3.pem" -certfile "$4.pem" -name signer \
        -passout pass: -out "$db/s.p12" 2>/dev/null || return 1
    pk12util -d "$db" -i "$db/s.p12" -W "" >/dev/null 2>&1 || return 1
    certutil -A -d "$db" -n ca -t "CT,C,C" -i "$4.pem" >/dev/null 2>&1
    pesign -n "$db" -c signer -s -i "$1" -o "$2" >/dev/null 2>&1
    local rc=$?
    rm -rf "$db"
    return $rc
}

# sha256_esl HEX OUT: an EFI_SIGNATURE_LIST of one EFI_CERT_SHA256 entry
sha256_esl() {
    python3 - "$1" "$2" <<'PY'
import struct, sys, uuid
h = bytes.fromhex(sys.argv[1])
guid = uuid.UUID("c1c41626-504c-4092-aca9-41f936934328").bytes_le
owner = uuid.UUID("605dab50-e046-4300-abb6-3dd810dd8b23").bytes_le
sig = owner + h
open(sys.argv[2], "wb").write(guid + struct.pack("<III", 28 + len(sig), 0, len(sig)) + sig)
PY
}
