#!/bin/bash
# eventlog --predict --uki with systemd-boot: PCR 12's recomputer
# (predict_cmdline.c).  A log (efi.py, not ktrust) whose PCR 4 starts
# \EFI\BOOT\BOOTX64.EFI and whose PCR 12 holds one EV_IPL event of a
# command line (UTF-16 with its NUL, as systemd-boot 252 logs the options
# it passes); the ESP's BOOTX64.EFI is Debian's systemd-bootx64.efi.
#   - a Type #2 UKI whose .cmdline is that command line: the event is
#     recomputed, the same (systemd-boot measures .cmdline, newline chomped);
#   - another .cmdline: it changes, to the digest of the new text;
#   - a UKI without .cmdline started by a Type #1 entry (--uki-options):
#     two events, systemd-boot's and the stub's (which takes them);
#   - a credential in loader/credentials: one more event, its contents;
#   - BOOTX64.EFI not systemd-boot (the UKI started by the firmware): kept.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup python3
SDBOOT=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
[ -f $SDBOOT ] || { echo "skipped: $SDBOOT (systemd-boot-efi) missing"; exit 77; }
printf 'ID=debian\n' >osrel
printf 'console=ttyS0 quiet\n' >cmdline
printf 'console=ttyS0 other' >cmdline2
"$MK" A.efi .linux=$K .osrel=osrel .cmdline=cmdline >/dev/null || exit $?
"$MK" B.efi .linux=$K .osrel=osrel .cmdline=cmdline2 >/dev/null
"$MK" C.efi .linux=$K .osrel=osrel >/dev/null
mkdir -p esp/EFI/BOOT esp/EFI/Linux
cp $SDBOOT esp/EFI/BOOT/BOOTX64.EFI
PYTHONPATH=$KT_SRC/tests/fixtures python3 - <<'PY'
import efi as E, hashlib
algs = ((E.TPM_ALG_SHA1, 20), (E.TPM_ALG_SHA256, 32))
def ev(pcr, etype, data, payload):
    return E.tcg_event2(pcr, etype, data, [(E.TPM_ALG_SHA1, hashlib.sha1(payload).digest()),
                                           (E.TPM_ALG_SHA256, hashlib.sha256(payload).digest())])
app = E.image_load_event(E.dp_file("\\EFI\\BOOT\\BOOTX64.EFI"))
opts = "console=ttyS0 quiet\0".encode("utf-16-le")
log = E.tcg_specid(algs) + ev(4, 0x80000003, app, b"sdboot") + ev(12, 0xd, opts, opts)
open("sd.log", "wb").write(log)
PY
u16sha() { printf '%s\0' "$1" | iconv -t UTF-16LE | sha256sum | cut -d' ' -f1; }
ext() { python3 -c 'import hashlib,sys
v = bytes(32)
for d in sys.argv[1:]: v = hashlib.sha256(v + bytes.fromhex(d)).digest()
print(v.hex())' "$@"; }
pred() { "$KTRUST" eventlog sd.log --predict --esp esp --uki "$@" --json |
             jq -r 'select(.type == "prediction" and .pcr == 12 and .bank == "sha256") | .predicted'; }
evs() { "$KTRUST" eventlog sd.log --predict --esp esp --uki "$@" --json |
            jq -rs '[.[] | select(.type == "predicted_event" and .pcr == 12) | .prediction] | join(" ")'; }
now=$(ext "$(u16sha 'console=ttyS0 quiet')")
expect_eq "$(pred A.efi)" "$now" "Type #2 UKI, its .cmdline (newline chomped) = the logged options"
expect_eq "$(evs A.efi)" "same" "the event recomputed, the same"
expect_eq "$(pred B.efi)" "$(ext "$(u16sha 'console=ttyS0 other')")" "another .cmdline: its digest"
two=$(u16sha 'console=ttyS0 panic=-1')
expect_eq "$(pred C.efi --uki-options 'console=ttyS0 panic=-1')" "$(ext "$two" "$two")" \
    "no .cmdline, a Type #1 entry's options: systemd-boot's and the stub's events"
expect_eq "$(pred A.efi --uki-options 'console=ttyS0 panic=-1')" "$(ext "$two")" \
    "with .cmdline and Secure Boot: the stub ignores the options (systemd-boot's event only)"
mkdir -p esp/loader/credentials
printf 'secret' >esp/loader/credentials/a.cred
expect_eq "$(pred A.efi)" "$(ext "$(u16sha 'console=ttyS0 quiet')" "$(printf secret | sha256sum | cut -d' ' -f1)")" \
    "a credential of loader/credentials: one more event, its contents"
expect_eq "$("$KTRUST" eventlog sd.log --predict --esp esp --uki A.efi --predict-format pcrlock |
    jq -c '[.records[].pcr] | group_by(.) | map([.[0], length])')" "[[4,1],[11,6],[12,2]]" \
    "pcrlock with --uki: the UKI's components, PCR 4, 11 (3 sections) and 12 records"
