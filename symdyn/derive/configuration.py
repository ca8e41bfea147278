"""Moving in the configuration space: integrate(q, v) and difference(q0, q1), as Pinocchio's.

A joint coordinate moves by its velocity: q + v, and q1 - q0 back. A floating base moves by the
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
    joints = [qi + vi for qi, vi in zip(q[robot.base_configuration:], v[robot.base_velocities:])]
    if not robot.floating:
        return joints
    p0, quat0 = sympy.Matrix(q[:3]), q[3:7]
    u, omega = sympy.Matrix(v[:3]), sympy.Matrix(v[3:6])
    theta = b.define("theta", sympy.sqrt(omega.dot(omega)))
    safe = _nonzero(b, "theta", theta)
    half_sin, half_cos = b.define("sh", sympy.sin(theta / 2)), b.define("ch", sympy.cos(theta / 2))
    W = skew(omega)
    V = (sympy.eye(3) + 2 * (half_sin / safe) ** 2 * W
         + b.define("c3", (theta - sympy.sin(theta)) / safe ** 3) * W * W)
    step = b.vector("Vu", V * u)
    p1 = p0 + quaternion_rotation(quat0) * step
    turn = b.vector("r", omega * b.define("s_theta", half_sin / safe))
    quat1 = [b.define(f"quat{k}", x) for k, x in enumerate(_product(quat0, [*turn, half_cos]))]
    scale = b.define("unit", (3 - sum(x * x for x in quat1)) / 2)
    return [*p1, *(x * scale for x in quat1), *joints]


def difference(robot: Robot, b: ProgramBuilder, q0, q1) -> list:
    """The velocity that moves q0 to q1 in unit time (integrate's inverse): nv entries."""
    joints = [b2 - a for a, b2 in zip(q0[robot.base_configuration:],
                                      q1[robot.base_configuration:])]
    if not robot.floating:
        return joints
    x0, y0, z0, w0 = q0[3:7]
    relative = [b.define(f"rel{k}", x) for k, x in enumerate(
        _product([-x0, -y0, -z0, w0], q1[3:7]))]
    # q and -q are one rotation: the one with w >= 0 turns by theta <= pi (1 where w = 0)
    sign = sympy.sign(relative[3])
    flip = b.define("flip", 1 + sign - sign ** 2)
    r = b.vector("r", sympy.Matrix(relative[:3]) * flip)
    w = b.define("w_abs", relative[3] * flip)
    norm = b.define("rn", sympy.sqrt(r.dot(r)))
    # (theta/2) / sin(theta/2)
    ratio = b.define("f", sympy.atan2(norm, w) / _nonzero(b, "rn", norm))
    omega = b.vector("omega", 2 * ratio * r)
    theta = b.define("theta", 2 * ratio * norm)
    W = skew(omega)
    inverse = (sympy.eye(3) - W / 2
               + b.define("e2", (1 - ratio * w) / _nonzero(b, "theta", theta) ** 2) * W * W)
    delta = b.vector("delta", [a - c for a, c in zip(q1[:3], q0[:3])])
    local = b.vector("dp", quaternion_rotation(q0[3:7]).T * delta)
    return [*(inverse * local), *omega, *joints]


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
