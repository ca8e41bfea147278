"""MJCF in: `symdyn import` of MuJoCo's files against MuJoCo's own dynamics of the same file.

MuJoCo's compiler reads each file for both sides (symdyn takes the numbers it compiles), but the
dynamics are MuJoCo's own: mj_inverse and its mass matrix, through reference.MujocoReference,
which maps symdyn's coordinates to MuJoCo's (mimic joints, the free joint's world-axes linear
velocity) independently of the importer.
"""
from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path
from xml.etree.ElementTree import tostring

import numpy as np
import pytest
from click.testing import CliRunner
from defusedxml.ElementTree import parse
from support import FLOATING, MIMIC_TREES, TREES, assert_close

import symdyn
from symdyn.check import configurations
from symdyn.cli import main
from symdyn.reference import MujocoReference
from symdyn.robot import import_robot
from symdyn.robot.mjcf import read_chain as mjcf_chain
from symdyn.robot.urdf import read_chain as urdf_chain

mujoco = pytest.importorskip("mujoco")

HERE = Path(__file__).parent / "mjcf"
# (TIAGo's URDFs hold an inertia with a negative eigenvalue, which MuJoCo does not load.)
WHOLE = [r for r in TREES + MIMIC_TREES + FLOATING if not r.startswith("tiago_description")]


def example_robot(relative: str) -> Path:
    return Path(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots")) / relative


def without_meshes(urdf: Path) -> str:
    """The URDF's text without its links' visual and collision elements, whose meshes are not
    installed (MuJoCo would load them)."""
    root = parse(str(urdf)).getroot()
    for link in root.iter("link"):
        for tag in ("visual", "collision"):
            for element in link.findall(tag):
                link.remove(element)
    return tostring(root, encoding="unicode")


def mujocos_mjcf(urdf: Path, out: Path, free: bool = False, lenient: bool = False) -> Path:
    """The MJCF MuJoCo writes of a URDF (without_meshes), the root link on a free joint with
    ``free``; ``lenient``: with MuJoCo's repairs of inertias no body has and its bounds on
    massless moving links (both sides then read MuJoCo's numbers)."""
    spec = mujoco.MjSpec.from_string(without_meshes(urdf))
    if free:
        spec.worldbody.first_body().add_freejoint()
    if lenient:
        spec.compiler.balanceinertia = True
        spec.compiler.boundmass = spec.compiler.boundinertia = 1e-9
    spec.compile()
    text = spec.to_xml()
    if lenient:     # to_xml writes the balanced inertias in 6 digits, but not the flag
        text = text.replace('<compiler angle="radian"',
                            '<compiler angle="radian" balanceinertia="true"', 1)
    out.write_text(text)
    return out


def imported(tmp_path, path: Path, *options):
    """The robot symdyn imports of ``path`` (through the command, as a user runs it)."""
    out = tmp_path / f"{path.stem}.yaml"
    result = CliRunner().invoke(main, ["import", str(path), "-o", str(out), "-q", *options])
    assert result.exit_code == 0, result.output
    return symdyn.load_robot(out)


def assert_matches_mujoco(robot, path: Path, states=100, seed=0, names=None, **options):
    """M, tau (but friction) and the bodies' and sites' poses and Jacobians of the robot file
    against MuJoCo's model; ``names``: the robot file's coordinates' joints, where their order
    is not MuJoCo's (a URDF's import orders them as Pinocchio does)."""
    quantities = ["mass_matrix", "inverse_dynamics", "friction_torques"]
    if robot.frames:
        quantities += ["frame_poses", "frame_jacobians"]
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=quantities)
    reference = MujocoReference(path, **options)
    rng = np.random.default_rng(seed)
    q = configurations(robot, rng, states)
    v, a = rng.uniform(-2, 2, (2, states, robot.dof))
    if names is not None:       # MuJoCo's coordinates in the robot file's, on a fixed base
        order = [names.index(j.name) for j in mjcf_chain(path, **options).joints
                 if j.mimic is None]
        assert_close(module.mass_matrix(q)[:, order][:, :, order],
                     np.array([reference.mass_matrix(x[order]) for x in q]))
        assert_close((module.inverse_dynamics(q, v, a) - module.friction_torques(v))[:, order],
                     np.array([reference.inverse_dynamics(x[order], y[order], z[order])
                               for x, y, z in zip(q, v, a)]))
        return 0
    assert_close(module.mass_matrix(q), np.array([reference.mass_matrix(x) for x in q]))
    assert_close(module.inverse_dynamics(q, v, a) - module.friction_torques(v),
                 np.array([reference.inverse_dynamics(*state) for state in zip(q, v, a)]))
    frames = getattr(module, "FRAMES", ())
    sites = [(k, name) for k, name in enumerate(frames) if reference.frame(name)]
    for k, name in sites:
        assert_close(module.frame_poses(q)[:, k],
                     np.array([reference.frame_pose(x, name) for x in q]))
        assert_close(module.frame_jacobians(q)[:, k],
                     np.array([reference.frame_jacobian(x, name) for x in q]))
    return len(sites)


