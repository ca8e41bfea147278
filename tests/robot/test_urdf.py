"""URDF in and out: `symdyn import` against Pinocchio's own reading of the same URDF.

Pinocchio (buildModelFromUrdf, then buildReducedModel holding the joints off the chain at zero)
is the reference for every robot, hand-written or shipped by example-robot-data: the imported
robot file's generated tau, M, C, g and forward dynamics must equal its rnea, crba,
computeCoriolisMatrix, computeGeneralizedGravity and aba on 100 random states.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import shlex
import time
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import sympy
from click.testing import CliRunner
from support import FLOATING, MIMIC_TREES, ROBOTS, TREES, assert_close, pin_model

import symdyn
from symdyn.check import configurations
from symdyn.cli import main
from symdyn.reference import friction_torques, snapped_urdf, urdf_model
from symdyn.robot.rigid import QUARTER_TOLERANCE

DYNAMICS = ["inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
            "forward_dynamics"]


def example_robot(relative: str) -> Path:
    """A URDF shipped by the example-robot-data package (installed with the test extras)."""
    return Path(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots")) / relative


# -- writing URDFs by hand -----------------------------------------------------------------------
def link(name, mass=None, xyz="0 0 0", rpy="0 0 0", inertia="0.01 0.02 0.025 0.001 0.002 0.003"):
    if mass is None:
        return f'<link name="{name}"/>'
    ixx, iyy, izz, ixy, iyz, ixz = inertia.split()
    return (f'<link name="{name}"><inertial><origin xyz="{xyz}" rpy="{rpy}"/>'
            f'<mass value="{mass}"/><inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="{ixy}" '
            f'iyz="{iyz}" ixz="{ixz}"/></inertial><visual><geometry><mesh filename='
            f'"package://arm/meshes/{name}.stl"/></geometry></visual></link>')


def joint(name, kind, parent, child, xyz="0 0 0", rpy="0 0 0", axis=None, extra=""):
    axis = "" if axis is None else f'<axis xyz="{axis}"/>'
    limit = ('<limit lower="-2.5" upper="2.5" effort="80" velocity="3"/>'
             if kind in ("revolute", "prismatic") else "")
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/>{axis}{limit}{extra}</joint>')


def robot(*parts, name="arm"):
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n' + "\n".join(parts) + "\n</robot>\n"


# Fixed joints at the base, in the middle and at the tip (with a mass to lump), inertial frames
# turned by rpy, a negative axis, an oblique axis, a prismatic and a continuous joint.
ARM = robot(
    link("world"), joint("mount", "fixed", "world", "base", xyz="0.1 0.2 0.3", rpy="0 0 0.5"),
    link("base", 3),
    joint("j1", "revolute", "base", "l1", xyz="0 0 0.3", axis="0 0 1",
          extra='<dynamics damping="0.5" friction="0.2"/>'),
    link("l1", 2.5, xyz="0.02 0.01 0.1", rpy="0.3 -0.2 0.7"),
    joint("j2", "revolute", "l1", "l2", xyz="0 0.1 0.2", rpy="1.5707963267948966 0 0",
          axis="0 0 -1"),
    link("l2", 1.8, xyz="0.2 0 0.01", rpy="0 0.4 0"),
    joint("middle", "fixed", "l2", "l2b", xyz="0.35 0 0", rpy="0 0 1.5707963267948966"),
    link("l2b", 0.7, xyz="0 0.05 0"),
    joint("j3", "prismatic", "l2b", "l3", xyz="0 0.1 0", axis="0 1 0"),
    link("l3", 1.2, xyz="0 0.1 0.02", rpy="0.1 0.2 0.3"),
    joint("j4", "continuous", "l3", "l4", xyz="0 0.2 0.05", axis="0 0.6 0.8"),
    link("l4", 0.6, xyz="0.01 0.02 0.03"),
    joint("flange", "fixed", "l4", "tool", xyz="0 0 0.08", rpy="3.141592653589793 0 0"),
    link("tool", 0.3, xyz="0 0 0.02", inertia="0.001 0.001 0.0015 0 0 0"))

# Two axes 1e-7 rad from parallel: their common normal lies kilometres away, so no DH table
# reproduces them within 1e-12 and the file keeps the URDF's placements.
SKEWED = robot(
    link("base"),
    joint("j1", "revolute", "base", "l1", xyz="0 0 0.2", axis="0 1 0"),
    link("l1", 1.5, xyz="0.1 0 0"),
    joint("j2", "revolute", "l1", "l2", xyz="0.4 0 0", rpy="0 0 1e-7", axis="0 1 0"),
    link("l2", 1.0, xyz="0.2 0 0"))

# A tree: two arms on one base; the chosen one carries a gripper whose finger joints are held.
TREE = robot(
    link("base", 5),
    joint("left", "revolute", "base", "left1", xyz="0 0.2 0", axis="1 0 0"),
    link("left1", 1),
    joint("right", "revolute", "base", "right1", xyz="0 -0.2 0", axis="1 0 0"),
    link("right1", 1.3, xyz="0 0 0.2"),
    joint("elbow", "revolute", "right1", "right2", xyz="0 0 0.4", rpy="0 0.3 0", axis="0 1 0"),
    link("right2", 0.9, xyz="0 0 0.15"),
    joint("finger_a", "prismatic", "right2", "finger_a", xyz="0 0.02 0.3", axis="0 1 0"),
    link("finger_a", 0.1, xyz="0 0 0.02"),
    joint("finger_b", "prismatic", "right2", "finger_b", xyz="0 -0.02 0.3", axis="0 -1 0",
          extra='<mimic joint="finger_a"/>'),
    link("finger_b", 0.1, xyz="0 0 0.02"),
    joint("palm", "fixed", "right2", "palm", xyz="0 0 0.3"),
    link("palm"))


def imported(tmp_path, text, *args, name="arm.urdf"):
    """`symdyn import` of the URDF ``text`` into tmp_path/imported.yaml: (spec, command output)."""
    path = tmp_path / name
    path.write_text(text)
    return imported_file(tmp_path, path, *args)


def imported_file(tmp_path, path, *args):
    out = tmp_path / "imported.yaml"
    result = CliRunner().invoke(main, ["import", str(path), *args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return symdyn.load_robot(out).spec, result.output


def pinocchio_chain(path, spec, snap_angles=QUARTER_TOLERANCE):
    """Pinocchio's model of the URDF, its angles within ``snap_angles`` of multiples of pi/12
    made those (as import takes them), reduced to the imported chain's joints, and a function
    from symdyn's q to Pinocchio's (a continuous joint's q is (cos, sin) there)."""
    full = pin.buildModelFromXML(snapped_urdf(path, snap_angles))
    names = set(_joint_names(spec))
    locked = [i for i in range(1, full.njoints) if full.names[i] not in names]
    model = pin.buildReducedModel(full, locked, pin.neutral(full)) if locked else full
    assert model.nv == len(spec.links)
    widths = [model.joints[i].nq for i in range(1, model.njoints)]

    def configuration(q):
        return np.concatenate([[np.cos(x), np.sin(x)] if w == 2 else [x]
                               for x, w in zip(q, widths)])
    return model, configuration


def _joint_names(spec):
    """The URDF's names of the import's joints."""
    return [link.joint_name for link in spec.links]


def assert_matches_pinocchio(spec, urdf_path, states=100, seed=0,
                             snap_angles=QUARTER_TOLERANCE):
    robot = symdyn.Robot.from_spec(spec)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=DYNAMICS)
    model, configuration = pinocchio_chain(urdf_path, spec, snap_angles)
    data = model.createData()
    rng = np.random.default_rng(seed)
    n = robot.dof
    q, qd, qdd = (rng.uniform(-lim, lim, (states, n)) for lim in (np.pi, 3, 5))
    pq = [configuration(x) for x in q]
    friction = np.array([model.damping * v + model.friction * np.sign(v) for v in qd])
    tau = np.array([pin.rnea(model, data, *s) for s in zip(pq, qd, qdd)]) + friction
    assert_close(module.inverse_dynamics(q, qd, qdd), tau)
    assert_close(module.mass_matrix(q), [_symmetric(pin.crba(model, data, x)) for x in pq])
    assert_close(module.coriolis_matrix(q, qd),
                 [pin.computeCoriolisMatrix(model, data, x, v) for x, v in zip(pq, qd)])
    assert_close(module.gravity_torques(q),
                 [pin.computeGeneralizedGravity(model, data, x) for x in pq])
    # Forward dynamics turns the rounding of tau (eps |tau|) into |M^-1| eps |tau| of qdd: a
    # hand's friction (10 N m) on fingers of 1e-4 kg m^2 makes that 1e-9, for either solver.
    rounding = 1e-14 * np.abs(tau).max() * max(
        np.linalg.norm(np.linalg.inv(_symmetric(pin.crba(model, data, x))), 2) for x in pq)
    expected = np.array([pin.aba(model, data, x, v, t - f).copy()
                         for x, v, t, f in zip(pq, qd, tau, friction)])
    np.testing.assert_allclose(module.forward_dynamics(q, qd, tau), expected, rtol=1e-10,
                               atol=max(1e-10 * np.abs(expected).max(), rounding))
    np.testing.assert_allclose(module.forward_dynamics(q, qd, tau), qdd, rtol=1e-8, atol=1e-8)


