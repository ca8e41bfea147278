"""A floating base (root: free_flyer): Pinocchio's JointModelFreeFlyer conventions, q = [base
position, unit quaternion (x, y, z, w), joints], qd = [v, omega in the base's axes, joints].

Random trees on a free-flyer against Pinocchio's model of the same robot file (its root joint a
JointModelFreeFlyer carrying the base's body), and the robot file's refusals. The imports of real
legged robots are in tests/robot/test_urdf.py.
"""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from click.testing import CliRunner
from support import ROBOTS, assert_close, assert_refused_in_one_line, random_tree

import symdyn
from symdyn.check import check, configurations
from symdyn.cli import main
from symdyn.derive.regressor import standard_parameters
from symdyn.reference import pinocchio_model

QUANTITIES = ("inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
              "nonlinear_effects", "forward_dynamics", "inverse_dynamics_derivatives",
              "forward_dynamics_derivatives", "tool_wrench_torques", "forward_kinematics",
              "jacobian", "body_jacobian", "jacobian_dot_qd", "link_poses", "kinetic_energy",
              "potential_energy", "center_of_mass", "com_jacobian", "centroidal_map",
              "centroidal_map_dot_qd", "regressor")


def pinocchio_terms(model, q, qd, qdd, tau, wrench):
    """Pinocchio's value of each of QUANTITIES (and the tool's), state by state."""
    data = model.createData()
    tool = model.getFrameId("tool")
    links = [model.getFrameId(f"link{i}") for i in range(1, model.njoints - 1)]
    out = {name: [] for name in QUANTITIES}
    for qi, vi, ai, ti, wi in zip(q, qd, qdd, tau, wrench):
        out["inverse_dynamics"].append(pin.rnea(model, data, qi, vi, ai).copy())
        M = pin.crba(model, data, qi)
        out["mass_matrix"].append(np.triu(M) + np.triu(M, 1).T)
        out["gravity_torques"].append(pin.computeGeneralizedGravity(model, data, qi).copy())
        out["nonlinear_effects"].append(pin.nonLinearEffects(model, data, qi, vi).copy())
        out["coriolis_matrix"].append(pin.computeCoriolisMatrix(model, data, qi, vi).copy())
        out["forward_dynamics"].append(pin.aba(model, data, qi, vi, ti).copy())
        # in the tangent space: a floating base's q-columns are its velocities' directions
        out["inverse_dynamics_derivatives"].append(tuple(
            x.copy() for x in pin.computeRNEADerivatives(model, data, qi, vi, ai)[:2]))
        pin.computeABADerivatives(model, data, qi, vi, ti)
        out["forward_dynamics_derivatives"].append((
            data.ddq_dq.copy(), data.ddq_dv.copy(),
            np.triu(data.Minv) + np.triu(data.Minv, 1).T))
        fext = [pin.Force.Zero() for _ in range(model.njoints)]
        frame = model.frames[tool]
        fext[frame.parentJoint] = -frame.placement.act(pin.Force(wi[:3], wi[3:]))
        out["tool_wrench_torques"].append(pin.rnea(model, data, qi, 0 * vi, 0 * ai, fext)
                                          - pin.computeGeneralizedGravity(model, data, qi))
        pin.forwardKinematics(model, data, qi, vi, 0 * vi)
        pin.updateFramePlacements(model, data)
        out["forward_kinematics"].append(data.oMf[tool].homogeneous.copy())
        out["link_poses"].append([data.oMf[f].homogeneous.copy() for f in links])
        acceleration = pin.getFrameClassicalAcceleration(model, data, tool,
                                                         pin.LOCAL_WORLD_ALIGNED)
        out["jacobian_dot_qd"].append(np.r_[acceleration.linear, acceleration.angular])
        out["jacobian"].append(pin.computeFrameJacobian(model, data, qi, tool,
                                                        pin.LOCAL_WORLD_ALIGNED).copy())
        out["body_jacobian"].append(pin.computeFrameJacobian(model, data, qi, tool,
                                                             pin.LOCAL).copy())
        out["kinetic_energy"].append(pin.computeKineticEnergy(model, data, qi, vi))
        out["potential_energy"].append(pin.computePotentialEnergy(model, data, qi))
        out["center_of_mass"].append(pin.centerOfMass(model, data, qi).copy())
        out["com_jacobian"].append(pin.jacobianCenterOfMass(model, data, qi).copy())
        out["centroidal_map"].append(pin.computeCentroidalMap(model, data, qi).copy())
        pin.computeCentroidalMapTimeVariation(model, data, qi, vi)
        out["centroidal_map_dot_qd"].append(data.dAg @ vi)
        # the base's ten parameters first, in its frame {0}: Pinocchio's root joint's body
        out["regressor"].append(pin.computeJointTorqueRegressor(model, data, qi, vi, ai).copy())
    return {name: tuple(np.array(part) for part in zip(*values))
            if isinstance(values[0], tuple) else values for name, values in out.items()}


