"""The mass and Coriolis matrices and the derivatives of inverse dynamics by composite rigid
bodies, in the joint frames.

Links i..n, welded together, form the composite body i. Its ten inertial parameters in frame {i},
about the origin O_i, gather inward from the tip (Khalil and Dombre, 9.4): with the placement
^{i-1}T_i = (R, P) of robot.model and the child's first moment turned into {i-1}, r = R MS,

    m'  = m
    MS' = r + m P
    J'  = R J R^T - m S(P)^2 - S(P) S(r) - S(r) S(P)

are link i's parameters seen from {i-1}, and the composite body i-1 adds its own link's.

M (Walker and Orin's method 3; Featherstone's CRBA). A unit acceleration of joint j, everything
else at rest and no gravity, needs the force that moves the composite body j alone: about O_j,
(n, f) = (J^c z, z x MS^c) for a revolute joint, (MS^c x z, m^c z) for a prismatic one. M_jj is
its component along the joint; carried inward as Newton-Euler's inward recursion carries forces,
it gives M_ij for every i < j, and nothing outward of joint j is recomputed for each column.

With spatial motions (omega, u) and forces (n, f) about each frame's origin, link k's velocity
v_k, acceleration a_k (a_0 = (0, -g): gravity as the base's acceleration), inertia I_k and
momentum I_k v_k, and after Echeandia and Wensing ("Numerical methods to compute the Coriolis
matrix and Christoffel symbols for rigid-body systems", JCND 2021)

    B_k  = (v_k x* I_k - I_k v_k x + (I_k v_k) xbar*) / 2,

summed over the links outward of i into B^c_i as I^c_i is. v x* I - I v x is the rate of change
of I as the link moves, itself an inertia with no mass (D): first moment m u + omega x MS and
moment S(omega) J - J S(omega) - S(u) S(MS) - S(MS) S(u); (I v) xbar* maps a motion s to
s x* (I v). So B^c is 15 numbers (D^c and the momentum h^c) that gather inward like inertias.

Derivatives (Carpentier and Mansard, RSS 2018, here in the joint frames). Moving q_j turns links
j..n rigidly about the joint's screw S_j; moving qd_j adds S_j to their velocities. With the
parent's v_{j-1} and a_{j-1}, z_j = S_j x v_j and y_j = S_j x a_{j-1} - z_j x v_{j-1}, each
outward link's force f_k = I_k a_k + v_k x* I_k v_k changes by

    df_k/dq_j  = S_j x* f_k - I_k y_j - 2 B_k z_j,
    df_k/dqd_j = 2 B_k S_j - 2 I_k z_j.

Summed over the links outward of both joints, with F_j the force joint j transmits:

    dtau_i/dq_j  =  S_i . (S_j x* F_j - I^c_j y_j - 2 B^c_j z_j)    for i <= j,
                 = -S_i . (I^c_i y_j + 2 B^c_i z_j)                  for i > j (S_i turns too),
    dtau_i/dqd_j =  S_i . (2 B^c_k S_j - 2 I^c_k z_j),  k = max(i, j).

dtau/dqd is twice the Christoffel-consistent C, which Pinocchio's computeCoriolisMatrix gives.
C's upper triangle is columns carried inward like M's; the derivatives' upper triangles pair the
two forces of joint j with S_i carried outward into frame {j}, one motion for both. Each lower
triangle pairs the rows S_i^T I^c_i and S_i^T 2 B^c_i, carried inward as forces (D^c is
symmetric, and S . (s x* h) = -(S x* h) . s), with y_j, z_j and S_j. Nothing outward of a joint
is recomputed for each of its derivatives.
"""
from __future__ import annotations

from dataclasses import dataclass

import symengine
import sympy

from ..program.builder import ProgramBuilder
from ..program.symengine_form import to_sympy
from ..robot.model import Robot
from ..spatial import skew
from .algebra import Matrix, Z, define, placement, vector

AXES = "xyz"


