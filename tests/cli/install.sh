#!/usr/bin/env bash
# make install: the CLI, libktrust (static and shared), the public headers
# only, ktrust.pc, the man page and the JSON schema land under the prefix; a program built
# against the installed library with nothing but `pkg-config --cflags --libs
# ktrust` and <ktrust.h> parses certificates, verifies modules, PKCS#7 and a
# PE image and uses the store as the CLI does, all through one verification
# context (ktrust/verify.h); the same program built with -Wl,-rpath from
# pkg-config, or against the static library, runs without LD_LIBRARY_PATH;
# libktrust.so exports exactly the KT_API functions the installed headers
# declare; no test hook is installed.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
P=$T/prefix
cmake --install "$KT_BUILD" --prefix "$P" >/dev/null || { bad "cmake --install"; finish; }
expect_exit 0 "installed CLI runs" -- "$P/bin/ktrust" --version
# the program carries SQLite, the decompressors and keyutils (a faster start);
# only libcrypto, libm and libc are shared objects it loads
if grep -q '^KT_STATIC_SMALL_LIBS:BOOL=ON' "$KT_BUILD/CMakeCache.txt"; then
    needed=$(objdump -p "$P/bin/ktrust" | awk '/NEEDED/ && $2 !~ /^lib(asan|ubsan|lsan)/ {print $2}' |
        sort | tr '\n' ' ') # a sanitizer build adds its runtimes
    expect_eq "$needed" "libc.so.6 libcrypto.so.3 libm.so.6 " "the CLI needs only libc, libcrypto and libm"
fi
pc=$(find "$P" -name ktrust.pc | head -1)
expect_match "$pc" 'ktrust.pc$' "pkg-config file installed"
expect_exit 0 "man page installed" -- test -f "$P/share/man/man1/ktrust.1"
expect_exit 0 "JSON schema installed" -- cmp "$P/share/ktrust/ktrust.schema.json" "$KT_SRC/doc/ktrust.schema.json"
expect_exit 0 "static library installed" -- sh -c "ls $P/lib*/libktrust.a $P/lib/*/libktrust.a 2>/dev/null | grep -q ."
so=$(find "$P" -name 'libktrust.so.*.*' | head -1)
expect_match "$so" 'libktrust\.so\.0\.' "shared library installed"

# ---- the headers: the public ones, all of them, nothing else ----------------
got=$(cd "$P/include" && find . -type f | sed 's|^\./||' | sort)
want=$(cd "$KT_SRC/include" && find . -type f -name '*.h' | sed 's|^\./||' | sort)
expect_eq "$got" "$want" "installed headers are exactly include/ktrust.h, include/ktrust/*.h and include/ktrust/sys/*.h"
expect_eq "$(find "$P" -name '*_int.h' -o -name internal.h -o -type d -path '*/include/ktrust/*' ! -path '*/include/ktrust/sys')" "" \
    "no internal header or layer folder installed (ktrust/sys/ is the advanced tier)"
# the advanced tier is opt-in: without KT_ADVANCED_API its headers refuse to compile
printf '#include <ktrust/advanced.h>\nint main(void) { return 0; }\n' > adv.c
expect_exit 1 "ktrust/advanced.h without KT_ADVANCED_API: an #error" -- \
    sh -c "cc -I'$P/include' -c adv.c -o adv.o 2>/dev/null; test -f adv.o && exit 0 || exit 1"
expect_exit 0 "ktrust/advanced.h with KT_ADVANCED_API compiles" -- cc -DKT_ADVANCED_API -I"$P/include" -c adv.c -o adv.o
# every quoted include of an installed header is an installed header
for h in $(cd "$P/include" && find . -name '*.h'); do
    for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$P/include/$h"); do
        [ -f "$P/include/$inc" ] && ok || bad "$h includes $inc, which is not installed"
    done
done

