"""The smallest robots, where programs degenerate: a quantity with no steps at all, or whose
output is one of its inputs unchanged (a one-joint robot's base parameter is one standard
parameter). Every quantity of 1-, 2- and 3-joint robots of each joint kind, in each convention,
is checked against Pinocchio and between the routes (``symdyn check``), compiled strictly, and
run in Python and through the compiled module alike."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import sympy
from support import assert_close, import_file, input_arrays, random_inertia

import symdyn
from symdyn.check import check
from symdyn.derive import QUANTITIES
from symdyn.emit.build import STRICT
from symdyn.program.passes import optimize_all
from symdyn.program.program import Argument, Program

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
KINDS = {"revolute": ["revolute"], "prismatic": ["prismatic"],
         "mixed": ["prismatic", "revolute", "revolute"]}
CONVENTIONS = ("standard", "modified", "urdf")


def _robot_file(n: int, kind: str, convention: str, seed: int) -> str:
    """A small robot; its first joint's axis is vertical, so that gravity moves nothing on a
    one-joint revolute robot (no gravity term at all) and everything on a prismatic one."""
    rng = np.random.default_rng(seed)
    lines = [f"name: small_{kind}_{n}_{convention}", f"convention: {convention}", "links:"]
    for i in range(n):
        joint = KINDS[kind][i % len(KINDS[kind])]
        inertia = ", ".join(repr(float(v)) for v in random_inertia(rng))
        com = ", ".join(repr(float(v)) for v in rng.uniform(-0.2, 0.2, 3))
        lines.append(f"  - joint: {joint}")
        if convention == "urdf":
            xyz = [0.0, 0.0, 0.0] if i == 0 else [float(v) for v in rng.uniform(-0.4, 0.4, 3)]
            rpy = [0.0, 0.0, 0.0] if i == 0 else [float(v) for v in rng.uniform(-3, 3, 3)]
            axis = "[0, 0, 1]" if i == 0 else "[1, 0, 0]"
            lines.append(f"    origin: {{xyz: {xyz}, rpy: {rpy}}}")
            lines.append(f"    axis: {axis}")
        else:
            alpha = "0" if i == 0 and convention == "modified" else "pi/2"
            lines.append(f"    a: {float(rng.uniform(0.1, 0.4))!r}")
            lines.append(f"    alpha: {alpha}")
            lines.append(f"    d: {float(rng.uniform(-0.2, 0.2))!r}")
            lines.append(f"    theta: {float(rng.uniform(-1, 1))!r}")
        lines.append(f"    mass: {float(rng.uniform(0.5, 3))!r}")
        lines.append(f"    com: [{com}]")
        lines.append(f"    inertia: [{inertia}]")
        if i == n - 1:
            lines.append("    gear_ratio: 50\n    motor_inertia: 1e-5\n    viscous_friction: 1e-4"
                         "\n    coulomb_friction: [0.01, -0.02]")
    return "\n".join(lines) + "\n"


CASES = [(n, kind, convention) for n in (1, 2, 3) for kind in KINDS for convention in CONVENTIONS
         if not (kind == "mixed" and n == 1)]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("n, kind, convention", CASES,
                         ids=[f"{n}-{kind}-{c}" for n, kind, c in CASES])
def test_every_quantity_of_a_small_robot_works_everywhere(tmp_path, n, kind, convention):
    path = tmp_path / "robot.yaml"
    path.write_text(_robot_file(n, kind, convention, seed=n))
    robot = symdyn.load_robot(path)
    failed = [row for row in check(robot, states=20) if not row.passed]
    assert not failed, failed
    dynamics = symdyn.newton_euler(robot)
    out = tmp_path / "out"
    symdyn.generate(dynamics, ["python", "c"], out)
    strict = subprocess.run(["gcc", *STRICT, "-c", str(out / f"{robot.name}.c"),
                             "-o", str(tmp_path / "robot.o")], capture_output=True, text=True)
    assert strict.returncode == 0, strict.stderr
    python = import_file(out / f"{robot.name}.py", f"small_{robot.name}")
    compiled = symdyn.compile(dynamics, cache=tmp_path / "cache")
    rng = np.random.default_rng(n)
    arrays = input_arrays(rng, robot, 5)
    arrays["pi"] = rng.uniform(0.5, 1.5, (5, len(python.STANDARD_PARAMETERS)))
    assert [name for name in QUANTITIES if hasattr(python, name)] == list(dynamics.available)
    for name in dynamics.available:
        args = [arrays[i] for i in QUANTITIES[name].inputs]
        expected = getattr(python, name)(*args)
        for got in (expected, getattr(compiled, name)(*args)):
            assert all(np.isfinite(e).all()
                       for e in (got if isinstance(got, tuple) else (got,)))
        assert_close(getattr(compiled, name)(*args), expected, rtol=1e-12)
    beta = python.base_parameters(arrays["pi"])                 # beta = B pi, by hand
    B = np.array([[float(c.diff(s)) for s in dynamics.base.standard]
                  for c in dynamics.base.combinations])
    assert_close(beta, arrays["pi"] @ B.T)


def test_programs_without_steps_are_never_merged():
    """The root of the one-joint failure: programs with no steps all hold the one empty tuple,
    and were optimized as one, so base_parameters took friction's input."""
    a, b = sympy.symbols("a b")
    first = Program("friction_torques", (Argument.vector("qd", (a,)),), (),
                    (Argument.vector("tau", (2 * a,)),))
    second = Program("base_parameters", (Argument.vector("pi", (b,)),), (),
                     (Argument.vector("beta", (b,)),))
    one, two = optimize_all([first, second])
    assert one.inputs == first.inputs and two.inputs == second.inputs
    assert two.outputs == second.outputs
