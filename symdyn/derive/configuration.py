"""Moving in the configuration space: integrate(q, v) and difference(q0, q1), as Pinocchio's.

Each joint moves by its kind's own operations (robot/joints.py: a coordinate by q + v, a
spherical joint's and a floating base's quaternion by the exponential of its velocity), joint
after joint: a floating base first, then the links with coordinates of their own, q's order.
"""
from __future__ import annotations

from ..program.builder import ProgramBuilder
from ..robot.model import Robot


def integrate(robot: Robot, b: ProgramBuilder, q, v) -> list:
    """q moved by the velocity v for unit time (v = qd dt for a step dt): nq entries."""
    return [x for kind, name, (qi, vi) in _joints(robot, q, v, velocity=True)
            for x in kind.integrate(b, name, qi, vi)]


def difference(robot: Robot, b: ProgramBuilder, q0, q1) -> list:
    """The velocity that moves q0 to q1 in unit time (integrate's inverse): nv entries."""
    return [x for kind, name, (start, end) in _joints(robot, q0, q1, velocity=False)
            for x in kind.difference(b, name, start, end)]


def _joints(robot: Robot, q, other, velocity: bool):
    """(kind, name prefix, (q's entries, ``other``'s)) of each joint with a coordinate, a
    floating base's first: ``other`` a velocity (``velocity``) or a second configuration."""
    at_q = at_other = 0
    for kind, i in robot.joint_kinds:
        n_other = kind.nv if velocity else kind.nq
        yield (kind, f"j{i}_" if i else "",
               (q[at_q:at_q + kind.nq], other[at_other:at_other + n_other]))
        at_q, at_other = at_q + kind.nq, at_other + n_other
