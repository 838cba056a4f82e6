#!/bin/bash
# scan --kernel with a store: the kernel image's builtin keys are decoded once
# and kept in the store under the image's SHA-256 (kt_store_add_kernel_keys).
# A second run takes them from the store and gives the same verdicts; another
# image (even one byte different) never gets them; a read never gives a file
# with no ktrust schema one; the store keeps the lists of the last 16 images.
. "$(dirname "$0")/../lib/common.sh"
corpus
export KTRUST_CACHE=off # the store's cache alone (the cache directory: kernel_key_cache.sh)
V=$CORPUS/debian/vmlinuz-6.1.0-57-amd64
MODS=$CORPUS/debian/modules
S=$T/store.db

rows() { # STORE SQL -> result lines
    python3 -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for r in c.execute(sys.argv[2]): print("|".join(str(x) for x in r))' "$1" "$2"
}

bash "$KT_SRC/tests/fixtures/make_kimage.sh" "$T/fx" >/dev/null || { echo "fixture generation failed"; exit 1; }
# a store that exists: one unrelated key in a user keyring
"$KTRUST" keyring add -q --store "$S" --keyring builtin "$T/fx/b.der"
expect_eq "$?" 0 "store made"

# ---- first run decodes and caches; the second takes the cache -------------
out1=$("$KTRUST" scan --json -j 2 --store "$S" --kernel "$V" "$MODS" 2>/dev/null)
rc1=$?
err=$("$KTRUST" scan -v -q -j 2 --store "$S" --kernel "$V" "$MODS" 2>&1 >/dev/null)
expect_match "$err" "builtin keys from the store's cache" "second run: from the cache"
out2=$("$KTRUST" scan --json -j 2 --store "$S" --kernel "$V" "$MODS" 2>/dev/null)
rc2=$?
expect_eq "$rc1" 0 "corpus modules trusted through --kernel"
expect_eq "$rc2" "$rc1" "same exit from the cache"
expect_eq "$(printf '%s\n' "$out2" | grep -v '"type":"summary"' | grep -c '"verdict":"trusted"')" \
    "$(printf '%s\n' "$out1" | grep -v '"type":"summary"' | grep -c '"verdict":"trusted"')" "same trusted count"
expect_eq "$(printf '%s\n' "$out2" | grep -v '"type":"summary"' | grep -c '"verdict":"trusted"')" 41 "all 41 corpus modules trusted"
expect_eq "$(printf '%s\n' "$out2" | grep '"file"' | sort)" \
    "$(printf '%s\n' "$out1" | grep '"file"' | sort)" "identical file records"
# the cache row: this image's SHA-256, the certificate kernel-keys shows
want=$(sha256sum "$V" | cut -c1-64)
expect_eq "$(rows "$S" "select lower(hex(image_sha256)), idx from kernel_keys")" "$want|0" \
    "one row, keyed by the image's SHA-256"
kk=$("$KTRUST" kernel-keys --json "$V" | grep -o '"sha256":"[0-9a-f]*"' | head -1 | cut -d'"' -f4)
expect_eq "$(rows "$S" "select der from kernel_keys" >/dev/null; python3 -c 'import sqlite3, sys, hashlib
c = sqlite3.connect(sys.argv[1])
print(hashlib.sha256(c.execute("select der from kernel_keys").fetchone()[0]).hexdigest())' "$S")" \
    "$kk" "the cached certificate is the one kernel-keys finds"
# the store's keys are untouched: the cache is not a keyring
expect_eq "$("$KTRUST" keyring list --store "$S" | grep -c .)" 1 "keyring list still shows one key"
[ ! -e "$S-wal" ] && [ ! -e "$S-shm" ]
expect_eq "$?" 0 "no -wal/-shm left behind"

# ---- another image never gets this image's keys --------------------------
# the fake image holds other keys: the corpus modules are untrusted with it,
# although the store has the Debian key cached for the real image
err=$("$KTRUST" scan -v -q --store "$S" --kernel "$T/fx/bzImage-xz" "$MODS" 2>&1 >/dev/null)
expect_exit 2 "another image's keys: untrusted" -- "$KTRUST" scan -q --store "$S" --kernel "$T/fx/bzImage-xz" "$MODS"
expect_match "$err" "builtin keys decoded, and cached" "another image: decoded, not the cache"
# one byte appended: another SHA-256, decoded again, same keys
cp "$V" "$T/vmlinuz+1"
printf 'x' >>"$T/vmlinuz+1"
err=$("$KTRUST" scan -v -q --store "$S" --kernel "$T/vmlinuz+1" "$MODS" 2>&1 >/dev/null)
expect_match "$err" "builtin keys decoded" "a changed image is decoded again"
expect_eq "$(rows "$S" "select count(distinct image_sha256) from kernel_keys")" 3 "three images cached"

# ---- a file with no ktrust schema is never given one by a read -------------
: >"$T/empty.db"
expect_exit 0 "empty store file: still verifies" -- "$KTRUST" scan -q --store "$T/empty.db" --kernel "$V" "$MODS"
err=$("$KTRUST" scan -v -q --store "$T/empty.db" --kernel "$V" "$MODS" 2>&1 >/dev/null)
expect_match "$err" "the store could not cache them" "empty store: not cached"
expect_eq "$(stat -c %s "$T/empty.db")" 0 "the empty file stays empty"
# no store at all: decoded, nothing written anywhere
err=$("$KTRUST" scan -v -q --kernel "$V" "$MODS" 2>&1 >/dev/null)
expect_match "$err" "builtin keys decoded$" "no store: decoded"
[ ! -e "$XDG_DATA_HOME/ktrust" ]
expect_eq "$?" 0 "no default store created"

# ---- the store keeps the last 16 images ------------------------------------
for i in $(seq 1 17); do
    cp "$T/fx/bzImage-gzip" "$T/img$i"
    printf '%s' "$i" >>"$T/img$i"
    "$KTRUST" scan -q --store "$S" --kernel "$T/img$i" "$T/fx/a.der" >/dev/null 2>&1
done
expect_eq "$(rows "$S" "select count(distinct image_sha256) from kernel_keys")" 16 "16 images kept"
expect_eq "$(rows "$S" "select count(*) from kernel_keys")" 32 "two certificates each"
err=$("$KTRUST" scan -v -q --store "$S" --kernel "$T/img17" "$T/fx/a.der" 2>&1 >/dev/null)
expect_match "$err" "from the store's cache" "the newest image is still cached"
finish
