"""MuJoCo Menagerie's constrained models as published: Agility's Cassie (four loops, two of
them through ball joints, its shin and heel springs), the Robotiq 2F-85 and the xArm gripper
(two four-bars each, a mimic driver, a tendon). Menagerie is not on PyPI, and its files are
not ours to ship: these tests run where SYMDYN_MENAGERIE names a checkout of it (its meshes
may be absent: the import gives them stand-ins where the bodies give their inertia), and skip
elsewhere, saying so. Every command works on each, check --mjcf passes every row, and each is
turned through 90 degrees against MuJoCo's KKT and Pinocchio's constraintDynamics."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import through_the_turns, turned

import symdyn
from symdyn.cli import main
from symdyn.robot.poses import closed_configuration

pytest.importorskip("mujoco")
MENAGERIE = Path(os.environ.get("SYMDYN_MENAGERIE", "/nonexistent"))
pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not MENAGERIE.is_dir(), reason="SYMDYN_MENAGERIE names no checkout of MuJoCo Menagerie")]
MODELS = {"cassie": "agility_cassie/cassie.xml", "robotiq_2f85": "robotiq_2f85/2f85.xml",
          "xarm7_hand": "ufactory_xarm7/hand.xml"}


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("name", list(MODELS))
def test_every_command_works_and_agrees_with_mujoco(tmp_path, name):
    source = MENAGERIE / MODELS[name]
    out = tmp_path / f"{name}.yaml"
    run("import", source, "-o", out, "-q")
    run("info", out, "-q")
    output = run("check", out, "--mjcf", source, "--states", "5", "-q")
    assert "FAILED" not in output and "constraint_residual = equality efc_pos" in output
    run("generate", out, "--lang", "python", "--lang", "c", "--out", tmp_path / "code", "-q")
    run("draw", out, "-o", tmp_path / f"{name}.svg", "-q")
    run("export-mjcf", out, "-o", tmp_path / "again.xml")
    run("import", tmp_path / "again.xml", "-o", tmp_path / "again.yaml", "-q")


@pytest.mark.parametrize("axis", [2, 0])
def test_cassie_yawing_and_rolling(tmp_path, axis):
    """Cassie's pelvis turned through 90 degrees about z and x: G's conditioning unchanged,
    qdd MuJoCo's KKT's, lambda Pinocchio's constraintDynamics'. Its foot loops' rows, chosen
    in the world's axes, lost rank at 90 degrees of yaw (sigma_min/sigma_max 1e-16)."""
    source = MENAGERIE / MODELS["cassie"]
    out = tmp_path / "cassie.yaml"
    run("import", source, "-o", out, "-q")
    robot = symdyn.load_robot(out)
    q0 = np.array(closed_configuration(robot))
    through_the_turns(robot, source, [turned(robot, q0, a, axis)
                                      for a in np.radians([0, 45, 89, 90])], pinocchio=True)


def test_the_xarm_gripper_holding_a_free_box_agrees_with_mujoco(tmp_path):
    """Menagerie's xArm gripper as published (its four-bars, its mimic driver), included in a
    scene with a box on a free joint between its fingers: imported with --free-bodies, the box
    a free_flyer joint of the tree beside the gripper's loops, every row of check --mjcf."""
    scene = tmp_path / "held.xml"
    scene.write_text(
        f'<mujoco model="held box">\n  <include file="{MENAGERIE / MODELS["xarm7_hand"]}"/>\n'
        '  <worldbody>\n    <body name="box" pos="0.02 0 0.16" quat="0.9 0.1 0.2 0.3">\n'
        '      <freejoint name="box_free"/>\n'
        '      <geom type="box" size="0.02 0.015 0.025" density="600"/>\n'
        '    </body>\n  </worldbody>\n</mujoco>\n')
    out = tmp_path / "held.yaml"
    run("import", scene, "--free-bodies", "-o", out, "-q")
    robot = symdyn.load_robot(out)
    assert [link.joint for link in robot.links].count("free_flyer") == 1 and robot.constraints
    output = run("check", out, "--mjcf", scene, "--states", "5", "-q")
    assert "FAILED" not in output and "mass_matrix (MuJoCo" in output
