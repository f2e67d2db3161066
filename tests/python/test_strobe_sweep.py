#!/usr/bin/python3
"""The strobe module's sweeps, comparisons and plots (strobe.sweep, Sweep.compare, strobe.compare, Run.plot).

usage: test_strobe_sweep.py STROBE_CLI   (ctest: python.strobe_sweep; PYTHONPATH holds the module)

The sweep is the one tests/core/sweep_gen.h writes (bs=1 and bs=2, 3 repeats, 4 ProfilerSteps of 10 us, gemm 10 %
slower on bs=2, relu within noise). Expected values worked by hand from that table:
  gemm per-step times, bs=1: 1000 ns x {0.99, 1.00, 1.01} + jitter {0, +4, -4, 0} -> sorted
    986 990 990 994 996 1000 | 1000 1004 1006 1010 1010 1014 -> median 1000 ns;
  bs=2: 1100 x the same factors + jitter -> median 1100 ns; change +100 ns = +0.0001 ms, +10 %;
  every step lasts 10.0 us (10000 ns), so the step-time-box table holds 6 runs x 4 steps of 10000 ns.
The Python comparison must equal strobe-cli sweep compare --json on the same directory, row for row.
"""
import io
import json
import math
import os
import subprocess
import sys
import tempfile

import strobe

cli = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def write_sweep(root):
    gemm_noise = [0.99, 1.00, 1.01]
    relu_noise = [[0.95, 1.00, 1.05], [1.05, 0.95, 1.00]]
    jitter = [0, 4, -4, 0]
    for c in range(2):
        for r in range(3):
            events, t = [], 1000.0
            for s in range(4):
                gemm = (1000.0 if c == 0 else 1100.0) * gemm_noise[r] + jitter[s]
                relu = (500.0 if c == 0 else 502.0) * relu_noise[c][r]
                events += [
                    {"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 100, "tid": 100,
                     "ts": t, "dur": 10.0},
                    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t + 1,
                     "dur": round(gemm / 1000, 4), "args": {"device": 0, "stream": 7, "correlation": 2 * s + 1}},
                    {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": t + 3,
                     "dur": round(relu / 1000, 4), "args": {"device": 0, "stream": 7, "correlation": 2 * s + 2}},
                ]
                t += 10.0
            d = os.path.join(root, f"bs={c + 1}", f"rep{r}")
            os.makedirs(d)
            with open(os.path.join(d, "trace.json"), "w") as f:
                json.dump({"traceEvents": events}, f)


