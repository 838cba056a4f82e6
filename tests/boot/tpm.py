#!/usr/bin/env python3
"""Measured boots as the oracle of `ktrust eventlog` (issue #26, "Ground
truth"): OVMF (Secure Boot, Microsoft keys) with a software TPM 2.0 (swtpm,
a fresh state per boot) boots the corpus shim, GRUB and kernel to a busybox
initramfs that prints the firmware event log and the TPM's PCRs.

  1. State A (the stock store): the log's replay must equal the PCRs read
     from the TPM (`ktrust eventlog LOG --pcrs`), both banks; the kernel's
     IMA measurement list (ima_policy=tcb ima_template=ima-sig, signed files
     in the initramfs) replays to the TPM's PCR 10 (`ktrust ima-list`), its
     boot_aggregate to the log's PCRs 0-9, and each measured signature is
     judged as evmctl ima_verify judges it.
  2. For each change B (dbx + one hash, db + Microsoft UEFI CA 2023, a newer
     SbatLevel, one more MOK, the PK deleted, a PK re-enrolled in setup mode,
     dbt/dbr, MokListTrusted, a db CA under another owner): `ktrust eventlog logA --predict --efivars B
     --esp ESP` predicts PCR 7 (and 14); state B is booted and the measured
     PCRs must equal the prediction.  On a difference the events of log B and
     the predicted events are printed side by side.

  tpm.py [--list] [SCENARIO ...]

KT_BOOT_FLIP=SCENARIO corrupts that scenario's first measured value (PCR 7
sha256 in a change scenario) before the comparison (the test of the test: it
must then fail).  The driver is harness.py's, shared with run.py.
"""
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bootlib as B  # noqa: E402
import harness as H  # noqa: E402

# Scenarios where ktrust's prediction and the measured PCRs are known to
# differ; the coordinator fixes the product and removes the entry.
KNOWN_DISAGREEMENT = {
}

# IMA (#37): the kernel boots with ima_policy=tcb ima_template=ima-sig; /init
# (when the initramfs has them: uki.py's has not) gives the files under /ima their security.ima (evmctl signatures made by
# ima_material), replaces the boot policy by one that measures what is read
# from the initramfs (tmpfs: the tcb policy leaves it out), reads the files,
# then prints the measurement list (both forms) before the PCRs: nothing on
# tmpfs is read between the two, so PCR 10 printed is the list's.
# The same policy (written once: no CONFIG_IMA_WRITE_POLICY) appraises the
# four files (owner 4242, so nothing else /init opens) against `_ima`, the
# keyring the Debian kernel searches (no CONFIG_INTEGRITY_TRUSTED_KEYRING):
# /init makes it and imports the test's .ima key, vouched for by nothing.
# Each open says ok or refused (EACCES), with the kernel's audit lines;
# process_measurement measures before it appraises, so a refused file is in
# the list as before.
IMA_CMDLINE = " ima_policy=tcb ima_template=ima-sig"
IMA_FILES = ("signed", "altered", "otherkey", "unsigned")
IMA_PART = r"""P=/sys/kernel/security/ima
if [ -d /ima ]; then
    for f in /ima/*.sig; do setfattr -n security.ima -v 0x$(cat $f) ${f%.sig} || echo "KT-ERROR setfattr $f"; done
    busybox chown 4242 /ima/signed /ima/altered /ima/otherkey /ima/unsigned || echo "KT-ERROR chown"
    k=$(keyctl newring _ima @u) && keyctl padd asymmetric "" $k </ima-key.der >/dev/null || echo "KT-ERROR no _ima keyring"
    { echo "measure func=FILE_CHECK mask=MAY_READ fsmagic=0x01021994"
      echo "appraise func=FILE_CHECK fsmagic=0x01021994 fowner=4242 appraise_type=imasig"; } >$P/policy || echo "KT-ERROR ima policy not written"
    for f in signed altered otherkey unsigned; do
        if e=$(cat /ima/$f 2>&1 >/dev/null); then echo "KT-IMA-OPEN $f ok"; else echo "KT-IMA-OPEN $f refused $e"; fi
    done
    dmesg | grep -E "integrity|_ima|type=1800" | while read -r l; do echo "KT-IMA-KLOG $l"; done
    echo "KT-IMA-LOCKDOWN $(cat /sys/kernel/security/lockdown 2>&1)"
fi
echo KT-IMA-BEGIN
base64 < $P/binary_runtime_measurements
echo KT-IMA-END
echo KT-IMA-ASCII-BEGIN
base64 < $P/ascii_runtime_measurements
echo KT-IMA-ASCII-END
"""

TPM_INIT = B.init_script(IMA_PART + r"""L=/sys/kernel/security/tpm0/binary_bios_measurements
[ -r $L ] || echo "KT-ERROR no $L"
echo "KT-EVENTLOG-SHA256 $(sha256sum < $L | cut -d' ' -f1)"
echo KT-EVENTLOG-BEGIN
base64 < $L
echo KT-EVENTLOG-END
for bank in sha1 sha256; do
    for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
        echo "KT-PCR $bank $i $(cat /sys/class/tpm/tpm0/pcr-$bank/$i 2>&1)"
    done
done
""")

