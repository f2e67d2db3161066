#!/usr/bin/python3
"""Scales a rocpd database (rocprofv3's SQLite output, schema 3) to a given size, for the load-cache bench.

Usage: /usr/bin/python3 bench/gen_rocpd_sqlite.py SRC.db OUT.db SIZE_MB

Copies SRC (e.g. tests/data/sqlite/rocpd_doc_sample.db) to OUT, then doubles its activity until OUT is at least
SIZE_MB (10^6 bytes; the last doubling may take it up to twice that): each round appends a copy of every row of
rocpd_event, rocpd_region, rocpd_kernel_dispatch, rocpd_memory_copy and rocpd_pmc_event with ids, event ids,
correlation ids (0 stays 0: calls that launched nothing) and dispatch ids moved past the existing ones and times moved
past the existing span, so that the copy is a later, distinct stretch of the same program. Strings, processes,
threads, agents and kernel symbols are shared. The UUID-suffixed tables are found by name, as the reader finds them.
"""
import os
import shutil
import sqlite3
import sys
import time

GROW = ["rocpd_event", "rocpd_region", "rocpd_kernel_dispatch", "rocpd_memory_copy", "rocpd_pmc_event"]
TIMED = ["rocpd_region", "rocpd_kernel_dispatch", "rocpd_memory_copy"]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, out, target = sys.argv[1], sys.argv[2], float(sys.argv[3]) * 1e6
    t0 = time.time()
    shutil.copyfile(src, out)
    db = sqlite3.connect(out)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    table = {}
    for base in GROW:
        found = [n for n in names if n == base or n.startswith(base + "_")]
        # rocpd_event_... must not match rocpd_event's longer relatives: the suffix is a UUID (8-4-4-4-12 hex).
        found = [n for n in found if n == base or len(n) - len(base) == 37]
        if len(found) != 1:
            sys.exit(f"{src}: expected one table for {base}, found {found}")
        table[base] = found[0]
    cols = {b: [r[1] for r in db.execute(f'PRAGMA table_info("{table[b]}")')] for b in GROW}
    rounds = 0
    while os.path.getsize(out) < target:
        q = lambda sql: db.execute(sql).fetchone()[0] or 0  # noqa: E731
        id_off = {b: q(f'SELECT max(id) FROM "{table[b]}"') for b in GROW}
        corr_off = q(f'SELECT max(correlation_id) FROM "{table["rocpd_event"]}"')
        disp_off = q(f'SELECT max(dispatch_id) FROM "{table["rocpd_kernel_dispatch"]}"')
        t_min = min(q(f'SELECT min(start) FROM "{table[b]}"') for b in TIMED)
        t_max = max(q(f'SELECT max("end") FROM "{table[b]}"') for b in TIMED)
        t_off = t_max - t_min + 1000
        for b in GROW:
            expr = []
            for c in cols[b]:
                if c == "id":
                    expr.append(f"id + {id_off[b]}")
                elif c == "event_id":
                    expr.append(f'CASE WHEN event_id IS NULL THEN NULL ELSE event_id + {id_off["rocpd_event"]} END')
                elif c == "correlation_id":
                    expr.append(f"CASE WHEN correlation_id IS NULL OR correlation_id = 0 THEN correlation_id "
                                f"ELSE correlation_id + {corr_off} END")
                elif c == "dispatch_id":
                    expr.append(f"dispatch_id + {disp_off}")
                elif c in ("start", "end") and b in TIMED:
                    expr.append(f'"{c}" + {t_off}')
                else:
                    expr.append(f'"{c}"')
            col_list = ", ".join(f'"{c}"' for c in cols[b])
            db.execute(f'INSERT INTO "{table[b]}" ({col_list}) SELECT {", ".join(expr)} FROM "{table[b]}" '
                       f'WHERE id <= {id_off[b]}')
        db.commit()
        rounds += 1
    counts = {b: db.execute(f'SELECT count(*) FROM "{table[b]}"').fetchone()[0] for b in GROW}
    db.close()
    print(f"{out}: {os.path.getsize(out):,} bytes after {rounds} doublings in {time.time() - t0:.1f} s; rows: "
          + ", ".join(f"{b} {n:,}" for b, n in counts.items()))


main()
