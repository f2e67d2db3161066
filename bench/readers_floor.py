#!/usr/bin/python3
"""Issue 20, "Readers at their floor" (CSV): Strobe's first open of a large CSV file beside the raw floor and Python.

For each generated file, three runs of each (medians reported), interleaved so that the machine's load falls on all
three alike, page cache warm (the file is read once before the first run):

  floor   build/release/bench/strobe-csv-floor FILE   one mmap'd byte loop: tracks quotes, sums every field's digits
  Strobe  build/release/app/strobe-cli summary FILE   end to end, empty XDG_CACHE_HOME (the cache write included)
  Python  /usr/bin/python3 bench/python_csv_read.py FILE  the csv module, every row and field

Seconds are the wall time of each process (start to exit), peak RSS its ru_maxrss; the CPU ratio (user + system
seconds) is printed beside the wall ratio because a shared machine's load stretches wall times unevenly.

  cmake --build build/release -j2 --target strobe-cli strobe-csv-floor strobe-gen-rocprofv3
  /usr/bin/python3 bench/readers_floor.py [--build build/release] [--dir /tmp/strobe-readers-floor]
                                          [--size-mb 310] [--reps 3] [--no-python]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (name, generator kind): every file is written by strobe-gen-rocprofv3 with the real outputs' headers and columns.
FILES = [
    ("rocprofv3 kernel_trace.csv", "kernel", "kernel_trace.csv"),
]


def run(cmd, env=None):
    """Wall seconds, peak RSS (bytes) and CPU seconds (user + system) of one process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    seconds = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {err.decode(errors='replace')[-2000:]}")
    return seconds, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    ap.add_argument("--dir", default="/tmp/strobe-readers-floor")
    ap.add_argument("--size-mb", type=float, default=310)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-python", action="store_true")
    ap.add_argument("--baseline", help="another strobe-cli (e.g. one built before a change), measured beside")
    a = ap.parse_args()
    floor = os.path.join(a.build, "bench", "strobe-csv-floor")
    gen = os.path.join(a.build, "bench", "strobe-gen-rocprofv3")
    cli = os.path.join(a.build, "app", "strobe-cli")
    os.makedirs(a.dir, exist_ok=True)
    rows = []
    for title, kind, fname in FILES:
        path = os.path.join(a.dir, fname)
        if not os.path.exists(path) or os.path.getsize(path) < a.size_mb * 1e6:
            subprocess.run([gen, path, str(a.size_mb)] + ([] if kind == "kernel" else ["--kind", kind]), check=True)
        size = os.path.getsize(path)
        with open(path, "rb") as f:  # page cache warm
            while f.read(1 << 24):
                pass
        t = {"floor": [], "strobe": [], "python": [], "baseline": []}
        rss = {"floor": [], "strobe": [], "python": [], "baseline": []}
        cpu = {"floor": [], "strobe": [], "python": [], "baseline": []}
        for _ in range(a.reps):
            s, r, c = run([floor, path])
            t["floor"].append(s)
            rss["floor"].append(r)
            cpu["floor"].append(c)
            for key, binary in (("strobe", cli), ("baseline", a.baseline)):
                if not binary:
                    continue
                cache = tempfile.mkdtemp(prefix="strobe-readers-floor-cache-")
                try:
                    env = dict(os.environ, XDG_CACHE_HOME=cache)
                    s, r, c = run([binary, "summary", path], env)
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
                t[key].append(s)
                rss[key].append(r)
                cpu[key].append(c)
            if not a.no_python:
                s, r, c = run(["/usr/bin/python3", os.path.join(HERE, "python_csv_read.py"), path])
                t["python"].append(s)
                rss["python"].append(r)
                cpu["python"].append(c)
        med = {k: statistics.median(v) for k, v in t.items() if v}
        mrss = {k: statistics.median(v) for k, v in rss.items() if v}
        mcpu = {k: statistics.median(v) for k, v in cpu.items() if v}
        rows.append((title, size, t, med, mrss, mcpu))
        for k, v in t.items():
            if v:
                print(f"# {title}: {k} runs " + ", ".join(f"{x:.3f}" for x in v) + " s", file=sys.stderr)

    mbs = lambda size, s: size / 1e6 / s
    print("| source | size | floor (byte loop) | Strobe `summary`, empty cache | Strobe / floor (wall) "
          "| Strobe / floor (CPU) | Strobe peak RSS / file | Python csv | Python / floor |")
    print("|---|---|---|---|---|---|---|---|---|")
    for title, size, t, med, mrss, mcpu in rows:
        py = (f"{med['python']:.2f} s, {mbs(size, med['python']):.0f} MB/s" if "python" in med else "–")
        pyr = f"{med['python'] / med['floor']:.1f}×" if "python" in med else "–"
        print(f"| {title} | {size / 1e6:.1f} MB | {med['floor']:.3f} s, {mbs(size, med['floor']):.0f} MB/s "
              f"| {med['strobe']:.3f} s, {mbs(size, med['strobe']):.0f} MB/s | **{med['strobe'] / med['floor']:.2f}×** "
              f"| {mcpu['strobe'] / mcpu['floor']:.2f}× | {mrss['strobe'] / size:.2f} | {py} | {pyr} |")
        if "baseline" in med:
            print(f"| {title}, `--baseline` strobe-cli | {size / 1e6:.1f} MB | (same floor) "
                  f"| {med['baseline']:.3f} s, {mbs(size, med['baseline']):.0f} MB/s "
                  f"| **{med['baseline'] / med['floor']:.2f}×** | {mcpu['baseline'] / mcpu['floor']:.2f}× "
                  f"| {mrss['baseline'] / size:.2f} | | |")


if __name__ == "__main__":
    main()
