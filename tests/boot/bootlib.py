"""Shared helpers of the boot tests: firmware and accelerator discovery, FAT
ESP images (mkfs.fat + mtools, no mounting), OVMF variable stores, a busybox
initramfs, PE Authenticode hashes and EFI signature lists, signing with
sbsign, one bounded QEMU boot with its serial log, and ktrust runs.

Several runners share WORK at the same time (ctest -j runs the groups and
tpm.py's shards in parallel): what lands in WORK itself (keys, the
initramfs, cached ESP images, the accelerator) is made once under a lock
(locked) and appears whole (write_atomic); a scenario's own files live in
its own scratch directory, QEMU and swtpm use files and unix sockets there
(no TCP port)."""
import atexit
import gzip
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import efi as E  # noqa: E402  (tests/fixtures/efi.py: ESLs, efivarfs files)
import ovmf_vars  # noqa: E402
import workdir as W  # noqa: E402  (WORK, its locks)

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("KT_SRC", os.path.abspath(os.path.join(HERE, "..", "..")))
BUILD = os.environ.get("KT_BUILD", os.path.join(SRC, "build"))
KTRUST = os.environ.get("KTRUST", os.path.join(BUILD, "ktrust"))
CORPUS = os.path.abspath(os.environ.get("KTRUST_CORPUS", os.path.join(SRC, "..", "shared", "corpus")))
DEB = os.path.join(CORPUS, "debian")
SHIM = os.path.join(DEB, "shimx64.efi.signed")
GRUB = os.path.join(DEB, "grubx64.efi.signed")
KERNEL = os.path.join(DEB, "vmlinuz-6.1.0-57-amd64")
MODULE = os.path.join(DEB, "modules", "crc7.ko")  # depends= nothing
OVMF_DIR = os.environ.get("KT_OVMF_DIR", "/usr/share/OVMF")
CODE = os.path.join(OVMF_DIR, "OVMF_CODE_4M.secboot.fd")
VARS_MS = os.path.join(OVMF_DIR, "OVMF_VARS_4M.ms.fd")

SHIM_GUID = E.SHIM_GUID
GLOBAL_GUID = E.GLOBAL_GUID
SECURITY_GUID = E.SECURITY_GUID
OWNER = E.MICROSOFT_GUID  # Microsoft's owner GUID; any would do

NV_BS = 0x3
NV_BS_RT = 0x7
BS_RT = 0x6  # a volatile variable (SecureBoot, SetupMode, shim's RT mirrors)
AUTH_DB = 0x27  # NV | BS | RT | TIME_BASED_AUTHENTICATED_WRITE_ACCESS

# the scratch directory of this run (cached pieces live here too)
WORK = W.WORK
locked, write_atomic = W.locked, W.write_atomic

PACKAGES = {"qemu-system-x86_64": "qemu-system-x86", "mkfs.fat": "dosfstools", "mcopy": "mtools",
            "sbsign": "sbsigntool", "openssl": "openssl", "objcopy": "binutils", "sbattach": "sbsigntool",
            "keyctl": "keyutils", "dpkg-deb": "dpkg"}


class Skip(Exception):
    pass


def need_tools():
    for tool, pkg in PACKAGES.items():
        if not shutil.which(tool):
            raise Skip("%s not installed (package %s)" % (tool, pkg))
    for f in (CODE, VARS_MS):
        if not os.path.exists(f):
            raise Skip("%s not found (package ovmf)" % f)
    if not os.path.exists("/bin/busybox"):
        raise Skip("/bin/busybox not found (package busybox-static)")
    for f in (SHIM, GRUB, KERNEL, MODULE, DEB_PKG):
        if not os.path.exists(f):
            if os.environ.get("CI"):
                raise RuntimeError("corpus file %s missing and CI is set" % f)
            raise Skip("corpus file %s missing" % f)
    if not os.access(KTRUST, os.X_OK):
        raise RuntimeError("%s not built" % KTRUST)


def run(cmd, **kw):
    kw.setdefault("check", True)
    kw.setdefault("capture_output", True)
    return subprocess.run(cmd, **kw)