# ---- exports: exactly the KT_API functions of the installed headers ---------
# declarations without comments (gcc -fpreprocessed keeps macros unexpanded),
# joined, then the name before the first '(' of each "KT_API ...;"
api=$(for h in $(find "$P/include" -name '*.h'); do
          gcc -fpreprocessed -dD -E -P "$h" 2>/dev/null | grep -v '^#'
      done | tr '\n' ' ' | grep -o 'KT_API[^;]*;' |
      sed -E 's/^([^(]*[^A-Za-z0-9_(])([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(.*/\2/' | sort -u)
n_api=$(printf '%s\n' "$api" | grep -c .)
[ "$n_api" -ge 30 ] && ok || bad "only $n_api KT_API functions found in the installed headers"
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sort -u)
expect_eq "$exported" "$api" "libktrust.so exports exactly the KT_API functions of the installed headers"

# ---- no test hooks in what is installed (doc/HACKING.md, "Test hooks") -------
for f in "$so" "$P/bin/ktrust"; do
    expect_eq "$(strings "$f" | grep -c 'KTRUST_STORE_\(FAIL_AFTER\|INSERT_DELAY_US\)\|KTRUST_TEST_DECODE_SIGNAL\|KTRUST_TEST_KCACHE_TRACE')" 0 \
        "no test hook in $(basename "$f")"
done

# ---- a program on the installed library ----------------------------------
export PKG_CONFIG_PATH=$(dirname "$pc")
cat > prog.c <<'C'
/* prog cert FILE: each certificate in FILE (DER, PEM): description|subject|serial
 * prog module KEYS FILE.ko / pe KEYS FILE.efi / pkcs7 KEYS SIG DATA: KEYS
 *   (certificates) into builtin of a context without a store, then the
 *   verdict (kt_verify_buf) and the key that vouched
 * prog store-add DB KEYS: KEYS into builtin in the store DB, one transaction
 * prog store-list DB: the keys of the store as `ktrust keyring list` lists them */
#include <ktrust.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        exit(2);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    unsigned char *buf = malloc(*len ? *len : 1);
    if (!buf || fread(buf, 1, *len, f) != *len)
        exit(2);
    fclose(f);
    return buf;
}

static int show(void *ctx, const uint8_t *der, size_t len, size_t off)
{
    (void)ctx, (void)off;
    struct kt_x509 *c;
    struct kt_error e = {0};
    int rc = kt_x509_parse(der, len, &c, &e);
    if (rc < 0) {
        printf("%s: %s\n", kt_verdict_name(kt_verdict_of(rc)), e.what);
        return rc;
    }
    char serial[80];
    kt_x509_serial_hex(c, serial, sizeof(serial));
    printf("%s|%s|%s\n", kt_x509_description(c), kt_x509_subject(c), serial);
    kt_x509_free(c);
    return 0;
}

/* a context: no store (db NULL), or the store db read-only or for writing */
static struct kt_ctx *open_ctx(enum kt_ctx_store_mode mode, const char *db)
{
    struct kt_ctx_opts o = {.store_mode = mode, .store_path = db,
                            .store_may_be_missing = mode == KT_CTX_STORE_WRITE};
    struct kt_ctx *ctx = NULL;
    struct kt_error e = {0};
    if (kt_ctx_open(&o, &ctx, NULL, &e) < 0) {
        printf("store: %s\n", e.what);
        exit(2);
    }
    return ctx;
}

/* the certificates of a file into the context's builtin keyring */
static size_t add_keys(struct kt_ctx *ctx, const char *path)
{
    size_t len, n = 0;
    unsigned char *keys = slurp(path, &len);
    struct kt_keyrings *rings = kt_ctx_keyrings(ctx);
    struct kt_error e = {0};
    if (kt_keyrings_add_blob(rings, kt_keyrings_get(rings, "builtin"), keys, len,
                             "file:keys", KT_ADD_EXPLICIT, &n, &e) < 0) {
        printf("keys: %s\n", e.what);
        exit(2);
    }
    free(keys);
    return n;
}