CASES = [(convention, shape, seed) for seed, (convention, shape) in enumerate(
    [(c, s) for c in ("modified", "urdf", "standard") for s in ("deep", "wide")])]


@pytest.mark.parametrize("convention, shape, seed", CASES,
                         ids=[f"{c}-{s}" for c, s, _ in CASES])
def test_random_trees_on_a_free_flyer_match_pinocchio(tmp_path, convention, shape, seed):
    """Every quantity a floating base has, on 40 random states with unit quaternions."""
    rng = np.random.default_rng(300 + seed)
    robot = random_tree(tmp_path, rng, convention=convention, shape=shape, floating=True,
                        dof=int(rng.integers(2, 7)))
    assert robot.floating and robot.nq == robot.dof + 1 == 7 + len(robot.links)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=QUANTITIES)
    model = pinocchio_model(robot.spec)
    q = configurations(robot, rng, 40)
    qd, qdd, tau = (rng.uniform(-3, 3, (40, robot.dof)) for _ in range(3))
    wrench = rng.uniform(-10, 10, (40, 6))
    expected = pinocchio_terms(model, q, qd, qdd, tau, wrench)
    arguments = {"q": q, "qd": qd, "qdd": qdd, "tau": tau, "f_ext": wrench}
    for name in QUANTITIES:
        if name == "regressor" and convention != "modified":
            continue    # the links' parameters are in symdyn's joint frames, which are
            # Pinocchio's model's in modified DH alone (Y pi = tau is check's row)
        inputs = symdyn.derive.QUANTITIES[name].inputs
        assert_close(getattr(module, name)(*(arguments[k] for k in inputs)), expected[name])


def test_a_floating_tree_with_mimic_joints_passes_every_check(tmp_path):
    """check's rows: Pinocchio's free-flyer model of the links' joints taken to the coordinates
    (G^T tau, G^T M G, the derivatives in the tangent space), dM/dt - 2 C skew along the
    configuration's rate, g the gradient of the potential energy along every velocity."""
    rng = np.random.default_rng(42)
    robot = random_tree(tmp_path, rng, convention="urdf", floating=True, dof=5, mimics=1)
    assert robot.coupling
    rows = check(robot, states=20, seed=3)
    assert [row.check for row in rows if not row.passed] == []
    checked = {row.check for row in rows if row.error is not None}
    assert {"coriolis_matrix = Pinocchio computeCoriolisMatrix",
            "dM/dt - 2C skew-symmetric (finite differences)"} <= checked


def test_integrate_and_difference_are_pinocchios(tmp_path):
    """The free-flyer's exponential map and its logarithm against Pinocchio's, at random
    motions and where a coefficient's formula would divide by zero: no turn (theta = 0), the
    same configuration, and the same rotation written with the opposite quaternion."""
    rng = np.random.default_rng(5)
    robot = random_tree(tmp_path, rng, convention="urdf", floating=True, dof=3)
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["integrate", "difference"])
    model = pinocchio_model(robot.spec)
    q, q1 = configurations(robot, rng, 40), configurations(robot, rng, 40)
    v = rng.normal(size=(40, robot.dof))
    v[:4, 3:6] = 0                      # a shift alone
    v[4:6, 3:6] *= 1e-9                 # a turn of a few nanoradians
    q1[:4] = q[:4]
    q1[4:8, :3] = q[4:8, :3]
    q1[4:8, 3:7] = -q[4:8, 3:7]         # the same pose, the other quaternion
    with np.errstate(all="raise"):
        moved, back = module.integrate(q, v), module.difference(q, q1)
    expected = np.array([pin.integrate(model, a, b) for a, b in zip(q, v)])
    sign = np.sign(np.sum(moved[:, 3:7] * expected[:, 3:7], axis=1, keepdims=True))
    assert_close(np.hstack([moved[:, :3], sign * moved[:, 3:7], moved[:, 7:]]), expected, 1e-12)
    assert_close(back, np.array([pin.difference(model, a, b) for a, b in zip(q, q1)]), 1e-12)
    assert np.abs(back[:8, :6]).max() < 1e-15      # no motion of the base


