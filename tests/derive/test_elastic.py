"""Elastic joints (Spong's reduced model): a spring between each motor, after its gear, and its
link. The extended forward dynamics and De Luca's feedforward against Pinocchio (check), against
each other (the feedforward's torques give back the link motion), against finite differences of
the generated rigid inverse dynamics (to their truncation order), in simulation (a 2-link and a
7-link arm track a smooth motion open loop), and in the stiff limit (the rigid robot's motion,
at the rate 1/K).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import assert_close, assert_refused_in_one_line, rk4

import symdyn
from symdyn.api import python_module
from symdyn.check import check
from symdyn.cli import main
from symdyn.derive.elastic import columns, positions
from symdyn.reference import MujocoReference
from symdyn.report import printout
from symdyn.robot.poses import normalized

HERE = Path(__file__).parent / "mechanisms"
ARM, PANDA = HERE / "elastic_arm.yaml", HERE / "panda_elastic.yaml"
QUANTITIES = ["inverse_dynamics", "forward_dynamics", "spring_torques",
              "elastic_forward_dynamics", "elastic_inverse_dynamics"]


def _module(robot, values=None):
    return python_module(symdyn.newton_euler(robot), quantities=QUANTITIES, values=values)


def _motion(n: int, t: float, speed: float = 1.0) -> list[np.ndarray]:
    """A smooth motion and its first four time derivatives: q_i = a_i sin(w_i t) + b_i."""
    k = np.arange(1, n + 1)
    a, w, b = 0.3 / np.sqrt(k), speed * (1.0 + 0.3 * k), 0.2 * np.cos(k)
    return [a * w**d * np.sin(w * t + d * np.pi / 2) + (b if d == 0 else 0) for d in range(5)]


def test_an_elastic_arm_passes_every_check():
    """Pinocchio's rnea, its derivatives and aba on the link side, and the Lagrange route."""
    rows = check(symdyn.load_robot(ARM), states=30)
    failed = [row for row in rows if not row.passed]
    assert not failed, failed
    names = {row.check for row in rows if not row.skipped}
    assert any(name.startswith("elastic_inverse_dynamics = Pinocchio") for name in names)
    assert any(name.startswith("elastic_forward_dynamics = Pinocchio") for name in names)
    assert "elastic_inverse_dynamics: Newton-Euler = Lagrange" in names


def test_without_elasticity_each_motor_is_locked_to_its_link():
    """The variant a controller that ignores the springs models: rigid joints, the rotors on
    M's diagonal and the friction the joints'."""
    robot = symdyn.load_robot(ARM, without=["elasticity"])
    assert robot.name == "elastic_arm_no_elasticity" and not robot.elastic
    assert [float(link.armature) for link in robot.links] == pytest.approx([0.2, 0.1])
    assert float(robot.links[0].viscous) == pytest.approx(1.0)


def test_the_model_puts_the_rotor_and_friction_on_the_motor_side():
    robot = symdyn.load_robot(ARM)
    assert [link.armature for link in robot.links] == [0, 0]
    assert [link.viscous for link in robot.links] == [0, 0]
    first = robot.links[0].elastic
    assert (first.stiffness, first.damping) == (500, 0)
    assert float(first.armature) == pytest.approx(100**2 * 2e-5)
    assert float(first.viscous) == pytest.approx(100**2 * 1e-4)


def _floating(tmp_path) -> Path:
    """The elastic arm on a free-flyer (a legged robot's leg with series-elastic actuators)."""
    path = tmp_path / "elastic_floating.yaml"
    path.write_text(ARM.read_text().replace("convention: modified\n", (
        "convention: modified\nroot: free_flyer\nbase_body: {mass: 3, com: [0.01, 0.02, "
        "-0.03], inertia: [0.05, 0.06, 0.07, 0.001, 0.002, 0.003]}\n")))
    return path