@dataclass(frozen=True)
class Body:
    """Inertial parameters in a joint frame, about its origin: an inertia, or its rate of change
    (m = 0)."""

    m: symengine.Expr
    MS: Matrix
    J: Matrix

    def seen_from_parent(self, b: ProgramBuilder, name: str, R, P) -> "Body":
        """The same parameters in frame {i-1} about O_{i-1}, for ``(R, P)`` = ^{i-1}T_i."""
        r = vector(b, f"{name}r", R * self.MS)
        # R J R^T in two named products, so that no entry expands into many terms.
        JRt = self.J * R.T
        JR = Matrix(3, 3, [define(b, f"{name}JR_{AXES[row]}{AXES[col]}", JRt[row, col])
                           for row in range(3) for col in range(3)])
        SP, Sr = skew(P), skew(r)
        return Body(self.m, r + P * self.m, R * JR - SP * SP * self.m - SP * Sr - Sr * SP)

    def __add__(self, other: "Body") -> "Body":
        return Body(self.m + other.m, self.MS + other.MS, self.J + other.J)

    def named(self, b: ProgramBuilder, name: str) -> "Body":
        return Body(define(b, f"m{name}", self.m), vector(b, f"MS{name}", self.MS),
                    _symmetric(b, f"J{name}", self.J))

    def times(self, omega, u):
        """The force (n, f) about the origin for the motion (omega, u)."""
        return self.J * omega + self.MS.cross(u), u * self.m - self.MS.cross(omega)


def _symmetric(b: ProgramBuilder, name: str, J) -> Matrix:
    entries = {(row, col): define(b, f"{name}_{AXES[row]}{AXES[col]}", J[row, col])
               for row in range(3) for col in range(row, 3)}
    return Matrix(3, 3, [entries[min(row, col), max(row, col)]
                         for row in range(3) for col in range(3)])


def _force_to_parent(b: ProgramBuilder, name: str, R, P, n, f):
    """The force (n, f) about O_i in {i}, about O_{i-1} in {i-1}."""
    f = vector(b, f"f{name}", R * f)
    return vector(b, f"n{name}", R * n + P.cross(f)), f


def _carried(b: ProgramBuilder, name: str, placements, j: int, n, f):
    """(i, n, f) for i = j, j-1, ..., 1: the force (n, f) of frame {j} in each frame inward."""
    for i in range(j, 0, -1):
        if i < j:
            n, f = _force_to_parent(b, f"{name}{i}_{j}", *placements[i + 1], n, f)
        yield i, n, f


def _inward(b: ProgramBuilder, name: str, placements, links, j: int, n, f) -> dict:
    """S_i . F for i = j, j-1, ..., 1, the force F = (n, f) of frame {j} carried inward."""
    return {i: n[2] if links[i - 1].revolute else f[2]
            for i, n, f in _carried(b, name, placements, j, n, f)}


def _composites(robot: Robot, b: ProgramBuilder, placements, name: str, bodies) -> list[Body]:
    """The sums over links i..n of ``bodies``, each in frame {i}, base first."""
    composites = [None] * robot.dof
    child = None
    for link, body in zip(reversed(robot.links), reversed(bodies)):
        i = link.index
        if child is not None:
            body = body + child.seen_from_parent(b, f"{name}{i + 1}", *placements[i + 1])
        composites[i - 1] = child = body.named(b, f"{name}{i}")
    return composites


def _composite_forces(robot: Robot, b: ProgramBuilder, placements, name: str, forces) -> list:
    """The sums over links i..n of ``forces`` (n, f), each about O_i in {i}, base first."""
    composites = [None] * robot.dof
    child = None
    for link, (n, f) in zip(reversed(robot.links), reversed(forces)):
        i = link.index
        if child is not None:
            n_child, f_child = _force_to_parent(b, f"{name}{i + 1}", *placements[i + 1], *child)
            n, f = n + n_child, f + f_child
        composites[i - 1] = child = (vector(b, f"{name}n{i}", n), vector(b, f"{name}f{i}", f))
    return composites


def _placements(robot: Robot, b: ProgramBuilder) -> list:
    return [None] + [placement(link, b) for link in robot.links]   # 1-based, as the links


def _inertias(robot: Robot) -> list[Body]:
    return [Body(symengine.sympify(link.inertia.mass), Matrix(link.inertia.first_moment),
                 Matrix(link.inertia.inertia_origin)) for link in robot.links]


def _axis(link):
    """S_i, the joint's unit motion (omega, u) in its own frame."""
    zero = symengine.zeros(3, 1)
    return (Z, zero) if link.revolute else (zero, Z)


def _motion_cross(omega, u, w, v):
    """(omega, u) x (w, v), the rate of a motion vector carried by the motion (omega, u)."""
    return omega.cross(w), omega.cross(v) + u.cross(w)


def _force_cross(w, v, n, f):
    """(w, v) x* (n, f), the same for a force."""
    return w.cross(n) + v.cross(f), w.cross(f)


def _columns(robot: Robot, b: ProgramBuilder, placements, composite) -> sympy.Matrix:
    """M from the composite inertias: column j is the force moving composite body j alone."""
    n = robot.dof
    M = sympy.zeros(n, n)
    for link, body in zip(robot.links, composite):
        j = link.index
        force = body.times(*_axis(link))
        for i, value in _inward(b, "M", placements, robot.links, j, *force).items():
            M[i - 1, j - 1] = M[j - 1, i - 1] = value
    return M