RUNNER = H.Runner(KNOWN_DISAGREEMENT, "measured")
scenario = RUNNER.scenario
Result = H.Result


# ------------------------------------------------------------------ one measured boot
class Measured:
    """What a measured boot left: the event log file, the PCRs {(bank, n): hex},
    the runtime variables the kernel saw {name: bytes}, the serial log."""

    def __init__(self, w, log, pcrs, rtvars, serial):
        self.w, self.log, self.pcrs, self.rtvars, self.serial = w, log, pcrs, rtvars, serial

    def pcrs_file(self):
        path = os.path.join(self.w, "pcrs.txt")
        B.write_atomic(path, "".join("%s %d %s\n" % (bank, n, hexv)
                                     for (bank, n), hexv in sorted(self.pcrs.items())).encode())
        return path


def parse_serial(w, serial, os_log=True):
    """The log, the PCRs and the RT variables a boot printed.  os_log False:
    a boot whose kernel may expose no event log (seen with Secure Boot off:
    no binary_bios_measurements, the PCRs readable); the log is then None
    and only the PCRs compare."""
    m = re.search(r"KT-EVENTLOG-SHA256 ([0-9a-f]{64})", serial)
    body = re.search(r"KT-EVENTLOG-BEGIN\n(.*?)KT-EVENTLOG-END", serial, re.S)
    if (not m or not body) and os_log:
        raise RuntimeError("no event log on the serial console (%s)" % "; ".join(evidence(serial)))
    log = None
    if m and body:
        log = log_of(w, serial, m, body)
    pcrs = {}
    for bank, n, hexv in re.findall(r"^KT-PCR (sha1|sha256) (\d+) ([0-9A-Fa-f]+)\s*$", serial, re.M):
        pcrs[(bank, int(n))] = hexv.lower()
    if len(pcrs) != 30:
        raise RuntimeError("%d PCR values on the serial console, not 30" % len(pcrs))
    rtvars = {}
    for name, b64 in re.findall(r"^KT-VAR (\S+) ?(\S*)\s*$", serial, re.M):
        rtvars[name] = base64.b64decode(b64)
    return log, pcrs, rtvars


def log_of(w, serial, m, body):
    text = "".join(line.strip() for line in body.group(1).splitlines()
                   if re.fullmatch(r"[A-Za-z0-9+/=]+", line.strip()))
    data = base64.b64decode(text)
    if hashlib.sha256(data).hexdigest() != m.group(1):
        raise RuntimeError("event log garbled on the serial console: sha256 %s, the guest said %s"
                           % (hashlib.sha256(data).hexdigest(), m.group(1)))
    log = os.path.join(w, "eventlog.bin")
    B.write_atomic(log, data)
    return log


def evidence(serial):
    return [ln[:160] for ln in H.evidence(serial, (r"KT-ERROR|KTBOOT-|Kernel panic|Access Denied|Verification failed|tpm",))]


def swtpm_start(d):
    """A fresh swtpm (TPM 2.0) in d; its control socket path and process."""
    state = os.path.join(d, "tpmstate")
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state)
    sock = os.path.join(d, "swtpm.sock")
    if os.path.exists(sock):
        os.unlink(sock)
    p = subprocess.Popen(["swtpm", "socket", "--tpm2", "--tpmstate", "dir=" + state,
                          "--ctrl", "type=unixio,path=" + sock, "--terminate",
                          "--log", "file=" + os.path.join(d, "swtpm.log")],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t0 = time.monotonic()
    while not os.path.exists(sock):
        if p.poll() is not None:
            raise RuntimeError("swtpm exited %d: %s" % (p.returncode, p.stderr.read().decode(errors="replace")))
        if time.monotonic() - t0 > 10:
            p.kill()
            raise RuntimeError("swtpm made no socket in 10 s")
        time.sleep(0.1)
    return sock, p


def esp_dir(w, loader=B.GRUB):
    """The ESP's boot files as a directory, for --predict --esp."""
    return files_dir(os.path.join(w, "espdir"),
                     B.esp_files(loader=loader, cfg=B.grub_cfg_kernel(B.KERNEL_CMDLINE + IMA_CMDLINE)))


def files_dir(d, files):
    """files {"EFI/BOOT/BOOTX64.EFI": src path or bytes} written under d (emptied first)."""
    shutil.rmtree(d, ignore_errors=True)
    for dst, src in files.items():
        path = os.path.join(d, dst)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(src, bytes):
            open(path, "wb").write(src)
        else:
            shutil.copy(src, path)
    return d


def ima_material():
    """The IMA keys and signed files, made once in WORK (RSA PKCS#1 v1.5
    signatures are deterministic: the initramfs, and with it state A's
    cached boot, stays the same from run to run): a CA (builtin for the
    check, --trust), the .ima key it signed, another key .ima lacks.  Returns
    the initramfs entries and {name: path} of ca.pem, ima.der and the files
    with their .sig, for the oracle."""
    d = os.path.join(B.WORK, "ima-keys")
    files = {"ca": os.path.join(d, "ca.pem"), "ima": os.path.join(d, "ima.der")}
    with B.locked("ima-keys"):
        if not os.path.exists(os.path.join(d, "done")):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            run = lambda *a: B.run(list(a), cwd=d)  # noqa: E731
            run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
                "-out", "ca.pem", "-days", "3650", "-subj", "/CN=ktrust IMA test CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,digitalSignature")
            open(os.path.join(d, "ext"), "w").write("keyUsage=critical,digitalSignature\n"
                                                    "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
            for k in ("ima", "other"):
                run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", k + ".key", "-out",
                    k + ".csr", "-subj", "/CN=ktrust IMA test %s key" % k)
                run("openssl", "x509", "-req", "-in", k + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                    "-CAcreateserial", "-out", k + ".pem", "-days", "3650", "-extfile", "ext")
            run("openssl", "x509", "-in", "ima.pem", "-outform", "DER", "-out", "ima.der")
            for f in IMA_FILES:
                open(os.path.join(d, f), "w").write("ktrust IMA test file %s\n" % f)
            for f, key in (("signed", "ima"), ("altered", "ima"), ("otherkey", "other")):
                run("evmctl", "ima_sign", "--key", key + ".key", "--sigfile", "-a", "sha256", f)
            open(os.path.join(d, "altered"), "a").write("changed after it was signed\n")
            open(os.path.join(d, "done"), "w").write("")
    ent = [("ima", 0o040755, b""), ("bin/setfattr", 0o100755, B.read_bytes(shutil.which("setfattr"))),
           ("ima-key.der", 0o100644, B.read_bytes(files["ima"]))]  # imported into _ima by /init
    for f in IMA_FILES:
        files[f] = os.path.join(d, f)
        ent.append(("ima/" + f, 0o100644, B.read_bytes(files[f])))
        if os.path.exists(files[f] + ".sig"):
            ent.append(("ima/%s.sig" % f, 0o100644, B.read_bytes(files[f] + ".sig").hex().encode()))
    return ent, files