@pytest.mark.parametrize("kind", ["arm", "panda", "floating"])
def test_the_feedforward_gives_back_the_link_motion(tmp_path, kind):
    """elastic_inverse_dynamics, then elastic_forward_dynamics at its theta, thetad and tau:
    the desired qdd and the feedforward's thetadd again, to 1e-9 (on a floating base too:
    the motion's rates are its quaternion's, and its velocity's those of the base's own)."""
    robot = symdyn.load_robot({"arm": ARM, "panda": PANDA,
                               "floating": _floating(tmp_path)}[kind])
    module, rng = _module(robot), np.random.default_rng(3)
    for _ in range(20):
        qd, qdd, qddd, qdddd = (rng.uniform(-2, 2, robot.dof) for _ in range(4))
        q = normalized(robot, dict(zip(robot.q, rng.uniform(-2, 2, robot.nq))))
        q = np.array([q[s] for s in robot.q])
        theta, thetad, thetadd, tau = module.elastic_inverse_dynamics(q, qd, qdd, qddd, qdddd)
        got_qdd, got_thetadd = module.elastic_forward_dynamics(q, theta, qd, thetad, tau)
        assert_close(got_qdd, qdd, 1e-9)
        assert_close(got_thetadd, thetadd, 1e-9)
        tau_s, delta = module.spring_torques(q, theta, qd, thetad)
        assert_close(delta, theta - q[positions(robot)])
        assert_close(tau_s, module.inverse_dynamics(q, qd, qdd)[columns(robot)])


def test_the_feedforward_is_the_time_derivative_of_the_rigid_inverse_dynamics():
    """thetad - qd and thetadd - qdd, times K, against central differences of the generated
    rigid inverse_dynamics along the motion: the error falls as h^2 (by 4 as h halves)."""
    robot = symdyn.load_robot(PANDA)
    module = _module(robot)
    K = np.array([float(link.elastic.stiffness) for link in robot.links])
    t = 0.37
    q, qd, qdd, qddd, qdddd = _motion(7, t)
    _, thetad, thetadd, _ = module.elastic_inverse_dynamics(q, qd, qdd, qddd, qdddd)
    exact = (K * (thetad - qd), K * (thetadd - qdd))

    def tau(s):
        x, v, a = _motion(7, s)[:3]
        return module.inverse_dynamics(x, v, a)

    errors = []
    for h in (1e-2, 5e-3, 2.5e-3):
        first = (tau(t + h) - tau(t - h)) / (2 * h)
        second = (tau(t + h) - 2 * tau(t) + tau(t - h)) / h**2
        errors.append([np.abs(first - exact[0]).max(), np.abs(second - exact[1]).max()])
    errors = np.array(errors)
    assert errors[-1].max() < 1e-3 * max(np.abs(exact[1]).max(), 1)
    ratios = errors[:-1] / errors[1:]
    assert np.all((ratios > 3.5) & (ratios < 4.5)), ratios


@pytest.mark.parametrize("path, seconds, step", [(ARM, 1.0, 2e-4), (PANDA, 0.3, 2e-4)])
def test_elastic_arms_track_a_smooth_motion_under_the_feedforward(path, seconds, step):
    """Open loop, from the feedforward's own initial motor state: the simulated links stay on
    the desired motion to 1e-6 rad (RK4; the springs undamped, so nothing but the feedforward's
    exactness keeps them there)."""
    robot = symdyn.load_robot(path)
    module = _module(robot)
    n, at = robot.dof, columns(robot)

    def feedforward(t):
        return module.elastic_inverse_dynamics(*_motion(n, t))

    def f(state):
        t, x = state[0], state[1:]
        q, theta, qd, thetad = np.split(x, [n, 2 * n, 3 * n])
        tau = feedforward(t)[3]
        qdd, thetadd = module.elastic_forward_dynamics(q, theta, qd, thetad, tau)
        return np.concatenate([[1.0], qd, thetad, qdd, thetadd])

    theta0, thetad0, _, _ = feedforward(0.0)
    q0, qd0 = _motion(n, 0.0)[:2]
    assert list(at) == list(range(n))
    start = np.concatenate([[0.0], q0, theta0, qd0, thetad0])
    end, _ = rk4(f, start, step, round(seconds / step))
    assert end[0] == pytest.approx(seconds)
    error = np.abs(end[1:n + 1] - _motion(n, end[0])[0]).max()
    assert error < 1e-6, error


