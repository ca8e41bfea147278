"""A joint of every kind in one tree (robot/joints.py: planar, helical, translation, universal,
spherical, a free flyer inside the tree, revolute, and a mimic joint), against Pinocchio's own
joint models of those kinds (JointModelPlanar, HelicalUnaligned, Translation, Universal,
Spherical, FreeFlyer), whose
model of the same robot file is the reference: every row of ``check`` on 100 random states, on
a fixed and a floating root, and with a contact and a coupling beside them (the constraints'
rows against Pinocchio's KKT); the generated C against the Python; the robot file's refusals,
and what the exports cannot write said in one line.
"""
from __future__ import annotations

import importlib.metadata
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner
from support import assert_close, assert_compiled_is_python, assert_refused_in_one_line

import symdyn
from symdyn.check import check, configurations
from symdyn.cli import main
from symdyn.program.passes import op_count
from symdyn.reference import pinocchio_model

TREE = Path(__file__).parent / "mechanisms" / "kinds_tree.yaml"
KINDS = ["planar", "helical", "translation", "universal", "spherical", "free_flyer", "revolute",
         "revolute"]


def _variant(tmp_path, variant: str) -> Path:
    """The tree as written, on a floating root, or held: its knob touching the world (a point
    contact) and its screw geared to its lid (a coupling)."""
    text = TREE.read_text()
    if variant == "floating":
        text = text.replace("convention: urdf\n", "convention: urdf\nroot: free_flyer\n"
                            "base_body: {mass: 3, com: [0.01, 0.02, -0.03], "
                            "inertia: [0.05, 0.06, 0.07, 0.001, 0.002, 0.003]}\n")
    elif variant == "held":
        text += ("constraints:\n  - {name: hold, point: [knob]}\n"
                 "  - {name: gear, coupling: {screw: 1, lid: -2}}\n")
    path = tmp_path / f"kinds_{variant}.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("variant", ["fixed", "floating", "held"])
def test_a_tree_of_every_kind_passes_every_check(tmp_path, variant):
    """M, rnea, aba, both derivatives, frame poses and Jacobians, their rates, the centroidal
    map, energies, integrate and difference against Pinocchio on 100 random states (the
    constraints' on 30 they allow)."""
    robot = symdyn.load_robot(_variant(tmp_path, variant))
    assert [link.joint for link in robot.links] == KINDS
    assert (robot.nq, robot.dof) == {"fixed": (22, 19), "floating": (29, 25),
                                     "held": (22, 19)}[variant]
    rows = check(robot, states=30 if variant == "held" else 100)
    failed = [row for row in rows if not row.passed]
    assert not failed, failed
    checked = {row.check.split(" = ")[0].split(":")[0] for row in rows if not row.skipped}
    assert {"inverse_dynamics", "mass_matrix", "forward_dynamics",
            "inverse_dynamics_derivatives", "forward_dynamics_derivatives", "frame_jacobians",
            "frame_jacobians_dot_qd", "centroidal_map", "kinetic_energy", "integrate",
            "difference"} <= checked
    if variant == "held":
        assert {"constraint_jacobian", "constraint_drift",
                "constrained_forward_dynamics"} <= checked


def test_the_c_of_every_kind_equals_the_python(tmp_path):
    """The generated C, compiled, gives the Python's numbers on random states."""
    assert_compiled_is_python(symdyn.load_robot(TREE), tmp_path, 5)


def test_a_screw_a_translation_and_a_cardan_joint_take_the_lagrange_route(tmp_path):
    """Their q moves at their velocity (nq = nv, dq/dt = v): Lagrange's equations hold in
    them, and agree with Newton-Euler (check's rows); a planar joint's (cos, sin) do not."""
    text = TREE.read_text()
    branch = text[:text.index("  - {name: ball,")].replace("joint: planar", "joint: prismatic")
    path = tmp_path / "screw_chain.yaml"
    path.write_text(branch + "frames:\n  - {name: tip, parent: slide, xyz: [0.05, 0.02, 0.1]}\n")
    robot = symdyn.load_robot(path)
    assert [link.joint for link in robot.links] == ["prismatic", "helical", "translation",
                                                    "universal"]
    rows = check(robot, states=20)
    assert not [row for row in rows if not row.passed]
    compared = [row for row in rows if "Newton-Euler = Lagrange" in row.check]
    assert compared and not [row for row in compared if row.skipped]


