"""Spatial algebra: placements, motions, forces and rigid-body inertias, in one vocabulary.

Featherstone's ("Rigid Body Dynamics Algorithms", Ch. 2) and Pinocchio's (SE3, Motion, Force,
Inertia), written for frames that each hold their vectors about their own origin, in their own
axes:

* a ``Motion`` is (angular, linear): a body's angular velocity and the velocity of the body point
  at the frame's origin (or their rates);
* a ``Force`` is (angular, linear): a moment about the frame's origin and a force;
* a ``Placement`` ^aX_b is frame b's rotation R and origin p in frame a; it carries motions,
  forces and inertias from b to a (``act``) and back (``act_inverse``);
* an ``Inertia`` is a rigid body's ten parameters about the origin: mass m, first moment
  h = m c and rotational inertia J_O = I_c - m S(c)^2. They are linear in what they describe,
  so bodies add, and their ten-vector ``parameters()`` is what the regressor multiplies, in
  Pinocchio's order.

Every operation is arithmetic on its operands' entries, so the same code runs on numbers (numpy
arrays of shape (3,) and (3, 3): the importers), on sympy's matrices (the constant model) and on
symengine's (the derivation). Nothing here names steps of a program or simplifies: the
derivation names what it keeps (see derive/), and the model expands what it stores.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# Pinocchio's order of a body's ten parameters (its dynamic parameters, and the columns of
# computeJointTorqueRegressor): m, h = m c, then J_O's xx, xy, yy, xz, yz, zz.
PARAMETERS = ("m", "mx", "my", "mz", "XX", "XY", "YY", "XZ", "YZ", "ZZ")


def like(x, rows):
    """``rows`` (a list of rows, or of entries for a vector) as a matrix of ``x``'s kind:
    numpy's (in floats, or objects if ``x`` holds them), sympy's or symengine's."""
    if isinstance(x, np.ndarray):
        return np.array(rows, dtype=object if x.dtype == object else float)
    return type(x)(rows)


