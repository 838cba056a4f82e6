#!/bin/bash
# ktrust unseal-check (issue #33) against the real sealing tools: a software
# TPM (swtpm) brought to a real boot's PCR 4 and 7 (the OVMF+swtpm boot of
# the corpus: its logged digests extended), a LUKS2 image file enrolled with
# systemd-cryptenroll (PCR 7; PCR 7 + PIN; PCRs 4+7) and clevis (PCR 7 in its
# default sha1 bank; PCRs 4,7 in sha256).  ktrust's recomputed policy digest
# must equal every token's (unseals today).  Then state B (one more dbx hash):
# ktrust's verdict from A's log plus B's variables must match reality on a
# TPM restarted and extended with B's digests (computed here independently,
# hashlib over UEFI_VARIABLE_DATA): `clevis luks pass` fails for the old
# clevis bindings, tpm2-tools' trial PolicyPCR session gives another digest
# than systemd's tokens; the clevis re-seal ktrust prints, run before the
# change, unseals after it.
. "$(dirname "$0")/../lib/common.sh"
corpus
for t in swtpm tpm2_pcrextend tpm2_eventlog systemd-cryptenroll clevis cryptsetup; do
    command -v "$t" >/dev/null || { [ -n "${CI:-}" ] && { echo "CI: $t missing" >&2; exit 1; }
                                     echo "skipped: $t missing"; exit 77; }
done
[ -x /usr/bin/clevis-encrypt-tpm2 ] || { [ -n "${CI:-}" ] && exit 1; echo "skipped: clevis-tpm2 missing"; exit 77; }
cd "$T"
O=$CORPUS/peers/ovmf-swtpm-boot
LOG=$O/eventlog.bin
tpm2_eventlog "$LOG" >log.yaml 2>/dev/null
mkdir -p esp/EFI/BOOT
cp "$CORPUS/debian/shimx64.efi.signed" esp/EFI/BOOT/BOOTX64.EFI

. "$KT_SRC/tests/lib/swtpm.sh"
# the TPM (re)started, as at a boot (swtpm.sh), then PCR 4 and 7 replay the
# digests on stdin ("PCR SHA1 SHA256" lines)
swtpm_boot() {
    swtpm_fresh
    while read -r pcr s1 s256; do
        tpm2_pcrextend "$pcr:sha1=$s1,sha256=$s256" || bad "tpm2_pcrextend $pcr"
    done
}
# the logged digests of PCR 4 and 7; "N FILE": event N's digests are those of
# UEFI_VARIABLE_DATA(EFI_IMAGE_SECURITY_DATABASE_GUID, dbx, FILE); "app N SHA1
# SHA256": event N's are those
digests() { python3 - "$@" <<'PY'
import sys, re, hashlib, uuid, struct
ev = []; cur = None; alg = None
for l in open("log.yaml"):
    s = l.strip()
    m = re.match(r"- EventNum: (\d+)", s)
    if m: cur = {"n": int(m.group(1)), "d": {}}; ev.append(cur); continue
    if cur is None: continue
    if s.startswith("PCRIndex:"): cur["pcr"] = int(s.split(":")[1])
    elif s.startswith("EventType:") and "type" not in cur: cur["type"] = s.split(":")[1].strip()
    elif s.startswith("- AlgorithmId:"): alg = s.split(":")[1].strip()
    elif s.startswith("Digest:") and alg: cur["d"][alg] = s.split('"')[1]
repl = {}
if len(sys.argv) > 1 and sys.argv[1] == "app":
    repl[int(sys.argv[2])] = {"sha1": sys.argv[3], "sha256": sys.argv[4]}
elif len(sys.argv) > 2:
    data = open(sys.argv[2], "rb").read()
    blob = (uuid.UUID("d719b2cb-3d3a-4596-a3bc-dad00e67656f").bytes_le +
            struct.pack("<QQ", 3, len(data)) + "dbx".encode("utf-16-le") + data)
    repl[int(sys.argv[1])] = {a: hashlib.new(a, blob).hexdigest() for a in ("sha1", "sha256")}
for e in ev:
    if e.get("pcr") not in (4, 7) or e.get("type") == "EV_NO_ACTION": continue
    d = repl.get(e["n"], e["d"])
    print(e["pcr"], d["sha1"], d["sha256"])
PY
}
swtpm_boot < <(digests)
tpm2_pcrread sha1:4,7+sha256:4,7 -o /dev/null >pcrs.yaml || bad "tpm2_pcrread"

