#!/usr/bin/env python3
"""Real firmware as the oracle (issue #24): boot OVMF (Secure Boot, Microsoft
keys) + the corpus shim, GRUB and kernel under QEMU, read the outcome from the
serial console, run the matching ktrust command on the same files and the
same variables, and assert both say the same.

  run.py [--list] [SCENARIO|GROUP ...]

KT_BOOT_FLIP=SCENARIO flips that scenario's real outcome before the
comparison (the test of the test: it must then fail).  The driver
(--list, the selection, KT_BOOT_FLIP, KT_BOOT_VERBOSE, the report) is
harness.py's, shared with tpm.py.
"""
import hashlib
import os
import re
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bootlib as B  # noqa: E402
import harness as H  # noqa: E402

# Scenarios where ktrust and the real firmware are known to disagree; the
# coordinator fixes the product and removes the entry.  Printed loudly.
KNOWN_DISAGREEMENT = {
}

RUNNER = H.Runner(KNOWN_DISAGREEMENT, "real", known_first=True)  # a known disagreement: the stage only
scenario = RUNNER.scenario
Result = H.Result


# ------------------------------------------------------------------ reading the serial log
SHIM_RAN = re.compile(r"(shim|mok|verify|sbat|pe|load-options|loader-proto)\.c:\d+:")


def real_stage(log):
    """How far the real boot got: firmware-refused-shim, shim-stopped,
    shim-refused-loader, loader-ran, loader-refused-kernel, kernel-ran."""
    if "KTBOOT-INIT-START" in log:
        return "kernel-ran"
    if "KTBOOT-GRUB-CFG" in log:
        if "bad shim signature" in log:  # GRUB's shim_lock verifier: shim refused the kernel
            return "loader-refused-kernel"
        return "loader-ran"
    if not SHIM_RAN.search(log):
        return "firmware-refused-shim"
    if re.search(r"SBAT self-check failed|Something has gone seriously wrong", log):
        return "shim-stopped"
    if re.search(r"Verification failed|SBAT|denied|failed to load|Failed to load|start_image\(\) returned", log):
        return "shim-refused-loader"
    return "shim-stopped"


def kt_stage(links, kernel_level=False):
    """The same scale from ktrust chain's links."""
    def ok(role):
        return links.get(role, {}).get("verdict") == "trusted"
    if not ok("shim"):
        why = links.get("shim", {}).get("reason") or ""
        if "SBAT" in why or "stops" in why:
            return "shim-stopped"
        return "firmware-refused-shim"
    if not ok("loader"):
        return "shim-refused-loader"
    if not kernel_level:
        return "loader-ran"
    if not ok("kernel"):
        return "loader-refused-kernel"
    return "kernel-ran"


SERIAL_EVIDENCE = (r"check_denylist\(\).*found", r"forbidden", r"Verification failed", r"Access Denied",
                   r"[Ss][Bb][Aa][Tt].*([Ff]ail|[Rr]evok|[Dd]enied|Violation|[Ee]rror|not found)",
                   r"KTBOOT-", r"bad shim signature", r"Binary is", r"Kernel panic", r"self-check")


def explain(res):
    """A failing scenario (or any, with KT_BOOT_VERBOSE): the deciding serial lines and ktrust's links."""
    log = getattr(res, "log", None)
    if log is not None:
        for line in H.evidence(log, SERIAL_EVIDENCE):
            print("    serial| " + line[:200])
    links = getattr(res, "links", None)
    if links is not None:
        for role in ("shim", "loader", "kernel"):
            lk = links.get(role, {})
            print("    ktrust| %s %s: %s" % (role, lk.get("verdict"), lk.get("reason")))


# ------------------------------------------------------------------ a boot to GRUB and the chain over it
def grub_level(name, vars_setup=None, shim=B.SHIM, loader=B.GRUB, extra=(), kernel_cfg=False):
    """Boot shim -> loader (its grub.cfg prints a marker and reboots); run
    ktrust chain over the same files and the store's variables; returns (res, log, links, vars)."""
    w = B.scratch(name)
    v = B.scenario_store(w, vars_setup)
    ev = B.runtime_view(v, os.path.join(w, "efivars"))
    rc, links, _objs, err = B.chain(ev, shim, loader, B.KERNEL, *extra)
    files = B.esp_files(shim=shim, loader=loader)
    esp = B.make_esp(os.path.join(w, "esp.img"), files)
    log = B.boot(name, esp, v, timeout=120)
    open(os.path.join(w, "serial.log"), "w").write(log)
    res = Result()
    res.compare("how far the boot got", real_stage(log), kt_stage(links))
    res.log, res.links, res.vars, res.w, res.kt_err = log, links, v, w, err
    return res


def check_update(res, var, target, *extra):
    """check-update with the variable the firmware had (an efivarfs dump of it)
    as the dbx: would it revoke target?  Real: the boot stopped at target."""
    ev = os.path.join(res.w, "efivars")
    dump = [os.path.join(ev, f) for f in os.listdir(ev) if f.split("-")[0] == var]
    args = ["--dbx", dump[0]] if dump else []
    rc, out, err = B.ktrust("check-update", "-q", *(args + list(extra) + [target]))
    stopped = res.checks[0][1] in ("firmware-refused-shim", "shim-refused-loader", "shim-stopped")
    res.compare("check-update on %s" % os.path.basename(target), "revoked" if stopped else "not revoked",
                {5: "revoked", 0: "not revoked"}.get(rc, "exit %d: %s" % (rc, err.strip())))
    return res


def keys_dir():
    """WORK/keys: keys, certificates and the images made from them, kept across runs."""
    d = os.path.join(B.WORK, "keys")
    os.makedirs(d, exist_ok=True)
    return d


def mok_key():
    return B.new_key(os.path.join(B.WORK, "keys"), "mok", "ktrust boot test MOK")