def skew(v):
    """S(v), with S(v) w = v x w, as a matrix of ``v``'s kind."""
    return like(v, [[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def cross(a, b):
    """a x b, for two vectors of one kind."""
    if isinstance(a, np.ndarray):
        return np.cross(a, b)
    return a.cross(b)


def dot(a, b):
    if isinstance(a, np.ndarray):
        return a @ b
    return a.dot(b)


def _same(step: Callable | None) -> Callable:
    return step or (lambda tag, value: value)


@dataclass(frozen=True)
class _Pair:
    """Six numbers as (angular, linear) vectors, which add and scale as a vector space: a
    motion with motions, a force with forces."""

    angular: Any
    linear: Any

    def __add__(self, other):
        return type(self)(self.angular + other.angular, self.linear + other.linear)

    def __sub__(self, other):
        return type(self)(self.angular - other.angular, self.linear - other.linear)

    def __mul__(self, scalar):
        return type(self)(self.angular * scalar, self.linear * scalar)


@dataclass(frozen=True)
class Motion(_Pair):
    """A spatial motion (angular, linear) about a frame's origin, in its axes."""

    def cross(self, other: "Motion") -> "Motion":
        """self x other: the rate of ``other`` carried along by this motion."""
        return Motion(cross(self.angular, other.angular),
                      cross(self.angular, other.linear) + cross(self.linear, other.angular))

    def cross_force(self, force: "Force") -> "Force":
        """self x* force: the same for a force."""
        return Force(cross(self.angular, force.angular) + cross(self.linear, force.linear),
                     cross(self.angular, force.linear))


@dataclass(frozen=True)
class Force(_Pair):
    """A spatial force (angular, linear): a moment about a frame's origin and a force, in its
    axes."""

    def dot(self, motion: Motion):
        """The power of this force on ``motion``."""
        return dot(self.angular, motion.angular) + dot(self.linear, motion.linear)


@dataclass(frozen=True)
class Placement:
    """^aX_b: frame b's rotation and origin in frame a."""

    rotation: Any
    translation: Any

    @classmethod
    def of_transform(cls, T) -> "Placement":
        """From a 4x4 homogeneous transform (numpy's, sympy's or symengine's)."""
        return cls(T[:3, :3], T[:3, 3])

    def __mul__(self, other: "Placement") -> "Placement":
        """^aX_b ^bX_c = ^aX_c."""
        return Placement(self.rotation @ other.rotation,
                         self.translation + self.rotation @ other.translation)

    def inverse(self) -> "Placement":
        """^bX_a."""
        Rt = self.rotation.T
        return Placement(Rt, -(Rt @ self.translation))

    def act(self, motion: Motion) -> Motion:
        """A motion of frame b's, in frame a."""
        w = self.rotation @ motion.angular
        return Motion(w, self.rotation @ motion.linear + cross(self.translation, w))

    def act_inverse(self, motion: Motion) -> Motion:
        """A motion of frame a's, in frame b."""
        Rt = self.rotation.T
        return Motion(Rt @ motion.angular,
                      Rt @ (motion.linear + cross(motion.angular, self.translation)))

    def act_force(self, force: Force, step: Callable | None = None) -> Force:
        """A force of frame b's, in frame a; ``step(tag, value)`` may name the rotated force
        ("f") before the moment reads it."""
        f = _same(step)("f", self.rotation @ force.linear)
        return Force(self.rotation @ force.angular + cross(self.translation, f), f)

    def act_force_inverse(self, force: Force) -> Force:
        """A force of frame a's, in frame b."""
        Rt = self.rotation.T
        return Force(Rt @ (force.angular - cross(self.translation, force.linear)),
                     Rt @ force.linear)

    def act_inertia(self, inertia: "Inertia", step: Callable | None = None) -> "Inertia":
        """A body's inertia of frame b's, in frame a (Khalil and Dombre 9.4):

            m' = m,   h' = R h + m p,   J' = R J R^T - m S(p)^2 - S(p) S(R h) - S(R h) S(p).

        ``step(tag, value)`` may name R h ("h") and J R^T ("JRt") before they are used, so that
        a symbolic J' does not expand into many terms."""
        step = _same(step)
        R, p, m = self.rotation, self.translation, inertia.mass
        r = step("h", R @ inertia.first_moment)
        JRt = step("JRt", inertia.inertia_origin @ R.T)
        Sp, Sr = skew(p), skew(r)
        return Inertia(m, r + p * m, R @ JRt - Sp @ Sp * m - Sp @ Sr - Sr @ Sp)

    def transform(self):
        """The 4x4 homogeneous transform, of the rotation's kind."""
        R, p = self.rotation, self.translation
        rows = [[R[r, c] for c in range(3)] + [p[r]] for r in range(3)] + [[0, 0, 0, 1]]
        return like(R, rows)


@dataclass(frozen=True)
class Inertia:
    """A rigid body's ten parameters about a frame's origin, in its axes."""

    mass: Any
    first_moment: Any        # h = m c
    inertia_origin: Any      # J_O = I_c - m S(c)^2, symmetric

    @classmethod
    def from_com(cls, mass, com, inertia_com) -> "Inertia":
        """A body of ``mass`` with ``inertia_com`` about its centre ``com`` (a vector of the
        frame's; ``inertia_com`` a matrix of its kind)."""
        S = skew(com)
        return cls(mass, com * mass, inertia_com - S @ S * mass)

    @classmethod
    def from_parameters(cls, ten, vector=None) -> "Inertia":
        """The body of a ten-vector in PARAMETERS' order; ``vector`` makes a vector or a matrix
        of a list (numpy's array by default)."""
        vector = vector or (lambda rows: np.array(rows, dtype=float))
        m, hx, hy, hz, xx, xy, yy, xz, yz, zz = ten
        return cls(m, vector([hx, hy, hz]),
                   vector([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))

    def parameters(self) -> tuple:
        """The ten parameters in PARAMETERS' order."""
        h, J = self.first_moment, self.inertia_origin
        return (self.mass, h[0], h[1], h[2], J[0, 0], J[0, 1], J[1, 1], J[0, 2], J[1, 2],
                J[2, 2])

    def __add__(self, other: "Inertia") -> "Inertia":
        """Two bodies welded together, both about the same origin."""
        return Inertia(self.mass + other.mass, self.first_moment + other.first_moment,
                       self.inertia_origin + other.inertia_origin)

    def __sub__(self, other: "Inertia") -> "Inertia":
        """This body without a part of it (the parameters are linear: the part may be none)."""
        return Inertia(self.mass - other.mass, self.first_moment - other.first_moment,
                       self.inertia_origin - other.inertia_origin)

    def times(self, motion: Motion) -> Force:
        """I v: the momentum of the body moving with ``motion`` (or the force of an
        acceleration, without the velocity product)."""
        h = self.first_moment
        return Force(self.inertia_origin @ motion.angular + cross(h, motion.linear),
                     motion.linear * self.mass - cross(h, motion.angular))

    def com(self):
        """The centre of mass, c = h / m (the origin for a body without mass)."""
        return self.first_moment / self.mass if self.mass else self.first_moment * 0

    def inertia_com(self):
        """I_c = J_O + m S(c)^2."""
        S = skew(self.com())
        return self.inertia_origin + S @ S * self.mass
