"""Spherical joints: q a unit quaternion (x, y, z, w), v the angular velocity in the joint's
frame (Pinocchio's JointModelSpherical, whose model of the same robot file is the reference).

A tree with two spherical joints and generic placements, on a fixed and a floating base, goes
through every row of ``check`` (Pinocchio's rnea, crba, aba, their derivatives in the tangent
space, kinematics, energies, centroidal quantities, integrate and difference); a spatial
four-bar closed by a point constraint (RSSR) through the constraints' quantities against
Pinocchio's KKT; the generated C against the Python; and the robot file's refusals.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import (
    assert_compiled_is_python,
    assert_refused_in_one_line,
    constrained_states,
    rk4,
)

import symdyn
from symdyn.check import check, configuration_rate
from symdyn.cli import main
from symdyn.errors import DerivationError
from symdyn.reference import ConstraintReference

HERE = Path(__file__).parent / "mechanisms"
TREE = HERE / "ball_tree.yaml"


def _floating(tmp_path) -> Path:
    path = tmp_path / "ball_tree_floating.yaml"
    path.write_text(TREE.read_text().replace(
        "convention: urdf\n", "convention: urdf\nroot: free_flyer\nbase_body: {mass: 3, "
        "com: [0.01, 0.02, -0.03], inertia: [0.05, 0.06, 0.07, 0.001, 0.002, 0.003]}\n"))
    return path


@pytest.mark.parametrize("kind", ["fixed", "floating", "mimic"])
def test_a_tree_with_spherical_joints_passes_every_check(tmp_path, kind):
    """Every row against Pinocchio's model with JointModelSpherical, 100 random states with
    unit quaternions: on a fixed base, a floating one, and with a mimic joint and a file not
    depth first (the coupling G between velocities, Pinocchio's order)."""
    path = {"fixed": TREE, "floating": _floating(tmp_path),
            "mimic": HERE / "ball_mimic.yaml"}[kind]
    robot = symdyn.load_robot(path)
    assert [link.joint for link in robot.several] == ["spherical"] * 2
    assert (robot.nq, robot.dof) == {"fixed": (11, 9), "floating": (18, 15),
                                     "mimic": (12, 10)}[kind]
    rows = check(robot, states=100)
    failed = [row for row in rows if not row.passed]
    assert not failed, failed
    checked = {row.check.split(" = ")[0] for row in rows if not row.skipped}
    assert {"inverse_dynamics", "mass_matrix", "forward_dynamics",
            "inverse_dynamics_derivatives", "forward_dynamics_derivatives", "frame_jacobians",
            "frame_jacobians_dot_qd", "centroidal_map", "kinetic_energy",
            "coriolis_matrix"} <= checked
    with pytest.raises(DerivationError, match="whose q moves at its velocity"):
        symdyn.lagrange(robot)


def test_a_spatial_four_bar_closed_by_a_point_equals_pinocchios_kkt():
    """RSSR: phi, G, gamma, the constrained forward dynamics (with Baumgarte's gains), the
    Delassus matrix and an impact on 20 random consistent states, against the KKT system of
    Pinocchio's M, h and frame Jacobians (1e-9)."""
    robot = symdyn.load_robot(HERE / "rssr.yaml")
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "constraint_residual", "constraint_jacobian", "constraint_drift",
        "constrained_forward_dynamics", "delassus_matrix", "impulse_dynamics"])
    for _, q, _, _ in constrained_states(robot, module, np.random.default_rng(7)):
        assert abs(np.linalg.norm(q[1:5]) - 1) < 1e-12       # the ball's quaternion


def test_the_c_of_spherical_joints_equals_the_python(tmp_path):
    """The generated C, compiled, gives the Python's numbers on random states."""
    assert_compiled_is_python(symdyn.load_robot(TREE), tmp_path, 3)


REFUSALS = [
    ("joint: spherical, origin: {xyz: [0.02",
     "joint: spherical, axis: [0, 0, 1], origin: {xyz: [0.02", "link 2.axis",
     "a spherical joint has no axis", 11),
    ("joint: spherical, origin: {xyz: [0.02",
     "joint: spherical, motor_inertia: 0.1, origin: {xyz: [0.02", "link 2.motor_inertia",
     "a spherical joint has no motor inertia", 11),
    ("  - {name: hand, parent: fore,", "  - {name: hand, mimic: fore, parent: fore,",
     "link 3.mimic", "is a spherical joint, whose configuration is a quaternion", 13),
    ("frames:", "constraints:\n  - {name: c, point: [tip, bob]}\nclosed_at: {fore: 0.3}\n"
     "frames:", "closed_at.fore", "a spherical joint's value is its configuration, a "
     "quaternion", 23),
    ("frames:", "constraints:\n  - {name: c, point: [tip, bob]}\n"
     "closed_at: {fore: [0, 0, 0.5, 0.8]}\nframes:", "closed_at.fore",
     "the quaternion is not a unit one", 23),
    ("frames:", "tendons:\n  - {name: t, joints: {fore: 1, upper: 1}}\nframes:",
     "tendons[0].joints", "is a spherical joint, whose configuration is a quaternion", 22),
]


@pytest.mark.parametrize("old, new, field, words, line", REFUSALS,
                         ids=["axis", "rotor", "mimic", "closed_at", "not unit", "tendon"])
