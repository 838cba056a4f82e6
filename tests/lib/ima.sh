# Sourced by the verify-ima tests after common.sh and pki.sh.
# ima_setup: a scratch directory $W where security.* xattrs stick (root on
# the build tree's filesystem; /tmp may be a tmpfs that refuses them), made
# the current directory and removed at exit, or skip (77; a failure in CI
# as root); then the keys every IMA test uses: ca (IMA CA, builtin), imakey
# (signed by ca: an .ima key), other and stray (a key ca did not sign).
ima_setup() {
    W=$(mktemp -d "$KT_BUILD/ima-test.XXXXXX") || exit 1
    trap 'rm -rf "$T" "$W"' EXIT
    cd "$W" || exit 1
    echo probe >probe
    setfattr -n security.ima -v 0x0401 probe 2>/dev/null || {
        [ -n "${CI:-}" ] && [ "$(id -u)" = 0 ] && { echo "FAIL: no security.* xattrs as root"; exit 1; }
        echo "skipped: cannot set security.ima here (root on ext4 needed)"; exit 77; }
    gen_ca ca "IMA CA"
    gen_leaf imakey "IMA" ca
    gen_ca other "Other CA"
    gen_leaf stray "Stray" other
}
