"""Independent implementation of the operator models of core/analysis/op_models.h (and of TraceLens's formulas for
GEMM, convolution, normalisation and softmax, to show how far the two definitions are apart): the expected values of
tests/core/op_models_test.cpp. Plain Python (json, gzip); run with Debian's Python:

    /usr/bin/python3 tests/core/op_models_expected.py tests/data/kineto/tracelens/mi300x_resnet_act_checkpoint_rank0of8.json.gz
    /usr/bin/python3 tests/core/op_models_expected.py tests/data/kineto/memory/tracelens_normalization_layer_test_profile_memory.json.gz
    /usr/bin/python3 tests/core/op_models_expected.py tests/data/kineto/multirank/cifar100_ddp_4rank_tracefusion_first_quarter.json.gz

An instance is the outermost cpu_op with a model among those on the launching runtime call's thread whose
[ts, ts + dur] holds the call; its kernels are those whose correlation matches a runtime call beneath it. Prints per
family: instances, kernels, kernel time (µs·1000), FLOPs, bytes, and TraceLens's FLOPs and bytes for the same
instances where TraceLens has a formula (tl_flops / tl_bytes).
"""
import bisect
import collections
import decimal
import gzip
import json
import math
import sys

GEMM = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear", "aten::matmul"}
UNARY = {"aten::" + n for n in "relu relu_ clamp clamp_ clamp_min clamp_min_ clamp_max clamp_max_ sigmoid sigmoid_ tanh "
         "tanh_ gelu silu silu_ neg rsqrt sqrt exp log abs pow hardtanh hardtanh_ threshold reciprocal".split()}
BINARY = {"aten::" + n for n in "add add_ sub sub_ mul mul_ div div_ threshold_backward sigmoid_backward tanh_backward "
          "gelu_backward silu_backward maximum minimum hardtanh_backward".split()}
REDUCE = {"aten::" + n for n in "sum mean amax amin max min var std logsumexp norm".split()}
SOFTMAX = {"aten::softmax", "aten::log_softmax", "aten::_softmax", "aten::_log_softmax"}
SOFTMAX_BWD = {"aten::_softmax_backward_data", "aten::_log_softmax_backward_data"}
# name: (input, weight, bias, training, normalized_shape, backward, rms) argument indices (-1: none)
NORM = {
    "aten::batch_norm": (0, 1, 2, 5, -1, False, False), "aten::_batch_norm_impl_index": (0, 1, 2, 5, -1, False, False),
    "aten::native_batch_norm": (0, 1, 2, 5, -1, False, False), "aten::cudnn_batch_norm": (0, 1, 2, 5, -1, False, False),
    "aten::miopen_batch_norm": (0, 1, 2, 5, -1, False, False), "aten::instance_norm": (0, 1, 2, -1, -1, False, False),
    "aten::layer_norm": (0, 2, 3, -1, 1, False, False), "aten::native_layer_norm": (0, 2, 3, -1, 1, False, False),
    "aten::group_norm": (0, 2, 3, -1, -1, False, False), "aten::native_group_norm": (0, 1, 2, -1, -1, False, False),
    "aten::rms_norm": (0, 2, -1, -1, 1, False, True), "aten::_fused_rms_norm": (0, 2, -1, -1, 1, False, True),
    "aten::native_batch_norm_backward": (1, 2, -1, -1, -1, True, False),
    "aten::cudnn_batch_norm_backward": (0, 2, -1, -1, -1, True, False),
    "aten::miopen_batch_norm_backward": (0, 2, -1, -1, -1, True, False),
    "aten::native_layer_norm_backward": (1, 5, 6, -1, 2, True, False),
    "aten::native_group_norm_backward": (1, 4, -1, -1, -1, True, False),
    "aten::_fused_rms_norm_backward": (1, 4, -1, -1, 2, True, True),
}
MODELLED = (GEMM | UNARY | BINARY | REDUCE | SOFTMAX | SOFTMAX_BWD | set(NORM)
            | {"aten::convolution", "aten::convolution_backward", "aten::copy_", "aten::fill_", "aten::zero_",
               "aten::embedding", "aten::embedding_backward", "aten::embedding_dense_backward", "aten::_scaled_mm"})


