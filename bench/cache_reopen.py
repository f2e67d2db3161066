#!/usr/bin/python3
"""The load cache's reopen speed-up, measured through core::loadRun (the path strobe-cli and the workbench take):
for each source, REPEATS times, a first open with an empty cache directory (parse, merge, write the cache) and a
reopen (map the cache), each timed by strobe-load --run itself (the loadRun call, process start excluded). Prints
every run, the medians and their ratio, and fails when a reopen did not come from the cache.

Usage: /usr/bin/python3 bench/cache_reopen.py STROBE_LOAD REPEATS SOURCE...
       (STROBE_LOAD: build/release/bench/strobe-load; the cache goes to a temp directory, removed at the end)
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TIME = re.compile(r"^\s*loadRun\s+([0-9.]+) s", re.M)


def open_once(tool, source, cache):
    out = subprocess.run([tool, source, "--run", "--cache-dir", cache], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{source}: strobe-load failed ({out.returncode}): {out.stderr.strip()}")
    m = TIME.search(out.stdout)
    if not m:
        sys.exit(f"{source}: no loadRun time in:\n{out.stdout}")
    cached = out.stdout.count("from cache")
    parsed = out.stdout.count("  parsed  ")
    return float(m.group(1)), cached, parsed


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tool, repeats, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    failed = False
    for source in sources:
        firsts, reopens = [], []
        for _ in range(repeats):
            cache = tempfile.mkdtemp(prefix="strobe-cache-bench-")
            try:
                first, c1, p1 = open_once(tool, source, cache)
                again, c2, p2 = open_once(tool, source, cache)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            if c1 != 0 or p2 != 0 or c2 == 0:
                print(f"  {source}: first open {c1} rank(s) from cache, reopen {p2} parsed: not a clean miss/hit")
                failed = True
            firsts.append(first)
            reopens.append(again)
        f, r = statistics.median(firsts), statistics.median(reopens)
        size = os.path.getsize(source) / 1e6
        print(f"{source} ({size:,.1f} MB)")
        print(f"  first open (s): {', '.join(f'{x:.3f}' for x in firsts)}  median {f:.3f}")
        print(f"  reopen     (s): {', '.join(f'{x:.3f}' for x in reopens)}  median {r:.3f}")
        print(f"  reopen is {f / max(r, 1e-9):.1f}x faster (medians)")
    sys.exit(1 if failed else 0)


main()
