"""Strobe's torch-profiler contract, for training and inference scripts.

No change to the script is needed: under `strobe-cli collect --tool torch-profiler` (or the workbench's Profile
dialog) the directory hook/ beside this file is put first on PYTHONPATH, and its sitecustomize.py calls
install_hook() in every Python process of the workload (then runs the sitecustomize it hides, such as Debian's
/etc/python3.11/sitecustomize.py). The hook imports nothing until the script imports torch; then it profiles in one
of two modes (STROBE_TORCH_MODE: auto, steps or time):
  steps  torch.optim.Optimizer.step is wrapped when torch.optim is imported: each step of the first optimizer that
         steps ends a training step and drives the schedule (wait, warm-up, active steps; ProfilerStep#N in the trace);
  time   the window STROBE_TORCH_DELAY seconds after torch is imported, for STROBE_TORCH_DURATION seconds (0: until the
         process ends), for scripts without an optimizer (inference, benchmarks);
  auto   (default) the time window runs until an optimizer steps, then that recording is dropped and steps mode
         takes over.
SIGTERM and SIGINT write the trace recorded so far (then the process ends of the signal as it would have); so does
the interpreter's normal exit. Each trace's clock_anchor.json says which mode made it ("mode").

Explicit control still works, and wins over the hook (it stands down while a profile() is open):

    import strobe_torch
    with strobe_torch.profile() as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

Variables: STROBE_TORCH_DIR (where to write), STROBE_TORCH_WAIT / _WARMUP / _ACTIVE (the schedule, in steps), or
STROBE_TORCH_STEPS "A-B" (record ProfilerStep#A..#B: sets wait and active),
STROBE_TORCH_SHAPES (1: record operator input shapes), STROBE_TORCH_MODE, STROBE_TORCH_DELAY, STROBE_TORCH_DURATION.
Without STROBE_TORCH_DIR, profile() and install_hook() do nothing, so the script runs unchanged outside Strobe.

Written into STROBE_TORCH_DIR, per process (rank<R>_: R is RANK, else 0; rank<R>_pid<P>_ when that name is taken
by another process of the same rank):
  rank<R>_trace.json          the profiler's Chrome trace (Kineto JSON; the legacy autograd format on a torch
                              built without Kineto, such as Debian's)
  rank<R>_clock_anchor.json   wall-clock anchors: the realtime, monotonic and boot-time clocks read together when
                              the profiler starts and at the start of every step, so relative trace times can be
                              placed on the run manifest's clock; the mode and, in steps mode, the optimizer
  rank<R>_op_shapes.csv       per operator and input shapes: calls and CPU time (what FLOP estimates need)
"""
import csv
import json
import os
import sys
import time

__all__ = ["profile", "enabled", "install_hook"]


def enabled():
    return bool(os.environ.get("STROBE_TORCH_DIR"))


def _int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _float(name, default):
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _clocks(step):
    return {
        "step": step,
        "realtime_ns": time.time_ns(),
        "monotonic_ns": time.monotonic_ns(),
        "boottime_ns": time.clock_gettime_ns(time.CLOCK_BOOTTIME) if hasattr(time, "CLOCK_BOOTTIME") else None,
    }


def _steps_range():
    # STROBE_TORCH_STEPS "A-B" (ProfilerStep numbers, 0 <= A <= B), else None; strobe-cli checked the form.
    text = os.environ.get("STROBE_TORCH_STEPS", "").strip()
    try:
        first, last = (int(x) for x in text.split("-", 1))
    except ValueError:
        return None
    return (first, last) if 0 <= first <= last else None


def _say(text):
    try:
        sys.stderr.write("strobe_torch: %s\n" % text)
        sys.stderr.flush()
    except Exception:
        pass


class _Disabled:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def step(self):
        pass


_open = []  # profiles that are recording: what a signal or the interpreter's exit writes


