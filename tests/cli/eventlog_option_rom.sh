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

# the option ROM, then shim (no authority of its own: the 2011 CA was logged already)
python3 - "$CORPUS" <<'PY'
import struct, uuid, hashlib, sys
C = sys.argv[1]
def specid():
    body = b"Spec ID Event03\0" + struct.pack("<IBBBBI", 0, 0, 2, 0, 2, 1) + struct.pack("<HH", 0x0b, 32) + b"\0"
    return struct.pack("<II", 0, 3) + b"\0" * 20 + struct.pack("<I", len(body)) + body
def ev(pcr, t, data, dig=None):
    return struct.pack("<IIIH", pcr, t, 1, 0x0b) + (dig or hashlib.sha256(data).digest()) + struct.pack("<I", len(data)) + data
def var(guid, name, data):
    return uuid.UUID(guid).bytes_le + struct.pack("<QQ", len(name), len(data)) + name.encode("utf-16-le") + data
DB = "d719b2cb-3d3a-4596-a3bc-dad00e67656f"
MS = uuid.UUID("77fa9abd-0359-4d32-bd60-28f4e78f784b").bytes_le
X509 = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072").bytes_le
def esl(der): return X509 + struct.pack("<III", 28 + 16 + len(der), 0, 16 + len(der)) + MS + der
ca11 = open("ca2011.der", "rb").read()
ca23 = open(C + "/peers/secureboot-objects/certs/microsoft-uefi-ca-2023.der", "rb").read()
rom = bytes([2, 1, 12, 0]) + struct.pack("<II", 0x0a0341d0, 0) + bytes([1, 1, 6, 0, 0, 3]) + bytes([0x7f, 0xff, 4, 0])
fp = "\\EFI\\BOOT\\BOOTX64.EFI".encode("utf-16-le") + b"\0\0"
shim = bytes([4, 4]) + struct.pack("<H", 4 + len(fp)) + fp + bytes([0x7f, 0xff, 4, 0])
img = lambda dp: struct.pack("<QQQQ", 0x1000, 0x8000, 0, len(dp)) + dp
shim_digest = hashlib.sha256(b"not checked").digest()
log = specid() + ev(7, 0x80000001, var(DB, "db", esl(ca11)))
log += ev(7, 4, b"\0\0\0\0") + ev(7, 0x800000e0, var(DB, "db", MS + ca11)) + ev(2, 0x80000004, img(rom))
log += ev(4, 0x80000003, img(shim), shim_digest)
open("rom-shim.bin", "wb").write(log)
# the oracle: db = the 2023 CA only; the ROM's 2011 authority kept; a new 2023 authority before shim
p = bytes(32)
for d in (var(DB, "db", esl(ca23)), None, var(DB, "db", MS + ca11), var(DB, "db", MS + ca23)):
    dig = hashlib.sha256(b"\0\0\0\0").digest() if d is None else hashlib.sha256(d).digest()
    p = hashlib.sha256(p + dig).digest()
open("want", "w").write(p.hex() + "\n")
open("db.var", "wb").write(b"\x27\0\0\0" + esl(ca23))
PY
mkdir -p esp2/EFI/BOOT vars2
cp "$CORPUS/debian/shimx64.efi.signed" esp2/EFI/BOOT/BOOTX64.EFI
cp db.var vars2/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f
json=$("$KTRUST" eventlog rom-shim.bin --predict --json --efivars vars2 --esp esp2)
expect_match "$json" '"type":"predicted_event","event":null,"pcr":7,"event_type":"EV_EFI_VARIABLE_AUTHORITY","variable":"db","prediction":"new","before_event":5' "a new authority event before shim"
expect_eq "$(printf '%s\n' "$json" | python3 -c '
import sys, json
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "prediction" and d["pcr"] == 7: print(d["predicted"])')" "$(cat want)" "PCR 7 with the inserted event: the oracle's"
out=$("$KTRUST" eventlog rom-shim.bin --predict --efivars vars2 --esp esp2)
expect_match "$out" 'NEW EV_EFI_VARIABLE_AUTHORITY db before #5: firmware would log the db entry that verifies .*BOOTX64.EFI: Microsoft UEFI CA 2023' "text: the new event, said"
finish
