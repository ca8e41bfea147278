"""The Euler-Lagrange route against Newton-Euler, and `symdyn check`."""
from __future__ import annotations

import re

import numpy as np
import pytest
import sympy
from click.testing import CliRunner
from support import ROBOTS, assert_close, input_arrays, random_robot

import symdyn
from symdyn.api import python_module
from symdyn.check import SLOW_BY_LAGRANGE
from symdyn.cli import main
from symdyn.derive import QUANTITIES, lagrange
from symdyn.derive.lagrange import Lagrange


def test_planar_arm_routes_agree_symbolically():
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    ne, la = symdyn.newton_euler(robot), lagrange(robot)
    for attribute in ("M", "C", "g", "tau"):
        difference = sympy.simplify(getattr(ne, attribute) - getattr(la, attribute))
        assert difference == sympy.zeros(*difference.shape), attribute


def test_planar_arm_christoffel_symbols_are_the_textbook_ones():
    """c_121 = c_211 = c_221 = -m2 l1 l2 s2, c_112 = m2 l1 l2 s2 (Spong's c_ijk, seed 002)."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    dynamics = lagrange(robot)
    values = {}
    for a in dynamics.program("inverse_dynamics").assignments:
        values[a.lhs] = a.rhs.xreplace(values)
    symbols = {step.quantity: sympy.simplify(step.value[0].xreplace(values))
               for step in dynamics.record.steps if step.quantity.startswith("c")}
    m1, m2, l1, l2, g = robot.parameters
    h = m2 * l1 * l2 * sympy.sin(robot.q[1])
    assert {k: v for k, v in symbols.items() if v != 0} == {
        "c121": -h, "c211": -h, "c221": -h, "c112": h}


@pytest.mark.parametrize("seed", range(4))
def test_random_robots_routes_agree(tmp_path, seed):
    rng = np.random.default_rng(200 + seed)
    robot = random_robot(tmp_path, rng, name=f"lagrange{seed}", dof=int(rng.integers(2, 5)),
                         convention=("standard", "modified")[seed % 2], origin_form=seed == 3)
    dynamics = symdyn.newton_euler(robot)
    compared = [name for name in dynamics.available if name not in SLOW_BY_LAGRANGE]
    ne = python_module(dynamics, quantities=compared)
    la = python_module(lagrange(robot), quantities=compared)
    arrays = input_arrays(rng, robot)
    for name in compared:
        inputs = [arrays[i] for i in QUANTITIES[name].inputs]
        assert_close(getattr(la, name)(*inputs), getattr(ne, name)(*inputs), rtol=1e-10)


def test_generate_by_lagrange(tmp_path):
    result = CliRunner().invoke(main, ["generate", str(ROBOTS / "planar2.yaml"), "--method",
                                       "lagrange", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Christoffel symbols" in result.stderr


def test_check_passes_on_the_planar_arm():
    result = CliRunner().invoke(main, ["check", str(ROBOTS / "planar2.yaml"), "-q"])
    assert result.exit_code == 0, result.output
    for words in ("Newton-Euler = Lagrange", "Pinocchio crba", "computeCoriolisMatrix",
                  "skew-symmetric", "positive definite", "simplifies to 0"):
        assert words in result.stdout
    assert "FAILED" not in result.stdout


def test_check_fails_when_the_routes_disagree(monkeypatch):
    original = Lagrange.gravity_torques

    def wrong(self, b, gravity, steps=None):
        return [1.01 * t for t in original(self, b, gravity, steps)]

    monkeypatch.setattr(Lagrange, "gravity_torques", wrong)
    result = CliRunner().invoke(main, ["check", str(ROBOTS / "planar2.yaml"), "-q"])
    assert result.exit_code == 1
    assert "gravity_torques: Newton-Euler = Lagrange" in result.stdout
    assert "FAILED" in result.stdout


@pytest.mark.slow
def test_check_passes_on_the_puma():
    result = CliRunner().invoke(main, ["check", str(ROBOTS / "puma560.yaml"), "-q"])
    assert result.exit_code == 0, result.output
    assert "100 random states" in result.stdout
    rows = result.stdout.splitlines()[1:]
    assert all(re.search(r"<= 1e-(10|09)  ok", row) for row in rows if "Pinocchio" in row)
    assert any("<= 1e-06  ok" in row for row in rows if "skew" in row)


def test_check_of_random_parameters_that_are_not_a_body_says_so(monkeypatch):
    """Random values for a linear parametrization may not be physical: no traceback, a note."""
    def refuse(spec, values=None, **options):
        raise RuntimeError("The 3d inertia should be positive.")

    monkeypatch.setattr("symdyn.reference.pinocchio_model", refuse)
    result = CliRunner().invoke(main, ["check", str(ROBOTS / "planar2.yaml"), "-q"])
    assert result.exit_code == 0, result.output
    assert "skipped (The 3d inertia" in result.stdout and "Traceback" not in result.output