def size_of(t):
    t = (t or "").lower().replace("c10::", "")
    return {"double": 8, "float": 4, "half": 2, "bfloat16": 2, "long int": 8, "long": 8, "int64_t": 8,
            "unsigned long": 8, "int": 4, "unsigned int": 4, "short": 2, "bool": 1, "unsigned char": 1,
            "signed char": 1, "char": 1}.get(t, 1 if t.startswith("float8") else 0)


def dtype(t):
    t = (t or "").lower().replace("c10::", "")
    return {"double": "fp64", "float": "fp32", "half": "fp16", "bfloat16": "bf16"}.get(
        t, "fp8" if t.startswith("float8") else "")


def numel(d):
    return math.prod(d)


def concrete(a, i):
    c = a.get("Concrete Inputs", [])
    return c[i] if 0 <= i < len(c) else ""


def is_true(s):
    s = s.lower()
    return s == "true" or (s.isdigit() and s != "0")


def ints(s):
    s = s.strip()
    if s.startswith("["):
        return [int(x) for x in s[1:-1].split(",") if x.strip()]
    return [int(s)] if s.lstrip("-").isdigit() else None


def gemm_cost(name, d, t):
    if name in ("aten::mm", "aten::addmm"):
        a, b = (d[0], d[1]) if name == "aten::mm" else (d[1], d[2])
        B, M, K, N, el = 1, a[0], a[1], b[1], numel(a) + numel(b)
        first = 0 if name == "aten::mm" else 1
    elif name in ("aten::bmm", "aten::baddbmm"):
        a, b = (d[0], d[1]) if name == "aten::bmm" else (d[1], d[2])
        B, M, K, N, el = a[0], a[1], a[2], b[2], numel(a) + numel(b)
        first = 0 if name == "aten::bmm" else 1
    elif name == "aten::linear":
        B, M, K, N, el, first = 1, numel(d[0][:-1]), d[0][-1], d[1][0], numel(d[0]) + numel(d[1]), 0
    else:
        raise ValueError(name)  # matmul: not on the test traces
    bpe = {"fp64": 8, "fp16": 2, "bf16": 2, "fp8": 1}.get(dtype(t[first]), 4)
    return 2 * B * M * N * K, (el + B * M * N) * bpe


