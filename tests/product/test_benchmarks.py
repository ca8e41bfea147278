"""The benchmark script is not run by the suite (its numbers need a quiet machine and an hour),
but it must keep importing what symdyn offers and ask for every row a robot has: a rename in
the package would otherwise break it unseen until the next timing run."""
from __future__ import annotations

import importlib.util

from support import ROBOTS, ROOT

import symdyn


def _script():
    spec = importlib.util.spec_from_file_location("benchmark_run", ROOT / "benchmarks" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_script_imports_and_times_every_row_of_a_floating_base():
    run = _script()
    floating = symdyn.load_robot(ROBOTS / "space_arm.yaml")
    assert run.robot_work(floating).keys() == run.WORK.keys()
    for quantities in (run.quantities_of(entry[0]) for entry in run.WORK.values()):
        assert set(quantities) <= set(symdyn.newton_euler(floating).available)