# ---------------------------------------------------------------- accelerator
def accel():
    """kvm when KVM runs the SMM machine the secboot firmware needs, else tcg."""
    os.makedirs(WORK, exist_ok=True)
    cache = os.path.join(WORK, "accel")
    if os.path.exists(cache):
        return open(cache).read().strip()
    with locked("accel"):
        if os.path.exists(cache):
            return open(cache).read().strip()
        choice = _probe_accel()
        write_atomic(cache, (choice + "\n").encode())
    return choice


def _probe_accel():
    choice = "tcg"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        p = subprocess.run(["timeout", "5", "qemu-system-x86_64", "-accel", "kvm", "-machine", "q35,smm=on",
                            "-display", "none", "-nodefaults", "-S", "-monitor", "none"],
                           stdin=subprocess.DEVNULL, capture_output=True)
        if p.returncode == 124:  # still running after 5 s: KVM accepted SMM
            choice = "kvm"
    return choice


# ------------------------------------------------------------ PE and ESLs
def authenticode_sha256(data):
    """The PE Authenticode SHA-256 (the digest firmware and shim compare with
    db/dbx/MokList hashes), written here from the PE/COFF spec, independent
    of ktrust."""
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    opt = pe + 24
    magic = struct.unpack_from("<H", data, opt)[0]
    dd = opt + (96 if magic == 0x10B else 112)
    cksum = opt + 64
    certdir = dd + 4 * 8
    hdr_size = struct.unpack_from("<I", data, opt + 60)[0]
    nsec = struct.unpack_from("<H", data, pe + 6)[0]
    optsize = struct.unpack_from("<H", data, pe + 20)[0]
    cert_off, cert_len = struct.unpack_from("<II", data, certdir)
    h = hashlib.sha256()
    h.update(data[:cksum])
    h.update(data[cksum + 4:certdir])
    h.update(data[certdir + 8:hdr_size])
    done = hdr_size
    secs = []
    for i in range(nsec):
        s = opt + optsize + 40 * i
        raw_size, raw_ptr = struct.unpack_from("<II", data, s + 16)
        if raw_size:
            secs.append((raw_ptr, raw_size))
    for ptr, size in sorted(secs):
        h.update(data[ptr:ptr + size])
        done += size
    end = len(data) - (cert_len if cert_off else 0)
    if end > done:
        h.update(data[done:end])
    return h.digest()


def esl_x509(der):
    return E.esl_x509(der, OWNER)


def esl_sha256(*digests):
    return E.esl_sha256(*digests, owner=OWNER)


def der_of(pem_or_der_path):
    data = open(pem_or_der_path, "rb").read()
    if data.startswith(b"-----"):
        data = run(["openssl", "x509", "-in", pem_or_der_path, "-outform", "DER"]).stdout
    return data


def pe_signer_certs(path, d):
    """The certificates in a signed PE's (first) signature, as DER files in d."""
    os.makedirs(d, exist_ok=True)
    sig = os.path.join(d, "sig.p7")
    run(["sbattach", "--detach", sig, path])
    pem = run(["openssl", "pkcs7", "-inform", "DER", "-in", sig, "-print_certs"]).stdout.decode()
    out = []
    for i, block in enumerate(re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", pem, re.S)):
        p = os.path.join(d, "c%d.pem" % i)
        open(p, "w").write(block + "\n")
        subj = run(["openssl", "x509", "-in", p, "-noout", "-subject"]).stdout.decode().strip()
        out.append((subj, der_of(p)))
    return out


def new_key(d, name, cn):
    """A self-signed RSA-2048 code-signing certificate: (key, pem, der)."""
    os.makedirs(d, exist_ok=True)
    key, crt = os.path.join(d, name + ".key"), os.path.join(d, name + ".crt")
    der = os.path.join(d, name + ".der")
    with locked("key-" + name):
        if not os.path.exists(der):  # the last of the three written
            tk, tc = "%s.%d.tmp" % (key, os.getpid()), "%s.%d.tmp" % (crt, os.getpid())
            run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "3650",
                 "-subj", "/CN=" + cn, "-keyout", tk, "-out", tc,
                 "-addext", "extendedKeyUsage=codeSigning"])
            os.replace(tk, key)
            os.replace(tc, crt)
            write_atomic(der, der_of(crt))
    return key, crt, read_bytes(der)


