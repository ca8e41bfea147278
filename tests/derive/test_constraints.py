"""Constraints: closed loops, contacts and couplings, against Pinocchio.

Every quantity is compared with a reference built from Pinocchio's own model of the robot file
(reference.pinocchio_model): the frames' placements, Jacobians and classical accelerations
give phi, G and gamma; its crba and nonLinearEffects the KKT system, solved densely by numpy;
and, where Pinocchio's constraint models take the constraint (every row independent), its
constraintDynamics, impulseDynamics and computeDelassusMatrix themselves. The states are
random and consistent: positions closed by Newton on Pinocchio's residual, velocities in G's
null space.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from support import assert_close, constrained_states, rk4

import symdyn
from symdyn.reference import ConstraintReference as Reference

HERE = Path(__file__).parent / "mechanisms"
QUANTITIES = ["constraint_residual", "constraint_jacobian", "constraint_drift",
              "constrained_forward_dynamics", "delassus_matrix", "impulse_dynamics",
              "friction_torques"]
MECHANISM = [*QUANTITIES, "closed_loop_inverse_dynamics", "close_loops",
             "constraint_derivatives", "constrained_forward_dynamics_derivatives"]


def _load(name):
    return symdyn.load_robot(HERE / f"{name}.yaml")


@pytest.mark.parametrize("name", ["fourbar", "fivebar"])
def test_a_closed_planar_loop_equals_pinocchios_kkt_and_closes(name):
    """phi, G, gamma, the constrained forward dynamics (with and without Baumgarte's gains),
    the Delassus matrix, an impact, the closed-loop inverse dynamics and the loop closure, on
    20 random consistent states, against Pinocchio's model and the KKT system of its M, h
    and frame Jacobians (1e-9)."""
    robot = _load(name)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=MECHANISM)
    rng = np.random.default_rng(len(name))
    for reference, q, v, qdd in constrained_states(robot, module, rng):
        # closed-loop inverse dynamics: the actuated forces that give qdd, through the KKT
        tau_a, lam = module.closed_loop_inverse_dynamics(q, v, qdd)
        full = np.zeros(robot.dof)
        full[list(robot.actuated)] = tau_a
        back, lam_back = reference.kkt(q, v, full)
        assert_close(back, qdd, rtol=1e-9)
        assert_close(lam, lam_back, rtol=1e-9)
        # the closure from perturbed passive joints
        start = q.copy()
        start[[robot.base_configuration + k - robot.base_velocities
               for k in robot.passive]] += rng.uniform(-0.1, 0.1, len(robot.passive))
        closed, residual, converged = module.close_loops(start)
        assert converged == 1 and residual < 1e-10
        assert_close(closed, q, rtol=1e-9)


SOLO = "\n" + (HERE / "solo12_feet.part").read_text()


@pytest.fixture(scope="module")
def standing(tmp_path_factory):
    """Solo-12 as example-robot-data ships it, imported on a free-flyer, standing on four point
    contacts where its feet are at closed_at."""
    import importlib.metadata

    from click.testing import CliRunner

    from symdyn.cli import main
    urdf = Path(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots/solo_description/robots/solo12.urdf"))
    out = tmp_path_factory.mktemp("solo") / "solo12.yaml"
    result = CliRunner().invoke(main, ["import", str(urdf), "--root", "free_flyer", "-o",
                                       str(out), "-q"])
    assert result.exit_code == 0, result.output
    out.write_text(out.read_text() + SOLO)
    return symdyn.load_robot(out)


def _feet(robot, reference):
    """Pinocchio's constraint models of the robot's point contacts (CONTACT_3D at each foot's
    anchor, LOCAL_WORLD_ALIGNED), their data initialised, and exact proximal settings."""
    model = reference.model
    contacts = pin.StdVec_RigidConstraintModel()
    for c, (frame, _) in zip(robot.constraints, reference.ends):
        contacts.append(pin.RigidConstraintModel(
            pin.ContactType.CONTACT_3D, model, model.frames[frame].parentJoint,
            model.frames[frame].placement, 0, pin.SE3(reference.anchor(c)),
            pin.LOCAL_WORLD_ALIGNED))
    datas = pin.StdVec_RigidConstraintData()
    for contact in contacts:
        datas.append(contact.createData())
    pin.initConstraintDynamics(model, reference.data, contacts, datas)
    return contacts, datas, pin.ProximalSettings(1e-14, 0.0, 1)


def test_a_quadruped_on_four_point_contacts_equals_pinocchios_constraint_dynamics(standing):
    """Solo-12 on its four feet: G and gamma against Pinocchio's frames, the constrained
    forward dynamics and the contact forces against Pinocchio's constraintDynamics with four
    RigidConstraintModel CONTACT_3D (LOCAL_WORLD_ALIGNED), the impact against its
    impulseDynamics and D against computeDelassusMatrix, on 20 random states (1e-9)."""
    robot = standing
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=QUANTITIES)
    reference = Reference(robot)
    model, data = reference.model, reference.data
    contacts, datas, settings = _feet(robot, reference)
    rng = np.random.default_rng(12)
    for _ in range(20):
        q, v, _ = reference.state(rng, spread=0.2)
        phi, G, gamma = reference.terms(q, v)
        assert_close(module.constraint_jacobian(q), G)
        assert_close(module.constraint_drift(q, v), gamma)
        tau = np.r_[np.zeros(6), rng.uniform(-2, 2, robot.dof - 6)]
        qdd, lam = module.constrained_forward_dynamics(q, v, tau, np.zeros(2))
        expected = pin.constraintDynamics(model, data, q, v, tau, contacts, datas, settings)
        assert_close(qdd, expected, rtol=1e-9)
        assert_close(lam, data.lambda_c, rtol=1e-9)
        # Pinocchio's Delassus matrix is in each contact frame's own axes, whatever the
        # constraint's reference frame: R^T D R with R the feet's rotations
        D, _ = module.delassus_matrix(q)
        pin.framesForwardKinematics(model, data, q)
        R = np.zeros((12, 12))
        for k, (frame, _) in enumerate(reference.ends):
            R[3 * k:3 * k + 3, 3 * k:3 * k + 3] = data.oMf[frame].rotation
        assert_close(R.T @ D @ R, pin.computeDelassusMatrix(model, data, q, contacts, datas,
                                                             0.0), rtol=1e-9)
        before, r = v + rng.uniform(-1, 1, robot.dof), rng.uniform(0, 1)
        after, impulses = module.impulse_dynamics(q, before, [r])
        expected = pin.impulseDynamics(model, data, q, before, contacts, datas, r, settings)
        assert_close(after, expected, rtol=1e-9)
        assert_close(impulses, data.impulse_c, rtol=1e-9)


def test_the_constrained_dynamics_derivatives_equal_pinocchios(standing):
    """Solo-12 on its four feet: dqdd and dlambda along q (the tangent space), qd and tau
    against Pinocchio's computeConstraintDynamicsDerivatives, on 20 random states (1e-9), by
    the Python module (the KKT solves unrolled) and the C (each derivative's columns solved
    in one loop, program.Solve)."""
    robot = standing
    dynamics = symdyn.newton_euler(robot)
    quantities = ["constrained_forward_dynamics", "constrained_forward_dynamics_derivatives"]
    modules = (symdyn.python_module(dynamics, quantities=quantities),
               symdyn.compile(dynamics, quantities=quantities, quick=True))
    reference = Reference(robot)
    model, data = reference.model, reference.data
    contacts, datas, settings = _feet(robot, reference)
    rng = np.random.default_rng(21)
    for _ in range(20):
        q, v, _ = reference.state(rng, spread=0.2)
        tau = np.r_[np.zeros(6), rng.uniform(-2, 2, robot.dof - 6)]
        pin.constraintDynamics(model, data, q, v, tau, contacts, datas, settings)
        theirs = pin.computeConstraintDynamicsDerivatives(model, data, contacts, datas,
                                                          settings)
        for module in modules:
            ours = module.constrained_forward_dynamics_derivatives(q, v, tau, np.zeros(2))
            for a, b in zip(ours, theirs):
                assert_close(a, b, rtol=1e-9)


@pytest.mark.parametrize("name", ["fourbar", "fivebar"])
def test_the_constrained_dynamics_derivatives_equal_finite_differences(name):
    """A closed loop with Baumgarte's gains, off its constraints (the gains then act):
    each derivative against central differences of the generated constrained dynamics."""
    robot = _load(name)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "constrained_forward_dynamics", "constrained_forward_dynamics_derivatives"])
    rng = np.random.default_rng(4)
    n, h = robot.dof, 1e-6
    for _ in range(5):
        q, v, tau = rng.uniform(-1, 1, (3, n))
        gains = rng.uniform(1, 20, 2)
        ours = module.constrained_forward_dynamics_derivatives(q, v, tau, gains)
        for k, wrt in enumerate((0, 1, 2)):
            columns = []
            for j in range(n):
                step = np.zeros((3, n))
                step[wrt, j] = h
                ahead = module.constrained_forward_dynamics(*(np.array([q, v, tau]) + step),
                                                            gains)
                behind = module.constrained_forward_dynamics(*(np.array([q, v, tau]) - step),
                                                             gains)
                columns.append([(a - b) / (2 * h) for a, b in zip(ahead, behind)])
            for output in (0, 1):           # qdd's, then lambda's
                numeric = np.array([c[output] for c in columns]).T
                assert_close(ours[3 * output + k], numeric, rtol=1e-6)


def _constrained(tmp_path, robot_file: Path, extra: str) -> symdyn.Robot:
    path = tmp_path / robot_file.name
    path.write_text(robot_file.read_text() + extra)
    return symdyn.load_robot(path)


def test_an_arm_whose_tool_is_welded_to_the_world_equals_pinocchios_6d_contact(tmp_path):
    """The Panda's tool held where it is at closed_at (weld: 6 rows): G and gamma against
    Pinocchio's frames, qdd and the wrench against its constraintDynamics with a CONTACT_6D
    in LOCAL_WORLD_ALIGNED."""
    from support import ROBOTS

    robot = _constrained(tmp_path, ROBOTS / "panda.yaml", """
constraints:
  - {name: held, weld: [tool]}
closed_at: {joint2: 0.4, joint4: -1.8, joint6: 1.5}
""")
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=QUANTITIES)
    reference = Reference(robot)
    model, data = reference.model, reference.data
    (constraint,), ((frame, _),) = robot.constraints, reference.ends
    contacts = pin.StdVec_RigidConstraintModel()
    contacts.append(pin.RigidConstraintModel(
        pin.ContactType.CONTACT_6D, model, model.frames[frame].parentJoint,
        model.frames[frame].placement, 0, pin.SE3(reference.anchor(constraint)),
        pin.LOCAL_WORLD_ALIGNED))
    datas = pin.StdVec_RigidConstraintData()
    datas.append(contacts[0].createData())
    pin.initConstraintDynamics(model, data, contacts, datas)
    settings = pin.ProximalSettings(1e-14, 0.0, 1)
    rng = np.random.default_rng(6)
    for _ in range(20):
        q, v, _ = reference.state(rng, spread=0.2)
        phi, G, gamma = reference.terms(q, v)
        assert_close(module.constraint_residual(q), phi)
        assert_close(module.constraint_jacobian(q), G)
        assert_close(module.constraint_drift(q, v), gamma)
        tau = rng.uniform(-5, 5, robot.dof)
        qdd, wrench = module.constrained_forward_dynamics(q, v, tau, np.zeros(2))
        assert_close(qdd, pin.constraintDynamics(model, data, q, v, tau, contacts, datas,
                                                 settings), rtol=1e-9)
        assert_close(wrench, data.lambda_c, rtol=1e-9)


def test_a_coupling_of_joints_holds_their_sum(tmp_path):
    """A tendon's coupling of two joints, 2 q_2 - q_3 = 0.1, on a chain, against the KKT
    system; its row of G is the coefficients, its drift zero."""
    from support import ROBOTS

    robot = _constrained(tmp_path, ROBOTS / "puma560.yaml", """
constraints:
  - {name: tendon, coupling: {joint2: 2, joint3: -1}, value: 0.1}
closed_at: {joint3: -0.1}
""")
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=QUANTITIES)
    reference = Reference(robot)
    rng = np.random.default_rng(7)
    for _ in range(10):
        q, v, _ = reference.state(rng)
        phi, G, gamma = reference.terms(q, v)
        assert abs(2 * q[1] - q[2] - 0.1) < 1e-12
        assert_close(module.constraint_jacobian(q), G)
        assert not module.constraint_drift(q, v).any()
        tau = rng.uniform(-5, 5, robot.dof)
        for ours, theirs in zip(module.constrained_forward_dynamics(q, v, tau, np.zeros(2)),
                                reference.kkt(q, v, tau)):
            assert_close(ours, theirs, rtol=1e-9)


@pytest.mark.parametrize("name", ["fourbar", "fivebar"])
def test_the_compiled_c_equals_the_python_module(tmp_path, name):
    """Every constraint quantity of the mechanism in C (built strictly, as C++ too), one
    state at a time and in batches, against the numpy module, bit for bit or to 1e-12."""
    from support import compile_strictly

    robot = _load(name)
    dynamics = symdyn.newton_euler(robot)
    symdyn.generate(dynamics, "c", tmp_path / "c", quantities=MECHANISM)
    compile_strictly(tmp_path / "c" / f"{name}.c", tmp_path / "robot.o")
    compiled = symdyn.compile(dynamics, quantities=MECHANISM, cache=tmp_path / "cache")
    python = symdyn.python_module(dynamics, quantities=MECHANISM)
    reference = Reference(robot)
    rng = np.random.default_rng(9)
    states = [reference.state(rng) for _ in range(8)]
    q, v, qdd = (np.array(x) for x in zip(*states))
    tau = rng.uniform(-2, 2, q.shape)
    gains = rng.uniform(0, 20, (len(q), 2))
    restitution = rng.uniform(0, 1, (len(q), 1))
    for quantity, args in (("constraint_residual", (q,)), ("constraint_jacobian", (q,)),
                           ("constraint_drift", (q, v)), ("delassus_matrix", (q,)),
                           ("constrained_forward_dynamics", (q, v, tau, gains)),
                           ("impulse_dynamics", (q, v, restitution)),
                           ("closed_loop_inverse_dynamics", (q, v, qdd)),
                           ("close_loops", (q + 0.05,)),
                           ("constraint_derivatives", (q, v, qdd, tau[:, :2] * 10)),
                           ("constrained_forward_dynamics_derivatives", (q, v, tau, gains))):
        ours, theirs = (getattr(m, quantity)(*args) for m in (compiled, python))
        for a, b in zip(*(x if isinstance(x, tuple) else (x,) for x in (ours, theirs))):
            assert_close(a, b, rtol=1e-12)
    # The names and the configuration a user starts from, the same in both
    for module in (compiled, python):
        assert module.CONSTRAINTS == {"fourbar": ("pin x", "pin y"),
                                      "fivebar": ("effector x", "effector y")}[name]
        assert module.ACTUATED == {"fourbar": ("crank",),
                                   "fivebar": ("left_crank", "right_crank")}[name]
        assert np.abs(module.constraint_residual(module.CLOSED_AT)).max() < 1e-15
    header = (tmp_path / "c" / f"{name}.h").read_text()
    assert f"#define {name.upper()}_NUM_ACTUATED {len(robot.actuated)}" in header
    assert f"#define {name.upper()}_CLOSED_AT {{" in header


def test_a_simulated_four_bar_keeps_its_loop_closed_and_its_energy():
    """The four-bar without friction swings under gravity for 2 s from a closed state, its
    constrained forward dynamics integrated by RK4 (1 ms): with Baumgarte's gains the loop's
    residual stays below 1e-9 and the energy within 1e-7 of its start; without them the
    residual drifts (the constraint is kept at the acceleration level alone) but the energy is
    kept to the integrator's order, which halving the step shows (about 16 times closer)."""
    robot = symdyn.load_robot(HERE / "fourbar.yaml", without=("friction",))
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "constrained_forward_dynamics", "constraint_residual", "kinetic_energy",
        "potential_energy"])
    reference = Reference(robot)
    q0, v0, _ = reference.state(np.random.default_rng(3), spread=0.1)
    zero = np.zeros(robot.dof)

    def run(gains, dt, seconds=2.0):
        def f(x):
            return np.r_[x[3:], module.constrained_forward_dynamics(x[:3], x[3:], zero,
                                                                    gains)[0]]
        x, residual = rk4(f, np.r_[q0, v0], dt, round(seconds / dt),
                          lambda x: np.abs(module.constraint_residual(x[:3])).max())
        energy = float(module.kinetic_energy(x[:3], x[3:]) + module.potential_energy(x[:3]))
        return residual, energy

    start = float(module.kinetic_energy(q0, v0) + module.potential_energy(q0))
    held, energy = run(np.array([400.0, 40.0]), 1e-3)
    assert held < 1e-9 and abs(energy - start) < 1e-7 * max(1.0, abs(start))
    coarse = abs(run(np.zeros(2), 2e-3)[1] - start)
    fine = abs(run(np.zeros(2), 1e-3)[1] - start)
    assert fine < coarse / 8


