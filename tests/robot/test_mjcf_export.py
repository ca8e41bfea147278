"""MJCF out: `symdyn export-mjcf` writes a model MuJoCo loads, whose dynamics are the file's.

MuJoCo's own M, mj_inverse and site kinematics of the exported model (reference.MujocoReference)
against the robot file's generated functions, for the shipped robots and random chains and
trees (prismatic joints, mimic joints, floating bases); the export imported again gives the
robot file's dynamics back.
"""
from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest
from click.testing import CliRunner
from support import (
    ROBOTS,
    assert_close,
    closed_states,
    in_rows_axes,
    random_robot_yaml,
    random_tree_yaml,
)

import symdyn
from symdyn.check import configurations
from symdyn.cli import main
from symdyn.reference import MujocoReference
from symdyn.robot.mjcf import read_chain

mujoco = pytest.importorskip("mujoco")


def exported(tmp_path, robot_file, *options) -> tuple:
    """The robot and the MJCF file export-mjcf writes of it, which MuJoCo loads."""
    out = tmp_path / "exported.xml"
    result = CliRunner().invoke(main, ["export-mjcf", str(robot_file), "-o", str(out), "-q",
                                       *options])
    assert result.exit_code == 0, result.output
    mujoco.MjModel.from_xml_path(str(out))
    values = dict(option.split("=") for option in options[1::2])
    robot = symdyn.load_robot(robot_file)
    return robot, {s: float(values[str(s)]) for s in robot.parameters}, out


def assert_mujoco_gives_the_file(robot, values, path, states=30, seed=0):
    """M, tau without friction, the tool's pose and Jacobian and the frames', of the robot file
    against MuJoCo's of the export (its joints joint<i>, in MuJoCo's order: depth first)."""
    quantities = ["mass_matrix", "inverse_dynamics", "friction_torques", "forward_kinematics",
                  "jacobian"] + ["frame_poses", "frame_jacobians"] * bool(robot.frames)
    module = symdyn.python_module(symdyn.newton_euler(robot), values=values,
                                  quantities=quantities)
    reference = MujocoReference(path)
    # each joint's entries of q and v (a spherical joint's four and three) in MuJoCo's order
    order = [int(joint.name.removeprefix("joint")) for joint in read_chain(path).joints
             if joint.mimic is None]
    shift, head = robot.base_velocities, robot.base_configuration
    v_order = list(range(shift)) + [k for i in order for k in robot.velocity_columns[i]]
    q_order = list(range(head)) + [robot.q.index(s) for i in order
                                   for s in robot.links[i - 1].configuration]
    rng = np.random.default_rng(seed)
    q = configurations(robot, rng, states)
    v, a = rng.uniform(-2, 2, (2, states, robot.dof))
    assert_close(module.mass_matrix(q)[:, v_order][:, :, v_order],
                 np.array([reference.mass_matrix(x[q_order]) for x in q]))
    assert_close((module.inverse_dynamics(q, v, a) - module.friction_torques(v))[:, v_order],
                 np.array([reference.inverse_dynamics(x[q_order], y[v_order], z[v_order])
                           for x, y, z in zip(q, v, a)]))
    assert_close(module.forward_kinematics(q),
                 np.array([reference.site_pose(x[q_order], "tool") for x in q]))
    assert_close(module.jacobian(q)[:, :, v_order],
                 np.array([reference.site_jacobian(x[q_order], "tool") for x in q]))
    for k, name in enumerate(getattr(module, "FRAMES", ())):
        assert_close(module.frame_poses(q)[:, k],
                     np.array([reference.site_pose(x[q_order], name) for x in q]))


@pytest.mark.parametrize("name, options", [
    ("panda", ()), ("ur5", ()), ("kinova_jaco2", ()), ("space_arm", ()),
    ("planar2", ("--set", "m1=1.5", "--set", "m2=0.7", "--set", "l1=0.4", "--set", "l2=0.3",
                 "--set", "g=9.81")),
])
def test_shipped_robots_exported_have_their_dynamics_in_mujoco(tmp_path, name, options):
    robot, values, path = exported(tmp_path, ROBOTS / f"{name}.yaml", *options)
    assert_mujoco_gives_the_file(robot, values, path)


