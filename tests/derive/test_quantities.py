"""M, C, g, nonlinear effects and forward dynamics against Pinocchio, and against each other."""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from support import (
    ROBOTS,
    assert_close,
    generated_python,
    pin_kinematics,
    random_robot,
    random_states,
    random_tree,
)

import symdyn
from symdyn.reference import friction_torques, pinocchio_model


def pin_quantities(model, q, qd, qdd, tau):
    """Pinocchio's M (symmetrised), C, g, h, aba and rnea, the energies and the centre of mass,
    state by state."""
    data = model.createData()
    # Pinocchio 4.1 counts the armature in computeKineticEnergy for some joint types only:
    # the bodies' energy, then the rotors' 1/2 Ia qd^2.
    bodies = model.copy()
    bodies.armature = np.zeros(model.nv)
    bodies_data = bodies.createData()
    out = {k: [] for k in ("M", "C", "g", "h", "aba", "rnea", "K", "V", "com", "Jcom")}
    for state in zip(q, qd, qdd, tau):
        qi, vi, ai, ti = state
        M = pin.crba(model, data, qi).copy()
        out["M"].append(np.triu(M) + np.triu(M, 1).T)       # the C++ fills the upper triangle
        out["C"].append(pin.computeCoriolisMatrix(model, data, qi, vi).copy())
        out["g"].append(pin.computeGeneralizedGravity(model, data, qi).copy())
        out["h"].append(pin.nonLinearEffects(model, data, qi, vi).copy())
        out["aba"].append(pin.aba(model, data, qi, vi, ti).copy())
        out["rnea"].append(pin.rnea(model, data, qi, vi, ai).copy())
        out["K"].append(pin.computeKineticEnergy(bodies, bodies_data, qi, vi)
                        + 0.5 * model.armature @ vi**2)
        out["V"].append(pin.computePotentialEnergy(model, data, qi))
        out["com"].append(pin.centerOfMass(model, data, qi).copy())
        out["Jcom"].append(pin.jacobianCenterOfMass(model, data, qi).copy())
    return {k: np.array(v) for k, v in out.items()}


def check_against_pinocchio(robot, module, rng, params=(), count=100):
    values = dict(zip(robot.parameters, params))
    model = pinocchio_model(robot.spec, values)
    q, qd, qdd = random_states(rng, robot.dof, count)
    tau = rng.uniform(-20, 20, (count, robot.dof))
    friction = friction_torques(robot.spec, qd, values)
    ref = pin_quantities(model, q, qd, qdd, tau - friction)   # Pinocchio has no friction
    extra = (np.asarray(params),) if robot.parameters else ()
    M = module.mass_matrix(q, *extra)
    assert M.shape == (count, robot.dof, robot.dof)
    assert_close(M, ref["M"])
    assert_close(module.coriolis_matrix(q, qd, *extra), ref["C"])
    assert_close(module.gravity_torques(q, *extra), ref["g"])
    assert_close(module.nonlinear_effects(q, qd, *extra), ref["h"])
    assert_close(module.friction_torques(qd, *extra), friction)
    assert_close(module.inverse_dynamics(q, qd, qdd, *extra), ref["rnea"] + friction)
    assert_close(module.forward_dynamics(q, qd, tau, *extra), ref["aba"])
    K = module.kinetic_energy(q, qd, *extra)
    assert K.shape == (count,)
    assert_close(K, ref["K"])
    assert_close(module.potential_energy(q, *extra), ref["V"])
    assert_close(module.center_of_mass(q, *extra), ref["com"])
    assert_close(module.com_jacobian(q, *extra), ref["Jcom"])
    one = module.kinetic_energy(q[0], qd[0], *extra)
    assert one.shape == () and float(one) == pytest.approx(ref["K"][0], rel=1e-12)


@pytest.mark.parametrize("name", ["puma560", "panda"])
def test_shipped_robots_match_pinocchio(tmp_path, name):
    robot = symdyn.load_robot(ROBOTS / f"{name}.yaml")
    check_against_pinocchio(robot, generated_python(robot, tmp_path), np.random.default_rng(7))


def test_symbolic_planar_arm_matches_pinocchio(tmp_path):
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    module = generated_python(robot, tmp_path)
    rng = np.random.default_rng(8)
    for _ in range(3):
        check_against_pinocchio(robot, module, rng, rng.uniform(0.5, 3, 5), count=40)


