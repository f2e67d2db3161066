#!/usr/bin/python3
# Expected facts of tests/data/kineto/legacy/legacy_autograd_cpu.json (legacy autograd profiler trace), with
# Python's json module: event count, the ProfilerStep#N ranges (number, start ns, duration ns) and the number of
# operator events (every other 'X' event). Run: /usr/bin/python3 tests/data/expected/legacy_autograd.py
import json, os
p = os.path.join(os.path.dirname(__file__), "..", "kineto", "legacy", "legacy_autograd_cpu.json")
ev = json.load(open(p))
assert isinstance(ev, list)
steps = [(int(e["name"].split("#")[1]), e["ts"] * 1000, e["dur"] * 1000) for e in ev if e["name"].startswith("ProfilerStep#")]
ops = [e for e in ev if e.get("ph") == "X" and not e["name"].startswith("ProfilerStep#")]
print("events", len(ev), "ops", len(ops), "cat present", any("cat" in e for e in ev))
for s in sorted(steps):
    print("step", *s)
