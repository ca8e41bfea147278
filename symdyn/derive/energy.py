"""The robot's energies and centre of mass, for energy-based control and passivity checks.

Conventions (those of Pinocchio's computeKineticEnergy, computePotentialEnergy and
centerOfMass, so that the numbers compare one to one):

* kinetic energy K = 1/2 qd^T M(q) qd, the rotors' 1/2 G^2 Jm qd^2 included (they are on M's
  diagonal);
* potential energy V = -sum_i m_i g . c_i, with c_i link i's centre of mass in the world and g
  the gravity in the world: zero where every centre of mass is at the world's origin, so a
  robot placed high by its ``base`` has its height in V;
* the centre of mass c = sum_i m_i c_i / sum_i m_i, in the world, of the links (and the payload)
  the robot file describes.
"""
from __future__ import annotations

import sympy

from ..program.builder import ProgramBuilder
from ..robot.model import Robot
from .kinematics import base_frame, forward_kinematics, world_frames


def kinetic_energy(robot: Robot, route, b: ProgramBuilder) -> sympy.Expr:
    """1/2 qd^T (M qd), with M qd the inverse dynamics of the accelerations qd at rest and
    without gravity: one recursion of the route, no matrix."""
    velocity = robot.slots(robot.link_qd, "velocity")
    momentum = route.inverse_dynamics(b, [sympy.Integer(0)] * len(velocity), velocity,
                                      [0, 0, 0])
    armature = robot.per_velocity(link.armature for link in robot.links)
    return sympy.Rational(1, 2) * sum((v * (p + a * v) for v, p, a in zip(velocity, momentum,
                                                                           armature)),
                                      sympy.Integer(0))


def potential_energy(robot: Robot, b: ProgramBuilder, gravity=None) -> sympy.Expr:
    """V = -g0 . sum_i (m_i p_i + R_i MS_i) - (sum_i m_i) g . t_base: the links in base frame
    {0}, where the model's gravity g0 is (or ``gravity``, also in {0}), and the base's place in
    the world."""
    g0 = sympy.Matrix(robot.gravity if gravity is None else gravity)
    # g in the world: a floating base's R(q) R(q)^T g0 is the file's g (for a unit quaternion)
    world = (sympy.Matrix(robot.spec.gravity) if robot.floating and gravity is None
             else robot.base[:3, :3] * g0)
    height = world.dot(robot.base[:3, 3]) * total_mass(robot)
    moment = _moment(robot, forward_kinematics(robot, b), (sympy.eye(3), sympy.zeros(3, 1)))
    return b.define("V", -g0.dot(moment) - height)


def center_of_mass(robot: Robot, b: ProgramBuilder) -> list[sympy.Expr]:
    """sum_i (m_i p_i + R_i MS_i) / sum_i m_i, the link frames in the world."""
    moment = _moment(robot, world_frames(robot, b), base_frame(robot, b))
    inverse = b.define("inverse_mass", 1 / total_mass(robot))
    return [b.define(f"com_{axis}", m * inverse) for axis, m in zip("xyz", moment)]


def _moment(robot: Robot, frames, base) -> sympy.Matrix:
    """sum_i m_i c_i = sum_i (m_i p_i + R_i MS_i), with (R_i, p_i) link i's frame in ``frames``
    and a floating base's body in its frame ``base``, (R_0, p_0) in the same frame."""
    bodies = [(link.inertia, frame) for link, frame in zip(robot.links, frames)]
    return sum((body.mass * p + R * body.first_moment
                for body, (R, p) in [*bodies, (robot.base_inertia, base)]), sympy.zeros(3, 1))


def total_mass(robot: Robot) -> sympy.Expr:
    """The links' masses, and a floating base's."""
    return sum((link.inertia.mass for link in robot.links), robot.base_inertia.mass)
