"""Elastic joints: Spong's reduced model, and the inverse dynamics along a link motion that it
needs (De Luca's flatness-based feedforward).

A spring of stiffness K and damping D sits between each elastic joint's motor, after its gear,
and its link (model.Elastic). With theta the motors' positions in the joints' units,

    M(q) qdd + h(q, qd) = tau_s,   tau_s = K (theta - q) + D (thetad - qd)   (link side)
    B thetadd + tau_s + f(thetad) = tau_m                                   (motor side)

the rigid joints' rows keep their torques tau; M and h are the link side's (the elastic
joints' rotors and friction are the motors'). Along a desired link motion q(t) of undamped
springs the motors' motion follows from the link's: theta = q + K^-1 tau_s, whose first and
second time derivatives need tau_s = ID(q, qd, qdd) differentiated along the motion, here as
directional derivatives of inverse dynamics' own program (program.derivative), exact where
finite differences are not.
"""
from __future__ import annotations

import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import directional_derivative
from ..robot.model import Robot, joint_friction
from .kinematics import rates


def jerk_symbols(robot: Robot, order: int) -> tuple:
    """The symbols of qd's third (order 3) or fourth (order 4) time derivative, one per
    velocity: qddd1..., qdddd1..."""
    return sympy.symbols(f"q{'d' * order}1:{robot.dof + 1}")


def columns(robot: Robot) -> list[int]:
    """Each elastic joint's place in qd and tau (theta's order)."""
    return [robot.velocity_columns[link.index][0] for link in robot.elastic]


def positions(robot: Robot) -> list[int]:
    """Each elastic joint's place in q (a floating base's seven numbers come first)."""
    return [robot.q.index(link.q) for link in robot.elastic]


def spring_torques(robot: Robot, b: ProgramBuilder) -> list[list]:
    """[tau_s, delta]: each elastic joint's spring torque on its link, K delta + D delta_dot,
    and its deflection delta = theta - q."""
    torques, deflections = [], []
    for link in robot.elastic:
        e = link.elastic
        deflection = b.define(f"delta{link.index}", e.theta - link.q)
        deflections.append(deflection)
        torques.append(b.define(f"tau_s{link.index}", e.stiffness * deflection
                                + e.damping * (e.thetad - link.qd)))
    return [torques, deflections]


def forward_dynamics(robot: Robot, part, b: ProgramBuilder, tau) -> list[list]:
    """[qdd, thetadd] of the extended state (q, theta, qd, thetad) under ``tau``, whose entries
    at elastic joints are their motors' torques: the link side's forward dynamics with the
    springs' torques at those joints, and each motor's B thetadd = tau_m - tau_s - f(thetad)."""
    springs = part("spring_torques")[0]
    at = columns(robot)
    link_tau = dict(zip([tau[k] for k in at], springs))
    qdd = part("forward_dynamics", link_tau)[0]
    thetadd = [b.define(f"thetadd{link.index}", (tau[k] - spring - _motor_friction(link))
                        / link.elastic.armature)
               for link, k, spring in zip(robot.elastic, at, springs)]
    return [qdd, thetadd]


def inverse_dynamics(robot: Robot, part, b: ProgramBuilder) -> list[list]:
    """[theta, thetad, thetadd, tau] along the link motion (q, qd, qdd, qddd, qdddd) of undamped
    springs: tau_s = ID(q, qd, qdd) at each elastic joint, theta = q + tau_s / K and its two
    time derivatives (tau_s's along the motion), and the motors' torques B thetadd + tau_s +
    f(thetad) in tau, whose other entries are the rigid joints' inverse dynamics."""
    tau = list(part("inverse_dynamics")[0])
    at = columns(robot)
    springs = [tau[k] for k in at]
    qddd, qdddd = jerk_symbols(robot, 3), jerk_symbols(robot, 4)
    along = {**rates(robot, b), **dict(zip(robot.qd, robot.qdd)), **dict(zip(robot.qdd, qddd))}
    rate = [b.define(f"tau_s{link.index}_dt", v) for link, v in zip(
        robot.elastic, directional_derivative(b, springs, along, "_dt"))]
    along.update(zip(qddd, qdddd))
    second = directional_derivative(b, rate, along, "_dt")
    theta, thetad, thetadd = [], [], []
    for link, k, spring, first, other in zip(robot.elastic, at, springs, rate, second):
        i, compliance = link.index, 1 / link.elastic.stiffness
        theta.append(b.define(f"theta{i}", link.q + compliance * spring))
        thetad.append(b.define(f"thetad{i}", link.qd + compliance * first))
        thetadd.append(b.define(f"thetadd{i}", link.qdd + compliance * other))
        tau[k] = b.define(f"tau_m{i}", link.elastic.armature * thetadd[-1] + spring
                          + _motor_friction(link, thetad[-1]))
    return [theta, thetad, thetadd, tau]


def _motor_friction(link, velocity=None) -> sympy.Expr:
    """The friction an elastic joint's motor meets at ``velocity`` (its thetad by default)."""
    e = link.elastic
    return joint_friction(e.viscous, e.coulomb, e.thetad if velocity is None else velocity)