def measured_files(loader=B.GRUB):
    return B.esp_files(loader=loader, cfg=B.grub_cfg_kernel(B.KERNEL_CMDLINE + IMA_CMDLINE),
                       kernel=B.KERNEL, initrd=B.initramfs(TPM_INIT, ima_material()[0]))


def measured_boot(name, setup=None, loader=B.GRUB, os_log=True):
    """Boot the store (stock, after setup(vars, dir)) with a fresh TPM; a Measured."""
    w = B.scratch("tpm-" + name)
    v = B.scenario_store(w, setup)
    # the state as ktrust reads it (taken before the boot: shim writes the store)
    B.runtime_view(v, os.path.join(w, "efivars"))
    esp = B.make_esp(os.path.join(w, "esp.img"), measured_files(loader))
    sock, sw = swtpm_start(w)
    try:
        serial = B.boot("tpm-" + name, esp, v, timeout=400, kernel=True, tpm_sock=sock)
    finally:
        B.terminate(sw)
    open(os.path.join(w, "serial.log"), "w").write(serial)
    log, pcrs, rtvars = parse_serial(w, serial, os_log)
    return Measured(w, log, pcrs, rtvars, serial)


_A = {}


def state_a():
    """State A's boot, once per run, and once for the runners sharing WORK
    (the shards ctest runs at once, tpm.py --shard=I/N): measured under a
    lock into WORK/tpm-A, taken from there while what went into it (firmware,
    store, ESP files, QEMU and swtpm) is the same."""
    if "A" not in _A:
        _A["A"] = shared_state_a()
    return _A["A"]


def inputs_of_a():
    h = hashlib.sha256()
    for path in [B.CODE, B.VARS_MS] + sorted(str(v) for v in measured_files().values() if not isinstance(v, bytes)):
        h.update(path.encode() + b"\0" + hashlib.sha256(B.read_bytes(path)).digest())
    for data in (v for _k, v in sorted(measured_files().items()) if isinstance(v, bytes)):
        h.update(hashlib.sha256(data).digest())
    for tool in ("qemu-system-x86_64", "swtpm"):
        st = os.stat(shutil.which(tool))
        h.update(("%s %d %d" % (tool, st.st_size, st.st_mtime_ns)).encode())
    h.update(B.accel().encode())
    return h.hexdigest()


def shared_state_a():
    w = os.path.join(B.WORK, "tpm-A")
    stamp = os.path.join(w, "inputs.sha256")
    key = inputs_of_a()
    with B.locked("tpm-A"):
        if os.path.exists(stamp) and open(stamp).read() == key:
            serial = open(os.path.join(w, "serial.log")).read()
            print("    state A: measured earlier in %s (the same inputs)" % w)
            return Measured(w, *parse_serial(w, serial), serial)
        m = measured_boot("A")
        B.write_atomic(stamp, key.encode())
        return m


# ------------------------------------------------------------------ ktrust
def replay_check(m):
    """ktrust eventlog LOG --pcrs: (exit, {(bank, pcr): (replayed, tpm)} of the mismatches, text)."""
    rc, out, err = B.ktrust("eventlog", m.log, "--pcrs", m.pcrs_file(), "--json")
    objs = [json.loads(x) for x in out.splitlines() if x.strip()]
    return rc, objs, err


