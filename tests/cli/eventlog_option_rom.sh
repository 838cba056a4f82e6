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
PYTHONPATH="$KT_SRC/tests/fixtures" python3 - <<'PY'
import efi as E
sigdata = E.MICROSOFT_GUID.bytes_le + open("ca2011.der", "rb").read()
# UEFI_IMAGE_LOAD_EVENT of a PCI option ROM: PciRoot(0x0)/Pci(0x3,0x0), no file
img = E.image_load_event(E.dp_pci_root() + E.dp_pci(3) + E.END_ENTIRE)
log = E.tcg_specid() + E.tcg_event2(7, 0x80000001, E.variable_data(E.GLOBAL_GUID, "SecureBoot", b"\1"))
log += E.tcg_event2(7, 4, b"\0\0\0\0") + E.tcg_event2(7, 0x800000e0, E.variable_data(E.SECURITY_GUID, "db", sigdata))
log += E.tcg_event2(2, 0x80000004, img)
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
PYTHONPATH="$KT_SRC/tests/fixtures" python3 - "$CORPUS" <<'PY'
import hashlib, sys
import efi as E
C = sys.argv[1]
def ev(pcr, t, data, dig=None):
    return E.tcg_event2(pcr, t, data, dig and [(E.TPM_ALG_SHA256, dig)])
def var(name, data):
    return E.variable_data(E.SECURITY_GUID, name, data)
MS = E.MICROSOFT_GUID.bytes_le
def esl(der): return E.esl_x509(der, E.MICROSOFT_GUID)
ca11 = open("ca2011.der", "rb").read()
ca23 = open(C + "/peers/secureboot-objects/certs/microsoft-uefi-ca-2023.der", "rb").read()
rom = E.dp_pci_root() + E.dp_pci(3) + E.END_ENTIRE
shim = E.dp_file("\\EFI\\BOOT\\BOOTX64.EFI") + E.END_ENTIRE
img = E.image_load_event
shim_digest = hashlib.sha256(b"not checked").digest()
log = E.tcg_specid() + ev(7, 0x80000001, var("db", esl(ca11)))
log += ev(7, 4, b"\0\0\0\0") + ev(7, 0x800000e0, var("db", MS + ca11)) + ev(2, 0x80000004, img(rom))
log += ev(4, 0x80000003, img(shim), shim_digest)
open("rom-shim.bin", "wb").write(log)
# the oracle: db = the 2023 CA only; the ROM's 2011 authority kept; a new 2023 authority before shim
p = bytes(32)
for d in (var("db", esl(ca23)), None, var("db", MS + ca11), var("db", MS + ca23)):
    dig = hashlib.sha256(b"\0\0\0\0").digest() if d is None else hashlib.sha256(d).digest()
    p = hashlib.sha256(p + dig).digest()
open("want", "w").write(p.hex() + "\n")
open("db.var", "wb").write(E.efivar(0x27, esl(ca23)))
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