def test_what_a_spherical_joint_cannot_have_is_refused_in_one_line(tmp_path, old, new, field,
                                                                  words, line):
    text = TREE.read_text()
    assert old in text
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new, 1))
    assert_refused_in_one_line(tmp_path, path, field, words, line)


def test_a_spherical_joint_in_a_dh_table_is_refused_in_one_line(tmp_path):
    path = tmp_path / "dh.yaml"
    path.write_text("name: dh\nconvention: modified\nlinks:\n"
                    "  - {joint: spherical, a: 0, alpha: 0, d: 0, theta: 0, mass: 1}\n")
    assert_refused_in_one_line(tmp_path, path, "link 1.joint",
                               "placed by its origin in convention urdf", 4)



@pytest.mark.parametrize("name, freedom", [("delta", 3), ("stewart", 6)])
def test_parallel_robots_on_spherical_joints_pass_every_check(name, freedom):
    """The Delta robot (three parallelograms, the platform on a spherical joint, five point
    constraints, three actuated arms) and a Stewart-Gough platform (six legs of a universal
    joint and a piston, the platform on a spherical joint, five point constraints, six
    actuated pistons): every row of check, the constraints' against Pinocchio's KKT (the
    closed-loop inverse dynamics back to qdd and lambda, the loops closed from passive joints
    moved, the platform's quaternion among them), at the file's closed_at, a unit quaternion
    for the spherical joint."""
    robot = symdyn.load_robot(HERE / f"{name}.yaml")
    assert len(robot.actuated) == freedom
    assert robot.dof - sum(c.size for c in robot.constraints) == freedom
    rows = check(robot, states=30)
    assert not [row for row in rows if not row.passed]
    checked = {row.check.split(" = ")[0].split(":")[0] for row in rows if not row.skipped}
    assert {"closed_loop_inverse_dynamics", "close_loops from the passive joints 0.05 rad off",
            "constrained_forward_dynamics", "forward_dynamics"} <= checked


def test_urdf_has_no_spherical_joint_and_the_export_says_so(tmp_path):
    out = tmp_path / "ball_tree.urdf"
    result = CliRunner().invoke(main, ["export-urdf", str(TREE), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert "URDF has no spherical joint (fore, pendulum); export-mjcf writes it as a ball" in (
        result.output)


def test_the_printout_names_a_spherical_joints_variables():
    """The derivation shows omega_i = R^T omega_{i-1} + w with w the joint's angular velocity
    (ω2x, ...) and its quaternion's entries (q2x, ...), in text and LaTeX."""
    result = CliRunner().invoke(main, ["derive", str(TREE)])
    assert result.exit_code == 0, result.output
    assert "ω̇2x" in result.output and "q2w" in result.output
    latex = CliRunner().invoke(main, ["derive", str(TREE), "--format", "latex"])
    assert latex.exit_code == 0 and r"\omega_{2,x}" in latex.output


@pytest.mark.parametrize("command", [["excite", "-o", "x.csv"], ["identify", "data.csv"]])
def test_identification_takes_one_axis_joints_and_says_so(tmp_path, command):
    (tmp_path / "data.csv").write_text("t,q1\n0,0\n")
    result = CliRunner().invoke(main, [command[0], str(TREE), *(
        str(tmp_path / c) if c.endswith(".csv") else c for c in command[1:])])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "a spherical joint's (fore, pendulum) motion is not one number's" in result.output
    assert not (tmp_path / "x.csv").exists()


def test_a_simulated_delta_keeps_its_loops_closed_and_its_energy():
    """The Delta without friction falls under gravity for 0.5 s from a closed state (to 5
    rad/s), its constrained forward dynamics with Baumgarte's gains integrated by RK4 with q's
    rate (the platform's quaternion moving as quat (omega, 0) / 2: check.configuration_rate):
    the loops' residual stays below 1e-8 and the energy within 1e-7 of its start, and both to
    the integrator's order (halving the step from 0.5 ms brings the energy's error about 20
    times closer; from 1 ms it is not yet there, a loop's rows in its arm's turning axes)."""
    robot = symdyn.load_robot(HERE / "delta.yaml", without=("friction",))
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "constrained_forward_dynamics", "constraint_residual", "kinetic_energy",
        "potential_energy"])
    q0, v0, _ = ConstraintReference(robot).state(np.random.default_rng(5), spread=0.05)
    nq, zero = robot.nq, np.zeros(robot.dof)

    def energy(x):
        return float(module.kinetic_energy(x[:nq], x[nq:]) + module.potential_energy(x[:nq]))

    def run(gains, dt, seconds=0.5):
        def f(x):
            q, v = x[:nq], x[nq:]
            return np.r_[configuration_rate(robot, q[None], v[None])[0],
                         module.constrained_forward_dynamics(q, v, zero, gains)[0]]
        x, residual = rk4(f, np.r_[q0, v0], dt, round(seconds / dt),
                          lambda x: np.abs(module.constraint_residual(x[:nq])).max())
        return residual, energy(x)

    start, gains = energy(np.r_[q0, v0]), np.array([400.0, 40.0])
    held, end = run(gains, 2.5e-4)
    assert held < 1e-8 and abs(end - start) < 1e-7 * max(1.0, abs(start))
    coarse = abs(run(gains, 5e-4)[1] - start)
    assert abs(end - start) < coarse / 8