def db_key():
    return B.new_key(os.path.join(B.WORK, "keys"), "dbkey", "ktrust boot test db key")


def set_moklist(v, *ders):
    v.set("MokList", B.SHIM_GUID, B.NV_BS, b"".join(B.esl_x509(d) for d in ders))


def add_db(v, der):
    attr, data = v.get("db", B.SECURITY_GUID)
    v.set("db", B.SECURITY_GUID, attr, data + B.esl_x509(der))


def set_dbx(v, data):
    v.set("dbx", B.SECURITY_GUID, B.AUTH_DB, data)


def read(path):
    return open(path, "rb").read()


def pem_der(path):
    return B.der_of(path)


SBAT_HEAD = b"sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"
GRUB_LINE = b"grub,%s,Free Software Foundation,grub,2.06,https://www.gnu.org/software/grub/\n"


def mok_grub(name, sbat=None, drop=False):
    key, crt, der = mok_key()
    tag = B.hashlib.sha256(repr((sbat, drop)).encode()).hexdigest()[:8]
    out = os.path.join(B.WORK, "keys", "%s-%s.efi" % (name, tag))
    if not os.path.exists(out):
        B.resign(B.GRUB, out, key, crt, sbat=sbat, drop_sbat=drop)
    return out, der


# ------------------------------------------------------------------ scenarios
@scenario("store")
def store_reader_matches_corpus(res_only=False):
    """The store reader reproduces the corpus' efivarfs dump of OVMF_VARS_4M.ms.fd byte for byte."""
    w = os.path.join(B.WORK, "store_reader")
    shutil.rmtree(w, ignore_errors=True)
    v = B.Vars(os.path.join(w + ".fd"), verbose=False) if os.makedirs(w) is None else None
    d = v.dump(os.path.join(w, "efivars"))
    ref = os.path.join(B.CORPUS, "peers", "ovmf-swtpm-boot", "efivars")
    res = Result()
    mine, theirs = sorted(os.listdir(d)), sorted(os.listdir(ref))
    res.compare("variable names (%d in the corpus)" % len(theirs), theirs == mine, True)
    same = [f for f in mine if f in theirs and read(os.path.join(d, f)) == read(os.path.join(ref, f))]
    res.compare("byte-identical files", len(theirs), len(same))
    # and an edit round-trips: set, read back, delete
    v.set("KtProbe", B.SHIM_GUID, B.NV_BS, b"\x01\x02")
    got = v.get("KtProbe", B.SHIM_GUID)
    v.delete("KtProbe", B.SHIM_GUID)
    res.compare("set/get/delete", "(3, b'\\x01\\x02') None", "%s %s" % (got, v.get("KtProbe", B.SHIM_GUID)))
    return res


@scenario("basic")
def shim_grub_boots():
    """The corpus shim and GRUB on the Microsoft store: GRUB runs its grub.cfg; no
    SbatLevel: shim writes its automatic level, chain says the same level (the one boot
    of the stock store: sbat_level_absent was the same boot, judged for the level)."""
    return level_scenario("shim_grub_boots", None)


@scenario("basic")
def tampered_shim_refused():
    """A byte of shim's .text changed: the firmware refuses it (Access Denied)."""
    d = keys_dir()
    shim = B.flip_byte(B.SHIM, os.path.join(d, "shim-tampered.efi"))
    return grub_level("tampered_shim_refused", shim=shim)


@scenario("basic")
def unsigned_shim_refused():
    """shim without its signatures: the firmware refuses it."""
    d = keys_dir()
    shim = B.unsigned_copy(B.SHIM, os.path.join(d, "shim-unsigned.efi"))
    return grub_level("unsigned_shim_refused", shim=shim)


def dbx_hash(name, image):
    """image's Authenticode SHA-256 in dbx; check-update on image over that dbx."""
    h = B.authenticode_sha256(read(image))
    return check_update(grub_level(name, lambda v, w: set_dbx(v, B.esl_sha256(h))), "dbx", image)


@scenario("dbx")
def dbx_shim_hash():
    """shim's Authenticode SHA-256 in dbx: the firmware refuses shim; check-update says revoked."""
    return dbx_hash("dbx_shim_hash", B.SHIM)


@scenario("dbx")
def dbx_grub_hash():
    """GRUB's Authenticode SHA-256 in dbx: shim refuses GRUB; check-update says revoked."""
    return dbx_hash("dbx_grub_hash", B.GRUB)


@scenario("dbx")
def dbx_grub_signer_cert():
    """GRUB's signer certificate (issued by the Debian Secure Boot CA of shim's vendor_cert) in dbx."""
    certs = B.pe_signer_certs(B.GRUB, os.path.join(B.WORK, "grub-certs"))
    signer = [der for subj, der in certs if "Debian Secure Boot CA" not in subj.split("CN")[-1]] or \
        [certs[0][1]]
    return check_update(grub_level("dbx_grub_signer_cert", lambda v, w: set_dbx(v, B.esl_x509(signer[0]))),
                        "dbx", B.GRUB)


@scenario("dbx")
def dbx_debian_ca():
    """The Debian Secure Boot CA (shim's vendor_cert) itself in dbx: shim runs, GRUB is refused."""
    data = read(B.SHIM)
    sec = B.pe_section_objdump(B.SHIM, ".vendor_cert")  # a long name: objdump reads the string table
    size, _dsize, off, _doff = struct.unpack_from("<IIII", data, sec)
    ca = data[sec + off:sec + off + size]
    res = grub_level("dbx_debian_ca", lambda v, w: set_dbx(v, B.esl_x509(ca)))
    res.compare("GRUB runs", real_stage(res.log) == "loader-ran", res.links["loader"]["verdict"] == "trusted")
    return check_update(res, "dbx", B.GRUB)