@pytest.mark.parametrize("links", [0, 1], ids=["a drone, no joints", "one link"])
def test_a_floating_base_with_no_joint_or_one_passes_every_check(tmp_path, links):
    """A drone (a base body alone) and a base with one link: every check's row, C code
    that compiles, and no link_poses for the drone, which has no links."""
    text = FLOATING if links else FLOATING.split("links:")[0] + "links: []\n"
    path = tmp_path / "hopper.yaml"
    path.write_text(text)
    robot = symdyn.load_robot(path)
    assert len(robot.links) == links and robot.dof == 6 + links
    assert [row.check for row in check(robot, states=10) if not row.passed] == []
    dynamics = symdyn.newton_euler(robot)
    assert ("link_poses" in dynamics.available) == bool(links)
    module = symdyn.compile(dynamics)
    q = np.r_[0.1, 0.2, 0.3, 0, 0, 0, 1, [0.4] * links]
    assert module.mass_matrix(q).shape == (6 + links, 6 + links)


def test_the_base_block_is_the_whole_robot_and_A_g_qd_its_momentum(tmp_path):
    """M's base block is the composite inertia of the whole robot in {0}, summed here from each
    body's inertia at its pose; A_g qd is the momentum about the centre of mass summed from the
    bodies' velocities (Pinocchio's forward kinematics alone, not its centroidal algorithms)."""
    rng = np.random.default_rng(21)
    robot = random_tree(tmp_path, rng, convention="modified", floating=True, dof=5)
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["mass_matrix", "centroidal_map"])
    model = pinocchio_model(robot.spec)
    data = model.createData()
    for q, qd in zip(configurations(robot, rng, 10), rng.normal(size=(10, robot.dof))):
        pin.forwardKinematics(model, data, q, qd)
        whole = pin.Inertia.Zero()
        linear, angular, mass, first = np.zeros(3), np.zeros(3), 0.0, np.zeros(3)
        bodies = [(data.oMi[i], model.inertias[i], data.v[i]) for i in range(1, model.njoints)]
        for pose, body, _ in bodies:
            whole += (data.oMi[1].inverse() * pose).act(body)
            mass, first = mass + body.mass, first + body.mass * pose.act(body.lever)
        center = first / mass
        for pose, body, v in bodies:
            R, c = pose.rotation, pose.act(body.lever)
            velocity = R @ (v.linear + np.cross(v.angular, body.lever))   # of its centre
            linear += body.mass * velocity
            angular += (R @ body.inertia @ v.angular + body.mass * np.cross(c - center,
                                                                              velocity))
        np.testing.assert_allclose(module.mass_matrix(q)[:6, :6], whole.matrix(), atol=1e-12)
        np.testing.assert_allclose(module.centroidal_map(q) @ qd, np.r_[linear, angular],
                                   atol=1e-12)


def test_the_base_is_body_zero_of_the_recursion():
    """The space arm floats free: no gravity, and the arm's motion alone gives the base a
    reaction; holding the base still takes the wrench inverse_dynamics' first six give, and
    letting it go (zero wrench) turns and moves it as forward dynamics says, momentum kept."""
    robot = symdyn.load_robot(ROBOTS / "space_arm.yaml")
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "inverse_dynamics", "forward_dynamics", "mass_matrix"])
    q = np.r_[0, 0, 0, 0, 0, 0, 1, 0.3, -0.5, 1.0, 0.2]
    qd = np.zeros(10)
    held = np.r_[np.zeros(6), 0.5, -0.2, 0.3, 0.0]
    wrench = module.inverse_dynamics(q, qd, held)[:6]
    assert np.abs(wrench).max() > 0.1          # the base must be held against the arm
    free = module.forward_dynamics(q, qd, np.r_[np.zeros(6), module.inverse_dynamics(
        q, qd, held)[6:]])
    assert np.abs(free[:6]).max() > 0.01       # let go, it moves
    M = module.mass_matrix(q)
    np.testing.assert_allclose((M @ free)[:6], 0, atol=1e-12)   # no wrench on the base


def test_a_quaternion_of_another_norm_gives_what_pinocchio_gives(tmp_path):
    """Not a rotation, but the same numbers as Pinocchio's (Eigen's toRotationMatrix formula),
    as the generated modules' documentation says."""
    rng = np.random.default_rng(8)
    robot = random_tree(tmp_path, rng, convention="modified", floating=True, dof=3)
    module = symdyn.python_module(symdyn.newton_euler(robot),
                                  quantities=["inverse_dynamics", "forward_kinematics"])
    model = pinocchio_model(robot.spec)
    data = model.createData()
    q = configurations(robot, rng, 5)
    q[:, 3:7] *= 1.7
    qd, qdd = rng.normal(size=(2, 5, robot.dof))
    for k in range(5):
        np.testing.assert_allclose(module.inverse_dynamics(q[k], qd[k], qdd[k]),
                                   pin.rnea(model, data, q[k], qd[k], qdd[k]), atol=1e-11)