with tempfile.TemporaryDirectory() as tmp:
    root = os.path.join(tmp, "sweep")
    write_sweep(root)

    sw = strobe.sweep(root)
    check(len(sw) == 6 and sw.axes == ["bs"], f"sweep: {len(sw)} runs, axes {sw.axes}")
    runs = sw.runs
    check(sorted(runs["bs"].tolist()) == ["1"] * 3 + ["2"] * 3, f"runs' bs column {runs['bs'].tolist()}")
    check(sorted(runs["repeat"].tolist()) == [0, 0, 1, 1, 2, 2], f"repeats {runs['repeat'].tolist()}")

    df = sw.compare(baseline="bs=1")
    check(df.attrs["baseline"] == "bs=1", f"baseline {df.attrs['baseline']}")
    gemm = df[(df["kind"] == "group") & (df["group"] == "gemm")].set_index("configuration")
    relu = df[(df["kind"] == "group") & (df["group"] == "relu")].set_index("configuration")
    check(math.isclose(gemm.loc["bs=1", "median_ms"], 0.001, rel_tol=1e-9), f"gemm bs=1 {gemm.loc['bs=1', 'median_ms']}")
    check(math.isclose(gemm.loc["bs=2", "median_ms"], 0.0011, rel_tol=1e-9), f"gemm bs=2 {gemm.loc['bs=2', 'median_ms']}")
    check(math.isclose(gemm.loc["bs=2", "delta_ms"], 0.0001, rel_tol=1e-6), f"gemm delta {gemm.loc['bs=2', 'delta_ms']}")
    check(math.isclose(gemm.loc["bs=2", "delta_pct"], 10.0, rel_tol=1e-6), f"gemm delta% {gemm.loc['bs=2', 'delta_pct']}")
    check(gemm.loc["bs=2", "significant"] is True or gemm.loc["bs=2", "significant"] == True,  # noqa: E712
          "the 10 % slower gemm is significant")
    check(relu.loc["bs=2", "significant"] == False, "relu's change is within the noise")  # noqa: E712
    check(gemm.loc["bs=1", "reason"] == "baseline", f"baseline row's reason {gemm.loc['bs=1', 'reason']}")

    # Row for row what strobe-cli sweep compare --json prints (one engine, two front ends).
    out = subprocess.run([cli, "sweep", "compare", "--json", "--baseline", "bs=1", root], check=True,
                         capture_output=True, text=True).stdout
    want = json.loads(out)["rows"]
    got = {(r["kind"], r["group"], r["configuration"]): r for r in df.to_dict("records")}
    check(len(got) == len(want), f"{len(got)} rows in Python, {len(want)} from the CLI")
    for w in want:
        g = got.get((w["kind"], w["group"], w["configuration"]))
        if g is None:
            check(False, f"row {w['kind']}/{w['group']}/{w['configuration']} missing")
            continue
        for key in ("median_ms", "delta_ms", "ci_low_ms", "ci_high_ms", "delta_pct"):
            a, b = g[key], w[key]
            same = (b is None and (a is None or (isinstance(a, float) and math.isnan(a)))) or \
                (b is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12))
            check(same, f"{w['group']}/{w['configuration']} {key}: python {a}, cli {b}")
        check(g["n_runs"] == w["n_runs"] and g["n_steps"] == w["n_steps"], f"{w['group']} n_runs/n_steps")

    # Two loaded runs compared directly: each its own configuration, one repeat each -> no interval, said why.
    loaded = sw.load()
    check(len(loaded) == 6 and loaded[3].parameters == {"bs": "2"}, f"loaded runs' parameters {loaded[3].parameters}")
    pair = strobe.compare([loaded[0], loaded[3]])
    step = pair[pair["kind"] == "step"]
    check(step["reason"].iloc[1].startswith("n/a"), f"one run each: no interval, said why ({step['reason'].iloc[1]})")

    # Plots: the workbench's plots rendered off screen.
    ids = [i for i, _ in strobe.plots()]
    check("step-time-box" in ids and "kernel-durations" in ids, f"plots {ids[:5]}...")
    fig = sw.plot("step-time-box", size=(900, 500))
    png = fig.png
    check(png[:8] == b"\x89PNG\r\n\x1a\n", "Figure.png is a PNG")
    check(int.from_bytes(png[16:20], "big") == 900 and int.from_bytes(png[20:24], "big") == 500,
          "the PNG has the size asked for")
    table = fig.table
    check(len(table) == 24 and set(table["step_ns"]) == {10000}, f"step-time-box table: {len(table)} rows, "
          f"steps {set(table['step_ns'])}")
    svg = fig.svg
    check(svg.lstrip().startswith(b"<?xml") and b"<svg" in svg, "Figure.svg is an SVG")
    path = os.path.join(tmp, "k.png")
    loaded[0].plot("kernel-durations", size=(640, 400)).save(path)
    try:
        from PIL import Image  # Debian's python3-pil, when present: the picture is not blank
        img = Image.open(path).convert("RGB")
        check(img.size == (640, 400), f"saved PNG size {img.size}")
        check(len(set(img.getdata())) > 10, "the saved picture has content")
    except ImportError:
        check(os.path.getsize(path) > 1000, "saved PNG is not empty")
    for bad, call in (("unknown plot", lambda: loaded[0].plot("no-such-plot")),
                      ("unknown parameter", lambda: loaded[0].plot("kernel-durations", no_such_key=1)),
                      ("bad baseline", lambda: sw.compare(baseline="bs=9"))):
        try:
            call()
            check(False, f"{bad}: no error")
        except ValueError as e:
            check(len(str(e)) > 0, f"{bad}: empty message")

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("ok")
