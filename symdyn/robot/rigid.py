"""Numeric poses and rpy in float64, and bodies (spatial.Inertia) in numbers.

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

import numpy as np
import sympy

from ..spatial import Inertia, Placement, skew
from . import angles

QUARTER_TOLERANCE = 1e-9
# The sizes a robot file's numbers have (expr.MAX_MAGNITUDE): an importer's numbers past the
# largest are refused, and those below the smallest are 0, as the writer writes them
# (write.decimal); so what the importer checks is what the file says.
LARGEST, SMALLEST = 1e30, 1e-30


def in_bounds(values) -> np.ndarray | None:
    """``values`` as floats, each of size below SMALLEST made 0; None where one of them is
    not finite or is larger than LARGEST."""
    values = np.array(values, dtype=float)
    if not np.all(np.isfinite(values)) or np.any(np.abs(values) > LARGEST):
        return None
    values[np.abs(values) < SMALLEST] = 0.0
    return values


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


def rotation_wxyz(quaternion) -> np.ndarray:
    """The rotation of a quaternion (w, x, y, z), MuJoCo's order, normalised first."""
    w, x, y, z = np.asarray(quaternion, dtype=float) / np.linalg.norm(quaternion)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def wxyz_of_rotation(R) -> np.ndarray:
    """The unit quaternion (w, x, y, z), w >= 0, of a rotation matrix (Shepperd's method: from
    its largest diagonal term, so that no division is by a small number)."""
    R = np.asarray(R, dtype=float)
    trace = np.trace(R)
    k = int(np.argmax([trace, R[0, 0], R[1, 1], R[2, 2]]))
    if k == 0:
        w = np.sqrt(1 + trace) / 2
        out = np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w),
                        (R[1, 0] - R[0, 1]) / (4 * w)])
    else:
        i, j, m = k - 1, k % 3, (k + 1) % 3
        v = np.zeros(3)
        v[i] = np.sqrt(1 + R[i, i] - R[j, j] - R[m, m]) / 2
        v[j] = (R[j, i] + R[i, j]) / (4 * v[i])
        v[m] = (R[m, i] + R[i, m]) / (4 * v[i])
        out = np.array([(R[m, j] - R[j, m]) / (4 * v[i]), *v])
    return -out if out[0] < 0 else out


def pose(xyz=(0, 0, 0), rpy=(0, 0, 0), tolerance: float = QUARTER_TOLERANCE) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = rotation(rpy, tolerance)
    T[:3, 3] = xyz
    return T


def rpy(R) -> tuple[float, float, float]:
    """(roll, pitch, yaw) with R = Rz(yaw) Ry(pitch) Rx(roll); at pitch = +-pi/2 the roll is 0.

    Near pitch = +-pi/2 the yaw from R's first column (entries of size cos(pitch)) is off by
    round-off / cos(pitch), 1e-5 rad at 5e-12; so roll and pitch are read off Rz(yaw)^T R,
    whose entries they are of size one in: whatever yaw was taken, Rz(yaw) Ry(pitch) Rx(roll)
    is R to round-off."""
    R = np.asarray(R, dtype=float)
    if math.hypot(R[0, 0], R[1, 0]) < 1e-12:
        yaw = math.atan2(-R[0, 1], R[1, 1])      # the roll's share taken by the yaw
    else:
        yaw = math.atan2(R[1, 0], R[0, 0])
    c, s = math.cos(yaw), math.sin(yaw)
    M = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]]) @ R     # Ry(pitch) Rx(roll)
    return math.atan2(-M[1, 2], M[1, 1]), math.atan2(-M[2, 0], M[0, 0]), yaw


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
    K = skew(np.asarray(axis, dtype=float))
    T[:3, :3] = np.eye(3) + math.sin(q) * K + (1 - math.cos(q)) * K @ K
    return T


def inertia_tensor(six) -> np.ndarray:
    """The symmetric tensor of (Ixx, Iyy, Izz, Ixy, Iyz, Ixz)."""
    ixx, iyy, izz, ixy, iyz, ixz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


def no_body() -> Inertia:
    """Nothing: the body of a link without inertial data, in numbers."""
    return Inertia(0.0, np.zeros(3), np.zeros((3, 3)))


def seen_from(T, body: Inertia) -> Inertia:
    """``body`` about the origin of a frame in which its own frame has pose ``T`` (4x4)."""
    return Placement.of_transform(np.asarray(T, dtype=float)).act_inertia(body)