static int list(const char *db)
{
    struct kt_ctx *ctx = open_ctx(KT_CTX_STORE_READ, db);
    struct kt_keyrings *rings = kt_ctx_keyrings(ctx);
    for (size_t i = 0; i < kt_keyrings_count(rings); i++) {
        const struct kt_keyring *r = kt_keyrings_at(rings, i);
        for (size_t j = 0; j < kt_keyring_count(r); j++) {
            const struct kt_key *k = kt_keyring_key(r, j);
            printf("%s\t%s\t%s\t%s\n", kt_keyring_name(kt_key_keyring(k)),
                   kt_key_is_trusted(k) ? "trusted" : "untrusted",
                   kt_x509_description(kt_key_cert(k)), kt_key_source(k));
        }
    }
    kt_ctx_free(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    struct kt_error e = {0};
    size_t len, dlen = 0;
    if (argc == 3 && !strcmp(argv[1], "cert")) {
        unsigned char *buf = slurp(argv[2], &len);
        int rc = kt_certs_foreach(buf, len, show, NULL, &e);
        free(buf);
        return rc < 0;
    }
    if (argc == 3 && !strcmp(argv[1], "store-list"))
        return list(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "store-add")) {
        struct kt_ctx *ctx = open_ctx(KT_CTX_STORE_WRITE, argv[2]);
        size_t n = add_keys(ctx, argv[3]);
        int rc = kt_ctx_commit(ctx, &e);
        kt_ctx_free(ctx);
        printf("%s%zu\n", rc < 0 ? e.what : "added ", n);
        return rc < 0;
    }
    if (argc < 4)
        return 2;
    struct kt_ctx *ctx = open_ctx(KT_CTX_STORE_NONE, NULL);
    add_keys(ctx, argv[2]);
    unsigned char *buf = slurp(argv[3], &len), *data = NULL;
    struct kt_policy pol = {.type = KT_VERIFY_MODULE};
    if (!strcmp(argv[1], "pe")) {
        pol.type = KT_VERIFY_PE;
    } else if (!strcmp(argv[1], "pkcs7") && argc == 5) {
        data = slurp(argv[4], &dlen);
        pol = (struct kt_policy){.type = KT_VERIFY_PKCS7, .detached = data,
                                 .detached_len = dlen, .has_detached = true};
    }
    struct kt_result *res = NULL;
    int rc = kt_verify_buf(ctx, argv[3], buf, len, &pol, &res, &e);
    const char *by = NULL;
    for (size_t i = 0; res && rc == 0 && i < kt_result_signer_count(res) && !by; i++)
        if (kt_result_signer_rc(res, i) == 0)
            by = kt_result_signer_trusted_by(res, i);
    printf("%s %s\n", kt_verdict_name(kt_verdict_of(rc)), by ? by : "-");
    kt_result_free(res);
    kt_ctx_free(ctx);
    free(buf);
    free(data);
    return kt_verdict_of(rc);
}
C
# a sanitizer build installs an instrumented library: build the program alike
SAN=
grep -q '^KT_SANITIZE:BOOL=ON' "$KT_BUILD/CMakeCache.txt" 2>/dev/null && SAN="-fsanitize=address,undefined"
if ! cc -std=c11 -Wall -Wextra -Werror $SAN prog.c -o prog $(pkg-config --cflags --libs ktrust) 2>cc.err; then
    bad "compile against the installed library: $(head -3 cc.err)"
    finish
fi
ok
export LD_LIBRARY_PATH=$(pkg-config --variable=libdir ktrust)
loaded=$(ldd ./prog | sed -n 's/^[[:space:]]*libktrust\.so\.0 => \([^ ]*\) .*/\1/p')
expect_eq "$(realpath "$loaded")" "$(realpath "$so")" "the program runs on the installed libktrust.so"

