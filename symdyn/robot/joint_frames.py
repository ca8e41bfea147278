"""The joint frames of a robot file in the urdf form: z on each joint's axis, x chosen so that
the placements between them are as cheap as Denavit-Hartenberg's.

A joint frame is the link frame turned by A_i, which takes z onto the joint's axis; any turn
Rz(phi_i) about that axis after it is a joint frame too, and the derivation is as right in any
of them. What the choice changes is the cost: the placement of frame i in its parent's,

    ^pR_i(q) = A_p^T R_origin Rot(axis, q) A_i = Rz(-phi_p) K_i Rz(q + phi_i),
    K_i = B_p^T R_origin B_i        (A = B Rz(phi), B the shortest turn onto the axis),

is multiplied into every velocity, acceleration and force it carries. Written as Euler angles,
K_i = Rz(alpha_i) Rx(beta_i) Rz(gamma_i), the placement is Rz(alpha_i - phi_p) Rx(beta_i)
Rz(q + gamma_i + phi_i): choosing phi_p = alpha_i leaves Rx(beta_i) Rz(q + offset), modified DH's
form (Craig), whose offset costs nothing (it is added to q before the sine and cosine), and whose
twist beta_i is the angle between the two axes -- a right angle, in most robots. A URDF whose
origins roll a joint's frame by 30 degrees about its own axis (ANYmal's hips) would otherwise
carry cos 30 and sin 30 into every product through that joint.

A spherical joint has no axis: its joint frame is its link frame (A = I, phi = 0), which its
quaternion turns after the fixed part of the placement, Rz(alpha_i - phi_p) Rx(beta_i)
Rz(gamma_i) (Pinocchio's JointModelSpherical after the joint's origin).

A link with several children has one phi for all of them: the one that leaves the most of its
children's alpha - phi at a multiple of a right angle (a quarter turn about z only permutes
axes), as Khalil and Kleinfinger's gamma leaves a tree's other branches. A leaf, and a link
whose children's axes are parallel to its own (any phi serves them), takes phi = -gamma: no
offset of its own. The base frame {0} stays the root link's frame (a floating base's q is its
pose).

Angles within 1e-13 rad of a multiple of pi/12 are that multiple, exactly: the placements of a
file written with exact or nearly exact right angles keep their zeros and ones.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy

from ..spatial import skew
from .dh import pose, rot_x, rot_z
from .joints import KINDS
from .spec import LinkSpec

SNAP = 1e-13      # rad: an angle this close to a multiple of pi/12 is that multiple


@dataclass(frozen=True)
class JointFrame:
    """Joint i's frame: ``turn`` A_i (its axes in the file's link frame), and its placement in
    its parent's joint frame, Rz(before) Rx(twist) Rz(q + offset) at ``position``."""

    turn: sympy.Matrix
    before: sympy.Expr
    twist: sympy.Expr
    offset: sympy.Expr
    position: sympy.Matrix

    def placement(self, kind, configuration) -> tuple[sympy.Matrix, sympy.Matrix]:
        """^pR_i and ^pP_i of a joint of ``kind`` (joints.JointKind) at ``configuration``."""
        fixed = rot_z(self.before)[:3, :3] * rot_x(self.twist)[:3, :3]
        rotation, translation = kind.transform(configuration, self.offset)
        return fixed * rotation, self.position + fixed * translation


def joint_frames(rows: tuple[LinkSpec, ...], folded) -> list[JointFrame]:
    """Each link's joint frame (see the module docstring), links in their order, parents
    first. ``folded`` makes a number without a closed form a double (model.folded)."""
    # A joint without an axis (a spherical joint's turns about every axis): its joint frame is
    # the link frame itself
    shortest = [_aligned(row.axis) if row.axis is not None else sympy.eye(3) for row in rows]
    origins = [folded(pose(row.origin.xyz, row.origin.rpy)) for row in rows]
    euler = [_euler(np.array((shortest[row.parent - 1].T if row.parent else sympy.eye(3))
                             * origin[:3, :3] * shortest[i], dtype=float))
             for i, (row, origin) in enumerate(zip(rows, origins))]
    children = [[] for _ in range(len(rows) + 1)]
    for i, row in enumerate(rows, start=1):
        children[row.parent].append(i)
    phi = [0.0] * (len(rows) + 1)          # phi[0]: the base frame stays
    frames = []
    for i, row in enumerate(rows, start=1):
        alpha, beta, gamma = _given(euler[i - 1], phi[row.parent])
        fixed = [euler[c - 1][0] for c in children[i] if euler[c - 1][0] is not None]
        phi[i] = (0.0 if not KINDS[row.joint].symmetric else _shared(fixed) if fixed
                  else -gamma)
        p = phi[row.parent]
        parent = shortest[row.parent - 1] * _rz(p) if row.parent else sympy.eye(3)
        frames.append(JointFrame(
            turn=shortest[i - 1] * _rz(phi[i]), before=_angle(alpha - p), twist=_angle(beta),
            offset=_angle(gamma + phi[i]),
            position=(parent.T * origins[i - 1][:3, 3]).applyfunc(sympy.expand)))
    return frames


