#!/bin/bash
# Small things a new user met (issue #16 item 9): global options before the
# command, -V, --check-time on verify-pe, no doubled reason, "0 pushed",
# chain's wrong-order warning, make demo's headings without escape codes in a
# pipe, and the README's examples running as written from the checkout.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/pki.sh"
corpus
cd "$T"
unset KTRUST_STORE
gen_ca ca "Small CA"
gen_leaf signer "Small CA" ca
$KTRUST wrap-key signer.pem -o w.efi >/dev/null
osslsign w.efi w.signed.efi signer ca

# global options before the command
out=$($KTRUST --json --trust ca.pem verify-pe w.signed.efi); rc=$?
expect_eq "$rc" 0 "--json --trust before verify-pe: trusted"
expect_match "$out" '^\{"file":"w.signed.efi","type":"pe","verdict":"trusted"' "... and JSON"
expect_eq "$($KTRUST --trust=ca.pem -q verify-pe w.signed.efi; echo $?)" 0 "--trust=FILE -q before the command"
$KTRUST keyring add -q --store "$T/s.db" --keyring platform ca.pem
expect_eq "$($KTRUST --store "$T/s.db" keyring list | wc -l)" 1 "--store before 'keyring list'"
expect_exit 64 "an unknown option before the command: 64" -- $KTRUST --bogus verify-pe w.signed.efi
expect_match "$($KTRUST -V)" "^ktrust [0-9]+\.[0-9]+" "-V prints the version"
expect_match "$($KTRUST verify-pe --help)" "--check-time" "verify-pe --help mentions --check-time"
expect_match "$($KTRUST verify-module --help)" "-v, --verbose +each signature" "--help explains -v"

# --check-time on verify-pe: the chain is valid now, not in 2099 (openssl's dates)
expect_exit 0 "--check-time (now): trusted" -- $KTRUST verify-pe --check-time --trust ca.pem w.signed.efi
end=$(date -u -d "$(openssl x509 -in signer.pem -noout -enddate | cut -d= -f2)" +%Y)
out=$($KTRUST verify-pe --check-time=$((end + 1))-01-01 --trust ca.pem w.signed.efi); rc=$?
expect_eq "$rc" 5 "--check-time after the signer expires: rejected"
expect_match "$out" "validity" "... says why"
expect_exit 64 "--check-time=garbage: usage" -- $KTRUST verify-pe --check-time=soon --trust ca.pem w.signed.efi
# --check-time T as two words: T would be a file and the check made now (#27.2): refused
for cmd in verify-pe verify-module verify-pkcs7; do
    out=$($KTRUST $cmd --check-time $((end + 1))-01-01T00:00:00Z --trust ca.pem w.signed.efi 2>&1); rc=$?
    expect_eq "$rc" 64 "$cmd --check-time T (a separate word): usage error, not a check at now"
    expect_match "$out" "write --check-time=$((end + 1))-01-01T00:00:00Z" "$cmd: the message says how to write it"
done

# no doubled reason for an unsigned module
head -c 2000 /dev/urandom >u.ko
out=$($KTRUST verify-module --trust ca.pem u.ko); rc=$?
expect_eq "$rc" 1 "unsigned module: 1"
expect_eq "$(printf '%s' "$out" | grep -c 'unsigned.*unsigned')" 0 "the reason does not repeat 'unsigned': $out"

# keyring push of an empty keyring says 0 pushed
out=$($KTRUST keyring push --store "$T/s.db" --keyring machine --to @s 2>&1); rc=$?
expect_eq "$rc:$out" "0:ktrust: 0 pushed from machine to @s" "push of an empty keyring"

# chain with the links in the wrong order says so
D=$CORPUS/debian
out=$($KTRUST chain -q --db "$CORPUS/trust/microsoft-uefi-ca-2011.pem" "$D/grubx64.efi.signed" "$D/shimx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64" 2>&1)
expect_match "$out" "the order looks wrong: .*shimx64.efi.signed \(given as LOADER\) is a shim" "chain: shim given as LOADER"
m=$(ls "$D"/modules/*.ko | head -1)
out=$($KTRUST chain -q --db "$CORPUS/trust/microsoft-uefi-ca-2011.pem" "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" "$m" 2>&1)
expect_match "$out" "\(given as KERNEL\) is a kernel module" "chain: module given as KERNEL"
out=$($KTRUST chain -q --db "$CORPUS/trust/microsoft-uefi-ca-2011.pem" "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64" "$m" 2>&1)
expect_eq "$(printf '%s' "$out" | grep -c 'order looks wrong')" 0 "chain in the right order: no warning"

# the demo's headings: no escape codes when stdout is not a terminal
expect_eq "$(bash -c 'source <(sed -n "/^# bold headings/,/^fi$/p" "$0"); say hello' "$KT_SRC/scripts/demo.sh" | od -c | grep -c '033')" 0 "demo headings: no ESC in a pipe"

# the README's examples, as written, from the checkout (the store in $T)
ex=$(sed -n '/^Examples from the checkout/,/^```$/d; /^C=..\/shared\/corpus$/,/^```$/p' "$KT_SRC/README.md" | grep -v '^```$' | grep -v ' ID$')
expect_match "$ex" "^C=../shared/corpus" "README: the examples block found"
expect_eq "$(printf '%s\n' "$ex" | grep -c '^build/ktrust ')" "$(printf '%s\n' "$ex" | grep -c ktrust)" "README: every example runs build/ktrust"
# (as written when the corpus is at ../shared/corpus; else at $KTRUST_CORPUS)
[ -f "$KT_SRC/../shared/corpus/README.md" ] || ex=$(printf '%s\n' "$ex" | sed "s#^C=.*#C=$CORPUS#")
(
    cd "$KT_SRC" || exit 1
    printf '%s\n' "$ex" | sed "s#build/ktrust#$KTRUST#; s#my\.db#$T/my.db#" | bash >"$T/readme.out" 2>&1
)
expect_eq "$?" 0 "README: every example exits 0 from the checkout"
expect_match "$(cat readme.out)" "grubx64.efi.signed: trusted" "README: GRUB trusted through the loaded shim key"
# the realistic keying (#27 item 4): the db's CA and the Debian CA in platform, not builtin
expect_match "$(cat readme.out)" "1 key from .vendor_cert added to platform" "README: the Debian CA joins platform"
expect_match "$(cat readme.out)" "vmlinuz-6.1.0-57-amd64: trusted" "README: the kernel trusted through platform"
finish