def test_the_closure_says_when_it_does_not_converge():
    """The five-bar's cranks turned out so far that the distal links cannot meet: the Newton
    steps end with a residual of the gap's size and converged = 0; close to a closed state
    they converge, from a tenth of a radian off."""
    robot = _load("fivebar")
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["close_loops"])
    reference = Reference(robot)
    q, _, _ = reference.state(np.random.default_rng(4))
    start = q.copy()
    start[list(robot.passive)] += 0.1
    _, residual, converged = module.close_loops(start)
    assert converged == 1 and residual < 1e-10
    apart = q.copy()
    apart[list(robot.actuated)] = [np.pi + 0.3, -0.3]
    _, residual, converged = module.close_loops(apart)
    assert converged == 0 and residual > 1e-3


def test_check_compares_every_constraint_quantity():
    """symdyn check of the four-bar: every row ok, the constraints' among them (against
    Pinocchio's frames and its KKT), the closed-loop ones included."""
    from symdyn.check import check

    rows = check(_load("fourbar"), states=10)
    assert all(row.passed for row in rows), [row for row in rows if not row.passed]
    names = " ".join(row.check for row in rows if not row.skipped)
    for words in ("constraint_jacobian = Pinocchio frame Jacobians",
                  "constraint_drift = -dG/dt qd", "d phi/dt = G qd",
                  "constrained_forward_dynamics = KKT of Pinocchio's M, h, G",
                  "delassus_matrix = G M^-1 G^T", "impulse_dynamics: G qd+ = -r G qd",
                  "closed_loop_inverse_dynamics: its tau_a gives qdd and lambda back",
                  "close_loops from the passive joints 0.05 rad off: converged",
                  "constrained_forward_dynamics: Newton-Euler = Lagrange",
                  "constrained_forward_dynamics_derivatives = finite differences"):
        assert words in names


