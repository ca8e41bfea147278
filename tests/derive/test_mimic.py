"""Mimic joints: q_j = multiplier q_i + offset. The generated functions take the coordinates
alone (Pinocchio's models with mimic joints), and their forces are the generalized forces on
them, G^T tau.

Pinocchio 4.1 is the reference where it takes mimic joints (rnea, crba, gravity, Jacobians,
centre of mass); for what it refuses or gets wrong with them (the derivatives, the regressor,
the energies; computeCoriolisMatrix, whose C qd is not h - g with a mimic joint) its model with
every joint free is, with the coupling applied by hand: q_links = G q + c, and G^T X G.
"""
from __future__ import annotations

import textwrap

import numpy as np
import pinocchio as pin
import pytest
import sympy
from click.testing import CliRunner
from support import assert_refused_in_one_line, random_tree

import symdyn
from symdyn.cli import main
from symdyn.derive.regressor import standard_parameters
from symdyn.program import evaluate
from symdyn.program.passes import eliminate_dead_code
from symdyn.reference import pinocchio_model

GRIPPER = """\
name: gripper
convention: modified
links:
  - {name: wrist, joint: revolute, alpha: 0, a: 0, d: 0.3, theta: 0, mass: 2,
     com: [0.1, 0.02, 0.05], inertia: [0.02, 0.02, 0.03, 0.001, 0.002, 0.003]}
  - {name: left, joint: revolute, alpha: pi/2, a: 0.1, d: 0, theta: 0.3, mass: 1.5,
     com: [0.05, 0.02, 0.01], inertia: [0.01, 0.02, 0.015, 0.001, 0, 0.002],
     motor_inertia: 0.01, gear_ratio: 3}
  - {name: right, parent: wrist, joint: revolute, gamma: 0.5, b: 0.1, alpha: -pi/2, a: 0.2,
     d: 0.05, theta: 0, mass: 1.0, com: [0.02, 0.03, 0.04],
     inertia: [0.005, 0.006, 0.007, 0.0005, 0.0006, 0.0007],
     mimic: left, multiplier: -0.7, offset: 0.2, motor_inertia: 0.02, gear_ratio: 2}
  - {name: slide, joint: prismatic, alpha: pi/2, a: 0.1, d: 0.1, theta: 0.2, mass: 0.5,
     com: [0.0, 0.01, 0.02], inertia: [0.001, 0.002, 0.003, 0, 0, 0]}
"""


