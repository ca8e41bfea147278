"""Derivatives of the dynamics: against Pinocchio's analytical ones (computeRNEADerivatives,
computeABADerivatives, with armature) and against central finite differences."""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
import sympy
from support import FIXED_BASE, assert_close, pin_model, random_robot, random_states

import symdyn
from symdyn.reference import friction_torques

DERIVATIVES = ["inverse_dynamics_derivatives", "forward_dynamics_derivatives",
               "inverse_dynamics", "forward_dynamics"]
NUMERIC = [p for p in FIXED_BASE if not symdyn.load_robot(p).parameters]


def _viscous(robot):
    return np.diag([float(sympy.sympify(link.viscous)) for link in robot.links])


def _against_pinocchio(robot, module, rng, count=100):
    model = pin_model(robot.spec)
    data = model.createData()
    q, qd, qdd = random_states(rng, robot.dof, count)
    tau = rng.uniform(-20, 20, (count, robot.dof))
    viscous = _viscous(robot)
    rnea, aba = [], []
    for x, v, a, t in zip(q, qd, qdd, tau):
        pin.computeRNEADerivatives(model, data, x, v, a)
        rnea.append((data.dtau_dq.copy(), data.dtau_dv + viscous))
        pin.computeABADerivatives(model, data, x, v, t - friction_torques(robot.spec, v))
        Minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
        aba.append((data.ddq_dq.copy(), data.ddq_dv - Minv @ viscous, Minv))
    assert_close(module.inverse_dynamics_derivatives(q, qd, qdd),
                 tuple(np.array(part) for part in zip(*rnea)), rtol=1e-9)
    assert_close(module.forward_dynamics_derivatives(q, qd, tau),
                 tuple(np.array(part) for part in zip(*aba)), rtol=1e-9)


@pytest.mark.parametrize("path", NUMERIC, ids=[p.stem for p in NUMERIC])
def test_shipped_robots_derivatives_match_pinocchio(path):
    robot = symdyn.load_robot(path)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=DERIVATIVES[:2])
    _against_pinocchio(robot, module, np.random.default_rng(11))


@pytest.mark.parametrize("seed", range(4))
def test_random_robots_derivatives_match_pinocchio_and_finite_differences(tmp_path, seed):
    """Both conventions, prismatic joints, a placed base; central differences of the module's
    own inverse and forward dynamics (qd kept away from 0, where Coulomb friction jumps)."""
    rng = np.random.default_rng(300 + seed)
    robot = random_robot(tmp_path, rng, dof=int(rng.integers(2, 6)), placed=True,
                         convention=("standard", "modified")[seed % 2])
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=DERIVATIVES)
    _against_pinocchio(robot, module, rng)
    q, qd, qdd = random_states(rng, robot.dof, 20)
    qd = np.where(np.abs(qd) < 0.1, 0.5, qd)
    tau = rng.uniform(-20, 20, qd.shape)
    h = 1e-6
    eye = np.eye(robot.dof)
    for function, args, derivatives in (
            ("inverse_dynamics", (q, qd, qdd), module.inverse_dynamics_derivatives(q, qd, qdd)),
            ("forward_dynamics", (q, qd, tau), module.forward_dynamics_derivatives(q, qd, tau))):
        f = getattr(module, function)
        for k in range(2):                   # along q, then along qd
            numeric = np.stack([(f(*(a + h * e if i == k else a for i, a in enumerate(args)))
                                 - f(*(a - h * e if i == k else a for i, a in enumerate(args))))
                                / (2 * h) for e in eye], axis=-1)
            assert_close(derivatives[k], numeric, rtol=1e-6)


def test_newton_euler_and_lagrange_give_one_derivative(tmp_path):
    """Both routes' programs differentiated alike: they agree on a small arm."""
    rng = np.random.default_rng(17)
    robot = random_robot(tmp_path, rng, dof=3, placed=True)
    ne, la = (symdyn.python_module(route(robot), quantities=DERIVATIVES[:2])
              for route in (symdyn.newton_euler, symdyn.lagrange))
    q, qd, qdd = random_states(rng, 3, 30)
    tau = rng.uniform(-20, 20, q.shape)
    assert_close(la.inverse_dynamics_derivatives(q, qd, qdd),
                 ne.inverse_dynamics_derivatives(q, qd, qdd))
    assert_close(la.forward_dynamics_derivatives(q, qd, tau),
                 ne.forward_dynamics_derivatives(q, qd, tau), rtol=1e-9)
