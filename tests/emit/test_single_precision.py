"""--precision single: C with floats throughout, for an FPU without doubles.

The C compiles without a warning under -Wdouble-promotion (no double anywhere: types, literals,
functions), as C and C++; and every function, called through ctypes, is within the bounds the
documentation states of the double-precision numpy module.
"""
from __future__ import annotations

import ctypes
import inspect
import re
import subprocess

import numpy as np
import pytest
from click.testing import CliRunner
from support import ROBOTS, compile_strictly, import_file, input_arrays, random_tree_yaml

import symdyn
from symdyn.cli import main

STRICT = ["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", "-Wdouble-promotion",
          "-Wfloat-conversion"]
# relative to the output's largest entry (docs/reference/generated-code.md); forward dynamics
# solves with M, whose condition multiplies the rounding
BOUND, BOUND_SOLVED = 1e-5, 1e-4
VALUES = {"planar2": {"m1": 1.5, "m2": 0.7, "l1": 0.4, "l2": 0.3, "g": 9.81}}


def single_and_reference(robot_file, folder, values=None):
    """The single-precision C of a robot built as a shared library, and its numpy module."""
    robot = symdyn.load_robot(robot_file)
    dynamics = symdyn.newton_euler(robot)
    symdyn.generate(dynamics, "c", folder / "single", values=values, precision="single")
    symdyn.generate(dynamics, "python", folder, values=values)
    source = folder / "single" / f"{robot.name}.c"
    library = folder / "single" / "lib.so"
    compile_strictly(source, folder / "single" / "robot.o", "-Wdouble-promotion")
    subprocess.run(["gcc", *STRICT, "-shared", "-fPIC", "-o", str(library), str(source), "-lm"],
                   check=True, capture_output=True, text=True)
    return (robot, ctypes.CDLL(str(library)),
            import_file(folder / f"{robot.name}.py", f"single_ref_{robot.name}_{id(folder)}"))


def assert_within_bounds(robot, library, reference, states=30):
    rng = np.random.default_rng(0)
    arrays = input_arrays(rng, robot, states)
    for name, function in vars(reference).items():
        if not inspect.isfunction(function) or name.startswith("_") \
                or name == "standard_parameters":
            continue
        inputs = [arrays[a] for a in inspect.signature(function).parameters]
        expected = function(*inputs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        call = getattr(library, f"{robot.name}_{name}")
        bound = BOUND_SOLVED if "forward_dynamics" in name else BOUND
        scales = [max(1.0, float(np.abs(e).max())) for e in expected]   # over the states
        for k in range(states):
            ins = [np.ascontiguousarray(x[k], dtype=np.float32) for x in inputs]
            outs = [np.zeros(e[k].size, dtype=np.float32) for e in expected]
            call(*(array.ctypes.data_as(ctypes.c_void_p) for array in ins + outs))
            for out, want, scale in zip(outs, expected, scales):
                error = float(np.abs(out - want[k].ravel()).max()) / scale
                assert error <= bound, f"{name}: {error:.1e} > {bound:g}"


@pytest.mark.parametrize("name", sorted(p.stem for p in ROBOTS.glob("*.yaml")))
def test_the_shipped_robots_single_precision_c_is_float_and_within_its_bounds(tmp_path, name):
    values = VALUES.get(name)
    robot, library, reference = single_and_reference(ROBOTS / f"{name}.yaml", tmp_path, values)
    source = (tmp_path / "single" / f"{name}.c").read_text()
    header = (tmp_path / "single" / f"{name}.h").read_text()
    code = re.sub(r"/\*.*?\*/", "", source + header, flags=re.S)
    assert "double" not in code and "float" in code
    assert not re.search(r"\b\d+\.\d*(e[-+]?\d+)?(?![\deEf])", code.replace("HUGE_VALF", ""))
    subprocess.run(["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-Wdouble-promotion",
                    "-x", "c++", "-fsyntax-only", "-"], input=f'#include "{name}.h"\n',
                   text=True, check=True, cwd=tmp_path / "single")
    if name != "puma560_linear":     # its symbolic parameters: params given below
        assert_within_bounds(robot, library, reference)


def test_a_random_floating_tree_in_single_precision(tmp_path):
    rng = np.random.default_rng(8)
    robot_file = tmp_path / "tree.yaml"
    robot_file.write_text(random_tree_yaml(rng, dof=5, mimics=1, floating=True))
    assert_within_bounds(*single_and_reference(robot_file, tmp_path))


def test_single_precision_is_c_alone(tmp_path):
    result = CliRunner().invoke(main, ["generate", "planar2", "--precision", "single",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 2 and "--precision single goes with --lang c alone" \
        in result.output
    assert not list(tmp_path.iterdir())
