# Sourced by the dual-boot tests (audit_windows.sh, plan_updates_windows.sh)
# after common.sh: a machine of our own with a Windows boot manager signed
# under a test PCA (Microsoft Windows Production PCA 2011's stand-in).
#   dualboot_setup PREFIX KEY...  checks the corpus and the tools, moves into
#       $T, makes each KEY (pk, kek, pca, ...) a self-signed CA "/CN=PREFIX KEY"
#       (KEY.pem, KEY.key) and its signature list KEY.esl (owner $G)
#   dualboot_leaf NAME CA CN      a code-signing leaf NAME.pem/.key under CA
#   dualboot_pe NAME OUT          the corpus's unsigned PE32+ signed by NAME
#   var DIR VAR GUID ESL          DIR/VAR-GUID, an efivarfs file (attributes 0x27)
dualboot_setup() {
    corpus
    local k prefix=$1
    shift
    need_tools sign-efi-sig-list cert-to-efi-sig-list sbsign openssl jq
    cd "$T" || exit 1
    G=11111111-2222-3333-4444-555555555555
    GLOBAL=8be4df61-93ca-11d2-aa0d-00e098032b8c
    IMGDB=d719b2cb-3d3a-4596-a3bc-dad00e67656f
    for k in "$@"; do
        openssl req -x509 -newkey rsa:2048 -nodes -keyout $k.key -out $k.pem -days 3650 \
            -subj "/CN=$prefix $k" -addext basicConstraints=critical,CA:TRUE 2>/dev/null
        cert-to-efi-sig-list -g $G $k.pem $k.esl >/dev/null
    done
}
dualboot_leaf() {
    openssl req -newkey rsa:2048 -nodes -keyout $1.key -out $1.csr -subj "/CN=$3" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=codeSigning\n' > ext.cnf
    openssl x509 -req -in $1.csr -CA $2.pem -CAkey $2.key -CAcreateserial -out $1.pem -days 365 \
        -extfile ext.cnf 2>/dev/null
}
dualboot_pe() {
    sbsign --key $1.key --cert $1.pem --output "$2" "$CORPUS/windows/7za-x64-unsigned.exe" \
        >/dev/null 2>&1
}
var() { { printf '\x27\x00\x00\x00'; cat "$4"; } > "$1/$2-$3"; }
