#!/usr/bin/python3
"""Expected step-time comparison of two Kineto runs (issue 21), independent of Strobe: json + gzip only.

Each run's step time is the duration of its ProfilerStep#N events (after --skip-steps); the row's median is
numpy's default (linear) median; the change is the configuration's median minus the baseline's. The bootstrap
mirrors core/analysis/sweep_compare.cpp draw for draw: a std::mt19937_64 seeded with the seed (20261125),
implemented here, `rng() % n` picks, for each of `resamples` rounds: the configuration's one run (its steps pooled;
a pick among one, as the C++ draws runs first), then its steps with replacement (as many as it has), then the same
for the baseline; the change of their medians. The interval is the linear
percentile of the sorted changes at level/2 and 1 - level/2 (level: the two-sided Holm level the comparison used,
alpha / (m - rank)); p = min(1, 2 min(#<=0, #>=0) / resamples).

  /usr/bin/python3 tests/data/expected/sweep_step_ci.py BASELINE CONFIG [--level L] [--skip-steps N]

BASELINE and CONFIG: a run directory (its *.json / *.json.gz) or one trace file, one run each; with fewer than 5
kept steps in either there is no interval (null). Used by tests/core/sweep_compare_test.cpp:
  .../sweep_step_ci.py tests/data/kineto/kineto-configs/resnet50_num_workers_0 \
                       tests/data/kineto/kineto-configs/resnet50_num_workers_4
  .../sweep_step_ci.py resources/sample/param-dlrm-8rank/worker0_step_12.1694128201545.pt.trace.json \
                       resources/sample/param-dlrm-8rank/worker1_step_12.1694128201556.pt.trace.json
"""
import glob
import gzip
import json
import os
import sys


class MT19937_64:
    def __init__(self, seed):
        self.mt = [0] * 312
        self.mt[0] = seed & 0xFFFFFFFFFFFFFFFF
        for i in range(1, 312):
            self.mt[i] = (6364136223846793005 * (self.mt[i - 1] ^ (self.mt[i - 1] >> 62)) + i) & 0xFFFFFFFFFFFFFFFF
        self.i = 312

    def __call__(self):
        if self.i >= 312:
            for k in range(312):
                y = (self.mt[k] & 0xFFFFFFFF80000000) | (self.mt[(k + 1) % 312] & 0x7FFFFFFF)
                v = self.mt[(k + 156) % 312] ^ (y >> 1)
                if y & 1:
                    v ^= 0xB5026F5AA96619E9
                self.mt[k] = v
            self.i = 0
        x = self.mt[self.i]
        self.i += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        return x & 0xFFFFFFFFFFFFFFFF


def quantile(sorted_values, q):  # numpy's default (linear)
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def step_times_ns(run_dir, skip):
    steps = {}
    paths = [run_dir] if os.path.isfile(run_dir) else sorted(glob.glob(os.path.join(run_dir, "*.json*")))
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for e in json.load(f)["traceEvents"]:
                name = e.get("name", "")
                if e.get("ph") == "X" and name.startswith("ProfilerStep#"):
                    n = int(name[len("ProfilerStep#"):])
                    lo, hi = steps.get(n, (float("inf"), float("-inf")))
                    steps[n] = (min(lo, e["ts"]), max(hi, e["ts"] + e["dur"]))
    kept = sorted(steps)[skip:]
    return [round((steps[n][1] - steps[n][0]) * 1000) for n in kept]


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    level = float(argv[argv.index("--level") + 1]) if "--level" in argv else 0.05
    skip = int(argv[argv.index("--skip-steps") + 1]) if "--skip-steps" in argv else 0
    if "--level" in argv:
        args.remove(argv[argv.index("--level") + 1])
    if "--skip-steps" in argv:
        args.remove(argv[argv.index("--skip-steps") + 1])
    base, conf = step_times_ns(args[0], skip), step_times_ns(args[1], skip)
    mb, mc = quantile(sorted(base), 0.5), quantile(sorted(conf), 0.5)
    rng = MT19937_64(20261125)
    deltas, le, ge = [], 0, 0
    def draw(runs):  # runs (here one: the steps pooled) with replacement, then the steps of each drawn run
        out = []
        for _ in range(len(runs)):
            run = runs[rng() % len(runs)]
            out.extend(run[rng() % len(run)] for _ in range(len(run)))
        return sorted(out)

    for _ in range(4000):
        a = draw([conf])
        b = draw([base])
        d = quantile(a, 0.5) - quantile(b, 0.5)
        deltas.append(d)
        le += d <= 0
        ge += d >= 0
    deltas.sort()
    lo, hi = quantile(deltas, level / 2), quantile(deltas, 1 - level / 2)
    if len(base) < 5 or len(conf) < 5:  # one run each: an interval needs 5 kept steps
        lo = hi = None
    print(json.dumps({
        "baseline_steps_ms": [x / 1e6 for x in base], "config_steps_ms": [x / 1e6 for x in conf],
        "baseline_median_ms": mb / 1e6, "median_ms": mc / 1e6, "delta_ms": (mc - mb) / 1e6,
        "delta_pct": 100 * (mc - mb) / mb, "level": level,
        "ci_low_ms": lo / 1e6 if lo is not None else None, "ci_high_ms": hi / 1e6 if hi is not None else None,
        "ci_low_pct": 100 * lo / mb if lo is not None else None,
        "ci_high_pct": 100 * hi / mb if hi is not None else None,
        "p": min(1.0, 2 * min(le, ge) / len(deltas))}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
