#!/usr/bin/env bash
# make demo: the PE-wrapped-key story on material generated here, then (when
# ../shared/corpus is present) the real Debian secure-boot chain.
set -u
KTRUST=${1:-build/ktrust}
KTRUST=$(cd "$(dirname "$KTRUST")" && pwd)/$(basename "$KTRUST")
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/ktrust-demo.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"

# bold headings on a terminal only: no escape codes in a log or a pipe
if [ -t 1 ]; then
    say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
    say() { printf '\n== %s\n' "$*"; }
fi
run() { printf '$ %s\n' "$*"; "$@"; rc=$?; printf '   (exit %d)\n' "$rc"; return 0; }
need() { command -v "$1" >/dev/null || { echo "demo: '$1' is needed (apt-get install $2)" >&2; exit 1; }; }
need openssl openssl
need osslsigncode osslsigncode

# --- material ---------------------------------------------------------------
say "Generating a stand-in platform CA, a vendor key, a rogue CA, and a module"
gen_ca() { # name cn
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 3650 \
        -subj "/O=$2/CN=$2 Root" -addext basicConstraints=critical,CA:TRUE \
        -addext keyUsage=critical,keyCertSign,digitalSignature 2>/dev/null
}
gen_signer() { # name cn ca
    openssl req -new -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/O=$2/CN=$2 Signer" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=codeSigning\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n' > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -out "$1.pem" -days 3650 -extfile "$1.ext" 2>/dev/null
}
gen_ca platform "Stand-in UEFI CA"
gen_signer uefisigner "Stand-in UEFI CA" platform
gen_ca rogue "Rogue CA"
gen_signer roguesigner "Rogue CA" rogue
openssl req -x509 -newkey rsa:2048 -nodes -keyout vendor.key -out vendor.pem -days 3650 \
    -subj "/O=Acme Corp/CN=Acme Corp Module Signing" \
    -addext extendedKeyUsage=codeSigning 2>/dev/null
echo "platform CA: $(openssl x509 -in platform.pem -noout -subject)"
echo "vendor key:  $(openssl x509 -in vendor.pem -noout -subject)"

# a module signed the way the kernel's sign-file does it
head -c 20000 /dev/urandom > acme.ko
openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 -nosmimecap \
    -signer vendor.pem -inkey vendor.key -in acme.ko -out acme.p7s 2>/dev/null
siglen=$(stat -c %s acme.p7s)
{ cat acme.p7s
  printf '\x00\x00\x02\x00\x00\x00\x00\x00'
  printf "\\x$(printf %02x $((siglen >> 24 & 255)))\\x$(printf %02x $((siglen >> 16 & 255)))\\x$(printf %02x $((siglen >> 8 & 255)))\\x$(printf %02x $((siglen & 255)))"
  printf '~Module signature appended~\n'
} >> acme.ko
export KTRUST_STORE="$W/keyrings.db"

say "1. The platform's db holds the stand-in UEFI CA: it goes to the platform keyring"
run "$KTRUST" keyring add --keyring platform platform.pem
run "$KTRUST" keyring list

say "2. The vendor's module is signed by a key the kernel does not know yet: untrusted (exit 2)"
run "$KTRUST" verify-module acme.ko

say "3. The vendor wraps its key in a PE binary (wrap-key) and the UEFI CA signs it"
echo "The platform CA signs nothing but PE binaries, so the key travels in a .keylist section."
run "$KTRUST" wrap-key vendor.pem -o vendor-key.efi
osslsigncode sign -certs uefisigner.pem -ac platform.pem -key uefisigner.key -h sha256 \
    -in vendor-key.efi -out vendor-key.efi.signed >/dev/null 2>&1 && echo "signed by the stand-in UEFI CA: vendor-key.efi.signed"
run "$KTRUST" verify-pe vendor-key.efi.signed

