#!/usr/bin/env python3
"""Unified Kernel Images booted for real (issue #34, "Ground truth"): OVMF
(Secure Boot, our own key as the only db entry, sbctl style) starts a UKI
built with objcopy and Debian's linuxx64.efi.stub (systemd 252,
tests/fixtures/mkuki.sh) holding the corpus kernel and the busybox
initramfs of tpm.py, with a fresh swtpm.

  uki_measured         firmware -> systemd-boot (signed by our db key) -> UKI A
                       found in EFI/Linux (Type #2): PCR 11 (no
                       systemd-pcrphase in this initramfs: the stub's value)
                       equals `uki show`'s and `systemd-measure calculate
                       --phase=`'s in both banks (and systemd-measure's four
                       phases `uki show`'s); `eventlog --predict
                       --uki --esp` of its own log predicts PCRs 4, 7, 11 and
                       12 as the TPM has them, each loader, UKI and stub event
                       recomputed; the log's replay equals the TPM; `uki
                       verify` (--trust, and --efivars: the firmware) trusts it.
                       Its /init then loads crc7.ko signed by Debian, unsigned,
                       by our db key (in .platform only: Debian 6.1.192-3
                       loads it, its db-mok-keyring patch), by a key in no
                       keyring, and by our db key but with its whole file's
                       SHA-256 in dbx (Debian's module hash check refuses
                       it); `chain --efivars` must say the same of each.
  uki_change           UKI B (no .cmdline: two stub events fewer) started by
                       a Type #1 entry whose options are the command line
                       (PCR 12: systemd-boot's and the stub's events, one
                       more than A's), predicted from A's log with --uki
                       --uki-options and B's ESP, then booted: PCRs 4, 11, 12.
  uki_section_changed  a byte of .cmdline changed after signing: the
                       firmware refuses it, `uki verify` rejects it (5).
  uki_shim_sdboot      firmware -> the corpus shim -> systemd-boot (as
                       grubx64.efi, signed by MOK 1) -> a Type #1 entry's UKI
                       (signed by MOK 2; no .cmdline: the entry's options are
                       the command line): PCRs 4, 7 (two MokListRT authority
                       events), 11 and 12 as predicted.
  uki_dbx_signer       systemd-boot (db) starts a UKI whose signer's
                       certificate is in dbx: the firmware refuses it, `uki
                       verify --efivars` rejects it (5).
  uki_sbat_low         shim -> systemd-boot -> a UKI whose .sbat generation
                       is below the SbatLevel: shim refuses it, `uki verify
                       --efivars` rejects it (5, through shim).
  uki_sdboot_revoked   systemd-boot's own Authenticode hash in dbx: the
                       firmware refuses it, `uki verify --efivars` on it says
                       rejected (5; malformed, 4, would mean dbx missed).

  uki.py [--list] [SCENARIO ...]   (KT_BOOT_FLIP, KT_BOOT_VERBOSE: harness.py)
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bootlib as B  # noqa: E402
import harness as H  # noqa: E402
import tpm as T  # noqa: E402

KNOWN_DISAGREEMENT = {
}
RUNNER = H.Runner(KNOWN_DISAGREEMENT, "measured")
scenario = RUNNER.scenario
Result = H.Result
MKUKI = os.path.join(B.SRC, "tests", "fixtures", "mkuki.sh")
CMDLINE = b"console=ttyS0 panic=-1 quiet"


def build_uki(w, key, crt, cmdline=CMDLINE, osrel=True, name="uki", initrd=None):
    """The signed UKI (path): kernel, an initramfs (tpm.py's unless given), a
    command line, os-release."""
    for part, data in (("cmdline", cmdline), ("osrel", b"ID=debian\nVERSION_ID=12\n")):
        if data is not None:
            open(os.path.join(w, "%s.%s" % (name, part)), "wb").write(data)
    unsigned, signed = os.path.join(w, name + ".unsigned"), os.path.join(w, name + ".efi")
    parts = [".linux=" + B.KERNEL, ".initrd=" + (initrd or B.initramfs(T.TPM_INIT))]
    if cmdline is not None:
        parts.insert(1, ".cmdline=" + os.path.join(w, name + ".cmdline"))
    if osrel:
        parts.insert(1, ".osrel=" + os.path.join(w, name + ".osrel"))
    B.run([MKUKI, unsigned] + parts)
    B.run(["sbsign", "--key", key, "--cert", crt, "--output", signed, unsigned])
    return signed


def own_db(w):
    """A key of our own, the store's only db entry: (key, crt, vars)."""
    key, crt, der = B.new_key(w, "uki", "ktrust UKI test key")
    v = B.scenario_store(w, lambda v, d: v.set("db", B.SECURITY_GUID, B.AUTH_DB, B.esl_x509(der)))
    return key, crt, v


def kt_json(*args):
    rc, out, err = B.ktrust(*args)
    return rc, [json.loads(x) for x in out.splitlines() if x.strip()], err


def measured_boot(w, name, v, files):
    """Boot the ESP files with a fresh swtpm: (serial log, the ESP as a directory)."""
    esp, espdir = esp_both(w, name, files)
    sock, sw = T.swtpm_start(w)
    try:
        serial = B.boot(name, esp, v, timeout=400, kernel=True, tpm_sock=sock)
    finally:
        B.terminate(sw)
    open(os.path.join(w, name + "-serial.log"), "w").write(serial)
    return serial, espdir


_A = {}
SIGN_FILE = "/usr/lib/linux-kbuild-6.1/scripts/sign-file"
# UKI A's /init also loads crc7.ko signed in four ways (after the PCRs are
# printed: nothing it does is measured): Debian's own signature (builtin),
# none, our db key's (the key is in db and so in .platform, in no MOK or
# .machine: mainline's mod_verify_sig refuses it, Debian's db-mok-keyring
# patch retries with .platform), and a key in no keyring at all (refused
# whatever the kernel: proves that enforcement is on), and crc7 with 64 bytes
# of padding signed by our db key whose whole file's SHA-256 is in dbx
# (Debian's db-mok-keyring/0003 refuses it after its signature verifies;
# mainline would load it).  Printed as KT-INSMOD.
MODULE_SIGNERS = ("genuine", "stripped", "dbkey", "nokey", "dbxhash")
UKI_MODULES = r"""echo "KT-LOCKDOWN $(cat /sys/kernel/security/lockdown 2>&1)"
for m in %s; do
    if insmod /mods/$m.ko 2>/tmp/err; then echo "KT-INSMOD $m ok"; rmmod crc7 2>/dev/null
    else echo "KT-INSMOD $m fail $(cat /tmp/err)"; fi
done
""" % " ".join(MODULE_SIGNERS)


def signed_module(w, name, key, crt, pad=0):
    """crc7.ko without Debian's signature (and pad zero bytes after its ELF
    data), signed by key with the kernel's sign-file (path)."""
    path = os.path.join(w, "mod-%s.ko" % name)
    open(path, "wb").write(B.strip_module_sig(B.read_bytes(B.MODULE)) + bytes(pad))
    B.run([SIGN_FILE, "sha256", key, crt, path])
    return path


def uki_a_modules(w, key, crt):
    """UKI A's initramfs (path) and its modules {name: path} (genuine and
    stripped are bootlib's WORK/mods-*.ko)."""
    okey, ocrt, _oder = B.new_key(w, "nokey", "ktrust key in no keyring")
    mods = {"dbkey": signed_module(w, "dbkey", key, crt), "nokey": signed_module(w, "nokey", okey, ocrt),
            "dbxhash": signed_module(w, "dbxhash", key, crt, pad=64)}
    init = T.TPM_INIT.replace(B.INIT_TAIL, UKI_MODULES + B.INIT_TAIL)
    initrd = B.initramfs(init, [("mods/%s.ko" % n, 0o100644, B.read_bytes(p)) for n, p in mods.items()])
    mods.update({m: os.path.join(B.WORK, "mods-%s.ko" % m) for m in ("genuine", "stripped")})
    return initrd, mods


def state_a():
    """firmware -> systemd-boot -> UKI A (Type #2), booted once per run:
    (dir, key, crt, vars, uki, serial, espdir)."""
    if "A" not in _A:
        w = B.scratch("uki-measured")
        key, crt, v = own_db(w)
        _A["initrd"], _A["modules"] = uki_a_modules(w, key, crt)
        # dbx: the dbxhash module's whole-file SHA-256 (a bin: hash in .blacklist)
        v.set("dbx", B.SECURITY_GUID, B.AUTH_DB,
              B.esl_sha256(hashlib.sha256(B.read_bytes(_A["modules"]["dbxhash"])).digest()))
        uki = build_uki(w, key, crt, cmdline=SDBOOT_CMDLINE, initrd=_A["initrd"])
        sdboot = B.resign(SDBOOT, os.path.join(w, "systemd-bootx64.efi"), key, crt)
        B.runtime_view(v, os.path.join(w, "efivars"))
        files = {"EFI/BOOT/BOOTX64.EFI": sdboot, "EFI/Linux/ktrust.efi": uki}
        _A["A"] = (w, key, crt, v, uki) + measured_boot(w, "uki-A", v, files)
    return _A["A"]


MEASURE = "/usr/lib/systemd/systemd-measure"


def systemd_measure(w):
    """systemd 252's `systemd-measure calculate` of UKI A's parts, {(phase, bank): hex}
    ("" the value before any phase: what the stub leaves), or {} without it.  The
    phase path is cumulative: after "ready" is enter-initrd:leave-initrd:sysinit:ready."""
    if not os.access(MEASURE, os.X_OK):
        return {}
    out = {}
    path = ["", "enter-initrd", "leave-initrd", "sysinit", "ready"]
    for i, phase in enumerate(path):
        text = B.run([MEASURE, "calculate", "--linux=" + B.KERNEL, "--osrel=" + os.path.join(w, "uki.osrel"),
                      "--cmdline=" + os.path.join(w, "uki.cmdline"), "--initrd=" + _A["initrd"],
                      "--bank=sha1", "--bank=sha256", "--phase=" + ":".join(path[1:i + 1])]).stdout.decode()
        for bank, hexv in re.findall(r"^11:(sha1|sha256)=([0-9a-f]+)$", text, re.M):
            out[(phase, bank)] = hexv
    return out


def check_predicted(res, pcrs, pred, events, pcr_list, what):
    """The predicted PCRs equal the TPM's, and no loader, UKI or stub event
    of PCRs 4, 11, 12 kept its logged digest (each recomputed from the files)."""
    for bank in ("sha1", "sha256"):
        for pcr in pcr_list:
            res.compare("PCR %d %s %s" % (pcr, bank, what), pcrs[(bank, pcr)], pred.get((bank, pcr)))
    kept = ["#%s PCR %s %s %s" % (e.get("event"), e["pcr"], e.get("event_type"), e.get("prediction"))
            for e in events if e["pcr"] in (4, 7, 11, 12)
            and e.get("event_type") in ("EV_IPL", "EV_EFI_BOOT_SERVICES_APPLICATION",
                                        "EV_EFI_VARIABLE_AUTHORITY")
            and e.get("prediction") not in ("same", "changed", "new", "removed")]
    res.compare("loader, UKI, stub and authority events recomputed, none kept", [], kept)


@scenario("uki")
def uki_measured():
    """firmware -> systemd-boot -> our UKI; PCRs 4, 7, 11 and 12 as ktrust predicts them."""
    w, _key, crt, _v, uki, serial, espdir = state_a()
    efivars = os.path.join(w, "efivars")
    res = Result()
    res.measured = T.Measured(w, None, {}, {}, serial)
    rc, objs, _err = kt_json("uki", "verify", "--json", "--bank", "sha1", "--bank", "sha256",
                             "--trust", crt, uki)
    res.compare("our UKI", "boots" if "KTBOOT-INIT-START" in serial else "refused",
                "boots" if rc == 0 else "refused (uki verify exit %d)" % rc)
    rc2, _out, _err = B.ktrust("uki", "verify", "--efivars", efivars, uki)
    res.compare("our UKI under the state's db (uki verify --efivars)", "KTBOOT-INIT-START" in serial, rc2 == 0)
    log, pcrs, rtvars = T.parse_serial(w, serial)
    res.measured = T.Measured(w, log, pcrs, rtvars, serial)
    pcr11 = objs[0].get("pcr11", {}) if objs else {}
    measure = systemd_measure(w)
    for bank in ("sha1", "sha256"):
        res.compare("PCR 11 %s = uki show's (the stub's measurements)" % bank, pcrs[(bank, 11)],
                    pcr11.get(bank, {}).get("stub"))
        if measure:
            res.compare("PCR 11 %s = systemd-measure calculate --phase= (no phase yet)" % bank,
                        pcrs[(bank, 11)], measure.get(("", bank)))
            for phase in ("enter-initrd", "leave-initrd", "sysinit", "ready"):
                res.compare("PCR 11 %s after %s: systemd-measure = uki show" % (bank, phase),
                            measure.get((phase, bank)), pcr11.get(bank, {}).get(phase))
    _rc, pred, events, _err = T.predict(log, efivars, espdir, "--uki", uki)
    check_predicted(res, pcrs, pred, events, (4, 7, 11, 12), "predicted from its own log")
    check_modules(res, w, serial, efivars, uki)
    res.compare("PCR 12 events: systemd-boot's of .cmdline (252 passes it as the options)", 1,
                len([e for e in events if e["pcr"] == 12]))
    rc, objs, err = T.replay_check(res.measured)
    summ = [o for o in objs if o.get("type") == "summary"]
    res.compare("the log's replay = the TPM (eventlog --pcrs exit)", 0, rc)
    res.compare("PCRs mismatching", 0, (summ[0].get("counts", {}) if summ else {}).get("pcrs_mismatching"))
    return res


def check_modules(res, w, serial, efivars, uki):
    """What the kernel did with UKI A's modules = what `chain --efivars` says of
    them on the host (the same systemd-boot, UKI, variables and files)."""
    real = dict(re.findall(r"^KT-INSMOD (\S+) (ok|fail.*)$", serial, re.M))
    lockdown = re.search(r"^KT-LOCKDOWN .*\[(\w+)\]", serial, re.M)
    res.compare("lockdown (module signatures enforced)", "integrity", lockdown and lockdown.group(1))
    mods = _A["modules"]
    rc, objs, _err = kt_json("chain", "--json", "--efivars", efivars, os.path.join(w, "systemd-bootx64.efi"),
                             uki, *[mods[m] for m in MODULE_SIGNERS])
    links = {os.path.basename(o.get("file", "")): o for o in objs if o.get("role") == "module"}
    for m in MODULE_SIGNERS:
        got = real.get(m, "missing")
        lk = links.get(os.path.basename(mods[m]), {})
        res.compare("insmod %s.ko under UKI A" % m, "loads" if got.startswith("ok") else "refused",
                    "loads" if lk.get("verdict") == "trusted" else "refused")
        res.checks[-1] = res.checks[-1] + ("kernel: %s; chain: %s" % (got, lk.get("reason")),)
    # the db key's module: the Debian kernel's .platform retry, named as such
    res.compare("the db-signed module: loaded through .platform (kernel) / chain's reason names .platform",
                real.get("dbkey", "").startswith("ok"),
                ".platform" in (links.get(os.path.basename(mods["dbkey"]), {}).get("reason") or ""))
    # the module whose file hash is in dbx: Debian's module hash check
    res.compare("the module whose hash is in dbx: refused (kernel) / chain's reason names its hash",
                not real.get("dbxhash", "ok").startswith("ok"),
                "module hash " in (links.get(os.path.basename(mods["dbxhash"]), {}).get("reason") or ""))
    kernel_hash = re.search(r"Module hash ([0-9a-f]{64}) is blacklisted", serial)
    chain_hash = re.search(r"module hash ([0-9a-f]{64})",
                           links.get(os.path.basename(mods["dbxhash"]), {}).get("reason") or "")
    res.compare("the hash the kernel refused ('Module hash %*phN is blacklisted') = chain's",
                kernel_hash and kernel_hash.group(1), chain_hash and chain_hash.group(1))


def type1_files(sdboot, uki, loader="EFI/BOOT/BOOTX64.EFI", extra=None):
    """systemd-boot, a Type #1 entry starting the UKI with SDBOOT_CMDLINE, the default."""
    entry = b"title ktrust\nefi /EFI/Linux/ktrust.efi\noptions " + SDBOOT_CMDLINE + b"\n"
    files = {loader: sdboot, "loader/loader.conf": b"default ktrust.conf\ntimeout 0\n",
             "loader/entries/ktrust.conf": entry, "EFI/Linux/ktrust.efi": uki}
    files.update(extra or {})
    return files


@scenario("uki")
def uki_change():
    """UKI B (no .cmdline) by a Type #1 entry, predicted from A's log, then booted: PCRs 4, 11, 12."""
    wa, key, crt, v, _uki, serial_a, _espdir = state_a()
    w = B.scratch("uki-change")
    log_a, _pcrs, _rt = T.parse_serial(wa, serial_a)
    uki_b = build_uki(w, key, crt, cmdline=None, name="B")
    files = type1_files(os.path.join(wa, "systemd-bootx64.efi"), uki_b)
    serial, espdir = measured_boot(w, "uki-B", v, files)
    _rc, pred, events, _err = T.predict(log_a, os.path.join(wa, "efivars"), espdir, "--uki", uki_b,
                                        "--uki-options", SDBOOT_CMDLINE.decode())
    res = Result()
    res.measured = T.Measured(w, None, {}, {}, serial)
    _log, pcrs, _rt = T.parse_serial(w, serial)
    check_predicted(res, pcrs, pred, events, (4, 11, 12), "of UKI B, predicted from A's log")
    res.compare("PCR 11: B's stub events, two fewer (no .cmdline)", 6,
                len([e for e in events if e["pcr"] == 11 and e.get("prediction") != "removed"]))
    res.compare("PCR 12: systemd-boot's and the stub's (one more than A's)", 2,
                len([e for e in events if e["pcr"] == 12 and e.get("prediction") != "removed"]))
    return res


@scenario("uki")
def uki_section_changed():
    """.cmdline changed after signing: the firmware refuses the UKI, uki verify rejects it."""
    w = B.scratch("uki-changed")
    key, crt, v = own_db(w)
    uki = build_uki(w, key, crt)
    changed = os.path.join(w, "changed.efi")
    data = bytearray(open(uki, "rb").read())
    data[B.pe_section_objdump(uki, ".cmdline")] ^= 0xff  # its first byte
    open(changed, "wb").write(bytes(data))
    esp = B.make_esp(os.path.join(w, "esp.img"), {"EFI/BOOT/BOOTX64.EFI": changed})
    serial = B.boot("uki-changed", esp, v, timeout=300)
    res = Result()
    res.measured = T.Measured(w, None, {}, {}, serial)
    refused = "KTBOOT-INIT-START" not in serial and any(
        s in serial for s in ("Access Denied", "Security Policy Violation", "Security Violation"))
    rc, _out, _err = B.ktrust("uki", "verify", "--trust", crt, changed)
    res.compare("the UKI changed after signing", "refused" if refused else "boots",
                "refused" if rc == 5 else "boots (uki verify exit %d)" % rc)
    return res


SDBOOT = "/usr/lib/systemd/boot/efi/systemd-bootx64.efi"
SDBOOT_CMDLINE = CMDLINE + b" no_timer_check"


def esp_both(w, name, files):
    """The ESP as an image (to boot) and as a directory (for --esp)."""
    d = T.files_dir(os.path.join(w, name + "-espdir"), files)
    return B.make_esp(os.path.join(w, name + "-esp.img"), files), d


@scenario("uki")
def uki_shim_sdboot():
    """firmware -> shim -> systemd-boot (MOK 1) -> a Type #1 entry's UKI (MOK 2): PCRs 4, 7, 11, 12."""
    w = B.scratch("uki-shim-sdboot")
    key, crt, der = B.new_key(w, "uki", "ktrust UKI test key")
    key2, crt2, der2 = B.new_key(w, "uki2", "ktrust UKI second MOK")
    v = B.scenario_store(w, lambda v, d: v.set("MokList", B.SHIM_GUID, B.NV_BS,
                                               B.esl_x509(der) + B.esl_x509(der2)))
    uki = build_uki(w, key2, crt2, cmdline=None)
    sdboot = B.resign(SDBOOT, os.path.join(w, "systemd-bootx64.efi"), key, crt)
    efivars = B.runtime_view(v, os.path.join(w, "efivars"))
    files = type1_files(sdboot, uki, "EFI/BOOT/grubx64.efi", {"EFI/BOOT/BOOTX64.EFI": B.SHIM})
    serial, espdir = measured_boot(w, "uki-shim-sdboot", v, files)
    res = Result()
    res.measured = T.Measured(w, None, {}, {}, serial)
    res.compare("the UKI boots", True, "KTBOOT-INIT-START" in serial)
    rc, _out, _err = B.ktrust("uki", "verify", "--efivars", efivars, uki)
    res.compare("the UKI under MokListRT (uki verify --efivars: through shim)", True, rc == 0)
    log, pcrs, rtvars = T.parse_serial(w, serial)
    res.measured = T.Measured(w, log, pcrs, rtvars, serial)
    _rc, pred, events, _err = T.predict(log, efivars, espdir, "--uki", uki,
                                        "--uki-options", SDBOOT_CMDLINE.decode())
    check_predicted(res, pcrs, pred, events, (4, 7, 11, 12), "predicted from its own log")
    res.compare("PCR 12 events: systemd-boot's and the stub's (no .cmdline)", 2,
                len([e for e in events if e["pcr"] == 12]))
    res.compare("PCR 7: shim's MokListRT events, systemd-boot's entry and the UKI's", 2,
                len([e for e in events if e["pcr"] == 7 and e.get("variable") == "MokListRT"]))
    rc, _objs, _err = T.replay_check(res.measured)
    res.compare("the log's replay = the TPM (eventlog --pcrs exit)", 0, rc)
    return res


SDBOOT_STOP = [r"KTBOOT-INIT-DONE", r"Kernel panic", r"Error loading", r"Failed to execute",
               r"start_image\(\) returned", r"Access Denied", r"Security Policy Violation",
               r"Security Violation"]
# who refuses what: systemd-boot's LoadImage of the UKI (the firmware's or
# shim's verdict), or the firmware's of systemd-boot itself
UKI_REFUSED = r"Error loading \\EFI\\Linux\\ktrust\.efi: (Access Denied|Security (Policy )?Violation)"
# shim 16.1's SBAT refusal, then systemd-boot's LoadImage failing on it
SBAT_REFUSED = (r"verify_sbat_helper\(\) finished verifying SBAT data: Security Policy Violation[\s\S]*"
                + UKI_REFUSED)
SDBOOT_REFUSED = r"failed to load Boot\d+ \"UEFI Non-Block Boot Device\".*: (Access Denied|Security Violation)"


def refusal(w, name, v, files, path, efivars, why, refused_re=UKI_REFUSED):
    """Boot files (no TPM) to the first refusal; compare with `uki verify --efivars` on path."""
    esp = B.make_esp(os.path.join(w, name + "-esp.img"), files)
    serial = B.boot(name, esp, v, timeout=300, stop=SDBOOT_STOP)
    open(os.path.join(w, name + "-serial.log"), "w").write(serial)
    res = Result()
    res.measured = T.Measured(w, None, {}, {}, serial)
    refused = "KTBOOT-INIT-START" not in serial and re.search(refused_re, serial) is not None
    rc, out, _err = B.ktrust("uki", "verify", "--efivars", efivars, path)
    res.compare(why, "refused" if refused else "boots", "refused" if rc == 5 else "boots (uki verify exit %d)" % rc)
    res.notes.append("uki verify: " + " ".join(out.split("\n")[:1]))
    if rc == 5:  # rejected for the boot's reason, not another
        res.compare("uki verify's reason names dbx or SBAT", True,
                    re.search(r"blacklisted|dbx|SBAT", out.split("\n")[0]) is not None)
    return res


@scenario("uki")
def uki_dbx_signer():
    """A UKI signed by a key in dbx: the firmware refuses it for systemd-boot; uki verify --efivars: 5."""
    w = B.scratch("uki-dbx-signer")
    key, crt, der = B.new_key(w, "uki", "ktrust UKI test key")
    rkey, rcrt, rder = B.new_key(w, "ukirev", "ktrust revoked UKI key")

    def setup(v, d):
        v.set("db", B.SECURITY_GUID, B.AUTH_DB, B.esl_x509(der) + B.esl_x509(rder))
        v.set("dbx", B.SECURITY_GUID, B.AUTH_DB, B.esl_x509(rder))
    v = B.scenario_store(w, setup)
    uki = build_uki(w, rkey, rcrt, cmdline=SDBOOT_CMDLINE)
    sdboot = B.resign(SDBOOT, os.path.join(w, "systemd-bootx64.efi"), key, crt)
    efivars = B.runtime_view(v, os.path.join(w, "efivars"))
    return refusal(w, "uki-dbx-signer", v, {"EFI/BOOT/BOOTX64.EFI": sdboot, "EFI/Linux/ktrust.efi": uki},
                   uki, efivars, "a UKI whose signer is in dbx (firmware, through systemd-boot)")


UKI_SBAT = (b"sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
            b"ktrust,1,ktrust,ktrust,1,https://k.t/\n")
SBAT_LEVEL_KTRUST = b"sbat,1,2099010100\nshim,4\ngrub,5\nktrust,2\n"


@scenario("uki")
def uki_sbat_low():
    """shim -> systemd-boot -> a UKI whose .sbat (ktrust,1) is below the SbatLevel (ktrust,2)."""
    w = B.scratch("uki-sbat-low")
    key, crt, der = B.new_key(w, "uki", "ktrust UKI test key")

    def setup(v, d):
        v.set("MokList", B.SHIM_GUID, B.NV_BS, B.esl_x509(der))
        v.set("SbatLevel", B.SHIM_GUID, B.NV_BS, SBAT_LEVEL_KTRUST)
    v = B.scenario_store(w, setup)
    uki = B.resign(build_uki(w, key, crt, cmdline=SDBOOT_CMDLINE), os.path.join(w, "low.efi"), key, crt,
                   sbat=UKI_SBAT)
    sdboot = B.resign(SDBOOT, os.path.join(w, "systemd-bootx64.efi"), key, crt)
    efivars = B.runtime_view(v, os.path.join(w, "efivars"))
    files = {"EFI/BOOT/BOOTX64.EFI": B.SHIM, "EFI/BOOT/grubx64.efi": sdboot, "EFI/Linux/ktrust.efi": uki}
    return refusal(w, "uki-sbat-low", v, files, uki, efivars,
                   "a UKI whose .sbat is below the SbatLevel (shim, through systemd-boot)", SBAT_REFUSED)


@scenario("uki")
def uki_sdboot_revoked():
    """systemd-boot's own hash in dbx: the firmware refuses it; uki verify --efivars on it: 5."""
    w = B.scratch("uki-sdboot-revoked")
    key, crt, der = B.new_key(w, "uki", "ktrust UKI test key")
    sdboot = B.resign(SDBOOT, os.path.join(w, "systemd-bootx64.efi"), key, crt)

    def setup(v, d):
        v.set("db", B.SECURITY_GUID, B.AUTH_DB, B.esl_x509(der))
        v.set("dbx", B.SECURITY_GUID, B.AUTH_DB, B.esl_sha256(B.authenticode_sha256(B.read_bytes(sdboot))))
    v = B.scenario_store(w, setup)
    uki = build_uki(w, key, crt, cmdline=SDBOOT_CMDLINE)
    efivars = B.runtime_view(v, os.path.join(w, "efivars"))
    return refusal(w, "uki-sdboot-revoked", v, {"EFI/BOOT/BOOTX64.EFI": sdboot, "EFI/Linux/ktrust.efi": uki},
                   sdboot, efivars, "systemd-boot with its hash in dbx (firmware)", SDBOOT_REFUSED)


def need_tools():
    for tool in ("swtpm", "objcopy", "sbsign"):
        if not shutil.which(tool):
            raise B.Skip("%s not installed" % tool)
    if not os.path.exists("/usr/lib/systemd/boot/efi/linuxx64.efi.stub"):
        raise B.Skip("systemd-boot-efi (linuxx64.efi.stub) not installed")


def report(res):
    if hasattr(res, "measured"):
        for line in T.evidence(res.measured.serial):
            print("    serial| " + line)


if __name__ == "__main__":
    sys.exit(RUNNER.main(sys.argv, need=need_tools, explain=report))
