"""Constraints in every pose: mechanisms turned through 90 degrees, a floating base yawing and
rolling, a gripper on a wrist that turns. A loop's rows are in its root link's axes, so the
rows a planar loop keeps (two of a connect's three) stay independent however the loop's plane
is turned; in world axes chosen at import they lost rank when the plane's normal came into
their span (issue 64: sigma_min/sigma_max 1e-16, lambda 1e17).

At each pose the constrained forward dynamics are compared with an exact KKT system built from
MuJoCo's own M, bias forces and constraint Jacobian (every row of each connect, solved by least
squares), and lambda with Pinocchio's constraintDynamics (RigidConstraintModel, LOCAL) or, for
a model with mimic joints, which Pinocchio's constraint models do not take, the KKT of
Pinocchio's M, h and frame Jacobians.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import assert_close, conditioning, mujoco_kkt, through_the_turns, turned

import symdyn
from symdyn.cli import main
from symdyn.robot.poses import closed_configuration

pytest.importorskip("mujoco")

MJCF = Path(__file__).parents[1] / "robot" / "mjcf"
TURNS = np.radians([0, 30, 60, 89, 90])


def _variant(tmp_path, name: str, edits=()) -> tuple[symdyn.Robot, Path]:
    """tests/robot/mjcf/<name>.xml with ``edits`` (text replaced), imported as a user does:
    (the robot, the MJCF file)."""
    text = (MJCF / f"{name}.xml").read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    source = tmp_path / f"{name}.xml"
    source.write_text(text)
    out = tmp_path / f"{name}.yaml"
    result = CliRunner().invoke(main, ["import", str(source), "-o", str(out), "-q"])
    assert result.exit_code == 0, result.output
    return symdyn.load_robot(out), source


def test_a_gripper_of_planar_four_bars_on_a_turning_wrist(tmp_path):
    """The 2F-85's kind of gripper (tests/robot/mjcf/gripper.xml: two four-bars, a mimic
    driver) on a wrist that turns its fingers' plane through 90 degrees."""
    robot, source = _variant(tmp_path, "gripper", [(
        '<body name="base" pos="0 0 0.1">',
        '<body name="base" pos="0 0 0.1">\n      <joint name="wrist" axis="0 0 1"/>')])
    assert all(len(c.rows) == 2 for c in robot.constraints if c.kind == "point")
    q0 = np.array(closed_configuration(robot))
    wrist = list(robot.q).index(robot.links[robot.spec.joint_names().index("wrist")].q)
    through_the_turns(robot, source, [turned(robot, q0, a, joint=wrist) for a in TURNS],
                       pinocchio=False)


@pytest.mark.parametrize("axis", [2, 0])
def test_a_gripper_on_a_floating_base_yawing_and_rolling(tmp_path, axis):
    """The gripper on a free joint, turned about the world's z (yaw) and x (roll)."""
    robot, source = _variant(tmp_path, "gripper", [(
        '<body name="base" pos="0 0 0.1">',
        '<body name="base" pos="0 0 0.1">\n      <freejoint name="root"/>')])
    q0 = np.array(closed_configuration(robot))
    through_the_turns(robot, source, [turned(robot, q0, a, axis) for a in TURNS],
                       pinocchio=False)


@pytest.mark.parametrize("axis", [2, 0, 1])
def test_a_four_bar_on_a_floating_base_equals_pinocchios_constraint_dynamics(tmp_path, axis):
    """A four-bar whose frame floats, turned through 90 degrees about each of the world's
    axes: qdd and lambda equal Pinocchio's constraintDynamics with the loop's
    RigidConstraintModel in LOCAL (its redundant third row found 0 by proximal steps)."""
    robot, source = _variant(tmp_path, "fourbar", [
        ("<worldbody>", '<worldbody>\n  <body name="frame" pos="0 0 1">\n'
                        '    <freejoint name="root"/>\n'
                        '    <geom type="box" size="0.2 0.05 0.05" mass="2"/>'),
        ("</worldbody>", "  </body>\n  </worldbody>")])
    assert robot.constraints[0].rows == (0, 1)
    q0 = np.array(closed_configuration(robot))
    through_the_turns(robot, source, [turned(robot, q0, a, axis) for a in TURNS],
                       pinocchio=True)


