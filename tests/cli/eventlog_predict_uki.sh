#!/bin/bash
# eventlog --predict --uki: PCR 11's recomputer.  A log whose PCR 11 holds
# systemd-stub's EV_IPL events for UKI A (each measured section's name with
# its NUL, then its contents, as the stub logs them; built with efi.py from
# the parts, not from ktrust) predicted with UKI B: B's events (one section
# more: inserted after the last; one fewer: dropped), and the predicted
# PCR 11 equals what uki show gives for B before any phase (itself checked
# against systemd-measure in uki_pcr11.sh); with A itself nothing changes.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup python3
printf 'ID=debian\n' >osrel
printf 'root=/dev/vda1' >cmdline
printf 'root=/dev/vda1 init=/bin/sh' >cmdline2
head -c 5000 /dev/urandom >initrd
"$MK" A.efi .linux=$K .osrel=osrel .cmdline=cmdline >/dev/null || exit $?
"$MK" B.efi .linux=$K .osrel=osrel .cmdline=cmdline2 .initrd=initrd >/dev/null
"$MK" C.efi .linux=$K .cmdline=cmdline >/dev/null
PYTHONPATH=$KT_SRC/tests/fixtures python3 - "$K" <<'PY'
import efi as E, hashlib, sys
algs = ((E.TPM_ALG_SHA1, 20), (E.TPM_ALG_SHA256, 32))
def ev(pcr, etype, data, payload):
    return E.tcg_event2(pcr, etype, data, [(E.TPM_ALG_SHA1, hashlib.sha1(payload).digest()),
                                           (E.TPM_ALG_SHA256, hashlib.sha256(payload).digest())])
log = E.tcg_specid(algs) + ev(4, 4, bytes(4), bytes(4))
for name, path in ((".linux", sys.argv[1]), (".osrel", "osrel"), (".cmdline", "cmdline")):
    desc = (name + "\0").encode("utf-16-le")
    log += ev(11, 0xd, desc, name.encode() + b"\0") + ev(11, 0xd, desc, open(path, "rb").read())
open("uki.log", "wb").write(log)
PY
stub() { "$KTRUST" uki show --json "$1" | jq -r '.pcr11.sha256.stub'; }
pred() { "$KTRUST" eventlog uki.log --predict --uki "$1" --json |
             jq -r 'select(.type == "prediction" and .pcr == 11 and .bank == "sha256") | "\(.now) \(.predicted) \(.changes)"'; }
a=$(stub A.efi)
expect_eq "$(pred A.efi)" "$a $a false" "the booted UKI: PCR 11 now = A's, unchanged"
expect_eq "$(pred B.efi)" "$a $(stub B.efi) true" "UKI B: PCR 11 predicted = B's"
expect_eq "$(pred C.efi)" "$a $(stub C.efi) true" "UKI C (no .osrel): PCR 11 predicted = C's"
t=$("$KTRUST" eventlog uki.log --predict --uki B.efi)
expect_match "$t" "NEW EV_IPL after #7: .initrd: its name" "B's .initrd: two events inserted"
expect_match "$t" "#7 EV_IPL: CHANGES: .cmdline: its contents" "B's .cmdline changes"
expect_match "$t" "PCR 11 changes" "what breaks: PCR 11"
n=$("$KTRUST" eventlog uki.log --predict --uki C.efi --json |
    jq -s '[.[] | select(.type == "predicted_event" and .pcr == 11)] | length')
expect_eq "$n" 4 "C: four PCR 11 events (two dropped)"
expect_exit 64 "--uki needs --predict" -- "$KTRUST" eventlog uki.log --uki A.efi
finish
