#!/bin/bash
# uki show: PCR 11 of real UKIs (objcopy + Debian's linuxx64.efi.stub, the
# corpus kernel) against systemd-measure calculate (systemd 252), the
# oracle, in every bank and after every phase it prints; the value before
# any phase (the stub's measurements only) from the same sections; a UKI's
# .pcrsig is not measured and .uname (unknown to 252's stub) is not either.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/uki.sh"
uki_setup openssl measure
printf 'ID=debian\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_ID="12"\n' >osrel
printf 'root=/dev/vda1 ro quiet' >cmdline
printf '6.1.0-57-amd64' >uname
head -c 300000 /dev/urandom >initrd
openssl genrsa -out pcr.key 2048 2>/dev/null
openssl rsa -in pcr.key -pubout -out pcr.pub 2>/dev/null
printf '{"sha256":[]}' >pcrsig
"$MK" uki.efi .linux=$K .osrel=osrel .cmdline=cmdline .initrd=initrd .uname=uname \
    .pcrpkey=pcr.pub .pcrsig=pcrsig >/dev/null || exit $?

banks="sha1 sha256 sha384 sha512"
bank_opts=$(for b in $banks; do printf -- '--bank %s ' $b; done)
j=$("$KTRUST" uki show --json $bank_opts uki.efi)
expect_eq "$?" 0 "uki show exit"
# systemd-measure prints the phases as "enter-initrd", "enter-initrd:leave-initrd", ...
m=$($MEASURE calculate --linux=$K --osrel=osrel --cmdline=cmdline --initrd=initrd \
    --pcrpkey=pcr.pub $(for b in $banks; do printf -- '--bank=%s ' $b; done) --json=short)
for b in $banks; do
    want=$(jq -r --arg b $b '.[$b][] | "\(.phase | split(":") | last) \(.hash)"' <<<"$m")
    got=$(jq -r --arg b $b '.pcr11[$b] | to_entries[] | select(.key != "stub") | "\(.key) \(.value)"' <<<"$j")
    expect_eq "$got" "$want" "$b: PCR 11 per phase = systemd-measure calculate"
done
expect_eq "$(wc -l <<<"$want")" 4 "four phases compared"

# the value before any phase: name (with NUL) and contents of each measured
# section, in canonical order, extended from zeros
stub=$(python3 - "$K" <<'PY'
import hashlib, sys
pcr = bytes(32)
for name, path in [(".linux", sys.argv[1]), (".osrel", "osrel"), (".cmdline", "cmdline"),
                   (".initrd", "initrd"), (".pcrpkey", "pcr.pub")]:
    for data in (name.encode() + b"\0", open(path, "rb").read()):
        pcr = hashlib.sha256(pcr + hashlib.sha256(data).digest()).digest()
print(pcr.hex())
PY
)
expect_eq "$(jq -r '.pcr11.sha256.stub' <<<"$j")" "$stub" "PCR 11 after the stub"
expect_eq "$(jq -r '.sections[] | select(.name == ".pcrsig") | .role' <<<"$j")" pcrsig ".pcrsig: not measured"
expect_eq "$(jq -r '.sections[] | select(.name == ".uname") | .role' <<<"$j")" unknown \
    ".uname: unknown to 252's stub"

# --pcrlock: each of the stub's measurements a systemd.pcrlock(5) record;
# replayed from zeros they give the pre-phase value, the first is .linux's name
"$KTRUST" uki show --pcrlock --bank sha256 --bank sha1 uki.efi >uki.pcrlock
expect_eq "$(python3 - <<'PY'
import hashlib, json
recs = json.load(open("uki.pcrlock"))["records"]
pcr = bytes(32)
for r in recs:
    assert r["pcr"] == 11 and [d["hashAlg"] for d in r["digests"]] == ["sha256", "sha1"]
    pcr = hashlib.sha256(pcr + bytes.fromhex(r["digests"][0]["digest"])).digest()
first = recs[0]["digests"][1]["digest"] == hashlib.sha1(b".linux\0").hexdigest()
print(len(recs), pcr.hex(), first)
PY
)" "10 $stub True" "--pcrlock: 10 records (5 sections), replayed = the stub's value"

# a section changed changes PCR 11; the same parts in another order do not
"$MK" reordered.efi .cmdline=cmdline .initrd=initrd .linux=$K .osrel=osrel .pcrpkey=pcr.pub >/dev/null
r=$("$KTRUST" uki show --json reordered.efi)
expect_eq "$(jq -r '.pcr11.sha256.ready' <<<"$r")" "$(jq -r '.pcr11.sha256.ready' <<<"$j")" \
    "PCR 11 does not depend on the sections' file order"
printf 'root=/dev/vda1 ro quiet init=/bin/sh' >cmdline2
"$MK" other.efi .linux=$K .osrel=osrel .cmdline=cmdline2 .initrd=initrd .pcrpkey=pcr.pub >/dev/null
o=$("$KTRUST" uki show --json other.efi)
want=$($MEASURE calculate --linux=$K --osrel=osrel --cmdline=cmdline2 --initrd=initrd \
    --pcrpkey=pcr.pub --bank=sha256 --json=short | jq -r '.sha256[3].hash')
expect_eq "$(jq -r '.pcr11.sha256.ready' <<<"$o")" "$want" "another command line: systemd-measure agrees"
[ "$want" != "$(jq -r '.pcr11.sha256.ready' <<<"$j")" ] && ok || bad "the command line changes PCR 11"
finish