def _symmetric(M):
    return np.triu(M) + np.triu(M, 1).T


# -- hand-written robots -------------------------------------------------------------------------
def test_an_arm_with_every_kind_of_joint_matches_pinocchio(tmp_path):
    spec, output = imported(tmp_path, ARM)
    assert spec.convention == "modified"
    assert "modified DH" in output
    assert [link.joint for link in spec.links] == ["revolute"] * 2 + ["prismatic", "revolute"]
    assert spec.links[3].limits is None                    # continuous: no position limits
    assert {k: float(v) for k, v in spec.links[0].limits.items()} == {
        "lower": -2.5, "upper": 2.5, "velocity": 3, "effort": 80}
    assert spec.base is not None and spec.tool is not None
    assert_matches_pinocchio(spec, tmp_path / "arm.urdf")


def test_urdf_angles_within_1e_9_are_snapped_and_wider_misses_kept_unless_asked(tmp_path):
    """URDFs write pi/2 as 1.57079632679, 5e-12 short: taken as pi/2 by default (1e-9). A
    1.5708 (4e-6 off) is kept as written, with a note in the file and a warning naming the
    field when the file is read; --snap-angles 1e-5 takes it as pi/2 (sparse DH, less code)."""
    quarters = {0, sympy.pi / 2, -sympy.pi / 2, sympy.pi}
    text = _swap('rpy="0 0 0"/><axis', 'rpy="1.57079632679 0 3.14159265359"/><axis', ONE_JOINT)
    spec, _ = imported(tmp_path, text)
    assert {spec.links[0].alpha, spec.links[0].theta} <= quarters and spec.links[0].alpha != 0
    assert spec.base is None and "--snap-angles" not in Path(spec.path).read_text()
    text = _swap('rpy="0 0 0"/><axis', 'rpy="1.5708 0 3.1416"/><axis', ONE_JOINT)
    spec, _ = imported(tmp_path, text)
    assert not set(spec.base.rpy) <= quarters
    note = next(line for line in Path(spec.path).read_text().splitlines()
                if line.startswith("# Angles near multiples"))
    assert "(-3.14158530717959, 1.5708, " in note and "kept as the URDF" in note
    result = CliRunner().invoke(main, ["info", spec.path])
    assert result.exit_code == 0
    assert ("base.rpy[0] 1.5708 (3.7e-06 from pi/2)" in result.stderr
            and "--snap-angles 1e-05 takes them as those angles" in result.stderr)
    spec, _ = imported(tmp_path, text, "--snap-angles", "1e-5")
    assert {spec.links[0].alpha, spec.links[0].theta} <= quarters and spec.links[0].alpha != 0
    assert "--snap-angles 1e-05" in Path(spec.path).read_text()     # the command, noted


def test_the_urdf_form_gives_the_same_dynamics(tmp_path):
    spec, output = imported(tmp_path, ARM, "--form", "urdf")
    assert spec.convention == "urdf" and "URDF joint placements" in output
    assert_matches_pinocchio(spec, tmp_path / "arm.urdf", states=30)


