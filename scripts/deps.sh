#!/usr/bin/env bash
# scripts/deps.sh build|demo|test - make sure the Debian packages a step needs
# are installed: installs the missing ones when run as root (apt-get), or
# prints the command to run and fails.  The one list of ktrust's packages.
set -u
BUILD=(build-essential cmake pkg-config libssl-dev libsqlite3-dev liblzma-dev libzstd-dev
       zlib1g-dev liblz4-dev libkeyutils-dev libcryptsetup-dev libtss2-dev)
DEMO=(openssl osslsigncode)
TEST=(openssl osslsigncode sbsigntool pesign libnss3-tools efitools keyutils sqlite3 graphviz
      xz-utils zstd lz4 gzip dpkg-dev python3 python3-cryptography util-linux bc time
      clang libclang-rt-14-dev valgrind jq binutils strace python3-jsonschema
      qemu-system-x86 ovmf mtools dosfstools busybox-static swtpm swtpm-tools tpm2-tools
      cryptsetup-bin systemd systemd-boot-efi clevis clevis-luks clevis-tpm2
      ima-evm-utils linux-kbuild-6.1 attr xxd)
case "${1:-build}" in
    build) want=("${BUILD[@]}") ;;
    demo) want=("${BUILD[@]}" "${DEMO[@]}") ;;
    test) want=("${BUILD[@]}" "${TEST[@]}") ;;
    *) echo "usage: $0 build|demo|test" >&2; exit 64 ;;
esac
missing=()
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${want[@]}" 2>/dev/null | awk '/install ok installed/ {print $1}')
for p in "${want[@]}"; do
    grep -qx "$p" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "ktrust needs: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "ktrust: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
{ apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >/dev/null 2>&1 || {
    echo "ktrust: apt-get install ${missing[*]} failed" >&2
    exit 1
}
