"""The recursions read the tree, not the link order: a robot whose links branch, against
Pinocchio's algorithms on the same tree, and Newton-Euler against Lagrange.

The robot files cannot describe a tree yet; here a random chain is grafted into one by giving
its links other parents, and Pinocchio's model is built from the same placements and bodies."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pinocchio as pin
import pytest
import sympy
from support import random_robot

from symdyn.derive.base_parameters import base_parameters
from symdyn.derive.lagrange import Lagrange
from symdyn.derive.newton_euler import NewtonEuler
from symdyn.derive.quantities import build
from symdyn.program import evaluate
from symdyn.program.passes import eliminate_dead_code

# 1 -> 2, 1 -> 3 -> 4, base -> 5 -> 6: two branches on link 1 and a second root
PARENTS = (0, 1, 1, 3, 0, 5)


def grafted(robot, parents):
    return replace(robot, links=tuple(replace(link, parent=p)
                                      for link, p in zip(robot.links, parents)))


def number(x) -> float:
    return float(sympy.sympify(x))


def pin_tree(robot) -> pin.Model:
    """Pinocchio's model of ``robot``: each joint frame placed in its parent's at q = 0, the
    joint about or along its z, the body's ten parameters about the frame's origin."""
    model = pin.Model()
    for link in robot.links:
        R = np.array([[number(e) for e in row] for row in link.rotation.subs(link.q, 0).tolist()])
        p = np.array([number(e) for e in link.position.subs(link.q, 0)])
        joint = pin.JointModelRZ() if link.revolute else pin.JointModelPZ()
        jid = model.addJoint(link.parent, joint, pin.SE3(R, p), f"j{link.index}")
        ten = np.array([number(v) for v in link.inertia.parameters()])
        model.appendBodyToJoint(jid, pin.Inertia.FromDynamicParameters(ten), pin.SE3.Identity())
    model.gravity.linear = np.array([number(g) for g in robot.gravity])
    return model


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    rng = np.random.default_rng(29)
    folder = tmp_path_factory.mktemp("tree")
    chain = random_robot(folder, rng, name="branching", dof=len(PARENTS), convention="modified")
    robot = grafted(chain, PARENTS)
    return robot, pin_tree(robot), rng.uniform(-2, 2, (3, 8, robot.dof))


def values(robot, *arrays):
    names = (robot.q, robot.qd, robot.qdd)
    return {s: x for symbols, array in zip(names, arrays) for s, x in zip(symbols, array.T)}


def test_topology(tree):
    robot, _, _ = tree
    assert robot.parents == PARENTS
    assert robot.children[0] == (1, 5) and robot.children[1] == (2, 3)
    assert robot.support(4) == (1, 3, 4) and robot.subtree(1) == (1, 2, 3, 4)


def test_a_chain_turns_its_bodies_in_the_double_angle_and_a_tree_does_not(tmp_path):
    """composite._turned: measured faster on chains, slower on trees (ANYmal's ID derivatives),
    so it is a chain's alone; either way M is Pinocchio's (the test above, and the chains')."""
    chain = random_robot(tmp_path, np.random.default_rng(3), dof=6, convention="modified")
    turned = {}
    for robot in (chain, grafted(chain, (0, 1, 1, 3, 0, 5))):
        M = build("mass_matrix", robot, NewtonEuler(robot))
        turned[robot.branched] = any(str(a.lhs).startswith("S2x") for a in M.assignments)
    assert turned == {False: True, True: False}


@pytest.mark.parametrize("route", [NewtonEuler, Lagrange])
def test_inverse_dynamics_and_mass_matrix(tree, route):
    robot, model, (q, qd, qdd) = tree
    data = model.createData()
    tau = evaluate(build("inverse_dynamics", robot, route(robot)), values(robot, q, qd, qdd))
    M = evaluate(build("mass_matrix", robot, route(robot)), values(robot, q))
    for k in range(len(q)):
        np.testing.assert_allclose(tau[k], pin.rnea(model, data, q[k], qd[k], qdd[k]),
                                   atol=1e-9)
        np.testing.assert_allclose(M[k], pin.crba(model, data, q[k]), atol=1e-9)
        assert M[k][1, 4] == 0 and M[k][3, 1] == 0      # neither supports the other


def test_coriolis_and_derivatives(tree):
    robot, model, (q, qd, qdd) = tree
    data = model.createData()
    route = NewtonEuler(robot)
    C = evaluate(build("coriolis_matrix", robot, route), values(robot, q, qd))
    derivatives = build("inverse_dynamics_derivatives", robot, route)
    state = values(robot, q, qd, qdd)
    dq, dqd = (evaluate(derivatives, state, out.name) for out in derivatives.outputs)
    for k in range(len(q)):
        np.testing.assert_allclose(C[k], pin.computeCoriolisMatrix(model, data, q[k], qd[k]),
                                   atol=1e-9)
        expected_dq, expected_dqd, _ = pin.computeRNEADerivatives(model, data, q[k], qd[k],
                                                                 qdd[k])
        np.testing.assert_allclose(dq[k], expected_dq, atol=1e-9)
        np.testing.assert_allclose(dqd[k], expected_dqd, atol=1e-9)


def test_regressor(tree):
    robot, model, (q, qd, qdd) = tree
    data = model.createData()
    regressor = eliminate_dead_code(build("regressor", robot, NewtonEuler(robot)))
    Y = evaluate(regressor, values(robot, q, qd, qdd))
    for k in range(len(q)):
        np.testing.assert_allclose(
            Y[k], pin.computeJointTorqueRegressor(model, data, q[k], qd[k], qdd[k]), atol=1e-9)


def test_tool_jacobian_has_the_tool_branch_alone(tree):
    robot, model, (q, _, _) = tree
    tool = np.array([[number(e) for e in row] for row in robot.tool.tolist()])
    frame = model.addFrame(pin.Frame("tool", robot.dof, pin.SE3(tool[:3, :3], tool[:3, 3]),
                                     pin.FrameType.OP_FRAME))
    data = model.createData()
    J = evaluate(build("jacobian", robot, NewtonEuler(robot)), values(robot, q))
    for k in range(len(q)):
        expected = pin.computeFrameJacobian(model, data, q[k], frame, pin.LOCAL_WORLD_ALIGNED)
        np.testing.assert_allclose(J[k], expected, atol=1e-9)
        assert not J[k][:, :4].any()          # links 1-4 are another branch


def test_base_parameters_span_the_stacked_regressor(tree):
    """The grouping rule, over the parents, and the QR: as many base parameters as the
    regressor has independent columns, and Y pi = Y_b beta (base_parameters checks it)."""
    robot, _, _ = tree
    regressor = build("regressor", robot, NewtonEuler(robot))
    base = base_parameters(robot, regressor)
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.uniform(-2, 2, (3, 60, robot.dof))
    Y = evaluate(eliminate_dead_code(regressor), values(robot, q, qd, qdd))
    assert len(base.names) == np.linalg.matrix_rank(Y.reshape(-1, Y.shape[-1]), tol=1e-8)
