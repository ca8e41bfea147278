"""Newton-Euler tau against the textbook closed form and against Pinocchio's rnea."""
from __future__ import annotations

import numpy as np
import pytest
import sympy
from support import (
    ROBOTS,
    assert_close,
    generated_python,
    inertia_matrix,
    pin_model,
    pin_rnea,
    random_inertia,
    random_robot,
    random_robot_yaml,
    random_states,
)

import symdyn

TAU = ["inverse_dynamics"]


def test_planar_arm_equals_craig_closed_form():
    """Craig's Example 6.7 (seed 001, 3.2.3): the two joint torques, symbolically."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    tau = symdyn.newton_euler(robot).tau
    m1, m2, l1, l2, g = robot.parameters
    (q1, q2), (d1, d2), (dd1, dd2) = robot.q, robot.qd, robot.qdd
    c1, c2, s2, c12 = sympy.cos(q1), sympy.cos(q2), sympy.sin(q2), sympy.cos(q1 + q2)
    tau1 = (m2 * l2**2 * (dd1 + dd2) + m2 * l1 * l2 * c2 * (2 * dd1 + dd2)
            + (m1 + m2) * l1**2 * dd1 - m2 * l1 * l2 * s2 * d2**2
            - 2 * m2 * l1 * l2 * s2 * d1 * d2 + m2 * l2 * g * c12 + (m1 + m2) * l1 * g * c1)
    tau2 = (m2 * l1 * l2 * c2 * dd1 + m2 * l1 * l2 * s2 * d1**2 + m2 * l2 * g * c12
            + m2 * l2**2 * (dd1 + dd2))
    assert sympy.simplify(tau[0] - tau1) == 0
    assert sympy.simplify(tau[1] - tau2) == 0
    # and a wrong closed form is caught: the check is not vacuous
    assert sympy.simplify(tau[1] - tau2 - m2 * l2 * g * c12) != 0


def test_puma560_matches_pinocchio(tmp_path):
    rng = np.random.default_rng(560)
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    module = generated_python(robot, tmp_path, TAU)
    q, qd, qdd = random_states(rng, 6, 200)
    expected = pin_rnea(pin_model(robot.spec), q, qd, qdd, robot.spec)
    assert_close(module.inverse_dynamics(q, qd, qdd), expected)


def test_puma560_gravity_load_is_the_published_one(tmp_path):
    """Robotics Toolbox's gravload at qz: [0, 37.4837, 0.2489, 0, 0, 0] N m."""
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    module = generated_python(robot, tmp_path, TAU)
    tau = module.inverse_dynamics(np.zeros(6), np.zeros(6), np.zeros(6))
    np.testing.assert_allclose(tau, [0, 37.4837, 0.2489, 0, 0, 0], atol=5e-5)


def test_planar_arm_with_parameters_matches_pinocchio(tmp_path):
    rng = np.random.default_rng(2)
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    module = generated_python(robot, tmp_path, TAU)
    assert module.PARAMETERS == ("m1", "m2", "l1", "l2", "g")
    for _ in range(5):
        params = rng.uniform(0.5, 3.0, 5)
        model = pin_model(robot.spec, dict(zip(robot.parameters, params)))
        q, qd, qdd = random_states(rng, 2, 50)
        assert_close(module.inverse_dynamics(q, qd, qdd, params), pin_rnea(model, q, qd, qdd))


@pytest.mark.parametrize("seed", range(12))
def test_random_robots_match_pinocchio(tmp_path, seed):
    """Both conventions, revolute and prismatic joints, both ways of giving inertia."""
    rng = np.random.default_rng(seed)
    robot = random_robot(tmp_path, rng, name=f"random{seed}",
                         convention=("standard", "modified")[seed % 2], origin_form=seed % 3 == 2)
    module = generated_python(robot, tmp_path, TAU)
    q, qd, qdd = random_states(rng, robot.dof, 100)
    expected = pin_rnea(pin_model(robot.spec), q, qd, qdd, robot.spec)
    assert_close(module.inverse_dynamics(q, qd, qdd), expected)


def test_random_robots_cover_prismatic_joints():
    """The parametrized robots above include prismatic joints in both conventions."""
    seen = set()
    for seed in range(12):
        text = random_robot_yaml(np.random.default_rng(seed),
                                 convention=("standard", "modified")[seed % 2])
        if "prismatic" in text:
            seen.add(("standard", "modified")[seed % 2])
    assert seen == {"standard", "modified"}


def test_derivation_names_intermediates_instead_of_growing_expressions():
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    program = symdyn.newton_euler(robot).program()
    assert max(sympy.count_ops(a.rhs) for a in program.assignments) < 30
    assert all(not a.rhs.is_Number for a in program.assignments)   # zeros and ones skipped


def test_linear_parametrization_matches_pinocchio(tmp_path):
    """The 60-parameter PUMA (mass, first moments, inertia about the origin as symbols)."""
    rng = np.random.default_rng(60)
    robot = symdyn.load_robot(ROBOTS / "puma560_linear.yaml")
    module = generated_python(robot, tmp_path, TAU)
    for _ in range(3):
        values = {}
        for i in range(1, 7):
            mass, com = rng.uniform(0.5, 5), rng.uniform(-0.2, 0.2, 3)
            J = inertia_matrix(random_inertia(rng)) + mass * (com @ com * np.eye(3)
                                                             - np.outer(com, com))
            values.update({f"m{i}": mass, f"mx{i}": mass * com[0], f"my{i}": mass * com[1],
                           f"mz{i}": mass * com[2], f"XX{i}": J[0, 0], f"YY{i}": J[1, 1],
                           f"ZZ{i}": J[2, 2], f"XY{i}": J[0, 1], f"YZ{i}": J[1, 2],
                           f"XZ{i}": J[0, 2]})
        params = np.array([values[str(p)] for p in robot.parameters])
        model = pin_model(robot.spec, {p: values[str(p)] for p in robot.parameters})
        q, qd, qdd = random_states(rng, 6, 100)
        assert_close(module.inverse_dynamics(q, qd, qdd, params), pin_rnea(model, q, qd, qdd))
