#!/usr/bin/python3
# Expected GEMM FLOPs per ProfilerStep (core/analysis/gemm_flops, the mfu-per-step plot) on real Kineto traces,
# computed here from the JSON with Python's json module alone:
#  - counted ops (cat cpu_op / Operator): aten::mm, addmm, bmm, baddbmm, linear, matmul with "Input Dims";
#    FLOPs = 2*M*N*K (x batch for bmm/baddbmm, x the broadcast batch for matmul; linear: input [.., K] x weight [N, K]);
#  - an op enclosed (same pid/tid, time containment) by another counted op is not counted again;
#  - an op belongs to the ProfilerStep#N (cat user_annotation, cpu_op or Operator: CPU side) whose [ts, ts+dur) holds its ts;
#  - bytes = (elements of the two matrix operands + elements of the result) x element size.
# Run: /usr/bin/python3 tests/data/expected/gemm_flops.py > tests/data/expected/gemm_flops.json
import gzip, json, math, os
here = os.path.dirname(os.path.abspath(__file__))
FILES = {
    "resnet50": "kineto/kineto-configs/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "dlrm_a100": "kineto/hta/distributed_info_unavailable/distributed_info_not_found.json.gz",
    "mi300x": "kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz",
}
SIZE = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2}
GEMM = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear", "aten::matmul")

def prod(xs):
    return math.prod(xs) if xs else 1

def cost(name, dims, types):
    first = 1 if name in ("aten::addmm", "aten::baddbmm") else 0
    a, b = dims[first], dims[first + 1]
    if name in ("aten::mm", "aten::addmm"):
        assert a[1] == b[0]
        batch, m, k, n = 1, a[0], a[1], b[1]
    elif name in ("aten::bmm", "aten::baddbmm"):
        assert a[0] == b[0] and a[2] == b[1]
        batch, m, k, n = a[0], a[1], a[2], b[2]
    elif name == "aten::linear":
        assert a[-1] == b[1]
        batch, m, k, n = 1, prod(a[:-1]), a[-1], b[0]
    else:  # matmul
        m = 1 if len(a) == 1 else a[-2]
        k = a[-1]
        n = 1 if len(b) == 1 else b[-1]
        assert k == (b[0] if len(b) == 1 else b[-2])
        ba, bb = a[:-2], b[:-2]
        n_b = max(len(ba), len(bb))
        ba, bb = [1] * (n_b - len(ba)) + ba, [1] * (n_b - len(bb)) + bb
        batch = prod([max(x, y) for x, y in zip(ba, bb)])
    size = SIZE.get(types[first], 4) if len(types) > first else 4
    return 2 * batch * m * n * k, (prod(a) + prod(b) + batch * m * n) * size

out = {}
for key, rel in FILES.items():
    d = json.load(gzip.open(os.path.join(here, "..", rel)))
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    steps = sorted((e for e in ev if e.get("name", "").startswith("ProfilerStep#")
                    and e.get("cat") in ("user_annotation", "cpu_op", "Operator")), key=lambda e: e["ts"])
    ops = [e for e in ev if e.get("cat") in ("cpu_op", "Operator") and e.get("name") in GEMM]
    counted = []
    for o in ops:
        inside = any(p is not o and p["pid"] == o["pid"] and p["tid"] == o["tid"] and p["ts"] <= o["ts"]
                     and o["ts"] + o["dur"] <= p["ts"] + p["dur"] and (p["ts"], -p["dur"]) < (o["ts"], -o["dur"])
                     for p in ops)
        if not inside:
            counted.append(o)
    rows = []
    for s in steps:
        sel = [o for o in counted if s["ts"] <= o["ts"] < s["ts"] + s["dur"] and "Input Dims" in o.get("args", {})]
        fl = by = 0
        for o in sel:
            f, b = cost(o["name"], o["args"]["Input Dims"], o["args"].get("Input type", []))
            fl += f
            by += b
        rows.append({"step": int(s["name"].split("#")[1]), "dur_us": s["dur"], "ops": len(sel), "flops": fl, "bytes": by})
    out[key] = {"gpu": d.get("deviceProperties", [{}])[0].get("name"), "steps": rows,
                "outermost_ops": len(counted), "all_ops": len(ops)}
print(json.dumps(out, indent=1))