REFUSALS = [
    ("joint: planar,", "joint: planar, limits: {lower: 0, upper: 1},", "link 1.limits",
     "a planar joint has no limits: its configuration is a position in the plane", 10),
    ("joint: translation,", "joint: translation, axis: [0, 0, 1],", "link 3.axis",
     "a translation joint has no axis: its configuration is a position", 16),
    ("joint: helical, pitch: 0.05,", "joint: helical,", "link 2",
     "pitch", 13),
    ("joint: spherical,", "joint: spherical, pitch: 0.1,", "link 5.pitch",
     "pitch belongs to a helical joint", 22),
    ("axis2: [0.8, 0.6, 0]", "axis2: [0.8, 0.6, 0.1]", "link 4.axis2",
     "the second axis is not normal to the first", 19),
    ("  - {name: flap, parent: lid, joint: revolute, mimic: lid,",
     "  - {name: flap, parent: lid, joint: revolute, mimic: held,", "link 8.mimic",
     "'held' is a free_flyer joint, whose configuration is a position and a quaternion", 29),
    ("frames:", "constraints:\n  - {name: c, point: [knob]}\nclosed_at: {cart: [0, 0, 0.6, 0.6]}"
     "\nframes:", "closed_at.cart", "the (cos, sin) is not a unit one", 34),
    ("frames:", "tendons:\n  - {name: t, joints: {slide: 1, lid: 1}}\nframes:",
     "tendons[0].joints", "'slide' is a translation joint, whose configuration is a position",
     33),
]


@pytest.mark.parametrize("old, new, field, words, line", REFUSALS,
                         ids=["limits", "axis", "no pitch", "pitch", "axis2", "mimic",
                              "closed_at", "tendon"])
def test_what_a_kind_cannot_have_is_refused_in_one_line(tmp_path, old, new, field, words,
                                                        line):
    text = TREE.read_text()
    assert old in text
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new, 1))
    assert_refused_in_one_line(tmp_path, path, field, words, line)


@pytest.mark.parametrize("joint", ["planar", "helical", "translation", "free_flyer"])
def test_a_kind_dh_does_not_place_is_refused_in_a_dh_table(tmp_path, joint):
    path = tmp_path / "dh.yaml"
    path.write_text("name: dh\nconvention: modified\nlinks:\n"
                    f"  - {{joint: {joint}, a: 0, alpha: 0, d: 0, theta: 0, mass: 1}}\n")
    assert_refused_in_one_line(tmp_path, path, "link 1.joint",
                               f"a {joint} joint is placed by its origin in convention urdf", 4)


@pytest.mark.parametrize("command, words", [
    ("export-urdf", "URDF has no helical joint (screw)"),
    ("export-mjcf", "MJCF has no planar joint (cart); export-urdf writes it as a planar joint")])
