"""Moving in the configuration space: integrate(q, v) and difference(q0, q1), as Pinocchio's.

A joint coordinate moves by its velocity: q + v, and q1 - q0 back; a spherical joint's quaternion
by the exponential of its angular velocity in its own frame, as a floating base's turns (Pinocchio's
JointModelSpherical), and back by the logarithm. A floating base moves by the
exponential of its twist in its own frame (Pinocchio's JointModelFreeFlyer, whose velocity is
LOCAL): with omega the angular and u the linear part of v, theta = |omega|,

    R_1 = R_0 exp([omega]x),      p_1 = p_0 + R_0 V u,
    V   = I + (1 - cos theta)/theta^2 [omega]x + (theta - sin theta)/theta^3 [omega]x^2,

the quaternion q_1 = q_0 (omega/theta sin(theta/2), cos(theta/2)) (Hamilton's product, the
rotation of R_1), brought back to unit norm to first order, q (3 - |q|^2)/2, as Pinocchio does so
that a long integration keeps a unit quaternion. difference is its inverse, the logarithm of
q_0^-1 q_1 taken the short way (|theta| <= pi): omega = 2 atan2(|r|, |w|)/|r| r for the relative
quaternion (r, w) with w >= 0, u = V^-1 R_0^T (p_1 - p_0), V^-1 = I - [omega]x/2 +
(1 - (theta/2) cot(theta/2))/theta^2 [omega]x^2.

No branch: each coefficient with a removable singularity at theta = 0 divides by
theta + 1 - sign(theta), which is theta but at exactly 0, where the coefficient multiplies a zero
vector. Nearby, the direct formulas lose no accuracy that matters: (1 - cos theta)/theta^2 is
written 2 sin^2(theta/2)/theta^2, and the cancellation in the others is of a term that multiplies
[omega]x^2, of size theta^2, so the result keeps its absolute accuracy.
"""
from __future__ import annotations

import sympy

from ..program.builder import ProgramBuilder
from ..robot.model import Robot, quaternion_rotation
from ..spatial import skew


def integrate(robot: Robot, b: ProgramBuilder, q, v) -> list:
    """q moved by the velocity v for unit time (v = qd dt for a step dt): nq entries."""
    joints = []
    for name, (qi, vi) in _joints(robot, q, v, velocity=True):
        joints += (turned(b, name, qi, vi) if len(qi) == 4 else [qi[0] + vi[0]])
    if not robot.floating:
        return joints
    p0, quat0 = sympy.Matrix(q[:3]), q[3:7]
    u, omega = sympy.Matrix(v[:3]), sympy.Matrix(v[3:6])
    theta = b.define("theta", sympy.sqrt(omega.dot(omega)))
    safe = _nonzero(b, "theta", theta)
    half = b.define("sh", sympy.sin(theta / 2)), b.define("ch", sympy.cos(theta / 2))
    W = skew(omega)
    V = (sympy.eye(3) + 2 * (half[0] / safe) ** 2 * W
         + b.define("c3", (theta - sympy.sin(theta)) / safe ** 3) * W * W)
    step = b.vector("Vu", V * u)
    p1 = p0 + quaternion_rotation(quat0) * step
    return [*p1, *turned(b, "", quat0, omega, theta, half), *joints]


def difference(robot: Robot, b: ProgramBuilder, q0, q1) -> list:
    """The velocity that moves q0 to q1 in unit time (integrate's inverse): nv entries."""
    joints = []
    for name, (start, end) in _joints(robot, q0, q1, velocity=False):
        joints += (_turn_between(b, name, start, end)[0] if len(start) == 4
                   else [end[0] - start[0]])
    if not robot.floating:
        return joints
    omega, theta, ratio, w = _turn_between(b, "", q0[3:7], q1[3:7])
    W = skew(sympy.Matrix(omega))
    inverse = (sympy.eye(3) - W / 2
               + b.define("e2", (1 - ratio * w) / _nonzero(b, "theta", theta) ** 2) * W * W)
    delta = b.vector("delta", [a - c for a, c in zip(q1[:3], q0[:3])])
    local = b.vector("dp", quaternion_rotation(q0[3:7]).T * delta)
    return [*(inverse * local), *omega, *joints]