class _Profile:
    """One torch.profiler.profile writing Strobe's files; `scheduled` False records from start to stop."""

    def __init__(self, activities=None, mode="explicit", scheduled=True):
        import torch
        from torch.profiler import ProfilerActivity, schedule

        self._dir = os.environ["STROBE_TORCH_DIR"]
        os.makedirs(self._dir, exist_ok=True)
        self._rank = _int("RANK", 0)
        self._pid = os.getpid()   # a forked child (a DataLoader worker) inherits this object: it never writes
        self._prefix = None
        self.done = False
        self.discard = False
        self._stopped = False
        self._scheduled = scheduled
        if activities is None:
            activities = [ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(ProfilerActivity.CUDA)
        self._step = 0
        self._anchors = {"strobe_torch_anchor": 1, "rank": self._rank, "pid": os.getpid(), "torch": torch.__version__,
                         "mode": mode, "wait": _int("STROBE_TORCH_WAIT", 1), "warmup": _int("STROBE_TORCH_WARMUP", 1),
                         "active": _int("STROBE_TORCH_ACTIVE", 3), "steps": []}
        span = _steps_range()
        if span is not None:
            # The first recorded step is labelled ProfilerStep#(wait + warm-up - 1) (measured on Debian's torch 1.13:
            # wait 2, warm-up 1 records #2-#4; warm-up 0, #1-#3), so #A..#B is warm-up as asked (1 at least, A + 1
            # at most), wait A + 1 - warm-up, active B - A + 1. Which steps the trace holds is checked when it is
            # written (recorded_steps), so another torch's labelling is said, not hidden.
            first, last = span
            warmup = max(1, min(self._anchors["warmup"], first + 1))
            self._anchors.update({"wait": first + 1 - warmup, "warmup": warmup, "active": last - first + 1,
                                  "steps_range": "%d-%d" % (first, last)})
        sched = None
        if scheduled:
            sched = schedule(wait=self._anchors["wait"], warmup=self._anchors["warmup"],
                             active=self._anchors["active"], repeat=1)
        self._prof = torch.profiler.profile(
            activities=activities, schedule=sched,
            record_shapes=os.environ.get("STROBE_TORCH_SHAPES", "1").lower() in ("1", "true", "yes"),
            on_trace_ready=self._ready)

    def _progress(self):
        # One line per profiled step on stderr: strobe-cli streams it and the Profiling runs dock shows the last one
        # ("rank R step N/TOTAL (phase)"), so a user sees the schedule advance. Only the schedule's steps: a handful.
        a = self._anchors
        if not self._scheduled:
            return
        total = a["wait"] + a["warmup"] + a["active"]
        if self._step > total:
            return
        phase = ("wait" if self._step <= a["wait"] else
                 "warm-up" if self._step <= a["wait"] + a["warmup"] else "active")
        _say("rank %d step %d/%d (%s)" % (self._rank, self._step, total, phase))

    def note(self, key, value):
        self._anchors[key] = value

    def _path(self, suffix):
        if self._prefix is None:
            # One name per process: a second process of the same rank (a wrapper's second Python) adds its pid.
            self._prefix = "rank%d" % self._rank
            if os.path.exists(os.path.join(self._dir, "%s_clock_anchor.json" % self._prefix)):
                self._prefix = "rank%d_pid%d" % (self._rank, os.getpid())
            self._write_anchors()  # claims the name
        return os.path.join(self._dir, "%s_%s" % (self._prefix, suffix))

    def _ready(self, prof):
        self.done = True
        if self.discard:
            return
        prof.export_chrome_trace(self._path("trace.json"))
        if "steps_range" in self._anchors:
            try:
                labels = sorted({int(e.name[13:]) for e in prof.events() if e.name.startswith("ProfilerStep#")})
                if labels:
                    self._anchors["recorded_steps"] = "%d-%d" % (labels[0], labels[-1])
            except Exception:
                pass
        with open(self._path("op_shapes.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["name", "input_shapes", "calls", "cpu_time_total_us"])
            for e in prof.key_averages(group_by_input_shape=True):
                w.writerow([e.key, json.dumps(e.input_shapes), e.count, e.cpu_time_total])
        self._write_anchors()

    def _write_anchors(self):
        if self._prefix is None:
            self._path("")
            return
        final = os.path.join(self._dir, "%s_clock_anchor.json" % self._prefix)
        tmp = final + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self._anchors, f, indent=1)
        os.replace(tmp, final)

    def __enter__(self):
        self._anchors["profiler_start"] = _clocks(None)
        self._prof.__enter__()
        self._anchors["steps"].append(_clocks(0))
        _open.append(self)
        return self

    def __exit__(self, *exc):
        if self._stopped:
            return False
        self._stopped = True
        if self in _open:
            _open.remove(self)
        _hook.busy += 1  # a signal while the trace is written waits for it
        try:
            result = self._prof.__exit__(*exc)
            if not self.discard:
                self._anchors["profiler_stop"] = _clocks(None)
                if self._prefix is not None or self.done:
                    self._write_anchors()
        finally:
            _hook.busy -= 1
        _hook.deliver()
        return result

    def step(self):
        if self._stopped:
            return
        _hook.busy += 1  # a signal meanwhile waits until the profiler's state is whole again
        try:
            self._prof.step()
            self._step += 1
            self._anchors["steps"].append(_clocks(self._step))
            self._progress()
        finally:
            _hook.busy -= 1
            _hook.deliver()


class _Explicit:
    """profile()'s context manager: the hook stands down while it is open."""

    def __init__(self, activities):
        self._activities = activities
        self._p = None

    def __enter__(self):
        _hook.stand_down()
        _hook.explicit += 1
        self._p = _Profile(self._activities)
        self._p.__enter__()
        return self

    def __exit__(self, *exc):
        _hook.explicit -= 1
        return self._p.__exit__(*exc)

    def step(self):
        self._p.step()


def profile(activities=None):
    """A context manager whose step() marks the end of a training step; a no-op outside Strobe."""
    if not enabled():
        return _Disabled()
    return _Explicit(activities)


# ---- the hook: profiling an unmodified script -------------------------------------------------------------------

def _is_launcher():
    """torchrun / torch.distributed.run|launch and multiprocessing children are not profiled by the hook."""
    argv = list(getattr(sys, "orig_argv", sys.argv))
    for i, a in enumerate(argv):
        if os.path.basename(a) == "torchrun":
            return True
        if a == "-m" and i + 1 < len(argv) and argv[i + 1] in ("torch.distributed.run", "torch.distributed.launch"):
            return True
    try:
        import multiprocessing
        if multiprocessing.parent_process() is not None:
            return True
    except Exception:
        pass
    return False


class _Hook:
    def __init__(self):
        self.mode = os.environ.get("STROBE_TORCH_MODE", "auto")
        self.delay = max(0.0, _float("STROBE_TORCH_DELAY", 0))
        self.duration = max(0.0, _float("STROBE_TORCH_DURATION", 0))
        self.explicit = 0
        self.profile = None       # the hook's own _Profile
        self.kind = None          # "time" or "steps"
        self.optimizer = None     # id of the optimizer whose steps count
        self.finished = False
        self.eligible = None
        self.signals = False
        self.busy = 0             # inside the profiler's step(): a signal is held until it returns
        self.pending = None       # (sig, frame, previous handler) held
        self.t0 = None            # when torch was imported (monotonic s)
        self.started = None       # when steps mode began recording

    def _eligible(self):
        if self.eligible is None:
            self.eligible = not _is_launcher()
        return self.eligible

    def stand_down(self):
        """An explicit profile() starts: the hook's own recording stops, unwritten."""
        if self.profile is not None and not self.profile.done:
            self.profile.discard = True
            self.profile.__exit__(None, None, None)
        self.profile = None
        self.finished = True

    # torch imported: the time window (auto, time), the signal handlers.
    def on_torch(self, _module):
        if not self._eligible():
            return
        self.t0 = time.monotonic()
        self._install_signals()
        if self.mode not in ("auto", "time"):
            return
        if self.delay <= 0:
            self._start_time()
        else:
            self._alarm(self.delay, self._start_time)

    def _alarm(self, seconds, fn):
        import signal
        try:
            if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None, self._on_alarm):
                _say("SIGALRM has a handler already: the time window starts now")
                fn()
                return
            self._alarm_fn = fn
            signal.signal(signal.SIGALRM, self._on_alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
        except ValueError:  # not the main thread
            fn()

    def _on_alarm(self, *_):
        fn, self._alarm_fn = self._alarm_fn, None
        if fn:
            fn()

    def _start_time(self):
        if self.finished or self.explicit or self.profile is not None:
            return
        self.kind = "time"
        self.profile = _Profile(mode="time", scheduled=False)
        self.profile.note("delay_s", self.delay)
        self.profile.note("duration_s", self.duration)
        self.profile.__enter__()
        if self.duration > 0:
            self._alarm(self.duration, self._stop_time)

    def _stop_time(self):
        if self.kind == "time" and self.profile is not None:
            self.profile.__exit__(None, None, None)
            self.finished = True

    # an optimizer stepped: steps mode (auto drops the time window's recording first).
    def on_step(self, optimizer):
        if self.explicit or self.mode == "time" or not self._eligible():
            return
        if self.profile is not None and self.profile._pid != os.getpid():
            return  # a forked child stepping an optimizer: the parent's profile is not its own
        if self.optimizer is None:
            self.optimizer = id(optimizer)
        if id(optimizer) != self.optimizer:
            return  # several optimizers: the first one's steps count
        if self.kind == "time" and self.profile is not None:
            self.profile.discard = True
            self.profile.__exit__(None, None, None)
            self.profile = None
            self.finished = False
        if self.finished:
            return
        now = time.monotonic()
        if self.profile is None and self.t0 is not None and now - self.t0 < self.delay:
            return  # --delay: no step is profiled before it
        if self.profile is None:
            self.kind = "steps"
            self.started = now
            self.profile = _Profile(mode="steps")
            self.profile.note("optimizer", type(optimizer).__name__)
            self.profile.note("delay_s", self.delay)
            self.profile.note("duration_s", self.duration)
            self.profile.__enter__()
            return
        self.profile.step()
        if self.profile.done or (self.duration > 0 and now - self.started >= self.duration):
            self.profile.__exit__(None, None, None)
            self.finished = True

    def _install_signals(self):
        import signal
        if self.signals:
            return
        self.signals = True
        for sig in (signal.SIGTERM, signal.SIGINT):
            try:
                prev = signal.getsignal(sig)
                if prev not in (signal.SIG_DFL, signal.default_int_handler):
                    continue  # the script's own handler (it decides how it ends)
                signal.signal(sig, lambda s, f, prev=prev: self._on_signal(s, f, prev))
            except ValueError:  # not the main thread
                return
        import atexit
        atexit.register(finish)

    def deliver(self):
        if self.busy == 0 and self.pending is not None:
            held, self.pending = self.pending, None
            self._on_signal(*held)

    def _on_signal(self, sig, frame, prev):
        import signal
        if self.busy:
            self.pending = (sig, frame, prev)
            return
        finish()
        if prev is signal.default_int_handler:
            prev(sig, frame)  # KeyboardInterrupt, as without Strobe
            return
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)


_hook = _Hook()


def finish():
    """Writes what every open profile recorded (a signal, the interpreter's exit), in the process that opened it."""
    for p in list(_open):
        if p._pid != os.getpid():
            continue
        try:
            p.__exit__(None, None, None)
        except Exception as e:  # the process is ending: say why its trace is missing
            _say("the trace was not written: %s" % e)
    _hook.finished = True


def _patch_optimizer(module):
    Optimizer = module.Optimizer
    if getattr(Optimizer.__init__, "_strobe", False):
        return
    import functools
    init = Optimizer.__init__

    def wrap_step(cls):
        step = cls.__dict__.get("step")
        if step is None or getattr(step, "_strobe", False):
            return

        @functools.wraps(step)
        def strobe_step(self, *args, **kwargs):
            out = step(self, *args, **kwargs)
            _hook.on_step(self)
            return out

        strobe_step._strobe = True
        cls.step = strobe_step

    @functools.wraps(init)
    def strobe_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        for cls in type(self).__mro__:  # the class whose step() runs
            if "step" in cls.__dict__:
                wrap_step(cls)
                break

    strobe_init._strobe = True
    Optimizer.__init__ = strobe_init


def _fix_torchrun_std(module):
    """torch 1.13's torchrun on Python 3.11: Std.from_str("0") is None (3.11's IntFlag no longer iterates the zero
    and composite members), so torchrun fails with "'NoneType' object has no attribute 'get'" in to_map. Member
    lookup by value gives what 3.10 gave."""
    Std = getattr(module, "Std", None)
    if Std is None or Std.from_str("0") is not None:
        return
    original = Std.from_str.__func__

    def from_str(cls, vm):
        out = original(cls, vm)
        if out is None:
            return cls(int(vm))
        if isinstance(out, dict):
            return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
        return out

    Std.from_str = classmethod(from_str)


class _AfterImport:
    """A meta path finder that calls back once a watched module has been executed (its loader is left as it is)."""

    def __init__(self, callbacks):
        self.callbacks = callbacks
        self.busy = set()

    def find_spec(self, name, path=None, target=None):
        fn = self.callbacks.get(name)
        if fn is None or name in self.busy:
            return None
        self.busy.add(name)
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        finally:
            self.busy.discard(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module):
            run(module)
            try:
                fn(module)
            except Exception as e:
                _say("hook for %s: %s" % (name, e))

        try:
            loader.exec_module = exec_module
        except AttributeError:
            return spec
        return spec


def install_hook():
    """Called by hook/sitecustomize.py: profiles torch in this process without a change to the script."""
    if not enabled() or getattr(install_hook, "done", False):
        return
    install_hook.done = True
    if "torch" in sys.modules:
        _hook.on_torch(sys.modules["torch"])
    sys.meta_path.insert(0, _AfterImport({
        "torch": _hook.on_torch,
        "torch.optim.optimizer": _patch_optimizer,
        "torch.distributed.elastic.multiprocessing.api": _fix_torchrun_std,
    }))
