"""Regrouped inertial parameters: numeric axial parts move to the parent, no value changes."""
from __future__ import annotations

import numpy as np
import sympy
from support import ROBOTS, exact_values

import symdyn
from symdyn.derive.newton_euler import NewtonEuler
from symdyn.derive.quantities import build
from symdyn.robot.regroup import regrouped

QUANTITIES = ("inverse_dynamics", "mass_matrix", "gravity_torques")


def evaluate(robot, quantity, state):
    """The quantity's program, step by step, at {symbol: number}."""
    return exact_values(build(quantity, robot, NewtonEuler(robot)), state)


def test_numeric_axial_parts_leave_every_revolute_link():
    robot = regrouped(symdyn.load_robot(ROBOTS / "puma560.yaml"))
    for link in robot.links:     # ... into the parent, or from link 1 into the fixed base
        inertia = link.inertia
        assert (inertia.mass, inertia.first_moment[2], inertia.inertia_origin[1, 1]) == (0, 0, 0)


def test_symbolic_parts_stay_where_they_are():
    robot = symdyn.load_robot(ROBOTS / "puma560_linear.yaml")
    assert regrouped(robot).links == robot.links


MIXED = """\
name: mixed
convention: standard
gravity: [0.3, -9.6, 1.2]
parameters: {m3: null}
links:
  - {joint: revolute, a: 0.1, alpha: pi/2, d: 0.3, theta: 0, mass: 2.0, com: [0.01, 0.1, -0.05],
     inertia: [0.02, 0.03, 0.025, 0.001, -0.002, 0.003]}
  - {joint: prismatic, a: -0.2, alpha: -pi/2, theta: 0.4, d: 0, mass: 1.5, com: [0.1, 0, 0.2],
     inertia: [0.01, 0.02, 0.015, 0.001, 0.002, -0.001]}
  - {joint: revolute, a: 0.3, alpha: 0.7, d: -0.1, theta: 0.2, mass: m3, com: [0.05, 0.02, 0.1],
     inertia: [0.03, 0.01, 0.02, 0.002, 0.001, 0.0]}
  - {joint: revolute, a: 0.05, alpha: pi/2, d: 0.2, theta: 0, mass: 0.8, com: [0.0, 0.04, 0.08],
     inertia: [0.004, 0.005, 0.003, 0.0001, 0.0002, 0.0003]}
"""


def test_values_are_unchanged_with_prismatic_and_symbolic_links(tmp_path):
    """Link 4 moves into link 3, whose part (mass m3) stays; link 2 slides; link 1's part goes."""
    (tmp_path / "mixed.yaml").write_text(MIXED)
    robot = symdyn.load_robot(tmp_path / "mixed.yaml")
    moved = regrouped(robot)
    m3 = sympy.Symbol("m3")
    assert [link.inertia.mass for link in moved.links] == [0, sympy.Rational(3, 2),
                                                           m3 + sympy.Rational(4, 5), 0]
    symbols = [*robot.q, *robot.qd, *robot.qdd, m3]
    state = dict(zip(symbols, np.random.default_rng(11).uniform(-2, 2, len(symbols))))
    for quantity in QUANTITIES:
        np.testing.assert_allclose(evaluate(moved, quantity, state),
                                   evaluate(robot, quantity, state), rtol=1e-12, atol=1e-12)


def test_regrouping_removes_terms_from_the_generated_code():
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    dynamics = symdyn.newton_euler(robot)
    for quantity in QUANTITIES:
        original = symdyn.op_count(symdyn.optimize(build(quantity, robot, NewtonEuler(robot))))
        ours = symdyn.op_count(symdyn.optimize(dynamics.program(quantity)))
        assert ours.mul < original.mul and ours.add < original.add


def test_printouts_show_the_links_as_the_file_gives_them():
    """The record is derived from the file's parameters: F_6 = m_6 dv_C6 with m_6 = 0.09."""
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    record = symdyn.newton_euler(robot).record
    values = dict(zip([*robot.q, *robot.qd, *robot.qdd], np.linspace(-1.5, 1.7, 18)))
    for a in record.program.assignments:
        values[a.lhs] = a.rhs.xreplace(values).evalf(30)

    def at_state(quantity):
        return sympy.Matrix(record.value(quantity, 6)).xreplace(values)

    inertia = robot.links[5].inertia
    assert inertia.mass == sympy.Rational(9, 100)
    c = inertia.first_moment / inertia.mass
    omega, domega, dv = at_state("omega"), at_state("domega"), at_state("dv")
    expected = inertia.mass * (domega.cross(c) + omega.cross(omega.cross(c)) + dv)
    assert max(abs(float(v)) for v in at_state("F") - expected) < 1e-12


def test_a_chain_is_a_tree_of_one_branch():
    """The topology the recursions read: Featherstone's parents array, with children, the
    support of a link and its subtree."""
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    assert robot.parents == (0, 1, 2, 3, 4, 5)
    assert robot.children == ((1,), (2,), (3,), (4,), (5,), (6,), ())
    assert robot.support(4) == (1, 2, 3, 4) and robot.support(1) == (1,)
    assert robot.subtree(4) == (4, 5, 6) and robot.subtree(6) == (6,)