def test_axes_no_dh_table_describes_keep_the_urdf_placements(tmp_path):
    spec, output = imported(tmp_path, SKEWED)
    assert spec.convention == "urdf"
    assert_matches_pinocchio(spec, tmp_path / "arm.urdf")
    result = CliRunner().invoke(main, ["import", str(tmp_path / "arm.urdf"), "--form",
                                       "modified"])
    assert result.exit_code == 2 and "no DH table" in result.output


def test_a_branch_of_a_tree_with_held_fingers(tmp_path):
    spec, _ = imported(tmp_path, TREE, "--tip", "palm")
    assert len(spec.links) == 2
    text = Path(spec.path).read_text()
    assert '"finger_a", "finger_b"' in text        # noted as held at zero
    assert_matches_pinocchio(spec, tmp_path / "arm.urdf")


def test_a_chain_from_a_link_above_the_tip_only(tmp_path):
    spec, _ = imported(tmp_path, ARM, "--base", "l2b", "--tip", "l4")
    assert [link.joint for link in spec.links] == ["prismatic", "revolute"]
    assert_matches_pinocchio(spec, tmp_path / "arm.urdf")


def test_the_chain_ends_at_the_last_joint_when_only_fixed_frames_branch(tmp_path):
    text = ARM.replace("</robot>", '<joint name="camera" type="fixed"><parent link="l4"/>'
                                   '<child link="camera"/></joint><link name="camera"/></robot>')
    spec, _ = imported(tmp_path, text)
    file = Path(spec.path).read_text()
    assert 'the chain "world" -> "l4"' in file and '"camera", "tool"' in file


def test_import_is_deterministic_from_any_folder(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    path = tmp_path / "arm.urdf"
    path.write_text(ARM)
    outputs = []
    for folder in (tmp_path, tmp_path / "a"):
        monkeypatch.chdir(folder)
        result = CliRunner().invoke(main, ["import", os.path.relpath(path, folder)])
        assert result.exit_code == 0
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]


def test_published_inertia_is_taken_with_a_warning_and_refused_when_strict(tmp_path):
    """Inertias no rigid body has, which published URDFs hold (round-off, a massless link with
    inertia), are imported as given with one warning line naming the links, and the robot file
    says allow_inconsistent_inertia; --strict-inertia refuses them, as a hand-written robot
    file without that line is refused."""
    text = ARM.replace('<mass value="1.8"/><inertia ixx="0.01" iyy="0.02" izz="0.045"',
                       '<mass value="1.8"/><inertia ixx="0.01" iyy="0.02" izz="0.045"')
    text = ARM.replace('<mass value="1.8"/><inertia ixx="0.01" iyy="0.02" izz="0.025"',
                       '<mass value="1.8"/><inertia ixx="0.01" iyy="0.02" izz="0.045"')
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    refused = CliRunner().invoke(main, ["import", str(path), "--strict-inertia"])
    assert refused.exit_code == 2 and "triangle inequality" in refused.output
    spec, output = imported_file(tmp_path, path)
    warnings = [line for line in output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "'l2' (line" in warnings[0], output
    assert "allow_inconsistent_inertia: true" in Path(spec.path).read_text()
    assert_matches_pinocchio(spec, path, states=20)
    hand_written = tmp_path / "hand.yaml"
    hand_written.write_text(Path(spec.path).read_text().replace(
        "allow_inconsistent_inertia: true", ""))
    with pytest.raises(symdyn.RobotFileError, match="triangle inequality"):
        symdyn.load_robot(hand_written)


# -- bad URDFs -----------------------------------------------------------------------------------
LAUGHS = ('<?xml version="1.0"?>\n<!DOCTYPE robot [\n<!ENTITY a "aaaaaaaaaa">\n'
          + "".join(f'<!ENTITY {chr(98 + k)} "' + f"&{chr(97 + k)};" * 10 + '">\n'
                    for k in range(9))
          + ']>\n<robot name="&j;"><link name="&j;"/></robot>\n')
EXTERNAL = ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            '\n<robot name="&x;"><link name="a"/></robot>\n')
ONE_JOINT = robot(link("base"), joint("j", "revolute", "base", "l1", axis="0 0 1"),
                  link("l1", 1))


def _swap(old, new, text=ONE_JOINT):
    assert old in text
    return text.replace(old, new, 1)