@pytest.mark.parametrize("seed", range(6))
def test_random_robots_match_pinocchio(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    robot = random_robot(tmp_path, rng, name=f"quant{seed}", dof=int(rng.integers(2, 6)),
                         convention=("standard", "modified")[seed % 2], origin_form=seed == 5,
                         placed=seed >= 3)      # a base high and tilted: its height is in V
    check_against_pinocchio(robot, generated_python(robot, tmp_path), rng)


# standard DH gives each link one child at most: its trees are chains
TREES = [("standard", "deep")] + [(convention, shape) for convention in ("modified", "urdf")
                                  for shape in ("deep", "wide")]


@pytest.mark.parametrize("convention, shape", TREES, ids=[f"{c}-{s}" for c, s in TREES])
def test_random_trees_match_pinocchio(tmp_path, convention, shape):
    """Trees in the robot-file form, every quantity of the generated module against Pinocchio
    built independently from the same file (reference.pinocchio_model), the tool's kinematics
    included, and Lagrange's inverse dynamics against Newton-Euler's."""
    rng = np.random.default_rng(len(convention) * 10 + len(shape))
    robot = random_tree(tmp_path, rng, name=f"{convention}_{shape}", dof=6,
                        convention=convention, shape=shape)
    if convention != "standard":
        assert len(set(robot.parents)) < robot.dof          # a link with two children
    module = generated_python(robot, tmp_path)
    check_against_pinocchio(robot, module, rng, count=40)
    q, qd, qdd = random_states(rng, robot.dof, 20)
    expected = pin_kinematics(robot, q, qd)
    for name in ("forward_kinematics", "link_poses", "jacobian"):
        assert_close(getattr(module, name)(q), expected[name])
    assert_close(module.jacobian_dot_qd(q, qd), expected["jacobian_dot_qd"])
    lagrange = symdyn.python_module(symdyn.lagrange(robot), quantities=["inverse_dynamics"])
    assert_close(lagrange.inverse_dynamics(q, qd, qdd), module.inverse_dynamics(q, qd, qdd))


def test_structure_of_M_and_C(tmp_path):
    """M symmetric positive definite, dM/dt - 2C skew, M qdd + C qd + g + friction = tau."""
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    module = generated_python(robot, tmp_path)
    rng = np.random.default_rng(9)
    q, qd, qdd = random_states(rng, 6, 50)
    M, C, g = module.mass_matrix(q), module.coriolis_matrix(q, qd), module.gravity_torques(q)
    np.testing.assert_array_equal(M, np.swapaxes(M, 1, 2))
    assert np.all(np.linalg.eigvalsh(M) > 0)
    step = 1e-6
    Mdot = (module.mass_matrix(q + step * qd) - module.mass_matrix(q - step * qd)) / (2 * step)
    skew = Mdot - 2 * C
    np.testing.assert_allclose(skew, -np.swapaxes(skew, 1, 2), atol=1e-6)
    tau = (np.einsum("nij,nj->ni", M, qdd) + np.einsum("nij,nj->ni", C, qd) + g
           + module.friction_torques(qd))
    assert_close(tau, module.inverse_dynamics(q, qd, qdd))


ACTUATED = """\
name: actuated
convention: modified
gravity: [0, 0, -9.81]
links:
  - {joint: revolute, alpha: 0, a: 0, d: 0, theta: 0, mass: 1, com: [0.2, 0, 0],
     inertia: [0.01, 0.02, 0.03, 0, 0, 0],
     motor_inertia: 0.0002, gear_ratio: -50, viscous_friction: 0.001,
     coulomb_friction: [0.3, -0.4]}
  - {joint: prismatic, alpha: pi/2, a: 0.3, d: 0.1, theta: 0, mass: 2, com: [0, 0.05, 0.1],
     inertia: [0.01, 0.01, 0.01, 0, 0, 0],
     motor_inertia: 0.0001, gear_ratio: 20, viscous_friction: 0.002}
payload: {mass: 0.5, com: [0, 0, 0.05], inertia: [0.001, 0.001, 0.001, 0, 0, 0]}
"""


@pytest.fixture(scope="module")
def actuated(tmp_path_factory):
    path = tmp_path_factory.mktemp("actuated") / "actuated.yaml"
    path.write_text(ACTUATED)
    robot = symdyn.load_robot(path)
    return robot, generated_python(robot, path.parent)


def test_friction_follows_robotics_toolbox_conventions(actuated):
    """tau_f = G^2 B qd + |G| Tc, Tc+ for qd > 0, Tc- for qd < 0, nothing at rest (by hand)."""
    _, module = actuated
    qd = np.array([[2.0, -1.0], [-3.0, 0.5], [0.0, 0.0]])
    expected = np.array([
        [50**2 * 0.001 * 2.0 + 50 * 0.3, 20**2 * 0.002 * -1.0],
        [50**2 * 0.001 * -3.0 + 50 * -0.4, 20**2 * 0.002 * 0.5],
        [0.0, 0.0]])
    np.testing.assert_allclose(module.friction_torques(qd), expected, rtol=1e-14)


def test_rotor_inertia_on_the_diagonal_and_in_tau(actuated, tmp_path):
    robot, module = actuated
    rng = np.random.default_rng(11)
    q, qd, qdd = random_states(rng, 2, 50)
    armature = np.array([50**2 * 0.0002, 20**2 * 0.0001])
    model = pinocchio_model(robot.spec)
    np.testing.assert_allclose(model.armature, armature)
    ref = pin_quantities(model, q, qd, qdd, np.zeros_like(q))
    assert_close(module.mass_matrix(q), ref["M"])
    # tau = Pinocchio's rnea with armature (which adds armature * qdd) + friction
    assert_close(module.inverse_dynamics(q, qd, qdd), ref["rnea"] + module.friction_torques(qd))
    M, h = module.mass_matrix(q), module.nonlinear_effects(q, qd)
    lhs = np.einsum("nij,nj->ni", M, qdd) + h + module.friction_torques(qd)
    assert_close(lhs, module.inverse_dynamics(q, qd, qdd))
    tau = module.inverse_dynamics(q, qd, qdd)
    assert_close(module.forward_dynamics(q, qd, tau), qdd, rtol=1e-9)


def test_payload_adds_to_the_last_link(tmp_path):
    with_payload = tmp_path / "a.yaml"
    with_payload.write_text(ACTUATED)
    combined = tmp_path / "b.yaml"          # the payload folded into link 2 by hand
    m, c = 2.0 + 0.5, (2.0 * np.array([0, 0.05, 0.1]) + 0.5 * np.array([0, 0, 0.05])) / 2.5
    # parallel-axis: each body's inertia about the common COM
    def about(mass, com, inertia):
        d = np.asarray(com) - c
        return np.diag(inertia) + mass * (d @ d * np.eye(3) - np.outer(d, d))
    inertia = about(2.0, [0, 0.05, 0.1], [0.01] * 3) + about(0.5, [0, 0, 0.05], [0.001] * 3)
    six = [inertia[j, k] for j, k in ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))]
    text = ACTUATED.split("payload:")[0].replace(
        "mass: 2, com: [0, 0.05, 0.1],\n     inertia: [0.01, 0.01, 0.01, 0, 0, 0]",
        f"mass: {m!r}, com: [{', '.join(repr(float(v)) for v in c)}],\n     inertia: "
        f"[{', '.join(repr(float(v)) for v in six)}]")
    combined.write_text(text.replace("name: actuated", "name: combined"))
    a = generated_python(symdyn.load_robot(with_payload), tmp_path / "a")
    b = generated_python(symdyn.load_robot(combined), tmp_path / "b")
    rng = np.random.default_rng(12)
    q, qd, qdd = random_states(rng, 2, 30)
    assert_close(a.inverse_dynamics(q, qd, qdd), b.inverse_dynamics(q, qd, qdd))


