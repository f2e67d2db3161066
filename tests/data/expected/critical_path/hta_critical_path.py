# Holistic Trace Analysis' critical path (the reference for `strobe-cli analyze critical-path --definition hta`).
# HTA from source at commit f4d0062 (git archive f4d0062 hta | tar x), Debian's python3 with python3-pandas and
# python3-networkx (apt-get install python3-networkx):
#   /usr/bin/python3 tests/data/expected/critical_path/hta_critical_path.py HTA_SRC TRACE_DIR ANNOTATION INSTANCE RANK OUT.json
# alexnet: TRACE_DIR tests/data/kineto/hta/critical_path/alexnet,
#          ANNOTATION "[param|pytorch.model.alex_net|0|0|0|measure|forward]", INSTANCE 1, RANK 0 -> hta_alexnet.json
# DLRM:    TRACE_DIR resources/sample/param-dlrm-8rank, ANNOTATION ProfilerStep, INSTANCE 0, RANK 0..7 -> hta_dlrm_rankR.json
# Output: the path's length and per bound_by class its duration (HTA's units: µs) and share (0-1).
import json
import sys

sys.path.insert(0, sys.argv[1])
from hta.trace_analysis import TraceAnalysis  # noqa: E402

trace_dir, annotation, instance, rank, out = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
ta = TraceAnalysis(trace_dir=trace_dir)
cp, ok = ta.critical_path_analysis(rank=rank, annotation=annotation, instance_id=instance)
edf = cp.get_critical_path_breakdown()
total = int(edf.duration.sum())
by = edf[edf.bound_by != ""].groupby("bound_by").duration.sum()
res = {
    "ok": bool(ok),
    "rank": rank,
    "annotation": annotation,
    "instance": instance,
    "length_us": total,
    "bound_by_us": {k: int(v) for k, v in by.items()},
    "share": {k: float(v) / total if total else 0.0 for k, v in by.items()},
    "path_edges": int(len(edf)),
}
with open(out, "w") as f:
    json.dump(res, f, indent=1, sort_keys=True)
    f.write("\n")
print(json.dumps(res, sort_keys=True))
