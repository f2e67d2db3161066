"""Shared by the stand-ins for profilers (nsys, ncu, amd-smi): the misbehaviour switches and running the wrapped
command. Not a tool itself (not executable); the stand-ins import it from their own directory.

STANDIN_MODE (comma-separated) makes a stand-in misbehave like real tools do:
  ignore-term   ignore SIGTERM (only SIGKILL stops it); a wrapped command still gets the default action
  fail=MESSAGE  print MESSAGE (or a tool-style error) to stderr and exit with status 1 before doing anything
  fork=FILE     start a grandchild that leaves the process group with setsid() and sleeps; its pid goes to FILE
  slow=S        sleep S seconds before starting (a slow start; for wrappers also before writing the outputs)
"""
import os
import signal
import subprocess
import sys
import time


def modes():
    out = {}
    for m in filter(None, os.environ.get("STANDIN_MODE", "").split(",")):
        k, _, v = m.partition("=")
        out[k] = v
    return out


def misbehave(tool, default_error):
    """Applies the switches that act at start; returns the modes."""
    m = modes()
    if "fail" in m:
        print("%s: %s" % (tool, m["fail"] or default_error), file=sys.stderr)
        sys.exit(1)
    if "ignore-term" in m:
        # A handler, not SIG_IGN: a handler is reset by exec, so the wrapped command is not made immune too.
        signal.signal(signal.SIGTERM, lambda *_: None)
    if "fork" in m and os.fork() == 0:
        os.setsid()
        with open(m["fork"], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(600)
        os._exit(0)
    time.sleep(float(m.get("slow", 0) or 0))
    return m


def run_command(command):
    """Runs the wrapped command as a child (fork + exec, argv as given) and returns its exit status the way a
    shell reports it (128 + signal when it was killed)."""
    try:
        child = subprocess.Popen(command)
    except FileNotFoundError:
        print("%s: command not found" % command[0], file=sys.stderr)
        return 127
    except PermissionError:
        print("%s: permission denied" % command[0], file=sys.stderr)
        return 126
    while True:
        try:
            code = child.wait()
            break
        except InterruptedError:
            continue
    return 128 - code if code < 0 else code


def split_options(argv, with_value):
    """Options before the application (the first argument that is not an option or an option's value), and the
    application's argv. `with_value` names the options whose value is the next argument (unless given as
    --opt=value). A "--" ends the options explicitly."""
    opts = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return opts, argv[i + 1:]
        if not a.startswith("-") or a == "-":
            return opts, argv[i:]
        if "=" in a and a.startswith("--"):
            k, _, v = a.partition("=")
            opts[k] = v
        elif a in with_value and i + 1 < len(argv):
            opts[a] = argv[i + 1]
            i += 1
        else:
            opts[a] = ""
        i += 1
    return opts, []
