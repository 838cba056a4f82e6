#!/bin/bash
# The published JSON schema (doc/ktrust.schema.json, issue #36 item 3): every
# command's --json output, a run that answers and a run that fails, each
# line validated by a real validator (Debian's python3-jsonschema, draft
# 2020-12) against the shipped schema; every failing run ends with the
# summary object and its error; every command of `ktrust --help` is covered.
# plan-updates --json lists hashes only with --hashes.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
corpus
/usr/bin/python3 -c 'import jsonschema' 2>/dev/null || {
    [ -n "${CI:-}" ] && { echo "FAIL: python3-jsonschema missing and CI is set"; exit 1; }
    echo "skipped: python3-jsonschema not installed (scripts/deps.sh test)"; exit 77; }
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
unset KTRUST_STORE
export KTRUST_STORE=$T/store.db
D=$CORPUS/debian
QEMU=$CORPUS/peers/ovmf-swtpm-boot
SO=$CORPUS/peers/secureboot-objects
TOK=$KT_SRC/fuzz/seeds/fuzz_seal_token

gen_ca ca "Schema CA"
gen_leaf signer "Schema CA" ca
gen_self modkey "Schema" "Schema Module Key"
head -c 3000 /dev/urandom >mod.body
sign_module mod.body mod.ko modkey.pem modkey.key
head -c 500 /dev/urandom >garbage
printf 'data\n' >data.txt
openssl cms -sign -binary -in data.txt -signer signer.pem -inkey signer.key -outform DER -out data.p7s -nodetach 2>/dev/null ||
    openssl smime -sign -binary -in data.txt -signer signer.pem -inkey signer.key -outform DER -out data.p7s
"$KTRUST" wrap-key signer.pem -o w.u >/dev/null
osslsign w.u w.efi signer ca
efi esl --sha256 "$(printf x | sha256sum | cut -c1-64)" -o dbx.esl
mkdir -p esp/EFI/debian tree root/boot/efi/EFI/debian root/sys/firmware/efi
cp "$D/shimx64.efi.signed" esp/EFI/debian/shimx64.efi
cp "$D/grubx64.efi.signed" esp/EFI/debian/grubx64.efi
cp -r esp/EFI root/boot/efi/
cp -r "$QEMU/efivars" root/sys/firmware/efi/efivars
cat >pcrs.txt <<'PCRS'
sha256 7 8c374a53782642f7514d087d26a3e733f1b806009a03e04a43b288ef2fa9f9c0
sha1 7 b311ff7e540d671f5b54ed190d402a1d064fbecb
PCRS

mkdir out
# j NAME ARGS...: ktrust --json ARGS, its output in out/NAME.json, its exit in out/NAME.rc
j() { local n=$1; shift; "$KTRUST" --json "$@" >"out/$n.json" 2>/dev/null; echo $? >"out/$n.rc"; }
j x509 x509 show ca.pem
j x509-fail x509 show nope.pem
j keyring-add keyring add --keyring platform ca.pem
j keyring-list keyring list
j keyring-export keyring export --keyring platform
j keyring-create keyring create mine --restrict trusted-only
j keyring-remove keyring remove --keyring platform "$(openssl x509 -in ca.pem -outform DER | sha256sum | cut -c1-64)"
j keyring-fail keyring add --keyring nosuch ca.pem
j kernel-keys kernel-keys "$D/vmlinuz-6.1.0-57-amd64"
j kernel-keys-fail kernel-keys nope
j verify-pkcs7 verify-pkcs7 --trust ca.pem data.p7s
j verify-pkcs7-fail verify-pkcs7 --trust ca.pem nope.p7s
j verify-module verify-module --trust modkey.pem mod.ko mod.body
j verify-module-fail verify-module --trust modkey.pem nope.ko
j verify-pe verify-pe --trust ca.pem w.efi w.u
j verify-pe-fail verify-pe --bogus w.efi
j load-pe-key load-pe-key --store "$T/lp.db" --trust ca.pem w.efi
j load-pe-key-fail load-pe-key --store "$T/lp.db" nope.efi
j wrap-key wrap-key signer.pem -o w2.efi
j wrap-key-fail wrap-key nope.pem -o w3.efi
j chain chain --efivars "$QEMU/efivars" "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64"
j chain-fail chain --efivars "$QEMU/efivars" nope.efi "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64"
j scan scan --trust ca.pem --trust modkey.pem .
j scan-fail scan nope-dir
j esl esl show "$QEMU"/efivars/db-*
j esl-fail esl show garbage
j sbat sbat show "$D/shimx64.efi.signed"
j sbat-fail sbat show nope.efi
j verify-var verify-var --var db --kek "$QEMU"/efivars/KEK-* "$SO/DB/DBUpdate2024-amd64.bin"
j verify-var-fail verify-var --var db nope.bin
j check-update check-update --dbx dbx.esl esp
j check-update-fail check-update --dbx nope.esl esp
j audit audit --root root
j audit-fail audit --root nope-root
j plan-updates plan-updates --efivars "$QEMU/efivars" --esp esp "$SO/tree"
j plan-updates-hashes plan-updates --hashes --efivars "$QEMU/efivars" --esp esp "$SO/tree"
j plan-updates-fail plan-updates --efivars nope-vars "$SO/tree"
j eventlog eventlog "$QEMU/eventlog.bin" --pcrs "$QEMU/pcrs.txt"
j eventlog-predict eventlog "$QEMU/eventlog.bin" --predict --efivars "$QEMU/efivars" --esp esp
j eventlog-fail eventlog nope.bin
python3 "$KT_SRC/tests/fixtures/imalist.py" --entries 12 --template mix --signed-every 3 --violation-at 4 \
    --binary ima.bin --pcrs ima-pcrs.txt