say "4. Trust never widens: the CA is only in platform, which vouches for boot images, not modules"
echo "So load-pe-key refuses to put the key it wraps into secondary (exit 6), and says why."
run "$KTRUST" load-pe-key vendor-key.efi.signed
run "$KTRUST" keyring list --keyring secondary

say "5. The distribution builds the CA into its kernel (builtin), as the article's kernels did"
echo "Now a builtin key vouches for the wrapper: load-pe-key adds the wrapped key to secondary,"
echo "flagged trusted."
run "$KTRUST" keyring add --keyring builtin platform.pem
run "$KTRUST" load-pe-key vendor-key.efi.signed
run "$KTRUST" keyring list --keyring secondary

say "6. The module now verifies: a trusted key vouches for it"
run "$KTRUST" verify-module acme.ko

say "7. A wrapper signed by a rogue CA is refused, and the store is unchanged"
run "$KTRUST" wrap-key roguesigner.pem -o rogue-key.efi
osslsigncode sign -certs roguesigner.pem -ac rogue.pem -key roguesigner.key -h sha256 \
    -in rogue-key.efi -out rogue-key.efi.signed >/dev/null 2>&1
"$KTRUST" keyring list --json > before.json
run "$KTRUST" load-pe-key rogue-key.efi.signed
"$KTRUST" keyring list --json > after.json
if cmp -s before.json after.json; then echo "store unchanged: yes"; else echo "store unchanged: NO"; fi

# --- the real chain ---------------------------------------------------------
C=${KTRUST_CORPUS:-$SRC/../shared/corpus}
missing_corpus=""
for f in README.md debian/shimx64.efi.signed debian/grubx64.efi.signed debian/vmlinuz-6.1.0-57-amd64 \
    trust/microsoft-uefi-ca-2011.pem peers/shim-efivars/efivars-1; do
    [ -e "$C/$f" ] || { missing_corpus="$C/$f"; break; }
done
if [ -z "$missing_corpus" ]; then
    C=$(cd "$C" && pwd)
    say "8. The real Debian 12 chain: Microsoft UEFI CA 2011 -> shim -> GRUB -> vmlinuz -> modules"
    echo "The UEFI db trusts Microsoft's UEFI CA; it signed shim, whose .vendor_cert wraps the"
    echo "Debian Secure Boot CA; that CA signed GRUB and the kernel; the kernel's builtin key"
    echo "signed the modules.  ktrust checks every link offline:"
    cd "$C/debian"
    printf '$ ktrust chain --db ../trust/microsoft-uefi-ca-2011.pem shimx64.efi.signed grubx64.efi.signed vmlinuz-6.1.0-57-amd64 modules/*.ko\n'
    "$KTRUST" chain --db ../trust/microsoft-uefi-ca-2011.pem shimx64.efi.signed grubx64.efi.signed \
        vmlinuz-6.1.0-57-amd64 modules/*.ko
    printf '   (exit %d)\n' $?
    cd "$W"
    say "9. The same system as a whole: ktrust audit of an offline root"
    mkdir -p root/boot/efi/EFI/debian root/lib/modules/6.1.0-57-amd64/kernel root/sys/firmware/efi
    cp "$C/debian/shimx64.efi.signed" root/boot/efi/EFI/debian/shimx64.efi
    cp "$C/debian/grubx64.efi.signed" root/boot/efi/EFI/debian/grubx64.efi
    cp "$C/debian/vmlinuz-6.1.0-57-amd64" root/boot/
    cp "$C"/debian/modules/*.ko root/lib/modules/6.1.0-57-amd64/kernel/ 2>/dev/null
    cp -r "$C/peers/shim-efivars/efivars-1" root/sys/firmware/efi/efivars
    run "$KTRUST" audit --root root
else
    say "8. (skipping the real Debian chain: $missing_corpus not found)"
    echo "The real signed binaries are not part of the repository: put the shared corpus"
    echo "(see its README.md) at $SRC/../shared/corpus, or point KTRUST_CORPUS=DIR at it,"
    echo "and run 'make demo' again."
fi
say "Done."