expect_match "$("$KTRUST" eventlog sd.log --predict --esp esp --uki A.efi --predict-format yaml)" \
    "12: 0x$(ext "$(u16sha 'console=ttyS0 quiet')" "$(printf secret | sha256sum | cut -d' ' -f1)" | tr a-f A-F)" \
    "yaml: PCR 12 as tpm2_pcrread prints it"
# No --uki: the UKI and options of the entry systemd-boot boots next
# (kt_sdboot_next_uki), with the snapshot's LoaderEntryDefault.  Two Type #1
# entries starting UKIs without .cmdline: z.conf first in the menu (ids
# downwards), LoaderEntryDefault picks a.conf, the second.
rm -r esp/loader/credentials
mkdir -p esp/loader/entries vars
cp C.efi esp/c1.efi
cp C.efi esp/c2.efi
printf 'title Z\nlinux /c1.efi\noptions console=ttyS0 first\n' >esp/loader/entries/z.conf
printf 'title A\nlinux /c2.efi\noptions console=ttyS0\noptions second\n' >esp/loader/entries/a.conf
auto() { "$KTRUST" eventlog sd.log --predict --esp esp "$@" --json |
             jq -r 'select(.type == "prediction" and (.pcr == 11 or .pcr == 12) and .bank == "sha256") |
                    .predicted' | tr '\n' ' '; }
pcr11=$("$KTRUST" eventlog sd.log --predict --esp esp --uki C.efi --json |
        jq -r 'select(.type == "prediction" and .pcr == 11 and .bank == "sha256") | .predicted')
first=$(u16sha 'console=ttyS0 first')
second=$(u16sha 'console=ttyS0 second')
expect_eq "$(auto)" "$pcr11 $(ext "$first" "$first") " \
    "no --uki, no variables: the first entry's UKI (PCR 11) and options (PCR 12)"
efi str16 --efivar 7 a.conf -o vars/LoaderEntryDefault-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f
expect_eq "$(auto --efivars vars)" "$pcr11 $(ext "$second" "$second") " \
    "LoaderEntryDefault picks the second entry: its options (two lines joined) feed PCR 12"
expect_match "$("$KTRUST" eventlog sd.log --predict --esp esp --efivars vars)" \
    "UKI: esp/c2.efi, of systemd-boot's next entry a.conf \(efivar\), options \"console=ttyS0 second\"" \
    "text: the UKI and options predicted from, and why"
expect_match "$("$KTRUST" eventlog sd.log --predict --esp esp --efivars vars)" \
    "options \"console=ttyS0 second\"; on the ESP: /c2.efi" "text: the UKI's path on the ESP"
picked() { "$KTRUST" eventlog sd.log --predict --esp esp "$@" --json |
               jq -r 'select(.type == "predicted_uki") | "\(.uki) \(.entry) \(.rule) \(.options)"'; }
expect_eq "$(picked --efivars vars)" "/c2.efi a.conf efivar console=ttyS0 second" \
    "JSON: the UKI on the ESP, its entry, the rule, the options"
expect_eq "$(picked)" "/c1.efi z.conf first console=ttyS0 first" "JSON: no variables, the first entry"
expect_eq "$(picked --efivars vars --uki C.efi --uki-options 'console=ttyS0 panic=-1')" \
    "null null given console=ttyS0 panic=-1" "JSON: --uki given (not on the ESP), its options"
expect_eq "$(picked --efivars vars --uki esp/c1.efi)" "/c1.efi null given null" "JSON: --uki of a file on the ESP"
expect_eq "$(auto --efivars vars --uki C.efi --uki-options 'console=ttyS0 panic=-1')" \
    "$pcr11 $(ext "$two" "$two") " "--uki and --uki-options given: they win over the next entry"
expect_eq "$("$KTRUST" eventlog sd.log --predict --esp esp --efivars vars --predict-format pcrlock |
    jq -c "[.records[].pcr] | unique")" "[4,11,12]" "pcrlock: the next entry's UKI's components"
rm -r esp/loader vars esp/c1.efi esp/c2.efi
cp A.efi esp/EFI/BOOT/BOOTX64.EFI
expect_eq "$(evs B.efi)" "kept_unknown" "no systemd-boot among the boot applications: kept"
expect_exit 64 "--uki-options needs --uki" -- "$KTRUST" eventlog sd.log --predict --uki-options x
finish