def test_an_arm_as_users_write_mjcf_matches_mujoco(tmp_path):
    """Degrees, an Euler sequence, defaults classes and childclass, inertias from geoms, an
    include, two joints in one body, hinges off the body's origin with reference angles."""
    robot = imported(tmp_path, HERE / "arm.xml")
    assert robot.dof == 5 and robot.spec.convention == "modified"
    assert_matches_mujoco(robot, HERE / "arm.xml")
    # the site at the end is the tool: the chain's, as a URDF's tip link is
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["forward_kinematics",
                                                                          "jacobian"])
    reference = MujocoReference(HERE / "arm.xml")
    for q in configurations(robot, np.random.default_rng(1), 20):
        assert_close(module.forward_kinematics(q), reference.site_pose(q, "tool"))
        assert_close(module.jacobian(q), reference.site_jacobian(q, "tool"))


def test_a_floating_tree_with_a_mimic_joint_matches_mujoco(tmp_path):
    """A free joint, two legs, two joints in a hip, a joint equality as a mimic joint, sites as
    named frames; MuJoCo's order of the joints."""
    robot = imported(tmp_path, HERE / "walker.xml")
    assert robot.floating and len(robot.coordinates) == 6 and len(robot.links) == 7
    text = (tmp_path / "walker.yaml").read_text()
    assert 'mimic: "finger_a"' in text and "multiplier: 0.9" in text and "effort: 100" in text
    assert 'joint_name: "left_hip"' in text
    assert [joint.name for joint in mjcf_chain(HERE / "walker.xml").joints] == [
        "left_hip", "left_knee", "right_hip", "right_hip_roll", "right_knee", "finger_a",
        "finger_b"]
    # every body and site by its name: the imu and the feet, and the bodies
    assert assert_matches_mujoco(robot, HERE / "walker.xml") == len(robot.frames) > 3


@pytest.mark.parametrize("name, relative, free", [
    ("ur5", "ur_description/urdf/ur5_robot.urdf", False),
    ("panda", "panda_description/urdf/panda.urdf", False),        # a mimic finger
    ("baxter", "baxter_description/urdf/baxter.urdf", False),     # a tree, mimic grippers
    ("solo12", "solo_description/robots/solo12.urdf", True),      # a floating base
])
def test_mujocos_mjcf_of_example_robots_matches_mujoco_and_the_urdf(tmp_path, name, relative,
                                                                    free):
    """The MJCF MuJoCo writes of each URDF imports to MuJoCo's dynamics of it (1e-10), and to
    those of symdyn's import of the URDF itself within the 6 digits MuJoCo writes; and
    symdyn's import of the URDF equals MuJoCo's own reading of the URDF (1e-10): the same
    robot, but for the digits MuJoCo's writer keeps."""
    urdf = example_robot(relative)
    path = mujocos_mjcf(urdf, tmp_path / f"{name}.xml", free)
    robot = imported(tmp_path, path)
    assert_matches_mujoco(robot, path, states=30)
    as_given = tmp_path / f"{name}.urdf"        # MuJoCo reads URDF too, its root fixed
    as_given.write_text(without_meshes(urdf))
    (tmp_path / "fixed").mkdir()
    fixed = imported(tmp_path / "fixed", urdf)
    assert_matches_mujoco(fixed, as_given, states=30, names=[
        j.name for j in urdf_chain(urdf).joints if j.mimic is None])
    root = ["--root", "free_flyer"] if free else []
    (tmp_path / "urdf").mkdir()
    by_urdf = imported(tmp_path / "urdf", urdf, *root)
    # the same joints, in the orders MuJoCo and Pinocchio give them
    mine = [j.name for j in mjcf_chain(path).joints if j.mimic is None]
    theirs = [j.name for j in urdf_chain(urdf, root="free_flyer" if free else None).joints
              if j.mimic is None]
    assert sorted(mine) == sorted(theirs)
    order = [theirs.index(j) for j in mine]
    shift = 7 if free else 0
    rng = np.random.default_rng(2)
    modules = [symdyn.python_module(symdyn.newton_euler(r), quantities=["mass_matrix"])
               for r in (robot, by_urdf)]
    for q in configurations(robot, rng, 10):
        other = q.copy()
        other[[shift + k for k in order]] = q[shift:]
        columns = list(range(shift - bool(free))) + [shift - bool(free) + k for k in order]
        M, M_urdf = modules[0].mass_matrix(q), modules[1].mass_matrix(other)
        assert_close(M, M_urdf[np.ix_(columns, columns)], rtol=2e-5)


