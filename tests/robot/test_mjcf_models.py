"""MJCF files as their authors write them: models of the kinds symdyn met first on real files
(gymnasium's ant and swimmer, Fetch's tasks, arms with gravity compensation), and the hostile
ones. Each is imported through the command and checked against MuJoCo's own dynamics of the
file with `symdyn check --mjcf`; what the import leaves out is named, and what it cannot take
is refused in one line that names the file and line it came from."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import symdyn
from symdyn.cli import main

mujoco = pytest.importorskip("mujoco")

HERE = Path(__file__).parent / "mjcf"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def imported(tmp_path, path: Path, *options):
    """(the robot, the import command's output) of ``path`` imported as a user does."""
    out = tmp_path / f"{path.stem}.yaml"
    result = run("import", path, "-o", out, *options)
    assert result.exit_code == 0, result.output
    return symdyn.load_robot(out), result.output


def checked(tmp_path, robot, path: Path, *options):
    """symdyn check --mjcf of the import: every row ok; its output."""
    result = run("check", robot.spec.path, "--mjcf", path, "--states", "20", "-q", *options)
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    assert "(MuJoCo," in result.output
    return result.output


def mujoco_joints(path: Path) -> list[str]:
    model = mujoco.MjModel.from_xml_path(str(path))
    return [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(model.njnt)
            if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_FREE]


def warnings_of(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("warning:")]


# -- the dynamics the file means ----------------------------------------------------------------
def test_a_crawler_comes_in_mujocos_joint_order_with_its_own_names(tmp_path):
    """Legs on bodies without joints, named so that their names sort against the file: q is
    MuJoCo's qpos order, JOINTS its joint names, every body a frame by its name (the unnamed
    ones by MuJoCo's body<k>); check against MuJoCo: every row ok, the frames included."""
    robot, _ = imported(tmp_path, HERE / "crawler.xml")
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["frame_poses"])
    assert list(module.JOINTS) == ["root_joint", *mujoco_joints(HERE / "crawler.xml")]
    assert {"torso", "zz_front_left", "aux_1", "aa_back"} <= set(module.FRAMES)
    output = checked(tmp_path, robot, HERE / "crawler.xml")
    assert "frame_poses at bodies and sites (MuJoCo" in output


def test_fluid_forces_are_named_left_out_and_the_check_compares_without_them(tmp_path):
    robot, output = imported(tmp_path, HERE / "eel.xml")
    (line,) = warnings_of(output)
    assert "fluid forces left out" in line and "density 4000, viscosity 0.1" in line
    assert "# Warning:" in Path(robot.spec.path).read_text()
    assert "without its fluid forces" in checked(tmp_path, robot, HERE / "eel.xml")