# certificates: the CLI is the oracle for the description, openssl for the rest
openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -outform DER -out c.der -days 30 \
    -subj "/O=Acme Corp/CN=Vendor Key" 2>/dev/null
got=$(./prog cert c.der)
want=$("$P/bin/ktrust" x509 show --json c.der | sed 's/.*"description":"\([^"]*\)".*/\1/')
expect_eq "${got%%|*}" "$want" "a program on the installed library agrees with the CLI"
expect_match "$got" '^Acme Corp: Vendor Key: [0-9a-f]{40}\|' "... and with the kernel's description rule"
serial=$(openssl x509 -inform DER -in c.der -noout -serial | sed 's/serial=//; s/^0*//' | tr A-F a-f)
expect_eq "${got##*|}" "$serial" "serial as openssl reads it"

# a prefix not on the loader path (README, "Building against an installed
# prefix"): without LD_LIBRARY_PATH the plain build does not start; with
# -Wl,-rpath from pkg-config's libdir, or the static library, it does
libdir=$(pkg-config --variable=libdir ktrust)
expect_eq "$(env -u LD_LIBRARY_PATH ./prog cert c.der >/dev/null 2>&1; echo $?)" 127 \
    "plain build, prefix not on the loader path: libktrust.so.0 not found"
if cc -std=c11 -Wall -Wextra -Werror $SAN prog.c -o prog-rpath $(pkg-config --cflags --libs ktrust) \
    -Wl,-rpath,"$libdir" 2>cc.err; then
    expect_eq "$(env -u LD_LIBRARY_PATH ./prog-rpath cert c.der)" "$got" "-Wl,-rpath: runs without LD_LIBRARY_PATH"
    loaded=$(env -u LD_LIBRARY_PATH ldd ./prog-rpath | sed -n 's/^[[:space:]]*libktrust\.so\.0 => \([^ ]*\) .*/\1/p')
    expect_eq "$(realpath "$loaded")" "$(realpath "$so")" "-Wl,-rpath: on the installed libktrust.so"
else
    bad "compile with -Wl,-rpath: $(head -3 cc.err)"
fi
# the README's three recipes, as written (the prefix and program names ours)
readme=$(awk '/^### Building against an installed prefix/ {s = 1} s && /^```$/ {n++; next} s && n == 1' \
         "$KT_SRC/README.md")
recipes=$(printf '%s\n' "$readme" | grep '^cc ')
expect_eq "$(printf '%s\n' "$recipes" | grep -c .)" 3 "README: three build recipes"
i=0
while read -r line; do
    [ -n "$line" ] || continue
    i=$((i + 1))
    (eval "${line% -o prog} $SAN -o readme$i") 2>cc.err || bad "README recipe $i: $(head -2 cc.err)"
done <<<"$recipes"
expect_eq "$(LD_LIBRARY_PATH=$libdir ./readme1 cert c.der)" "$got" "README 1: LD_LIBRARY_PATH"
expect_eq "$(env -u LD_LIBRARY_PATH ./readme2 cert c.der)" "$got" "README 2: -Wl,-rpath, no LD_LIBRARY_PATH"
expect_eq "$(env -u LD_LIBRARY_PATH ./readme3 cert c.der)" "$got" "README 3: static, no LD_LIBRARY_PATH"
if [ -f "$libdir/libktrust.a" ]; then
    # -lktrust names the shared library when both are there: ask for the archive
    if cc -std=c11 -Wall -Wextra -Werror $SAN prog.c -o prog-static $(pkg-config --cflags ktrust) \
        $(pkg-config --static --libs ktrust | sed 's/-lktrust\b/-l:libktrust.a/') 2>cc.err; then
        expect_eq "$(env -u LD_LIBRARY_PATH ./prog-static cert c.der)" "$got" "static libktrust.a: runs without LD_LIBRARY_PATH"
        expect_eq "$(objdump -p prog-static | grep -c 'NEEDED.*libktrust')" 0 "static: no libktrust.so needed"
    else
        bad "compile with the static library: $(head -3 cc.err)"
    fi
