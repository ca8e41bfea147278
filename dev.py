#!/usr/bin/env python3
"""Set up and run symdyn's everyday jobs with nothing but Python 3.11+ and pip.

    python3 dev.py demo         set up .venv, generate PUMA 560's dynamics (into build/demo/)
                                and call them
    python3 dev.py test         set up .venv (with Pinocchio) and run the whole test suite
                                (--fast: without the tests marked slow)
    python3 dev.py regenerate   rewrite generated/ for every robot in robots/, the docs' pictures
                                and the reference pages' generated halves
    python3 dev.py bench        run the benchmarks
    python3 dev.py docs         build the documentation site into site/ (strictly)

Only the standard library is used here, so it runs before anything is installed.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / ".symdyn-installed"


def run(*command, **kwargs):
    print("+", " ".join(str(c) for c in command), flush=True)
    return subprocess.run([str(c) for c in command], cwd=ROOT, **kwargs).returncode


def setup():
    """Create .venv and install symdyn with its test extras (versions from constraints.txt),
    unless pyproject.toml and constraints.txt are unchanged since the last time."""
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()
                            + (ROOT / "constraints.txt").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not PYTHON.exists():
        print(f"+ creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    code = run(PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "-c", "constraints.txt", "-e", ".[test,bench,docs]")
    if code:
        sys.exit(code)
    STAMP.write_text(wanted)


DEMO_OUT = "build/demo"     # ignored by git: the demo never touches generated/
DEMO = f"""
import sys, numpy as np, symdyn
sys.path.insert(0, "{DEMO_OUT}")
import puma560 as p
q, qd, qdd = np.zeros(6), np.zeros(6), np.zeros(6)
print("tau at rest, from the Python module:", p.inverse_dynamics(q, qd, qdd).round(4))
c = symdyn.compile("robots/puma560.yaml")
print("the same from the compiled C:       ", c.inverse_dynamics(q, qd, qdd).round(4))
print("M(q) diagonal:", np.diag(c.mass_matrix(q)).round(4))
"""


def demo():
    symdyn = BIN / "symdyn"
    for command in ([symdyn, "info", "robots/puma560.yaml"],
                    [symdyn, "generate", "robots/puma560.yaml", "--lang", "python", "--lang", "c",
                     "--out", DEMO_OUT],
                    [PYTHON, "-c", DEMO]):
        code = run(*command)
        if code:
            return code
    print(f"\nsymdyn is installed in {VENV.name}/: run {BIN.relative_to(ROOT)}/symdyn --help, or "
          f"`source {BIN.relative_to(ROOT)}/activate` first and then symdyn --help")
    return 0


def test(*pytest_args):
    """The whole suite, slow tests included, on as many workers as the machine has cores;
    ``--fast`` leaves out the tests marked slow (the docs build, the tutorials, the real robots),
    for the edit-and-test loop: the README's command, and CI, run everything."""
    workers = str(min(os.cpu_count() or 1, 4))
    # the workers take the cores; OpenBLAS's own threads on top of them only spin (symdyn sets
    # this when it is imported first, and the tests import numpy before it)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if "--fast" in pytest_args:
        pytest_args = ("-m", "not slow", *(a for a in pytest_args if a != "--fast"))
    return run(PYTHON, "-m", "pytest", "-n", workers, *pytest_args)


def regenerate():
    for robot in sorted((ROOT / "robots").glob("*.yaml")):
        code = run(BIN / "symdyn", "generate", robot.relative_to(ROOT), "--lang", "python",
                   "--lang", "c", "--lang", "casadi", "--lang", "jax", "--out", "generated",
                   "--quiet")
        if code:
            return code
    return (run(PYTHON, "docs/pictures.py")       # the documentation's pictures of robots
            or run(PYTHON, "docs/reference_pages.py"))  # the reference pages' generated halves


def bench(*args):
    return run(PYTHON, "benchmarks/run.py", *args)


def docs(*args):
    """The documentation site, into site/: strict, so a broken link or include fails."""
    return run(BIN / "mkdocs", "build", "--strict", "--site-dir", "site", *args)


def main(argv):
    jobs = {"demo": demo, "test": test, "regenerate": regenerate, "bench": bench, "docs": docs}
    if not argv or argv[0] not in jobs:
        print(__doc__)
        return 2
    setup()
    return jobs[argv[0]](*argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