ARM = """<mujoco model="arm">{option}
  <worldbody>
    <body name="base"><geom type="cylinder" size="0.1 0.05"/>
      <body name="l1" pos="0 0 0.1"{g1}>
        <joint name="j1" axis="0 0 1" damping="0.5"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0.2" size="0.04"/>
        <body name="l2" pos="0.3 0 0.2"{g2}>
          <joint name="j2" axis="0 1 0" {joint}/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("option, g1, g2, joint, gravity, words", [
    ('<option><flag gravity="disable"/></option>', "", "", "", [0, 0, 0], None),
    ('<option gravity="0 -3 -4"/>', "", "", "", [0, -3, -4], None),
    ("", ' gravcomp="1"', ' gravcomp="1"', "", [0, 0, 0], None),
    ("", ' gravcomp="0.25"', ' gravcomp="0.25"', "", [0, 0, -7.3575], None),
    ("", ' gravcomp="1"', "", "", [0, 0, -9.81], "gravity compensation left out"),
    ("", ' gravcomp="1"', ' gravcomp="1"', 'actuatorgravcomp="true"', [0, 0, -9.81], None),
    ('<option><flag damper="disable"/></option>', "", "", "", [0, 0, -9.81], None),
    ("", "", "", 'stiffness="10" springref="0.3"', [0, 0, -9.81], None),
], ids=["gravity disabled", "gravity", "gravcomp 1", "gravcomp shared", "gravcomp differs",
        "gravcomp by the actuators", "damper disabled", "a spring"])
def test_the_options_and_gravity_compensation_are_taken_or_named(tmp_path, option, g1, g2,
                                                                  joint, gravity, words):
    """Gravity as the options give it (off, another direction); MuJoCo's gravcomp, where
    every moving body has the same, as gravity scaled by 1 - gravcomp (the actuators' own
    gravcomp leaves their torque what it is); a disabled damper as no damping; what symdyn
    does not carry, in one warning line. check --mjcf: every row ok against MuJoCo's
    dynamics of the file (what was left out taken out of it, and said)."""
    path = tmp_path / "arm.xml"
    path.write_text(ARM.format(option=option, g1=g1, g2=g2, joint=joint))
    robot, output = imported(tmp_path, path)
    assert [float(g) for g in robot.spec.gravity] == pytest.approx(gravity, abs=1e-12)
    if words is None:
        assert not warnings_of(output)
    else:
        (line,) = warnings_of(output)
        assert words in line
    damping = [float(link.viscous_friction) for link in robot.spec.links]
    assert damping[0] == (0 if "damper" in option else 0.5)
    note = checked(tmp_path, robot, path)
    if words is not None:
        assert "MuJoCo's model without its" in note
    if "stiffness" in joint:        # a spring is the robot file's too, compared with MuJoCo's
        # (springref in the file's degrees)
        assert [float(x) for x in robot.spec.links[1].spring] == pytest.approx(
            [10, np.radians(0.3)], rel=1e-14)
        assert "joint_spring_torques = -qfrc_spring (MuJoCo" in note


def test_a_scene_gives_its_robot_and_names_what_is_left_out(tmp_path):
    """An arm on a table with a free cube and ball beside it and its gripper welded to a mocap
    target: the arm is imported (the weld left out, as the objects), one warning line names
    them; check against MuJoCo: every row ok."""
    robot, output = imported(tmp_path, HERE / "lift.xml")
    assert [link.joint_name for link in robot.spec.links] == ["shoulder_yaw", "shoulder_pitch",
                                                              "elbow"]
    (line,) = warnings_of(output)
    for words in ("free object 'cube'", "mocap body 'mocap_target'", "weld equality 'hold'",
                  "free object 'ball'"):
        assert words in line
    checked(tmp_path, robot, HERE / "lift.xml")


def test_of_two_robots_base_chooses_one(tmp_path):
    two = (HERE / "crawler.xml").read_text().replace(
        "  </worldbody>", '    <body name="drone" pos="3 0 1"><freejoint/>'
        '<geom type="sphere" size="0.1"/><body name="arm"><joint name="a" range="-10 10"/>'
        '<geom type="sphere" size="0.05"/></body></body>\n  </worldbody>')
    path = tmp_path / "two.xml"
    path.write_text(two)
    refused = run("import", path, "-o", tmp_path / "x.yaml")
    assert refused.exit_code == 2 and "--base" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    robot, output = imported(tmp_path, path, "--base", "drone")
    assert robot.floating and [link.joint_name for link in robot.spec.links] == ["a"]
    assert "floating robot 'torso'" in output


@pytest.mark.parametrize("side", [
    '<body name="head" pos="0 0.1 0.3"><geom type="sphere" size="0.05"/></body>',
    '<site name="marker" pos="0 0 0.15"/>',
    '<body name="camera" pos="0.1 0 0.1"><site name="lens"/></body>'])
def test_a_chain_with_a_body_or_site_on_a_middle_link_imports(tmp_path, side):
    """A body without joints or a site on a middle link of an arm (a real arm's head body):
    imported as a chain in DH, the side part a frame of its link; check: every row ok."""
    path = tmp_path / "side.xml"
    path.write_text(ARM.format(option="", g1="", g2="", joint="").replace(
        '<body name="l2"', side + '\n        <body name="l2"'))
    robot, _ = imported(tmp_path, path)
    assert robot.spec.convention == "modified"
    checked(tmp_path, robot, path)


@pytest.mark.parametrize("name", ["null", "true", "NULL", "True", "~", "1.5", "base", "a: b",
                                  "x # y", "'q'", "no"])
def test_names_yaml_would_misread_are_written_so_they_read_back(tmp_path, name):
    """A model, bodies, joints and sites named as YAML keywords, numbers or with its syntax:
    the robot file reads back with every name as MuJoCo gives it."""
    xml = (f'<mujoco model="{name}"><worldbody><body name="{name}">'
           f'<joint name="{name}" axis="0 0 1"/><geom size="0.1"/>'
           f'<body name="{name} 2" pos="0 0 0.2"><joint name="{name}_j" axis="0 1 0"/>'
           f'<geom size="0.1"/><site name="{name}"/></body></body></worldbody></mujoco>')
    path = tmp_path / "named.xml"
    path.write_text(xml)
    robot, _ = imported(tmp_path, path)
    links = [link.name for link in robot.spec.links]
    assert links == [name if name != "base" else "base (link)", f"{name} 2"]
    assert [link.joint_name for link in robot.spec.links] == [name, f"{name}_j"]
    assert f"{name} (site)" in [frame.name for frame in robot.spec.frames]


# -- what is refused, in one line, and what is never run ----------------------------------------
def refused(tmp_path, xml: str | None, words: str, *args, files: dict | None = None,
            seconds: float = 10, where: str | None = None):
    """``symdyn import`` of ``xml`` (beside ``files``) exits 2 in one line saying ``words`` (at
    ``where``: "file:line"), within ``seconds``, writing nothing."""
    for name, text in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    path = tmp_path / "model.xml"
    if xml is not None:
        path.write_text(xml)
    out = tmp_path / "out" / "model.yaml"
    start = time.perf_counter()
    result = run("import", path, "-o", out, *args)
    assert time.perf_counter() - start < seconds
    assert result.exit_code == 2, result.output
    message = result.output.strip()
    assert "\n" not in message and words in message, message
    if where is not None:
        assert f"{tmp_path / where}:" in message, message
    assert not out.parent.exists()


def _body(attributes="", joint="", inertial='<geom size="0.1"/>'):
    return (f'<mujoco><worldbody><body name="b" {attributes}><joint name="j" {joint}/>'
            f'{inertial}</body></worldbody></mujoco>')


@pytest.mark.parametrize("xml, words", [
    (_body('pos="1e308 0 0"'), "body 'b': pos is 1e+308 0 0"),
    (_body('pos="nan 0 0"'), "body 'b': pos is nan 0 0"),
    (_body(inertial='<inertial pos="0 0 0" mass="inf" diaginertia="1 1 1"/>'),
     "body 'b': mass is inf"),
    (_body(joint='axis="nan 0 1"'), "joint 'j': axis is nan 0 1"),
    (_body(joint='ref="nan"'), "joint 'j': ref is nan"),
    (_body(joint='range="nan inf" limited="true"'), "joint 'j': range is nan inf"),
    (_body(inertial='<geom type="box" size="1e60 1e60 1e60"/>'), "body 'b': mass is 8e+183"),
    (_body(inertial='<inertial pos="0 0 0" mass="1" diaginertia="1e200 1e200 1e200"/>'),
     "body 'b': inertia (given, or of its geoms) is 1e+200"),
    (_body(joint='damping="1e40"'), "joint 'j': damping is 1e+40"),
    ('<mujoco><option gravity="0 0 1e31"/><worldbody><body><joint/><geom size="0.1"/></body>'
     '</worldbody></mujoco>', "the option: gravity is 0 0 1e+31"),
], ids=["pos 1e308", "pos nan", "mass inf", "axis nan", "ref nan", "range nan inf",
        "geoms of 1e60", "inertia 1e200", "damping 1e40", "gravity 1e31"])
def test_numbers_past_the_robot_files_bounds_are_refused_naming_the_attribute(
        tmp_path, monkeypatch, xml, words):
    """One line each, and MuJoCo's own warning of a NaN is not written to a MUJOCO_LOG.TXT in
    the user's folder."""
    monkeypatch.chdir(tmp_path)
    refused(tmp_path, xml, words)
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


def test_an_element_of_an_included_file_is_located_in_that_file(tmp_path):
    part = ('<mujoco>\n<body name="c" pos="0 0 0.3">\n<joint name="k" armature="1e200"/>\n'
            '<geom size="0.1"/>\n</body>\n</mujoco>\n')
    xml = ('<mujoco>\n<worldbody>\n<body name="b"><joint name="j"/><geom size="0.1"/>\n'
           '<include file="parts/leg.xml"/>\n</body>\n</worldbody>\n</mujoco>\n')
    refused(tmp_path, xml, "joint 'k': armature is 1e+200", files={"parts/leg.xml": part},
            where="parts/leg.xml:3")


def test_a_cube_textures_six_files_are_checked_before_mujoco_reads_them(tmp_path):
    """A FIFO named by fileup (MuJoCo would block on it): refused at once."""
    os.mkfifo(tmp_path / "up.png")
    xml = ('<mujoco><asset><texture name="sky" type="skybox" fileup="up.png" '
           'filedown="up.png" fileleft="up.png" fileright="up.png" filefront="up.png" '
           'fileback="up.png"/></asset><worldbody><body><joint/><geom size="0.1"/></body>'
           '</worldbody></mujoco>')
    refused(tmp_path, xml, "which is not a regular file", seconds=5)


def test_a_model_that_attaches_itself_is_refused_before_mujoco_crashes_on_it(tmp_path):
    """MuJoCo's compiler dies of a segmentation fault on it: the command runs apart here."""
    xml = ('<mujoco model="me"><asset><model name="me" file="model.xml"/></asset><worldbody>'
           '<body name="b"><joint/><geom size="0.1"/><attach model="me" body="b" prefix="x"/>'
           '</body></worldbody></mujoco>')
    (tmp_path / "model.xml").write_text(xml)
    result = subprocess.run([sys.executable, "-m", "symdyn", "import", str(tmp_path / "model.xml")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert "a model cannot contain itself" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("xml, words", [
    ('<mujoco><worldbody><replicate count="500" offset="1 0 0"><replicate count="500" '
     'offset="0 1 0"><body><joint/><geom size="0.1"/></body></replicate></replicate>'
     '</worldbody></mujoco>', "the model makes 250000 bodies"),
    ("<mujoco><worldbody>" + "".join(f'<body pos="{k} 0 0"><joint/><geom size="0.1"/></body>'
                                     for k in range(3000)) + "</worldbody></mujoco>",
     "the robot has 3000 hinge, slide and ball joints, more than symdyn derives (64)"),
], ids=["nested replicate", "3000 flat bodies"])
def test_models_too_big_are_refused_before_the_work_they_would_take(tmp_path, xml, words):
    refused(tmp_path, xml, words, seconds=8)


def test_the_default_name_of_a_generic_model_is_the_files(tmp_path):
    """pybullet calls r2d2 and cartpole "physics" both: two imports would write one module."""
    for stem in ("r2d2", "cartpole"):
        path = tmp_path / f"{stem}.xml"
        path.write_text('<mujoco model="physics"><worldbody><body><joint/><geom size="0.1"/>'
                        '</body></worldbody></mujoco>')
        robot, output = imported(tmp_path, path)
        assert robot.name == stem


def test_check_of_a_generic_import_takes_its_mujoco_options_too(tmp_path):
    """The eel's check, quiet: the table alone, no progress, no warnings (they were the
    import's)."""
    robot, _ = imported(tmp_path, HERE / "eel.xml")
    result = run("check", robot.spec.path, "--mjcf", HERE / "eel.xml", "--states", "5", "-q")
    assert result.exit_code == 0 and not result.stderr.strip(), result.stderr
    assert np.all(["[" not in line for line in result.stdout.splitlines()])


# -- check compares what the numbers can hold ---------------------------------------------------
def test_check_passes_a_base_locked_by_a_huge_damping(tmp_path):
    """Fetch locks its base's slides with a damping of 1e11: inverse dynamics less friction
    loses 1e11 eps to the cancellation, and forward dynamics of it as much over M's smallest
    eigenvalue. The rows' tolerances grow with what cancels: every row ok."""
    path = tmp_path / "fetch.xml"
    path.write_text(ARM.format(option="", g1="", g2="", joint="").replace(
        '<body name="base">', '<body name="base"><joint name="slide_x" type="slide" '
        'axis="1 0 0" damping="1e11"/><joint name="slide_y" type="slide" axis="0 1 0" '
        'damping="1e11"/>'))
    robot, _ = imported(tmp_path, path)
    output = checked(tmp_path, robot, path)
    assert "forward_dynamics(inverse_dynamics(qdd)) = qdd" in output


def test_check_passes_a_small_inertia_beside_a_large_friction(tmp_path):
    """Small links beside large joint friction (the Allegro hand; iCub's degenerate inertias,
    whose M has a condition number of 1e18): forward dynamics of the torques inverse dynamics
    gives loses the friction's round-off over M's smallest eigenvalue (2e-7 relative here),
    which the round trip's tolerance now allows for, and says so."""
    from symdyn.check import check

    path = tmp_path / "degenerate.yaml"
    path.write_text("""name: degenerate
convention: modified
links:
  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 2, com: [0.2, 0, 0],
     inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
  - {joint: revolute, a: 0.4, alpha: pi/2, d: 0, theta: 0, mass: 1, com: [0.1, 0, 0.1],
     inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {joint: revolute, a: 0, alpha: -pi/2, d: 0, theta: 0, mass: 1e-4, com: [0, 0, 0],
     inertia: [1e-9, 1e-9, 1e-9, 0, 0, 0], viscous_friction: 50}
""")
    rows = check(symdyn.load_robot(path), states=50)
    assert all(row.passed for row in rows), [row for row in rows if not row.passed]
    (round_trip,) = [row for row in rows if row.check.startswith("forward_dynamics(inverse")]
    assert "cond(M)" in round_trip.note and round_trip.error > 1e-10


GYMNASIUM_ROBOTICS = HERE / "gymnasium_robotics"


@pytest.mark.slow
def test_the_shadow_hand_imports_without_its_meshes_and_agrees_with_mujoco(tmp_path):
    """Gymnasium-Robotics' Shadow hand (hand/reach.xml as published, without its meshes
    and textures, its model= not given): its bodies give their <inertial>, so the absent
    meshes shape no dynamics and get stand-ins, said in one warning line (MuJoCo could not
    compile it: 'Error opening file'); it is named after the file, not MuJoCo's "MuJoCo
    Model"; check --mjcf passes every row."""
    path = GYMNASIUM_ROBOTICS / "hand" / "reach.xml"
    robot, output = imported(tmp_path, path)
    assert robot.name == "reach" and robot.dof == 24
    (absent,) = [w for w in warnings_of(output) if "given stand-ins" in w]
    assert "mesh 'robot0:forearm'" in absent and "and 6 more" in absent
    checked(tmp_path, robot, path)


@pytest.mark.slow
def test_the_adroit_hand_of_mujocoinclude_parts_imports_and_agrees_with_mujoco(tmp_path):
    """Gymnasium-Robotics' Adroit hand beside its door (adroit_door.xml as published, its
    model and assets in files whose root is <mujocoinclude>, which the import refused),
    without its meshes: the hand on its two slides and the door's hinge and latch, 30 joints;
    its mocap tracker left out and said so; check --mjcf passes every row."""
    path = GYMNASIUM_ROBOTICS / "adroit_hand" / "adroit_door.xml"
    robot, output = imported(tmp_path, path)
    assert robot.dof == 30
    assert any("mocap body 'vive_tracker'" in w for w in warnings_of(output))
    checked(tmp_path, robot, path)


def test_an_absent_mesh_that_gives_a_moving_body_its_mass_is_refused(tmp_path):
    """A body without <inertial> whose mesh's file is not there: MuJoCo would take its mass
    from the mesh, so the import refuses in one line naming both, where MuJoCo said 'Error
    opening file'; a body welded to the world may take its mass from one (it moves not)."""
    path = tmp_path / "meshy.xml"
    path.write_text("""<mujoco>
  <asset><mesh name="shell" file="shell.stl"/></asset>
  <worldbody>
    <body name="mount"><geom type="mesh" mesh="shell"/>
      <body name="finger"><joint name="j"/><geom type="mesh" mesh="shell"/></body>
    </body>
  </worldbody>
</mujoco>
""")
    result = run("import", path, "-o", tmp_path / "out.yaml")
    assert result.exit_code == 2 and not (tmp_path / "out.yaml").exists()
    (line,) = result.stderr.strip().splitlines()
    assert "mesh 'shell' is not there, and body 'finger' takes its mass and inertia from it " \
           "(it has no <inertial>)" in line
    path.write_text(path.read_text().replace(
        '<joint name="j"/>', '<joint name="j"/><inertial pos="0 0 0" mass="0.1" '
        'diaginertia="1e-4 1e-4 1e-4"/>'))
    robot, output = imported(tmp_path, path)
    assert "mesh 'shell'" in warnings_of(output)[0]
    checked(tmp_path, robot, path)