@scenario("dbx")
def moklistx_grub_hash():
    """GRUB's hash in MokListX: shim refuses GRUB; check-update over MokListXRT says revoked."""
    h = B.authenticode_sha256(read(B.GRUB))
    return check_update(grub_level("moklistx_grub_hash",
                                   lambda v, w: v.set("MokListX", B.SHIM_GUID, B.NV_BS, B.esl_sha256(h))),
                        "MokListXRT", B.GRUB)


@scenario("db")
def db_only_windows_pca_2011():
    """db holding only Windows Production PCA 2011 (taken from the store's own db): shim is refused."""
    def setup(v, w):
        _a, data = v.get("db", B.SECURITY_GUID)
        keep, off = b"", 0
        while off < len(data):
            size = struct.unpack_from("<I", data, off + 16)[0]
            lst = data[off:off + size]
            if b"Windows Production PCA 2011" in lst:
                keep += lst
            off += size
        assert keep, "no Windows Production PCA 2011 in the store's db"
        v.set("db", B.SECURITY_GUID, B.AUTH_DB, keep)
    return grub_level("db_only_windows_pca_2011", setup)


@scenario("db")
def dead_shim_uefi_ca_2011_in_dbx():
    """A shim already dead (#32): dbx holds Microsoft Corporation UEFI CA 2011, db gained
    Microsoft UEFI CA 2023.  Firmware refuses the dual-signed shim (one signature in dbx
    rejects the image), as chain and audit's outlook say ("does not boot today"); audit's
    advice, a shim signed by the 2023 CA only, boots, as check-update --install says."""
    ca11 = pem_der(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2011.pem"))
    ca23 = pem_der(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2023.pem"))

    def setup(v, w):
        _a, dbx = v.get("dbx", B.SECURITY_GUID)
        set_dbx(v, dbx + B.esl_x509(ca11))
        attr, db = v.get("db", B.SECURITY_GUID)
        v.set("db", B.SECURITY_GUID, attr, db + B.esl_x509(ca23))
    res = grub_level("dead_shim_dual_signed", setup)
    espd = os.path.join(res.w, "audit-esp", "EFI", "debian")
    os.makedirs(espd, exist_ok=True)
    shutil.copy(B.SHIM, os.path.join(espd, "shimx64.efi"))
    shutil.copy(B.GRUB, os.path.join(espd, "grubx64.efi"))
    _rc, objs, err = B.ktrust_json("audit", "--efivars", os.path.join(res.w, "efivars"), "--esp",
                                   os.path.join(res.w, "audit-esp"), "--kernel", "none",
                                   "--modules", "none")
    shim = [f for o in objs if o.get("section") == "outlook" for f in o.get("files", [])
            if f.get("role") == "shim"]
    res.compare("audit's outlook: shim boots today", real_stage(res.log) != "firmware-refused-shim",
                shim[0].get("boots_today") if shim else "no outlook: %s" % err.strip())
    # the advice: the same shim with its 2011 signature stripped (2023 only)
    s23 = os.path.join(B.scratch("dead-shim-2023-image"), "shim2023.efi")
    B.run([sys.executable, os.path.join(B.SRC, "tests", "fixtures", "rollover.py"), "strip-sig",
           B.SHIM, s23, "1"])
    res2 = grub_level("dead_shim_2023_only", setup, shim=s23)
    rc, _out, err = B.ktrust("check-update", "--install", "--efivars",
                             os.path.join(res2.w, "efivars"), "-q", s23, B.GRUB)
    res.checks += [("2023-only shim: " + c[0],) + tuple(c[1:]) for c in res2.checks]
    res.compare("the advice, a 2023-only shim, boots: firmware / check-update --install",
                real_stage(res2.log) == "loader-ran", rc == 0 or "exit %d: %s" % (rc, err.strip()))
    return res


# ------------------------------------------------------------------ signed updates, as plan-updates applies them (#25)
def plan_scenario(name, updates, setup=None):
    """ktrust plan-updates on the store's variables (after setup) and the
    ESP's shim and GRUB: apply the plan, write the variables after it
    (--write-efivars), load their db and dbx into the store, boot; real
    firmware's outcome must equal plan-updates' final shim and loader verdicts."""
    holder = {}

    def vars_setup(v, w):
        if setup:
            setup(v, w)
        pre, post, espd = (os.path.join(w, d) for d in ("plan-pre", "plan-post", "plan-esp"))
        B.runtime_view(v, pre)
        os.makedirs(os.path.join(espd, "EFI/debian"))
        shutil.copy(B.SHIM, os.path.join(espd, "EFI/debian/shimx64.efi"))
        shutil.copy(B.GRUB, os.path.join(espd, "EFI/debian/grubx64.efi"))
        rc, objs, err = B.ktrust_json("plan-updates", "--efivars", pre, "--esp", espd,
                                      "--write-efivars", post, *updates)
        plan = [o for o in objs if o.get("type") == "plan"]
        assert plan, "plan-updates gave no plan: exit %d %s" % (rc, err)
        holder["plan"] = plan[0]
        for var in ("db", "dbx", "KEK"):
            f = [x for x in os.listdir(post) if x.startswith(var + "-")]
            if f:
                guid = B.GLOBAL_GUID if var == "KEK" else B.SECURITY_GUID
                v.set(var, guid, B.AUTH_DB, read(os.path.join(post, f[0]))[4:])

    res = grub_level(name, vars_setup)
    final = holder["plan"]["final"]
    boots = bool(final.get("shim")) and final["shim"]["verdict"] == "trusted" and \
        bool(final.get("loader")) and final["loader"]["verdict"] == "trusted"
    real = res.checks[0][1] == "loader-ran"
    res.compare("plan-updates: boots after the plan", real, boots)
    return res


def own_kek(v):
    """Add a KEK of our own to the store's KEK (the editor writes it directly):
    updates signed by it apply, as the OEM's would."""
    key, crt, der = B.new_key(os.path.join(B.WORK, "keys"), "kek", "ktrust boot test KEK")
    attr, data = v.get("KEK", B.GLOBAL_GUID)
    v.set("KEK", B.GLOBAL_GUID, attr, data + B.esl_x509(der))
    return key, crt


def signed_update(w, var, key, crt, esl, name, append=True):
    """An EFI_VARIABLE_AUTHENTICATION_2 file made by efitools' sign-efi-sig-list."""
    src, out = os.path.join(w, name + ".esl"), os.path.join(w, name + ".auth")
    open(src, "wb").write(esl)
    B.run(["sign-efi-sig-list"] + (["-a"] if append else []) +
          ["-t", "2024-01-01 00:00:00", "-k", key, "-c", crt, var, src, out])
    return out


# ------------------------------------------------------- the firmware's own variable driver
def guest_init(writes):
    """/init that writes each (label, efivarfs name, file bytes) through efivarfs, in
    order, in one write(2) each, and prints KT-WRITE LABEL ok|fail REASON."""
    import base64
    body = "for f in /sys/firmware/efi/efivars/db-* /sys/firmware/efi/efivars/dbx-*; do " \
           "chattr -i \"$f\" 2>/dev/null; done\n"
    for label, name, data in writes:
        body += ("echo %s | base64 -d > /tmp/w\n"
                 "if dd if=/tmp/w of=/sys/firmware/efi/efivars/%s bs=1M conv=notrunc 2>/tmp/err; "
                 "then echo \"KT-WRITE %s ok\"; else echo \"KT-WRITE %s fail $(tr '\\n' ' ' < /tmp/err)\"; fi\n"
                 % (base64.b64encode(data).decode(), name, label, label))
    return B.init_script(body)


def cms_update(w, var, key, crt, esl, label, md="sha256", wrapped=True):
    """An append update of db/dbx signed by openssl cms (no attributes): a PKCS#7 in a
    ContentInfo (wrapped) or bare, with the digest md."""
    t = struct.pack("<HBBBBBBIhBB", 2024, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0)
    signed = var.encode("utf-16-le") + B.SECURITY_GUID.bytes_le + struct.pack("<I", 0x67) + t + esl
    src, p7, out = (os.path.join(w, label + x) for x in (".signed", ".p7", ".auth"))
    open(src, "wb").write(signed)
    B.run(["openssl", "cms", "-sign", "-binary", "-noattr", "-md", md, "-signer", crt, "-inkey", key,
           "-outform", "DER", "-in", src, "-out", p7])
    ci = B.read_bytes(p7)
    open(out, "wb").write(B.E.auth2(t, ci if wrapped else B.E.signed_data_of(ci), esl))
    return out


@scenario("db")
def guest_writes_format():
    """Signed db/dbx updates written by the guest through efivarfs, so that OVMF's own
    variable driver (EDK2 2022.11 AuthService.c) accepts or refuses each (EINVAL): an
    RSA certificate, an EC one, an X509 entry that is no certificate, an EC certificate
    in dbx, and one second in its list (CheckSignatureListFormat); a PKCS#7 in a
    ContentInfo and a SHA-384 signer (refused by 2022.11, accepted by later EDK2).
    ktrust's --apply of the same files in the same order must say the same for each."""
    name = "guest_writes_format"
    w = B.scratch(name)
    upd = B.scratch(name + "-updates")
    rsa_key, rsa_crt, rsa_der = B.new_key(os.path.join(B.WORK, "keys"), "dbrsa", "ktrust boot test db RSA")
    ec_pem = os.path.join(upd, "ec.pem")
    B.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
           "-keyout", os.path.join(upd, "ec.key"), "-out", ec_pem, "-days", "3650", "-subj", "/CN=ktrust EC"])
    ec_der = pem_der(ec_pem)
    not_cert = bytes([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02])
    files = []

    def setup(v, w_):
        key, crt = own_kek(v)
        for label, var, esl in (("db-rsa", "db", B.esl_x509(rsa_der)),
                                ("db-ec", "db", B.esl_x509(ec_der)),
                                ("db-notcert", "db", B.esl_x509(not_cert)),
                                ("dbx-ec", "dbx", B.esl_x509(ec_der)),
                                ("db-ec-second", "db", B.E.esl(B.E.X509_GUID, [rsa_der, ec_der]))):
            files.append((label, var, signed_update(upd, var, key, crt, esl, label)))
        # the firmware generations: 2022.11 refuses both, later EDK2 accepts them
        files.append(("db-contentinfo", "db", cms_update(upd, "db", key, crt, B.esl_x509(rsa_der),
                                                         "db-contentinfo")))
        files.append(("db-sha384", "db", cms_update(upd, "db", key, crt, B.esl_x509(rsa_der),
                                                    "db-sha384", "sha384", wrapped=False)))
    v = B.scenario_store(w, setup)
    ev = B.runtime_view(v, os.path.join(w, "efivars"))   # the state before the writes
    writes = [(label, "%s-%s" % (var, B.SECURITY_GUID), struct.pack("<I", 0x67) + B.read_bytes(f))
              for label, var, f in files]
    esp = B.make_esp(os.path.join(w, "esp.img"),
                     B.esp_files(cfg=B.grub_cfg_kernel(), kernel=B.KERNEL,
                                 initrd=B.initramfs(guest_init(writes))))
    log = B.boot(name, esp, v, timeout=300, kernel=True)
    open(os.path.join(w, "serial.log"), "w").write(log)
    real = dict(re.findall(r"^KT-WRITE (\S+) (ok|fail)", log, re.M))
    args = []
    for _label, _var, f in files:
        args += ["--apply", f]
    _rc, objs, _err = B.ktrust_json("audit", "--efivars", ev, "--esp", w, "--kernel", "none",
                                    "--modules", "none", *args)
    applied = [o.get("applied") for o in objs if o.get("type") == "apply"]
    later = {o.get("file"): o.get("accepted_from") for o in objs if o.get("type") == "apply"}
    res = Result()
    res.log, res.vars, res.w = log, v, w
    res.compare("how far the boot got", real_stage(log), "kernel-ran")
    for i, (label, _var, _f) in enumerate(files):
        res.compare("write %s: firmware / --apply" % label, {"ok": "accepted", "fail": "refused"}.get(
            real.get(label), "not written"), "accepted" if i < len(applied) and applied[i] else "refused")
    for label, want in (("db-contentinfo", "edk2-stable202302"), ("db-sha384", "edk2-stable202311")):
        f = [x[2] for x in files if x[0] == label][0]
        res.compare("%s: the refusal names the EDK2 release that lifts it" % label, want, later.get(f))
    return res