else
    bad "no libktrust.a in $libdir"
fi

# a module signed the way scripts/sign-file signs, verified with the key
mkkey() {
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.pem" -days 3650 \
        -subj "/CN=$2" -addext "keyUsage=digitalSignature" 2>/dev/null
}
mkkey good "Module Signing Key"
mkkey other "Another Key"
head -c 50000 /dev/urandom > mod.ko
openssl cms -sign -binary -noattr -nocerts -outform DER -md sha256 -signer good.pem \
    -inkey good.key -in mod.ko -out mod.p7s -nosmimecap 2>/dev/null
n=$(stat -c %s mod.p7s)
{
    cat mod.ko mod.p7s
    printf '\x00\x00\x02\x00\x00\x00\x00\x00'
    printf "\\x$(printf %02x $((n >> 24 & 255)))\\x$(printf %02x $((n >> 16 & 255)))\\x$(printf %02x $((n >> 8 & 255)))\\x$(printf %02x $((n & 255)))"
    printf '~Module signature appended~\n'
} > signed.ko
desc=$(./prog cert good.pem | cut -d'|' -f1)
got=$(./prog module good.pem signed.ko); rc=$?
expect_eq "$rc $got" "0 trusted $desc" "module: trusted, by the signing key"
"$P/bin/ktrust" verify-module -q --trust good.pem signed.ko
expect_eq "$?" 0 "module: the installed CLI agrees"
got=$(./prog module other.pem signed.ko); rc=$?
expect_eq "$rc ${got%% *}" "2 untrusted" "module: another key does not vouch"
cp signed.ko flipped.ko
flip flipped.ko 1000
got=$(./prog module good.pem flipped.ko); rc=$?
expect_eq "$rc ${got%% *}" "5 rejected" "module: a flipped bit in the code is rejected"
got=$(./prog module good.pem mod.ko); rc=$?
expect_eq "$rc ${got%% *}" "1 unsigned" "module: unsigned"

# a detached PKCS#7 (openssl cms, with attributes and the signer's certificate)
head -c 3000 /dev/urandom > data.bin
openssl cms -sign -binary -outform DER -md sha256 -signer good.pem -inkey good.key \
    -in data.bin -out data.p7s 2>/dev/null
got=$(./prog pkcs7 good.pem data.p7s data.bin); rc=$?
expect_eq "$rc $got" "0 trusted $desc" "pkcs7: trusted, by the signing key"
"$P/bin/ktrust" verify-pkcs7 -q --trust good.pem data.p7s --data data.bin
expect_eq "$?" 0 "pkcs7: the installed CLI agrees"
got=$(./prog pkcs7 other.pem data.p7s data.bin); rc=$?
expect_eq "$rc ${got%% *}" "2 untrusted" "pkcs7: another key does not vouch"
flip data.bin 100
got=$(./prog pkcs7 good.pem data.p7s data.bin); rc=$?
expect_eq "$rc ${got%% *}" "5 rejected" "pkcs7: a flipped bit in the data is rejected"

# the store: what the library writes the CLI lists, and the other way round
got=$(./prog store-add s.db good.pem)
expect_eq "$got" "added 1" "store: a key added in one transaction"
expect_eq "$(./prog store-list s.db)" "$("$P/bin/ktrust" keyring list --store s.db)" \
    "store: the library lists what the CLI lists"
expect_match "$(./prog store-list s.db)" "^builtin	trusted	$desc	file:keys$" "store: the key, trusted, in builtin"
"$P/bin/ktrust" keyring add -q --store s.db --keyring builtin other.pem
expect_eq "$(./prog store-list s.db)" "$("$P/bin/ktrust" keyring list --store s.db)" \
    "store: the library reads what the CLI added"
expect_eq "$(./prog store-list s.db | wc -l)" 2 "store: both keys"

