#!/usr/bin/env python3
"""peak_rss.py WANT_EXIT MAX_MIB CMD...: run CMD (its output discarded), and
print 'exit RC peak N MiB'; exit 1 when RC is not WANT_EXIT or the child's
peak resident set (getrusage(RUSAGE_CHILDREN).ru_maxrss, the kernel's own
high-water mark: not a timing) is over MAX_MIB."""
import resource
import subprocess
import sys

want, limit, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
print(f"exit {p.returncode} peak {mib:.1f} MiB: {' '.join(cmd[1:])}")
if p.returncode != want or mib > limit:
    sys.stderr.write(p.stderr.decode(errors="replace")[:400])
    sys.exit(1)