def resign(src, dst, key, crt, sbat=None, drop_sbat=False):
    """src without its signatures, optionally with a new .sbat, signed with key
    (dst appears whole: another runner may be signing the same image)."""
    tmp = "%s.%d.unsigned" % (dst, os.getpid())
    shutil.copy(src, tmp)
    run(["sbattach", "--remove", tmp], check=False)
    if sbat is not None:
        sb = tmp + ".sbat.csv"
        open(sb, "wb").write(sbat)
        run(["objcopy", "--update-section", ".sbat=" + sb, tmp, tmp + ".2"])
        os.replace(tmp + ".2", tmp)
    if drop_sbat:
        run(["objcopy", "--remove-section", ".sbat", tmp, tmp + ".2"])
        os.replace(tmp + ".2", tmp)
    run(["sbsign", "--key", key, "--cert", crt, "--output", tmp + ".signed", tmp])
    os.replace(tmp + ".signed", dst)
    os.unlink(tmp)
    return dst


def unsigned_copy(src, dst):
    shutil.copy(src, dst)
    run(["sbattach", "--remove", dst])
    return dst


def pe_section(data, name):
    """File offset of a section's raw data."""
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    nsec = struct.unpack_from("<H", data, pe + 6)[0]
    optsize = struct.unpack_from("<H", data, pe + 20)[0]
    for i in range(nsec):
        s = pe + 24 + optsize + 40 * i
        if data[s:s + 8].rstrip(b"\0") == name.encode():
            return struct.unpack_from("<I", data, s + 20)[0]
    raise RuntimeError("no %s section" % name)


def pe_section_objdump(path, name):
    """File offset of a section's raw data, as objdump -h reports it (long names too)."""
    for line in run(["objdump", "-h", path]).stdout.decode().splitlines():
        f = line.split()
        if len(f) >= 6 and f[1] == name:
            return int(f[5], 16)
    raise RuntimeError("%s: no %s section" % (path, name))


def flip_byte(src, dst, where=".text"):
    """A copy with one byte of a section's raw data changed (the signature stays)."""
    data = bytearray(open(src, "rb").read())
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    nsec = struct.unpack_from("<H", data, pe + 6)[0]
    optsize = struct.unpack_from("<H", data, pe + 20)[0]
    for i in range(nsec):
        s = pe + 24 + optsize + 40 * i
        if data[s:s + 8].rstrip(b"\0").decode(errors="replace") == where:
            ptr = struct.unpack_from("<I", data, s + 20)[0]
            data[ptr + 0x100] ^= 0x01
            break
    else:
        raise RuntimeError("%s has no %s section" % (src, where))
    open(dst, "wb").write(data)
    return dst


# ---------------------------------------------------------------- stores
class Vars:
    """A copy of OVMF_VARS_4M.ms.fd for one scenario."""

    def __init__(self, path, base=VARS_MS, verbose=True):
        shutil.copy(base, path)
        self.path = path
        if verbose:  # shim prints why it refuses an image
            self.set("SHIM_VERBOSE", SHIM_GUID, NV_BS, b"\x01")

    def set(self, name, guid, attr, data):
        st = ovmf_vars.Store(self.path)
        stamp = ovmf_vars.efi_time("20100101000000") if attr & ovmf_vars.TIME_BASED else None
        st.set(name, guid, attr, data, stamp)
        st.save()

    def delete(self, name, guid):
        st = ovmf_vars.Store(self.path)
        st.delete(name, guid)
        st.save()

    def get(self, name, guid):
        v = ovmf_vars.Store(self.path).find(name, guid)
        return None if v is None else (v.attr, v.data)

    def dump(self, d):
        shutil.rmtree(d, ignore_errors=True)
        ovmf_vars.dump(ovmf_vars.Store(self.path), d)
        return d


def scratch(name):
    """A fresh directory WORK/name (emptied when it exists)."""
    w = os.path.join(WORK, name)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    return w


def scenario_store(w, setup=None):
    """A scenario's store, w/vars.fd: the stock copy, then setup(vars, w)."""
    v = Vars(os.path.join(w, "vars.fd"))
    if setup:
        setup(v, w)
    return v


