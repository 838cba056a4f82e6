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
# the kernel-key cache (chain, audit: $KTRUST_CACHE/kernel-keys) is the
# build's, shared by its tests, never the user's: an entry is what decoding
# the image with that SHA-256 gives, whichever test saved it, so a test's
# verdicts are the same with it or without (KTRUST_CACHE=off)
: "${KTRUST_CACHE:=$KT_BUILD/test-cache}"
export KTRUST_CACHE
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
flip() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# port_pair: print a TCP port P on 127.0.0.1 whose P+1 is free too (swtpm's
# server and control ports: the TCTI's rule), searched from a point the
# process id picks.  Free when looked at, not reserved: swtpm_start checks
# that its swtpm holds the pair.
port_pair() {
    python3 -c '
import os, socket
start = 20000 + os.getpid() % 20000
for p in list(range(start, 65000, 2)) + list(range(20000, start, 2)):
    ok = True
    for q in (p, p + 1):
        s = socket.socket()
        try: s.bind(("127.0.0.1", q))
        except OSError: ok = False
        s.close()
    if ok: print(p); break'
}

# swtpm_listening PID PORT: wait until process PID listens on 127.0.0.1 PORT
# and PORT+1 (its own sockets, by inode); fail as soon as it is gone (another
# process bound a port first), or after 120 s
swtpm_listening() {
    python3 - "$1" "$2" <<'PY'
import os, sys, time
pid, port = sys.argv[1], int(sys.argv[2])
want = {"0100007F:%04X" % p for p in (port, port + 1)}
end = time.time() + 120
while time.time() < end:
    try:
        if open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()[0] in "ZX":
            sys.exit(1)
        mine = set()
        for fd in os.listdir("/proc/%s/fd" % pid):
            try: mine.add(os.readlink("/proc/%s/fd/%s" % (pid, fd)))
            except OSError: pass
    except (OSError, IndexError):
        sys.exit(1)
    held = set()
    for line in open("/proc/net/tcp").readlines()[1:]:
        f = line.split()
        if f[1] in want and f[3] == "0A" and "socket:[%s]" % f[9] in mine:
            held.add(f[1])
    if held == want:
        sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
PY
}

# swtpm_start DIR [PORT]: a swtpm (TPM 2.0, its state in DIR) on PORT (a
# restart keeps its port when it can) or a free pair; retried on another
# pair when its swtpm cannot bind (a test running at the same time took the
# port between port_pair and the bind), so the TCTI never reaches another
# test's TPM.  Sets SWPID, PORT, TCTI and TPM2TOOLS_TCTI; swtpm's messages
# go to $T/swtpm.log.
swtpm_start() {
    local want=${2:-} i
    for i in 1 2 3 4 5 6 7 8; do
        PORT=${want:-$(port_pair)}
        want=
        swtpm socket --tpm2 --server type=tcp,port=$PORT --ctrl type=tcp,port=$((PORT + 1)) \
            --tpmstate dir="$1" --flags startup-clear >>"$T/swtpm.log" 2>&1 &
        SWPID=$!
        if swtpm_listening "$SWPID" "$PORT"; then
            TCTI=swtpm:host=127.0.0.1,port=$PORT
            export TPM2TOOLS_TCTI=$TCTI
            return 0
        fi
        kill "$SWPID" 2>/dev/null
        wait "$SWPID" 2>/dev/null
        echo "swtpm_start: port $PORT: no swtpm listening (attempt $i)" >>"$T/swtpm.log"
    done
    SWPID=
    echo "swtpm_start: no swtpm started; $T/swtpm.log:" >&2
    tail -5 "$T/swtpm.log" >&2
    return 1
}

finish() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
    exit $?
}

# efi SUBCOMMAND ...: EFI signature lists, efivarfs files, load options,
# BootOrder, .sbatlevel (tests/fixtures/efi.py; `efi --help`)
efi() { python3 "$KT_SRC/tests/fixtures/efi.py" "$@"; }