def predict(log, efivars, esp, *extra):
    rc, out, err = B.ktrust("eventlog", log, "--predict", "--efivars", efivars, "--esp", esp, *extra, "--json")
    objs = [json.loads(x) for x in out.splitlines() if x.strip()]
    pred = {(o["bank"], o["pcr"]): o["predicted"] for o in objs if o.get("type") == "prediction"}
    events = [o for o in objs if o.get("type") == "predicted_event"]
    return rc, pred, events, err


def log_events(log, pcr):
    """The events of a log measured into PCR pcr: [(index, type, name, sha256 digest)]."""
    _rc, out, _err = B.ktrust("eventlog", log, "--json")
    evs = []
    for line in out.splitlines():
        o = json.loads(line)
        if o.get("type") == "event" and o.get("pcr") == pcr:
            var = o.get("variable")
            if isinstance(var, dict):
                var = var.get("name")
            evs.append((o.get("index"), o.get("event_type"), var or o.get("string") or "",
                        (o.get("digests") or {}).get("sha256")))
    return evs


# ------------------------------------------------------------------ scenarios
def tpm2_check(res, m):
    """The independent oracle, when tpm2-tools is installed: tpm2_eventlog's
    replay of the same log equals the TPM's PCRs (every PCR it lists, sha1 and
    sha256)."""
    if not shutil.which("tpm2_eventlog"):
        res.notes.append("tpm2_eventlog not installed: no independent replay")
        return
    text = B.run(["tpm2_eventlog", m.log]).stdout.decode(errors="replace")
    pcrs = text[text.index("\npcrs:"):] if "\npcrs:" in text else ""
    theirs = {}
    for bank in ("sha1", "sha256"):
        sec = re.search(r"^  %s:\n((?:    \d+ *: *0x[0-9A-Fa-f]+\n)+)" % bank, pcrs, re.M)
        for n, hexv in re.findall(r"(\d+) *: *0x([0-9A-Fa-f]+)", sec.group(1) if sec else ""):
            theirs[(bank, int(n))] = hexv.lower()
    res.compare("tpm2_eventlog replay = the TPM's PCRs (%d values)" % len(theirs), True,
                bool(theirs) and all(m.pcrs.get(k) == v for k, v in theirs.items()))


def ima_check(res, m):
    """The IMA measurement list state A's kernel printed (#37): ktrust's replay
    of it equals the TPM's PCR 10 in both banks (evmctl ima_measurement's
    too), its boot_aggregate the event log's PCRs 0-9, and each measured
    signature's verdict evmctl ima_verify's on the same file and signature
    (the kernel's own appraisal: appraisal_check)."""
    w = m.w
    lists = {}
    for tag, name in (("KT-IMA", "ima.bin"), ("KT-IMA-ASCII", "ima.txt")):
        body = re.search(r"%s-BEGIN\n(.*?)%s-END" % (tag, tag), m.serial, re.S)
        if not body:
            res.compare("the kernel printed its measurement list (%s)" % name, True, False)
            return
        lists[name] = os.path.join(w, name)
        open(lists[name], "wb").write(base64.b64decode("".join(body.group(1).split())))
    ent, files = ima_material()
    for name, path in sorted(lists.items()):
        rc, out, err = B.ktrust("ima-list", path, "--pcrs", m.pcrs_file(), "--eventlog", m.log,
                                "--trust", files["ca"], "--ima-key", files["ima"], "-v", "--json")
        objs = [json.loads(x) for x in out.splitlines() if x.strip()]
        rep = {o["bank"]: o["value"] for o in objs if o.get("type") == "pcr" and o.get("index") == 10}
        for bank in ("sha1", "sha256"):
            res.compare("%s: PCR 10 %s replayed = the TPM's" % (name, bank), m.pcrs[(bank, 10)], rep.get(bank))
        ba = [o.get("status") for o in objs if o.get("type") == "boot_aggregate"]
        res.compare("%s: boot_aggregate = the event log's PCRs 0-9" % name, ["match"], ba)
        res.compare("%s: ima-list exit" % name, 0, rc)
        if rc != 0:
            res.notes.append(err.strip()[:300])
        got = {os.path.basename(o.get("file_name") or ""): o.get("signature_verdict") for o in objs
               if o.get("type") == "ima_entry" and (o.get("file_name") or "").startswith("/ima/")}
        if name != "ima.bin":
            continue
        for f in IMA_FILES:
            sig = files[f] + ".sig"
            if not os.path.exists(sig):
                res.compare("/ima/%s: measured without a signature" % f, None, got.get(f, "absent"))
                continue
            key = files["ima"]
            ok = B.run(["evmctl", "ima_verify", "--sigfile", "-k", key, files[f]], check=False).returncode == 0
            want = "trusted" if ok else ("rejected" if f == "altered" else "untrusted")
            res.compare("/ima/%s: verdict (evmctl ima_verify: %s)" % (f, "ok" if ok else "fails"), want,
                        got.get(f, "absent"))
    # evmctl ima_measurement, the independent replay of the same binary list
    pf = {}
    for bank in ("sha1", "sha256"):
        pf[bank] = os.path.join(w, "evm-pcrs-" + bank)
        open(pf[bank], "w").write("".join("PCR-%02d: %s\n" % (i, m.pcrs[(bank, i)]) for i in range(15)
                                          if (bank, i) in m.pcrs))
    ev = B.run(["evmctl", "ima_measurement", "--ignore-violations", "--pcrs", "sha1," + pf["sha1"],
                "--pcrs", "sha256," + pf["sha256"], lists["ima.bin"]], check=False)
    res.compare("evmctl ima_measurement: the list replays to the TPM's PCR 10", 0, ev.returncode)