# how shim mirrors boot-services variables for the OS (mok.c mok_state_variables)
RT_MIRROR = {"MokList": "MokListRT", "MokListX": "MokListXRT", "SbatLevel": "SbatLevelRT",
             "MokDBState": "MokIgnoreDB", "MokListTrusted": "MokListTrustedRT"}


def runtime_view(vars_, d, secure=True, mok_trusted=True):
    """The variables as the OS would read them before shim changed anything:
    the store's, SecureBoot/SetupMode as the firmware exposes them (SetupMode
    1 when the store has no PK: EDK2 derives the mode from the PK), and shim's
    RT mirrors under their RT names (MokListTrustedRT exists unless the owner
    said no: shim 16.x mok.c's MOK_VARIABLE_INVERSE, a MokListTrusted in the
    store means no MokListTrustedRT)."""
    vars_.dump(d)
    untrusted = False
    for f in os.listdir(d):
        name, _, guid = f.partition("-")
        if name == "MokListTrusted" and guid == str(SHIM_GUID):
            os.unlink(os.path.join(d, f))
            untrusted = True
        elif name in RT_MIRROR and guid == str(SHIM_GUID):
            os.rename(os.path.join(d, f), os.path.join(d, "%s-%s" % (RT_MIRROR[name], guid)))
    setup = vars_.get("PK", GLOBAL_GUID) is None
    open(os.path.join(d, "SecureBoot-%s" % GLOBAL_GUID), "wb").write(E.efivar(BS_RT, bytes([secure])))
    open(os.path.join(d, "SetupMode-%s" % GLOBAL_GUID), "wb").write(E.efivar(BS_RT, bytes([setup])))
    if mok_trusted and not untrusted and not os.path.exists(os.path.join(d, "MokListTrustedRT-%s" % SHIM_GUID)):
        open(os.path.join(d, "MokListTrustedRT-%s" % SHIM_GUID), "wb").write(E.efivar(BS_RT, b"\x01"))
    return d


# ------------------------------------------------------------------ ESP
GRUB_CFG_STOP = b"echo KTBOOT-GRUB-CFG\nreboot\n"


KERNEL_CMDLINE = "console=ttyS0 panic=-1 quiet no_timer_check"


def grub_cfg_kernel(cmdline=KERNEL_CMDLINE):
    """GRUB loads the kernel and initramfs.  no_timer_check: under TCG on a busy
    host (boots run side by side) the kernel's IO-APIC timer check may fail
    ("IO-APIC + timer doesn't work!", a panic); the command line is measured
    into PCR 8/9 only, never a PCR the predictions compare."""
    return ("echo KTBOOT-GRUB-CFG\n"
            "linux /EFI/debian/vmlinuz %s\n"
            "initrd /EFI/debian/initrd.img\n"
            "echo KTBOOT-GRUB-LOADED\n"
            "boot\n"
            "echo KTBOOT-GRUB-BOOT-FAILED\n"
            "reboot\n" % cmdline).encode()


def make_esp(path, files, size_mb=64):
    """A FAT image holding files {"EFI/BOOT/BOOTX64.EFI": src path or bytes}: a
    copy of the image built once for the same files (WORK/esp-cache, named by
    their content; a boot may write to its copy)."""
    h = hashlib.sha256(str(size_mb).encode())
    for dst in sorted(files):
        src = files[dst]
        h.update(dst.encode() + b"\0" + hashlib.sha256(src if isinstance(src, bytes) else read_bytes(src)).digest())
    cached = os.path.join(WORK, "esp-cache", h.hexdigest()[:16] + ".img")
    with locked("esp-" + h.hexdigest()[:16]):
        if not os.path.exists(cached):
            os.makedirs(os.path.dirname(cached), exist_ok=True)
            tmp = "%s.%d.tmp" % (cached, os.getpid())
            _build_esp(tmp, files, size_mb)
            os.replace(tmp, cached)
    if os.path.exists(path):
        os.unlink(path)
    run(["cp", "--sparse=always", cached, path])  # mkfs.fat's image is sparse: keep it so
    return path