@pytest.mark.slow
@pytest.mark.parametrize("relative", WHOLE, ids=[
    f"{Path(r).parts[0].removesuffix('_description')}-{Path(r).stem}" for r in WHOLE])
def test_mujocos_mjcf_of_every_tree_and_floating_robot_matches_mujoco(tmp_path, relative):
    """example-robot-data's trees and legged, humanoid and flying robots, as MuJoCo writes
    them: imported whole (a free joint added on the floating ones), against MuJoCo."""
    free = relative in FLOATING
    path = mujocos_mjcf(example_robot(relative), tmp_path / "robot.xml", free, lenient=True)
    robot = imported(tmp_path, path)
    assert robot.floating == free
    assert_matches_mujoco(robot, path, states=10)


def test_several_joints_in_one_body_act_one_after_the_other(tmp_path):
    path = tmp_path / "gimbal.xml"
    path.write_text("""<mujoco><worldbody><body pos="0 0 1">
      <joint name="a" axis="0 0 1" pos="0.1 0 0"/><joint name="b" axis="0 1 0" pos="0 0.2 0"/>
      <joint name="c" type="slide" axis="1 1 0"/>
      <geom type="box" size="0.1 0.2 0.3" pos="0.3 0 0"/></body></worldbody></mujoco>""")
    robot = imported(tmp_path, path)
    assert robot.dof == 3 and robot.links[-1].inertia.mass != 0
    assert_matches_mujoco(robot, path)


def test_a_fixed_root_holds_the_free_body_where_the_file_puts_it(tmp_path):
    robot = imported(tmp_path, HERE / "walker.xml", "--root", "fixed")
    assert not robot.floating
    assert_matches_mujoco(robot, HERE / "walker.xml", states=20, root="fixed")