BAD = [
    ("planar mimic", _swap("</joint>", '<mimic joint="j"/></joint>',
                           _swap('type="revolute"', 'type="planar"')), [],
     "is a planar joint with a <mimic>"),
    ("unknown type", _swap('type="revolute"', 'type="ball"'), [], "type 'ball'"),
    ("mimic in the chain", _swap("</joint>", '<mimic joint="k"/></joint>'), [], "mimics"),
    ("mimic of the chain", _swap('<mimic joint="finger_a"/>', '<mimic joint="elbow"/>', TREE),
     ["--tip", "palm"], "mimics 'elbow' of the chain"),
    ("missing parent", _swap('<parent link="base"/>', ""), [], "no <parent"),
    ("undefined child", _swap('<child link="l1"/>', '<child link="l9"/>'), [],
     "'l9' is not defined"),
    ("two parents", _swap("</robot>", '<joint name="k" type="fixed"><parent link="base"/>'
                          '<child link="l1"/></joint></robot>'), [], "child of two joints"),
    ("loop", _swap("</robot>", '<link name="a"/><link name="b"/><joint name="ab" type="fixed">'
                   '<parent link="a"/><child link="b"/></joint><joint name="ba" type="fixed">'
                   '<parent link="b"/><child link="a"/></joint></robot>'), ["--tip", "a"],
     "a loop through a, b"),
    ("two trees", _swap("</robot>", '<link name="other"/></robot>'), [], "2 trees"),
    ("duplicate link", _swap("</robot>", '<link name="l1"/></robot>'), [], "defined twice"),
    ("no links", robot(), [], "no links"),
    ("bad number", _swap('xyz="0 0 1"', 'xyz="0 0 one"'), [], "is not 3 numbers"),
    ("xacro", _swap('xyz="0 0 1"', 'xyz="0 0 ${pi}"'), [], "run xacro first"),
    ("two numbers", _swap('xyz="0 0 1"', 'xyz="0 1"'), [], "has 2 numbers"),
    ("nan", _swap('<mass value="1"/>', '<mass value="nan"/>'), [], "not finite"),
    ("overflow", _swap('<mass value="1"/>', '<mass value="1e400"/>'), [], "not finite"),
    ("negative mass", _swap('<mass value="1"/>', '<mass value="-1"/>'), [], "mass is negative"),
    ("zero axis", _swap('xyz="0 0 1"', 'xyz="0 0 0"'), [], "zero axis"),
    ("limits crossed", _swap('lower="-2.5"', 'lower="3"'), [], "lower limit is above"),
    ("negative damping", _swap("</joint>", '<dynamics damping="-1"/></joint>'), [],
     "cannot be negative"),
    ("billion laughs", LAUGHS, [], "DTD or an entity"),
    ("external entity", EXTERNAL, [], "DTD or an entity"),
    ("not xml", "robot: yaml\n", [], "not well-formed XML"),
    ("not a robot", '<?xml version="1.0"?><sdf/>', [], "root element is <sdf>"),
    ("mimic of a joint outside", _swap('<mimic joint="finger_a"/>', '<mimic joint="left"/>',
                                       TREE), ["--base", "right1"],
     "'finger_b' mimics 'left', which is not a movable joint below 'right1'"),
    ("mimic of a mimic", _swap('<child link="finger_a"/>',
                               '<child link="finger_a"/><mimic joint="elbow"/>', TREE), [],
     "'finger_b' mimics 'finger_a', a mimic joint itself"),
    ("unknown tip", ONE_JOINT, ["--tip", "hand"], "--tip 'hand' is not a link"),
    ("base below tip", ONE_JOINT, ["--base", "l1", "--tip", "base"], "not below 'l1'"),
    ("nothing moves", robot(link("a"), joint("f", "fixed", "a", "b"), link("b")), [],
     "no movable joint"),
    ("bad name", ONE_JOINT, ["--name", "Arm-1"], "--name: 'Arm-1' is not a valid robot name"),
    ("a C header's name", ONE_JOINT, ["--name", "stdio"], "--name: 'stdio' is not a valid"),
    ("snap nan", ONE_JOINT, ["--snap-angles", "nan"], "'nan' is not a finite number"),
    ("dh forced", SKEWED, ["--form", "modified"], "no DH table"),
    ("past the bounds", _swap('xyz="0 0 1"', 'xyz="0 0 1e31"'), [], "larger than 1e+30"),
    ("lumped past the bounds",
     _swap("</robot>", '<joint name="f" type="fixed"><parent link="l1"/><child link="heavy"/>'
           '</joint><link name="heavy"><inertial><mass value="1e30"/></inertial></link></robot>',
           _swap('<mass value="1"/>', '<mass value="1e29"/>')), [],
     "bad.urdf: symdyn cannot write it as a robot file (link 1.mass: a number beyond"),
]


@pytest.mark.parametrize("text, args, words", [case[1:] for case in BAD],
                         ids=[case[0] for case in BAD])
def test_bad_urdfs_are_refused_in_one_line(tmp_path, text, args, words):
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    out = tmp_path / "out" / "bad.yaml"
    start = time.perf_counter()
    result = CliRunner().invoke(main, ["import", str(path), *args, "-o", str(out)])
    assert time.perf_counter() - start < 5
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "out").exists()


def test_errors_name_the_element_and_its_line(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text(_swap('<mass value="1"/>', '<mass value="-1"/>'))
    result = CliRunner().invoke(main, ["import", str(path)])
    line = 1 + ONE_JOINT.splitlines().index(
        next(line for line in ONE_JOINT.splitlines() if "mass value" in line))
    assert f"bad.urdf:{line}: <mass>: link 'l1'" in result.output


@pytest.mark.parametrize("kind", ["fifo", "folder", "large"])
def test_files_that_are_not_urdfs_are_refused(tmp_path, kind):
    path = tmp_path / "x.urdf"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text(ONE_JOINT + " " * (8 << 20))
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


# -- real robots ---------------------------------------------------------------------------------
# Every serial arm example-robot-data ships, with the tip where the URDF needs one (a tree, or a
# choice between frames): the chain imported, generated and compared with Pinocchio's model.
REAL = [
    ("ur_description/urdf/ur3_robot.urdf", "tool0"),     # UR's tool flange
    ("ur_description/urdf/ur5_robot.urdf", "tool0"),
    ("ur_description/urdf/ur10_robot.urdf", "tool0"),
    ("ur_description/urdf/ur5_gripper.urdf", None),
    ("panda_description/urdf/panda.urdf", "panda_hand_tcp"),   # fingers held at zero
    ("kinova_description/robots/kinova.urdf", None),
    ("xarm_description/urdf/xarm7.urdf", None),          # angles 1.5708, kept as written
    ("z1_description/urdf/z1.urdf", None),
    ("so_arm_description/urdf/so100.urdf", None),
    ("so_arm_description/urdf/so101.urdf", "gripper_frame_link"),   # jaw held at zero
    ("talos_data/robots/talos_left_arm.urdf", "gripper_left_base_link"),
    ("double_pendulum_description/urdf/double_pendulum_continuous.urdf", None),
    ("finger_edu_description/robots/finger_edu.urdf", None),
]


@pytest.mark.slow
@pytest.mark.parametrize("relative, tip", REAL, ids=[Path(r).stem for r, _ in REAL])
def test_real_robots_match_pinocchio(tmp_path, relative, tip):
    path = example_robot(relative)
    spec, _ = imported_file(tmp_path, path, *(["--tip", tip] if tip else []))
    assert_matches_pinocchio(spec, path)




@pytest.mark.slow
@pytest.mark.parametrize("relative", TREES, ids=[Path(r).stem for r in TREES])
def test_whole_trees_match_pinocchio(tmp_path, relative):
    path = example_robot(relative)
    spec, _ = imported_file(tmp_path, path)
    model = pin.buildModelFromUrdf(str(path))
    assert symdyn.Robot.from_spec(spec).parents == tuple(model.parents)[1:]
    assert "the whole tree below" in Path(spec.path).read_text()
    assert_matches_pinocchio(spec, path, states=30)
    assert_frames_match_pinocchio(spec, path)


def assert_frames_match_pinocchio(spec, path, states=10):
    """Every link, a named frame of the import by its URDF name: its pose and Jacobian are
    Pinocchio's body frame of that link."""
    links = [frame.name for frame in spec.frames]
    assert len(links) > 0
    robot = symdyn.Robot.from_spec(spec)
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["frame_poses", "frame_jacobians"])
    model, configuration = pinocchio_chain(path, spec)
    data = model.createData()
    for q in np.random.default_rng(2).uniform(-np.pi, np.pi, (states, robot.dof)):
        T, J = module.frame_poses(q), module.frame_jacobians(q)
        pin.computeJointJacobians(model, data, configuration(q))
        pin.updateFramePlacements(model, data)
        for k, link in enumerate(links):
            frame = model.getFrameId(link, pin.BODY)
            np.testing.assert_allclose(T[k], data.oMf[frame].homogeneous, atol=1e-12)
            np.testing.assert_allclose(J[k], pin.getFrameJacobian(
                model, data, frame, pin.LOCAL_WORLD_ALIGNED), atol=1e-12)