# a real PE image: Debian's shim, signed by Microsoft's UEFI CA 2011 (and 2023)
c=${KTRUST_CORPUS:-$KT_SRC/../shared/corpus}
if [ -f "$c/debian/shimx64.efi.signed" ]; then
    ms=$c/trust/microsoft-uefi-ca-2011.pem
    got=$(./prog cert "$ms")
    expect_match "${got#*|}" 'CN=Microsoft Corporation UEFI CA 2011' "corpus certificate parsed"
    want=$("$P/bin/ktrust" x509 show --json "$ms" | sed 's/.*"description":"\([^"]*\)".*/\1/')
    expect_eq "${got%%|*}" "$want" "corpus certificate: the CLI agrees"
    got=$(./prog pe "$ms" "$c/debian/shimx64.efi.signed"); rc=$?
    expect_eq "$rc $got" "0 trusted $(./prog cert "$ms" | cut -d'|' -f1)" "shim: trusted by the Microsoft UEFI CA 2011"
    got=$(./prog pe good.pem "$c/debian/shimx64.efi.signed"); rc=$?
    expect_eq "$rc ${got%% *}" "2 untrusted" "shim: not by another key"
elif [ -n "${CI:-}" ]; then
    bad "corpus not found but CI is set"
else
    echo "corpus not found: the PE part skipped"
fi
# ---- the boot engine on the installed library: chain, audit, efivars, update check
cat > boot.c <<'C'
/* boot chain EFIVARS DB SHIM LOADER KERNEL MODULE...: every link's role|verdict|reason
 * boot audit ROOT: the audit's links and modules
 * boot update DBX FILE: what the dbx update does to FILE */
#include <ktrust.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int module(void *ctx, size_t i, const struct kt_chain_link *l)
{
    (void)ctx, (void)i;
    printf("%s|%s|%s\n", kt_chain_role_name(l->role), kt_verdict_name(kt_verdict_of(l->verdict)),
           l->reason);
    return 0;
}

static int chain(int argc, char **argv)
{
    struct kt_efivars vars;
    struct kt_error e = KT_ERROR_INIT;
    if (kt_efivars_read(argv[2], &vars, &e) < 0)
        return printf("efivars: %s\n", e.what), 2;
    size_t n;
    printf("db present %d, %zu bytes\n", vars.var[KT_EFIVAR_DB].state == KT_EFIVAR_PRESENT,
           (kt_efivar_data(&vars.var[KT_EFIVAR_DB], &n), n));
    const char *db[] = {argv[3]};
    struct kt_chain_opts o = {.vars = &vars, .strict_vars = true, .db = db, .n_db = 1,
                              .sbat = true, .shim = argv[4], .loader = argv[5], .kernel = argv[6],
                              .modules = (const char *const *)argv + 7,
                              .n_modules = (size_t)argc - 7, .on_module = module};
    struct kt_chain_report r;
    if (kt_chain_run(&o, &r, &e) < 0)
        return printf("chain: %s\n", e.what), 2;
    for (int i = 0; i < KT_CHAIN__BOOT; i++)
        module(NULL, 0, &r.link[i]);
    printf("sbat %s -> %s; worst %d\n", r.sbat_current, r.sbat_applied, r.worst);
    kt_chain_report_free(&r);
    kt_efivars_free(&vars);
    return 0;
}

static int audit(const char *root)
{
    struct kt_audit_opts o = {.root = root, .no_latest = true};
    struct kt_audit *a = malloc(sizeof(*a));
    struct kt_error e = KT_ERROR_INIT;
    if (!a || kt_audit_run(&o, a, &e) < 0)
        return printf("audit: %s\n", e.what), 2;
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++)
        printf("%s|%s\n", kt_audit_link_name(i), kt_verdict_name(kt_verdict_of(a->links[i].link.verdict)));
    printf("modules %zu trusted %zu\n", a->n_modules, a->n_modules_trusted);
    kt_audit_free(a);
    free(a);
    return 0;
}

