"""The mass matrix by composite rigid bodies (Walker and Orin's method 3; Featherstone's CRBA).

Links i..n, welded together, form the composite body i; its ten inertial parameters in frame {i},
about the origin O_i, gather inward from the tip (Khalil and Dombre, 9.4, with the placement
^{i-1}T_i = (R, P) of robot.model and the child's first moment carried into {i-1}, r = R MS):

    m^c_{i-1}  = m_{i-1} + m^c_i
    MS^c_{i-1} = MS_{i-1} + r + m^c_i P
    J^c_{i-1}  = J_{i-1} + R J^c_i R^T - m^c_i S(P)^2 - S(P) S(r) - S(r) S(P)

A unit acceleration of joint j, everything else at rest and no gravity, needs the force that
moves the composite body j alone: about O_j, (z x MS^c_j, J^c_j z) for a revolute joint and
(m^c_j z, MS^c_j x z) for a prismatic one. M_jj is its component along the joint; carried inward
as Newton-Euler's inward recursion carries forces, it gives M_ij for every i < j. Unlike a column
of Newton-Euler with qdd = e_j, nothing outward of joint j is recomputed for each column.
"""
from __future__ import annotations

import sympy

from ..program.builder import ProgramBuilder
from ..robot.model import Robot, skew
from .kinematics import placement

AXES = "xyz"


def composite_inertias(robot: Robot, b: ProgramBuilder, placements):
    """(m^c_i, MS^c_i, J^c_i) of each composite body, in frame {i} about O_i, base first."""
    composites = [None] * robot.dof
    child = None
    for link in reversed(robot.links):
        i = link.index
        m, MS, J = link.inertia.mass, link.inertia.first_moment, link.inertia.inertia_origin
        if child is not None:
            (mc, MSc, Jc), (R, P) = child, placements[i + 1]     # ^{i}T_{i+1}
            r = b.vector(f"MSr{i + 1}", R * MSc)
            # R J^c R^T in two named products, so that no entry expands into many terms.
            JR = sympy.Matrix(3, 3, lambda row, col: b.define(
                f"JR{i + 1}_{AXES[row]}{AXES[col]}", (Jc * R.T)[row, col]))
            m = m + mc
            MS = MS + r + mc * P
            SP, Sr = skew(P), skew(r)
            J = J + R * JR - mc * SP * SP - SP * Sr - Sr * SP
        m = b.define(f"mc{i}", m)
        MS = b.vector(f"MSc{i}", MS)
        J = sympy.Matrix(3, 3, lambda row, col, J=J: b.define(
            f"Jc{i}_{AXES[min(row, col)]}{AXES[max(row, col)]}", J[min(row, col), max(row, col)]))
        composites[i - 1] = child = (m, MS, J)
    return composites


def mass_matrix(robot: Robot, b: ProgramBuilder) -> sympy.Matrix:
    """M(q) without the rotors' inertia (quantities.py adds it), lower triangle computed."""
    n = robot.dof
    placements = [None] + [placement(link, b) for link in robot.links]   # 1-based, as links
    composites = composite_inertias(robot, b, placements)
    M = sympy.zeros(n, n)
    z = sympy.Matrix([0, 0, 1])
    for link, (mc, MSc, Jc) in zip(robot.links, composites):
        j = link.index
        if link.revolute:
            f, moment = z.cross(MSc), Jc[:, 2]
        else:
            f, moment = mc * z, MSc.cross(z)
        for i in range(j, 0, -1):
            if i < j:     # the force on link i+1 seen from frame {i}
                R, P = placements[i + 1]
                f = b.vector(f"f{i}_{j}", R * f)
                moment = b.vector(f"n{i}_{j}", R * moment + P.cross(f))
            joint = robot.links[i - 1]
            M[i - 1, j - 1] = M[j - 1, i - 1] = moment[2] if joint.revolute else f[2]
    return M