@pytest.mark.parametrize("command", ["identify", "excite"])
def test_identification_refuses_a_robot_with_constraints_in_one_line(tmp_path, command):
    """The four-bar: excite's free joint trajectories opened its loop by 0.47 m and identify
    fitted the tree's regressor, without a word. Both refuse in one line, exit 2, nothing
    written, until identification of constrained robots exists (issue 68)."""
    from click.testing import CliRunner

    from symdyn.cli import main
    data = tmp_path / "data.csv"
    data.write_text("q1,q2,q3,qd1,qd2,qd3,qdd1,qdd2,qdd3,tau1,tau2,tau3\n" + "0," * 11 + "0\n")
    out = tmp_path / "out.csv"
    args = [str(data), "-o", str(out)] if command == "identify" else ["-o", str(out)]
    result = CliRunner().invoke(main, [command, str(HERE / "fourbar.yaml"), *args])
    assert result.exit_code == 2 and not out.exists(), result.output
    (line,) = result.output.strip().splitlines()
    assert f"fourbar: {command} takes robots without constraints, and this one's (pin) hold " \
           "its joints" in line


def test_the_gains_and_the_restitution_default_to_zeros():
    """constrained_forward_dynamics(q, qd, tau) is the exact constraint's, as with gains
    (0, 0), and impulse_dynamics(q, qd) a plastic impact's, in the Python module and the
    compiled one; given, they are taken."""
    robot = _load("fourbar")
    dynamics = symdyn.newton_euler(robot)
    quantities = ["constrained_forward_dynamics", "impulse_dynamics"]
    rng = np.random.default_rng(3)
    q, v, tau = rng.uniform(-1, 1, (3, robot.dof))
    for module in (symdyn.python_module(dynamics, quantities=quantities),
                   symdyn.compile(dynamics, quantities=quantities, quick=True)):
        for ours, theirs in zip(module.constrained_forward_dynamics(q, v, tau),
                                module.constrained_forward_dynamics(q, v, tau, np.zeros(2))):
            np.testing.assert_array_equal(ours, theirs)
        for ours, theirs in zip(module.impulse_dynamics(q, v),
                                module.impulse_dynamics(q, v, [0.0])):
            np.testing.assert_array_equal(ours, theirs)
        moved = module.constrained_forward_dynamics(q, v, tau, [10.0, 2.0])[0]
        assert np.abs(moved - module.constrained_forward_dynamics(q, v, tau)[0]).max() > 1e-6