def mass_matrix(robot: Robot, b: ProgramBuilder) -> sympy.Matrix:
    """M(q) without the rotors' inertia (quantities.py adds it)."""
    placements = _placements(robot, b)
    return _columns(robot, b, placements,
                    _composites(robot, b, placements, "c", _inertias(robot)))


def coriolis_matrix(robot: Robot, b: ProgramBuilder, qd) -> sympy.Matrix:
    """C(q, qd), Christoffel-consistent, as Pinocchio's computeCoriolisMatrix: half of
    d(C qd)/dqd."""
    n = robot.dof
    moving = _Moving.of(robot, b, qd)
    C = sympy.zeros(n, n)
    for link in robot.links:
        j = link.index
        column = _scaled(moving.by_velocity(j), symengine.Rational(1, 2))
        for i, value in _inward(b, "C", moving.placements, robot.links, j, *column).items():
            C[i - 1, j - 1] = b.define(f"C{i}_{j}", value)
    for (i, j), row in _rows(robot, b, moving).items():
        C[i - 1, j - 1] = b.define(f"C{i}_{j}", moving.by_velocity_of_row(j, *row) / 2)
    return C


def inverse_dynamics_derivatives(robot: Robot, b: ProgramBuilder, qd, qdd, gravity):
    """dtau/dq and dtau/dqd of the rigid bodies (no rotors, no friction), by the module
    docstring's formulas."""
    n = robot.dof
    moving = _Moving.of(robot, b, qd)
    rows = _rows(robot, b, moving)
    accelerations = _accelerations(robot, b, moving, qd, qdd, gravity)
    forces = _composite_forces(robot, b, moving.placements, "F", [
        _plus(body.times(*a), _force_cross(*v, *body.times(*v)))
        for body, v, (a, _) in zip(moving.inertias, moving.velocities, accelerations)])
    dq, dqd = sympy.zeros(n, n), sympy.zeros(n, n)
    memo: dict = {}     # the entries are symengine's sums: to_sympy, not sympy's sympify

    def entry(value):
        return to_sympy(value, memo)

    y, by_q, by_qd = {}, {}, {}
    for link, Ic, F, v, (_, a_parent), qd_j in zip(robot.links, moving.composite, forces,
                                                    moving.velocities, accelerations, qd):
        j = link.index
        S, z = _axis(link), moving.z[j - 1]
        v_parent = _minus(v, _scaled(S, qd_j))
        y[j] = _named(b, f"y{j}", _minus(_motion_cross(*S, *a_parent),
                                          _motion_cross(*z, *v_parent)))
        # What the links outward of joint j add to the force it transmits, per unit of q_j
        # (they turn about S_j) and of qd_j (they speed up along it)
        by_q[j] = _named(b, f"Dq{j}", _minus(_force_cross(*S, *F),
                                              _plus(Ic.times(*y[j]), moving.twice_b(j, z))))
        by_qd[j] = _named(b, f"Dqd{j}", moving.by_velocity(j))
    for link in robot.links:
        # S_i carried outward pairs with both forces of each joint j > i: one motion carried
        # instead of two forces carried inward.
        i = link.index
        S = _axis(link)
        for j in range(i, n + 1):
            if j > i:
                S = _named(b, f"S{i}_{j}", _motion_to_child(*moving.placements[j], *S))
            dq[i - 1, j - 1] = entry(_pair(by_q[j], S))
            dqd[i - 1, j - 1] = entry(_pair(by_qd[j], S))
    for (i, j), (m, r) in rows.items():
        # joint i outward of joint j: S_i turns with the links, and its turn cancels S_j x* F_i
        dq[i - 1, j - 1] = entry(-(_pair(m, y[j]) + _pair(r, moving.z[j - 1])))
        dqd[i - 1, j - 1] = entry(moving.by_velocity_of_row(j, m, r))
    return dq, dqd


def _motion_to_child(R, P, w, u):
    """The motion (w, u) at O_{i-1} in {i-1}, at O_i in {i}."""
    return R.T * w, R.T * (u + w.cross(P))