@pytest.mark.parametrize("name", ["puma560", "panda", "random_standard", "random_modified"])
def test_tool_wrench_enters_the_inward_recursion_as_pinocchio_fext(tmp_path, name):
    """tool_wrench_torques(q, w) = rnea with the opposite wrench applied to the last body."""
    rng = np.random.default_rng(13)
    robot = (random_robot(tmp_path, rng, name="wrench", dof=4, convention=name.split("_")[1])
             if name.startswith("random") else symdyn.load_robot(ROBOTS / f"{name}.yaml"))
    module = generated_python(robot, tmp_path, ["tool_wrench_torques"])
    model = pinocchio_model(robot.spec)
    model.gravity.linear[:] = 0
    data = model.createData()
    tool = model.frames[model.getFrameId("tool")].placement
    q, _, _ = random_states(rng, robot.dof, 30)
    wrench = rng.uniform(-10, 10, (30, 6))
    expected = []
    for qi, w in zip(q, wrench):
        fext = [pin.Force.Zero() for _ in range(model.njoints)]
        fext[-1] = -tool.act(pin.Force(w[:3], w[3:]))
        zero = np.zeros(robot.dof)
        expected.append(pin.rnea(model, data, qi, zero, zero, fext).copy())
    assert_close(module.tool_wrench_torques(q, wrench), np.array(expected))
