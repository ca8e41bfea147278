"""A chain of joint axes -> modified (Craig) DH frames, when they describe it within 1e-12.

Craig's construction (Introduction to Robotics, Sec. 3.4): frame {i} has z along joint axis i,
its origin where the common normal of axes i and i+1 meets axis i, and x along that normal;
where the normal is not unique (parallel axes) the origin is taken where the previous normal
meets the axis (d_i = 0), and where the axes are one line, x is kept from the frame before. The
z axes keep the joints' own directions, so q is the URDF's q, and the DH offsets theta_i (d_i for
a prismatic joint) are the joints' zeros. Frame {0} is the base link's frame when it fits the
first row, else frame {1} at q = 0 (the first row is then zero).

For nearly parallel axes the common normal lies far away and the table is ill-conditioned (the
reason calibration uses Hayati's parameters there); the fitted table is therefore checked by
recomposing the chain at random configurations, and None is returned when it misses by more
than TOLERANCE: the chain is then written with the URDF's own placements.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .rigid import inverse, motion

TOLERANCE = 1e-12
PARALLEL = 1e-12          # |z_i x z_i+1| below which two axes are parallel
MEET = 1e-12              # distance below which two lines meet


@dataclass(frozen=True)
class DHTable:
    rows: tuple                 # (alpha_{i-1}, a_{i-1}, theta_i, d_i) at q = 0, i = 1..n
    base: np.ndarray            # frame {0} in the chain's base frame
    frames: tuple               # ^{i}T_{J_i}: each joint's own frame in DH frame {i} (constant)


def modified_dh(kinds, placements, axes, tip_x=None) -> DHTable | None:
    """The table for joints of ``kinds`` whose frames J_i sit at ``placements`` (each in the
    previous one's, the first in the base frame) and move about or along ``axes`` (in J_i);
    ``tip_x``: the direction (in the base frame) the last frame's x should follow if free."""
    joints = []                                    # J_i at q = 0, in the base frame
    T = np.eye(4)
    for placement in placements:
        T = T @ placement
        joints.append(T)
    points = [J[:3, 3] for J in joints]
    directions = [J[:3, :3] @ np.asarray(axis, dtype=float) for J, axis in zip(joints, axes)]
    frames = _frames(points, directions, tip_x)
    base = np.eye(4) if _row(np.eye(4), frames[0]) is not None else frames[0]
    rows = []
    for previous, frame in zip([base] + frames[:-1], frames):
        row = _row(previous, frame)
        if row is None:
            return None
        rows.append(row)
    offsets = tuple(inverse(F) @ J for F, J in zip(frames, joints))
    table = DHTable(tuple(rows), base, offsets)
    return table if _reproduces(table, kinds, placements, axes) else None


def _frames(points, directions, tip_x) -> list[np.ndarray]:
    n = len(points)
    frames, x_previous = [], np.array([1.0, 0, 0])    # the base frame's x
    foot = points[0]                 # where the previous frame's x line meets this axis
    for i in range(n):
        z = directions[i]
        origin, x = foot, None       # foot lies on axis i
        if i + 1 < n:
            origin, x, foot = _normal(foot, points[i], z, points[i + 1], directions[i + 1],
                                      x_previous)
        if x is None:
            hint = tip_x if i == n - 1 and tip_x is not None else x_previous
            x = _perpendicular(z, hint)
        frame = np.eye(4)
        frame[:3, :3] = np.column_stack([x, np.cross(z, x), z])
        frame[:3, 3] = origin
        frames.append(frame)
        x_previous = x
    return frames


def _normal(foot, p1, z1, p2, z2, hint):
    """Origin and x of frame i, and where x's line meets axis i+1 (x None: free)."""
    foot = p1 + np.dot(foot - p1, z1) * z1       # on axis i
    cross = np.cross(z1, z2)
    if np.linalg.norm(cross) < PARALLEL:
        w = p2 - foot
        w = w - np.dot(w, z1) * z1
        if np.linalg.norm(w) < MEET:             # one line: x is free
            return foot, None, foot
        return foot, _along(w, hint), foot + w
    # the closest points of the two lines: p1 + t1 z1 and p2 + t2 z2
    d = p2 - p1
    b = np.dot(z1, z2)
    t1 = (np.dot(d, z1) - b * np.dot(d, z2)) / (1 - b * b)
    t2 = (b * np.dot(d, z1) - np.dot(d, z2)) / (1 - b * b)
    origin, other = p1 + t1 * z1, p2 + t2 * z2
    between = other - origin
    if np.linalg.norm(between) < MEET:           # they meet: x along z1 x z2
        return origin, _along(cross, hint), origin
    return origin, _along(between, hint), other


def _along(direction, hint) -> np.ndarray:
    """The unit x along ``direction``, signed to follow the previous frame's x where it can,
    so that the offsets theta_i are 0 where the URDF's zero pose allows (a_i may be < 0)."""
    x = direction / np.linalg.norm(direction)
    return -x if np.dot(x, hint) < -MEET else x


def _perpendicular(z, hint) -> np.ndarray:
    for candidate in (hint, np.array([1.0, 0, 0]), np.array([0, 1.0, 0])):
        if candidate is None:
            continue
        x = candidate - np.dot(candidate, z) * z
        if np.linalg.norm(x) > 1e-6:
            return x / np.linalg.norm(x)
    raise AssertionError("unreachable: x and y cannot both be along z")


def _row(previous, frame):
    """(alpha, a, theta, d) with previous Rx(alpha) Tx(a) Rz(theta) Tz(d) = frame, or None."""
    T = inverse(previous) @ frame
    R, p = T[:3, :3], T[:3, 3]
    if abs(R[0, 2]) > TOLERANCE:           # z_i must be perpendicular to x_{i-1}
        return None
    alpha = math.atan2(-R[1, 2], R[2, 2])
    theta = math.atan2(-R[0, 1], R[0, 0])
    a = p[0]
    d = float(np.dot(p, R[:, 2]))
    rest = p - a * np.array([1.0, 0, 0]) - d * R[:, 2]
    if np.linalg.norm(rest) > TOLERANCE * max(1.0, float(np.linalg.norm(p))):
        return None
    return alpha, a, theta, d


def _dh(alpha, a, theta, d) -> np.ndarray:
    ca, sa, ct, st = math.cos(alpha), math.sin(alpha), math.cos(theta), math.sin(theta)
    return np.array([[ct, -st, 0, a], [ca * st, ca * ct, -sa, -sa * d],
                     [sa * st, sa * ct, ca, ca * d], [0, 0, 0, 1]])


def _reproduces(table: DHTable, kinds, placements, axes) -> bool:
    """Whether the table, with its constant offsets, places every joint frame as the URDF does,
    at random configurations (rotation entries and lengths, relative to the robot's size)."""
    size = max(1.0, sum(float(np.linalg.norm(P[:3, 3])) for P in placements))
    rng = np.random.default_rng(0)
    for _ in range(3):
        q = rng.uniform(-math.pi, math.pi, len(kinds))
        J, D = np.eye(4), table.base
        for kind, placement, axis, (alpha, a, theta, d), offset, qi in zip(
                kinds, placements, axes, table.rows, table.frames, q):
            J = J @ placement @ motion(kind, axis, qi)
            D = D @ (_dh(alpha, a, theta + qi, d) if kind == "revolute"
                     else _dh(alpha, a, theta, d + qi))
            error = D @ offset - J
            if np.abs(error[:3, :3]).max() > TOLERANCE or \
                    np.abs(error[:3, 3]).max() > TOLERANCE * size:
                return False
    return True
