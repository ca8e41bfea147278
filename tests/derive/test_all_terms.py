"""all_terms(q, qd) -> (M, h, T, J, Jdot_qd): one call per control step, bit for bit the separate
functions' values, and Pinocchio's computeAllTerms with the tool frame's quantities."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pinocchio as pin
import pytest
from support import ROBOTS, assert_close, import_file, pin_model, random_robot

import symdyn
from symdyn.emit.build import STRICT
from symdyn.program import op_count, optimize_all

SEPARATE = ("mass_matrix", "nonlinear_effects", "forward_kinematics", "jacobian",
            "jacobian_dot_qd")


def _robots(tmp_path):
    rng = np.random.default_rng(3)
    yield symdyn.load_robot(ROBOTS / "panda.yaml")
    yield symdyn.load_robot(ROBOTS / "puma560.yaml")
    for k, convention in enumerate(["standard", "modified"] * 2):
        yield random_robot(tmp_path, rng, name=f"placed{k}", convention=convention, placed=True)


def _separately(module, q, qd):
    return (module.mass_matrix(q), module.nonlinear_effects(q, qd), module.forward_kinematics(q),
            module.jacobian(q), module.jacobian_dot_qd(q, qd))


def _pinocchio(robot, q, qd):
    """computeAllTerms (M, nle, joint Jacobians) with the tool frame's placement, Jacobian and
    classical acceleration, as a Pinocchio user gets them."""
    model = pin_model(robot.spec)
    data, tool = model.createData(), model.getFrameId("tool")
    out = [[] for _ in SEPARATE]
    for qi, vi in zip(q, qd):
        pin.computeAllTerms(model, data, qi, vi)
        pin.forwardKinematics(model, data, qi, vi, np.zeros(model.nv))
        pin.updateFramePlacement(model, data, tool)
        acceleration = pin.getFrameClassicalAcceleration(model, data, tool,
                                                         pin.LOCAL_WORLD_ALIGNED)
        J = pin.getFrameJacobian(model, data, tool, pin.LOCAL_WORLD_ALIGNED)
        M = np.triu(data.M) + np.triu(data.M, 1).T
        for part, value in zip(out, (M, data.nle, data.oMf[tool].homogeneous,
                                     np.reshape(J, (6, robot.dof)),
                                     np.r_[acceleration.linear, acceleration.angular])):
            part.append(np.array(value))
    return tuple(np.array(part) for part in out)


def test_all_terms_is_the_separate_functions_bit_for_bit_and_pinocchios(tmp_path):
    rng = np.random.default_rng(8)
    for robot in _robots(tmp_path):
        dynamics = symdyn.newton_euler(robot)
        module = symdyn.python_module(dynamics, quantities=["all_terms", *SEPARATE])
        q, qd = rng.uniform(-3, 3, (2, 60, robot.dof))
        together = module.all_terms(q, qd)
        for name, got, alone in zip(SEPARATE, together, _separately(module, q, qd)):
            assert np.array_equal(got, alone), (robot.name, name)
        for got, expected in zip(together, _pinocchio(robot, q, qd)):
            assert_close(got, expected, rtol=1e-12)
        one = module.all_terms(q[0], qd[0])          # one state: arrays of the one state's shape
        assert [x.shape for x in one] == [x.shape[1:] for x in together]


def test_all_terms_shares_what_the_separate_functions_compute_each():
    """The Panda's sines and cosines once, not five times, and fewer operations than the five
    calls; each separate function's own code is as before (the parts are cut from the whole)."""
    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "panda.yaml"))
    together, *alone = optimize_all(dynamics.program(n) for n in ("all_terms", *SEPARATE))
    total = [op_count(p) for p in alone]
    assert op_count(together).mul < sum(o.mul for o in total)
    assert op_count(together).calls == 2 * 7 and sum(o.calls for o in total) > 4 * 2 * 7
    # asked for alone, a part's code is the one it has beside all_terms
    fresh = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "panda.yaml"))
    (mass,) = optimize_all([fresh.program("mass_matrix")])
    assert mass == alone[0]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_all_terms_in_c_and_the_compiled_module(tmp_path):
    """Strict C99; the compiled module's all_terms is its separate functions' bit for bit."""
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    dynamics = symdyn.newton_euler(robot)
    symdyn.generate(dynamics, ["c", "python"], tmp_path,
                    quantities=["all_terms", *SEPARATE])
    subprocess.run(["gcc", *STRICT, "-c", str(tmp_path / "puma560.c"), "-o",
                    str(tmp_path / "puma560.o")], check=True)
    compiled = symdyn.compile(dynamics, quantities=["all_terms", *SEPARATE],
                              cache=tmp_path / "cache")
    python = import_file(tmp_path / "puma560.py", "all_terms_puma560")
    rng = np.random.default_rng(4)
    q, qd = rng.uniform(-3, 3, (2, 40, 6))
    together = compiled.all_terms(q, qd)
    for got, alone, reference in zip(together, _separately(compiled, q, qd),
                                     python.all_terms(q, qd)):
        assert np.array_equal(got, alone)
        assert_close(got, reference, rtol=1e-13)
