#!/bin/bash
# audit's rollover section reads the firmware's event log (#25 with #26):
# firmware logs each db entry once, before the first image it verified, and
# drivers load before boot applications.  A log whose Microsoft Corporation
# UEFI CA 2011 authority precedes an option ROM (a PCI driver): the
# option_roms finding says this machine depends on it; the real OVMF boot of
# the corpus (the 2011 CA first verified shim): no option ROM; a log that
# does not parse is said; a certificate that only calls itself "Microsoft
# Corporation UEFI CA 2011" (another key) does not count.
. "$(dirname "$0")/../lib/common.sh"
corpus
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
Q=$CORPUS/peers/ovmf-swtpm-boot
openssl x509 -in "$CORPUS/trust/microsoft-uefi-ca-2011.pem" -outform DER -out ca2011.der
# a look-alike: the same subject, another key
openssl req -x509 -newkey rsa:2048 -nodes -keyout fake.key -out fake.pem -days 30 \
    -subj "/C=US/ST=Washington/L=Redmond/O=Microsoft Corporation/CN=Microsoft Corporation UEFI CA 2011" 2>/dev/null
openssl x509 -in fake.pem -outform DER -out fake.der
mklog() {
PYTHONPATH="$KT_SRC/tests/fixtures" python3 - "$1" "$2" <<'PY'
import sys
import efi as E
# SecureBoot, the separator, db's authority (CERT) for an option ROM: PciRoot(0x0)/Pci(0x3,0x0)
sigdata = E.MICROSOFT_GUID.bytes_le + open(sys.argv[1], "rb").read()
rom = E.image_load_event(E.dp_pci_root() + E.dp_pci(3) + E.END_ENTIRE)
log = E.tcg_specid() + E.tcg_event2(7, 0x80000001, E.variable_data(E.GLOBAL_GUID, "SecureBoot", b"\1"))
log += E.tcg_event2(7, 4, b"\0\0\0\0") + E.tcg_event2(7, 0x800000e0, E.variable_data(E.SECURITY_GUID, "db", sigdata))
log += E.tcg_event2(2, 0x80000004, rom)
open(sys.argv[2], "wb").write(log)
PY
}
# root DIR LOG: the QEMU store's variables and a log
root() {
    mkdir -p "$1/sys/firmware/efi/efivars" "$1/sys/kernel/security/tpm0"
    cp "$Q"/efivars/* "$1/sys/firmware/efi/efivars/"
    [ -n "$2" ] && cp "$2" "$1/sys/kernel/security/tpm0/binary_bios_measurements"
}
ro() { "$KTRUST" audit --root "$1" --json | jq -c 'select(.type == "rollover")'; }
orom() { ro "$1" | jq -r '.findings[] | select(.id == "option_roms") | .what'; }

mklog ca2011.der rom.bin; root r-rom rom.bin
expect_eq "$(ro r-rom | jq -c '.uefi_ca_2011_authorized')" \
    '{"any":true,"driver_or_option_rom":true,"image":"PciRoot(0x0)/Pci(0x3,0x0)"}' "an option ROM under the 2011 CA"
expect_match "$(orom r-rom)" 'authorized a driver or option ROM at the last boot \(PciRoot\(0x0\)/Pci\(0x3,0x0\)\): this machine depends on it' \
    "the finding names it"
root r-ovmf "$Q/eventlog.bin"
expect_eq "$(ro r-ovmf | jq -r '.uefi_ca_2011_authorized | [.any, .driver_or_option_rom] | @csv')" 'true,false' \
    "the real OVMF boot: the 2011 CA verified an application, no option ROM"
expect_match "$(orom r-ovmf)" 'no driver or option ROM it authorized at the last boot \(its first image was .*BOOTX64.EFI' \
    "the finding says so, naming shim"
mklog fake.der fake.bin; root r-fake fake.bin
expect_eq "$(ro r-fake | jq -c '.uefi_ca_2011_authorized.any')" false "a look-alike 2011 CA is not the 2011 CA"
printf 'garbage' > bad.bin; root r-bad bad.bin
expect_match "$(orom r-bad)" 'could not be read' "a log that does not parse is said"
root r-none ""
expect_eq "$(ro r-none | jq -c '.uefi_ca_2011_authorized')" null "no log: unknown"
finish
