# Sourced by tests/cli/*.sh.  Provides: $KTRUST, $KTRUST_HOOKS, $KT_SRC, a scratch $T,
# check helpers, and corpus discovery with the CI rule (missing corpus fails
# in CI, is skipped with a message elsewhere).
set -u
: "${KT_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${KT_BUILD:=$KT_SRC/build}"
: "${KTRUST:=$KT_BUILD/ktrust}"
# the same CLI built with the store's test hooks (KT_TEST_HOOKS: the
# KTRUST_STORE_FAIL_AFTER / KTRUST_STORE_INSERT_DELAY_US variables); the
# installed ktrust and libktrust have none
: "${KTRUST_HOOKS:=$KT_BUILD/tests/ktrust-hooks}"
T=$(mktemp -d "${TMPDIR:-/tmp}/kt-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
# the default store ($XDG_DATA_HOME/ktrust/keyrings.db) is this test's own:
# never the user's, never one another test writes at the same time
export XDG_DATA_HOME=$T/xdg-data
unset KTRUST_STORE
PASS=0
FAIL=0

ok() { PASS=$((PASS + 1)); }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*" >&2; }

# expect_exit CODE NAME -- CMD...: run CMD, compare its exit code
expect_exit() {
    local want=$1 name=$2
    shift 3
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$name: exit $rc, want $want; output: $(echo "$out" | head -5)"; fi
}

# expect_eq GOT WANT NAME
expect_eq() {
    if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi
}

# expect_match TEXT REGEX NAME
expect_match() {
    if printf '%s' "$1" | grep -Eq -- "$2"; then ok; else bad "$3: '$(printf '%s' "$1" | head -3)' does not match /$2/"; fi
}

corpus() {
    local c=${KTRUST_CORPUS:-$KT_SRC/../shared/corpus}
    if [ -f "$c/README.md" ]; then
        CORPUS=$(cd "$c" && pwd)
        return 0
    fi
    if [ -n "${CI:-}" ]; then
        echo "corpus not found but CI is set: failing" >&2
        exit 1
    fi
    echo "skipped: corpus not found"
    exit 77
}

# pcr_oracle_setup (after corpus, in $T): the corpus's OVMF+swtpm boot as
# $O, its log as $LOG, tpm2_eventlog's view of it in log.yaml (for
# tests/fixtures/pcr_oracle.py, run by oracle: PCR $OPCR, default 7), an ESP
# holding its shim in esp/; predicted [ARGS]: eventlog --predict's PCR
# $OPCR, "BANK HEX" per line.
pcr_oracle_setup() {
    O=$CORPUS/peers/ovmf-swtpm-boot
    LOG=$O/eventlog.bin
    tpm2_eventlog "$LOG" >log.yaml 2>/dev/null
    mkdir -p esp/EFI/BOOT
    cp "$CORPUS/debian/shimx64.efi.signed" esp/EFI/BOOT/BOOTX64.EFI
}
oracle() { OPCR=${OPCR:-7} python3 "$KT_SRC/tests/fixtures/pcr_oracle.py" "$@"; }
predicted() { "$KTRUST" eventlog "$LOG" --predict --json "$@" | OPCR=${OPCR:-7} python3 -c '
import sys, json, os
for l in sys.stdin:
    d = json.loads(l)
    if d["type"] == "prediction" and d["pcr"] == int(os.environ["OPCR"]): print(d["bank"], d["predicted"])'; }

# need_python_cryptography: set $PY to a python3 that has the cryptography
# module (fast bulk certificates); fail in CI without one, skip elsewhere.
need_python_cryptography() {
    PY=
    local p
    for p in python3 /usr/bin/python3; do
        "$p" -c 'import cryptography' 2>/dev/null && { PY=$p; return 0; }
    done
    if [ -n "${CI:-}" ]; then
        echo "python3-cryptography missing but CI is set: failing" >&2
        exit 1
    fi
    echo "skipped: python3-cryptography missing"
    exit 77
}

# need_strace: skip (exit 77) without strace, or where ptrace is refused
# need_tools TOOL...: skip (77) unless every TOOL is on PATH.
need_tools() {
    local t
    for t in "$@"; do
        command -v "$t" >/dev/null || { echo "skipped: $t not installed"; exit 77; }
    done
}

# need_sign_file: SIGN_FILE, the kernel's scripts/sign-file (linux-kbuild-6.1);
# skip without it (fail under CI)
need_sign_file() {
    SIGN_FILE=/usr/lib/linux-kbuild-6.1/scripts/sign-file
    if [ ! -x "$SIGN_FILE" ]; then
        [ -n "${CI:-}" ] && { echo "sign-file missing but CI is set" >&2; exit 1; }
        echo "skipped: $SIGN_FILE not installed (linux-kbuild-6.1)"
        exit 77
    fi
}

# kernel_banner IMAGE OUT FROM TO...: the kernel image with each FROM of its
# version string replaced by TO (padded to the same length: the setup
# header's pointer stays; the builtin keys, in the compressed payload, too)
kernel_banner() {
    python3 - "$@" <<'EOF'
import sys
k, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
d = open(k, "rb").read()
for a, b in zip(pairs[0::2], pairs[1::2]):
    a, b = a.encode(), b.encode().ljust(len(a))
    assert d.count(a) >= 1 and len(b) == len(a), a
    d = d.replace(a, b, 1)
open(out, "wb").write(d)
EOF
}

# sdboot_ukis KEY CRT NAME=KERNEL...: systemd-boot as sdboot.efi and a UKI
# NAME.efi around each KERNEL (NAME.unsigned before signing), signed by KEY;
# returns 1 when sbsign, objcopy or systemd-boot-efi is missing
SDBOOT_EFI=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
sdboot_ukis() {
    local key=$1 crt=$2 p
    shift 2
    command -v sbsign >/dev/null && [ -f $SDBOOT_EFI ] && command -v objcopy >/dev/null || return 1
    sbsign --key "$key" --cert "$crt" --output sdboot.efi $SDBOOT_EFI 2>/dev/null
    for p in "$@"; do
        "$KT_SRC/tests/fixtures/mkuki.sh" "${p%%=*}.unsigned" .linux="${p#*=}" >/dev/null || bad "mkuki ${p%%=*}"
        sbsign --key "$key" --cert "$crt" --output "${p%%=*}.efi" "${p%%=*}.unsigned" 2>/dev/null
    done
}

need_strace() {
    command -v strace >/dev/null || { echo "skipped: strace not installed (scripts/deps.sh test)"; exit 77; }
    strace -f -e trace=%file -o "$T/probe.trace" true 2>/dev/null ||
        { echo "skipped: strace cannot trace here (ptrace refused)"; exit 77; }
}

# flip FILE OFFSET: invert every bit of the byte at OFFSET, in place.
# (Writing a fixed byte instead changes nothing when random data already
# holds it: a "tampered" file equal to the original, once in 256 runs.)
# port_pair: print a free TCP port P on 127.0.0.1 whose P+1 is free too
# (swtpm's server and control ports), searched from a point the process id
# picks so that tests running at once rarely race for the same one
port_pair() {
    python3 -c '
import os, socket
for p in range(20000 + os.getpid() % 20000, 65000, 2):
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try: s.bind(("127.0.0.1", q))
        except OSError: ok = False
        s.close()
    if ok: print(p); break'
}

flip() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

finish() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
    exit $?
}

# efi SUBCOMMAND ...: EFI signature lists, efivarfs files, load options,
# BootOrder, .sbatlevel (tests/fixtures/efi.py; `efi --help`)
efi() { python3 "$KT_SRC/tests/fixtures/efi.py" "$@"; }
