"""Kinematics in the generated code: tool pose, link poses, Jacobians and dJ/dt qd, with the robot
placed anywhere, against Pinocchio on a model built independently with the same base and tool."""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from support import FIXED_BASE, ROBOTS, assert_close, pin_kinematics, pin_model, random_robot

import symdyn
from symdyn.derive.quantities import TOOL_KINEMATICS

ROBOT_FILES = FIXED_BASE          # a floating base's: tests/derive/test_floating_base.py

def _robots(tmp_path_factory):
    yield from (symdyn.load_robot(path) for path in ROBOT_FILES
                if path.stem != "puma560_linear")          # its 60 symbols: no numeric model
    rng = np.random.default_rng(11)
    folder = tmp_path_factory.mktemp("kinematics")
    for k, convention in enumerate(["standard", "modified"] * 3):
        yield random_robot(folder, rng, name=f"placed{k}", convention=convention, placed=True)


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    rng = np.random.default_rng(5)
    found = []
    for robot in _robots(tmp_path_factory):
        module = symdyn.python_module(symdyn.newton_euler(robot), quantities=TOOL_KINEMATICS)
        q, qd = rng.uniform(-3, 3, (120, robot.dof)), rng.uniform(-2, 2, (120, robot.dof))
        params = [np.ones(len(robot.parameters))] if robot.parameters else []
        found.append((robot, module, q, qd, params, pin_kinematics(robot, q, qd)))
    return found


def test_every_kinematic_quantity_matches_pinocchio(cases):
    for robot, module, q, qd, params, expected in cases:
        assert_close(module.forward_kinematics(q, *params), expected["forward_kinematics"])
        assert_close(module.link_poses(q, *params), expected["link_poses"])
        assert_close(module.jacobian(q, *params), expected["jacobian"])
        assert_close(module.body_jacobian(q, *params), expected["body_jacobian"])
        assert_close(module.jacobian_dot_qd(q, qd, *params), expected["jacobian_dot_qd"])


def test_jacobian_gives_the_tool_velocity_and_its_derivative_a_finite_difference(cases):
    for robot, module, q, qd, params, expected in cases:
        J = module.jacobian(q, *params)
        assert_close(np.einsum("nij,nj->ni", J, qd), expected["velocity"])
        h = 1e-6
        dJ = (module.jacobian(q + h * qd, *params) - module.jacobian(q - h * qd, *params)) / (2 * h)
        assert_close(module.jacobian_dot_qd(q, qd, *params), np.einsum("nij,nj->ni", dJ, qd),
                     rtol=1e-6)


def test_a_tilted_base_turns_gravity_as_pinocchio_does(tmp_path):
    rng = np.random.default_rng(2)
    robot = random_robot(tmp_path, rng, dof=5, placed=True)
    assert robot.spec.base is not None
    dynamics = symdyn.newton_euler(robot)
    module = symdyn.python_module(dynamics, quantities=["gravity_torques", "inverse_dynamics"])
    model = pin_model(robot.spec)
    data = model.createData()
    q, qd, qdd = (rng.uniform(-3, 3, (50, robot.dof)) for _ in range(3))
    assert_close(module.gravity_torques(q),
                 [pin.computeGeneralizedGravity(model, data, qi) for qi in q])
    assert_close(module.inverse_dynamics(q, qd, qdd),
                 [pin.rnea(model, data, *state) for state in zip(q, qd, qdd)])
    # and the same robot unplaced is another robot: the base matters
    unplaced = symdyn.python_module(symdyn.newton_euler(
        symdyn.Robot.from_spec(robot.spec.__class__(**{**robot.spec.__dict__, "base": None}))),
        quantities=["gravity_torques"])
    assert np.abs(unplaced.gravity_torques(q) - module.gravity_torques(q)).max() > 1e-3


def test_kinematics_are_selectable_and_named_in_the_code(tmp_path):
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    symdyn.generate(symdyn.newton_euler(robot), "c", tmp_path, quantities=["jacobian"])
    text = (tmp_path / "puma560.c").read_text()
    assert "void puma560_jacobian(const double q[6], double J[36])" in text
    assert "inverse_dynamics" not in text
    header = (tmp_path / "puma560.h").read_text()
    assert "double T_links[96]" not in header
