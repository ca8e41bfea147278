"""Numeric rigid-body algebra in float64: poses, rpy, and a body's ten inertial parameters.

What the URDF importer and exporter compute with; the symbolic model (model.py) does not use it.
Angles within a tolerance of a multiple of pi/12 (QUARTER_TOLERANCE unless the caller says) are
taken as that multiple; of pi/2, with exact sines and cosines: the rotation matrix of 0s and 1s
meant, instead of one with 1e-16 where the zeros are.

The default, 1e-9 rad, takes the 1.57079632679 many URDFs write (5e-12 from pi/2) as pi/2, and
so halves the generated code of the UR5, Kinova's Jaco and Baxter's arms (measured on
example-robot-data's URDFs). No physical quantity changes measurably: 1e-9 rad moves a point
1 m out by a nanometre; the Jaco2's tau, M and tool pose move by 3e-12 relative, and its forward
dynamics, which M's condition number magnifies on the small wrist inertias, by 5e-8. A URDF's
1.5708 (4e-6 off) is kept: at that size it may be meant. ``symdyn check --urdf`` reports the
difference from the URDF as written.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy

from . import angles

QUARTER_TOLERANCE = 1e-9


def cos_sin(angle: float, tolerance: float = QUARTER_TOLERANCE) -> tuple[float, float]:
    """cos and sin of ``angle``, or, within ``tolerance`` of a multiple of pi/12, that
    multiple's, rounded once from their exact values (0 and 1 exactly for quarter turns)."""
    exact, _, means = angles.nearest(angle, angles.ANGLE, tolerance)
    if not means:
        return math.cos(angle), math.sin(angle)
    return float(sympy.cos(exact)), float(sympy.sin(exact))


def rotation(rpy, tolerance: float = QUARTER_TOLERANCE) -> np.ndarray:
    """R = Rz(yaw) Ry(pitch) Rx(roll), as URDF composes ``rpy`` = (roll, pitch, yaw)."""
    (cr, sr), (cp, sp), (cy, sy) = (cos_sin(a, tolerance) for a in rpy)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def pose(xyz=(0, 0, 0), rpy=(0, 0, 0), tolerance: float = QUARTER_TOLERANCE) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = rotation(rpy, tolerance)
    T[:3, 3] = xyz
    return T


def rpy(R) -> tuple[float, float, float]:
    """(roll, pitch, yaw) with R = Rz(yaw) Ry(pitch) Rx(roll); at pitch = +-pi/2 the roll is 0."""
    pitch = math.atan2(-R[2, 0], math.hypot(R[0, 0], R[1, 0]))
    if math.hypot(R[0, 0], R[1, 0]) < 1e-12:
        return 0.0, pitch, math.atan2(-R[0, 1], R[1, 1])
    return math.atan2(R[2, 1], R[2, 2]), pitch, math.atan2(R[1, 0], R[0, 0])


def inverse(T) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = T[:3, :3].T
    out[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return out


def motion(kind: str, axis, q: float) -> np.ndarray:
    """The joint's own motion: a turn by q about the unit ``axis`` or a shift by q along it."""
    T = np.eye(4)
    if kind == "prismatic":
        T[:3, 3] = q * np.asarray(axis)
        return T
    k = np.asarray(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    T[:3, :3] = np.eye(3) + math.sin(q) * K + (1 - math.cos(q)) * K @ K
    return T


def _skew(v) -> np.ndarray:
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def inertia_tensor(six) -> np.ndarray:
    """The symmetric tensor of (Ixx, Iyy, Izz, Ixy, Iyz, Ixz)."""
    ixx, iyy, izz, ixy, iyz, ixz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


@dataclass(frozen=True)
class Body:
    """A rigid body's ten parameters about a frame's origin, in its axes: mass, first moment
    h = m c and inertia J_O = I_c - m S(c)^2 (linear, so bodies add)."""

    mass: float
    first_moment: np.ndarray
    inertia_origin: np.ndarray

    @classmethod
    def none(cls) -> "Body":
        return cls(0.0, np.zeros(3), np.zeros((3, 3)))

    @classmethod
    def at_com(cls, mass, com, inertia_com, placement=None) -> "Body":
        """A body of ``mass`` with ``inertia_com`` about its centre of mass, in the axes of a
        frame that ``placement`` (default: none) places in this one, at ``com`` there."""
        c = np.asarray(com, dtype=float)
        body = cls(float(mass), mass * c, inertia_com - mass * _skew(c) @ _skew(c))
        return body if placement is None else body.seen_from(placement)

    def seen_from(self, T) -> "Body":
        """The same body about the origin of a frame in which this one's frame has pose T."""
        R, p = T[:3, :3], T[:3, 3]
        h = R @ self.first_moment
        J = (R @ self.inertia_origin @ R.T - _skew(p) @ _skew(h) - _skew(h) @ _skew(p)
             - self.mass * _skew(p) @ _skew(p))
        return Body(self.mass, h + self.mass * p, J)

    def __add__(self, other: "Body") -> "Body":
        return Body(self.mass + other.mass, self.first_moment + other.first_moment,
                    self.inertia_origin + other.inertia_origin)

    def com(self) -> np.ndarray:
        return self.first_moment / self.mass if self.mass else np.zeros(3)

    def inertia_com(self) -> np.ndarray:
        c = self.com()
        return self.inertia_origin + self.mass * _skew(c) @ _skew(c)
