"""Independent replay of Kineto's [memory] events (profile_memory=True), the expected values of
tests/core/memory_timeline_test.cpp. Run with Debian's Python (no third-party package needed):

    /usr/bin/python3 tests/core/memory_timeline_replay.py tests/data/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz
    /usr/bin/python3 tests/core/memory_timeline_replay.py tests/data/kineto/hta/df_index_resolver/df_index_resolver.json.gz

Per (device type, device id): allocated is each event's "Total Allocated" (it counts memory allocated before the
trace began), reserved its "Total Reserved"; the peak is the first event with the largest value. A running sum of
"Bytes" (what a replay that ignores pre-trace memory gives) is printed beside it. Live blocks at the peak: replay
of allocations (Bytes > 0) and frees (Bytes < 0) by "Addr" in (ts, file order) up to and including the peak event;
a free of an address not allocated in the trace frees a block from before it. Each live block is attributed to the
innermost cpu_op on the same pid/tid whose [ts, ts+dur) holds the allocation (the latest start, then the shortest)
and to the outermost one (the top-level operator).
An event whose six fields are not all integers is skipped (and said). Steps: allocations (count, bytes) whose ts lies in each ProfilerStep#N's [ts, ts+dur).
"""
import bisect
import collections
import decimal
import gzip
import json
import sys


def ns(x):
    return int(decimal.Decimal(str(x)) * 1000)


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    mem, ops, steps = [], collections.defaultdict(list), []
    for i, e in enumerate(events):
        if e.get("ph") in ("i", "I") and e.get("name") == "[memory]":
            a = e["args"]
            keys = ("Device Type", "Device Id", "Addr", "Bytes", "Total Allocated", "Total Reserved")
            if not all(type(a.get(k)) is int for k in keys):
                print(f"unreadable [memory] event at ts {e['ts']}")
                continue
            mem.append((ns(e["ts"]), i, (a["Device Type"], a["Device Id"]), a["Addr"], a["Bytes"],
                        a["Total Allocated"], a["Total Reserved"], (e["pid"], e["tid"])))
        elif e.get("ph") == "X" and e.get("cat") in ("cpu_op", "Operator"):
            ops[(e["pid"], e["tid"])].append((ns(e["ts"]), -ns(e.get("dur", 0)), e["name"]))
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#"):
            steps.append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), int(e["name"].split("#")[1])))
    for v in ops.values():
        v.sort()
    starts = {k: [o[0] for o in v] for k, v in ops.items()}

    def op_at(track, t):  # (innermost, outermost) cpu_op holding t
        v = ops.get(track, [])
        held = [o for o in v[: bisect.bisect_right(starts.get(track, []), t)] if o[0] <= t < o[0] - o[1]]
        return (held[-1][2], held[0][2]) if held else ("", "")

    mem.sort(key=lambda m: (m[0], m[1]))
    devices = sorted({m[2] for m in mem})
    for dev in devices:
        ev = [m for m in mem if m[2] == dev]
        peak = max(range(len(ev)), key=lambda k: (ev[k][5], -k))
        run, run_peak = 0, 0
        for m in ev:
            run += m[4]
            run_peak = max(run_peak, run)
        live, pre_frees, pre_bytes = {}, 0, 0
        for m in ev[: peak + 1]:
            if m[4] > 0:
                live[m[3]] = m
            elif m[4] < 0:
                if m[3] in live:
                    del live[m[3]]
                else:
                    pre_frees += 1
                    pre_bytes += -m[4]
        print(f"device {dev}: events {len(ev)} allocs {sum(m[4] > 0 for m in ev)} frees {sum(m[4] < 0 for m in ev)}")
        print(f"  peak_allocated {ev[peak][5]} at ts_ns {ev[peak][0]} peak_reserved {max(m[6] for m in ev)}")
        print(f"  running_sum_peak {run_peak} last_allocated {ev[-1][5]}")
        # The whole allocated curve in (ts, file order), as one order-sensitive checksum.
        curve = sum((k + 1) * m[5] for k, m in enumerate(ev)) % (2**61 - 1)
        print(f"  curve_checksum {curve}")
        print(f"  live_at_peak blocks {len(live)} bytes {sum(m[4] for m in live.values())} "
              f"pre_trace_frees_before_peak {pre_frees} bytes {pre_bytes}")
        by_op = collections.Counter()
        for m in live.values():
            by_op[op_at(m[7], m[0])] += m[4]
        for (inner, outer), b in sorted(by_op.items(), key=lambda x: (-x[1], x[0]))[:5]:
            print(f"    live {b} B by {inner!r} in {outer!r}")
        for s0, s1, n in sorted(steps):
            a = [m for m in ev if s0 <= m[0] < s1 and m[4] > 0]
            print(f"  step {n}: allocs {len(a)} bytes {sum(m[4] for m in a)}")


if __name__ == "__main__":
    main(sys.argv[1])