def _build_esp(path, files, size_mb):
    if os.path.exists(path):
        os.unlink(path)
    run(["mkfs.fat", "-C", "-n", "KTESP", path, str(size_mb * 1024)])
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    dirs = set()
    for dst in files:
        parts = dst.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    for d in sorted(dirs, key=len):
        run(["mmd", "-i", path, "::/" + d], env=env)
    for dst, src in files.items():
        if isinstance(src, bytes):
            tmp = path + ".tmpfile"
            open(tmp, "wb").write(src)
            src = tmp
        run(["mcopy", "-i", path, src, "::/" + dst], env=env)
    if os.path.exists(path + ".tmpfile"):
        os.unlink(path + ".tmpfile")
    return path


def esp_files(shim=SHIM, loader=GRUB, cfg=GRUB_CFG_STOP, kernel=None, initrd=None):
    f = {"EFI/BOOT/BOOTX64.EFI": shim, "EFI/BOOT/grubx64.efi": loader,
         "EFI/BOOT/grub.cfg": cfg, "EFI/debian/grub.cfg": cfg}
    if kernel:
        f["EFI/debian/vmlinuz"] = kernel
    if initrd:
        f["EFI/debian/initrd.img"] = initrd
    return f


def root_tree(d, shim=SHIM, loader=GRUB, kernel=KERNEL, modules=()):
    """The same files as an installed system for `audit --root`: boot/efi/EFI/debian,
    boot/vmlinuz-RELEASE, lib/modules/RELEASE."""
    shutil.rmtree(d, ignore_errors=True)
    rel = "6.1.0-57-amd64"
    os.makedirs(os.path.join(d, "boot/efi/EFI/debian"))
    shutil.copy(shim, os.path.join(d, "boot/efi/EFI/debian/shimx64.efi"))
    shutil.copy(loader, os.path.join(d, "boot/efi/EFI/debian/grubx64.efi"))
    shutil.copy(kernel, os.path.join(d, "boot/vmlinuz-" + rel))
    md = os.path.join(d, "lib/modules", rel, "kernel")
    os.makedirs(md)
    for m in modules:
        shutil.copy(m, md)
    return d


# ------------------------------------------------------------- initramfs
# /init in pieces: the mounts, then what a runner prints, then shim's RT
# variables as the kernel saw them, then power-off (tpm.py prints the event
# log and the PCRs between them)
INIT_HEAD = r"""#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
insmod /lib/efivarfs.ko || echo "KT-ERROR efivarfs.ko not loaded"
mount -t efivarfs efivarfs /sys/firmware/efi/efivars || echo "KT-ERROR efivarfs not mounted"
mount -t securityfs securityfs /sys/kernel/security || echo "KT-ERROR securityfs not mounted"
echo KTBOOT-INIT-START
"""
INIT_VARS = r"""ls /sys/firmware/efi/efivars | while read f; do
    case "$f" in
    MokListRT-*|MokListXRT-*|MokListTrustedRT-*|SbatLevelRT-*|MokIgnoreDB-*|SecureBoot-*|SetupMode-*)
        echo "KT-VAR $f $(base64 -w0 < "/sys/firmware/efi/efivars/$f")" ;;
    esac
done
"""
INIT_TAIL = r"""echo KTBOOT-INIT-DONE
poweroff -f
"""


def init_script(body, tail=""):
    """/init: the mounts, body, the RT variables, tail, power-off."""
    return INIT_HEAD + body + INIT_VARS + tail + INIT_TAIL


INIT = init_script(r"""echo "KT-LOCKDOWN $(cat /sys/kernel/security/lockdown 2>&1)"
echo KT-PROC-KEYS-BEGIN
cat /proc/keys
echo KT-PROC-KEYS-END
for ring in .builtin_trusted_keys .secondary_trusted_keys .platform .machine .blacklist; do
    id=$(grep " keyring *$ring: " /proc/keys | cut -d' ' -f1)
    [ -n "$id" ] || { echo "KT-RING $ring absent"; continue; }
    echo "KT-RING $ring $(keyctl rlist 0x$id 2>&1 | tr '\n' ' ')"
done
""", r"""for m in genuine stripped altered; do
    if insmod /mods/$m.ko 2>/tmp/err; then
        echo "KT-INSMOD $m ok"
        rmmod crc7 2>/dev/null
    else
        echo "KT-INSMOD $m fail $(cat /tmp/err)"
    fi
done
""")


def strip_module_sig(data):
    magic = b"~Module signature appended~\n"
    assert data.endswith(magic)
    sig_len = struct.unpack(">I", data[-len(magic) - 4:-len(magic)])[0]
    return data[:-len(magic) - 12 - sig_len]


