#!/usr/bin/env python3
"""best_of.py RUNS [--prep SHELL-COMMAND] -- COMMAND [ARG...]

Print the shortest wall-clock time, in seconds with 4 decimals, of RUNS runs
of COMMAND (stdin, stdout and stderr on /dev/null; no shell).  The clock
starts just before the process is spawned and stops when it has been reaped,
so only the command's own start-up is in the figure, not a timer's (a
`date` before and after would add a process start to every run).  --prep
runs before each timed run, untimed."""
import subprocess
import sys
import time


def main(argv):
    runs = int(argv[1])
    rest = argv[2:]
    prep = None
    if rest and rest[0] == "--prep":
        prep, rest = rest[1], rest[2:]
    if not rest or rest[0] != "--" or len(rest) < 2:
        sys.exit(__doc__)
    cmd = rest[1:]
    best = None
    for _ in range(runs):
        if prep:
            subprocess.run(prep, shell=True, check=True)
        t0 = time.perf_counter()
        subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        t = time.perf_counter() - t0
        best = t if best is None or t < best else best
    print(f"{best:.4f}")


if __name__ == "__main__":
    main(sys.argv)