def _joints(robot: Robot, q, other, velocity: bool):
    """(name prefix, (q's entries, ``other``'s)) of each joint with a coordinate: ``other`` a
    velocity (``velocity``) or a second configuration; a spherical joint's four and three, or
    four and four."""
    at_q = robot.base_configuration
    at_other = robot.base_velocities if velocity else at_q
    for i in robot.coordinates:
        link = robot.links[i - 1]
        nq = len(link.configuration)
        n_other = link.nv if velocity else nq
        yield f"j{i}_", (q[at_q:at_q + nq], other[at_other:at_other + n_other])
        at_q, at_other = at_q + nq, at_other + n_other


def turned(b: ProgramBuilder, name: str, quat0, omega, theta=None, half=None) -> list:
    """The unit quaternion quat0 turned by the angular velocity omega in its own frame for unit
    time: quat0 (omega/theta sin(theta/2), cos(theta/2)), renormalized to first order; its
    angle theta and (sin, cos) of theta/2 where already named."""
    omega = sympy.Matrix(omega)
    if theta is None:
        theta = b.define(f"{name}theta", sympy.sqrt(omega.dot(omega)))
        half = (b.define(f"{name}sh", sympy.sin(theta / 2)),
                b.define(f"{name}ch", sympy.cos(theta / 2)))
    half_sin, half_cos = half
    turn = b.vector(f"{name}r", omega * b.define(f"{name}s_theta",
                                                 half_sin / _nonzero(b, f"{name}theta", theta)))
    quat1 = [b.define(f"{name}quat{k}", x)
             for k, x in enumerate(_product(quat0, [*turn, half_cos]))]
    scale = b.define(f"{name}unit", (3 - sum(x * x for x in quat1)) / 2)
    return [x * scale for x in quat1]


def _turn_between(b: ProgramBuilder, name: str, quat0, quat1) -> tuple:
    """(omega, theta, (theta/2) / sin(theta/2), cos(theta/2)): the rotation vector from unit
    quaternion quat0 to quat1 in quat0's frame, the short way round."""
    x0, y0, z0, w0 = quat0
    relative = [b.define(f"{name}rel{k}", x) for k, x in enumerate(
        _product([-x0, -y0, -z0, w0], quat1))]
    # q and -q are one rotation: the one with w >= 0 turns by theta <= pi (1 where w = 0)
    sign = sympy.sign(relative[3])
    flip = b.define(f"{name}flip", 1 + sign - sign ** 2)
    r = b.vector(f"{name}r", sympy.Matrix(relative[:3]) * flip)
    w = b.define(f"{name}w_abs", relative[3] * flip)
    norm = b.define(f"{name}rn", sympy.sqrt(r.dot(r)))
    # (theta/2) / sin(theta/2)
    ratio = b.define(f"{name}f", sympy.atan2(norm, w) / _nonzero(b, f"{name}rn", norm))
    omega = list(b.vector(f"{name}omega", 2 * ratio * r))
    theta = b.define(f"{name}theta", 2 * ratio * norm)
    return omega, theta, ratio, w


def _product(a, c) -> list:
    """Hamilton's product a c of quaternions (x, y, z, w)."""
    ax, ay, az, aw = a
    cx, cy, cz, cw = c
    return [aw * cx + ax * cw + ay * cz - az * cy,
            aw * cy - ax * cz + ay * cw + az * cx,
            aw * cz + ax * cy - ay * cx + az * cw,
            aw * cw - ax * cx - ay * cy - az * cz]


def _nonzero(b: ProgramBuilder, name: str, x):
    """x, but 1 where x = 0 exactly (x >= 0): a divisor whose quotient multiplies zero there.
    Its gap 1 - sign(x) (0 or 1) is a step of its own: added to x after 1, the 1 would round a
    small x away."""
    return b.define(f"{name}_s", x + b.define(f"{name}_gap", 1 - sympy.sign(x)))