def _rigid(robot):
    """The same robot with its joints rigid: each motor locked to its link (its rotor G^2 Jm
    on M's diagonal, its friction the joint's)."""
    spec = robot.spec
    return symdyn.Robot.from_spec(dataclasses.replace(spec, links=tuple(
        dataclasses.replace(link, elastic=None) for link in spec.links)))


def test_stiff_springs_move_the_links_as_the_rigid_robot_at_the_rate_1_over_k(tmp_path):
    """The stiffness scaled by s = 2e2, 2e4, 2e6 (up to 1e9 N m/rad), both robots from rest
    with the springs at their static deflection under a torque step: the links' distance from
    the rigid robot's motion falls as 1/K (singular perturbation: the fast mode's amplitude is
    the step over K): the largest distance over the motion."""
    path = tmp_path / "stiff.yaml"
    path.write_text(ARM.read_text().replace("stiffness: 500", "stiffness: 500 * s")
                    .replace("stiffness: 300", "stiffness: 300 * s")
                    .replace("coulomb_friction: [0.00005, -0.00005], ", "")
                    .replace("gravity:", "parameters: {s: null}\ngravity:"))
    robot = symdyn.load_robot(path)
    rigid = python_module(symdyn.newton_euler(_rigid(robot)),
                          quantities=["forward_dynamics", "gravity_torques"])
    elastic = _module(robot)
    q0 = np.array([0.3, -0.5])
    held = rigid.gravity_torques(q0, [1.0])
    tau = held + np.array([0.4, -0.2])
    seconds, distances = 0.02, []
    for s in (2e2, 2e4, 2e6):
        K = np.array([500, 300]) * s
        theta0 = q0 + held / K     # the springs hold the links against gravity
        step = 0.1 / np.sqrt(K.max() / 0.03)      # a tenth of the fastest mode's period/2pi

        def f(x, s=s):      # the elastic robot's state, then the rigid one's
            q, theta, qd, thetad, rigid_q, rigid_qd = np.split(x, 6)
            qdd, thetadd = elastic.elastic_forward_dynamics(q, theta, qd, thetad, tau, [s])
            return np.concatenate([qd, thetad, qdd, thetadd, rigid_qd,
                                   rigid.forward_dynamics(rigid_q, rigid_qd, tau, [s])])

        steps = round(seconds / step)
        _, distance = rk4(f, np.concatenate([q0, theta0, [0, 0], [0, 0], q0, [0, 0]]),
                          seconds / steps, steps, lambda x: np.abs(x[:2] - x[8:10]).max())
        distances.append(distance)
    rates = np.array(distances[:-1]) / np.array(distances[1:])
    assert np.all((rates > 80) & (rates < 125)), (distances, rates)   # 98.9, 99.8
    assert distances[0] < 1e-4      # and small already at the softest: the rigid limit


def test_the_printout_derives_the_reduced_model_and_the_feedforward():
    text = printout(symdyn.newton_euler(symdyn.load_robot(ARM))).render("text")
    block = text[text.index("Elastic joints"):]
    assert "B thetadd + K (theta - q) + D (thetad - qd) + f(thetad) = tau_m" in block
    assert "theta = q + K^-1 tau_s" in block and "K = [500, 0; 0, 300]" in block
    assert "Spong" in block


def test_the_feedforward_of_damped_springs_is_refused_and_says_why(tmp_path):
    path = tmp_path / "damped.yaml"
    path.write_text(ARM.read_text().replace("stiffness: 300}", "stiffness: 300, damping: 2}"))
    dynamics = symdyn.newton_euler(symdyn.load_robot(path))
    assert "elastic_forward_dynamics" in dynamics.available
    assert "differential equation" in dynamics.unavailable("elastic_inverse_dynamics")
    rigid = symdyn.newton_euler(symdyn.load_robot(HERE.parent.parent.parent / "robots"
                                                  / "puma560.yaml"))
    assert "no elastic joints" in rigid.unavailable("elastic_forward_dynamics")


