"""The derivation's numeric evaluator: a program's value at numbers, one point or many."""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
import sympy
from support import ROBOTS, exact_values

import symdyn
from symdyn.derive.newton_euler import NewtonEuler
from symdyn.derive.quantities import build
from symdyn.program import Argument, Assignment, Program, evaluate
from symdyn.reference import pinocchio_model

x, y, a, b = sympy.symbols("x y a b")


def every_function() -> Program:
    """A program with each kind of node the derivation writes: sums, products, powers, roots,
    sin, cos, tan, sign, abs, and constants built of pi."""
    return Program("f", (Argument.vector("in", (x, y)),), (
        Assignment(a, sympy.sin(x + sympy.pi / 7) * sympy.cos(y) - 3 * x**2 / y),
        Assignment(b, sympy.sqrt(x**2 + 1) * sympy.sign(y) + abs(x) * sympy.tan(y / 3)),
    ), (Argument("out", (a, b, a * b + sympy.cos(sympy.pi / 5), sympy.Integer(2)), (2, 2)),))


def test_one_point_equals_sympy_in_30_digits():
    program = every_function()
    point = {x: 0.7, y: -1.3}
    value = evaluate(program, point)
    assert value.shape == (2, 2)
    np.testing.assert_allclose(value.ravel(), exact_values(program, point), rtol=1e-14)


def test_many_points_at_once_each_as_alone():
    program = every_function()
    rng = np.random.default_rng(3)
    xs, ys = rng.uniform(-2, 2, 5), rng.uniform(0.5, 2, 5)
    batch = evaluate(program, {x: xs, y: ys})
    assert batch.shape == (5, 2, 2)           # the constant entry broadcast to every point
    for k in range(5):
        np.testing.assert_allclose(batch[k].ravel(), exact_values(program, {x: xs[k], y: ys[k]}),
                                   rtol=1e-14)


def test_an_input_missing_is_an_error_not_a_guess():
    with pytest.raises(KeyError):
        evaluate(every_function(), {x: 1.0})


@pytest.mark.parametrize("name", ["puma560", "panda"])
def test_mass_matrix_equals_pinocchio(name):
    robot = symdyn.load_robot(ROBOTS / f"{name}.yaml")
    program = build("mass_matrix", robot, NewtonEuler(robot))
    model = pinocchio_model(robot.spec)
    data = model.createData()
    rng = np.random.default_rng(0)
    qs = rng.uniform(-3, 3, (20, robot.dof))
    M = evaluate(program, dict(zip(robot.q, qs.T)))
    for q, ours in zip(qs, M):
        np.testing.assert_allclose(ours, pin.crba(model, data, q), atol=1e-10)
