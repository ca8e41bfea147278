"""MJCF equalities as the robot file's constraints: connect and weld, between bodies or sites,
to the world or within the robot; what the import keeps of their rows, and checks of them
against MuJoCo's own constraint Jacobian (efc_J) and its constrained accelerations."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import assert_close, closed_states, in_rows_axes

import symdyn
from symdyn.cli import main
from symdyn.reference import MujocoReference
from symdyn.robot.poses import closed_configuration

mujoco = pytest.importorskip("mujoco")

HERE = Path(__file__).parent / "mjcf"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def passes_check_mjcf(robot, name: str, states: int, rows, source=None) -> str:
    """check --mjcf of ``robot`` against tests/robot/mjcf/<name>.xml (or ``source``) on
    ``states`` states: every row passes, ``rows`` among them; its output."""
    result = run("check", robot.spec.path, "--mjcf", source or HERE / f"{name}.xml",
                 "--states", states, "-q")
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    for row in rows:
        assert row in result.output
    return result.output


def imported(tmp_path, name: str):
    """(the robot, the import's output) of tests/robot/mjcf/<name>.xml, imported as a user
    does."""
    out = tmp_path / f"{name}.yaml"
    result = run("import", HERE / f"{name}.xml", "-o", out)
    assert result.exit_code == 0, result.output
    return symdyn.load_robot(out), result.output


@pytest.mark.parametrize("name, frames", [("fourbar", ("pin (a)", "pin (b)")),
                                          ("fourbar_sites", ("coupler_end", "rocker_end"))])
def test_a_planar_loop_keeps_the_rows_that_close_it_and_equals_mujocos_jacobian(tmp_path, name,
                                                                                 frames):
    """A four-bar closed by a connect between bodies (frames made at MuJoCo's anchors) or
    sites (the sites themselves): the robot file holds the two frames at a point and keeps its
    x and y rows, saying so in one warning (MuJoCo's z row is zero everywhere); its G equals
    MuJoCo's efc_J rows on consistent states, and check --mjcf passes every row, that one
    included."""
    robot, output = imported(tmp_path, name)
    (constraint,) = robot.constraints
    assert constraint.kind == "point" and constraint.rows == (0, 1)
    assert tuple(end.name for end in constraint.ends) == frames
    (warning,) = [line for line in output.splitlines() if line.startswith("warning:")]
    assert "'pin' keeps x, y" in warning
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["constraint_jacobian"])
    reference = MujocoReference(HERE / f"{name}.xml")
    for q in closed_states(robot, 5):
        assert_close(module.constraint_jacobian(q),
                     in_rows_axes(robot, q, reference.equality_jacobians(q)), rtol=1e-12)
    result = run("check", robot.spec.path, "--mjcf", HERE / f"{name}.xml", "--states", "10",
                 "-q")
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    assert "constraint_jacobian = equality rows (MuJoCo" in result.output


def test_a_spatial_loop_and_a_weld_to_the_world_from_a_joints_reference(tmp_path):
    """Two arms joined at a point in space (all three rows) and one of them welded to the world
    at its first link (a hinge: the weld keeps rz, the hinge's angle), the model placed at a
    joint's ref (qpos0 = 20 degrees): closed_at is that qpos0, and G equals MuJoCo's rows
    (the weld's rotation rows are MuJoCo's times 2, the angle against its half-angle) on
    consistent states; check --mjcf passes every row."""
    robot, output = imported(tmp_path, "spatial_loop")
    pin, held = robot.constraints
    assert pin.rows == (0, 1, 2) and held.rows == (5,) and held.ends[1] is None
    assert {str(s): v for s, v in robot.closed_at.items()} == pytest.approx(
        {"q2": np.radians(20)})
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["constraint_jacobian"])
    reference = MujocoReference(HERE / "spatial_loop.xml")
    for q in closed_states(robot, 5):
        assert_close(module.constraint_jacobian(q),
                     in_rows_axes(robot, q, reference.equality_jacobians(q)), rtol=1e-12)
    result = run("check", robot.spec.path, "--mjcf", HERE / "spatial_loop.xml", "--states",
                 "10", "-q")
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output


def test_the_constrained_accelerations_approach_mujocos_with_stiff_equalities(tmp_path):
    """MuJoCo's equalities are soft: with solimp's impedance at 0.99999 its accelerations on a
    consistent state (G qd = 0, so no Baumgarte term) are the hard constraint's to some 1e-5;
    the robot file's constrained_forward_dynamics, the hard one, is within 1e-3 of them."""
    robot, _ = imported(tmp_path, "fourbar")
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["constrained_forward_dynamics",
                                              "constraint_jacobian"])
    model = mujoco.MjModel.from_xml_path(str(HERE / "fourbar.xml"))
    model.eq_solimp[:] = [0.99999, 0.99999, 0.001, 0.5, 2]
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(3)
    for q in closed_states(robot, 5, seed=1):
        G = module.constraint_jacobian(q)
        v = np.linalg.svd(G)[2][-1] * rng.uniform(-2, 2)       # along the loop's motion
        tau = rng.uniform(-1, 1, 3)
        data.qpos[:], data.qvel[:], data.qfrc_applied[:] = q, v, tau
        mujoco.mj_forward(model, data)
        qdd, _ = module.constrained_forward_dynamics(q, v, tau, np.zeros(2))
        assert_close(qdd, data.qacc, rtol=1e-3)


def test_a_constraint_the_chain_leaves_out_or_that_does_not_hold_is_refused(tmp_path):
    """Refused in one line at the equality's line, nothing written: a --tip that leaves one of
    the loop's bodies out; a weld whose relpose does not hold at qpos0."""
    out = tmp_path / "out.yaml"
    result = run("import", HERE / "fourbar.xml", "--tip", "coupler", "-o", out)
    assert result.exit_code == 2 and not out.exists()
    assert "fourbar.xml:18: constraint 'pin' holds 'pin (b)', which the imported chain leaves " \
           "out" in result.stderr
    text = (HERE / "fourbar.xml").read_text().replace(
        '<connect name="pin" body1="coupler" body2="rocker" anchor="0.3 0.1 0"/>',
        '<weld name="pin" body1="coupler" body2="rocker" relpose="0 0 0 1 0 0 0"/>')
    path = tmp_path / "welded.xml"
    path.write_text(text)
    result = run("import", path, "-o", out)
    assert result.exit_code == 2 and not out.exists(), result.output
    (line,) = result.stderr.strip().splitlines()
    assert "welded.xml:18: constraint 'pin': it does not hold: off by" in line
    assert "at qpos0" in line


def test_gymnasiums_humanoid_imports_with_its_fixed_tendons(tmp_path):
    """Gymnasium's humanoid as published (a free joint, fixed tendons that couple each hip to
    its knee): its tendons are the robot file's, and check --mjcf passes every row, M, the
    bias forces and the tendons' lengths and Jacobian against MuJoCo's among them."""
    out = tmp_path / "humanoid.yaml"
    result = run("import", HERE / "gymnasium" / "humanoid.xml", "-o", out)
    assert result.exit_code == 0, result.output
    robot = symdyn.load_robot(out)
    assert robot.floating and [t.name for t in robot.tendons] == ["left_hipknee",
                                                                  "right_hipknee"]
    result = run("check", out, "--mjcf", HERE / "gymnasium" / "humanoid.xml", "--states", "10",
                 "-q")
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    for row in ("mass_matrix (MuJoCo", "nonlinear_effects (MuJoCo", "tendon_lengths (MuJoCo",
                "tendon_jacobian (MuJoCo"):
        assert row in result.output


def test_tendon_and_joint_equalities_are_couplings_and_tendons_transmissions(tmp_path):
    """A tendon equality (t1 = 0.1 + 0.5 t2 about qpos0) and a joint held at a constant 0.3
    off its qpos0 are couplings of the joints; the second does not hold at qpos0, so
    closed_at is the nearest configuration where both do, said in a warning; the spatial
    tendon and the tendon's limits are left out, a warning each; the fixed tendons (one an
    actuator pulls) are the robot file's. check --mjcf: G equals MuJoCo's equality rows, the
    tendons' lengths and Jacobian MuJoCo's."""
    robot, output = imported(tmp_path, "couplings")
    still, pulley = robot.constraints
    assert still.kind == pulley.kind == "coupling"
    terms = {str(q): float(c) for q, c in pulley.coefficients}
    assert terms == {"q1": 1, "q2": 2, "q3": 0.5, "q4": -0.25}
    assert float(pulley.value) == pytest.approx(np.radians(10) + 0.1)
    assert {str(s): float(v) for s, v in robot.closed_at.items()}["q4"] == pytest.approx(0.3)
    assert [t.name for t in robot.tendons] == ["t1", "t2"]
    warnings = [line for line in output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 3
    assert "tendon limits left out" in warnings[0] and "'t1'" in warnings[0]
    assert "spatial tendons left out" in warnings[1] and "'cable'" in warnings[1]
    assert "closed_at is the configuration nearest it where they do" in warnings[2]
    result = run("check", robot.spec.path, "--mjcf", HERE / "couplings.xml", "--states", "10",
                 "-q")
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    for row in ("constraint_jacobian = equality rows (MuJoCo", "tendon_jacobian (MuJoCo"):
        assert row in result.output


@pytest.mark.parametrize("equality, words", [
    ('<tendon name="e" tendon1="cable" tendon2="t1"/>',
     "equality 'e' holds tendon 'cable', which wraps around sites or geometry"),
    ('<tendon name="e" tendon1="t1" tendon2="t2" polycoef="0 1 0.2 0 0"/>',
     "equality 'e' holds tendon 't1' to a polynomial"),
], ids=["spatial", "nonlinear"])
def test_tendon_equalities_symdyn_cannot_hold_are_refused(tmp_path, equality, words):
    text = (HERE / "couplings.xml").read_text()
    text = text.replace('<tendon name="pulley" tendon1="t1" tendon2="t2" polycoef="0.1 0.5 0 '
                        '0 0"/>', equality)
    path = tmp_path / "bad.xml"
    path.write_text(text)
    result = run("import", path, "-o", tmp_path / "out.yaml")
    assert result.exit_code == 2 and not (tmp_path / "out.yaml").exists()
    (line,) = result.stderr.strip().splitlines()
    assert f"bad.xml:{text.splitlines().index('    ' + equality) + 1}:" in line
    assert words in line


def test_a_gripper_of_four_bars_a_mimic_joint_and_a_split_tendon(tmp_path):
    """A gripper of the Robotiq 2F-85's kind: two four-bars closed by connect equalities
    (each keeps the two rows of its finger's plane), the left driver following the right by a
    joint equality (a mimic joint ordered after... before the one it follows in the tree:
    Pinocchio's mimic model refuses that order, so its mimic rows are skipped and said so), and
    a fixed tendon splitting the actuator's pull. check --mjcf passes every row: the
    constrained dynamics against the KKT of Pinocchio's tree, G against MuJoCo's equality
    rows, the tendon against MuJoCo's."""
    robot, output = imported(tmp_path, "gripper")
    assert [(c.kind, c.rows) for c in robot.constraints] == [("point", (1, 2))] * 2
    assert [t.name for t in robot.tendons] == ["split"]
    assert "1 mimic joint" in output
    output = passes_check_mjcf(robot, "gripper", 10, (
        "constrained_forward_dynamics = KKT of Pinocchio's M, h, G",
        "constraint_jacobian = equality rows (MuJoCo", "tendon_jacobian (MuJoCo",
        "mass_matrix = Pinocchio crba, mimic joints"))
    assert "index_mimicking is greater than index_mimicked" in output


# check --mjcf's rows that a model with ball joints in its loops must pass
BALL_ROWS = ("constrained_forward_dynamics = KKT of Pinocchio's M, h, G",
             "constraint_jacobian = equality rows (MuJoCo", "mass_matrix (MuJoCo",
             "inverse_dynamics - friction_torques (MuJoCo")


def test_a_leg_of_cassies_kind_closes_its_rods_on_ball_joints(tmp_path):
    """Cassie's kind of leg: the achilles and plantar rods hang on ball joints and are pinned
    by connect equalities; every row of check --mjcf passes: the constrained dynamics against
    the KKT of Pinocchio's tree (JointModelSpherical for the balls), G against MuJoCo's
    equality rows at configurations where the loops close (the balls' quaternions turned,
    unit ones)."""
    robot, output = imported(tmp_path, "cassie_leg")
    assert [link.joint for link in robot.several] == ["spherical"] * 2
    assert [(c.kind, c.rows) for c in robot.constraints] == [("point", (0, 1, 2))] * 2
    passes_check_mjcf(robot, "cassie_leg", 10, BALL_ROWS)


def test_a_biped_of_cassies_kind_on_a_floating_base_matches_mujoco(tmp_path):
    """Two such legs on a floating pelvis (a free joint, four ball joints, four loops): M and
    tau equal MuJoCo's, its free joint's and its balls' qpos and qvel mapped, and G its
    equality rows where the loops close."""
    robot, _ = imported(tmp_path, "cassie_biped")
    assert robot.floating and len(robot.several) == 4 and len(robot.constraints) == 4
    assert (robot.nq, robot.dof) == (7 + 16 + 16, 6 + 16 + 12)
    passes_check_mjcf(robot, "cassie_biped", 5, BALL_ROWS)


STRETCHED = """<mujoco model="stretched">
  <worldbody>
    <body name="upper">
      <joint name="shoulder" axis="0 0 1"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.02" mass="1"/>
      <body name="lower" pos="0.4 0 0">
        <joint name="elbow" axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
        <body name="hand" pos="0.3 0 0">
          <geom type="sphere" size="0.03" mass="0.2"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <connect name="held" body1="hand" anchor="0 0 0"/>
  </equality>
</mujoco>
"""


def test_a_row_zero_only_at_a_singular_configuration_is_not_left_out(tmp_path):
    """A two-link arm whose hand is held to the world at full stretch: there its connect's x
    row (along the arm) is zero, as is z (the arm is planar), but only z follows from the
    others. Leaving x out, as the import did, freed the arm to fold with its hand sliding
    along x, which MuJoCo's connect forbids (0.7 mm at 0.1 rad). The import refuses in one
    line at the equality, naming x alone; nothing is written."""
    source = tmp_path / "stretched.xml"
    source.write_text(STRETCHED)
    out = tmp_path / "out.yaml"
    result = run("import", source, "-o", out)
    assert result.exit_code == 2 and not out.exists(), result.output
    (line,) = result.stderr.strip().splitlines()
    assert "stretched.xml:16: equality 'held': its row x is zero where the constraints hold " \
           "without following from the others" in line
    assert "it drifts by 0.0007" in line


def test_a_file_held_at_a_singular_configuration_gets_no_advice_to_leave_rows_out(tmp_path):
    """The same arm written as a robot file with every row: generate refuses (the rows'
    rank is 1), and says that no choice of rows holds it, where it advised keeping y."""
    path = tmp_path / "stretched.yaml"
    path.write_text("""name: stretched
convention: urdf
links:
  - {name: upper, joint: revolute, axis: [0, 0, 1], mass: 1, com: [0.2, 0, 0],
     inertia: [0.001, 0.01, 0.01, 0, 0, 0]}
  - {name: lower, parent: upper, joint: revolute, origin: {xyz: [0.4, 0, 0]}, axis: [0, 0, 1],
     mass: 1, com: [0.15, 0, 0], inertia: [0.001, 0.008, 0.008, 0, 0, 0]}
frames:
  - {name: hand, parent: lower, xyz: [0.3, 0, 0]}
constraints:
  - {name: held, point: [hand]}
""")
    result = run("generate", path, "--lang", "python", "--out", tmp_path / "out")
    assert result.exit_code == 2 and not (tmp_path / "out").exists(), result.output
    assert "rows have rank 1 where they hold, and no choice of rows holds the mechanism " \
           "(held: its row x is zero" in result.output


HELD = """<mujoco model="held_torso">
  <compiler angle="radian"/>
  <worldbody>
    <body name="torso" pos="0.3 -0.2 1" euler="0 0 0.5">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.1 0.2" mass="5"/>
      <body name="thigh" pos="0 0 -0.2">
        <joint name="hip" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03" mass="1"/>
        <body name="shin" pos="0 0 -0.4">
          <joint name="knee" axis="0 1 0" ref="0.2"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.35" size="0.03" mass="0.7"/>
          <body name="foot" pos="0 0 -0.35">
            <joint name="ankle" axis="1 0 0"/>
            <geom type="sphere" size="0.04" mass="0.3"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <weld name="planted" body1="foot"/>
    <connect name="toe" body1="foot" anchor="0.1 0 0"/>
  </equality>
</mujoco>
"""


def test_a_floating_robot_held_to_the_world_is_held_where_mujoco_holds_it(tmp_path):
    """A torso on a free joint at (0.3, -0.2, 1), turned 0.5 rad, its foot welded to the
    world: the robot file's closed_at places the base where MuJoCo's qpos0 does (root:), so
    that the foot is held where MuJoCo holds it, its residual 0 at MuJoCo's qpos0. The
    contact was placed with the base at the world's origin: 1 m off, and Baumgarte's gains
    pulled the robot there. check --mjcf compares phi with MuJoCo's efc_pos, at closed_at and
    off it."""
    source = tmp_path / "held.xml"
    source.write_text(HELD)
    out = tmp_path / "held.yaml"
    result = run("import", source, "-o", out, "-q")
    assert result.exit_code == 0, result.output
    robot = symdyn.load_robot(out)
    model = mujoco.MjModel.from_xml_path(str(source))
    q = closed_configuration(robot)
    assert_close(np.array(q[:3]), model.qpos0[:3], rtol=1e-12)
    assert_close(np.array(q[3:7]), model.qpos0[[4, 5, 6, 3]], rtol=1e-12)
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["constraint_residual"])
    assert np.abs(module.constraint_residual(np.array(q))).max() < 1e-12
    passes_check_mjcf(robot, "held", 10, ["constraint_residual = equality efc_pos",
                                          "constraint_jacobian = equality rows"],
                      source=source)


def test_symdyn_imports_its_own_export_of_a_floating_robot_with_a_contact(tmp_path):
    """export-mjcf of the held torso writes its base where closed_at puts it and the contact
    as a weld to a site of the world; the import of that file takes the world's site as
    where the frame is held (at:), which it refused as a frame the chain left out, and check
    --mjcf of the round trip passes every row."""
    source = tmp_path / "held.xml"
    source.write_text(HELD)
    first, again, exported = (tmp_path / n for n in ("held.yaml", "again.yaml", "held2.xml"))
    assert run("import", source, "-o", first, "-q").exit_code == 0
    result = run("export-mjcf", first, "-o", exported)
    assert result.exit_code == 0, result.output
    result = run("import", exported, "-o", again, "-q")
    assert result.exit_code == 0, result.output
    robot = symdyn.load_robot(again)
    held = {c.name: c for c in robot.constraints}
    assert held["planted"].ends[1] is None and held["planted"].anchor is not None
    passes_check_mjcf(robot, "held2", 5, ["constraint_residual = equality efc_pos"],
                      source=exported)


def test_a_near_miss_angle_in_a_loop_fails_no_command(tmp_path):
    """The four-bar with its rocker turned 3.8e-7 rad (MuJoCo's xyaxes give Cassie's such
    angles): snapping it to 0, which the near-miss hint tries, opens the loop. The hint says
    so and the command goes on (info crashed with a traceback); import --snap-angles 1e-6
    writes a closed_at where the file's loop closes (it wrote values snapped as angles, and
    generate refused the file it had written)."""
    source = tmp_path / "near.xml"
    source.write_text((HERE / "fourbar.xml").read_text().replace(
        '<body name="rocker" pos="0.3 0 0">', '<body name="rocker" pos="0.3 0 0" '
        'euler="0 0 2.2e-5">'))
    kept, snapped = tmp_path / "kept.yaml", tmp_path / "snapped.yaml"
    assert run("import", source, "-o", kept, "-q").exit_code == 0
    result = run("info", kept)
    assert result.exit_code == 0, result.output
    assert "--snap-angles 1e-06 takes it as that angle, a different robot, which this file " \
           "does not make: constraint 'pin': it does not hold" in result.stderr
    assert run("import", source, "--snap-angles", "1e-6", "-o", snapped, "-q").exit_code == 0
    result = run("generate", snapped, "--lang", "python", "--out", tmp_path / "out", "-q")
    assert result.exit_code == 0, result.output


def test_an_equality_the_import_cannot_hold_is_refused_in_one_line(tmp_path):
    """A spatial tendon held at a length: its equality was dropped with the warning meant for
    a scene's free objects, which changes the motion; --base cutting a loop's body off: a
    KeyError. Each is refused in one line at the equality, nothing written."""
    held = (HERE / "couplings.xml").read_text().replace(
        '<tendon name="pulley" tendon1="t1" tendon2="t2" polycoef="0.1 0.5 0 0 0"/>',
        '<tendon name="taut" tendon1="cable" polycoef="0 0 0 0 0"/>')
    source = tmp_path / "taut.xml"
    source.write_text(held)
    out = tmp_path / "out.yaml"
    for args, words in (
            ([source], "taut.xml:41: <tendon>: equality 'taut' holds tendon 'cable', which "
                       "wraps around sites or geometry"),
            ([HERE / "fourbar.xml", "--base", "coupler"],
             "fourbar.xml:18: <equality>: constraint 'pin' holds 'rocker', which the imported "
             "chain leaves out")):
        result = run("import", *args, "-o", out)
        assert result.exit_code == 2 and not out.exists(), result.output
        (line,) = result.stderr.strip().splitlines()
        assert words in line


def test_a_constraints_frame_never_takes_the_name_of_a_site(tmp_path):
    """The four-bar with a site named "pin (a)" on the crank: the connect's frame on the
    coupler was named so too and silently replaced it, so that the frame pointed at the
    wrong body. The connect's frame is "pin (a 2)", the site keeps its name and body, and
    check --mjcf passes every row, the site's pose among them."""
    source = tmp_path / "named.xml"
    source.write_text((HERE / "fourbar.xml").read_text().replace(
        '<joint name="crank" axis="0 0 1"/>',
        '<joint name="crank" axis="0 0 1"/>\n      <site name="pin (a)" pos="0.05 0 0"/>'))
    out = tmp_path / "named.yaml"
    assert run("import", source, "-o", out, "-q").exit_code == 0
    robot = symdyn.load_robot(out)
    (pin,) = robot.constraints
    assert pin.ends[0].name == "pin (a 2)"
    frames = {frame.name: frame for frame in robot.frames}
    assert frames["pin (a)"].link == frames["crank"].link != pin.ends[0].link
    passes_check_mjcf(robot, "named", 5, ["frame_poses at bodies and sites"], source=source)