# the image and its enrolments (systemd 252 leaves sessions behind: flushed)
flush() { tpm_flush; }
truncate -s 32M img
head -c 32 /dev/urandom >key && chmod 600 key
cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 img key || bad "luksFormat"
enroll() { systemd-cryptenroll --unlock-key-file=key --tpm2-device="$TCTI" "$@" img >/dev/null 2>&1 ||
           bad "systemd-cryptenroll $*"; flush; }
enroll --tpm2-pcrs=7
NEWPIN=123456 enroll --tpm2-pcrs=7 --tpm2-with-pin=yes
enroll --tpm2-pcrs=4+7
clevis luks bind -y -k key -d img tpm2 '{"pcr_ids":"7"}' || bad "clevis bind pcr 7"
clevis luks bind -y -k key -d img tpm2 '{"pcr_bank":"sha256","pcr_ids":"4,7"}' || bad "clevis bind pcr 4,7"
flush

field() { python3 -c '
import sys, json
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "token": print(d["tool"], d["kind"], ",".join(map(str, d["pcrs"])), d["bank"], d[sys.argv[1]])' "$1"; }
# 1. today: the digest ktrust recomputes equals each token's, from the TPM's
#    values and from the log's replay
want="systemd-tpm2 pcr 7 sha256 True
systemd-tpm2 pin+pcr 7 sha256 True
systemd-tpm2 pcr 4,7 sha256 True
clevis pcr 7 sha1 True
clevis pcr 4,7 sha256 True"
expect_eq "$("$KTRUST" unseal-check --pcrs pcrs.yaml img --json | field unseals_today)" "$want" \
    "every enrolment's policy digest recomputed from the TPM's PCRs (tpm2_pcrread)"
expect_eq "$("$KTRUST" unseal-check --eventlog "$LOG" img --json | field unseals_today)" "$want" \
    "every enrolment's policy digest recomputed from the event log's replay"
expect_exit 0 "today: every token unseals" -- "$KTRUST" unseal-check --eventlog "$LOG" img
# the digest itself is the token's
tok=$(cryptsetup luksDump --dump-json-metadata img | python3 -c '
import sys, json
print(" ".join(t["tpm2-policy-hash"] for t in json.load(sys.stdin)["tokens"].values() if t["type"] == "systemd-tpm2"))')
got=$("$KTRUST" unseal-check --eventlog "$LOG" img --json | python3 -c '
import sys, json
print(" ".join(d["policy_digest"] for d in map(json.loads, sys.stdin) if d.get("tool") == "systemd-tpm2"))')
expect_eq "$got" "$tok" "systemd-tpm2 tokens: tpm2-policy-hash read through libcryptsetup"

# 2. a PCR value that differs today: the next boot already asks for the recovery key
sed 's/^\(    7 : 0x\)\(.\)/\1F/' pcrs.yaml >other.yaml
out=$("$KTRUST" unseal-check --pcrs other.yaml img)
expect_match "$out" 'today: does NOT unseal .*the next boot already asks for the recovery key' "a mismatch today is said first"
expect_exit 5 "a mismatch today: exit 5" -- "$KTRUST" unseal-check --pcrs other.yaml img

# 3. state B: one more dbx hash (the variables after the change)
cp -r "$O/efivars" vars && chmod -R u+w vars
f=$(ls vars/dbx-*)
python3 -c '
import uuid, struct, hashlib, sys
t = uuid.UUID("c1c41626-504c-4092-aca9-41f936934328").bytes_le
o = uuid.UUID("77fa9abd-0359-4d32-bd60-28f4e78f784b").bytes_le
sys.stdout.buffer.write(t + struct.pack("<III", 28 + 48, 0, 48) + o + hashlib.sha256(b"one more revoked image").digest())' >>"$f"
tail -c +5 "$f" >dbx.new
B=$("$KTRUST" unseal-check --pcrs pcrs.yaml --eventlog "$LOG" --efivars vars --esp esp img --json)
# --pcrlock: the next boot's record set for systemd-pcrlock (checked against state B's TPM below)
"$KTRUST" unseal-check --pcrs pcrs.yaml --eventlog "$LOG" --efivars vars --esp esp img --pcrlock next.pcrlock >pcrlock.txt
expect_match "$(cat pcrlock.txt)" 'systemd-pcrlock make-policy --pcr=7 && systemd-cryptenroll img --tpm2-device=auto --tpm2-pcrlock=' "the pcrlock re-seal for systemd tokens"
expect_match "$(cat pcrlock.txt)" 'then after the first boot with the change: systemd-cryptenroll img --wipe-slot=' "the pcrlock re-seal: what to wipe afterwards"
expect_eq "$(printf '%s\n' "$B" | field unseals_after)" "systemd-tpm2 pcr 7 sha256 False
systemd-tpm2 pin+pcr 7 sha256 False
systemd-tpm2 pcr 4,7 sha256 False
clevis pcr 7 sha1 False
clevis pcr 4,7 sha256 False" "dbx + one hash: no token unseals after it"
expect_eq "$(printf '%s\n' "$B" | field changed_pcrs | awk '{print $5}' | sort -u)" "[7]" "only PCR 7 changes"
expect_exit 5 "a token that breaks: exit 5" -- "$KTRUST" unseal-check --pcrs pcrs.yaml --eventlog "$LOG" --efivars vars --esp esp img
text=$("$KTRUST" unseal-check --pcrs pcrs.yaml --eventlog "$LOG" --efivars vars --esp esp img)
expect_match "$text" 'systemd-cryptenroll img --tpm2-device=auto --tpm2-pcrs=7:sha256=[0-9a-f]{64} \(systemd 255' "systemd: the 255+ re-seal with the PCR value"
expect_match "$text" 'systemd-cryptenroll img --wipe-slot=tpm2 --tpm2-device=auto --tpm2-pcrs=7' "systemd 252: the recovery-key fallback"
# the clevis re-seals ktrust prints, run now (state A), before the change
printf '%s\n' "$B" | python3 -c '
import sys, json
for d in map(json.loads, sys.stdin):
    if d.get("tool") == "clevis":
        for r in d["reseal"] or []:
            if r["how"] == "clevis_pcr_digest": print(r["command"])' >reseal.sh
expect_eq "$(wc -l <reseal.sh)" 2 "a clevis re-seal per clevis token"
sed -i 's/^clevis luks bind /clevis luks bind -y -k key /' reseal.sh
bash reseal.sh || bad "the printed clevis re-seal does not run"
flush
slots=$(cryptsetup luksDump --dump-json-metadata img | python3 -c '
import sys, json
print(" ".join(t["keyslots"][0] for t in json.load(sys.stdin)["tokens"].values() if t["type"] == "clevis"))')
CL=($slots)
set -- $slots
[ $# = 4 ] && ok || bad "4 clevis bindings after the re-seal, got: $slots"
# before the change: the old bindings unseal, the new ones (bound to B) do not
flush; clevis luks pass -d img -s "$1" >/dev/null 2>&1 && ok || bad "state A: the old clevis binding unseals"
flush; clevis luks pass -d img -s "$3" >/dev/null 2>&1 && bad "state A: the re-seal to B already unseals" || ok

# the change: a TPM that booted B (the dbx event's digests recomputed here)
n=$(python3 -c '
import re
n = None
for l in open("log.yaml"):
    m = re.match(r"\s*- EventNum: (\d+)", l)
    if m: n = int(m.group(1))
    if "UnicodeName: dbx" in l: print(n); break')
ndbx=$n
swtpm_boot < <(digests "$n" dbx.new)
for s in "$1" "$2"; do
    flush; clevis luks pass -d img -s "$s" >/dev/null 2>&1 && bad "state B: old clevis slot $s still unseals (ktrust said it would not)" || ok
done
for s in "$3" "$4"; do
    flush; clevis luks pass -d img -s "$s" >/dev/null 2>&1 && ok || bad "state B: the re-seal ktrust printed (slot $s) does not unseal"
done
# systemd's tokens: a trial PolicyPCR session on the TPM of state B gives another digest
flush; tpm2_startauthsession -S s.ctx >/dev/null 2>&1
tpm2_policypcr -S s.ctx -l sha256:7 -L trial.pol >/dev/null 2>&1
tpm2_flushcontext s.ctx >/dev/null 2>&1
trial=$(xxd -p -c 64 trial.pol)
set -- $tok
[ -n "$trial" ] && [ "$trial" != "$1" ] && ok || bad "state B: the TPM's own PolicyPCR digest ($trial) must differ from the token's"
# and ktrust, asked today on state B's TPM, agrees with the prediction
tpm2_pcrread sha1:4,7+sha256:4,7 >pcrsB.yaml
fold=$(python3 -c '
import json, sys, hashlib
v = {}
for r in json.load(open(sys.argv[1]))["records"]:
    for d in r["digests"]:
        if d["hashAlg"] == "sha256":
            v[r["pcr"]] = hashlib.sha256(v.get(r["pcr"], bytes(32)) + bytes.fromhex(d["digest"])).digest()
for p in sorted(v): print(p, v[p].hex())' next.pcrlock)
tpmB=$(awk '/sha256:/ {s = 1} s && $1 ~ /^[0-9]+$/ {print $1, tolower(substr($3, 3))}' pcrsB.yaml)
expect_eq "$fold" "$tpmB" "--pcrlock: the record set (PCRs 4 and 7, the tokens') extends to state B's PCRs on the TPM"
expect_eq "$("$KTRUST" unseal-check --pcrs pcrsB.yaml img --json | field unseals_today)" \
    "$(printf '%s\n' "$B" | field unseals_after)
clevis pcr 7 sha1 True
clevis pcr 4,7 sha256 True" "state B's TPM: the verdicts ktrust predicted, and the re-seals unseal"

# 4. state C: --install the same shim and a new loader (mmx64.efi, signed by the
#    same Debian CA as GRUB): PCR 4 changes (the loader's Authenticode digest,
#    from pesign here), PCR 7 does not (the same vendor-certificate authority)
swtpm_boot < <(digests)
NEWL=$CORPUS/debian/mmx64.efi.signed
# (a command that only reports writes nothing: no scratch ESP, TMPDIR unusable)
same=$(TMPDIR=/nonexistent/ktrust "$KTRUST" unseal-check --eventlog "$LOG" --install "$CORPUS/debian/shimx64.efi.signed" "$CORPUS/debian/grubx64.efi.signed" img --json)
expect_eq "$(printf '%s\n' "$same" | field changed_pcrs | awk '{print $5}' | sort -u)" "[]" "--install of the binaries the log shows: no PCR changes"
expect_eq "$(printf '%s\n' "$same" | field unseals_after)" "$(printf '%s\n' "$same" | field unseals_today)" "--install of the same binaries: every verdict stays today's"
C=$("$KTRUST" unseal-check --eventlog "$LOG" --install "$CORPUS/debian/shimx64.efi.signed" "$NEWL" img --json)
expect_eq "$(printf "%s\n" "$C" | field unseals_after | sed -n 1,5p)" "systemd-tpm2 pcr 7 sha256 True
systemd-tpm2 pin+pcr 7 sha256 True
systemd-tpm2 pcr 4,7 sha256 False
clevis pcr 7 sha1 True
clevis pcr 4,7 sha256 False" "--install NEW_SHIM NEW_LOADER: the tokens bound to PCR 4 break"
printf '%s\n' "$C" | python3 -c '
import sys, json
for d in map(json.loads, sys.stdin):
    if d.get("tool") == "clevis" and d["keyslot"] == int(sys.argv[1]):
        print([r["command"] for r in d["reseal"] if r["how"] == "clevis_pcr_digest"][0])' "${CL[1]}" >resealC.sh
sed -i 's/^clevis luks bind /clevis luks bind -y -k key /' resealC.sh
flush; bash resealC.sh || bad "the printed clevis re-seal for state C does not run"
flush
new=$(cryptsetup luksDump --dump-json-metadata img | python3 -c '
import sys, json
print(max(int(t["keyslots"][0]) for t in json.load(sys.stdin)["tokens"].values() if t["type"] == "clevis"))')
n=$(python3 -c '
import re
n = None; k = 0; pcr = None
for l in open("log.yaml"):
    m = re.match(r"\s*- EventNum: (\d+)", l)
    if m: n = int(m.group(1)); pcr = None
    if re.match(r"\s*PCRIndex: 4", l): pcr = 4
    if pcr == 4 and "EventType: EV_EFI_BOOT_SERVICES_APPLICATION" in l:
        k += 1
        if k == 2: print(n); break')
h1=$(pesign -h -d sha1 -i "$NEWL" | awk '{print $2}')
h256=$(pesign -h -d sha256 -i "$NEWL" | awk '{print $2}')
swtpm_boot < <(digests app "$n" "$h1" "$h256")
flush; clevis luks pass -d img -s "${CL[0]}" >/dev/null 2>&1 && ok || bad "state C: the clevis PCR 7 binding unseals (ktrust said it would)"
flush; clevis luks pass -d img -s "${CL[1]}" >/dev/null 2>&1 && bad "state C: the clevis PCR 4,7 binding still unseals (ktrust said it would not)" || ok
flush; clevis luks pass -d img -s "$new" >/dev/null 2>&1 && ok || bad "state C: the re-seal ktrust printed (slot $new) does not unseal"
trial() { flush; tpm2_startauthsession -S s.ctx >/dev/null 2>&1
          tpm2_policypcr -S s.ctx -l "$1" -L trial.pol >/dev/null 2>&1
          tpm2_flushcontext s.ctx >/dev/null 2>&1; xxd -p -c 64 trial.pol; }
set -- $tok
expect_eq "$(trial sha256:7)" "$1" "state C: the TPM's own PolicyPCR digest for PCR 7 is the token's (unseals)"
[ "$(trial sha256:4,7)" != "$3" ] && ok || bad "state C: the TPM's PolicyPCR digest for PCRs 4,7 must differ from the token's"

# 5. check-update --install gives unseal-check --install's verdict for each token
verdicts() { python3 -c '
import sys, json
for d in map(json.loads, sys.stdin):
    for t in ([d] if d.get("type") == "token" else d.get("sealed", [])):
        print(t["source"], t["token"], t["unseals_today"], t["unseals_after"], t["changed_pcrs"])'; }
U=$("$KTRUST" unseal-check --eventlog "$LOG" --efivars "$O/efivars" --install "$CORPUS/debian/shimx64.efi.signed" "$NEWL" img --json | verdicts)
[ "$(printf '%s\n' "$U" | grep -c False)" -ge 2 ] && ok || bad "unseal-check --install: tokens that break"
expect_eq "$("$KTRUST" check-update --install --efivars "$O/efivars" --eventlog "$LOG" --luks img \
    "$CORPUS/debian/shimx64.efi.signed" "$NEWL" --json | verdicts)" "$U" \
    "check-update --install NEW_SHIM NEW_LOADER: unseal-check's per-token verdicts"
out=$("$KTRUST" check-update --install --efivars "$O/efivars" --eventlog "$LOG" --luks img \
    "$CORPUS/debian/shimx64.efi.signed" "$NEWL")
expect_match "$out" 'sealed: img token [0-9]+ \(clevis, PCRs 4,7\): does NOT unseal \(PCR 4 changes\)' \
    "check-update --install: a line per token, with the PCRs that change"

# 6. plan-updates, per step: Microsoft's DBXUpdate2024 on the machine's variables
#    breaks every token bound to PCR 7; the TPM of the machine after it
#    (dbx as plan-updates --write-efivars writes it, its event's digests
#    recomputed here) agrees: clevis luks pass fails for the PCR 7 binding,
#    and the re-seal plan-updates printed, run before, unseals
DBXU=$CORPUS/peers/secureboot-objects/DBX/DBXUpdate2024.bin
P=$("$KTRUST" plan-updates --efivars "$O/efivars" --eventlog "$LOG" --luks img "$DBXU" --json)
expect_eq "$(printf '%s\n' "$P" | jq -r 'select(.type=="plan") | .steps[0].after.sealed[] |
    select(.keyslot == '"${CL[0]}"') | "\(.unseals_after) \(.changed_pcrs)"')" "false [7]" \
    "plan-updates: after the dbx step the clevis PCR 7 binding does NOT unseal (PCR 7 changes)"
expect_eq "$(printf '%s\n' "$P" | jq -r 'select(.type=="plan") | .seal_step')" 1 "plan-updates: the step that breaks a sealed key"
tokC=$(cryptsetup luksDump --dump-json-metadata img | python3 -c '
import sys, json
for k, t in json.load(sys.stdin)["tokens"].items():
    if t["type"] == "clevis" and t["keyslots"][0] == sys.argv[1]: print(k)' "${CL[0]}")
"$KTRUST" plan-updates --efivars "$O/efivars" --eventlog "$LOG" --luks img "$DBXU" --write-efivars planvars >plan.txt
expect_match "$(cat plan.txt)" "sealed: img token $tokC \\(clevis, PCRs 7\\): does NOT unseal \\(PCR 7 changes\\)" "plan-updates text: the step's line for the token"
awk -v t="img token $tokC:" '$0 ~ t {f = 1; next} f && /re-seal before the change:/ {sub(/.*re-seal before the change: /, ""); print; exit}' plan.txt >resealP.sh
sed -i 's/^clevis luks bind /clevis luks bind -y -k key /' resealP.sh
grep -q '^clevis luks bind -y -k key -d img tpm2 ' resealP.sh && ok || bad "plan-updates prints the clevis re-seal: $(cat resealP.sh)"
flush; bash resealP.sh || bad "the clevis re-seal plan-updates printed does not run"
flush
newP=$(cryptsetup luksDump --dump-json-metadata img | python3 -c '
import sys, json
print(max(int(t["keyslots"][0]) for t in json.load(sys.stdin)["tokens"].values() if t["type"] == "clevis"))')
tail -c +5 planvars/dbx-* >dbx.plan
swtpm_boot < <(digests "$ndbx" dbx.plan)
flush; clevis luks pass -d img -s "${CL[0]}" >/dev/null 2>&1 && bad "after DBXUpdate2024: the clevis PCR 7 binding still unseals (plan-updates said it would not)" || ok
flush; clevis luks pass -d img -s "$newP" >/dev/null 2>&1 && ok || bad "after DBXUpdate2024: the re-seal plan-updates printed (slot $newP) does not unseal"

# 7. audit's section and --save-root: a system whose /etc/crypttab names the
#    image (as /dev/vda3); the section says each token today and at the next
#    boot (after --apply DBXUpdate2024: the PCR 7 bindings break), the saved
#    root keeps the tokens' JSON only, and an offline audit / unseal-check of
#    it reads them back with the same verdicts
R=$T/root
mkdir -p "$R/etc" "$R/dev" "$R/sys/firmware/efi" "$R/sys/kernel/security/tpm0"
cp -r "$O/efivars" "$R/sys/firmware/efi/efivars"
cp "$LOG" "$R/sys/kernel/security/tpm0/binary_bios_measurements"
cp img "$R/dev/vda3"
printf '# <name> <device> <key> <options>\ndata /dev/vda3 none luks\n' >"$R/etc/crypttab"
secs() { jq -r 'select(.section=="sealed_secrets") | .tokens[] | "\(.keyslot) \(.tool) \(.unseals_today) \(.unseals_after) \(.changed_pcrs)"'; }
A=$("$KTRUST" audit --root "$R" --json | secs)
expect_eq "$(printf '%s\n' "$A" | awk -v s="${CL[0]}" '$1 == s {print $3, $4, $5}')" "true true []" \
    "audit: the clevis PCR 7 binding unseals today and at the next boot (no change)"
expect_eq "$(printf '%s\n' "$A" | awk -v s="$newP" '$1 == s {print $3}')" "false" \
    "audit: the re-seal bound to the state after DBXUpdate2024 does not unseal today"
[ "$(printf '%s\n' "$A" | wc -l)" -ge 8 ] && ok || bad "audit: the image's tokens, got: $A"
AD=$("$KTRUST" audit --root "$R" --apply "$DBXU" --json | secs)
expect_eq "$(printf '%s\n' "$AD" | awk -v s="${CL[0]}" '$1 == s {print $4, $5}')" "false [7]" \
    "audit --apply DBXUpdate2024: the clevis PCR 7 binding does NOT unseal at the next boot"
expect_match "$("$KTRUST" audit --root "$R" --apply "$DBXU")" 'sealed secrets: [0-9]+ TPM2 tokens' "audit text: the section"
"$KTRUST" audit --root "$R" --save-root saved >/dev/null
n=$(ls saved/dev/vda3/ | grep -c '^token-[0-9]*\.json$')
[ "$n" -ge 8 ] && ok || bad "--save-root: the tokens' JSON under dev/vda3/ ($n)"
[ ! -e saved/dev/vda3 ] || [ -d saved/dev/vda3 ] && ok || bad "--save-root: the volume is a directory of JSON, not the header"
grep -rlaF 'LUKS' saved/dev >/dev/null && bad "--save-root: a LUKS header was copied" || ok
cmp -s saved/etc/crypttab "$R/etc/crypttab" && ok || bad "--save-root: /etc/crypttab"
expect_eq "$("$KTRUST" audit --root saved --apply "$DBXU" --json | secs)" "$AD" "audit of the saved root: the same tokens and verdicts"
expect_eq "$("$KTRUST" unseal-check --root saved --json | verdicts | sed 's/^[^ ]* //')" \
    "$("$KTRUST" unseal-check --root "$R" --json | verdicts | sed 's/^[^ ]* //')" \
    "unseal-check --root of the saved root: the verdicts of the system's"

# 8. the README's story ("before applying DBXUpdate, this disk would ask for
#    its recovery key; run this to keep it unlocking"), on the root of 7: the
#    volume of /etc/crypttab, the log, the variables; the TPM is still the
#    one after DBXUpdate2024 (6)

# (room in the header's JSON area: the re-seals of 4 and 6 wiped, as their "then" says)
for sl in "$new" "$newP"; do clevis luks unbind -f -d "$R/dev/vda3" -s "$sl" >/dev/null 2>&1 || bad "unbind $sl"; done
story=$("$KTRUST" unseal-check --root "$R" --apply "$DBXU")
expect_exit 5 "the README's unseal-check: exit 5" -- "$KTRUST" unseal-check --root "$R" --apply "$DBXU"
line=$(printf '%s\n' "$story" | grep -n "key slot ${CL[0]})" | cut -d: -f1)
blk=$(printf '%s\n' "$story" | sed -n "$line,$((line + 4))p")
expect_match "$blk" "^$R/dev/vda3: token [0-9]+ \\(clevis, pcr policy, sha1 PCRs 7, key slot ${CL[0]}\\)" "README: the token line"
expect_match "$blk" "today: unseals \\(PCRs of the event log's replay\\)" "README: today"
expect_match "$blk" "after the change: does NOT unseal \\(PCR 7 changes\\)" "README: after the change"
expect_match "$blk" "then after the first boot with the change: clevis luks unbind -d $R/dev/vda3 -s ${CL[0]}" "README: what to wipe afterwards"
printf '%s\n' "$blk" | sed -n 's/^ *re-seal before the change: //p' | sed 's/^clevis luks bind /clevis luks bind -y -k key /' >readme.sh
flush; bash readme.sh 2>readme.err || bad "README: the printed re-seal does not run: $(cat readme.sh) $(cat readme.err)"
newR=$(cryptsetup luksDump --dump-json-metadata "$R/dev/vda3" | python3 -c '
import sys, json
print(max(int(t["keyslots"][0]) for t in json.load(sys.stdin)["tokens"].values() if t["type"] == "clevis"))')
flush; clevis luks pass -d "$R/dev/vda3" -s "${CL[0]}" >/dev/null 2>&1 && bad "README: after the update the old binding still unseals" || ok
flush; clevis luks pass -d "$R/dev/vda3" -s "$newR" >/dev/null 2>&1 && ok || bad "README: the re-seal run before the update does not unseal after it"
finish