@pytest.mark.parametrize("name", ["ball_tree", "delta"])
def test_spherical_joints_exported_are_ball_joints_with_the_files_dynamics(tmp_path, name):
    """A ball joint, its qpos (w, x, y, z); the Delta's keyframe closes its loops in MuJoCo
    and its three arms have motors."""
    robot, values, path = exported(
        tmp_path, Path(__file__).parent.parent / "derive" / "mechanisms" / f"{name}.yaml")
    text = path.read_text()
    assert text.count('type="ball"') == len(robot.several)
    assert_mujoco_gives_the_file(robot, values, path)
    if robot.constraints:
        model = mujoco.MjModel.from_xml_path(str(path))
        data = mujoco.MjData(model)
        mujoco.mj_resetDataKeyframe(model, data, 0)
        mujoco.mj_forward(model, data)
        assert np.abs(data.efc_pos[:data.ne]).max() < 1e-9
        assert model.nu == len(robot.actuated) == 3


def test_published_inertias_no_body_has_are_balanced_and_named(tmp_path):
    _, _, path = exported(tmp_path, ROBOTS / "puma560.yaml")
    text = path.read_text()
    assert 'balanceinertia="true"' in text
    assert "MuJoCo balances (its dynamics differ from the robot file's there): link1, link3" \
        in text


@pytest.mark.parametrize("seed", range(4))
def test_random_chains_exported_have_their_dynamics_in_mujoco(tmp_path, seed):
    """Both DH conventions, prismatic joints, a placed base and tool."""
    rng = np.random.default_rng(400 + seed)
    robot_file = tmp_path / "random.yaml"
    robot_file.write_text(random_robot_yaml(rng, dof=int(rng.integers(2, 7)), placed=True))
    robot, values, path = exported(tmp_path, robot_file)
    assert_mujoco_gives_the_file(robot, values, path, seed=seed)


@pytest.mark.parametrize("convention, mimics, floating", [
    ("modified", 0, False), ("urdf", 2, False), ("standard", 1, True), ("urdf", 1, True)])
def test_random_trees_exported_have_their_dynamics_in_mujoco(tmp_path, convention, mimics,
                                                             floating):
    rng = np.random.default_rng(len(convention) + 10 * mimics + floating)
    robot_file = tmp_path / "tree.yaml"
    robot_file.write_text(random_tree_yaml(rng, dof=6, convention=convention, mimics=mimics,
                                           floating=floating))
    robot, values, path = exported(tmp_path, robot_file)
    assert_mujoco_gives_the_file(robot, values, path)


def test_the_export_imported_again_is_the_robot(tmp_path):
    robot, _, path = exported(tmp_path, ROBOTS / "panda.yaml")
    again = tmp_path / "again.yaml"
    result = CliRunner().invoke(main, ["import", str(path), "-o", str(again), "-q"])
    assert result.exit_code == 0, result.output
    modules = [symdyn.python_module(symdyn.newton_euler(r), quantities=[
        "inverse_dynamics", "mass_matrix"]) for r in (robot, symdyn.load_robot(again))]
    rng = np.random.default_rng(5)
    q, v, a = rng.uniform(-2, 2, (3, 20, 7))
    for name, inputs in (("mass_matrix", (q,)), ("inverse_dynamics", (q, v, a))):
        assert_close(getattr(modules[1], name)(*inputs), getattr(modules[0], name)(*inputs))


def test_free_symbols_need_values(tmp_path):
    result = CliRunner().invoke(main, ["export-mjcf", str(ROBOTS / "planar2.yaml")])
    assert result.exit_code == 2
    assert "give m1, m2, l1, l2, g a value (--set)" in result.output