@pytest.mark.parametrize("axis", [2, 0])
def test_a_cassie_kind_biped_yawing_and_rolling(tmp_path, axis):
    """tests/robot/mjcf/cassie_biped.xml (four loops through ball joints) turned about z and
    x: every row kept, each pose against MuJoCo's KKT and Pinocchio's constraintDynamics."""
    robot, source = _variant(tmp_path, "cassie_biped")
    q0 = np.array(closed_configuration(robot))
    through_the_turns(robot, source, [turned(robot, q0, a, axis) for a in TURNS],
                       pinocchio=True)


def test_a_loops_jacobian_has_no_column_of_a_joint_that_moves_both_its_frames(tmp_path):
    """A loop's rows are of its frames' relative motion: a floating base's columns, and those
    of joints that carry the whole loop, are exactly 0, not 0 to round-off where the loop
    closes, so that the Delassus matrix is the loop's alone."""
    robot, _ = _variant(tmp_path, "gripper", [(
        '<body name="base" pos="0 0 0.1">',
        '<body name="base" pos="0 0 0.1">\n      <freejoint name="root"/>')])
    program = symdyn.newton_euler(robot).program("constraint_jacobian")
    (G,) = program.outputs
    rows = np.array(G.values, dtype=object).reshape(-1, robot.dof)
    assert all(entry == 0 for entry in rows[:, :6].ravel())


def test_a_parallelogram_four_bar_at_and_near_its_flattened_configuration(tmp_path):
    """A parallelogram four-bar (crank and rocker 0.2, coupler and ground 0.3) driven towards
    the pose where all four links lie on one line: there the pin's rows lose rank (sigma_min
    of G goes as the angle left, and is 0 at the pose). Near it, qdd equals MuJoCo's KKT to
    1e-9 and lambda Pinocchio's constraintDynamics, growing as the load's share that the
    vanishing row resists; at it, the Delassus matrix's zero pivot is dropped, not inverted
    (round-off times 1e17 gave qdd 30 % off): qdd equals the KKT's, lambda is bounded, and
    G^T lambda, the one force the singular system fixes, equals Pinocchio's."""
    robot, source = _variant(tmp_path, "fourbar", [
        ('<body name="coupler" pos="0 0.1 0">', '<body name="coupler" pos="0 0.2 0">'),
        ('fromto="0 0 0 0 0.1 0"', 'fromto="0 0 0 0 0.2 0"'),
        ('fromto="0 0 0 0.3 0.1 0"', 'fromto="0 0 0 0.3 0 0"'),
        ('anchor="0.3 0.1 0"', 'anchor="0.3 0 0"')])
    from symdyn.reference import ConstraintReference, MujocoReference

    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "constraint_jacobian", "constrained_forward_dynamics"])
    mujoco, reference = MujocoReference(source), ConstraintReference(robot)
    models = reference.constraint_models()
    rng, zero = np.random.default_rng(65), np.zeros(robot.dof)
    for left in [1e-1, 1e-2, 1e-3, 1e-4, 0.0]:
        angle = np.pi / 2 - left             # crank, coupler and rocker: the parallelogram's
        q = np.array([angle, -angle, angle])
        G = module.constraint_jacobian(q)
        assert conditioning(G) == pytest.approx(0.74 * left, rel=0.01, abs=1e-15)
        tau = rng.uniform(-1, 1, robot.dof)
        qdd, lam = module.constrained_forward_dynamics(q, zero, tau, np.zeros(2))
        assert_close(qdd, mujoco_kkt(mujoco, q, tau), rtol=1e-9)
        expected_qdd, expected = reference.constraint_dynamics(q, zero, tau, *models,
                                                                iterations=200)
        assert_close(qdd, expected_qdd, rtol=1e-9)
        if left:
            assert_close(lam, expected, rtol=1e-9)
            assert np.abs(lam).max() < 10 / left
        else:
            assert np.abs(lam).max() < 10
            assert_close(G.T @ lam, G.T @ expected, rtol=1e-9)