def test_a_branching_urdf_is_imported_whole(tmp_path):
    """No --tip: every movable joint, depth first with siblings by joint name (Pinocchio's
    order), a fixed joint's link lumped into its parent; the dynamics are Pinocchio's."""
    text = TREE.replace('<mimic joint="finger_a"/>', "")
    spec, output = imported(tmp_path, text, name="tree.urdf")
    assert [link.name for link in spec.links] == ["left1", "right1", "right2", "finger_a",
                                                  "finger_b"]
    assert symdyn.Robot.from_spec(spec).parents == (0, 0, 2, 3, 3)
    assert spec.convention == "urdf" and "the whole tree below" in Path(spec.path).read_text()
    assert [frame.name for frame in spec.frames] == ["base", "left1", "right1", "right2",
                                                     "finger_a", "finger_b", "palm"]
    assert [link.joint_name for link in spec.links] == ["left", "right", "elbow", "finger_a",
                                                        "finger_b"]
    assert_matches_pinocchio(spec, tmp_path / "tree.urdf")
    assert_frames_match_pinocchio(spec, tmp_path / "tree.urdf")


def test_a_tree_with_a_mimic_joint_is_imported_whole_with_it(tmp_path):
    """finger_b follows finger_a: a link of its own, no coordinate, the coupling written in
    the robot file; the dynamics are those of Pinocchio's model with mimic joints."""
    spec, output = imported(tmp_path, TREE, name="tree.urdf")
    assert [link.mimic for link in spec.links] == [None, None, None, None, 4]
    assert "4 joints and 1 mimic joint" in output
    assert 'mimic: "finger_a"' in Path(spec.path).read_text()
    assert_matches_pinocchio_with_mimic_joints(spec, tmp_path / "tree.urdf")


def assert_matches_pinocchio_with_mimic_joints(spec, urdf_path, states=100, seed=0):
    """Against Pinocchio's own model with mimic joints (buildModelFromUrdf(..., mimic=True)):
    inverse dynamics (Pinocchio's has no friction: a mimic joint's damping acts in symdyn's,
    through G^T), M, g and the tool's Jacobian; forward dynamics by its round trip. Pinocchio
    4.1's crba adds into data.M a mimic joint's terms without clearing it: fresh data each."""
    robot = symdyn.Robot.from_spec(spec)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        *DYNAMICS, "friction_torques", "jacobian"])
    model = pin.buildModelFromXML(snapped_urdf(urdf_path, QUARTER_TOLERANCE), mimic=True)
    assert model.nv == robot.dof < len(robot.links)
    widths = [model.joints[i].nq for i in range(1, model.njoints) if model.joints[i].nq]

    def configuration(q):
        return np.concatenate([[np.cos(x), np.sin(x)] if w == 2 else [x]
                               for x, w in zip(q, widths)])
    rng = np.random.default_rng(seed)
    q, qd, qdd = (rng.uniform(-lim, lim, (states, robot.dof)) for lim in (np.pi, 3, 5))
    pq = [configuration(x) for x in q]
    assert_close(module.inverse_dynamics(q, qd, qdd) - module.friction_torques(qd),
                 [pin.rnea(model, model.createData(), *s) for s in zip(pq, qd, qdd)])
    assert_close(module.mass_matrix(q),
                 [_symmetric(pin.crba(model, model.createData(), x)) for x in pq])
    assert_close(module.gravity_torques(q),
                 [pin.computeGeneralizedGravity(model, model.createData(), x) for x in pq])
    tip = model.getFrameId(spec.links[-1].name, pin.BODY)    # the tool: the last link
    assert_close(module.jacobian(q), [pin.computeFrameJacobian(
        model, model.createData(), x, tip, pin.LOCAL_WORLD_ALIGNED) for x in pq])
    tau = module.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(module.forward_dynamics(q, qd, tau), qdd, rtol=1e-8, atol=1e-8)




@pytest.mark.slow
@pytest.mark.parametrize("relative", MIMIC_TREES, ids=[Path(r).stem for r in MIMIC_TREES])
def test_check_compares_every_quantity_of_the_whole_trees_with_mimic_joints(tmp_path, relative):
    """symdyn check --urdf of each robot imported whole with its mimic joints: every quantity
    against Pinocchio's model of the URDF (every joint free, projected by G), rnea, crba and
    the Jacobian against its model with mimic joints, and every named frame (the URDF's links
    on fixed joints) against its frame of that name; every row ok, none skipped but the
    closed forms, and the Lagrange route's past 24 links (PR2's 40, TIAGo Pro's 33)."""
    path = example_robot(relative)
    spec, _ = imported_file(tmp_path, path)
    result = CliRunner().invoke(main, ["check", spec.path, "--urdf", str(path), "--states",
                                       "10"])
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    skipped = [line for line in result.output.splitlines() if "skipped" in line]
    assert all("simplifies to 0" in line or "Lagrange route of" in line and len(spec.links) > 24
               for line in skipped), skipped
    assert "frames, by name" not in result.output          # every frame has Pinocchio's
    for row in ("inverse_dynamics_derivatives = Pinocchio computeRNEADerivatives",
                "forward_dynamics_derivatives = -M^-1 Pinocchio computeRNEADerivatives",
                "coriolis_matrix = Pinocchio computeCoriolisMatrix",
                "mass_matrix = Pinocchio crba, mimic joints",
                "com_jacobian = Pinocchio jacobianCenterOfMass",
                "frame_poses = Pinocchio frame placements (",
                "frame_jacobians = Pinocchio frame Jacobians (world axes) (",
                "frame_jacobians_dot_qd = Pinocchio classical accelerations ("):
        assert row in result.output