def write(tmp_path, text, name="gripper.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


class Reference:
    """Pinocchio's model with mimic joints, and with every joint free plus the coupling."""

    def __init__(self, robot):
        # Pinocchio takes a mimic joint only after the joint it follows (in its depth-first
        # order); symdyn takes it anywhere, and is checked against the free model there
        followed_first = all(link.mimic is None or link.mimic < i
                             for i, link in enumerate(robot.spec.links, start=1))
        self.model = pinocchio_model(robot.spec) if followed_first else None
        self.free = pinocchio_model(robot.spec, mimic=False)
        self.G = np.array(robot.coupling_matrix, dtype=float)
        self.c = np.array([float(robot.coupling[q].subs({s: 0 for s in robot.q}))
                           if q in robot.coupling else 0.0 for q in robot.link_q])

    def links(self, q, qd, qdd):
        return self.G @ q + self.c, self.G @ qd, self.G @ qdd

    def fresh(self):
        # Pinocchio 4.1's crba adds a mimic joint's terms into data.M without clearing it:
        # each call gets data of its own.
        return self.model.createData()


def values(robot, q, qd=None, qdd=None):
    out = dict(zip(robot.q, q))
    out.update(zip(robot.qd, qd if qd is not None else []))
    out.update(zip(robot.qdd, qdd if qdd is not None else []))
    return out


def run(dynamics, name, point, output=None):
    return evaluate(eliminate_dead_code(dynamics.program(name)), point, output)


def test_a_mimic_joint_has_no_coordinate(tmp_path):
    robot = symdyn.load_robot(write(tmp_path, GRIPPER))
    q1, q2, q3 = robot.link_q[:3]
    assert robot.dof == 3 and robot.coordinates == (1, 2, 4)
    assert robot.q == (q1, q2, robot.link_q[3])
    assert robot.coupling[q3] == sympy.Rational(1, 5) - sympy.Rational(7, 10) * q2
    assert robot.coupling_matrix == sympy.Matrix([[1, 0, 0], [0, 1, 0],
                                                  [0, sympy.Rational(-7, 10), 0], [0, 0, 1]])
    assert robot.coordinate_parents == (-1, 0, 1)


def test_the_gripper_equals_pinocchio_by_both_routes(tmp_path):
    robot = symdyn.load_robot(write(tmp_path, GRIPPER))
    ref = Reference(robot)
    rng = np.random.default_rng(3)
    for dynamics in (symdyn.newton_euler(robot), symdyn.lagrange(robot)):
        for q, qd, qdd in rng.uniform(-2, 2, (5, 3, robot.dof)):
            point = values(robot, q, qd, qdd)
            tau = run(dynamics, "inverse_dynamics", point)
            np.testing.assert_allclose(tau, pin.rnea(ref.model, ref.fresh(), q, qd, qdd),
                                       atol=1e-12)
            M = pin.crba(ref.model, ref.fresh(), q)
            np.testing.assert_allclose(run(dynamics, "mass_matrix", point),
                                       np.triu(M) + np.triu(M, 1).T, atol=1e-12)
            taus = dict(zip(dynamics.program("forward_dynamics").inputs[2].values, tau))
            np.testing.assert_allclose(run(dynamics, "forward_dynamics", point | taus), qdd,
                                       atol=1e-10)


def test_random_trees_with_mimic_joints_equal_pinocchio(tmp_path):
    """Every quantity, on random trees in both robot-file forms with mimic joints of either
    kind, followed across branches too."""
    rng = np.random.default_rng(21)
    representable = 0
    for k, convention in enumerate(["modified", "urdf", "modified", "urdf", "modified"]):
        robot = random_tree(tmp_path, rng, name=f"m{k}", dof=6, convention=convention,
                            mimics=2)
        assert robot.dof < len(robot.links)
        ref, ne = Reference(robot), symdyn.newton_euler(robot)
        representable += ref.model is not None
        pi = np.array([float(v) for _, v in standard_parameters(robot)])
        full = ref.free.createData()
        for q, qd, qdd in rng.uniform(-2, 2, (4, 3, robot.dof)):
            point = values(robot, q, qd, qdd)
            ql, qdl, qddl = ref.links(q, qd, qdd)
            G = ref.G
            tau = run(ne, "inverse_dynamics", point)
            np.testing.assert_allclose(tau, G.T @ pin.rnea(ref.free, full, ql, qdl, qddl),
                                       atol=1e-11)
            np.testing.assert_allclose(run(ne, "gravity_torques", point), G.T @ (
                pin.computeGeneralizedGravity(ref.free, full, ql)), atol=1e-11)
            np.testing.assert_allclose(run(ne, "coriolis_matrix", point), G.T @ (
                pin.computeCoriolisMatrix(ref.free, full, ql, qdl)) @ G, atol=1e-11)
            dq, dqd, _ = pin.computeRNEADerivatives(ref.free, full, ql, qdl, qddl)
            P = "inverse_dynamics_derivatives"
            np.testing.assert_allclose(run(ne, P, point, "dtau_dq"), G.T @ dq @ G, atol=1e-10)
            np.testing.assert_allclose(run(ne, P, point, "dtau_dqd"), G.T @ dqd @ G,
                                       atol=1e-10)
            Y = run(ne, "regressor", point)
            np.testing.assert_allclose(Y @ pi, tau, atol=1e-10)
            if convention == "modified":     # Pinocchio's body frames are the joint frames
                np.testing.assert_allclose(Y, G.T @ pin.computeJointTorqueRegressor(
                    ref.free, full, ql, qdl, qddl), atol=1e-10)
            np.testing.assert_allclose(run(ne, "kinetic_energy", point),
                                       pin.computeKineticEnergy(ref.free, full, ql, qdl),
                                       atol=1e-11)
            pin.forwardKinematics(ref.free, full, ql, qdl, 0 * qdl)
            pin.updateFramePlacements(ref.free, full)
            tool = ref.free.getFrameId("tool")
            np.testing.assert_allclose(run(ne, "jacobian", point), pin.computeFrameJacobian(
                ref.free, full, ql, tool, pin.LOCAL_WORLD_ALIGNED) @ G, atol=1e-11)
            np.testing.assert_allclose(
                run(ne, "jacobian_dot_qd", point),
                pin.getFrameClassicalAcceleration(ref.free, full, tool,
                                                  pin.LOCAL_WORLD_ALIGNED).vector, atol=1e-10)
            np.testing.assert_allclose(run(ne, "com_jacobian", point),
                                       pin.jacobianCenterOfMass(ref.free, full, ql) @ G,
                                       atol=1e-11)
            poses = run(ne, "link_poses", point)
            assert poses.shape == (len(robot.links), 4, 4)
            pin.framesForwardKinematics(ref.free, full, ql)
            for i in range(len(robot.links)):
                frame = full.oMf[ref.free.getFrameId(f"link{i + 1}")]
                np.testing.assert_allclose(poses[i], frame.homogeneous, atol=1e-11)
            if ref.model is not None:       # Pinocchio's own mimic joints
                np.testing.assert_allclose(tau, pin.rnea(ref.model, ref.fresh(), q, qd, qdd),
                                           atol=1e-11)
                M = pin.crba(ref.model, ref.fresh(), q)
                np.testing.assert_allclose(run(ne, "mass_matrix", point),
                                           np.triu(M) + np.triu(M, 1).T, atol=1e-11)
                np.testing.assert_allclose(run(ne, "com_jacobian", point),
                                           pin.jacobianCenterOfMass(ref.model, ref.fresh(), q),
                                           atol=1e-11)
        P = "forward_dynamics_derivatives"
        q, qd, tau = rng.uniform(-2, 2, (3, robot.dof))
        point = values(robot, q, qd) | dict(zip(ne.program(P).inputs[2].values, tau))
        qdd = run(ne, "forward_dynamics", point)
        ql, qdl, qddl = ref.links(q, qd, qdd)
        dq, dqd, _ = pin.computeRNEADerivatives(ref.free, full, ql, qdl, qddl)
        M = run(ne, "mass_matrix", point)
        np.testing.assert_allclose(run(ne, P, point, "dqdd_dq"),
                                   -np.linalg.solve(M, ref.G.T @ dq @ ref.G), atol=1e-9)
        np.testing.assert_allclose(run(ne, P, point, "dqdd_dqd"),
                                   -np.linalg.solve(M, ref.G.T @ dqd @ ref.G), atol=1e-9)
    assert 0 < representable < 5        # both cases met


def test_base_parameters_of_a_tree_with_mimic_joints_are_as_many_as_the_rank(tmp_path):
    """The grouping rules hold for a mimic joint as for any (its axial part looks the same
    from its parent whatever its angle); Gautier's QR finds the rest. Their count equals the
    rank of the stacked regressor, and tau = Y_b beta."""
    rng = np.random.default_rng(4)
    robot = random_tree(tmp_path, rng, name="based", dof=5, convention="modified", mimics=1)
    ne = symdyn.newton_euler(robot)
    rows, base_rows = [], []
    for q, qd, qdd in rng.uniform(-2, 2, (20, 3, robot.dof)):
        point = values(robot, q, qd, qdd)
        rows.append(run(ne, "regressor", point))
        base_rows.append(run(ne, "base_regressor", point))
        np.testing.assert_allclose(base_rows[-1] @ ne.base.values(robot),
                                   run(ne, "inverse_dynamics", point), atol=1e-10)
    assert np.linalg.matrix_rank(np.vstack(rows), 1e-9) == len(ne.base.names)


BAD = [
    ("  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, name: a}\n"
     "  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, name: b, mimic: a}\n"
     "  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, mimic: b}\n",
     "link 3.mimic", "a mimic of a mimic", 6),
    ("  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, name: a}\n"
     "  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, mimic: finger}\n",
     "link 2.mimic", "'finger' names no link", 5),
    ("  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, name: a, mimic: a}\n",
     "link 1.mimic", "cannot mimic itself", 4),
    ("  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, multiplier: 2}\n",
     "link 1.multiplier", "mimics none", 4),
    ("  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, name: a,\n"
     "     limits: {lower: 0, upper: 1}}\n"
     "  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1, mimic: a, multiplier: 2,\n"
     "     limits: {lower: 3, upper: 4}}\n",
     "link 2.mimic", "its limits leave 'a' no position", 6),
]


@pytest.mark.parametrize("links, field, words, line", BAD, ids=[b[2] for b in BAD])
def test_mimic_joints_a_file_cannot_mean_get_one_line(tmp_path, links, field, words, line):
    path = write(tmp_path, "name: bad\nconvention: modified\nlinks:\n" + links, "bad.yaml")
    assert_refused_in_one_line(tmp_path, path, field, words, line)


def test_a_tree_with_mimic_joints_in_c_equals_pinocchio(tmp_path):
    """The compiled module takes the coordinates alone: DOF is theirs, the limits theirs."""
    path = write(tmp_path, GRIPPER.replace(
        "motor_inertia: 0.01", "limits: {lower: -1, upper: 2}, motor_inertia: 0.01").replace(
        "motor_inertia: 0.02", "limits: {lower: -5, upper: 5}, motor_inertia: 0.02").replace(
        "theta: 0.2, mass: 0.5", "theta: 0.2, limits: {lower: -0.1}, mass: 0.5"))
    robot = symdyn.load_robot(path)
    compiled = symdyn.compile(path, quantities=["inverse_dynamics", "mass_matrix",
                                                "forward_dynamics", "jacobian", "link_poses"],
                              cache=tmp_path / "cache")
    assert compiled.DOF == 3
    np.testing.assert_array_equal(compiled.Q_MIN, [-np.inf, -1, -0.1])    # not the mimic's
    ref = Reference(robot)
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.uniform(-2, 2, (3, 20, robot.dof))
    tau = compiled.inverse_dynamics(q, qd, qdd)
    assert compiled.link_poses(q).shape == (20, 4, 4, 4)
    for k in range(len(q)):
        np.testing.assert_allclose(tau[k], pin.rnea(ref.model, ref.fresh(), q[k], qd[k],
                                                    qdd[k]), atol=1e-10)
        M = pin.crba(ref.model, ref.fresh(), q[k])
        np.testing.assert_allclose(compiled.mass_matrix(q[k]), np.triu(M) + np.triu(M, 1).T,
                                   atol=1e-10)
        np.testing.assert_allclose(compiled.forward_dynamics(q[k], qd[k], tau[k]), qdd[k],
                                   atol=1e-9)


def test_export_urdf_writes_the_mimic_joint_and_the_round_trip_keeps_the_dynamics(tmp_path):
    """export-urdf writes <mimic>; Pinocchio's mimic model of the export and symdyn's import
    of it have the robot file's dynamics."""
    path = write(tmp_path, GRIPPER)
    robot = symdyn.load_robot(path)
    urdf = tmp_path / "gripper.urdf"
    result = CliRunner().invoke(main, ["export-urdf", str(path), "-o", str(urdf)])
    assert result.exit_code == 0, result.output
    assert '<mimic joint="joint2" multiplier="-0.7" offset="0.2"/>' in urdf.read_text()
    model = pin.buildModelFromUrdf(str(urdf), mimic=True)
    model.gravity.linear = np.array([float(g) for g in robot.gravity])
    model.armature = Reference(robot).model.armature
    widths = [model.joints[i].nq for i in range(1, model.njoints) if model.joints[i].nq]
    imported = tmp_path / "imported.yaml"
    result = CliRunner().invoke(main, ["import", str(urdf), "-o", str(imported)])
    assert result.exit_code == 0, result.output
    again = symdyn.load_robot(imported)
    assert again.coupling_matrix == robot.coupling_matrix
    ours, theirs = symdyn.newton_euler(robot), symdyn.newton_euler(again)
    rng = np.random.default_rng(9)
    for q, qd, qdd in rng.uniform(-2, 2, (5, 3, robot.dof)):
        point = values(robot, q, qd, qdd)
        tau = run(ours, "inverse_dynamics", point)
        np.testing.assert_allclose(tau, run(theirs, "inverse_dynamics", values(again, q, qd,
                                                                             qdd)), atol=1e-10)
        angles = np.concatenate([[np.cos(x), np.sin(x)] if w == 2 else [x]   # continuous
                                 for x, w in zip(q, widths)])
        np.testing.assert_allclose(tau, pin.rnea(model, model.createData(), angles, qd, qdd),
                                   atol=1e-10)


def test_a_printout_and_the_headers_say_which_joints_mimic(tmp_path):
    path = write(tmp_path, GRIPPER)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["generate", str(path), "--out", str(out), "--lang", "c",
                                       "-Q", "mass_matrix", "-q"])
    assert result.exit_code == 0, result.output
    header = (out / "gripper.h").read_text()
    assert "(3 joints and 1 mimic joint)" in header
    assert "right follows left: multiplier -0.7, offset 0.2" in header
    result = CliRunner().invoke(main, ["derive", str(path), "-o", str(tmp_path / "gripper.txt")])
    assert result.exit_code == 0, result.output
    assert "left (q = -0.7 q_left + 0.2)" in (tmp_path / "gripper.txt").read_text()