FLOATING = """\
name: hopper
convention: modified
root: free_flyer
base_body: {mass: 5, com: [0, 0, 0], inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
links:
  - {joint: revolute, alpha: 0, a: 0, d: 0, theta: 0, mass: 1, com: [0.1, 0, 0],
     inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
"""


@pytest.mark.parametrize("old, new, field, words, line", [
    ("root: free_flyer", "root: floating", "root", "'floating' is not known", 3),
    ("mass: 5,", "mass: -5,", "base_body.mass", "mass is negative", 4),
])
def test_a_bad_root_or_base_body_is_refused_in_one_line(tmp_path, old, new, field, words, line):
    path = tmp_path / "hopper.yaml"
    path.write_text(FLOATING.replace(old, new))
    assert_refused_in_one_line(tmp_path, path, field, words, line)


def test_a_fixed_base_takes_no_base_body_and_a_floating_one_no_placement(tmp_path):
    path = tmp_path / "hopper.yaml"
    path.write_text(FLOATING.replace("root: free_flyer\n", ""))
    assert_refused_in_one_line(tmp_path, path, "base_body", "fixed base's body never moves", 3)
    path.write_text(FLOATING + "base: {xyz: [0, 0, 1]}\n")
    assert_refused_in_one_line(tmp_path, path, "base", "no fixed place in the world", 8)


def test_the_base_symbols_are_reserved(tmp_path):
    path = tmp_path / "hopper.yaml"
    path.write_text(FLOATING.replace("mass: 1,", "mass: base_qw,")
                    + "parameters: {base_qw: 1}\n")
    with pytest.raises(symdyn.RobotFileError, match="'base_qw' is reserved"):
        symdyn.load_robot(path)


def test_the_base_parameters_keep_the_base_and_count_the_regressors_rank(tmp_path):
    """With a floating base no parameter vanishes into a fixed base: the base's body takes its
    children's invariant parts and keeps its ten, and the base parameters are as many as the
    rank of Pinocchio's regressor stacked over random states (which Y_b beta reproduces)."""
    rng = np.random.default_rng(12)
    robot = random_tree(tmp_path, rng, convention="modified", floating=True, dof=4)
    dynamics = symdyn.newton_euler(robot)
    base = dynamics.base
    assert [name.rstrip("R0") for name in base.names[:10]] == [
        "m", "mx", "my", "mz", "XX", "XY", "YY", "XZ", "YZ", "ZZ"] and not base.absent
    model = pinocchio_model(robot.spec)
    data = model.createData()
    q = configurations(robot, rng, 40)
    qd, qdd = rng.normal(size=(2, 40, robot.dof))
    W = np.vstack([pin.computeJointTorqueRegressor(model, data, *state)
                   for state in zip(q, qd, qdd)])
    assert len(base.names) == np.linalg.matrix_rank(W) < W.shape[1]
    module = symdyn.python_module(dynamics, quantities=["base_regressor", "base_parameters",
                                                        "inverse_dynamics"])
    pi = np.array([float(v) for _, v in standard_parameters(robot)])
    assert_close(module.base_regressor(q, qd, qdd) @ module.base_parameters(pi),
                 module.inverse_dynamics(q, qd, qdd))


@pytest.mark.parametrize("command", ["identify", "excite"])
def test_identification_takes_fixed_bases_in_one_line(tmp_path, command):
    path = tmp_path / "hopper.yaml"
    path.write_text(FLOATING)
    data = tmp_path / "data.csv"
    data.write_text("q1,qd1,qdd1,tau1\n0,0,0,0\n")
    args = [str(data)] if command == "identify" else ["-o", str(tmp_path / "out.csv")]
    result = CliRunner().invoke(main, [command, str(path), *args])
    assert result.exit_code == 2 and "fixed-base" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "out.csv").exists()


def test_a_floating_base_has_every_quantity_but_by_lagrange(tmp_path):
    """generate writes every quantity; the Lagrange route refuses in one line, exit 2,
    nothing written."""
    path = tmp_path / "hopper.yaml"
    path.write_text(FLOATING)
    runner = CliRunner()
    result = runner.invoke(main, ["generate", str(path), "--out", str(tmp_path / "all"), "-q"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "all" / "hopper.py").read_text()
    assert "NQ, NV = 8, 7" in text and 'JOINTS = ("root_joint", "joint1",)' in text
    assert all(f"def {name}(" in text for name, quantity in symdyn.derive.QUANTITIES.items()
               if not {"frames", "constraints", "tendons", "a closed-loop mechanism",
                       "elastic joints", "joint springs"}
               & set(quantity.requires))
    result = runner.invoke(main, ["generate", str(path), "--out", str(tmp_path / "one"), "-q",
                                  "--method", "lagrange"])
    assert result.exit_code == 2 and "floating" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "one").exists()