@pytest.mark.slow
@pytest.mark.parametrize("relative", MIMIC_TREES, ids=[Path(r).stem for r in MIMIC_TREES])
def test_whole_trees_with_mimic_joints_match_pinocchio(tmp_path, relative):
    path = example_robot(relative)
    spec, _ = imported_file(tmp_path, path)
    assert any(link.mimic is not None for link in spec.links)
    assert_matches_pinocchio_with_mimic_joints(spec, path, states=30)


# -- floating bases ------------------------------------------------------------------------------
# A biped's pelvis under a dummy root link with no inertia (as many URDFs have): the free-flyer
# moves the root, and the pelvis, fixed to it, is lumped into the base's body, as Pinocchio's
# buildModelFromUrdf(..., JointModelFreeFlyer()) merges it; the feet are frames. A chain cut
# with --tip lumps the other leg, held at zero, into the base too.
BIPED = robot(
    link("base_link"),
    joint("pelvis_joint", "fixed", "base_link", "pelvis", xyz="0 0 0.1", rpy="0 0 0.2"),
    link("pelvis", 8, xyz="0.01 0 0.05"),
    joint("l_hip", "revolute", "pelvis", "l_thigh", xyz="0 0.1 -0.05", axis="1 0 0"),
    link("l_thigh", 2, xyz="0 0 -0.2"),
    joint("l_knee", "revolute", "l_thigh", "l_shank", xyz="0 0 -0.4", axis="0 1 0"),
    link("l_shank", 1.2, xyz="0 0 -0.2"),
    joint("l_ankle", "fixed", "l_shank", "l_foot", xyz="0 0 -0.4"),
    link("l_foot", 0.3, inertia="0.001 0.001 0.0015 0 0 0"),
    joint("r_hip", "revolute", "pelvis", "r_thigh", xyz="0 -0.1 -0.05", axis="1 0 0"),
    link("r_thigh", 2, xyz="0 0 -0.2"),
    joint("r_knee", "prismatic", "r_thigh", "r_shank", xyz="0 0 -0.4", axis="0 0 1"),
    link("r_shank", 1.2, xyz="0 0 -0.2"),
    joint("r_ankle", "fixed", "r_shank", "r_foot", xyz="0 0 -0.4"),
    link("r_foot", 0.3, inertia="0.001 0.001 0.0015 0 0 0"), name="biped")


@pytest.mark.parametrize("args", [[], ["--tip", "l_foot"]], ids=["whole", "one leg"])
def test_a_floating_base_is_imported_as_pinocchios_free_flyer(tmp_path, args):
    """import --root free_flyer: the root link floats; check --urdf compares every quantity
    a floating base has with Pinocchio's model of the URDF on its JointModelFreeFlyer, the feet
    frames too; every row ok."""
    spec, output = imported(tmp_path, BIPED, "--root", "free_flyer", *args, name="biped.urdf")
    assert spec.floating and "a floating base and" in output
    assert float(spec.base_body.mass) == 8 + (0 if not args else 3.5)   # the held leg, lumped
    result = CliRunner().invoke(main, ["check", spec.path, "--urdf", str(tmp_path / "biped.urdf"),
                                       "--states", "20", *args])
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    for row in ("inverse_dynamics = Pinocchio rnea", "mass_matrix = Pinocchio crba",
                "forward_dynamics = Pinocchio aba", "com_jacobian = Pinocchio",
                "jacobian_dot_qd = Pinocchio classical acceleration"):
        assert row in result.output
    assert "frame_jacobians = Pinocchio frame Jacobians" in result.output   # every link's


@pytest.mark.parametrize("text, args, words", [
    (BIPED, ["--root", "free_flyer", "--base", "pelvis"], "moves the URDF's root link"),
    (BIPED.replace("<robot name=\"biped\">", "<robot name=\"biped\"><symdyn:root type=\"ball\"/>"),
     [], "type 'ball' is not known"),
])
def test_a_floating_base_the_importer_cannot_take_is_refused(tmp_path, text, args, words):
    path = tmp_path / "biped.urdf"
    path.write_text(text)
    result = CliRunner().invoke(main, ["import", str(path), *args, "-o", str(tmp_path / "b.yaml")])
    assert result.exit_code == 2 and words in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "b.yaml").exists()




# One robot of each kind, whose every quantity check compares: a small quadruped, an ANYmal, a
# humanoid with mimic grippers, iCub's degenerate inertias, the G1, a drone, a flying arm.
CHECKED = {"solo_description/robots/solo12.urdf", "anymal_c_simple_description/urdf/anymal.urdf",
           "talos_data/robots/talos_full_v2.urdf", "icub_description/robots/icub_reduced.urdf",
           "g1_description/urdf/g1_29dof_rev_1_0.urdf", "iris_description/robots/iris.urdf",
           "hextilt_description/urdf/hextilt_flying_arm_5.urdf"}


def assert_free_flyer_matches_pinocchio(spec, path, states=10):
    """M, tau (friction aside, mimic joints through G) and every frame of the import against
    Pinocchio's free-flyer model of the URDF (reference.urdf_model, the import's angles)."""
    robot = symdyn.Robot.from_spec(spec)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "mass_matrix", "inverse_dynamics", "friction_torques", "frame_poses"])
    model, configuration = urdf_model(path, snap_angles=QUARTER_TOLERANCE, root="free_flyer")
    data = model.createData()
    rng = np.random.default_rng(0)
    q = configurations(robot, rng, states)
    G = np.array(robot.coupling_matrix, dtype=float)
    G = np.block([[np.eye(6), np.zeros((6, G.shape[1]))], [np.zeros((G.shape[0], 6)), G]])
    offsets = np.array([float(sympy.sympify(robot.coupling.get(s, 0)).subs(
        {x: 0 for x in robot.q})) for s in robot.link_q])
    v, a = rng.uniform(-2, 2, (2, states, robot.dof))
    frames = [model.getFrameId(name, pin.BODY) for name in module.FRAMES]
    for k in range(states):
        pq = configuration(np.r_[q[k, :7], G[6:, 6:] @ q[k, 7:] + offsets])[0]
        M = pin.crba(model, data, pq)
        assert_close(module.mass_matrix(q[k]), G.T @ _symmetric(M) @ G)
        assert_close(module.inverse_dynamics(q[k], v[k], a[k]) - module.friction_torques(v[k]),
                     G.T @ pin.rnea(model, data, pq, G @ v[k], G @ a[k]))
        pin.framesForwardKinematics(model, data, pq)
        assert_close(module.frame_poses(q[k]), [data.oMf[f].homogeneous for f in frames])


