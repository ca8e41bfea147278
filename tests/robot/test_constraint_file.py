"""Constraints in the robot file: what a file cannot mean is refused in one line, at the
constraint, with exit code 2 and nothing written (the four-bar of tests/derive/mechanisms
with one thing changed)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import symdyn
from symdyn.cli import main
from symdyn.robot.file import robot_spec_from_text
from symdyn.robot.model import Robot

FOURBAR = (Path(__file__).parent.parent / "derive" / "mechanisms" / "fourbar.yaml").read_text()
LOOP = "  - {name: pin, point: [coupler_end, rocker_end], axes: [x, y]}"


def _swap(old, new):
    assert old in FOURBAR
    return FOURBAR.replace(old, new, 1)


BAD = [
    ("a frame nobody is named", _swap("rocker_end]", "rocker_tip]"),
     "'rocker_tip' names no frame or link"),
    ("two kinds", _swap(LOOP, LOOP[:-1] + ", weld: [crank]}"), "exactly one kind"),
    ("three frames", _swap("[coupler_end, rocker_end]", "[coupler_end, rocker_end, crank]"),
     "one frame (held to the world) or two"),
    ("a frame held to itself", _swap("[coupler_end, rocker_end]", "[rocker_end, rocker_end]"),
     "held to itself"),
    ("an axis a point has not", _swap("axes: [x, y]", "axes: [x, rz]"), "'rz' is not known"),
    ("an axis twice", _swap("axes: [x, y]", "axes: [x, x]"), "an axis is given twice"),
    ("a name twice", _swap(LOOP, LOOP + "\n" + LOOP), "the constraint name 'pin' is given twice"),
    ("at with two frames", _swap("axes: [x, y]", "at: {xyz: [0, 0, 0]}"), "at only with one frame"),
    ("a loop left open", _swap("rocker: -0.1597275662359972", "rocker: -0.2"),
     "constraint 'pin': it does not hold: off by"),
    ("a joint nobody is named", _swap("closed_at: {crank", "closed_at: {cranck"),
     "'cranck' names no joint"),
    ("root on a fixed base", _swap("closed_at: {crank", "closed_at: {root: {xyz: [0, 0, 1]}, "
                                   "crank"), "'root' names no joint"),
    ("a floating base's pose symbolic", _swap("closed_at: {crank", "closed_at: {root: {xyz: "
                                              "[0, 0, h]}, crank").replace(
        "convention: urdf", "convention: urdf\nroot: free_flyer"), "h is not a number"),
    ("actuated unknown", _swap("actuated: [crank]", "actuated: [motor]"),
     "'motor' names no joint with a coordinate"),
    ("a coupling of nothing", _swap(LOOP, "  - {name: t, coupling: {crank: 0}}"),
     "every coefficient is 0"),
    ("a coupling's value symbolic", _swap(LOOP, "  - {name: t, coupling: {crank: 1}, value: k}"),
     "is not a number"),
    ("a coupling with axes", _swap(LOOP, "  - {name: t, coupling: {crank: 1}, axes: [x]}"),
     "a coupling has no axes"),
    ("constraints empty", _swap(LOOP, "  []").replace("constraints:\n  []", "constraints: []"),
     "must be a non-empty list of constraints"),
    ("closed_at without constraints", _swap("constraints:\n" + LOOP + "\n", ""),
     "closed_at belongs to a robot with constraints"),
    ("a tendon of an unknown joint", FOURBAR + "tendons:\n  - {name: t, joints: {elbow: 1}}\n",
     "tendons[0].joints: 'elbow' names no joint"),
    ("a tendon twice", FOURBAR + "tendons:\n  - {name: t, joints: {crank: 1}}\n"
     "  - {name: t, joints: {rocker: 1}}\n", "the tendon name 't' is given twice"),
    ("a tendon of nothing", FOURBAR + "tendons:\n  - {name: t, joints: {crank: 0}}\n",
     "every coefficient is 0"),
    ("a tendon without joints", FOURBAR + "tendons:\n  - {name: t}\n",
     "missing required field 'joints'"),
    # a geometry with free symbols: where loops close is found in numbers (it crashed the load)
    ("a frame placed by a symbol", _swap("coupler, xyz: [0.3, 0, 0]", "coupler, xyz: [L, 0, 0]"),
     "a robot with constraints has its geometry in numbers, and frames (coupler_end) holds L"),
    ("a link placed by a symbol", _swap("xyz: [0.1, 0, 0]", "xyz: [l1, 0, 0]"),
     "link 2 (its placement) holds l1"),
    ("a contact placed by a symbol", _swap(LOOP, "  - {name: pin, point: [coupler_end], "
                                                 "at: {xyz: [p, 0, 0]}}").replace(
        "actuated: [crank]", ""), "constraints (pin: at) holds p"),
]


@pytest.mark.parametrize("text, words", [case[1:] for case in BAD],
                         ids=[case[0] for case in BAD])
def test_a_constraint_a_file_cannot_mean_is_refused_in_one_line(tmp_path, text, words):
    path = tmp_path / "fourbar.yaml"
    path.write_text(text)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["generate", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], result.stderr
    assert "fourbar.yaml:" in lines[0] and not out.exists()


def test_rows_that_repeat_others_are_refused_naming_them(tmp_path):
    """The planar four-bar closed by a point constraint of all three axes: its z row is zero
    (the loop lies in the plane), so lambda is not unique: generate says which constraint to
    give fewer axes and which to keep, in one line, and writes nothing; so does the z row
    alone."""
    for axes in ("", ", axes: [x, y, z]"):
        path = tmp_path / "fourbar.yaml"
        path.write_text(_swap(", axes: [x, y]", axes))
        result = CliRunner().invoke(main, ["generate", str(path), "--out", str(tmp_path / "o"),
                                           "-q"])
        assert result.exit_code == 2, result.output
        assert "rank 2 where they hold: give pin axes: [x, y]" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


def test_a_mechanism_whose_actuated_joints_leave_it_undetermined_has_no_closed_loop_dynamics(
        tmp_path):
    """The four-bar driven at its rocker and crank both (two actuated, one degree of freedom):
    its passive joint's column of G cannot make lambda's two rows; closed_loop_inverse_dynamics
    and close_loops say why they are not there, and generate refuses the file."""
    text = _swap("actuated: [crank]", "actuated: [crank, rocker]")
    dynamics = symdyn.newton_euler(Robot.from_spec(robot_spec_from_text(text, "f.yaml")))
    why = dynamics.unavailable("closed_loop_inverse_dynamics")
    assert "the passive joints' 1 columns of G have rank 1" in why
    assert dynamics.unavailable("close_loops") == why
    assert dynamics.unavailable("constrained_forward_dynamics") is None
    # generate refuses the file that asks for it, in one line, writing nothing
    path = tmp_path / "fourbar.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["generate", str(path), "--out", str(tmp_path / "o"),
                                       "-q"])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert "fourbar.yaml: actuated: the passive joints' 1 columns of G have rank 1" in line
    assert not (tmp_path / "o").exists()


def test_a_mechanism_with_a_symbolic_mass_is_derived_with_the_symbol(tmp_path):
    """The four-bar driven at its crank with the crank's mass a symbol (its rank checks
    subscripted None): generate writes its closed-loop inverse dynamics, which take mc in
    params and equal the numeric robot's at mc = 1."""
    numeric = symdyn.load_robot(_write(tmp_path / "n.yaml", FOURBAR))
    symbolic = symdyn.load_robot(_write(tmp_path / "s.yaml", _swap(
        "mass: 1, com: [0.05", "mass: mc, com: [0.05")))
    assert [str(s) for s in symbolic.parameters] == ["mc"]
    quantities = ["closed_loop_inverse_dynamics"]
    ours = symdyn.python_module(symdyn.newton_euler(symbolic), quantities=quantities)
    theirs = symdyn.python_module(symdyn.newton_euler(numeric), quantities=quantities)
    q = np.array([1.0, -0.6126996463894206, -0.1597275662359972])
    v, a = np.array([0.3, -0.2, 0.1]), np.array([1.0, 0.5, -0.5])
    for x, y in zip(ours.closed_loop_inverse_dynamics(q, v, a, np.array([1.0])),
                    theirs.closed_loop_inverse_dynamics(q, v, a)):
        np.testing.assert_allclose(x, y, rtol=1e-12)