def _cpio(entries):
    """newc archive of (name, mode, data) entries."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], 1):
        nm = name.encode() + b"\0"
        hdr = "070701" + "".join("%08X" % v for v in (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0,
                                                      len(nm), 0))
        out += hdr.encode() + nm
        out += b"\0" * (-len(out) % 4)
        out += data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


DEB_PKG = os.path.join(DEB, "linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb")
EFIVARFS = "./lib/modules/6.1.0-57-amd64/kernel/fs/efivarfs/efivarfs.ko"


def deb_module(member):
    """A module of the corpus kernel package (member: its path in the
    package), kept in WORK under its base name."""
    name = os.path.basename(member)
    path = os.path.join(WORK, name)
    with locked(name):
        if not os.path.exists(path):
            deb = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", DEB_PKG], stdout=subprocess.PIPE)
            data = run(["tar", "-xO", member], stdin=deb.stdout).stdout
            deb.wait()
            write_atomic(path, data)
    return read_bytes(path)


def efivarfs_ko():
    """efivarfs is a module in Debian's kernel: taken from the corpus package."""
    return deb_module(EFIVARFS)


def initramfs(init=INIT, extra=()):
    """busybox, keyctl (with its libraries), /init and the three modules, and
    extra (name, mode, data) files; built once per run."""
    # cached across scenarios and runs, named by what goes into it
    tools = ("keyctl", "chattr")  # chattr: efivarfs files of db, dbx, KEK are immutable
    tag = hashlib.sha256(init.encode() + read_bytes(MODULE) + read_bytes("/bin/busybox") +
                         " ".join(tools).encode() +
                         b"".join(n.encode() + d for n, _m, d in extra)).hexdigest()[:12]
    path = os.path.join(WORK, "initrd-%s.img" % tag)
    os.makedirs(WORK, exist_ok=True)
    mod = read_bytes(MODULE)
    altered = bytearray(mod)
    altered[0x200] ^= 0x01  # inside the module's ELF, before the signature
    modules = [("genuine", mod), ("stripped", strip_module_sig(mod)), ("altered", bytes(altered))]
    with locked("initramfs"):
        for m, data in modules:  # the same files for verify-module
            mp = os.path.join(WORK, "mods-%s.ko" % m)
            if not os.path.exists(mp) or read_bytes(mp) != data:
                write_atomic(mp, data)
        if not os.path.exists(path):
            _build_initramfs(path, init, modules, tools, extra)
    return path


def _build_initramfs(path, init, modules, tools, extra):
    D, F, X = 0o040755, 0o100644, 0o100755
    ent = [(d, D, b"") for d in ("bin", "proc", "sys", "dev", "tmp", "mods", "lib", "lib64",
                                 "lib/x86_64-linux-gnu")]
    ent.append(("bin/busybox", X, open("/bin/busybox", "rb").read()))
    for applet in ("sh", "mount", "cat", "echo", "grep", "cut", "tr", "base64", "insmod", "rmmod",
                   "poweroff", "ls", "dmesg", "sha256sum", "dd"):
        ent.append(("bin/" + applet, 0o120777, b"busybox"))
    libs = set()
    for tool in tools:
        exe = shutil.which(tool)
        if not exe:
            continue
        ent.append(("bin/" + tool, X, open(exe, "rb").read()))
        for line in run(["ldd", exe]).stdout.decode().splitlines():
            m = re.search(r"(/\S+)", line)
            if m and os.path.exists(m.group(1)) and m.group(1) not in libs:
                lib = m.group(1)
                libs.add(lib)
                ent.append((lib.lstrip("/"), X, open(os.path.realpath(lib), "rb").read()))
    ent.append(("lib/efivarfs.ko", F, efivarfs_ko()))
    ent += [("mods/%s.ko" % m, F, data) for m, data in modules]
    ent += list(extra)
    ent.append(("init", X, init.encode()))
    write_atomic(path, gzip.compress(_cpio(ent), 6))


# ------------------------------------------------------------------ boot
# lines that end a boot: nothing after them matters
STOP = [r"KTBOOT-INIT-DONE", r"KTBOOT-GRUB-CFG", r"start_image\(\) returned",
        r"Security Policy Violation", r"Access Denied", r"Kernel panic", r"KTBOOT-GRUB-BOOT-FAILED"]