def test_ball_joints_are_spherical_joints_that_match_mujoco(tmp_path):
    """A tree with a ball joint after a hinge, and one with a slide in its body: MuJoCo's
    qpos (w, x, y, z) is the robot file's (x, y, z, w), its qvel the same angular velocity;
    M, tau and the frames' poses and Jacobians equal MuJoCo's. A ball's damping is left out,
    and said."""
    out = tmp_path / "balls.yaml"
    result = CliRunner().invoke(main, ["import", str(HERE / "balls.xml"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "ball joints' armature, damping, friction loss, range and springs left out" in (
        result.output) and "'elbow' damping" in result.output
    robot = symdyn.load_robot(out)
    assert [link.joint for link in robot.links] == ["revolute", "spherical", "revolute",
                                                    "spherical", "prismatic"]
    assert (robot.nq, robot.dof) == (11, 9)
    assert_matches_mujoco(robot, HERE / "balls.xml", states=30)


@pytest.mark.parametrize("body, words, line", [
    ('<freejoint/><geom size="0.1"/></body><body pos="1 0 0"><joint name="k"/>',
     "--root free_flyer floats the world's one body, but", None),
], ids=["two robots"])
def test_what_symdyn_does_not_take_is_refused_in_one_line(tmp_path, body, words, line):
    path = tmp_path / "bad.xml"
    path.write_text('<mujoco>\n<worldbody>\n<body>' + body
                    + '<geom size="0.1"/></body>\n</worldbody>\n</mujoco>\n')
    out = tmp_path / "bad.yaml"
    result = CliRunner().invoke(main, ["import", str(path), "-o", str(out), "--root",
                                       "free_flyer"])
    assert result.exit_code == 2 and not out.exists()
    message = result.output.strip()
    assert "\n" not in message and words in message, message
    if line is not None:
        assert f"bad.xml:{line}:" in message


@pytest.mark.parametrize("extra, words, line", [
    ('<equality><joint name="square" joint1="b" joint2="a" polycoef="0 1 0.5 0 0"/>'
     '</equality>', "equality 'square' holds joint 'b' to a polynomial", 5),
], ids=["nonlinear coupling"])
def test_equalities_symdyn_cannot_hold_are_refused(tmp_path, extra, words, line):
    path = tmp_path / "bad.xml"
    path.write_text('<mujoco>\n<worldbody>\n<body name="A"><joint name="a"/><geom size="0.1"/>'
                    '<body name="B"><joint name="b"/><geom size="0.1"/></body></body>\n'
                    f'</worldbody>\n{extra}\n</mujoco>\n')
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 2
    message = result.output.strip()
    assert "\n" not in message and words in message and f"bad.xml:{line}:" in message, message


def test_what_mujoco_cannot_compile_is_reported_with_its_line(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text('<mujoco>\n<worldbody>\n<body>\n<geom type="bogus" size="1"/>\n'
                    '</body></worldbody></mujoco>\n')
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: {path}:4: MuJoCo cannot compile it")
    assert result.output.count("\n") == 1


def test_without_mujoco_the_import_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mujoco", None)
    with pytest.raises(symdyn.errors.RobotFileError, match=r"symdyn\[mjcf\]"):
        import_robot(HERE / "arm.xml")


def test_check_compares_with_mujoco_and_fails_on_a_changed_file(tmp_path):
    imported(tmp_path, HERE / "walker.xml")
    path = tmp_path / "walker.yaml"
    result = CliRunner().invoke(main, ["check", str(path), "--mjcf", str(HERE / "walker.xml"),
                                       "--states", "20", "-q"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "(MuJoCo, walker.xml)" in line]
    assert len(rows) == 6 and all(line.endswith("ok") for line in rows)
    # a heavier thigh than MuJoCo's: the dynamics rows fail, the sites' kinematics do not
    text = path.read_text()
    path.write_text(text.replace("mass: 1.24407069082156", "mass: 1.3", 1))
    result = CliRunner().invoke(main, ["check", str(path), "--mjcf", str(HERE / "walker.xml"),
                                       "--states", "20", "-q"])
    assert result.exit_code == 1
    failed = [line.split("(MuJoCo")[0].strip() for line in result.output.splitlines()
              if "(MuJoCo, walker.xml)" in line and line.endswith("FAILED")]
    assert failed == ["mass_matrix", "gravity_torques", "nonlinear_effects",
                      "inverse_dynamics - friction_torques"]


@pytest.mark.parametrize("element", ['<include file="{target}"/>',
                                     '<asset><mesh name="m" file="{target}"/></asset>'])
@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_a_file_named_by_the_mjcf_that_is_no_regular_file_is_refused(tmp_path, element,
                                                                      target):
    """A FIFO would block MuJoCo's reader, a device be read to no end: refused before MuJoCo
    reads any, in one line."""
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
    path = tmp_path / "bad.xml"
    path.write_text("<mujoco>\n" + element.format(target=target) + '\n<worldbody><body>'
                    '<joint/><geom size="0.1"/></body></worldbody></mujoco>\n')
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 2
    assert "which is not a regular file" in result.output and result.output.count("\n") == 1


def test_free_bodies_import_as_free_flyer_joints_and_match_mujoco(tmp_path):
    """--free-bodies keeps a scene's free bodies (a box, a drone and its rotor) as free_flyer
    joints of a tree on the fixed world: their q is MuJoCo's qpos (the quaternion's w last),
    and M, g, h, tau, the bodies' and sites' poses and Jacobians are MuJoCo's (check --mjcf,
    which maps their linear velocities, in the world's axes in MuJoCo, as a floating base's).
    Without it, the scene's two robots are refused in one line that names the option."""
    source = HERE / "free_bodies.xml"
    out = tmp_path / "scene.yaml"
    result = CliRunner().invoke(main, ["import", str(source), "--free-bodies", "-o", str(out)])
    assert result.exit_code == 0, result.output
    robot = symdyn.load_robot(out)
    assert [link.joint for link in robot.links] == ["revolute", "revolute", "free_flyer",
                                                    "free_flyer", "revolute"]
    assert not robot.floating and (robot.nq, robot.dof) == (17, 15)
    checked = CliRunner().invoke(main, ["check", str(out), "--mjcf", str(source), "--states",
                                        "20", "-q"])
    assert checked.exit_code == 0 and "FAILED" not in checked.output, checked.output
    for row in ("mass_matrix (MuJoCo", "inverse_dynamics - friction_torques (MuJoCo",
                "frame_jacobians at bodies and sites (MuJoCo"):
        assert row in checked.output
    alone = CliRunner().invoke(main, ["import", str(source), "-o", str(tmp_path / "arm.yaml")])
    assert alone.exit_code == 2 and len(alone.output.strip().splitlines()) == 1
    assert "the model holds two robots" in alone.output and "--free-bodies" in alone.output


def test_free_bodies_with_a_floating_root_is_refused_in_one_line(tmp_path):
    result = CliRunner().invoke(main, ["import", str(HERE / "free_bodies.xml"),
                                       "--free-bodies", "--root", "free_flyer", "-o",
                                       str(tmp_path / "x.yaml")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "--free-bodies keeps the world as the fixed root" in result.output
    assert not (tmp_path / "x.yaml").exists()