def _rz(angle: float) -> sympy.Matrix:
    return rot_z(_angle(angle))[:3, :3]


def _euler(K: np.ndarray) -> tuple:
    """(alpha, beta, gamma) with K = Rz(alpha) Rx(beta) Rz(gamma); alpha None where the axes
    are parallel (beta 0 or pi), and gamma then the whole turn about z, for alpha = 0."""
    # beta by atan2: acos of a cosine near 1 would lose half the digits of a small twist
    beta = math.atan2(math.hypot(K[0, 2], K[1, 2]), K[2, 2])
    if math.hypot(K[0, 2], K[1, 2]) > 1e-12:
        return math.atan2(K[0, 2], -K[1, 2]), beta, math.atan2(K[2, 0], K[2, 1])
    if K[2, 2] > 0:         # Rz(gamma)
        return None, 0.0, math.atan2(K[1, 0], K[0, 0])
    return None, math.pi, math.atan2(-K[1, 0], K[0, 0])     # Rx(pi) Rz(gamma)


def _given(euler: tuple, phi: float) -> tuple[float, float, float]:
    """The Euler angles, alpha = phi where the axes are parallel (the turn about z goes to
    gamma: Rz(phi) Rz(g - phi) = Rz(g), Rz(phi) Rx(pi) Rz(g + phi) = Rx(pi) Rz(g))."""
    alpha, beta, gamma = euler
    if alpha is not None:
        return alpha, beta, gamma
    return phi, beta, gamma - phi if beta == 0.0 else gamma + phi


def _shared(alphas: list[float]) -> float:
    """The children's alpha that leaves the most of them at a multiple of a right angle."""
    def square(a, b):
        turns = (a - b) / (math.pi / 2)
        return abs(turns - round(turns)) < 1e-12
    return max(alphas, key=lambda a: (sum(square(a, b) for b in alphas), -alphas.index(a)))


def _angle(value: float) -> sympy.Expr:
    """An angle in (-pi, pi]: a multiple of pi/12 exactly where it is one to SNAP."""
    value = math.remainder(value, 2 * math.pi)
    k = round(value / (math.pi / 12))
    if abs(value - k * math.pi / 12) <= SNAP:
        return sympy.pi * sympy.Rational(k, 12) if k != -12 else sympy.pi
    return sympy.Float(value, 17)


def _aligned(axis) -> sympy.Matrix:
    """A rotation taking z onto the unit vector ``axis``: the joint frame's axes in the link
    frame's (Rodrigues' formula for the shortest turn; a half turn about x for -z).

    Exact where the axis is (a few digits, or the cosines of special angles); otherwise in
    doubles: the roots of a 17-digit decimal's square are exact numbers no code would keep, and
    simplifying them took seconds a joint."""
    exact = all(_plain(a) for a in axis)
    ax, ay, az = axis if exact else (sympy.Float(sympy.N(a, 30), 17) for a in axis)
    s = sympy.sqrt(ax**2 + ay**2)
    if s == 0:
        return sympy.eye(3) if az > 0 else sympy.diag(1, -1, -1)
    K = skew(sympy.Matrix([-ay / s, ax / s, 0]))
    turn = sympy.eye(3) + s * K + (1 - az) * K * K
    return turn.applyfunc(sympy.simplify if exact else sympy.expand)


def _plain(number) -> bool:
    """A number of a few digits: its rationals' numerators and denominators below 10^4."""
    return all(abs(r.p) < 10**4 and r.q < 10**4
               for r in sympy.sympify(number).atoms(sympy.Rational))
