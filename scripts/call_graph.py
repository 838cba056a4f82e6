#!/usr/bin/env python3
"""call_graph.py [--layers] [--sources SRCDIR] OBJDIR... - the call graph between source files, from the
symbols their object files define and use (nm), and its circles.

Prints one line per circle (a strongly connected component of more than one
file): the files that call each other in a loop, e.g.
"circle: src/eventlog/predict.c src/eventlog/predict4.c".  With --layers, the
same between folders (src/chain, cli, ...): a circle there is a tier that
calls up.  --sources: only objects whose source file still exists under
SRCDIR.  Exit 0 always; tests/cli/source_layers.sh judges the lines.
"""
import os
import subprocess
import sys


def objects(dirs):
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                if f.endswith('.o'):
                    yield os.path.join(root, f)


def source_of(obj):
    # build/CMakeFiles/ktrust_obj.dir/src/chain/chain.c.o -> src/chain/chain.c
    p = obj.split('.dir/', 1)[-1]
    return p[:-2] if p.endswith('.o') else p


def symbols(obj):
    out = subprocess.run(['nm', obj], capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == 'U':
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in 'TDBR':
            defined.add(parts[2])
    return defined, used


def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def main(argv):
    layers = '--layers' in argv
    srcdir = None
    if '--sources' in argv:
        i = argv.index('--sources')
        srcdir = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    dirs = [a for a in argv if not a.startswith('--')]
    owner, uses = {}, {}
    for o in objects(dirs):
        src = source_of(o)
        if srcdir and not os.path.exists(os.path.join(srcdir, src)):
            continue  # a removed file's object may linger in the build tree
        if layers:  # src/LAYER, or cli (its folders are command families, not tiers)
            src = 'cli' if src.startswith('cli/') else os.path.dirname(src)
        d, u = symbols(o)
        for s in d:
            owner.setdefault(s, src)
        uses.setdefault(src, set()).update(u)
    graph = {f: {owner[s] for s in u if s in owner and owner[s] != f} for f, u in uses.items()}
    for c in sccs(graph):
        print('circle: ' + ' '.join(c))


if __name__ == '__main__':
    main(sys.argv[1:])
