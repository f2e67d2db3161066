"""Strobe's torch-profiler contract, for training and inference scripts.

    import strobe_torch
    with strobe_torch.profile() as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

Under `strobe-cli collect --tool torch-profiler` (or the workbench's Profile dialog) these variables are set:
STROBE_TORCH_DIR (where to write), STROBE_TORCH_WAIT / _WARMUP / _ACTIVE (the profiler schedule, in steps),
STROBE_TORCH_SHAPES (1: record operator input shapes). Without STROBE_TORCH_DIR, profile() does nothing, so the
script runs unchanged outside Strobe.

Written into STROBE_TORCH_DIR, per rank (RANK, else 0):
  rank<R>_trace.json          the profiler's Chrome trace (Kineto JSON; the legacy autograd format on a torch
                              built without Kineto, such as Debian's)
  rank<R>_clock_anchor.json   wall-clock anchors: the realtime, monotonic and boot-time clocks read together when
                              the profiler starts and at the start of every step, so relative trace times can be
                              placed on the run manifest's clock
  rank<R>_op_shapes.csv       per operator and input shapes: calls and CPU time (what FLOP estimates need)
"""
import csv
import json
import os
import time

__all__ = ["profile", "enabled"]


def enabled():
    return bool(os.environ.get("STROBE_TORCH_DIR"))


def _int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _clocks(step):
    return {
        "step": step,
        "realtime_ns": time.time_ns(),
        "monotonic_ns": time.monotonic_ns(),
        "boottime_ns": time.clock_gettime_ns(time.CLOCK_BOOTTIME) if hasattr(time, "CLOCK_BOOTTIME") else None,
    }


class _Disabled:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def step(self):
        pass


class _Profile:
    def __init__(self, activities=None):
        import torch
        from torch.profiler import ProfilerActivity, schedule

        self._dir = os.environ["STROBE_TORCH_DIR"]
        os.makedirs(self._dir, exist_ok=True)
        self._rank = _int("RANK", 0)
        if activities is None:
            activities = [ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(ProfilerActivity.CUDA)
        self._step = 0
        self._anchors = {"strobe_torch_anchor": 1, "rank": self._rank, "pid": os.getpid(), "torch": torch.__version__,
                         "wait": _int("STROBE_TORCH_WAIT", 1), "warmup": _int("STROBE_TORCH_WARMUP", 1),
                         "active": _int("STROBE_TORCH_ACTIVE", 3), "steps": []}
        self._prof = torch.profiler.profile(
            activities=activities,
            schedule=schedule(wait=self._anchors["wait"], warmup=self._anchors["warmup"],
                              active=self._anchors["active"], repeat=1),
            record_shapes=os.environ.get("STROBE_TORCH_SHAPES", "1").lower() in ("1", "true", "yes"),
            on_trace_ready=self._ready)

    def _path(self, suffix):
        return os.path.join(self._dir, "rank%d_%s" % (self._rank, suffix))

    def _ready(self, prof):
        prof.export_chrome_trace(self._path("trace.json"))
        with open(self._path("op_shapes.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["name", "input_shapes", "calls", "cpu_time_total_us"])
            for e in prof.key_averages(group_by_input_shape=True):
                w.writerow([e.key, json.dumps(e.input_shapes), e.count, e.cpu_time_total])
        self._write_anchors()

    def _write_anchors(self):
        tmp = self._path("clock_anchor.json.tmp")
        with open(tmp, "w") as f:
            json.dump(self._anchors, f, indent=1)
        os.replace(tmp, self._path("clock_anchor.json"))

    def __enter__(self):
        self._anchors["profiler_start"] = _clocks(None)
        self._prof.__enter__()
        self._anchors["steps"].append(_clocks(0))
        return self

    def __exit__(self, *exc):
        result = self._prof.__exit__(*exc)
        self._write_anchors()
        return result

    def step(self):
        self._prof.step()
        self._step += 1
        self._anchors["steps"].append(_clocks(self._step))


def profile(activities=None):
    """A context manager whose step() marks the end of a training step; a no-op outside Strobe."""
    if not enabled():
        return _Disabled()
    return _Profile(activities)
