#!/bin/bash
# Never an all-clear the input did not earn (#36 item 1).  Every command x
# every input the question depends on x {missing, empty, text, directory,
# unsigned}: the exit code is the input's error (66 unreadable, 4 malformed,
# 69 no EFI variables on a live path), the last line of stdout says "cannot
# answer: INPUT: WHY", and the --json summary's verdict is not a safe one.
# Before: a missing or text --apply ended eventlog --predict with "PCR 7 does
# not change", chain with "every link trusted", check-update --install with
# "yes: the new shim boots"; plan-updates said "0 found" and exit 0;
# check-update --dbx empty.bin "still boots" and exit 0; a mistyped --efivars
# gave a whole audit; a mistyped NEW_SHIM exited 66 like "no EFI variables";
# a root without shim, loader and kernel was "trusted".
. "$(dirname "$0")/../lib/common.sh"
corpus
cd "$T" || exit 1
D=$CORPUS/debian
E1=$CORPUS/peers/shim-efivars/efivars-1
EV=$CORPUS/peers/ovmf-swtpm-boot
SHIM=$D/shimx64.efi.signed
GRUB=$D/grubx64.efi.signed
VMLINUZ=$D/vmlinuz-6.1.0-57-amd64

mkdir -p esp/EFI/debian dir
cp "$SHIM" esp/EFI/debian/shimx64.efi
cp "$GRUB" esp/EFI/debian/grubx64.efi
: > empty.bin
echo "<html>404 Not Found</html>" > text.txt
openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 30 -subj /CN=u36 2>/dev/null
openssl x509 -in c.pem -outform DER -out c.der
efi esl --x509 c.der -o unsigned.esl          # an update's payload without its signature
"$KTRUST" wrap-key c.pem -o unsigned.efi -q   # a PE without a signature
python3 "$KT_SRC/tests/fixtures/imalist.py" --entries 3 --binary ima.bin

# input NAME -> the file for that kind, and the exit code it must give
file_of() { case $1 in missing) echo nonexistent.bin ;; empty) echo empty.bin ;;
    text) echo text.txt ;; directory) echo dir ;; unsigned) echo "${2:-unsigned.esl}" ;; esac; }
code_of() { case $1 in missing|directory) echo 66 ;; *) echo 4 ;; esac; }

# check NAME WANT_CODE -- CMD...: the exit code, the last stdout line, and
# the same command with --json: a summary whose verdict is not safe
check() {
    local name=$1 want=$2
    shift 3
    local out rc last
    out=$("$@" 2>/dev/null)
    rc=$?
    last=$(printf '%s\n' "$out" | tail -1)
    expect_eq "$rc" "$want" "$name: exit code"
    expect_match "$last" '^(summary: )?cannot answer: ' "$name: the last line"
    local j v
    j=$("$@" --json 2>/dev/null | tail -1)
    v=$(printf '%s' "$j" | jq -r 'select(.type=="summary") | .verdict')
    case $v in
    trusted|still_boots|boots|"") bad "$name: --json summary verdict '$v': $j" ;;
    *) ok ;;
    esac
}

for kind in missing empty text directory unsigned; do
    f=$(file_of $kind)
    c=$(code_of $kind)
    check "eventlog --predict --apply $kind" $c -- \
        "$KTRUST" eventlog "$EV/eventlog.bin" --predict --efivars "$EV/efivars" --apply "$f"
    check "chain --apply $kind" $c -- \
        "$KTRUST" chain --efivars "$E1" --apply "$f" "$SHIM" "$GRUB" "$VMLINUZ"
    check "check-update --install --apply $kind" $c -- \
        "$KTRUST" check-update --efivars "$E1" --apply "$f" --install "$SHIM" "$GRUB"
    check "check-update --apply $kind" $c -- \
        "$KTRUST" check-update --efivars "$E1" --apply "$f" esp
    check "audit --apply $kind" $c -- \
        "$KTRUST" audit --efivars "$E1" --esp esp --apply "$f"
    check "plan-updates UPDATES $kind" $c -- \
        "$KTRUST" plan-updates --efivars "$E1" --esp esp "$f"
    # the boot files to judge
    check "check-update --dbx ... PATH $kind" 66 -- \
        "$KTRUST" check-update --dbx "$CORPUS/peers/secureboot-objects/DBX/DBXUpdate-amd64.bin" \
        "$(file_of $kind text.txt)"