def kernel_config():
    """The corpus kernel's /boot/config-* (from its package), kept in WORK."""
    B.deb_module("./boot/config-6.1.0-57-amd64")
    return os.path.join(B.WORK, "config-6.1.0-57-amd64")


def appraisal_check(res, m):
    """The kernel's own appraisal (#37): each /ima file opened (ok) or refused
    under appraise_type=imasig with the test's key in `_ima`; ktrust
    verify-ima with the corpus kernel's config (the unrestricted `_ima`,
    no --trust: nothing vouches for the key) must give the same answer for
    each file; without the config it assumes the restricted .ima and
    refuses the key (6), the rule the config corrects."""
    opened = dict(re.findall(r"^KT-IMA-OPEN (\S+) (ok|refused)", m.serial, re.M))
    cause = dict((os.path.basename(n), c) for c, n in
                 re.findall(r"KT-IMA-KLOG .*cause=(\S+) .*name=\"([^\"]+)\"", m.serial))
    lock = re.search(r"^KT-IMA-LOCKDOWN (.*)$", m.serial, re.M)
    res.notes.append("lockdown during appraisal: %s" % (lock.group(1).strip() if lock else "not printed"))
    _ent, files = ima_material()
    cfg = kernel_config()
    for f in IMA_FILES:
        rc, _out, err = B.ktrust("verify-ima", "--sigfile", "--kernel-config", cfg, "--ima-key",
                                 files["ima"], files[f], "--json")
        res.compare("/ima/%s: the kernel's appraisal (%s) = verify-ima --kernel-config (exit %d)"
                    % (f, cause.get(f, "no audit line"), rc), opened.get(f, "not opened"),
                    "ok" if rc == 0 else "refused")
        if rc not in (0, 1, 2, 5):
            res.notes.append(err.strip()[:300])
    rc, _out, _err = B.ktrust("verify-ima", "--sigfile", "--ima-key", files["ima"], files["signed"], "-q")
    res.compare("/ima/signed without --kernel-config: the assumed restricted .ima refuses the key", 6, rc)


@scenario
def tpm_replay_a():
    """State A (the stock store): the log's replay equals the TPM's PCRs, both banks."""
    m = state_a()
    res = Result()
    rc, objs, err = replay_check(m)
    summ = [o for o in objs if o.get("type") == "summary"]
    counts = summ[0].get("counts", {}) if summ else {}
    res.compare("eventlog --pcrs exit", 0, rc)
    res.compare("PCRs mismatching", 0, counts.get("pcrs_mismatching"))
    res.compare("PCRs matching (0-9 and 14, two banks)", True, (counts.get("pcrs_matching") or 0) >= 22)
    if rc != 0:
        res.notes.append(err.strip())
    tpm2_check(res, m)
    ima_check(res, m)
    appraisal_check(res, m)
    # state A predicts itself: nothing changes, PCR 7 and 14 stay the TPM's
    w = B.scratch("tpm-A-predict")
    ev = runtime_b(B.scenario_store(w), os.path.join(w, "efivars"), m)
    rc, pred, _ev, err = predict(m.log, ev, esp_dir(w))
    for pcr in (7, 14):
        res.compare("PCR %d sha256 predicted for state A itself" % pcr, m.pcrs[("sha256", pcr)],
                    pred.get(("sha256", pcr)))
    res.measured = m
    return res


def runtime_b(vb, d, a):
    """State B as the running system's efivarfs would show it once shim has
    mirrored it: the store's variables (B.runtime_view), and shim's RT mirrors
    as shim writes them -- MokListRT is shim's vendor certificate (what boot
    A's kernel read) followed by the store's MokList, MokListXRT shim's
    built-in vendor dbx followed by MokListX."""
    B.runtime_view(vb, d)
    for rt, bs in (("MokListRT", "MokList"), ("MokListXRT", "MokListX")):
        seen = a.rtvars.get("%s-%s" % (rt, B.SHIM_GUID))
        if seen is None:
            continue
        got = vb.get(bs, B.SHIM_GUID)
        path = os.path.join(d, "%s-%s" % (rt, B.SHIM_GUID))
        open(path, "wb").write(seen + (got[1] if got else b""))
    return d


