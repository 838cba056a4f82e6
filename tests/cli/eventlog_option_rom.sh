#!/bin/bash
# ktrust eventlog (issues #26, #25): an option ROM authorized by Microsoft
# Corporation UEFI CA 2011 -- a db authority event followed by an
# EV_EFI_BOOT_SERVICES_DRIVER -- is named as such (text and the JSON authority
# object audit reads), and --predict keeps that authority (the ROM is not on
# the ESP) and says why.
. "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T"
openssl x509 -in "$CORPUS/trust/microsoft-uefi-ca-2011.pem" -outform DER -out ca2011.der
python3 - <<'PY'
import struct, uuid, hashlib
def specid():
    body = b"Spec ID Event03\0" + struct.pack("<IBBBBI", 0, 0, 2, 0, 2, 1) + struct.pack("<HH", 0x0b, 32) + b"\0"
    return struct.pack("<II", 0, 3) + b"\0" * 20 + struct.pack("<I", len(body)) + body
def ev(pcr, t, data):
    return struct.pack("<IIIH", pcr, t, 1, 0x0b) + hashlib.sha256(data).digest() + struct.pack("<I", len(data)) + data
def var(guid, name, data):
    return uuid.UUID(guid).bytes_le + struct.pack("<QQ", len(name), len(data)) + name.encode("utf-16-le") + data
db = "d719b2cb-3d3a-4596-a3bc-dad00e67656f"
sigdata = uuid.UUID("77fa9abd-0359-4d32-bd60-28f4e78f784b").bytes_le + open("ca2011.der", "rb").read()
# UEFI_IMAGE_LOAD_EVENT of a PCI option ROM: PciRoot(0x0)/Pci(0x3,0x0), no file
dp = bytes([2, 1, 12, 0]) + struct.pack("<II", 0x0a0341d0, 0) + bytes([1, 1, 6, 0, 0, 3]) + bytes([0x7f, 0xff, 4, 0])
img = struct.pack("<QQQQ", 0x1000, 0x8000, 0, len(dp)) + dp
log = specid() + ev(7, 0x80000001, var("8be4df61-93ca-11d2-aa0d-00e098032b8c", "SecureBoot", b"\1"))
log += ev(7, 4, b"\0\0\0\0") + ev(7, 0x800000e0, var(db, "db", sigdata)) + ev(2, 0x80000004, img)
open("rom.bin", "wb").write(log)
PY
out=$("$KTRUST" eventlog rom.bin); rc=$?
expect_eq "$rc" 0 "exit 0"
expect_match "$out" '#4 pcr 2 EV_EFI_BOOT_SERVICES_DRIVER: PciRoot\(0x0\)/Pci\(0x3,0x0\)' "the option ROM's device path"
expect_match "$out" 'first image after it: #4 EV_EFI_BOOT_SERVICES_DRIVER PciRoot\(0x0\)/Pci\(0x3,0x0\)' "PCR 7 explained: it authorized the driver"
expect_match "$out" 'Microsoft Corporation UEFI CA 2011 authorized it' "the 2011 CA is named"
auth=$("$KTRUST" eventlog rom.bin --json | grep '"type":"authority"')
expect_match "$auth" '"source":"firmware_db".*"ms_uefi_ca_2011":true.*"image":"PciRoot\(0x0\)/Pci\(0x3,0x0\)","image_type":"EV_EFI_BOOT_SERVICES_DRIVER"' "JSON: what #25's option-ROM check reads"
mkdir esp
out=$("$KTRUST" eventlog rom.bin --predict --esp esp --efivars esp)
expect_match "$out" '#3 EV_EFI_VARIABLE_AUTHORITY db: kept \(unknown\): it authorized a driver or option ROM \(not on the ESP\)' "--predict keeps the option ROM's authority, and says why"
finish
