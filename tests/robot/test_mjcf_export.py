"""MJCF out: `symdyn export-mjcf` writes a model MuJoCo loads, whose dynamics are the file's.

MuJoCo's own M, mj_inverse and site kinematics of the exported model (reference.MujocoReference)
against the robot file's generated functions, for the shipped robots and random chains and
trees (prismatic joints, mimic joints, floating bases); the export imported again gives the
robot file's dynamics back.
"""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from support import ROBOTS, assert_close, random_robot_yaml, random_tree_yaml

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
    independent = [link.index for link in robot.links if link.mimic is None]
    order = [independent.index(int(joint.name.removeprefix("joint")))
             for joint in read_chain(path).joints if joint.mimic is None]
    shift, head = robot.base_velocities, robot.base_configuration
    v_order = list(range(shift)) + [shift + k for k in order]
    q_order = list(range(head)) + [head + k for k in order]
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