def conv_out(x, w, a):
    nd = len(x) - 2
    ps = []
    for i, default in ((3, 1), (4, 0), (5, 1), (7, 0)):
        v = ints(concrete(a, i)) or [default]
        ps.append(v * nd if len(v) == 1 else v)
    s, p, dl, op = ps
    if is_true(concrete(a, 6)):
        return [x[0], w[1]] + [(x[2 + i] - 1) * s[i] - 2 * p[i] + dl[i] * (w[2 + i] - 1) + op[i] + 1 for i in range(nd)]
    return [x[0], w[0]] + [(x[2 + i] + 2 * p[i] - dl[i] * (w[2 + i] - 1) - 1) // s[i] + 1 for i in range(nd)]


def norm_cost(name, d, t, a):
    xi, wi, bi, ti, ni, bwd, rms = NORM[name]
    x = d[xi]
    has = lambda i: 0 <= i < len(d) and len(d[i]) > 0
    C = x[1]
    if ni >= 0:
        C = numel(ints(concrete(a, ni)) or d[wi])
    N, bpe = numel(x), size_of(t[xi]) or 4
    if bwd:
        return 9 * N, (3 * N + 4 * C) * bpe, C
    if rms:
        return N / C * (2 * C + 2) + N * (2 if has(wi) else 1), (2 * N + (C if has(wi) else 0)) * bpe, C
    training = ti < 0 or concrete(a, ti) == "" or is_true(concrete(a, ti))
    k = 2 + has(wi) + has(bi) + 2 * training
    return 2 * N + 6 * C + (3 * N if training else 0), (2 * N + k * C) * bpe, C


def cost(name, a):
    """(family, flops, bytes, tracelens_flops, tracelens_bytes) — TraceLens's None where it has no formula here."""
    d, t = a["Input Dims"], a.get("Input type", [])
    bpe0 = size_of(t[0]) if t else 4
    bpe0 = bpe0 or 4
    if name in GEMM:
        f, b = gemm_cost(name, d, t)
        bias = name == "aten::addmm" and d[0]
        # TraceLens's GEMM bytes also read the bias (addmm) once.
        return "gemm", f, b, f, b + (numel(d[0]) * (size_of(t[0]) or 4) if bias else 0)
    if name == "aten::convolution":
        x, w = d[0], d[1]
        y = conv_out(x, w, a)
        bias = len(d) > 2 and len(d[2]) > 0
        f = 2 * numel(y if not is_true(concrete(a, 6)) else x) * numel(w[1:]) + (numel(y) if bias else 0)
        b = (numel(x) + numel(w) + (y[1] if bias else 0) + numel(y)) * bpe0
        return "conv", f, b, f, b
    if name == "aten::convolution_backward":
        dy, x, w = d[0], d[1], d[2]
        bpe = size_of(t[1]) or 4
        f = 2 * numel(dy) * numel(w[1:]) + 2 * numel(w) * numel(dy) // dy[1]
        b = 2 * (numel(dy) + numel(x) + numel(w)) * bpe
        return "conv", f, b, f, b
    if name in NORM:
        f, b, C = norm_cost(name, d, t, a)
        return "norm", f, b, *tracelens_norm(name, d, t, a, C)
    if name in SOFTMAX:
        N = numel(d[0])
        return "softmax", 3 * N, 2 * N * bpe0, 3 * N, 2 * N * bpe0
    if name in SOFTMAX_BWD:
        N = numel(d[0])
        return "softmax", 6 * N, 4 * N * bpe0, 6 * N, 4 * N * bpe0
    if name in UNARY:
        return "elementwise", numel(d[0]), 2 * numel(d[0]) * bpe0, None, None
    if name in ("aten::fill_", "aten::zero_"):
        return "elementwise", 0, numel(d[0]) * bpe0, None, None
    if name == "aten::copy_":
        return "elementwise", 0, numel(d[1]) * (size_of(t[1]) or 4) + numel(d[0]) * bpe0, None, None
    if name in BINARY:
        tensor_b = len(t) > 1 and size_of(t[1]) > 0 and len(d) > 1
        b = d[1] if tensor_b else []
        n = max(len(d[0]), len(b))
        pa, pb = [1] * (n - len(d[0])) + d[0], [1] * (n - len(b)) + b
        out = [max(i, j) for i, j in zip(pa, pb)]
        bpe_out = max(bpe0, size_of(t[1]) or 4) if tensor_b else bpe0
        by = numel(d[0]) * bpe0 + (numel(b) * (size_of(t[1]) or 4) if tensor_b else 0) + numel(out) * bpe_out
        return "elementwise", numel(out), by, None, None
    if name in REDUCE:
        x = d[0]
        dims = ints(concrete(a, 2 if name == "aten::norm" else 1))
        out = 1
        if dims and x:
            red = {(k + len(x)) % len(x) for k in dims}
            out = math.prod(x[i] for i in range(len(x)) if i not in red)
        return "reduction", numel(x), (numel(x) + out) * bpe0, None, None
    return None


def tracelens_norm(name, d, t, a, C):
    """TraceLens's Normalization formulas as it reads its parameters (weight and bias taken as present, training
    from bool() of the text: always true; group norm backward's channels divided by the groups)."""
    xi, wi, bi, ti, ni, bwd, rms = NORM[name]
    x = d[xi]
    N, bpe = numel(x), size_of(t[xi]) or 4
    if rms and not bwd:
        return N / C * (2 * C + 2) + 2 * N, 2 * N * bpe + C * bpe
    if bwd:
        mask = [True, True, True]
        training = name not in ("aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm_backward")
        if name == "aten::native_batch_norm_backward":
            training = concrete(a, 7) != ""
        if name == "aten::native_layer_norm_backward":
            mask = [x == "True" for x in concrete(a, 7)[1:-1].split(", ")]
        if name == "aten::native_group_norm_backward":
            C = x[1] / int(concrete(a, 8))
            mask = [x == "True" for x in concrete(a, 9)[1:-1].split(", ")]
        affine, has_bias = (mask[1], mask[2]) if name == "aten::native_layer_norm_backward" else (True, True)
        epc = N / C
        fpc = (0 if training else 3) + 4 * epc
        fpc += (5 * epc if training else 0) if mask[0] else 2 * epc
        by = N * bpe + N * bpe * (2 if mask[0] and training else 1) + (C * bpe if training else 0)
        if affine:
            by += C * bpe + (C * bpe * (2 if has_bias else 1) if training else 0)
        return C * fpc, by
    return 2 * N + 6 * C + 3 * N, 2 * N * bpe + 6 * C * bpe


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    ns = lambda x: int(decimal.Decimal(str(x)) * 1000)
    ops, runtime, kernels = collections.defaultdict(list), {}, collections.defaultdict(list)
    for i, e in enumerate(events):
        cat, ph = e.get("cat"), e.get("ph")
        if ph != "X":
            continue
        if cat in ("cpu_op", "Operator"):
            ops[(e["pid"], e["tid"])].append((ns(e["ts"]), -ns(e.get("dur", 0)), i))
        elif cat in ("cuda_runtime", "cuda_driver", "Runtime") and "correlation" in e.get("args", {}):
            runtime[(e["pid"], e["args"]["correlation"])] = e
        elif cat in ("kernel", "Kernel"):
            kernels[e.get("args", {}).get("correlation")].append(e)
    for v in ops.values():
        v.sort()
    starts = {k: [o[0] for o in v] for k, v in ops.items()}
    inst = collections.defaultdict(lambda: [0, 0])
    pids_of_corr = collections.defaultdict(list)
    for (pid, corr), r in runtime.items():
        pids_of_corr[corr].append(r)
    for corr, ks in kernels.items():
        rs = pids_of_corr.get(corr, [])
        for k in ks:
            r = next((x for x in rs if x["pid"] == k.get("args", {}).get("pid_raw", x["pid"])), rs[0] if len(rs) == 1 else None)
            if r is None:
                continue
            key, t0 = (r["pid"], r["tid"]), ns(r["ts"])
            t1 = t0 + ns(r.get("dur", 0))
            owner = None
            for s, negdur, i in ops.get(key, [])[: bisect.bisect_right(starts.get(key, []), t0)]:
                if s <= t0 and t1 <= s - negdur and events[i]["name"] in MODELLED:
                    owner = i
                    break  # sorted by start, longest first: the first modelled container is the outermost
            if owner is not None:
                inst[owner][0] += 1
                inst[owner][1] += ns(k["dur"])
    fam = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0, 0])
    for i, (nk, kns) in sorted(inst.items()):
        e = events[i]
        if "Input Dims" not in e.get("args", {}):
            continue
        c = cost(e["name"], e["args"])
        if c is None:
            continue
        f = fam[c[0]]
        f[0] += 1; f[1] += nk; f[2] += kns; f[3] += c[1]; f[4] += c[2]
        f[5] += c[3] if c[3] is not None else 0
        f[6] += c[4] if c[4] is not None else 0
    for name, (n, nk, kns, fl, by, tfl, tby) in sorted(fam.items()):
        print(f"{name}: instances {n} kernels {nk} kernel_ns {kns} flops {fl:.17g} bytes {by:.17g} "
              f"tl_flops {tfl:.17g} tl_bytes {tby:.17g}")


if __name__ == "__main__":
    main(sys.argv[1])
