"""The driver both boot runners share (run.py: the boot's stage, tpm.py: the
measured PCRs): scenario registration, the Result a scenario returns, and
main(): --list, the selection by name or group (and --shard=I/N: every
N-th of them from the I-th, so that ctest runs N parts at once), the comparison with
KT_BOOT_FLIP, KNOWN_DISAGREEMENT and KT_BOOT_VERBOSE, the summary and the
exit code (0, 1 when a scenario failed, 64 for an unknown name, 77 when a
tool is missing).  A runner holds only its scenarios and how to explain a
failing one."""
import os
import re
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bootlib as B  # noqa: E402


class Result:
    """What a scenario found: checks (what, real, ktrust[, note]) and notes
    printed after them."""

    def __init__(self):
        self.checks = []
        self.notes = []

    def compare(self, what, real, kt):
        self.checks.append((what, real, kt))


def evidence(text, pats, most=8):
    """The first distinct lines of a serial log that match one of pats."""
    lines = []
    for line in text.splitlines():
        if any(re.search(p, line) for p in pats) and line.strip() not in lines:
            lines.append(line.strip())
    return lines[:most]


class Runner:
    """One runner's scenarios.  known: {scenario: why} of the known
    disagreements (for the first check only when known_first, else for every
    check); label: what the real side is called in the report."""

    def __init__(self, known, label="real", known_first=False):
        self.known, self.label, self.known_first = known, label, known_first
        self.scenarios, self.groups = [], {}

    def scenario(self, group):
        """@runner.scenario("group") registers a scenario in a group;
        @runner.scenario alone registers one without a group."""
        def reg(fn, group=group):
            self.scenarios.append(fn)
            fn.group = group
            if group:
                self.groups.setdefault(group, []).append(fn.__name__)
            return fn
        if callable(group):
            return reg(group, None)
        return reg

    def list(self):
        if self.groups:
            for g, fns in self.groups.items():
                print(g + ": " + " ".join(fns))
        else:
            print(" ".join(f.__name__ for f in self.scenarios))

    def judge(self, fn, res):
        """Print each check; True when one disagrees and is not known.
        KT_BOOT_FLIP=SCENARIO makes its first check's real side wrong."""
        flip, bad = os.environ.get("KT_BOOT_FLIP", ""), False
        for i, chk in enumerate(res.checks):
            what, real, kt = chk[:3]
            if flip == fn.__name__ and i == 0:
                real = "FLIPPED(%s)" % (real,)
            same = real == kt
            known = self.known.get(fn.__name__) if i == 0 or not self.known_first else None
            tag = "agree" if same else ("KNOWN_DISAGREEMENT" if known else "DISAGREE")
            print("   %-10s %s: %s=%s ktrust=%s%s" % (tag, what, self.label, real, kt,
                                                    "  (" + chk[3] + ")" if len(chk) > 3 else ""))
            if not same and not known:
                bad = True
            if not same and known:
                print("!!!!! KNOWN_DISAGREEMENT %s: %s" % (fn.__name__, known))
        for n in getattr(res, "notes", ()):
            print("    note| " + n)
        return bad

    def main(self, argv, need=None, explain=None):
        """need(): raises B.Skip when a tool is missing (after bootlib's own
        checks); explain(res): what a failing scenario (or any, with
        KT_BOOT_VERBOSE) prints after its checks."""
        names = [a for a in argv[1:] if not a.startswith("-")]
        if "--list" in argv:
            self.list()
            return 0
        try:
            B.need_tools()
            if need:
                need()
        except B.Skip as e:
            print("skipped: %s" % e)
            return 77
        todo = [f for f in self.scenarios if not names or f.__name__ in names or f.group in names]
        shard = [a.split("=", 1)[1] for a in argv[1:] if a.startswith("--shard=")]
        if shard:
            i, n = (int(x) for x in shard[-1].split("/"))
            todo = todo[i - 1::n]
        if not todo:
            print("no scenario named %s" % " ".join(names))
            return 64
        os.makedirs(B.WORK, exist_ok=True)
        print("accelerator: %s; work: %s" % (B.accel(), B.WORK))
        failed, t0 = [], time.monotonic()
        for fn in todo:
            t = time.monotonic()
            print("== %s: %s" % (fn.__name__, (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""))
            try:
                res = fn()
            except Exception:
                traceback.print_exc()
                failed.append(fn.__name__)
                continue
            bad = self.judge(fn, res)
            if explain and (bad or os.environ.get("KT_BOOT_VERBOSE")):
                explain(res)
            if bad:
                failed.append(fn.__name__)
            print("   (%.1f s)" % (time.monotonic() - t))
        print("%d scenario(s), %d failed, %.0f s%s" % (len(todo), len(failed), time.monotonic() - t0,
                                                       ": " + " ".join(failed) if failed else ""))
        if self.known:
            print("!!!!! KNOWN_DISAGREEMENT list is not empty: %s" % ", ".join(self.known))
        return 1 if failed else 0