j ima-list ima-list ima.bin --pcrs ima-pcrs.txt -v
j ima-list-fail ima-list nope.bin
j unseal-check unseal-check --pcrs pcrs.txt "$TOK/token0.json"
j unseal-check-fail unseal-check --pcrs pcrs.txt nope.json
printf 'ID=schema\n' >os-release
printf 'console=ttyS0\n' >cmdline
if "$KT_SRC/tests/fixtures/mkuki.sh" uki.efi .linux="$D/vmlinuz-6.1.0-57-amd64" .osrel=os-release \
        .cmdline=cmdline >/dev/null 2>&1; then
    j uki uki show uki.efi
else # no stub here: the answering run is the one that fails
    j uki uki show "$D/vmlinuz-6.1.0-57-amd64"
fi
j uki-fail uki show nope.efi
# verify-ima: an evmctl --sigfile signature (no xattr needed), two files for the summary
if command -v evmctl >/dev/null && evmctl ima_sign --sigfile --key modkey.key data.txt >/dev/null 2>&1; then
    cp data.txt data2.txt
    evmctl ima_sign --sigfile --key modkey.key data2.txt >/dev/null 2>&1
    j verify-ima verify-ima --sigfile --trust modkey.pem --ima-key modkey.pem data.txt data2.txt
else
    j verify-ima verify-ima --trust modkey.pem data.txt
fi
j verify-ima-fail verify-ima --trust modkey.pem nope.txt
mkdir -p sdesp/loader/entries sdesp/EFI/Linux
cp "$D/grubx64.efi.signed" sdesp/EFI/Linux/grub.efi
printf 'title schema\nefi /EFI/Linux/grub.efi\n' >sdesp/loader/entries/schema.conf
j uki-entries uki entries --trust ca.pem sdesp
j uki-entries-fail uki entries nope-esp
# audit of a systemd-boot ESP: the chain section's sdboot object (pcrsig, addons)
if [ -f uki.efi ] && [ -f /usr/lib/systemd/boot/efi/systemd-bootx64.efi ]; then
    mkdir -p sdaudit/EFI/systemd sdaudit/EFI/Linux
    cp /usr/lib/systemd/boot/efi/systemd-bootx64.efi sdaudit/EFI/systemd/
    printf 'ID=schema\nVERSION_ID=1\n' >os-release2
    "$KT_SRC/tests/fixtures/mkuki.sh" sdaudit/EFI/Linux/schema.efi .linux="$D/vmlinuz-6.1.0-57-amd64" \
        .osrel=os-release2 >/dev/null
    j audit-sdboot audit --efivars "$QEMU/efivars" --esp sdaudit
    expect_eq "$(jq -r 'select(.section == "chain") | .sdboot.pcrsig.status' out/audit-sdboot.json)" "absent" \
        "audit of a systemd-boot ESP: its sdboot object has the next UKI's pcrsig"
    j eventlog-predict-uki eventlog "$QEMU/eventlog.bin" --predict --efivars "$QEMU/efivars" --esp sdaudit
    expect_eq "$(jq -r 'select(.type == "predicted_uki") | "\(.uki) \(.entry) \(.rule)"' out/eventlog-predict-uki.json)" \
        "/EFI/Linux/schema.efi schema.efi first" "eventlog --predict: the UKI it picked, its entry and rule"
