#!/usr/bin/env bash
# make install: the CLI, libktrust (static and shared), headers, ktrust.pc and
# the man page land under the prefix, and a program built against the
# installed library with pkg-config parses a certificate as the CLI does.
. "$(dirname "$0")/../lib/common.sh"
cd "$T"
P=$T/prefix
cmake --install "$KT_BUILD" --prefix "$P" >/dev/null || { bad "cmake --install"; finish; }
expect_exit 0 "installed CLI runs" -- "$P/bin/ktrust" --version
pc=$(find "$P" -name ktrust.pc | head -1)
expect_match "$pc" 'ktrust.pc$' "pkg-config file installed"
expect_exit 0 "man page installed" -- test -f "$P/share/man/man1/ktrust.1"
expect_exit 0 "public header installed" -- test -f "$P/include/ktrust.h"
expect_exit 0 "static library installed" -- sh -c "ls $P/lib*/libktrust.a $P/lib/*/libktrust.a 2>/dev/null | grep -q ."
export PKG_CONFIG_PATH=$(dirname "$pc")
cat > prog.c <<'C'
#include <ktrust.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "rb");
    static unsigned char buf[65536];
    size_t n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    struct kt_x509 *c;
    struct kt_error e = {0};
    int rc = kt_x509_parse(buf, n, &c, &e);
    if (rc < 0) {
        printf("%s: %s\n", kt_verdict_name(kt_verdict_of(rc)), e.what);
        return 1;
    }
    printf("%s\n", c->description);
    kt_x509_free(c);
    return 0;
}
C
# a sanitizer build installs an instrumented library: build the program alike
SAN=
grep -q '^KT_SANITIZE:BOOL=ON' "$KT_BUILD/CMakeCache.txt" 2>/dev/null && SAN="-fsanitize=address,undefined"
if cc -std=c11 -Wall -Werror $SAN prog.c -o prog $(pkg-config --cflags --libs ktrust) 2>cc.err; then
    ok
    openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -outform DER -out c.der -days 30 \
        -subj "/O=Acme Corp/CN=Vendor Key" 2>/dev/null
    libdir=$(pkg-config --variable=libdir ktrust)
    got=$(LD_LIBRARY_PATH=$libdir ./prog c.der)
    want=$("$P/bin/ktrust" x509 show --json c.der | sed 's/.*"description":"\([^"]*\)".*/\1/')
    expect_eq "$got" "$want" "a program on the installed library agrees with the CLI"
    expect_match "$got" '^Acme Corp: Vendor Key: [0-9a-f]{40}$' "... and with the kernel's description rule"
else
    bad "compile against the installed library: $(head -3 cc.err)"
fi
finish