@scenario("plan")
def plan_microsoft_tree():
    """Microsoft's signed updates (the corpus subset of secureboot_objects) planned on the
    stock store: db gains Windows UEFI CA 2023, dbx 488 hashes and PCA 2011; shim still boots."""
    tree = os.path.join(B.CORPUS, "peers", "secureboot-objects", "tree")
    return plan_scenario("plan_microsoft_tree", [tree])


@scenario("plan")
def plan_dbx_revokes_uefi_ca_2011():
    """A dbx update (signed under a KEK of ours) revoking Microsoft Corporation UEFI CA 2011,
    after a db update adding Microsoft UEFI CA 2023: firmware refuses the dual-signed shim
    (one signature in dbx rejects the image), as plan-updates says."""
    upd = B.scratch("plan-updates-2011")

    def setup(v, w):
        key, crt = own_kek(v)
        ca11 = pem_der(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2011.pem"))
        ca23 = pem_der(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2023.pem"))
        signed_update(upd, "db", key, crt, B.esl_x509(ca23), "DBUpdate3P2023")
        signed_update(upd, "dbx", key, crt, B.esl_x509(ca11), "DBXRevoke2011")
    return plan_scenario("plan_dbx_revokes_uefi_ca_2011", [upd], setup)


@scenario("plan")
def plan_db_replaced_by_2023():
    """A db update (under a KEK of ours) replacing db with Microsoft UEFI CA 2023 alone:
    the dual-signed shim boots by its 2023 signature, as plan-updates says, and as chain
    says of db holding only that CA (the first check: this boot is also the one of
    db_only_uefi_ca_2023, which booted the same db and dbx for chain alone)."""
    upd = B.scratch("plan-updates-2023")

    def setup(v, w):
        key, crt = own_kek(v)
        ca23 = pem_der(os.path.join(B.CORPUS, "trust", "microsoft-uefi-ca-2023.pem"))
        signed_update(upd, "db", key, crt, B.esl_x509(ca23), "DBReplace2023", append=False)
    return plan_scenario("plan_db_replaced_by_2023", [upd], setup)


@scenario("mok")
def loader_signed_by_mok():
    """GRUB re-signed by a key enrolled in MokList: shim runs it."""
    loader, der = mok_grub("grub-mok")
    return grub_level("loader_signed_by_mok", lambda v, w: set_moklist(v, der), loader=loader)


@scenario("mok")
def loader_signed_by_unenrolled_key():
    """The same GRUB with the key not enrolled: shim refuses it."""
    loader, _der = mok_grub("grub-mok")
    return grub_level("loader_signed_by_unenrolled_key", loader=loader)


def db_grub():
    """GRUB re-signed by a key of ours (for db), and that key's certificate."""
    key, crt, der = db_key()
    out = os.path.join(keys_dir(), "grub-db.efi")
    if not os.path.exists(out):
        B.resign(B.GRUB, out, key, crt)
    return out, der


@scenario("mok")
def loader_signed_by_db_key():
    """A loader signed by a key in db: shim trusts db too."""
    out, der = db_grub()
    return grub_level("loader_signed_by_db_key", lambda v, w: add_db(v, der), loader=out)


@scenario("mok")
def mok_ignore_db():
    """The same loader with MokDBState set (MokIgnoreDB): shim no longer uses db."""
    out, der = db_grub()

    def setup(v, w):
        add_db(v, der)
        v.set("MokDBState", B.SHIM_GUID, B.NV_BS, b"\x01")
    return grub_level("mok_ignore_db", setup, loader=out)


def sbat_text(v):
    got = v.get("SbatLevel", B.SHIM_GUID)
    return None if got is None else got[1].split(b"\0")[0].decode(errors="replace")


def level_scenario(name, setup, want_policy=None):
    res = grub_level(name, setup)
    kt = [o for o in B.chain(res.w + "/efivars")[2] if o.get("type") == "sbat_level"]
    kt_level = kt[0].get("level") if kt else None
    written = sbat_text(res.vars)
    real_date = re.search(r"sbat,1,(\d+)", written or "")
    res.compare("SbatLevel shim left (date stamp)", real_date.group(1) if real_date else None, str(kt_level))
    return res


ORIGINAL = b"sbat,1,2021030218\n"
LATEST = b"sbat,1,2025051000\nshim,4\ngrub,5\ngrub.proxmox,2\n"


@scenario("sbatlevel")
def sbat_level_original():
    """SbatLevel sbat,1,2021030218: shim raises it to its automatic level."""
    return level_scenario("sbat_level_original", lambda v, w: v.set("SbatLevel", B.SHIM_GUID, B.NV_BS, ORIGINAL))


@scenario("sbatlevel")
def sbat_level_latest():
    """SbatLevel already at the latest payload: shim keeps it."""
    return level_scenario("sbat_level_latest", lambda v, w: v.set("SbatLevel", B.SHIM_GUID, B.NV_BS, LATEST))


@scenario("sbatlevel")
def sbat_policy_latest():
    """SbatPolicy latest (1): shim writes its latest level."""
    return level_scenario("sbat_policy_latest", lambda v, w: v.set("SbatPolicy", B.SHIM_GUID, B.NV_BS, b"\x01"))


@scenario("sbatlevel")
def sbat_level_revokes_grub():
    """A newer SbatLevel revoking grub.debian 5: kept, GRUB refused; check-update agrees."""
    lv = b"sbat,1,2099010100\nshim,4\ngrub.debian,6\n"
    res = level_scenario("sbat_level_revokes_grub", lambda v, w: v.set("SbatLevel", B.SHIM_GUID, B.NV_BS, lv))
    return check_update(res, "none", B.GRUB, "--sbat-level", os.path.join(res.w, "efivars",
                                                                          "SbatLevelRT-%s" % B.SHIM_GUID))


@scenario("sbatlevel")
def sbat_level_revokes_shim():
    """A newer SbatLevel revoking shim 4: shim fails its self-check and stops."""
    lv = b"sbat,1,2099010100\nshim,5\n"
    return grub_level("sbat_level_revokes_shim", lambda v, w: v.set("SbatLevel", B.SHIM_GUID, B.NV_BS, lv))


def sbat_grub(name, sbat=None, drop=False):
    loader, der = mok_grub(name, sbat=sbat, drop=drop)
    return grub_level(name, lambda v, w: set_moklist(v, der), loader=loader)


@scenario("sbat")
def sbat_grub_generation_4():
    """GRUB with .sbat grub,4 (below automatic's grub,5), signed by an enrolled MOK key: revoked."""
    return sbat_grub("sbat_grub_generation_4", SBAT_HEAD + GRUB_LINE % b"4")


@scenario("sbat")
def sbat_no_section():
    """A MOK-signed GRUB without .sbat: shim requires one for what it loads."""
    return sbat_grub("sbat_no_section", drop=True)


@scenario("sbat")
def sbat_leading_space_and_suffix():
    """grub,' 5x' is generation 5 to shim's atoi: passes."""
    return sbat_grub("sbat_leading_space_and_suffix", SBAT_HEAD + GRUB_LINE % b" 5x")


@scenario("sbat")
def sbat_cr_only_hides_grub_4():
    """CR-only records: grub,4 is still a record and revoked."""
    return sbat_grub("sbat_cr_only_hides_grub_4", (SBAT_HEAD + GRUB_LINE % b"5" + GRUB_LINE % b"4")
                     .replace(b"\n", b"\r"))


@scenario("sbat")
def sbat_after_nul():
    """shim 16.1 reads .sbat up to its first NUL: grub,4 after it is never seen (GRUB boots)."""
    return sbat_grub("sbat_after_nul", SBAT_HEAD + (GRUB_LINE % b"5").rstrip(b"\n") + b"\0" + GRUB_LINE % b"4")


@scenario("sbat")
def sbat_nul_line_start():
    """A NUL at the start of a line (after a LF) ends the .sbat data too: GRUB boots."""
    return sbat_grub("sbat_nul_line_start", SBAT_HEAD + GRUB_LINE % b"5" + b"\0" + GRUB_LINE % b"4")


@scenario("sbat")
def sbat_short_record():
    """A .sbat record of fewer than six columns is malformed: shim refuses the image."""
    return sbat_grub("sbat_short_record", SBAT_HEAD + b"grub,5,Free Software Foundation\n")


# ------------------------------------------------------------------ NVRAM: does it fit (#35)
MAX_AUTH_VAR = 0x8400  # OVMF's secure-boot build: PcdMaxAuthVariableSize


def dbx_update(w, key, crt, n, name):
    """An append write of n fresh SHA-256 entries to dbx, signed by our KEK."""
    digests = [hashlib.sha256(b"ktrust nvram %s %d" % (name.encode(), i)).digest() for i in range(n)]
    return signed_update(w, "dbx", key, crt, B.esl_sha256(*digests), name)


def kt_fits(pre, upd):
    """plan-updates' word on one update alone, against OVMF's limit: True fits, False not."""
    d = upd + ".d"
    os.makedirs(d, exist_ok=True)
    shutil.copy(upd, d)
    _rc, objs, err = B.ktrust_json("plan-updates", "--efivars", pre, "--max-var-size",
                                   str(MAX_AUTH_VAR), d)
    u = [o for o in objs if o.get("type") == "update"]
    assert u and u[0].get("nvram"), "plan-updates gave no nvram: %s" % err
    return u[0]["nvram"]["too_big"] is False, u[0]["nvram"]["after"]


@scenario("nvram")
def nvram_dbx_limit():
    """OVMF's PcdMaxAuthVariableSize (0x8400) as the oracle: from the booted guest,
    through efivarfs, a dbx append that ktrust says would pass it is refused
    (EINVAL) and one entry less, under it by ktrust's count, is accepted."""
    w = B.scratch("nvram_dbx_limit")
    keys = {}
    v = B.scenario_store(w, lambda v, w: keys.update(kek=own_kek(v)))
    key, crt = keys["kek"]
    pre = B.runtime_view(v, os.path.join(w, "pre"))
    d0 = len(v.get("dbx", B.SECURITY_GUID)[1])
    # the most SHA-256 entries (48 bytes each, one 28-byte list header) that
    # fit by ktrust's count (60-byte header, "dbx" in UTF-16), and one more
    n = (MAX_AUTH_VAR - 60 - 8 - d0 - 28) // 48
    over, under = dbx_update(w, key, crt, n + 1, "over"), dbx_update(w, key, crt, n, "under")
    kt_over, size_over = kt_fits(pre, over)
    kt_under, size_under = kt_fits(pre, under)
    helper = os.path.join(B.WORK, "efivar_write")
    B.run(["gcc", "-static", "-O2", "-o", helper, os.path.join(os.path.dirname(__file__), "efivar_write.c")])
    dbx = "/sys/firmware/efi/efivars/dbx-%s" % B.SECURITY_GUID
    init = B.init_script("/bin/efivar_write %s 0x67 /tmp/over.auth over\n"
                         "/bin/efivar_write %s 0x67 /tmp/under.auth under\n" % (dbx, dbx))
    extra = [("bin/efivar_write", 0o100755, read(helper)), ("tmp/over.auth", 0o100644, read(over)),
             ("tmp/under.auth", 0o100644, read(under))]
    files = B.esp_files(cfg=B.grub_cfg_kernel(), kernel=B.KERNEL, initrd=B.initramfs(init, extra))
    esp = B.make_esp(os.path.join(w, "esp.img"), files)
    log = B.boot("nvram_dbx_limit", esp, v, timeout=300, kernel=True)
    real = dict(re.findall(r"KT-WRITE (\w+) (ok|fail \w+)", log))
    res = Result()
    res.log, res.vars, res.w = log, v, w
    res.compare("dbx of %d bytes (over 0x8400): written" % size_over, real.get("over", "no boot"),
                "ok" if kt_over else "fail EINVAL")
    res.compare("dbx of %d bytes (under): written" % size_under, real.get("under", "no boot"),
                "ok" if kt_under else "fail EINVAL")
    return res


# ------------------------------------------------------------------ to the kernel
def parse_init(log):
    out = {"rings": {}, "vars": {}, "insmod": {}, "lockdown": None, "keys": {}}
    for line in log.splitlines():
        line = line.strip()
        if line.startswith("KT-RING "):
            parts = line.split()
            out["rings"][parts[1]] = [] if len(parts) > 2 and parts[2] == "absent" else \
                [int(x) for x in parts[2:] if x.isdigit()]
        elif line.startswith("KT-VAR "):
            _t, name, *b64 = line.split(" ")
            import base64
            out["vars"][name.rsplit("-", 5)[0]] = base64.b64decode(b64[0] if b64 else "")
        elif line.startswith("KT-INSMOD "):
            parts = line.split(" ", 3)
            out["insmod"][parts[1]] = parts[2] + (" " + parts[3] if len(parts) > 3 else "")
        elif line.startswith("KT-LOCKDOWN "):
            out["lockdown"] = line[len("KT-LOCKDOWN "):]
    keys = re.findall(r"^([0-9a-f]{8}) \S+ +\S+ +\S+ +\S+ +\S+ +\S+ +asymmetri (.*)$", log, re.M)
    out["keys"] = {int(i, 16): desc for i, desc in keys}
    return out


def kernel_boot(name, vars_setup=None, kernel=B.KERNEL, init=B.INIT, extra=()):
    w = B.scratch(name)
    v = B.scenario_store(w, vars_setup)
    files = B.esp_files(cfg=B.grub_cfg_kernel(), kernel=kernel, initrd=B.initramfs(init, extra))
    esp = B.make_esp(os.path.join(w, "esp.img"), files)
    log = B.boot(name, esp, v, timeout=300, kernel=True)
    open(os.path.join(w, "serial.log"), "w").write(log)
    return w, v, log


def ring_names(init, ring):
    return sorted(re.sub(r": X509\..*$", "", init["keys"].get(i, "?%d" % i).strip())
                  for i in init["rings"].get(ring, []))


@scenario("kernel")
def kernel_keyrings_and_modules():
    """Full boot to a busybox initramfs: the kernel's keyrings against audit --root
    over the same files and the efivars the kernel saw; insmod against verify-module."""
    return kernel_check("kernel_keyrings_and_modules")


SIGN_FILE = "/usr/lib/linux-kbuild-6.1/scripts/sign-file"
# crc7.ko signed again by the MOK key with the kernel's own sign-file: the
# corpus kernel (6.1) takes sha384, and SHA-3 only from Linux 6.7
HASH_MODULES = (("sha3", "sha3-256"), ("sha384", "sha384"))
CRYPTO_MODULES = "./lib/modules/6.1.0-57-amd64/kernel/crypto/"


def mok_signed_modules():
    """The HASH_MODULES as (name, path): crc7.ko without Debian's signature,
    signed by the MOK key with sign-file (made once, whole)."""
    key, crt, _der = mok_key()
    out = []
    with B.locked("mods-mok"):
        for name, h in HASH_MODULES:
            p = os.path.join(keys_dir(), "mods-mok-%s.ko" % name)
            if not os.path.exists(p):
                tmp = "%s.%d.tmp" % (p, os.getpid())
                open(tmp, "wb").write(B.strip_module_sig(B.read_bytes(B.MODULE)))
                B.run([SIGN_FILE, h, key, crt, tmp])
                os.replace(tmp, p)
            out.append((name, p))
    return out


@scenario("kernel")
def kernel_mok_enrolled():
    """A MOK key enrolled: shim mirrors it to MokListRT, the kernel puts it (and the
    vendor CA) in .machine; audit must say the same.  crc7.ko signed by that key
    with sign-file's sha3-256 and sha384: the 6.1 kernel loads what verify-module
    --kernel says it would (SHA-3 needs Linux 6.7)."""
    _k, crt, der = mok_key()
    mods = mok_signed_modules()
    names = " ".join(n for n, _p in mods)
    # the hash modules first: Debian builds sha512 (sha384) and sha3 as modules,
    # which a real system loads on demand and this initramfs cannot
    hashes = ("sha512_generic", "sha3_generic")
    load = "".join('insmod /lib/%s.ko || echo "KT-ERROR %s.ko not loaded"\n' % (h, h) for h in hashes)
    init = B.INIT.replace("for m in genuine stripped altered; do",
                          load + "for m in genuine stripped altered %s; do" % names)
    extra = [("mods/%s.ko" % n, 0o100644, B.read_bytes(p)) for n, p in mods]
    extra += [("lib/%s.ko" % h, 0o100644, B.deb_module(CRYPTO_MODULES + h + ".ko")) for h in hashes]
    res = kernel_check("kernel_mok_enrolled", lambda v, w: set_moklist(v, der), modules=False,
                       init=init, extra=extra)
    real = parse_init(res.log)["insmod"]
    for n, p in mods:
        rc, _o, _e = B.ktrust("verify-module", "--kernel", B.KERNEL, "--trust", crt, "-q", p)
        got = real.get(n, "missing")
        res.compare("insmod %s.ko (MOK key, %s)" % (n, dict(HASH_MODULES)[n]),
                    "loads" if got.startswith("ok") else "refused", "loads" if rc == 0 else "refused")
        res.checks[-1] = res.checks[-1] + ("kernel: " + got + "; verify-module exit %d" % rc,)
    return res


def kernel_check(name, setup=None, modules=True, init=B.INIT, extra=()):
    w, v, log = kernel_boot(name, setup, init=init, extra=extra)
    res = Result()
    res.log, res.vars, res.w = log, v, w
    init = parse_init(log)
    # the efivars the kernel saw, written back as efivarfs files, and the store's
    ev = os.path.join(w, "efivars")
    v.dump(ev)
    for name, data in init["vars"].items():
        open(os.path.join(ev, "%s-%s" % (name, B.SHIM_GUID if name != "SecureBoot" else B.GLOBAL_GUID)),
             "wb").write(data)
    root = B.root_tree(os.path.join(w, "root"), modules=[B.MODULE])
    rc, objs, err = B.ktrust_json("audit", "--root", root, "--efivars", ev)
    sec = {o.get("section"): o for o in objs}
    links = {lk["role"]: lk for lk in sec.get("chain", {}).get("links", [])}
    res.checks.insert(0, ("how far the boot got", real_stage(log), kt_stage(links, kernel_level=True)))
    res.compare("audit: chain verdicts", "shim trusted, loader trusted, kernel trusted",
                ", ".join("%s %s" % (r, links.get(r, {}).get("verdict")) for r in ("shim", "loader", "kernel")))
    # keyrings: the kernel's, by key description, against what audit and kernel-keys say
    fw = {x["name"]: x for x in sec.get("firmware", {}).get("variables", [])}
    mok = fw.get("MokListRT", {}).get("certificates", [])
    trusted = sec.get("firmware", {}).get("mok_trusted")
    _rc, kk, _e = B.ktrust_json("kernel-keys", B.KERNEL)
    want = {".builtin_trusted_keys": [k["description"] for k in kk],
            ".platform": fw.get("db", {}).get("certificates", []) + ([] if trusted else mok),
            ".machine": mok if trusted else []}
    for ring in (".builtin_trusted_keys", ".platform", ".machine"):
        res.compare("keyring %s" % ring, ring_names(init, ring), sorted(want[ring]))
    bl = re.search(r"keyring +\.blacklist: (\d+|empty)", log)
    kt_bl = sum(fw.get(n, {}).get(k, 0) for n in ("dbx", "MokListXRT") for k in ("sha256", "x509_hash", "x509"))
    res.compare("keyring .blacklist: entries", int(bl.group(1)) if bl and bl.group(1) != "empty" else 0, kt_bl)
    for name in ("MokListTrustedRT", "MokIgnoreDB"):
        res.compare("%s exists" % name, name in init["vars"],
                    {"MokListTrustedRT": trusted, "MokIgnoreDB": False}[name])
    res.compare("SecureBoot (audit)", init["vars"].get("SecureBoot", b"")[4:5] == b"\x01",
                sec.get("firmware", {}).get("secure_boot"))
    real_lvl = init["vars"].get("SbatLevelRT", b"")[4:].split(b"\n")[0].decode(errors="replace")
    res.compare("SbatLevelRT (audit: sbat.current)", real_lvl.split(",")[-1] if real_lvl else None,
                sec.get("sbat", {}).get("current"))
    res.compare("lockdown", init["lockdown"] and re.search(r"\[(\w+)\]", init["lockdown"]).group(1),
                "integrity")
    # modules: insmod against verify-module with the kernel's builtin keys
    for m in () if not modules else ("genuine", "stripped", "altered"):
        path = os.path.join(B.WORK, "mods-%s.ko" % m)
        rc, _o, _e = B.ktrust("verify-module", "--kernel", B.KERNEL, "-q", path)
        real = init["insmod"].get(m, "missing")
        res.compare("insmod %s.ko" % m, "loads" if real.startswith("ok") else "refused",
                    "loads" if rc == 0 else "refused")
        res.checks[-1] = res.checks[-1] + ("kernel: " + real + "; verify-module exit %d" % rc,)
    res.audit_err = err
    return res


def describe(k):
    """A keys_added entry as the kernel's key description (CN or O: CN: skid)."""
    return k.get("description") or k.get("subject") or str(k)


@scenario("kernel")
def kernel_tampered_refused():
    """A kernel with one byte of .text changed: GRUB asks shim, which refuses it."""
    d = keys_dir()
    k = B.flip_byte(B.KERNEL, os.path.join(d, "vmlinuz-tampered"), ".text")
    w, v, log = kernel_boot("kernel_tampered_refused", kernel=k)
    ev = B.runtime_view(v, os.path.join(w, "efivars"))
    rc, links, _o, err = B.chain(ev, B.SHIM, B.GRUB, k)
    res = Result()
    res.log, res.vars, res.w, res.links = log, v, w, links
    res.compare("how far the boot got", real_stage(log), kt_stage(links, kernel_level=True))
    return res


if __name__ == "__main__":
    sys.exit(RUNNER.main(sys.argv, explain=explain))
