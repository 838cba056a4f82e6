#!/usr/bin/env bash
# ktrust scan (issue #7): type detection in a mixed tree, symlink loops,
# unreadable, empty and huge sparse files, -j 1 and -j 2 agreeing.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
corpus
cd "$T"
D=$CORPUS/debian
mkdir -p tree/mods tree/efi tree/certs tree/misc
cp "$D"/modules/*.ko tree/mods/ 2>/dev/null
NMODS=$(ls tree/mods | wc -l)
xz -k -T1 tree/mods/"$(ls tree/mods | head -1)"           # a .ko.xz
cp "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" tree/efi/
cp "$CORPUS/trust/microsoft-uefi-ca-2011.pem" tree/certs/
openssl x509 -in "$CORPUS/trust/microsoft-uefi-ca-2023.pem" -outform DER -out tree/certs/ms2023.der
cp "$(ls "$CORPUS"/peers/shim-efivars/efivars-0/db-* | head -1)" tree/certs/db.esl
gen_self v "Acme" "Acme Signer"
echo "hello" > tree/misc/data.txt
openssl cms -sign -binary -in tree/misc/data.txt -signer v.pem -inkey v.key -outform DER -out tree/misc/data.txt.p7s 2>/dev/null
: > tree/misc/empty
head -c 4096 /dev/urandom > tree/misc/random.bin
truncate -s 3G tree/misc/sparse.img
ln -s .. tree/misc/loop

K="$D/vmlinuz-6.1.0-57-amd64"
out=$("$KTRUST" scan --json -j 2 --kernel "$K" --trust "$CORPUS/trust/microsoft-uefi-ca-2011.pem" tree); rc=$?
sum=$(tail -1 <<<"$out")
expect_match "$sum" '"type":"summary"' "the last JSON line is the summary"
expect_match "$sum" "\"module\":$((NMODS + 1))" "every module found, the .ko.xz too"
expect_match "$sum" '"pe":2' "both EFI binaries found"
expect_match "$sum" '"x509":2' "PEM and DER certificates found"
expect_match "$sum" '"esl":1' "the signature list found"
expect_match "$sum" '"pkcs7":1' "the detached PKCS#7 found"
expect_match "$sum" '"skipped":4' "text, random, empty and sparse files skipped"
expect_eq "$(grep -c '"type":"module".*"verdict":"trusted"' <<<"$out")" "$((NMODS + 1))" "all modules trusted with --kernel"
expect_match "$(grep shimx64 <<<"$out")" '"verdict":"trusted"' "shim trusted by the 2011 CA"
expect_match "$(grep grubx64 <<<"$out")" '"verdict":"untrusted"' "GRUB untrusted without the Debian CA"
expect_match "$(grep data.txt.p7s <<<"$out")" '"verdict":"untrusted"' "the detached signature verifies against its data, untrusted"
expect_eq "$rc" 2 "exit code: the highest per-file code (untrusted)"

# -j 1 and -j 2 give the same verdicts
a=$("$KTRUST" scan --json -j 1 --kernel "$K" tree | grep -v summary | sed 's/.*"file":"\([^"]*\)".*"verdict":"\([a-z]*\)".*/\1 \2/' | sort)
b=$("$KTRUST" scan --json -j 2 --kernel "$K" tree | grep -v summary | sed 's/.*"file":"\([^"]*\)".*"verdict":"\([a-z]*\)".*/\1 \2/' | sort)
expect_eq "$a" "$b" "-j 1 and -j 2 agree file by file"

# symlinks: not followed by default; followed with --follow-symlinks, loops reported
out=$("$KTRUST" scan --json -j 2 --follow-symlinks tree 2>err.txt)
expect_match "$(cat err.txt)" "loop" "a symlink loop is reported, not followed"
expect_match "$(tail -1 <<<"$out")" "\"module\":$((NMODS + 1))" "no file counted twice through the loop"

# a tampered module among good ones: rejected, exit 5
cp tree/mods/"$(ls tree/mods | head -1)" bad.ko && flip bad.ko 1000 && mv bad.ko tree/mods/zz-bad.ko
"$KTRUST" scan -q --kernel "$K" tree/mods; rc=$?
expect_eq "$rc" 5 "a flipped byte in one module: exit 5"

# unreadable files are reported and counted (run as an unprivileged user)
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
    mkdir -p u && cp "$D/modules/$(ls "$D/modules" | head -1)" u/ok.ko && echo x > u/secret && chmod 600 u/secret && chmod 755 u "$T" && chmod 644 u/ok.ko
    out=$(HOME=$T/u XDG_DATA_HOME= setpriv --reuid=65534 --regid=65534 --clear-groups "$KTRUST" scan --json u 2>err.txt); rc=$?
    expect_match "$(cat err.txt)" "secret: cannot open: Permission denied" "unreadable file: one-line error"
    expect_match "$(tail -1 <<<"$out")" '"unreadable":1,"skipped":0},.*"verified":1,' "unreadable file counted as unreadable, not verified"
    expect_eq "$rc" 66 "unreadable input: exit 66"
else
    echo "note: unreadable-file case needs root and setpriv; not run here"
fi

# --json: every input has its line, an unreadable one too (verdict null)
out=$("$KTRUST" scan --json tree/certs /nonexistent 2>/dev/null)
expect_match "$(grep nonexistent <<<"$out")" '"verdict":null,"error":"ENOENT"' "a missing path has its JSON line"
out=$("$KTRUST" verify-pe --json /nonexistent "$D/shimx64.efi.signed" 2>/dev/null); rc=$?
expect_eq "$(grep -vc '"type":"summary"' <<<"$out")" 2 "verify-pe --json: one line per input, the unreadable one included"
expect_eq "$rc" 66 "... and exit 66"

expect_exit 64 "no path: usage" -- "$KTRUST" scan
expect_exit 64 "bad -j: usage" -- "$KTRUST" scan -j 0 tree
finish