fi

# every line valid under the shipped schema; failing runs end with the summary
# and its error; every command of `ktrust --help` has a run that answers and
# one that fails
"$KTRUST" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}' >commands.txt
expect_eq "$(wc -l <commands.txt)" "$(grep -c '^    {"' "$KT_SRC/cli/core/main.c")" "every command listed by --help"
report=$(/usr/bin/python3 - "$KT_SRC/doc/ktrust.schema.json" out commands.txt <<'PY'
import json, os, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
val = Draft202012Validator(schema)
out, commands = sys.argv[2], open(sys.argv[3]).read().split()
runs = sorted(f[:-3] for f in os.listdir(out) if f.endswith(".rc"))
bad, lines = [], 0
for run in runs:
    rc = int(open(os.path.join(out, run + ".rc")).read())
    rows = []
    for n, line in enumerate(open(os.path.join(out, run + ".json")), 1):
        try:
            rows.append(json.loads(line))
        except ValueError as e:
            bad.append("%s:%d: not JSON: %s" % (run, n, e))
            continue
        lines += 1
        for err in val.iter_errors(rows[-1]):
            bad.append("%s:%d: %s at %s" % (run, n, err.message[:200], "/".join(map(str, err.absolute_path))))
    if not rows:
        bad.append("%s: no JSON at all (exit %d)" % (run, rc))
        continue
    last = rows[-1]
    if run.endswith("-fail"):
        if rc == 0:
            bad.append("%s: exit 0" % run)
        elif rc >= 64 and not (last.get("type") == "summary" and isinstance(last.get("error"), str)):
            bad.append("%s: exit %d, not ended by the summary with its error" % (run, rc))
        elif rc < 64 and last.get("error") is None:
            bad.append("%s: exit %d, its last object names no error" % (run, rc))
    elif rc >= 64:
        bad.append("%s: exit %d" % (run, rc))
for c in commands:
    for kind in ("", "-fail"):
        if not any(r == c + kind or (r.startswith(c + "-") and r.endswith(kind) and
                                     (kind or not r.endswith("-fail"))) for r in runs):
            bad.append("%s: no %s run" % (c, "failing" if kind else "answering"))
print("%d runs, %d lines" % (len(runs), lines))
print("\n".join(bad) or "valid")
PY
)
expect_match "$report" "^[0-9]+ runs, [0-9]+ lines" "the validator ran"
expect_eq "$(tail -n +2 <<<"$report")" valid "every line of every command's --json valid; failures end with the summary"

# plan-updates: the hashes only with --hashes; the counts either way
expect_eq "$(jq -r 'select(.type == "update") | .adds[]' out/plan-updates.json | grep -c '^sha256 ')" 0 \
    "plan-updates --json: no hash listed"
expect_eq "$(jq -c 'select(.type == "update") | .entries_added' out/plan-updates.json | paste -sd+ | bc)" \
    "$(jq -r 'select(.type == "update") | .adds | length' out/plan-updates-hashes.json | paste -sd+ | bc)" \
    "plan-updates --json: entries_added counts what --hashes lists"
expect_match "$(jq -r 'select(.type == "update") | .adds[]' out/plan-updates-hashes.json | grep -c '^sha256 ')" '^[1-9][0-9]+$' \
    "plan-updates --json --hashes: the hashes too"
expect_match "$(jq -r 'select(.type == "update") | .adds[]' out/plan-updates.json)" "^X509 Windows UEFI CA 2023" \
    "plan-updates --json: the certificates listed"
# the schema would catch a summary without its fields
printf '%s\n' '{"type":"summary","verdict":null,"exit":66,"counts":{},"interrupted":false}' >old.json
expect_eq "$(/usr/bin/python3 -c 'import json, sys; from jsonschema import Draft202012Validator as V
v = V(json.load(open(sys.argv[1]))); print(v.is_valid(json.load(open(sys.argv[2]))))' "$KT_SRC/doc/ktrust.schema.json" old.json)" \
    False "a summary without schema and error is invalid"
finish