@dataclass(frozen=True)
class _Moving:
    """The robot moving at qd: each link's velocity v_i, and the composite bodies' inertias I^c,
    rates D^c and momenta h^c (see the module docstring), in the joint frames."""

    links: tuple
    placements: list
    inertias: list[Body]
    composite: list[Body]
    velocities: list
    z: list           # S_i x v_i
    rate: list[Body]
    momentum: list

    @classmethod
    def of(cls, robot: Robot, b: ProgramBuilder, qd) -> "_Moving":
        placements = _placements(robot, b)
        inertias = _inertias(robot)
        velocities, rates, momenta = [], [], []
        omega = u = symengine.zeros(3, 1)
        for link, body, qd_i in zip(robot.links, inertias, qd):
            i = link.index
            # v_i = ^iX_{i-1} v_{i-1} + S_i qd_i
            w, v = _plus(_motion_to_child(*placements[i], omega, u), _scaled(_axis(link), qd_i))
            u, omega = vector(b, f"u{i}", v), vector(b, f"w{i}", w)
            velocities.append((omega, u))
            Sw, Su, SMS = skew(omega), skew(u), skew(body.MS)
            rates.append(Body(symengine.Integer(0), u * body.m + omega.cross(body.MS),
                              Sw * body.J - body.J * Sw - Su * SMS - SMS * Su))
            momenta.append(body.times(omega, u))
        return cls(robot.links, placements, inertias,
                   _composites(robot, b, placements, "c", inertias),
                   velocities,
                   [_named(b, f"z{link.index}", _motion_cross(*_axis(link), *v))
                    for link, v in zip(robot.links, velocities)],
                   _composites(robot, b, placements, "d", rates),
                   _composite_forces(robot, b, placements, "h", momenta))

    def twice_b(self, j: int, s):
        """2 B^c_j s = D^c_j s + s x* h^c_j, for a motion s in frame {j}."""
        return _plus(self.rate[j - 1].times(*s), _force_cross(*s, *self.momentum[j - 1]))

    def by_velocity(self, j: int):
        """2 B^c_j S_j - 2 I^c_j z_j: the force whose S_i component is dtau_i/dqd_j, i <= j."""
        return _minus(self.twice_b(j, _axis(self.links[j - 1])),
                      _scaled(self.composite[j - 1].times(*self.z[j - 1]), 2))

    def by_velocity_of_row(self, j: int, m, r):
        """dtau_i/dqd_j for i > j, from the rows (m, r) of joint i in frame {j} (_rows)."""
        return _pair(r, _axis(self.links[j - 1])) - 2 * _pair(m, self.z[j - 1])


def _rows(robot: Robot, b: ProgramBuilder, moving: _Moving) -> dict:
    """{(i, j): (m, r)} for j < i: the rows S_i^T I^c_i and S_i^T 2 B^c_i as forces (D^c is
    symmetric), carried from frame {i} into frame {j}."""
    rows = {}
    for link, Ic, D, h in zip(robot.links, moving.composite, moving.rate, moving.momentum):
        i = link.index
        S = _axis(link)
        m, r = Ic.times(*S), _minus(D.times(*S), _force_cross(*S, *h))
        for (j, *m_j), (_, *r_j) in zip(_carried(b, "M", moving.placements, i, *m),
                                        _carried(b, "R", moving.placements, i, *r)):
            if j < i:
                rows[i, j] = m_j, r_j
    return rows


def _accelerations(robot: Robot, b: ProgramBuilder, moving: _Moving, qd, qdd, gravity):
    """(a_i, a_{i-1}) of each link in its frame {i}, spatial: a_i = ^iX_{i-1} a_{i-1} + S_i qdd_i
    + v_i x S_i qd_i, from a_0 = (0, -g), gravity as the base's acceleration."""
    out = []
    dw, a = symengine.zeros(3, 1), -Matrix(gravity)
    for link, v, qd_i, qdd_i in zip(robot.links, moving.velocities, qd, qdd):
        i = link.index
        parent = _named(b, f"ap{i}", _motion_to_child(*moving.placements[i], dw, a))
        S = _axis(link)
        bias = _motion_cross(*v, *S)
        dw, a = _named(b, f"a{i}", [parent[k] + S[k] * qdd_i + bias[k] * qd_i for k in range(2)])
        out.append(((dw, a), parent))
    return out


def _named(b: ProgramBuilder, name: str, x):
    return vector(b, f"{name}w", x[0]), vector(b, f"{name}u", x[1])


def _plus(x, y):
    return x[0] + y[0], x[1] + y[1]


def _minus(x, y):
    return x[0] - y[0], x[1] - y[1]


def _scaled(x, c):
    c = symengine.sympify(c)
    return x[0] * c, x[1] * c


def _pair(force, motion):
    """The power n . omega + f . u of a force on a motion."""
    return force[0].dot(motion[0]) + force[1].dot(motion[1])