def change_scenario(name, setup, pcrs=(7,), want_change=True, extra=(), loader=B.GRUB, view=None,
                    os_log=True):
    """Predict PCRs from log A and state B, boot B, compare.  extra(w): more
    --predict arguments; loader: the GRUB on B's ESP; view: the store ktrust
    predicts from when it is not B's (B is then view + extra's --apply)."""
    a = state_a()
    res = Result()
    # predict first, from log A and state B (the store before its boot)
    w = B.scratch("tpm-" + name + "-predict")
    vb = B.scenario_store(w, view or setup)
    ev = runtime_b(vb, os.path.join(w, "efivars"), a)
    esp = esp_dir(w, loader)
    rc, pred, events, err = predict(a.log, ev, esp, *(extra(w) if extra else ()))
    if rc not in (0, 5) or not pred:
        raise RuntimeError("ktrust eventlog --predict exit %d: %s" % (rc, err.strip()))
    m = measured_boot(name, setup, loader, os_log)
    for pcr in pcrs:  # the first check, PCR 7 sha256, is the one KT_BOOT_FLIP changes
        for bank in ("sha256", "sha1"):
            real = m.pcrs[(bank, pcr)]
            res.compare("PCR %d %s (A measured %s...)" % (pcr, bank, a.pcrs[(bank, pcr)][:16]), real,
                        pred.get((bank, pcr)))
    last = ("sha256", pcrs[-1])
    res.compare("PCR %d changes from A" % pcrs[-1], m.pcrs[last] != a.pcrs[last], pred.get(last) != a.pcrs[last])
    if want_change is not None:  # the scenario is the change it means to be
        res.compare("scenario sanity, PCR %d changes (measured vs intended)" % pcrs[-1], m.pcrs[last] != a.pcrs[last], want_change)
    # for the record (not a check): the plain pre-boot view (the store's
    # variables under their RT names, no shim mirror, no --sbat-level)
    plain = B.runtime_view(vb, os.path.join(w, "efivars-plain"))
    _rc, pred2, _ev2, _err = predict(a.log, plain, esp)
    for pcr in pcrs:
        k = ("sha256", pcr)
        if pred2.get(k) != m.pcrs[k]:
            res.notes.append("PCR %d from the plain pre-boot view (store names as RT names%s): %s, measured %s"
                             % (pcr, ", no --sbat-level" if extra else "", pred2.get(k), m.pcrs[k]))
    # and B's own log replays to B's PCRs
    if m.log:
        rc2, objs, err2 = replay_check(m)
        res.compare("log B replays to B's PCRs (eventlog --pcrs exit)", 0, rc2)
        tpm2_check(res, m)
    else:
        res.notes.append("B's kernel exposed no event log (Secure Boot off): the PCRs alone compared")
    res.measured, res.events, res.pcrs_checked = m, events, pcrs
    return res


def explain(res):
    """Which event ktrust mispredicted: log A's events of each compared PCR,
    in order, beside log B's (the real change: the digest each one got) and
    ktrust's verdict on it (same, changed, kept, new...)."""
    a, m = state_a(), res.measured
    for pcr in res.pcrs_checked:
        ea, eb = log_events(a.log, pcr), log_events(m.log, pcr) if m.log else []
        said = {o.get("event"): o for o in res.events if o.get("pcr") == pcr}
        print("    PCR %d, event by event (A's log | B's log | ktrust):" % pcr)
        for i in range(max(len(ea), len(eb))):
            xa = ea[i] if i < len(ea) else (None, "-", "", None)
            xb = eb[i] if i < len(eb) else (None, "-", "", None)
            real = "same" if xa[3] == xb[3] and xa[1] == xb[1] else "CHANGED"
            o = said.get(xa[0], {})
            print("      A#%-3s %-28s %-10s %s.. | B#%-3s %-10s %s.. %-7s | ktrust: %s%s"
                  % (xa[0], xa[1], xa[2][:10], (xa[3] or "-")[:12], xb[0], xb[2][:10], (xb[3] or "-")[:12],
                     real, o.get("prediction", "not listed"), " (%s)" % o["note"][:70] if o.get("note") else ""))
        extra = [o for o in res.events if o.get("pcr") == pcr and o.get("event") not in {x[0] for x in ea}]
        for o in extra:
            print("      ktrust adds: %s" % json.dumps(o)[:160])


def dbx_plus_hash(v, w):
    _a, data = v.get("dbx", B.SECURITY_GUID)
    v.set("dbx", B.SECURITY_GUID, B.AUTH_DB, data + B.esl_sha256(hashlib.sha256(b"ktrust tpm26 dbx").digest()))


