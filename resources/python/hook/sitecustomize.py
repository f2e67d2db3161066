"""Strobe's torch-profiler hook (resources/python/strobe_torch.py): under `--tool torch-profiler` this directory is
first on PYTHONPATH, so every Python process of the workload runs this file at start-up. It installs the hook (which
imports nothing until the script imports torch), then runs the sitecustomize.py it hides: the next one on sys.path,
such as Debian's /etc/python3.11/sitecustomize.py (through /usr/lib/python3.11), imported by path."""
import os
import sys


def _strobe_install():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        parent = os.path.dirname(here)
        if parent not in sys.path:
            sys.path.append(parent)
        import strobe_torch
        strobe_torch.install_hook()
    except Exception as e:  # never stop the workload: say why it is not profiled
        sys.stderr.write("strobe_torch: the hook was not installed: %s\n" % e)


def _strobe_chain():
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sys.path:
        if os.path.abspath(d or ".") == here:
            continue
        path = os.path.join(d or ".", "sitecustomize.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_strobe_next_sitecustomize", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            return path
    return None


_strobe_install()
chained = _strobe_chain()
