"""Independent replay of the memory timeline's other sources (issue 27), the expected values of
tests/core/memory_sources_test.cpp. Debian's Python, standard library only:

    /usr/bin/python3 tests/data/expected/memory_sources.py > tests/data/expected/memory_sources.txt

rocprofv3 memory_allocation_trace.csv (csv module): rows in Start_Timestamp order; an Operation holding "FREE"
frees the block allocated at its Address (its own size is 0, its agent empty), one holding "ALLOCATE" allocates
Allocation_Size bytes on its Agent_Id; allocated = running sum of the live blocks per agent; the peak is the first
largest. Without agent_info the device is the agent's number (device type "agent").

nvidia-smi --query-gpu CSV (csv module): per index, memory.used [MiB] x 2^20 at each timestamp (read as UTC);
the peak is the first largest sample.

Per-step peaks (the sweep comparison's memory rows) of the Kineto memory traces (json module): per ProfilerStep#N,
the largest GPU "Total Allocated" held in it (the last event before the step and every event inside), over the
GPUs; a trace without steps is one step (its GPUs' peak).
"""
import calendar
import csv
import datetime
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def rocprofv3(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: int(r["Start_Timestamp"]))  # stable: file order on ties
    live, total, curve = {}, {}, {}
    unmatched = 0
    for r in rows:
        op, addr = r["Operation"], int(r["Address"], 16)
        if "FREE" in op:
            if addr not in live:
                unmatched += 1
                continue
            agent, size = live.pop(addr)
            total[agent] -= size
            curve.setdefault(agent, []).append((int(r["Start_Timestamp"]), -size, total[agent], addr))
        elif "ALLOCATE" in op:
            agent = int(r["Agent_Id"].replace("Agent ", ""))
            size = int(r["Allocation_Size"])
            live[addr] = (agent, size)
            total[agent] = total.get(agent, 0) + size
            curve.setdefault(agent, []).append((int(r["Start_Timestamp"]), size, total[agent], addr))
    for agent, ev in sorted(curve.items()):
        peak = max(range(len(ev)), key=lambda k: (ev[k][2], -k))
        print(f"rocprofv3 agent:{agent} events {len(ev)} peak {ev[peak][2]} at {ev[peak][0]} "
              f"final {ev[-1][2]} curve {[e[2] for e in ev]}")
        alive = {}
        for ts, b, tot, addr in ev[: peak + 1]:
            if b > 0:
                alive[addr] = b
            else:
                alive.pop(addr, None)
        print(f"  live at peak: {len(alive)} blocks, {sum(alive.values())} B")
    print(f"rocprofv3 unmatched frees {unmatched}")


def smi(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    head, body = [h.strip() for h in rows[0]], rows[1:]
    ti, ii, ui = head.index("timestamp"), head.index("index"), head.index("memory.used [MiB]")
    per = {}
    for r in body:
        dt = datetime.datetime.strptime(r[ti].strip(), "%Y/%m/%d %H:%M:%S.%f")
        ns = calendar.timegm(dt.timetuple()) * 10**9 + dt.microsecond * 1000
        mib = int(r[ui].split()[0])
        per.setdefault(int(r[ii]), []).append((ns, mib * 2**20))
    for dev, ev in sorted(per.items()):
        ev.sort(key=lambda e: e[0])
        peak = max(range(len(ev)), key=lambda k: (ev[k][1], -k))
        print(f"smi cuda:{dev} samples {len(ev)} peak {ev[peak][1]} at {ev[peak][0]} first {ev[0][1]} "
              f"last {ev[-1][1]} sum {sum(e[1] for e in ev)}")


if __name__ == "__main__":
    rocprofv3(os.path.join(ROOT, "rocprof/docs-2025/memory_allocation_trace.csv"))
    smi(os.path.join(ROOT, "telemetry/nvidia-smi/v100s_gpu_log.csv"))


def kineto_step_peaks(path):
    """Per ProfilerStep#N [ts, ts+dur): the largest GPU "Total Allocated" held in it — the last event before the
    step (carried in) and every event inside — over the GPU devices (Device Type != 0); (ts, file order) order."""
    import decimal
    import gzip
    import json

    def ns(x):
        return int(decimal.Decimal(str(x)) * 1000)

    with gzip.open(path, "rb") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    mem, steps = {}, []
    for i, e in enumerate(events):
        if e.get("ph") in ("i", "I") and e.get("name") == "[memory]" and e["args"].get("Device Type") != 0:
            a = e["args"]
            mem.setdefault((a["Device Type"], a["Device Id"]), []).append((ns(e["ts"]), i, a["Total Allocated"]))
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation":
            steps.append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), int(e["name"].split("#")[1])))
    steps.sort()
    if not steps:  # a run without steps counts as one step: the devices' peak
        print(f"kineto no steps: one step, peak {max(x[2] for ev in mem.values() for x in ev)}")
        return
    out = []
    for s, t, n in steps:
        best = 0
        for ev in mem.values():
            ev.sort()
            before = [x for x in ev if x[0] < s]
            inside = [x[2] for x in ev if s <= x[0] < t]
            best = max([best] + ([before[-1][2]] if before else []) + inside)
        out.append((n, best))
    print(f"kineto step peaks {out}")
    peaks = sorted(p for _, p in out)
    m = len(peaks)
    med = peaks[m // 2] if m % 2 else (peaks[m // 2 - 1] + peaks[m // 2]) / 2
    print(f"  median {med} max {peaks[-1]}")


if __name__ == "__main__":
    kineto_step_peaks(os.path.join(ROOT, "kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz"))
    kineto_step_peaks(os.path.join(ROOT, "kineto/hta/df_index_resolver/df_index_resolver.json.gz"))