def db_plus_ca_2023(v, w):
    der = B.der_of(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2023.pem"))
    attr, data = v.get("db", B.SECURITY_GUID)
    v.set("db", B.SECURITY_GUID, attr, data + B.esl_x509(der))


def db_only_ca_2023(v, w):
    der = B.der_of(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2023.pem"))
    v.set("db", B.SECURITY_GUID, B.AUTH_DB, B.esl_x509(der))


SBAT_NEWER = b"sbat,1,2099010100\nshim,4\ngrub,5\n"


def sbat_newer(v, w):
    v.set("SbatLevel", B.SHIM_GUID, B.NV_BS, SBAT_NEWER)


SBAT_ORIGINAL = b"sbat,1,2021030218\n"


def sbat_original(v, w):
    v.set("SbatLevel", B.SHIM_GUID, B.NV_BS, SBAT_ORIGINAL)


def mok_plus_cert(v, w):
    _k, _c, der = B.new_key(os.path.join(B.WORK, "keys"), "mok", "ktrust boot test MOK")
    v.set("MokList", B.SHIM_GUID, B.NV_BS, B.esl_x509(der))


@scenario
def tpm_dbx_hash():
    """dbx with one more SHA-256: PCR 7 predicted from log A = measured."""
    return change_scenario("tpm_dbx_hash", dbx_plus_hash)


@scenario
def tpm_db_uefi_ca_2023():
    """db with Microsoft UEFI CA 2023 added: PCR 7 predicted = measured."""
    return change_scenario("tpm_db_uefi_ca_2023", db_plus_ca_2023)


@scenario
def tpm_db_only_uefi_ca_2023():
    """db holding only Microsoft UEFI CA 2023: the dual-signed shim is verified by it; the
    db authority event changes too (found by the boot engine on the ESP)."""
    res = change_scenario("tpm_db_only_uefi_ca_2023", db_only_ca_2023)
    auth = [o for o in res.events if o.get("event_type") == "EV_EFI_VARIABLE_AUTHORITY" and o.get("variable") == "db"]
    real = [e for e in log_events(res.measured.log, 7) if e[1] == "EV_EFI_VARIABLE_AUTHORITY" and e[2] == "db"]
    a = [e for e in log_events(state_a().log, 7) if e[1] == "EV_EFI_VARIABLE_AUTHORITY" and e[2] == "db"]
    res.compare("the db authority event changes", real[0][3] != a[0][3] if real and a else None,
                auth[0].get("prediction") == "changed" if auth else None)
    return res


@scenario
def tpm_sbat_level_newer():
    """SbatLevel preset newer than shim's automatic (kept and measured): PCR 7 predicted = measured
    (--sbat-level: the level before the next boot)."""
    def extra(w):
        path = os.path.join(w, "sbatlevel.txt")
        open(path, "wb").write(SBAT_NEWER)
        return ("--sbat-level", path)
    return change_scenario("tpm_sbat_level_newer", sbat_newer, extra=extra)


@scenario
def tpm_sbat_level_original():
    """SbatLevel preset to the original 2021030218: shim raises it before measuring, PCR 7 unchanged."""
    def extra(w):
        path = os.path.join(w, "sbatlevel.txt")
        open(path, "wb").write(SBAT_ORIGINAL)
        return ("--sbat-level", path)
    return change_scenario("tpm_sbat_level_original", sbat_original, want_change=False, extra=extra)


@scenario
def tpm_sbat_policy_latest():
    """SbatPolicy = latest (1, as mokutil --set-sbat-policy latest writes it): shim applies its
    built-in latest level (2025051000 in shim 16.1) before measuring SbatLevel, so PCR 7 changes
    although SbatLevel itself was not touched; predicted from log A and the variables alone."""
    return change_scenario("tpm_sbat_policy_latest",
                           lambda v, w: v.set("SbatPolicy", B.SHIM_GUID, B.NV_BS, b"\x01"))


@scenario
def tpm_mok_added():
    """MokList + one certificate: PCR 14 predicted = measured; PCR 7 too (unchanged).

    PCR 7's MokListRT event is the vendor certificate that verified GRUB, not the list."""
    return change_scenario("tpm_mok_added", mok_plus_cert, pcrs=(7, 14))


MOK_GRUB_SBAT = (b"sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
                 b"grub,5,Free Software Foundation,grub,2.06,https://www.gnu.org/software/grub/\n"
                 b"grub.ktrust,1,ktrust,grub2,2.06,https://example.invalid/ktrust-boot-test\n")


def mok_grub():
    """The corpus GRUB with one more .sbat line (so a new image: a new Authenticode digest),
    signed by a key of ours; and that key's certificate."""
    key, crt, der = B.new_key(os.path.join(B.WORK, "keys"), "mok", "ktrust boot test MOK")
    out = os.path.join(B.WORK, "keys", "grub-new-loader.efi")
    if not os.path.exists(out):
        B.resign(B.GRUB, out, key, crt, sbat=MOK_GRUB_SBAT)
    return out, der


@scenario
def tpm_new_loader():
    """A new GRUB (another image, signed by a key enrolled in MokList): PCR 4 (its Authenticode
    digest), PCR 7 (shim's MokListRT authority event names the MOK that verified GRUB, and a new
    one the vendor certificate that verifies the kernel: shim logs each entry once) and PCR 14
    (MokList) predicted from log A, the new ESP and the new variables = measured."""
    loader, der = mok_grub()
    return change_scenario("tpm_new_loader", lambda v, w: v.set("MokList", B.SHIM_GUID, B.NV_BS, B.esl_x509(der)),
                           pcrs=(7, 14, 4), loader=loader)


def pk_delete(v, w):
    v.delete("PK", B.GLOBAL_GUID)


@scenario
def tpm_pk_deleted():
    """PK deleted (what a PK-signed empty update leaves): setup mode at the next boot, SecureBoot
    measured 0, PK measured with no data, no authority event (firmware and shim verify nothing),
    and shim, outside secure mode, resets SbatLevel to its original payload before measuring it:
    PCR 7 predicted from log A = measured (#32)."""
    return change_scenario("tpm_pk_deleted", pk_delete, os_log=False)


def setup_mode_updates():
    """A KEK update whose signature does not verify (signed, then its last bytes
    flipped: EDK2 checks no signature in setup mode) and a self-signed PK update,
    as KEK.auth and PK.auth (efitools); and the payloads (kek_esl, pk_esl)."""
    for tool in ("cert-to-efi-sig-list", "sign-efi-sig-list"):
        if not shutil.which(tool):
            raise B.Skip("%s not installed (package efitools)" % tool)
    d = os.path.join(B.WORK, "keys", "setup-mode")
    os.makedirs(d, exist_ok=True)
    out = {}
    for n in ("PK", "KEK", "other"):
        key, crt, _der = B.new_key(d, "sm-" + n, "ktrust tpm32 %s" % n)
        out[n] = (key, crt)
    owner = "a1b2c3d4-0000-4000-8000-000000000032"
    for n in ("PK", "KEK"):
        B.run(["cert-to-efi-sig-list", "-g", owner, out[n][1], os.path.join(d, n + ".esl")])
    t = "2026-01-01 00:00:00"
    B.run(["sign-efi-sig-list", "-t", t, "-g", owner, "-k", out["PK"][0], "-c", out["PK"][1], "PK",
           os.path.join(d, "PK.esl"), os.path.join(d, "PK.auth")])
    signed = os.path.join(d, "KEK-signed.auth")
    B.run(["sign-efi-sig-list", "-t", t, "-g", owner, "-k", out["other"][0], "-c", out["other"][1],
           "KEK", os.path.join(d, "KEK.esl"), signed])
    data = bytearray(open(signed, "rb").read())
    end = 16 + int.from_bytes(data[16:20], "little")  # the end of WIN_CERTIFICATE: the signature
    for i in range(end - 16, end):
        data[i] ^= 0x5A
    open(os.path.join(d, "KEK.auth"), "wb").write(data)
    return d, open(os.path.join(d, "KEK.esl"), "rb").read(), open(os.path.join(d, "PK.esl"), "rb").read()


@scenario
def tpm_pk_reenrolled():
    """PK deleted, then in setup mode a KEK written whose signature does not verify (accepted:
    EDK2 2022.11 checks only the format there) and a self-signed PK (Secure Boot on again):
    PCR 7 predicted from log A, the setup-mode view and --apply KEK.auth --apply PK.auth =
    measured with the store holding what those writes leave (#32)."""
    d, kek, pk = setup_mode_updates()

    def reenrolled(v, w):
        v.set("KEK", B.GLOBAL_GUID, B.AUTH_DB, kek)
        v.set("PK", B.GLOBAL_GUID, B.AUTH_DB, pk)
    return change_scenario("tpm_pk_reenrolled", reenrolled, view=pk_delete,
                           extra=lambda w: ("--apply", os.path.join(d, "KEK.auth"),
                                            "--apply", os.path.join(d, "PK.auth")))


OTHER_OWNER = "77fa9abd-0359-4d32-bd60-28f4e78f7b32"


def dbt_dbr_untrusted_dup(v, w):
    """dbt and dbr created, MokListTrusted set (shim 16.1: no MokListTrustedRT, no event),
    Microsoft UEFI CA 2011 appended to db again under another owner."""
    _k, _c, der = B.new_key(os.path.join(B.WORK, "keys"), "dbt", "ktrust tpm32 dbt")
    v.set("dbt", B.SECURITY_GUID, B.AUTH_DB, B.esl_x509(der))
    v.set("dbr", B.SECURITY_GUID, B.AUTH_DB, B.esl_x509(der))
    v.set("MokListTrusted", B.SHIM_GUID, B.NV_BS, b"\x01")
    ca = B.der_of(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2011.pem"))
    attr, data = v.get("db", B.SECURITY_GUID)
    v.set("db", B.SECURITY_GUID, attr, data + B.E.esl_x509(ca, owner=OTHER_OWNER))


@scenario
def tpm_dbt_untrusted_dup():
    """Three changes in one boot, each its own event: dbt created (Tcg2Dxe measures it after
    dbx; dbr created too and not measured), MokListTrusted set (shim no longer logs it in PCR
    14), the 2011 UEFI CA appended to db under another owner (the authority event still names
    the first entry): PCR 7 and 14 predicted from log A = measured (#32)."""
    res = change_scenario("tpm_dbt_untrusted_dup", dbt_dbr_untrusted_dup, pcrs=(7, 14))
    real = [e for e in log_events(res.measured.log, 7) if e[2] in ("dbt", "dbr")]
    res.compare("measured: dbt, not dbr", ["dbt"], [e[2] for e in real])
    return res


# ------------------------------------------------------------------ driver
def need_swtpm():
    if not shutil.which("swtpm"):
        raise B.Skip("swtpm not installed (package swtpm)")


def report(res):
    """A failing scenario (or any, with KT_BOOT_VERBOSE): the events beside
    ktrust's, and the deciding serial lines."""
    if hasattr(res, "events"):
        explain(res)
    if hasattr(res, "measured"):
        for line in evidence(res.measured.serial):
            print("    serial| " + line)


if __name__ == "__main__":
    sys.exit(RUNNER.main(sys.argv, need=need_swtpm, explain=report))
