#!/usr/bin/env python3
"""pairs.py PAIRS -- COMMAND-A [ARG...] -- COMMAND-B [ARG...]

Time two commands in alternated pairs (A then B, then B then A, ...), PAIRS
pairs after one untimed run of each, whole processes: the clock starts just
before the spawn and stops when the process has been reaped (stdin, stdout
and stderr on /dev/null, no shell, no timer process).  Alternating puts
both under the same load, so their ratio holds on a busy machine better
than two separate best-ofs.

Prints one line of nine fields:
  BEST_A MEDIAN_A BEST_B MEDIAN_B RATIO_BEST RATIO_MEDIAN CPU_A CPU_B RATIO_CPU
seconds with 4 decimals: wall-clock best and median of each; RATIO_BEST =
BEST_A / BEST_B, RATIO_MEDIAN = the median of the per-pair ratios A / B;
CPU_* the median user + system CPU seconds of one run (from wait4), which
waiting for a busy core does not inflate, and RATIO_CPU their ratio."""
import os
import statistics
import sys
import time


def run(cmd):
    """Wall seconds and CPU seconds (user + system) of one run of cmd."""
    fa = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    t0 = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=fa)
    _, _, ru = os.wait4(pid, 0)
    return time.perf_counter() - t0, ru.ru_utime + ru.ru_stime


def main(argv):
    if len(argv) < 5 or argv[2] != "--" or "--" not in argv[3:]:
        sys.exit(__doc__)
    pairs = int(argv[1])
    rest = argv[3:]
    cut = rest.index("--")
    a, b = rest[:cut], rest[cut + 1:]
    if not a or not b or pairs < 1:
        sys.exit(__doc__)
    run(a)
    run(b)
    wa, wb, ca, cb, ratios = [], [], [], [], []
    for i in range(pairs):
        if i % 2:
            y = run(b)
            x = run(a)
        else:
            x = run(a)
            y = run(b)
        wa.append(x[0])
        wb.append(y[0])
        ca.append(x[1])
        cb.append(y[1])
        ratios.append(x[0] / y[0])
    cpu_a, cpu_b = statistics.median(ca), statistics.median(cb)
    print(f"{min(wa):.4f} {statistics.median(wa):.4f} {min(wb):.4f} "
          f"{statistics.median(wb):.4f} {min(wa) / min(wb):.2f} "
          f"{statistics.median(ratios):.2f} {cpu_a:.4f} {cpu_b:.4f} "
          f"{cpu_a / cpu_b if cpu_b else 0:.2f}")


if __name__ == "__main__":
    main(sys.argv)