def test_the_exports_write_the_stiff_limit_and_say_so(tmp_path):
    """export-mjcf and export-urdf write the joints rigid, each motor locked to its link, a
    warning naming them: MuJoCo's M of the export is the variant without elasticity's."""
    pytest.importorskip("mujoco")
    runner = CliRunner()
    for command, out in (("export-mjcf", "arm.xml"), ("export-urdf", "arm.urdf")):
        result = runner.invoke(main, [command, str(ARM), "-o", str(tmp_path / out)])
        assert result.exit_code == 0, result.output
        assert "elastic joints written rigid" in result.output
        assert "'joint1', 'joint2'" in result.output
    reference = MujocoReference(tmp_path / "arm.xml")
    rigid = python_module(symdyn.newton_euler(symdyn.load_robot(ARM, without=["elasticity"])),
                          quantities=["mass_matrix"])
    for q in np.random.default_rng(2).uniform(-2, 2, (5, 2)):
        assert_close(reference.mass_matrix(q), rigid.mass_matrix(q))


@pytest.mark.parametrize("command", [["excite", "-o", "x.csv"],
                                     ["identify", "data.csv"]])
def test_identification_takes_rigid_joints_and_says_so(tmp_path, command):
    """Identification's data are the motors' torques, which drive an elastic joint's link
    only through its spring: refused, exit 2, nothing written."""
    (tmp_path / "data.csv").write_text("t,q1,q2,tau1,tau2\n0,0,0,0,0\n")
    result = CliRunner().invoke(main, [command[0], str(ARM), *(
        str(tmp_path / c) if c.endswith(".csv") else c for c in command[1:])])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "an elastic joint's (joint1, joint2) link is driven by its spring" in result.output
    assert not (tmp_path / "x.csv").exists()


def test_the_c_of_an_elastic_arm_equals_the_python(tmp_path):
    robot = symdyn.load_robot(ARM)
    dynamics = symdyn.newton_euler(robot)
    compiled = symdyn.compile(dynamics, quantities=QUANTITIES, cache=tmp_path / "cache")
    python = _module(robot)
    rng = np.random.default_rng(5)
    for _ in range(10):
        motion = [rng.uniform(-2, 2, 2) for _ in range(5)]
        ours = compiled.elastic_inverse_dynamics(*motion)
        assert_close(ours, python.elastic_inverse_dynamics(*motion))
        state = [motion[0], ours[0], motion[1], ours[1], ours[3]]
        assert_close(compiled.elastic_forward_dynamics(*state),
                     python.elastic_forward_dynamics(*state))


@pytest.mark.parametrize("old, new, field, words", [
    ("elastic: {stiffness: 300}", "elastic: {stiffness: 0}", "link 2.elastic.stiffness",
     "must be positive"),
    ("elastic: {stiffness: 300}", "elastic: {stiffness: 300, damping: -1}",
     "link 2.elastic.damping", "damping is negative"),
    ("elastic: {stiffness: 300}", "elastic: {stiffness: 300, mass: 2}",
     "link 2.elastic.mass", "unknown key"),
    ("motor_inertia: 0.00001, gear_ratio: 100, elastic", "gear_ratio: 100, elastic",
     "link 2.elastic", "rotor inertia"),
    ("elastic: {stiffness: 300}", "elastic: {stiffness: 300}, mimic: 1",
     "link 2.elastic", "of its own"),
])
def test_what_an_elastic_joint_cannot_be_is_refused_in_one_line(tmp_path, old, new, field,
                                                                 words):
    path = tmp_path / "bad.yaml"
    text = ARM.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    assert_refused_in_one_line(tmp_path, path, field, words, 14)    # the second link's spring