done

# the dbx update itself: an ESL without a signature is a valid dbx input
for kind in missing empty text directory; do
    check "check-update --dbx $kind" $(code_of $kind) -- \
        "$KTRUST" check-update --dbx "$(file_of $kind)" esp
done

# NEW_SHIM: missing or a directory 66, empty or text 4 (never 69, "no EFI
# variables"); an unsigned shim is a real answer: no (5)
for kind in missing empty text directory; do
    check "check-update --install NEW_SHIM $kind" $(code_of $kind) -- \
        "$KTRUST" check-update --efivars "$E1" --install "$(file_of $kind)"
done
expect_exit 5 "check-update --install NEW_SHIM unsigned: no" -- \
    "$KTRUST" check-update --efivars "$E1" --install unsigned.efi
out=$("$KTRUST" check-update --efivars "$E1" --install unsigned.efi 2>/dev/null | tail -1)
expect_match "$out" '^no: ' "unsigned NEW_SHIM: the answer is no"
# no EFI variables where a live system keeps them: 69, not 66
mkdir -p bios-root/boot
check "check-update --install, a root without EFI variables" 69 -- \
    "$KTRUST" check-update --root bios-root --install "$SHIM"

# the variables and the ESP: a mistyped directory, a text file
for kind in missing text; do
    check "audit --efivars $kind" 66 -- \
        "$KTRUST" audit --efivars "$(file_of $kind)" --esp esp
    check "audit --esp $kind" 66 -- \
        "$KTRUST" audit --efivars "$E1" --esp "$(file_of $kind)"
    check "audit --eventlog $kind" $(code_of $kind) -- \
        "$KTRUST" audit --efivars "$E1" --esp esp --eventlog "$(file_of $kind)"
    # the IMA measurement list, and the event log its boot_aggregate is checked with
    check "ima-list LIST $kind" $(code_of $kind) -- "$KTRUST" ima-list "$(file_of $kind)"
    check "ima-list --eventlog $kind" $(code_of $kind) -- \
        "$KTRUST" ima-list ima.bin --eventlog "$(file_of $kind)"
    # the kernel config that says which keyring IMA searches
    check "ima-list --kernel-config $kind" $(code_of $kind) -- \
        "$KTRUST" ima-list ima.bin --kernel-config "$(file_of $kind)"
done
# uki verify --efivars: a mistyped directory; a dbx that does not parse (a
# UKI judged without its dbx would be trusted)
check "uki verify --efivars missing" 66 -- "$KTRUST" uki verify --efivars nonexistent.bin unsigned.efi
mkdir -p badvars
cp "$E1"/db-* badvars/
printf '\x27\0\0\0not a signature list' >badvars/dbx-d719b2cb-3d3a-4596-a3bc-dad00e67656f
check "uki verify --efivars, dbx malformed" 4 -- "$KTRUST" uki verify --efivars badvars unsigned.efi
# a root with variables but no shim, loader or kernel: not "trusted"
mkdir -p root/sys/firmware/efi/efivars
cp "$E1"/* root/sys/firmware/efi/efivars/
out=$("$KTRUST" audit --root root 2>/dev/null)
expect_eq "$?" 66 "audit of a root without a boot chain: exit code"
expect_match "$(printf '%s\n' "$out" | tail -1)" \
    '^summary: cannot answer: the boot chain: no shim, loader or kernel' "... its conclusion"
v=$("$KTRUST" --json audit --root root 2>/dev/null | jq -r 'select(.type=="summary") | .verdict')
expect_eq "$v" null "... its --json verdict"
finish
