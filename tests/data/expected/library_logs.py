#!/usr/bin/python3
"""Independent parse of the MIOpen, Tensile and RCCL sample logs in tests/data/library-logs (regular expressions over
each line; written apart from core/formats/{miopen,tensile,rccl}_log.cpp): calls per name and a few arguments of
chosen calls, in file order.
Run from tests/data: /usr/bin/python3 expected/library_logs.py > expected/library_logs.csv
Rows: format,what,key,value where what is "total" (calls in the file), "calls" (key = call name), or "arg" (key =
<call index>:<arg name>)."""
import collections
import csv
import re
import sys

w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["format", "what", "key", "value"])


def emit(fmt, calls, picks):
    w.writerow([fmt, "total", "", len(calls)])
    for name, n in collections.Counter(name for name, _ in calls).items():
        w.writerow([fmt, "calls", name, n])
    for index, key in picks:
        w.writerow([fmt, "arg", f"{index}:{key}", calls[index][1][key]])


# --- MIOpen: "[host tid ]MIOpen(HIP): Command [Tag] ./bin/MIOpenDriver sub -flag value ..."
CMD = re.compile(r"^(?:\S+ \d+ )?MIOpen(?:\(\w+\))?: Command \[(\w+)\] \S*MIOpenDriver (\S+)((?: .*)?)$")
CONV = dict(n="batchsize", c="in_channels", H="in_h", W="in_w", k="out_channels", y="fil_h", x="fil_w", p="pad_h",
            q="pad_w", u="conv_stride_h", v="conv_stride_w", l="dilation_h", j="dilation_w", m="mode",
            g="group_count", F="forw", t="time", S="solution")
BN = dict(n="batchsize", c="in_channels", H="in_h", W="in_w", m="mode", b="back", s="save", r="run")
calls = []
for line in open("library-logs/miopen_logging_cmd_docs.log"):
    m = CMD.match(line.strip())
    if not m:
        continue
    tag, sub, rest = m.groups()
    flags = dict(re.findall(r"(-{1,2}[A-Za-z_]+) (\S+)", rest))
    table = CONV if sub.startswith("conv") else BN if sub.startswith("bnorm") else {}
    args = {(k[2:] if k.startswith("--") else table.get(k[1:], k)): v for k, v in flags.items()}
    name = sub
    if sub.startswith("bnorm"):
        d = "bwd" if args.get("back") == "1" else {"1": "fwd train", "2": "fwd infer"}.get(args.get("forw"), "")
    elif sub.startswith("CBAInfer"):
        d = ""
    else:
        d = {"1": "fwd", "2": "bwd", "4": "wrw"}.get(args.get("forw"), "")
    name += " " + d if d else ""
    name += " (find)" if tag.startswith("LogCmdFind") else ""
    calls.append((name, args))
emit("miopen", calls, [(1, "batchsize"), (1, "out_channels"), (3, "in_channels"), (3, "save"), (11, "in_d"),
                       (11, "in_layout"), (11, "solution")])

# --- Tensile: "Running kernel: NAME", then (TENSILE_DB 0x40) "Kernel NAME" and "[a..b] size_i: bytes (value)"
calls = []
block = None
for line in open("library-logs/tensile_db_docs.log"):
    line = line.strip()
    if m := re.match(r"^Running kernel: (\S+)$", line):
        calls.append((m.group(1), {}))
        block = None
    elif m := re.match(r"^Kernel (\S+)$", line):
        block = calls[-1][1]
    elif block is not None and (m := re.match(r"^\[\d+\.\.\d+\] (size_\d+): [0-9a-f ]+\((\d+)\)$", line)):
        block[m.group(1)] = m.group(2)
emit("tensile", calls, [(3, "size_0"), (3, "size_3"), (4, "size_1")])

# --- RCCL: "host:pid:tid [dev] NCCL INFO Op: opCount HEX key value ... [nranks=N] ..."
SIZES = {0: 1, 1: 1, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2, 10: 1, 11: 1}
calls = []
for line in open("library-logs/rccl.gpu-node-01.40211.log"):
    m = re.match(r"^\S+:\d+:\d+ \[(\d+)\] NCCL INFO (\w+): opCount ([0-9a-f]+) (.*)$", line.strip())
    if not m:
        continue
    dev, op, opcount, rest = m.groups()
    kv = dict(re.findall(r"(\w+) (\S+)", re.sub(r"\[nranks=(\d+)\]", r"nranks \1", rest)))
    count, dtype = int(kv["count"]), int(kv["datatype"])
    calls.append((op, {"opCount": int(opcount, 16), "bytes": count * SIZES[dtype], "nranks": kv["nranks"],
                       "device": dev}))
emit("rccl", calls, [(2, "bytes"), (6, "bytes"), (8, "bytes"), (18, "opCount"), (18, "device"), (0, "nranks")])
