"""WORK, the boot tests' scratch directory, shared by the runners that ctest
runs at the same time (the run.py groups, tpm.py's shards): a piece made
once for all of them (keys, the initramfs, cached ESP images, the
accelerator, tpm.py's state A) is made under a lock and appears whole."""
import contextlib
import fcntl
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_SRC = os.environ.get("KT_SRC", os.path.abspath(os.path.join(_HERE, "..", "..")))
WORK = os.environ.get("KT_BOOT_WORK", os.path.join(os.environ.get("KT_BUILD", os.path.join(_SRC, "build")),
                                                   "boot-work"))


@contextlib.contextmanager
def locked(name):
    """Hold WORK/.lock-NAME (flock) for the block: one process makes a shared piece."""
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(WORK, ".lock-" + name), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def write_atomic(path, data):
    """path holds data, whole: written beside it, then renamed (a reader in
    another process never sees half of it)."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
