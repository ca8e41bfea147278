"""Joints placed as URDF places them (convention urdf: origin and axis), for robots no DH table
describes: every quantity against Pinocchio's unaligned joints on the same placements."""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from support import assert_close, pin_kinematics, pin_model

import symdyn
from symdyn.derive.quantities import TOOL_KINEMATICS
from symdyn.program import op_count, optimize_all

ROBOT = """\
name: gen
convention: urdf
base: {xyz: [0.1, 0, 0.2], rpy: [0.2, 0, 0.4]}
tool: {xyz: [0, 0, 0.1], rpy: [0.5, 0, 0]}
links:
  - {joint: revolute, origin: {xyz: [0, 0, 0.3]}, axis: [0, 0, -1], mass: 2,
     com: [0.1, 0.02, 0.05], inertia: [0.02, 0.03, 0.04, 0.001, 0, 0]}
  - {joint: prismatic, origin: {xyz: [0.1, 0, 0.2], rpy: [0.3, -0.2, 0.5]}, axis: [1, 1, 0],
     mass: 1.5, com: [0.2, 0, 0], inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
  - {joint: revolute, origin: {xyz: [0.3, 0.05, 0]}, axis: [0.3, -0.5, 0.8], mass: 1,
     com: [0.05, 0, 0.01], inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
"""

def test_a_robot_placed_as_in_urdf_matches_pinocchio(tmp_path):
    """Oblique, negative and non-unit axes, rotated origins, a placed base and tool."""
    path = tmp_path / "gen.yaml"
    path.write_text(ROBOT)
    robot = symdyn.load_robot(path)
    quantities = ["inverse_dynamics", "mass_matrix", "gravity_torques", "forward_dynamics",
                  *TOOL_KINEMATICS]
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=quantities)
    model = pin_model(robot.spec)
    data = model.createData()
    rng = np.random.default_rng(3)
    q, qd, qdd = (rng.uniform(-2, 2, (60, 3)) for _ in range(3))
    assert_close(module.inverse_dynamics(q, qd, qdd),
                 [pin.rnea(model, data, *state) for state in zip(q, qd, qdd)])
    assert_close(module.mass_matrix(q), [pin.crba(model, data, qi) for qi in q])
    assert_close(module.gravity_torques(q),
                 [pin.computeGeneralizedGravity(model, data, qi) for qi in q])
    assert_close(module.forward_dynamics(q, qd, qdd),
                 [pin.aba(model, data, *state) for state in zip(q, qd, qdd)])
    expected = pin_kinematics(robot, q, qd)
    for name in ("forward_kinematics", "link_poses", "jacobian", "body_jacobian"):
        assert_close(getattr(module, name)(q), expected[name])
    assert_close(module.jacobian_dot_qd(q, qd), expected["jacobian_dot_qd"])
    lagrange = symdyn.python_module(symdyn.lagrange(robot), quantities=["inverse_dynamics"])
    assert_close(lagrange.inverse_dynamics(q, qd, qdd), module.inverse_dynamics(q, qd, qdd))


GENERAL = """\
name: gen
convention: urdf
links:
  - {joint: revolute, origin: {xyz: [0, 0, 0.3]}, axis: [0, 1, 1], mass: 2}
  - {joint: prismatic, axis: [1, 0, 0], mass: 1}
"""


HIP = """\
name: hip
convention: urdf
links:
  - {name: hip, parent: base, joint: revolute, origin: {xyz: [0.3, 0.1, 0], rpy: [ROLL, 0, 0]},
     axis: [1, 0, 0], mass: 2, com: [0.05, -0.01, 0], inertia: [0.003, 0.005, 0.006, 0, 0, 0]}
  - {name: thigh, parent: hip, joint: revolute, origin: {xyz: [0.06, 0.08, 0]},
     axis: [0, 1, 0], mass: 1.5, com: [0, 0.02, -0.1], inertia: [0.01, 0.01, 0.002, 0, 0, 0]}
  - {name: shank, parent: thigh, joint: revolute, origin: {xyz: [0.1, 0, -0.28]},
     axis: [0, 1, 0], mass: 0.5, com: [0, 0, -0.15], inertia: [0.004, 0.004, 0.0005, 0, 0, 0]}
  - {name: toe, parent: base, joint: prismatic, origin: {xyz: [0, 0, 0.2], rpy: [0.4, 0, 0]},
     axis: [1, 0, 0], mass: 0.3, com: [0, 0, 0], inertia: [0.001, 0.001, 0.001, 0, 0, 0]}
"""


@pytest.mark.parametrize("roll", ["0", "5*pi/6", "0.7"])
def test_joint_frames_make_right_angles_cost_nothing(tmp_path, roll):
    """Whatever an origin's roll about the joint's own axis (ANYmal's hips turn by 150
    degrees), the joint frames are chosen so that each placement is DH's Rx(twist) Rz(q +
    offset): its constant entries 0 and +-1 where the axes are at right angles, and the mass
    matrix costs what it costs without the roll; the dynamics stay Pinocchio's."""
    path = tmp_path / "hip.yaml"
    path.write_text(HIP.replace("ROLL", roll))
    robot = symdyn.load_robot(path)
    for link in robot.links:      # each entry 0, +-1 or +-(the sine or cosine of q + offset)
        assert all(entry.as_coeff_Mul()[0] in (0, 1, -1) and len(entry.as_ordered_terms()) == 1
                   for entry in link.rotation), (link.index, link.rotation)
    dynamics = symdyn.newton_euler(robot)
    costs = op_count(optimize_all([dynamics.program("mass_matrix")])[0])
    plain = tmp_path / "plain.yaml"
    plain.write_text(HIP.replace("ROLL", "0"))
    assert costs == op_count(optimize_all([symdyn.newton_euler(
        symdyn.load_robot(plain)).program("mass_matrix")])[0])
    module = symdyn.python_module(dynamics, quantities=["inverse_dynamics"])
    model = pin_model(robot.spec)
    data = model.createData()
    rng = np.random.default_rng(4)
    q, qd, qdd = (rng.uniform(-2, 2, (20, 4)) for _ in range(3))
    assert_close(module.inverse_dynamics(q, qd, qdd),
                 [pin.rnea(model, data, *state) for state in zip(q, qd, qdd)])


@pytest.mark.parametrize("change, field, words", [
    (("axis: [0, 1, 1]", "axis: [0, 0, 0]"), "link 1.axis", "zero"),
    (("axis: [0, 1, 1]", "axis: [0, k, 1]"), "link 1.axis", "numeric"),
    ((", axis: [1, 0, 0]", ""), "link 2", "'axis'"),
    (("origin: {xyz: [0, 0, 0.3]}", "a: 0.3"), "link 1.a", "DH entry"),
    (("convention: urdf", "convention: modified"), "link 1", "'a'"),
    (("origin: {xyz: [0, 0, 0.3]}", "origin: {xyz: [0, 0]}"), "link 1.origin.xyz",
     "list of 3"),
])
def test_bad_urdf_form_is_located(tmp_path, change, field, words):
    path = tmp_path / "bad.yaml"
    path.write_text(GENERAL.replace(*change))
    with pytest.raises(symdyn.RobotFileError, match=words) as info:
        symdyn.load_robot(path)
    assert info.value.field == field


def test_dh_entries_and_origin_do_not_mix(tmp_path):
    path = tmp_path / "mixed.yaml"
    path.write_text("name: mixed\nconvention: modified\nlinks:\n"
                    "  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1,\n"
                    "     axis: [0, 0, 1]}\n")
    with pytest.raises(symdyn.RobotFileError, match="places a joint in convention urdf"):
        symdyn.load_robot(path)
