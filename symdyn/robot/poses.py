"""A robot's frames placed in the world, in numbers: each joint's rotation and origin made a
numpy function once, composed from the base out. For what runs on numbers rather than on the
generated code (loops closed at import, configurations where constraints hold, drawings)."""
from __future__ import annotations

import numpy as np
import sympy

from .rigid import wxyz_of_rotation


def link_values(robot, q: dict) -> list[float]:
    """Each link's joint variables (Robot.link_q) at the coordinates' values ``q`` ({symbol:
    number}, those not given at rest: 0, a quaternion the identity): its own, or a mimic
    joint's multiplier times the one it follows plus its offset."""
    out = []
    for link in robot.links:
        if link.mimic is None:
            out += [float(q.get(s, rest)) for s, rest in link.rest.items()]
        else:
            out.append(float(link.mimic[1]) * float(q.get(robot.links[link.mimic[0] - 1].q, 0.0))
                       + float(link.mimic[2]))
    return out


def closed_base(robot) -> np.ndarray | None:
    """A floating base's pose (4 x 4) where the constraints hold (closed_at's root), the
    world's origin unturned where closed_at does not place it; None for a fixed base."""
    if not robot.floating:
        return None
    return (np.eye(4) if robot.closed_at_base is None
            else np.array(robot.closed_at_base, dtype=float))


def closed_configuration(robot) -> list[float]:
    """q where the robot's constraints hold: a floating base's pose (closed_base: its
    position, then its quaternion (x, y, z, w)), then the coordinates of closed_at."""
    head = []
    base = closed_base(robot)
    if base is not None:
        w, x, y, z = wxyz_of_rotation(base[:3, :3])
        head = [*base[:3, 3], x, y, z, w]
    links = dict(zip(robot.link_q, link_values(robot, robot.closed_at)))
    return [float(v) for v in head] + [links[s] for s in robot.q[robot.base_configuration:]]


def normalized(robot, values: dict) -> dict:
    """``values`` ({symbol: number or array}, q drawn at random) with each joint's
    configuration brought back to its manifold (JointKind.normalized: a quaternion to unit
    norm), entry by entry of arrays."""
    values = dict(values)
    for kind, i in robot.joint_kinds:
        symbols = robot.joint_configuration(i)
        values.update(zip(symbols, kind.normalized([values[s] for s in symbols])))
    return values


def moved(robot, q: dict, column: int, d: float) -> dict:
    """The coordinates' values ``q`` moved by d along velocity ``column`` of the joints (0:
    the first joint's, a floating base's left out), by the joint's own integrate: a
    coordinate's by d, a spherical joint's quaternion turned by d about that axis of its
    frame."""
    for i, columns in robot.velocity_columns.items():
        start = columns[0] - robot.base_velocities
        if start <= column < start + len(columns):
            link = robot.links[i - 1]
            v = [0.0] * link.nv
            v[column - start] = d
            values = [q.get(s, rest) for s, rest in link.rest.items()]
            return {**q, **dict(zip(link.configuration,
                                    link.kind.integrate_numbers(values, v)))}
    raise IndexError(f"no joint velocity {column}")


class Poses:
    """``Poses(robot)(q)``: the world pose (4 x 4) of the base frame {0} and of each joint
    frame, for q the coordinates' values ({symbol: number}, those not given 0; a mimic joint's
    follows), the base frame at ``base`` where it is given (else a floating base at the world's
    origin, a fixed one where the file places it)."""

    def __init__(self, robot, values: dict | None = None):
        """``values``: numbers for the robot's free symbols ({symbol: number}), which the
        placements must not hold otherwise (``free`` names those left)."""
        self.robot = robot
        placements = [sympy.Matrix(link.rotation).row_join(sympy.Matrix(link.position)).subs(
            values or {}) for link in robot.links]
        self.free = sorted(set().union(*(p.free_symbols for p in placements)) - set(
            robot.link_q), key=str)
        self.placements = [sympy.lambdify(robot.link_q, p, modules="numpy")
                           for p in placements]

    def __call__(self, q: dict, base: np.ndarray | None = None) -> list[np.ndarray]:
        robot = self.robot
        if base is not None:
            poses = [base]
        else:
            poses = [np.eye(4) if robot.floating else np.array(robot.base, dtype=float)]
        values = link_values(robot, q)
        for link, placement in zip(robot.links, self.placements):
            T = np.eye(4)
            T[:3, :] = np.asarray(placement(*values), dtype=float)
            poses.append(poses[link.parent] @ T)
        return poses

    @staticmethod
    def frame(poses, frame) -> np.ndarray:
        """The world pose of a named frame (model.Frame), of poses' link."""
        return poses[frame.link] @ np.array(frame.placement, dtype=float)