def clean(text):
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    return text.replace("\r", "")


def terminate(p):
    """End a process this run started (QEMU, swtpm): terminate, kill after 10 s."""
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def boot(name, esp, vars_, timeout=60, stop=None, kernel=False, tpm_sock=None):
    """Boot the ESP image with the store; returns the cleaned serial log. The
    boot ends at power-off/reboot (-no-reboot), at a line that decides the
    outcome (stop), or at the timeout.  tpm_sock: a swtpm control socket, the
    machine's TPM 2.0 (TIS)."""
    log = os.path.join(WORK, name + ".serial.log")
    if os.path.exists(log):
        os.unlink(log)
    acc = accel()
    cmd = ["qemu-system-x86_64", "-accel", acc, "-machine", "q35,smm=on", "-m", "1024",
           "-display", "none", "-no-reboot", "-nic", "none", "-monitor", "none",
           "-global", "driver=cfi.pflash01,property=secure,value=on",
           "-global", "ICH9-LPC.disable_s3=1",
           "-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + CODE,
           "-drive", "if=pflash,format=raw,unit=1,file=" + vars_.path,
           "-drive", "if=none,id=esp,format=raw,file=" + esp,
           "-device", "virtio-blk-pci,drive=esp",
           "-serial", "file:" + log]
    if acc == "kvm":
        cmd += ["-cpu", "host"]
    if tpm_sock:
        cmd += ["-chardev", "socket,id=chrtpm,path=" + tpm_sock, "-tpmdev", "emulator,id=tpm0,chardev=chrtpm",
                "-device", "tpm-tis,tpmdev=tpm0"]
    pats = [re.compile(p) for p in (stop if stop is not None else STOP)]
    if kernel:
        pats = [re.compile(p) for p in (r"KTBOOT-INIT-DONE", r"Kernel panic", r"KTBOOT-GRUB-BOOT-FAILED",
                                        r"start_image\(\) returned", r"Access Denied")]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    hit = None
    while p.poll() is None:
        time.sleep(0.5)
        text = clean(open(log, errors="replace").read()) if os.path.exists(log) else ""
        for pat in pats:
            if pat.search(text):
                hit = pat.pattern
        if hit:
            time.sleep(1.5)  # let the lines after it arrive
            break
        if time.monotonic() - t0 > timeout:
            hit = "timeout"
            break
    terminate(p)
    err = p.stderr.read().decode(errors="replace")
    text = clean(open(log, errors="replace").read()) if os.path.exists(log) else ""
    secs = time.monotonic() - t0
    print("    boot %-28s %s, %.1f s, ended by %s" % (name, acc, secs, hit or "power-off/reboot"))
    if "qemu-system" in err and "warning" not in err and "terminating on signal" not in err:
        print("    qemu: " + err.strip())
    return text


# ---------------------------------------------------------------- ktrust
# ktrust's default store ($XDG_DATA_HOME/ktrust/keyrings.db, read by every
# command given no --store, --trust or --kernel) is none, as on a fresh CI
# machine: never the user's ~/.local/share one or $KTRUST_STORE, whose keys
# and blacklist would change the verdicts compared with the firmware's; an
# empty directory of this runner's, removed at its exit
KT_ENV = {k: v for k, v in os.environ.items() if k != "KTRUST_STORE"}
KT_ENV["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="kt-boot-xdg.")
atexit.register(shutil.rmtree, KT_ENV["XDG_DATA_HOME"], True)


def ktrust(*args):
    p = subprocess.run([KTRUST] + list(args), capture_output=True, env=KT_ENV)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def ktrust_json(*args):
    rc, out, err = ktrust(*args, "--json")
    objs = [json.loads(line) for line in out.splitlines() if line.strip()]
    return rc, objs, err


def chain(efivars, shim=SHIM, loader=GRUB, kernel=KERNEL, *extra):
    rc, objs, err = ktrust_json("chain", "--efivars", efivars, *extra, shim, loader, kernel)
    links = {o.get("role"): o for o in objs if o.get("type") == "chain"}
    return rc, links, objs, err


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()
