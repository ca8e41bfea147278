"""The regressor: tau = Y pi, Y against Pinocchio's computeJointTorqueRegressor, and the two
routes against each other."""
from __future__ import annotations

import re

import numpy as np
import pinocchio as pin
import pytest
import sympy
from click.testing import CliRunner
from support import (
    FIXED_BASE,
    ROBOTS,
    assert_close,
    random_robot,
    random_robot_yaml,
    random_states,
)

import symdyn
from symdyn.cli import main
from symdyn.derive.regressor import standard_parameters

SHIPPED = FIXED_BASE


def _values(robot, rng):
    """Values for the free symbols: those of the linear PUMA a rigid body's, as identified."""
    values = {symbol: float(rng.uniform(0.5, 1.5)) for symbol in robot.parameters}
    names = {str(symbol): symbol for symbol in robot.parameters}
    for i in range(1, robot.dof + 1):
        if f"XX{i}" in names:
            m, c, A = rng.uniform(1, 3), rng.uniform(-0.1, 0.1, 3), rng.normal(0, 0.1, (3, 3))
            J = A @ A.T + 0.01 * np.eye(3) + m * (c @ c * np.eye(3) - np.outer(c, c))
            for name, value in zip("m mx my mz XX YY ZZ XY YZ XZ".split(),
                                   (m, *(m * c), J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2],
                                    J[0, 2])):
                values[names[f"{name}{i}"]] = float(value)
    return values


def _pi(robot, values):
    return np.array([float(sympy.sympify(v).subs(values)) for _, v in standard_parameters(robot)])


def _pinocchio_regressor(robot, values, tmp_path, q, qd, qdd):
    """Pinocchio's joint torque regressor on the robot's URDF export, whose links are symdyn's
    joint frames (the frames the standard parameters are taken in)."""
    urdf = tmp_path / "robot.urdf"
    settings = [arg for symbol, value in values.items() for arg in ("--set", f"{symbol}={value!r}")]
    result = CliRunner().invoke(main, ["export-urdf", robot.spec.path, *settings, "-o", str(urdf)])
    assert result.exit_code == 0, result.output
    model = pin.buildModelFromUrdf(str(urdf))
    model.gravity.linear = np.array([float(sympy.sympify(g).subs(values))
                                     for g in robot.spec.gravity])
    data = model.createData()
    widths = [model.joints[i].nq for i in range(1, model.njoints)]

    def configuration(x):
        return np.concatenate([[np.cos(v), np.sin(v)] if w == 2 else [v]
                               for v, w in zip(x, widths)])
    return np.array([pin.computeJointTorqueRegressor(model, data, configuration(x), v, a)
                     for x, v, a in zip(q, qd, qdd)])


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_robots_regressor_matches_pinocchio(tmp_path, path):
    robot = symdyn.load_robot(path)
    rng = np.random.default_rng(5)
    values = _values(robot, rng)
    module = symdyn.python_module(symdyn.newton_euler(robot), values=values,
                                  quantities=["regressor", "inverse_dynamics"])
    q, qd, qdd = random_states(rng, robot.dof)
    Y = module.regressor(q, qd, qdd)
    p = len(module.STANDARD_PARAMETERS)
    assert Y.shape == (100, robot.dof, p)
    assert_close(Y @ _pi(robot, values), module.inverse_dynamics(q, qd, qdd))
    assert_close(Y[..., :10 * robot.dof], _pinocchio_regressor(robot, values, tmp_path, q, qd, qdd))
    np.testing.assert_allclose(module.standard_parameters(), _pi(robot, values), rtol=1e-15)


def test_standard_parameters_need_numbers():
    """A robot with free symbols names its parameters; their values come with --set."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["regressor"])
    assert module.STANDARD_PARAMETERS[:3] == ("m1", "mx1", "my1")
    assert not hasattr(module, "standard_parameters")


@pytest.mark.parametrize("seed", range(4))
def test_random_robots_regressor_matches_pinocchio(tmp_path, seed):
    rng = np.random.default_rng(40 + seed)
    robot = random_robot(tmp_path, rng, dof=int(rng.integers(2, 6)), placed=True,
                         origin_form=bool(seed % 2))
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["regressor", "inverse_dynamics"])
    q, qd, qdd = random_states(rng, robot.dof, count=30)
    Y = module.regressor(q, qd, qdd)
    assert_close(Y @ module.standard_parameters(), module.inverse_dynamics(q, qd, qdd))
    assert_close(Y, _pinocchio_regressor(robot, {}, tmp_path, q, qd, qdd))


def test_actuator_columns_carry_rotor_inertia_and_friction():
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["regressor", "friction_torques", "mass_matrix"])
    names = module.STANDARD_PARAMETERS
    assert names[60:64] == ("Ia1", "fv1", "fcp1", "fcm1")
    rng = np.random.default_rng(2)
    q, qd, qdd = random_states(rng, 6, count=20)
    qd[0, 2] = 0                                   # at rest, neither Coulomb column
    Y = module.regressor(q, qd, qdd)[..., 60:]
    pi = module.standard_parameters()[60:]
    rotor = np.diagonal(module.mass_matrix(q), axis1=1, axis2=2) - np.diagonal(
        symdyn.python_module(symdyn.newton_euler(_without_actuators(robot)),
                             quantities=["mass_matrix"]).mass_matrix(q), axis1=1, axis2=2)
    assert_close(Y @ pi, rotor * qdd + module.friction_torques(qd))
    assert Y[0, 2, 4 * 2 + 2] == Y[0, 2, 4 * 2 + 3] == 0


def _without_actuators(robot):
    from dataclasses import replace
    return replace(robot, links=tuple(replace(link, armature=0, viscous=0, coulomb=(0, 0))
                                      for link in robot.links))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_newton_euler_and_lagrange_give_one_regressor(tmp_path, seed):
    """The regressor is derived from each route's inverse dynamics: they check each other."""
    rng = np.random.default_rng(70 + seed)
    robot = random_robot(tmp_path, rng, dof=3, placed=True)
    ne, la = (symdyn.python_module(route(robot), quantities=["regressor"])
              for route in (symdyn.newton_euler, symdyn.lagrange))
    q, qd, qdd = random_states(rng, 3, count=30)
    assert_close(ne.regressor(q, qd, qdd), la.regressor(q, qd, qdd))