@pytest.mark.slow
@pytest.mark.parametrize("relative", FLOATING, ids=[
    f"{Path(r).parts[0].removesuffix('_description')}-{Path(r).stem}" for r in FLOATING])
def test_legged_and_flying_robots_on_a_free_flyer_match_pinocchio(tmp_path, relative):
    """Each robot as published (its inertias as they are), imported on a free-flyer: M,
    tau and every link's frame against Pinocchio's free-flyer model of the URDF; and for one
    robot of each kind (CHECKED), every quantity a floating base has (the derivatives, C, the
    regressor, integrate and difference among them): check --urdf, every row ok."""
    path = example_robot(relative)
    spec, _ = imported_file(tmp_path, path, "--root", "free_flyer")
    assert spec.floating
    if relative not in CHECKED:
        assert_free_flyer_matches_pinocchio(spec, path)
        return
    result = CliRunner().invoke(main, ["check", spec.path, "--urdf", str(path), "--states",
                                       "10"])
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    assert "frames, by name" not in result.output
    for row in ("inverse_dynamics = Pinocchio rnea", "forward_dynamics = Pinocchio",
                "com_jacobian = Pinocchio jacobianCenterOfMass",
                "centroidal_map = Pinocchio computeCentroidalMap",
                "inverse_dynamics_derivatives = Pinocchio computeRNEADerivatives",
                "coriolis_matrix = Pinocchio computeCoriolisMatrix",
                "integrate = Pinocchio integrate", "difference = Pinocchio difference",
                "base_regressor Y_b beta = inverse_dynamics"):
        assert row in result.output


def test_a_drone_imports_as_a_base_without_joints(tmp_path):
    """The hector quadrotor, a URDF without movable joints, on a free-flyer: links: [], the
    base's body the whole URDF, and every quantity Pinocchio's free-flyer model has."""
    path = example_robot("hector_description/robots/quadrotor_base.urdf")
    spec, _ = imported_file(tmp_path, path, "--root", "free_flyer")
    assert spec.floating and spec.links == () and spec.base_body is not None
    result = CliRunner().invoke(main, ["check", spec.path, "--urdf", str(path), "--states",
                                       "10"])
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    assert "mass_matrix = Pinocchio crba" in result.output


# -- export --------------------------------------------------------------------------------------
SHIPPED = sorted(ROBOTS.glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_export_then_import_keeps_the_dynamics(tmp_path, path):
    """import(export(robot)) has the robot's dynamics to 1e-12, actuators included; and
    Pinocchio reads the export as the robot, but for what URDF cannot hold (rotor inertia)."""
    original = symdyn.load_robot(path).spec
    rng = np.random.default_rng(1)
    values = _physical_values(original, rng)
    urdf = tmp_path / "robot.urdf"
    result = CliRunner().invoke(main, ["export-urdf", str(path), "-o", str(urdf), *(
        arg for symbol, value in values.items() for arg in ("--set", f"{symbol}={value!r}"))])
    assert result.exit_code == 0, result.output
    # A floating base's export is imported whole, on its free-flyer (<symdyn:root>)
    back, _ = imported_file(tmp_path, urdf, *([] if original.floating else ["--tip", "tool"]))
    assert back.root == original.root
    robot = symdyn.Robot.from_spec(back)
    q = configurations(robot, rng, 50)
    qd, qdd = (rng.uniform(-lim, lim, (50, robot.dof)) for lim in (3, 5))
    joints, base = qd[:, robot.base_velocities:], np.zeros((50, robot.base_velocities))
    friction = np.hstack([base, friction_torques(original, joints, values)])
    expected = _rnea(pin_model(original, values), q, qd, qdd)
    assert_close(_rnea(pin_model(back), q, qd, qdd)
                 + np.hstack([base, friction_torques(back, joints)]),
                 expected + friction, rtol=1e-12)
    if path.stem == "planar2":      # point masses, which Pinocchio's URDF parser refuses
        return
    if original.floating:
        model, configuration = urdf_model(urdf, root="free_flyer")
        reference = pin_model(original, values)      # what URDF has no element for
        model.armature, model.gravity = reference.armature, reference.gravity
        assert_close(_rnea(model, configuration(q), qd, qdd), expected)
        return
    model, configuration = pinocchio_chain(urdf, back)
    model.armature = pin_model(original, values).armature
    assert_close(_rnea(model, [configuration(x) for x in q], qd, qdd), expected)


def _physical_values(spec, rng):
    """Values for a robot's free symbols; those of the linear form (m, mx.., XX..) a rigid
    body's."""
    names = {str(symbol): symbol for symbol in spec.parameters}
    values = {symbol: float(rng.uniform(0.5, 1.5)) for symbol in spec.parameters}
    for i in range(1, len(spec.links) + 1):
        if f"XX{i}" not in names:
            continue
        m, c, A = rng.uniform(1, 3), rng.uniform(-0.1, 0.1, 3), rng.normal(0, 0.1, (3, 3))
        J = A @ A.T + 0.01 * np.eye(3) + m * (c @ c * np.eye(3) - np.outer(c, c))
        for name, value in zip(("m mx my mz XX YY ZZ XY YZ XZ").split(),
                               (m, *(m * c), J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2],
                                J[0, 2])):
            values[names[f"{name}{i}"]] = float(value)
    return values


def _rnea(model, q, qd, qdd):
    data = model.createData()
    return np.array([pin.rnea(model, data, *state) for state in zip(q, qd, qdd)])


def test_export_needs_numbers_for_free_symbols(tmp_path):
    result = CliRunner().invoke(main, ["export-urdf", str(ROBOTS / "planar2.yaml")])
    assert result.exit_code == 2 and "give m1, m2, l1, l2, g a value" in result.output