static int update(const char *dbx, const char *file)
{
    struct kt_update_check *u;
    struct kt_update_verdict v;
    struct kt_error e = KT_ERROR_INIT;
    FILE *f = fopen(dbx, "rb");
    static unsigned char buf[1 << 20];
    size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f)
        fclose(f);
    if (kt_update_check_new(&u) < 0 || kt_update_check_add_dbx(u, buf, n, dbx, &e) < 0)
        return printf("dbx: %s\n", e.what), 2;
    kt_update_check_file(u, file, 0, &v);
    printf("%s %zu\n", v.rc < 0 ? "malformed" : v.n ? "would_be_revoked" : "still_boots", v.n);
    kt_update_verdict_free(&v);
    kt_update_check_free(u);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 7 && !strcmp(argv[1], "chain"))
        return chain(argc, argv);
    if (argc == 3 && !strcmp(argv[1], "audit"))
        return audit(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "update"))
        return update(argv[2], argv[3]);
    return 2;
}
C
if ! cc -std=c11 -Wall -Wextra -Werror $SAN boot.c -o boot $(pkg-config --cflags --libs ktrust) 2>cc.err; then
    bad "compile the boot program against the installed library: $(head -3 cc.err)"
elif [ -f "$c/debian/shimx64.efi.signed" ]; then
    ok
    D=$c/debian EV=$c/peers/shim-efivars/efivars-1
    mods=("$D"/modules/*.ko)
    got=$(./boot chain "$EV" "$ms" "$D/shimx64.efi.signed" "$D/grubx64.efi.signed" \
          "$D/vmlinuz-6.1.0-57-amd64" "${mods[@]:0:2}")
    want=$("$P/bin/ktrust" chain --json --efivars "$EV" --db "$ms" "$D/shimx64.efi.signed" \
           "$D/grubx64.efi.signed" "$D/vmlinuz-6.1.0-57-amd64" "${mods[@]:0:2}" |
           jq -r 'select(.role) | "\(.role)|\(.verdict)|\(.reason)"')
    expect_eq "$(grep -c '|trusted|' <<<"$got")" 5 "boot engine: shim, loader, kernel and 2 modules trusted"
    expect_eq "$(grep '|' <<<"$got" | sort)" "$(sort <<<"$want")" "boot engine: the same links and reasons as ktrust chain"
    expect_match "$got" 'db present 1, [1-9][0-9]* bytes' "efivars: db read"
    mkdir -p root/boot/efi/EFI/debian root/sys/firmware/efi root/lib/modules/6.1.0-57-amd64
    cp "$D/shimx64.efi.signed" root/boot/efi/EFI/debian/shimx64.efi
    cp "$D/grubx64.efi.signed" root/boot/efi/EFI/debian/grubx64.efi
    cp "$D/vmlinuz-6.1.0-57-amd64" root/boot/
    cp -r "$EV" root/sys/firmware/efi/efivars
    cp "${mods[@]:0:3}" root/lib/modules/6.1.0-57-amd64/
    got=$(./boot audit root)
    expect_eq "$got" "$(printf 'shim|trusted\nloader|trusted\nkernel|trusted\nmodules 3 trusted 3')" \
        "audit through the installed library"
    "$P/bin/ktrust" audit -q --root root
    expect_eq "$?" 0 "audit: the installed CLI agrees"
    got=$(./boot update "$c/peers/secureboot-objects/tree/PostSignedObjects/Optional/DBX/DBXUpdate2024.bin" \
          "$D/shimx64.efi.signed")
    want=$("$P/bin/ktrust" check-update --json --dbx "$c/peers/secureboot-objects/tree/PostSignedObjects/Optional/DBX/DBXUpdate2024.bin" \
           "$D/shimx64.efi.signed" | jq -r 'select(.file) | "\(.verdict) \(.reasons | length)"')
    expect_eq "$got" "$want" "update check: the installed library agrees with check-update"
fi
finish