ARM = """name: arm4
convention: urdf
gravity: [0, -9.81, 0]
links:
  - {name: l1, joint: revolute, axis: [0, 0, 1], mass: 1, com: [0.15, 0, 0],
     inertia: [0.001, 0.008, 0.008, 0, 0, 0]}
  - {name: l2, parent: l1, joint: revolute, origin: {xyz: [0.3, 0, 0]}, axis: [0, 0, 1],
     mass: 1, com: [0.15, 0, 0], inertia: [0.001, 0.008, 0.008, 0, 0, 0]}
  - {name: l3, parent: l2, joint: revolute, origin: {xyz: [0.3, 0, 0]}, axis: [0, 0, 1],
     mass: 1, com: [0.15, 0, 0], inertia: [0.001, 0.008, 0.008, 0, 0, 0]}
  - {name: l4, parent: l3, joint: revolute, origin: {xyz: [0.3, 0, 0]}, axis: [0, 0, 1],
     mass: 1, com: [0.15, 0, 0], inertia: [0.001, 0.008, 0.008, 0, 0, 0]}
frames:
  - {name: tip, parent: l4, xyz: [0.3, 0, 0]}
constraints:
  - {name: foot, point: [tip], axes: [x, y]}
  - {name: sum, coupling: {l1: 1, l2: 1}, value: 0.3}
closed_at: {l1: 0.2, l2: 0.1, l3: 0.5, l4: -0.4}
tendons:
  - {name: pulley, joints: {l3: 0.5, l4: -1}}
"""


@pytest.mark.parametrize("name", ["fourbar", "fivebar", "arm4"])
def test_constraints_and_tendons_exported_hold_in_mujoco(tmp_path, name):
    """A loop closed between two frames (a connect of their sites), a contact with the world
    (a site in the world at its anchor) and a coupling (a fixed tendon held at its value):
    MuJoCo's equality rows are zero at the exported keyframe closed_at and on states where
    the constraints hold, and equal G on the rows the file keeps (turned into a loop's root's
    axes); the tendon is MuJoCo's."""
    if name == "arm4":
        path = tmp_path / "arm4.yaml"
        path.write_text(ARM)
    else:
        path = Path(__file__).parent.parent / "derive" / "mechanisms" / f"{name}.yaml"
    robot = symdyn.load_robot(path)
    result = CliRunner().invoke(main, ["export-mjcf", str(path), "-o", str(tmp_path / "m.xml")])
    assert result.exit_code == 0 and "warning" not in result.output, result.output
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "m.xml"))
    model.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    data = mujoco.MjData(model)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "constraint_jacobian", *(["tendon_lengths"] * bool(robot.tendons))])
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    assert model.neq == len(robot.constraints) and data.nefc == data.ne
    assert np.abs(data.efc_pos[:data.ne]).max() < 1e-12
    sizes = [3 if c.kind == "point" else 1 for c in robot.constraints]
    for q in closed_states(robot, 5):
        data.qpos[:] = q
        mujoco.mj_forward(model, data)
        assert np.abs(data.efc_pos[:data.ne]).max() < 1e-9
        J = data.efc_J.reshape(data.nefc, model.nv)
        rows = {c.name: J[start:start + size] for c, start, size in zip(
            robot.constraints, np.cumsum([0, *sizes]), sizes)}
        assert_close(module.constraint_jacobian(q), in_rows_axes(robot, q, rows), rtol=1e-12)
        if robot.tendons:       # the file's tendon first, then the coupling's
            assert_close(module.tendon_lengths(q), data.ten_length[:1], rtol=1e-12)


def test_what_an_export_cannot_hold_is_said(tmp_path):
    """A URDF has no loops or tendons: a warning names them, and so does a comment in the
    file (a name with "--" in it kept out of the comment's end); an MJCF's connect holds
    every row, which a loop kept on x alone does not: the warning says its motion differs."""
    text = ARM.replace("name: foot,", "name: foot--x-,")
    path = tmp_path / "arm4.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["export-urdf", str(path), "-o", str(tmp_path / "a.urdf")])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 2
    assert "constraints left out (URDF has no closed loops" in warnings[0]
    assert "'foot--x-', 'sum'" in warnings[0] and "tendons left out" in warnings[1]
    urdf = (tmp_path / "a.urdf").read_text()
    assert "foot- -x-" in urdf and ElementTree.fromstring(urdf.split("\n", 1)[1]) is not None
    mechanism = Path(__file__).parent.parent / "derive" / "mechanisms" / "fourbar.yaml"
    path.write_text(mechanism.read_text().replace("axes: [x, y]", "axes: [x]"))
    result = CliRunner().invoke(main, ["export-mjcf", str(path), "-o", str(tmp_path / "a.xml")])
    assert result.exit_code == 0, result.output
    assert "constraints 'pin' keep some rows (axes:) that the others do not repeat" \
        in result.stderr
    mujoco.MjModel.from_xml_path(str(tmp_path / "a.xml"))