def test_the_symbolic_regressor_of_the_planar_arm():
    """Craig's two-link arm: tau = Y pi, in closed form, with Y free of the inertial values."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    dynamics = symdyn.newton_euler(robot)
    Y = sympy.Matrix(2, 20, list(dynamics.program("regressor").expanded()))
    pi = sympy.Matrix([v for _, v in standard_parameters(robot)])
    assert sympy.simplify(Y * pi - dynamics.tau) == sympy.zeros(2, 1)
    m1, m2 = sympy.symbols("m1 m2")
    assert not (Y.free_symbols & {m1, m2})


# -- base parameters -----------------------------------------------------------------------------
def _rank(module, robot, rng, values=None):
    """The numeric rank of the regressor stacked over random states (Gautier's count)."""
    q, qd, qdd = random_states(rng, robot.dof, count=max(40, 3 * 84 // robot.dof))
    W = module.regressor(q, qd, qdd).reshape(-1, len(module.STANDARD_PARAMETERS))
    s = np.linalg.svd(W, compute_uv=False)
    return int(np.sum(s > 1e-9 * s[0]))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_base_parameters_of_the_shipped_robots(path):
    robot = symdyn.load_robot(path)
    rng = np.random.default_rng(8)
    values = _values(robot, rng)
    dynamics = symdyn.newton_euler(robot)
    module = symdyn.python_module(dynamics, values=values, quantities=[
        "regressor", "base_regressor", "base_parameters", "inverse_dynamics"])
    assert len(module.BASE_PARAMETERS) == _rank(module, robot, rng)
    q, qd, qdd = random_states(rng, robot.dof)
    beta = module.base_parameters(module.standard_parameters())
    assert_close(module.base_regressor(q, qd, qdd) @ beta, module.inverse_dynamics(q, qd, qdd))
    known = {"puma560_linear": 36, "panda": 43}        # SymPyBotics' numeric QR finds these
    if path.stem in known:
        assert len(module.BASE_PARAMETERS) == known[path.stem]


@pytest.mark.parametrize("seed", range(6))
def test_base_parameters_of_random_robots(tmp_path, seed):
    """Both conventions, prismatic joints, parallel axes (alpha 0), and a symbolic mass."""
    rng = np.random.default_rng(90 + seed)
    text = random_robot_yaml(rng, dof=int(rng.integers(2, 6)), placed=bool(seed % 2),
                             convention=("standard", "modified")[seed % 2])
    if seed >= 3:      # link 2's mass a free symbol: the grouping rules keep it symbolic
        text = re.sub(r"(links:(?:.|\n)*?- joint(?:.|\n)*?- joint(?:.|\n)*?mass: )[0-9.e-]+",
                      r"\1m2", text, count=1)
    path = tmp_path / "random.yaml"
    path.write_text(text)
    robot = symdyn.load_robot(path)
    values = {symbol: 1.3 for symbol in robot.parameters}
    module = symdyn.python_module(symdyn.newton_euler(robot), values=values, quantities=[
        "regressor", "base_regressor", "base_parameters", "inverse_dynamics"])
    assert len(module.BASE_PARAMETERS) == _rank(module, robot, rng)
    q, qd, qdd = random_states(rng, robot.dof, count=30)
    beta = module.base_parameters(module.standard_parameters())
    assert_close(module.base_regressor(q, qd, qdd) @ beta, module.inverse_dynamics(q, qd, qdd))


def test_grouping_rules_are_the_same_expressions_in_every_call(tmp_path):
    """The rules' floats summed in one order: a 12-joint chain of generic geometry once got
    other last digits in its base parameters in each run (the generated files changed)."""
    from symdyn.derive.base_parameters import _grouping_rules
    rng = np.random.default_rng(12)
    path = tmp_path / "random.yaml"
    path.write_text(random_robot_yaml(rng, dof=12, convention="modified"))
    robot = symdyn.load_robot(path)
    standard = tuple(sympy.Symbol(name) for name, _ in standard_parameters(robot))
    forms = {tuple(sympy.srepr(g) for g in _grouping_rules(robot, standard)) for _ in range(4)}
    assert len(forms) == 1


def test_the_planar_arm_base_parameters_in_closed_form():
    """Craig's two-link arm, lengths symbolic: the grouping rules give them exactly."""
    base = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "planar2.yaml")).base
    m2, mx1, zz1, l1 = sympy.symbols("m2 mx1 ZZ1 l1")
    formulas = dict(zip(base.names, base.combinations))
    assert formulas["mxR1"] == mx1 + l1 * m2
    assert formulas["ZZR1"] == zz1 + l1**2 * m2
    assert len(base.names) == 6 and "XX1" in base.absent


def test_the_base_parameters_command_prints_the_formulas():
    result = CliRunner().invoke(main, ["base-parameters", str(ROBOTS / "puma560_linear.yaml")])
    assert result.exit_code == 0, result.output
    assert "36 base parameters" in result.output
    assert "XXR2 = XX2 - YY2 - 0.18645124*m3" in result.output
    assert "rank of the stacked regressor: 36" in result.output