def test_a_format_without_a_kind_is_refused_in_one_line(tmp_path, command, words):
    out = tmp_path / "out.xml"
    result = CliRunner().invoke(main, [command, str(TREE), "-o", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output and not out.exists()
    assert words in result.output


def test_the_printout_and_the_drawing_take_every_kind(tmp_path):
    """The derivation names each kind's variables (a planar joint's q1c, v1w; a free flyer's
    q6qw), and the drawing draws the tree."""
    result = CliRunner().invoke(main, ["derive", str(TREE)])
    assert result.exit_code == 0, result.output
    assert "q1c" in result.output and "v1w" in result.output and "q6qw" in result.output
    picture = tmp_path / "kinds.svg"
    result = CliRunner().invoke(main, ["draw", str(TREE), "-o", str(picture)])
    assert result.exit_code == 0 and picture.exists(), result.output


def _imported_and_checked(tmp_path, urdf: Path, states: int) -> tuple[str, str]:
    """``symdyn import`` of the URDF, then ``symdyn check --urdf`` of what it wrote against
    Pinocchio's own reader of the URDF: the import's output and the check's."""
    out = tmp_path / "imported.yaml"
    imported = CliRunner().invoke(main, ["import", str(urdf), "-o", str(out)])
    assert imported.exit_code == 0, imported.output
    checked = CliRunner().invoke(main, ["check", str(out), "--urdf", str(urdf), "--states",
                                        str(states)])
    assert checked.exit_code == 0 and "FAILED" not in checked.output, checked.output
    return imported.output, checked.output


def test_urdf_planar_and_floating_joints_import_and_match_pinocchios_reader(tmp_path):
    """A planar cart, an arm on it and a box floating below the arm: every row against
    Pinocchio's reader of the URDF (JointModelPlanar, JointModelFreeFlyer inside the tree); the
    planar joint's damping, which a robot file's planar joint does not have, left out and
    said."""
    imported, checked = _imported_and_checked(
        tmp_path, TREE.parent / "planar_floating.urdf", 30)
    assert "'slide_plane' <dynamics>" in imported
    for row in ("inverse_dynamics = Pinocchio rnea", "mass_matrix = Pinocchio crba",
                "forward_dynamics_derivatives = Pinocchio computeABADerivatives",
                "centroidal_map = Pinocchio computeCentroidalMap",
                "frame_jacobians = Pinocchio frame Jacobians"):
        assert row in checked
    spec = symdyn.load_robot(tmp_path / "imported.yaml").spec
    assert [link.joint for link in spec.links] == ["planar", "revolute", "free_flyer"]


def test_unitree_g1_with_its_authors_floating_joint_matches_pinocchio(tmp_path):
    """example-robot-data's Unitree G1 as its authors write it for MuJoCo: a floating joint from
    a world link (commented out in the file, "uncomment when convert to mujoco"), here a free
    flyer inside the tree; 29 joints below it."""
    source = Path(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots/g1_description/urdf/g1_29dof_rev_1_0.urdf"))
    commented = ('<!-- <link name="world"></link>', '</joint> -->')
    text = source.read_text()
    assert all(part in text for part in commented)
    urdf = tmp_path / "g1_floating.urdf"
    urdf.write_text(text.replace(commented[0], '<link name="world"></link>').replace(
        commented[1], "</joint>", 1))
    _, checked = _imported_and_checked(tmp_path, urdf, 5)
    robot = symdyn.load_robot(tmp_path / "imported.yaml")
    assert robot.links[0].joint == "free_flyer" and (robot.nq, robot.dof) == (36, 35)
    assert "inverse_dynamics_derivatives = Pinocchio computeRNEADerivatives" in checked


def test_planar_and_floating_joints_export_to_urdf_as_pinocchio_reads_them(tmp_path):
    """export-urdf writes them as URDF's planar (its axis the normal, z) and floating joints
    (no axis, no limits): Pinocchio's reader of the export equals the robot file."""
    _imported_and_checked(tmp_path, TREE.parent / "planar_floating.urdf", 5)
    exported = tmp_path / "exported.urdf"
    result = CliRunner().invoke(main, ["export-urdf", str(tmp_path / "imported.yaml"), "-o",
                                       str(exported)])
    assert result.exit_code == 0, result.output
    text = exported.read_text()
    assert 'type="planar"' in text and 'type="floating"' in text
    checked = CliRunner().invoke(main, ["check", str(tmp_path / "imported.yaml"), "--urdf",
                                        str(exported), "--states", "10"])
    assert checked.exit_code == 0 and "FAILED" not in checked.output, checked.output
    assert "mass_matrix = Pinocchio crba (exported.urdf)" in checked.output


def test_a_free_flyer_inside_the_tree_is_refused_by_export_mjcf_in_one_line(tmp_path):
    out = tmp_path / "out.xml"
    imported = tmp_path / "imported.yaml"
    CliRunner().invoke(main, ["import", str(TREE.parent / "planar_floating.urdf"), "-o",
                              str(imported)])
    result = CliRunner().invoke(main, ["export-mjcf", str(imported), "-o", str(out)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "MJCF has no planar joint (slide_plane)" in result.output and not out.exists()
    imported.write_text(imported.read_text().replace("joint: planar", "joint: revolute"))
    result = CliRunner().invoke(main, ["export-mjcf", str(imported), "-o", str(out)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert ("MJCF holds a free joint on a body of the world alone" in result.output
            and "(held)" in result.output and not out.exists())


@pytest.mark.parametrize("path", [TREE.parent / "ball_tree.yaml", "no universal"],
                         ids=["ball_tree", "kinds_tree without its universal joint"])
def test_joints_of_several_velocities_take_the_composite_route(tmp_path, monkeypatch, path):
    """ID derivatives of balls, planar, translation and free-flyer joints by the composite
    formulas (Pinocchio's computeRNEADerivatives in the joint frames), equal to Pinocchio's to
    1e-12 on 20 states, in fewer operations than the recursion differentiated forward (which
    a universal joint, whose motion subspace turns, still takes)."""
    if path == "no universal":      # nor the mimic flap: Pinocchio differentiates no mimic
        text = TREE.read_text()
        path = tmp_path / "no_universal.yaml"
        path.write_text(text[:text.index("  - {name: cardan,")]
                        + text[text.index("  - {name: ball,"):text.index("  - {name: flap,")]
                        + "frames:\n  - {name: tip, parent: slide, xyz: [0.05, 0.02, 0.1]}\n")
    robot = symdyn.load_robot(path)
    assert all(link.kind.constant for link in robot.links) and not robot.coupling
    assert any(link.nv > 1 for link in robot.links)
    dynamics = symdyn.newton_euler(robot)
    composite = op_count(dynamics.program("inverse_dynamics_derivatives"))
    with monkeypatch.context() as patched:
        for kind in {type(link.kind) for link in robot.links}:
            patched.setattr(kind, "constant", False)
        forward = op_count(symdyn.newton_euler(robot).program("inverse_dynamics_derivatives"))
    assert composite.mul < forward.mul and composite.add < forward.add, (composite, forward)
    module = symdyn.python_module(dynamics, quantities=["inverse_dynamics_derivatives"])
    model = pinocchio_model(robot.spec)
    data = model.createData()
    rng = np.random.default_rng(12)
    for q in configurations(robot, rng, 20):     # links depth first: Pinocchio's order
        v, a = rng.uniform(-2, 2, (2, robot.dof))
        pin.computeRNEADerivatives(model, data, q, v, a)
        assert_close(module.inverse_dynamics_derivatives(q, v, a),
                     (data.dtau_dq, data.dtau_dv), rtol=1e-12)
