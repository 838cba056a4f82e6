#!/usr/bin/env bash
# "untrusted" says what is missing (issue #16.6): the top of the chain the
# message carries, the issuer it needs, where a key is held that may not
# vouch, the certificate outside its dates, and the option that supplies it.
. "$(dirname "$0")/../lib/common.sh"
corpus
C=$CORPUS
ST=$C/windows/signtool-electron-windows-sign-1.2.2.exe
out=$("$KTRUST" verify-pe --trust "$C/trust/microsoft-uefi-ca-2011.pem" "$ST" 2>&1)
expect_match "$out" "chain ends at Microsoft Code Signing PCA 2010: [0-9a-f]+, issued by .*CN=Microsoft Root Certificate Authority 2010, which no keyring holds" "signtool: names the chain's top and the issuer it needs"
expect_match "$out" "supply the issuer with --trust, --kernel or --store" "... and the options that supply it"
expect_match "$out" "note: Microsoft Corporation: [0-9a-f]+ is valid only from 2020-12-15T21:24:20Z to 2021-12-02T21:24:20Z" "the expired signer and its dates"
out=$("$KTRUST" verify-pe --check-time --trust "$C/trust/microsoft-uefi-ca-2011.pem" "$ST" 2>&1)
expect_match "$out" "certificate Microsoft Corporation: [0-9a-f]+ in the chain is outside its validity period" "--check-time names the certificate"
out=$("$KTRUST" verify-pe --trust "$C/trust/microsoft-uefi-ca-2011.pem" "$C/debian/grubx64.efi.signed" 2>&1)
expect_match "$out" "chain ends at Debian Secure Boot Signer 2022 - grub2: [0-9a-f]+, issued by CN=Debian Secure Boot CA, which no keyring holds" "GRUB: names the Debian CA it needs"
mod=$(ls "$C"/debian/modules/*.ko | head -1)
out=$("$KTRUST" verify-module "$mod" --trust "$C/trust/microsoft-uefi-ca-2011.pem" 2>&1)
expect_match "$out" "no certificate for the signer and no trusted key matching its id, which no keyring holds \(supply the key with --trust, --kernel or --store\)" "a module: names the options"
# the builtin key in platform: held, but platform does not vouch for modules
"$KTRUST" kernel-keys --pem "$C/debian/vmlinuz-6.1.0-57-amd64" > "$T/kkey.pem" 2>/dev/null
"$KTRUST" keyring add --store "$T/s.db" --keyring platform "$T/kkey.pem" >/dev/null 2>&1
out=$("$KTRUST" verify-module --store "$T/s.db" "$mod" 2>&1)
expect_match "$out" "which keyring platform holds, but platform does not vouch for modules" "a module: the key is in platform, which may not vouch"
finish
