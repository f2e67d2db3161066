#!/usr/bin/python3
"""Scales an RPD trace (rocmProfileData's rpd_tracer output, rocpd schema v2) to a given size, for the readers' floor
bench (bench/readers_floor_sqlite.sh).

Usage: /usr/bin/python3 bench/gen_rpd_sqlite.py SRC.rpd OUT.rpd SIZE_MB

Copies SRC (e.g. tests/data/sqlite/rpd_matmul.rpd, a real rpd_tracer file: its schema, views, strings, and the mix of
HIP API calls, kernels, copies and monitor samples) to OUT, then doubles its activity until OUT is at least SIZE_MB
(10^6 bytes; the last doubling may take it up to twice that): each round appends a copy of every row of rocpd_api,
rocpd_op, rocpd_api_ops, rocpd_kernelapi, rocpd_copyapi and rocpd_monitor with ids (and the api/op ids that link
them) moved past the existing ones and times moved past the existing span, so that the copy is a later, distinct
stretch of the same program (rpd_tracer's own bookkeeping calls, ids from 2^31, stay once). Strings are shared, as
rpd_tracer interns them.
"""
import os
import shutil
import sqlite3
import sys
import time

# table -> {column: what it holds}; "api", "op": ids of those tables; "own": the table's own id; "time": ns.
GROW = {
    "rocpd_api": {"id": "api", "start": "time", "end": "time"},
    "rocpd_op": {"id": "op", "start": "time", "end": "time"},
    "rocpd_api_ops": {"id": "own", "api_id": "api", "op_id": "op"},
    "rocpd_kernelapi": {"api_ptr_id": "api"},
    "rocpd_copyapi": {"api_ptr_id": "api"},
    "rocpd_monitor": {"id": "own", "start": "time", "end": "time"},
}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, out, target = sys.argv[1], sys.argv[2], float(sys.argv[3]) * 1e6
    t0 = time.time()
    shutil.copyfile(src, out)
    db = sqlite3.connect(out)
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    grow = {t: c for t, c in GROW.items() if t in have}
    cols = {t: [r[1] for r in db.execute(f'PRAGMA table_info("{t}")')] for t in grow}
    q = lambda sql: db.execute(sql).fetchone()[0] or 0  # noqa: E731
    rounds = 0
    while os.path.getsize(out) < target:
        # rpd_tracer numbers its own bookkeeping calls from 2^31 (hcc_activity_callback, OpTable::writeRows, ...;
        # once per file, at its end): only the calls below are copied, so that ids stay as dense as a real trace's.
        api_off = q('SELECT max(id) FROM rocpd_api WHERE id < 2147483648')
        op_off = q('SELECT max(id) FROM rocpd_op')
        t_min = min(q(f'SELECT min(start) FROM "{t}"') for t in ("rocpd_api", "rocpd_op"))
        t_max = max(q(f'SELECT max("end") FROM "{t}"') for t in ("rocpd_api", "rocpd_op"))
        t_off = t_max - t_min + 1000
        for t, roles in grow.items():
            own_off = q(f'SELECT max(id) FROM "{t}"') if "own" in roles.values() else 0
            key = next(c for c, r in roles.items() if r in ("api", "op", "own"))
            limit = {"api": api_off, "op": op_off, "own": own_off}[roles[key]]
            expr = []
            for c in cols[t]:
                role = roles.get(c)
                off = {"api": api_off, "op": op_off, "own": own_off, "time": t_off}.get(role)
                expr.append(f'"{c}" + {off}' if off is not None else f'"{c}"')
            col_list = ", ".join(f'"{c}"' for c in cols[t])
            db.execute(f'INSERT INTO "{t}" ({col_list}) SELECT {", ".join(expr)} FROM "{t}" WHERE "{key}" <= {limit}')
        db.commit()
        rounds += 1
    counts = {t: q(f'SELECT count(*) FROM "{t}"') for t in grow}
    db.close()
    print(f"{out}: {os.path.getsize(out):,} bytes after {rounds} doublings in {time.time() - t0:.1f} s; rows: "
          + ", ".join(f"{t} {n:,}" for t, n in counts.items()))


main()
