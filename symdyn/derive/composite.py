"""The mass and Coriolis matrices by composite rigid bodies, in the joint frames.

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

C (Echeandia and Wensing, "Numerical methods to compute the Coriolis matrix and Christoffel
symbols for rigid-body systems", JCND 2021; Pinocchio's computeCoriolisMatrix). With spatial
motions (omega, u) and forces (n, f) about each frame's origin, link k's velocity v_k, its
inertia I_k and its momentum I_k v_k, the Christoffel-consistent C is

    C_ij = S_i . (I^c_j (v_j x S_j) + B^c_j S_j)      for i <= j,
    B_k  = (v_k x* I_k - I_k v_k x + (I_k v_k) xbar*) / 2,

summed over the links outward of j as I^c is. v x* I - I v x is the rate of change of I as the
link moves, itself an inertia with no mass: first moment m u + omega x MS and moment
S(omega) J - J S(omega) - S(u) S(MS) - S(MS) S(u); (I v) xbar* maps a motion s to s x* (I v).
So B^c_j is 15 numbers that gather inward like the inertias and the momenta. C_ij for i <= j is
carried inward like M's columns, and C_ji = dM_ij/dt - C_ij (C + C^T = dM/dt), with dM/dt the
forward-mode derivative of M's program along qd.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import directional_derivative
from ..robot.model import Robot, skew
from .kinematics import placement

Z = sympy.Matrix([0, 0, 1])
AXES = "xyz"


@dataclass(frozen=True)
class Body:
    """Inertial parameters in a joint frame, about its origin: an inertia, or its rate of change
    (m = 0)."""

    m: sympy.Expr
    MS: sympy.Matrix
    J: sympy.Matrix

    def seen_from_parent(self, b: ProgramBuilder, name: str, R, P) -> "Body":
        """The same parameters in frame {i-1} about O_{i-1}, for ``(R, P)`` = ^{i-1}T_i."""
        r = b.vector(f"{name}r", R * self.MS)
        # R J R^T in two named products, so that no entry expands into many terms.
        JR = sympy.Matrix(3, 3, lambda row, col: b.define(
            f"{name}JR_{AXES[row]}{AXES[col]}", (self.J * R.T)[row, col]))
        SP, Sr = skew(P), skew(r)
        return Body(self.m, r + self.m * P, R * JR - self.m * SP * SP - SP * Sr - Sr * SP)

    def __add__(self, other: "Body") -> "Body":
        return Body(self.m + other.m, self.MS + other.MS, self.J + other.J)

    def named(self, b: ProgramBuilder, name: str) -> "Body":
        return Body(b.define(f"m{name}", self.m), b.vector(f"MS{name}", self.MS), _symmetric(
            b, f"J{name}", self.J))

    def times(self, omega, u):
        """The force (n, f) about the origin for the motion (omega, u)."""
        return self.J * omega + self.MS.cross(u), self.m * u - self.MS.cross(omega)


def _symmetric(b: ProgramBuilder, name: str, J) -> sympy.Matrix:
    return sympy.Matrix(3, 3, lambda row, col: b.define(
        f"{name}_{AXES[min(row, col)]}{AXES[max(row, col)]}", J[min(row, col), max(row, col)]))


def _force_to_parent(b: ProgramBuilder, name: str, R, P, n, f):
    """The force (n, f) about O_i in {i}, about O_{i-1} in {i-1}."""
    f = b.vector(f"f{name}", R * f)
    return b.vector(f"n{name}", R * n + P.cross(f)), f


def _inward(b: ProgramBuilder, name: str, placements, links, j: int, n, f) -> dict:
    """S_i . F for i = j, j-1, ..., 1, the force F = (n, f) of frame {j} carried inward."""
    out = {}
    for i in range(j, 0, -1):
        if i < j:
            n, f = _force_to_parent(b, f"{name}{i}_{j}", *placements[i + 1], n, f)
        out[i] = n[2] if links[i - 1].revolute else f[2]
    return out


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


def _composite_forces(robot: Robot, b: ProgramBuilder, placements, forces) -> list:
    """The sums over links i..n of ``forces`` (n, f), each about O_i in {i}, base first."""
    composites = [None] * robot.dof
    child = None
    for link, (n, f) in zip(reversed(robot.links), reversed(forces)):
        i = link.index
        if child is not None:
            n_child, f_child = _force_to_parent(b, f"h{i + 1}", *placements[i + 1], *child)
            n, f = n + n_child, f + f_child
        composites[i - 1] = child = (b.vector(f"hn{i}", n), b.vector(f"hf{i}", f))
    return composites


def _placements(robot: Robot, b: ProgramBuilder) -> list:
    return [None] + [placement(link, b) for link in robot.links]   # 1-based, as the links


def _inertias(robot: Robot) -> list[Body]:
    return [Body(link.inertia.mass, link.inertia.first_moment, link.inertia.inertia_origin)
            for link in robot.links]


def _axis(link):
    """S_i, the joint's unit motion (omega, u) in its own frame."""
    zero = sympy.zeros(3, 1)
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
    """C(q, qd), Christoffel-consistent, as Pinocchio's computeCoriolisMatrix."""
    n = robot.dof
    placements = _placements(robot, b)
    inertias = _inertias(robot)
    composite = _composites(robot, b, placements, "c", inertias)
    Mdot = directional_derivative(b, list(_columns(robot, b, placements, composite)),
                                  dict(zip(robot.q, qd)), "_dt")
    rates, momenta, velocities = [], [], []
    omega = u = sympy.zeros(3, 1)
    for link, body, qd_i in zip(robot.links, inertias, qd):
        i = link.index
        R, P = placements[i]
        w, v = _axis(link)
        u = b.vector(f"u{i}", R.T * (u + omega.cross(P)) + qd_i * v)
        omega = b.vector(f"w{i}", R.T * omega + qd_i * w)
        velocities.append((omega, u))
        Sw, Su, SMS = skew(omega), skew(u), skew(body.MS)
        rates.append(Body(0, body.m * u + omega.cross(body.MS),
                          Sw * body.J - body.J * Sw - Su * SMS - SMS * Su))
        momenta.append(body.times(omega, u))
    rate = _composites(robot, b, placements, "d", rates)
    momentum = _composite_forces(robot, b, placements, momenta)
    C = sympy.zeros(n, n)
    for link, Ic, D, h, v in zip(robot.links, composite, rate, momentum, velocities):
        j = link.index
        S = _axis(link)
        # F_j = I^c_j (v_j x S_j) + B^c_j S_j, with 2 B^c S = D S + S x* h
        inertial = Ic.times(*_motion_cross(*v, *S))
        rate_part, cross_part = D.times(*S), _force_cross(*S, *h)
        force = [inertial[k] + (rate_part[k] + cross_part[k]) / 2 for k in range(2)]
        for i, value in _inward(b, "C", placements, robot.links, j, *force).items():
            C[i - 1, j - 1] = b.define(f"C{i}_{j}", value)
            if i < j:
                C[j - 1, i - 1] = b.define(f"C{j}_{i}",
                                           Mdot[(i - 1) * n + j - 1] - C[i - 1, j - 1])
    return C