def _write(path, text):
    path.write_text(text)
    return path


def test_a_mechanism_whose_closed_at_is_an_actuation_singularity_is_driven_elsewhere(tmp_path):
    """A four-bar (crank 0.2, coupler 0.3, rocker 0.1, ground 0.3) whose closed_at has its
    coupler and rocker in a line off the ground's: the passive joints' columns of G lose rank
    there, and there only, while G keeps its own. It was refused as a mechanism its motors
    never drive; the same file with closed_at elsewhere generated. Now it generates, and its
    closed-loop inverse dynamics equal the KKT of Pinocchio's tree near that configuration."""
    from symdyn.reference import ConstraintReference

    text = _swap("origin: {xyz: [0.1, 0, 0]}", "origin: {xyz: [0.2, 0, 0]}").replace(
        "rocker, xyz: [0, 0.2, 0]", "rocker, xyz: [0, 0.1, 0]").replace(
        "closed_at: {crank: 1.0, coupler: -0.6126996463894206, rocker: -0.1597275662359972}",
        "closed_at: {crank: 1.8234765819369754, coupler: -2.3288370922211326, "
        "rocker: 1.0654358165107394}")
    robot = symdyn.load_robot(_write(tmp_path / "toggle.yaml", text))
    dynamics = symdyn.newton_euler(robot)
    assert dynamics.unavailable("closed_loop_inverse_dynamics") is None
    module = symdyn.python_module(dynamics, quantities=["closed_loop_inverse_dynamics"])
    reference = ConstraintReference(robot)
    rng = np.random.default_rng(10)
    for _ in range(5):
        q, v, qdd = reference.state(rng, spread=0.3)
        tau_a, lam = module.closed_loop_inverse_dynamics(q, v, qdd)
        full = np.zeros(robot.dof)
        full[list(robot.actuated)] = tau_a
        back, _ = reference.kkt(q, v, full)
        np.testing.assert_allclose(back, qdd, rtol=1e-7, atol=1e-7)
