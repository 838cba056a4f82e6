# Sourced by the UKI tests after common.sh: uki_setup TOOL... checks the
# corpus and the tools (objcopy and jq always; "measure": systemd-measure of
# systemd 252), moves into $T and sets $MK (tests/fixtures/mkuki.sh: a UKI
# from Debian's linuxx64.efi.stub), $K (the corpus kernel) and $MEASURE.
MEASURE=/usr/lib/systemd/systemd-measure
uki_setup() {
    corpus
    local tool
    for tool in objcopy jq "$@"; do
        if [ "$tool" = measure ]; then
            [ -x $MEASURE ] || { echo "skipped: systemd-measure (systemd 252) not installed"; exit 77; }
        else
            command -v "$tool" >/dev/null || { echo "skipped: $tool not installed"; exit 77; }
        fi
    done
    cd "$T" || exit 1
    MK=$KT_SRC/tests/fixtures/mkuki.sh
    K=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
}
# uki_keys NAME...: a self-signed signing key and certificate each
# (NAME.key, NAME.crt, CN=ktrust-NAME), for sbsign.
uki_keys() {
    local n
    for n in "$@"; do
        openssl req -new -x509 -newkey rsa:2048 -nodes -keyout "$n.key" -out "$n.crt" -days 30 \
            -subj "/CN=ktrust-$n" 2>/dev/null || return 1
    done
}
