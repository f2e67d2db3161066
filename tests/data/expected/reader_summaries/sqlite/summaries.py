#!/usr/bin/env python3
"""Every SQLite reader's results on the real SQLite files of tests/data, pinned: `strobe-cli summary --json --no-cache
--top 1000` of each file (every kernel name with its count, total, min and max; events by category; spans; warnings).

The expected files were written by the strobe-cli built from the commit before the readers' speed work of issue 20
(readers at their floor), so that the check proves the faster readers give the same results:

    python3 tests/data/expected/reader_summaries/sqlite/summaries.py write build/release/app/strobe-cli
    python3 tests/data/expected/reader_summaries/sqlite/summaries.py check build/release/app/strobe-cli

(ctest -R readers.sqlite_summaries runs `check`.) Re-written for issue 25, where two results changed on purpose:
nsys_cloverleaf_a100 gains the export's 1,831 OS runtime calls (OSRT_API: events 4,639 -> 6,470, span from the first
call, 56,574,271 ns, to the last end, 886,929,607 ns, as sqlite3 in tests/data/expected/timeline_lanes/ finds), and
a source's span is its events' (rpd_matmul: 3.380 s, the rank's span; its 15 monitor samples span their own 6.694 s). The checkout's absolute path is replaced by "<root>" and the
version field is ignored (it changes with every release, not with the readers).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", ".."))
FILES = {
    "nsys_cloverleaf_a100": "tests/data/sqlite/nsys_cloverleaf_a100.sqlite",
    "nsys_fuser_h200": "tests/data/sqlite/nsys_fuser_h200.sqlite",
    "rocpd_doc_sample": "tests/data/sqlite/rocpd_doc_sample.db",
    "rpd_matmul": "tests/data/sqlite/rpd_matmul.rpd",
    "rocprof_compute_mi350": "tests/data/sqlite/rocprof_compute_mi350.db",
    "rocprof_v1_results_db": "tests/data/sqlite/rocprof_v1/results.db",
}
IGNORED = {"strobe_version"}


def summary(cli, rel):
    out = subprocess.run([cli, "summary", "--json", "--no-cache", "--top", "1000", os.path.join(ROOT, rel)],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out.replace(ROOT, "<root>"))
    for k in IGNORED:
        doc.pop(k, None)
    return doc


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    mode, cli = sys.argv[1], sys.argv[2]
    failed = []
    for name, rel in FILES.items():
        got = summary(cli, rel)
        path = os.path.join(HERE, name + ".json")
        if mode == "write":
            with open(path, "w") as f:
                json.dump(got, f, indent=1, sort_keys=True)
                f.write("\n")
            continue
        with open(path) as f:
            want = json.load(f)
        if got != want:
            failed.append(name)
            for k in sorted(set(got) | set(want)):
                if got.get(k) != want.get(k):
                    print(f"{rel}: field {k} differs:\n  expected {json.dumps(want.get(k))[:2000]}\n"
                          f"  got      {json.dumps(got.get(k))[:2000]}")
    if failed:
        sys.exit(f"summaries differ from the expected ones: {', '.join(failed)}")
    print(f"{len(FILES)} summaries {'written' if mode == 'write' else 'identical'}")


main()
