"""The code keeps one style: ruff's checks as pyproject.toml configures them, over every Python
file of the repository (the package, the tests, the benchmarks, dev.py and the docs' code)."""
from __future__ import annotations

import subprocess
import sys

from support import ROOT


def test_ruff_finds_nothing():
    found = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "symdyn",
                            "tests", "benchmarks", "docs", "dev.py"],
                           cwd=ROOT, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
