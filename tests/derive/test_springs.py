"""Joint springs (spring: {stiffness, reference}): a passive torque -K (q - q_ref) at a joint,
MuJoCo's joint stiffness. The actuators add K (q - q_ref) to the rigid body's torques; every
quantity that holds friction holds the springs beside it, against Pinocchio's rnea and aba
(which have none) plus the springs, and against MuJoCo's qfrc_spring."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from support import ROBOTS, assert_close

import symdyn
from symdyn.cli import main

# The PUMA 560 with a spring at its shoulder and at its wrist (its reference -20 degrees).
SPRUNG = (ROBOTS / "puma560.yaml").read_text()


def _sprung(tmp_path):
    text = SPRUNG
    for k, spring in ((2, "{stiffness: 40, reference: 0.3}"),
                      (5, "{stiffness: 2.5, reference: -pi/9}")):
        lines = text.splitlines()
        starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("- ")
                  and "joint:" in line]
        lines.insert(starts[k - 1] + 1, f"    spring: {spring}")
        text = "\n".join(lines) + "\n"
    path = tmp_path / "sprung.yaml"
    path.write_text(text)
    return symdyn.load_robot(path)


def test_the_springs_are_in_inverse_and_forward_dynamics_and_their_derivatives(tmp_path):
    """tau = M qdd + h + friction + K (q - q_ref); forward dynamics inverts it; the
    derivatives along q take K (central differences, 1e-7); the regressor's spring columns
    make Y pi = tau."""
    robot = _sprung(tmp_path)
    assert [tuple(float(x) for x in link.spring) if link.spring else None
            for link in robot.links] == [None, (40, 0.3), None, None,
                                         (2.5, pytest.approx(-np.radians(20))), None]
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "inverse_dynamics", "mass_matrix", "nonlinear_effects", "friction_torques",
        "joint_spring_torques", "forward_dynamics", "inverse_dynamics_derivatives",
        "forward_dynamics_derivatives", "regressor"])
    rng = np.random.default_rng(5)
    from symdyn.derive.regressor import standard_parameters
    pi = np.array([float(v) for _, v in standard_parameters(robot)])
    for _ in range(10):
        q, qd, qdd = rng.uniform(-2, 2, (3, 6))
        springs = module.joint_spring_torques(q)
        assert_close(springs, [0, 40 * (q[1] - 0.3), 0, 0,
                               2.5 * (q[4] + np.radians(20)), 0])
        tau = module.inverse_dynamics(q, qd, qdd)
        assert_close(tau, module.mass_matrix(q) @ qdd + module.nonlinear_effects(q, qd)
                     + module.friction_torques(qd) + springs)
        assert_close(module.forward_dynamics(q, qd, tau), qdd, rtol=1e-9)
        assert_close(module.regressor(q, qd, qdd) @ pi, tau)
        dq, _ = module.inverse_dynamics_derivatives(q, qd, qdd)
        h = 1e-6
        numeric = np.array([(module.inverse_dynamics(q + h * e, qd, qdd)
                             - module.inverse_dynamics(q - h * e, qd, qdd)) / (2 * h)
                            for e in np.eye(6)]).T
        assert_close(dq, numeric, rtol=1e-7)
        dqdd, _, _ = module.forward_dynamics_derivatives(q, qd, tau)
        numeric = np.array([(module.forward_dynamics(q + h * e, qd, tau)
                             - module.forward_dynamics(q - h * e, qd, tau)) / (2 * h)
                            for e in np.eye(6)]).T
        assert_close(dqdd, numeric, rtol=1e-6)


def test_check_compares_the_springs_with_pinocchio(tmp_path):
    """symdyn check: rnea, aba and both derivatives of Pinocchio with the springs' torques
    and stiffness added pass every row (the reference takes K (q - q_ref) from the file)."""
    robot = _sprung(tmp_path)
    result = CliRunner().invoke(main, ["check", robot.spec.path, "--states", "10", "-q"])
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    for row in ("inverse_dynamics = Pinocchio rnea (+ friction and springs)",
                "forward_dynamics_derivatives = Pinocchio computeABADerivatives",
                "inverse_dynamics_derivatives = Pinocchio computeRNEADerivatives"):
        assert row in result.output


@pytest.mark.parametrize("spring, words", [
    ("{stiffness: -3}", "the stiffness is negative (-3)"),
    ("{reference: 0.1}", "missing required field 'stiffness'"),
    ("{stiffness: 3, rest: 0.1}", "unknown key 'rest'"),
])
def test_a_spring_a_file_cannot_mean_is_refused_in_one_line(tmp_path, spring, words):
    lines = SPRUNG.splitlines()
    first = next(i for i, line in enumerate(lines) if "joint:" in line)
    lines.insert(first + 1, f"    spring: {spring}")
    path = tmp_path / "bad.yaml"
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["generate", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and not (tmp_path / "o").exists(), result.output
    (line,) = result.output.strip().splitlines()
    assert words in line and "link 1.spring" in line


def test_a_mjcf_spring_round_trips_and_equals_mujocos(tmp_path):
    """export-mjcf writes stiffness and springref; the import of that file reads them back,
    and check --mjcf compares joint_spring_torques with MuJoCo's -qfrc_spring (nonzero)."""
    robot = _sprung(tmp_path)
    exported, again = tmp_path / "sprung.xml", tmp_path / "again.yaml"
    runner = CliRunner()
    assert runner.invoke(main, ["export-mjcf", robot.spec.path, "-o", str(exported)]
                         ).exit_code == 0
    assert 'stiffness="40" springref="0.3"' in exported.read_text()
    assert runner.invoke(main, ["import", str(exported), "-o", str(again), "-q"]).exit_code == 0
    back = symdyn.load_robot(again)
    assert [tuple(float(x) for x in link.spring) for link in back.links if link.spring] == [
        (40, 0.3), (2.5, pytest.approx(-np.radians(20)))]
    result = runner.invoke(main, ["check", str(again), "--mjcf", str(exported), "--states", "5",
                                  "-q"])
    assert result.exit_code == 0 and "FAILED" not in result.output, result.output
    assert "joint_spring_torques = -qfrc_spring (MuJoCo" in result.output