def test_the_visual_export_is_a_urdf_pinocchio_reads(tmp_path):
    out = tmp_path / "puma.urdf"
    result = CliRunner().invoke(main, ["export-urdf", str(ROBOTS / "puma560.yaml"), "--visual",
                                       "-o", str(out)])
    assert result.exit_code == 0
    assert "<cylinder" in out.read_text()
    assert pin.buildModelFromUrdf(str(out)).nv == 6


# -- robots shipped from URDFs -------------------------------------------------------------------
IMPORTED = {"ur5": "ur_description/urdf/ur5_robot.urdf",
            "kinova_jaco2": "kinova_description/robots/kinova.urdf"}


def _made_by(path: Path) -> list[str]:
    """The import command a shipped robot file notes in its header, as arguments."""
    line = next(line for line in path.read_text().splitlines() if line.startswith("# Made by: "))
    return shlex.split(json.loads(line.removeprefix("# Made by: ")))


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_shipped_urdf_robots_are_what_import_writes(tmp_path, name):
    """Each is reproduced byte for byte by the command in its header, from the package's URDF."""
    shipped = ROBOTS / f"{name}.yaml"
    command = _made_by(shipped)
    assert command[:3] == ["symdyn", "import", Path(IMPORTED[name]).name]
    out = tmp_path / "again.yaml"
    result = CliRunner().invoke(main, ["import", str(example_robot(IMPORTED[name])),
                                       *command[3:], "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == shipped.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_shipped_urdf_robots_match_pinocchio(name):
    """Against Pinocchio's model of the URDF with the angles the import took as multiples of
    pi/12 written in full (1.57079632679 -> 1.5707963267948966), so that both read one model."""
    command = _made_by(ROBOTS / f"{name}.yaml")
    tolerance = (float(command[command.index("--snap-angles") + 1])
                 if "--snap-angles" in command else QUARTER_TOLERANCE)
    assert_matches_pinocchio(symdyn.load_robot(ROBOTS / f"{name}.yaml").spec,
                             example_robot(IMPORTED[name]), snap_angles=tolerance)


def test_names_from_the_urdf_stay_data(tmp_path):
    """A URDF's names reach the robot file only inside JSON-escaped strings and comments: line
    breaks and quotes cannot add YAML, and the robot's name is made a valid one."""
    evil = 'j&#10;links: []&#10;# &quot;\\'
    text = (ONE_JOINT.replace('name="arm"', 'name="12 Evil&#10;name: x"')
            .replace('name="j"', f'name="{evil}"').replace('"l1"', '"l1&#13;&#10;mass: 9"'))
    spec, _ = imported(tmp_path, text)
    assert spec.name == "robot_12_evil_name_x"
    assert len(spec.links) == 1 and float(spec.links[0].mass) == 1
    assert "\nlinks: []" not in Path(spec.path).read_text()


@pytest.mark.slow
def test_check_compares_an_import_with_pinocchios_model_of_its_urdf(tmp_path):
    """check --urdf builds Pinocchio's model from the original URDF (the chain cut as import
    cuts it): an import agrees with it, and a robot file changed after the import does not."""
    urdf = example_robot("baxter_description/urdf/baxter.urdf")
    robot = tmp_path / "baxter.yaml"
    runner = CliRunner()
    assert runner.invoke(main, ["import", str(urdf), "--tip", "left_wrist", "-o", str(robot)]
                         ).exit_code == 0
    result = runner.invoke(main, ["check", str(robot), "--urdf", str(urdf), "--tip",
                                  "left_wrist", "--states", "20", "-q"])
    assert result.exit_code == 0, result.output
    compared = [line for line in result.stdout.splitlines() if "(baxter.urdf)" in line]
    assert len(compared) == 21 and all(line.rstrip().endswith("ok") for line in compared)
    assert any(line.strip().startswith("frame_poses = Pinocchio frame placements (baxter")
               for line in compared)       # every link of the chain, by its name
    # Baxter's URDF gives pi/2 as 1.57079632679: the import took it as pi/2, which moves the
    # model from the URDF as written by about as much (a row reports how much)
    (snapped,) = [line for line in result.stdout.splitlines()
                  if line.strip().startswith("the URDF's angles snapped at 1e-09 = as written")]
    assert float(snapped.split(")")[1].split()[0]) < 1e-9 and "ok" in snapped
    changed = tmp_path / "changed.yaml"
    changed.write_text(robot.read_text().replace("mass: 3.22708", "mass: 3.3", 1))
    result = runner.invoke(main, ["check", str(changed), "--urdf", str(urdf), "--tip",
                                  "left_wrist", "--states", "20", "-q"])
    assert result.exit_code == 1
    assert "FAILED" in next(line for line in result.stdout.splitlines()
                            if line.strip().startswith("mass_matrix = Pinocchio crba (baxter"))
    assert runner.invoke(main, ["check", str(robot), "--tip", "x"]).exit_code == 2
    bad = runner.invoke(main, ["check", str(robot), "--urdf", str(urdf), "--tip", "nowhere"])
    assert bad.exit_code == 2 and "'nowhere' is not a link" in bad.output


def test_every_link_and_joint_keeps_its_name_and_only_identifiers_are_sanitised(tmp_path):
    """The Allegro hand, as published: imported without an option (its inertias no rigid body
    has, one warning line); JOINTS are the URDF's joint names, FRAMES every link's name, dots
    and all (a fingertip on a movable joint too), and the C names them by identifiers."""
    path = example_robot("allegro_hand_description/urdf/allegro_right_hand.urdf")
    spec, output = imported_file(tmp_path, path)
    assert len([line for line in output.splitlines() if line.startswith("warning:")]) == 1
    robot = symdyn.Robot.from_spec(spec)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["frame_poses"])
    assert module.JOINTS[:2] == ("joint_0.0", "joint_1.0")
    assert {"link_3.0", "link_3.0_tip", "link_15.0_tip", "palm_link"} <= set(module.FRAMES)
    symdyn.generate(symdyn.newton_euler(robot), "c", tmp_path / "c",
                    quantities=["frame_poses", "frame_pose_and_jacobian"])
    header = (tmp_path / "c" / f"{spec.name}.h").read_text()
    assert f"#define {spec.name.upper()}_FRAME_link_3_0_tip " in header
    assert f"void {spec.name}_pose_and_jacobian_link_3_0_tip(" in header
    assert f"#define {spec.name.upper()}_IDX_Q_joint_0_0 0" in header
