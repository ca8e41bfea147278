"""The centroidal momentum map A_g(q) and its rate dA_g/dt qd (Orin, Goswami and Lee,
"Centroidal dynamics of a humanoid robot", Autonomous Robots 35, 2013), as Pinocchio's
computeCentroidalMap and computeCentroidalMapTimeVariation give them.

The robot's momentum about its centre of mass c, rows [linear; angular] in world axes, is
h_g = A_g qd. Both come from the momentum about {0}'s origin in {0}'s axes, [f; n], moved to
the centre of mass c_0 = (m c)/m of the whole robot's composite body in {0}, then turned into
world axes by the base's rotation R_0 (Pinocchio's ccrba does the same at its root):

    h_lin = R_0 f,    h_ang = R_0 (n - c_0 x f)

so that no link's pose in the world is needed. A_g's columns are composite.momentum_map's. Its
rate at qdd = 0 is the force the bodies' motion needs, the base wrench of Newton-Euler's
recursion with no gravity and no acceleration (newton_euler.base_wrench), moved the same way:
the rate of the angular momentum about the moving centre of mass is the moment about it, since
the centre's velocity is parallel to the linear momentum.

Both are of the robot as its file gives it: regrouping the inertial parameters keeps the joint
forces, not the momentum.
"""
from __future__ import annotations

import sympy

from ..program.builder import ProgramBuilder
from ..robot.model import Robot
from ..spatial import skew
from . import composite
from .algebra import Matrix, define
from .kinematics import base_frame
from .newton_euler import base_wrench


def centroidal_map(robot: Robot, b: ProgramBuilder) -> sympy.Matrix:
    """A_g, 6 x (a floating base's six + one per link): Robot.slots' columns, which the
    coordinates' projection takes to the coordinates (quantities.py)."""
    columns, whole = composite.momentum_map(robot, b)
    R, center, joints = _at_center(robot, b, "Ag", whole.mass, whole.first_moment,
                                   [sympy.Matrix([*f.linear, *f.angular]) for f in columns])
    if not robot.floating:
        return sympy.Matrix.hstack(*joints)
    # The base's six, the whole body moving with it: for [v; omega] its momentum about the
    # centre of mass is m R (v + omega x c) and R J_c omega (J_c about the centre: J + m S(c)^2),
    # which the general column (R f, R (n - c x f)) reaches with four times the products.
    m = whole.mass
    Sc = skew(center)
    J_c = Matrix(whole.inertia_origin) + Sc * Sc * m
    J_c = Matrix(3, 3, [define(b, f"Ag_Jc{r}{c}", J_c[min(r, c), max(r, c)])
                        for r in range(3) for c in range(3)])
    mR = Matrix(3, 3, [define(b, f"Ag_mR{r}{c}", m * R[r, c]) for r in range(3) for c in range(3)])
    zero = sympy.zeros(3, 3)
    base = sympy.Matrix.vstack(sympy.Matrix.hstack(sympy.Matrix(mR), sympy.Matrix(-mR * Sc)),
                               sympy.Matrix.hstack(zero, sympy.Matrix(R * J_c)))
    return sympy.Matrix.hstack(base, *joints)


def centroidal_map_dot_qd(robot: Robot, b: ProgramBuilder) -> list[sympy.Expr]:
    """dA_g/dt qd: the centroidal momentum's rate at qdd = 0."""
    rest = [sympy.Integer(0)] * robot.slot_count
    wrench = base_wrench(robot, b, robot.slots(robot.link_qd, "velocity"), rest, [0, 0, 0])
    mass, first_moment = composite.mass_center(robot, b)
    *_, (moved,) = _at_center(robot, b, "dAg", mass, first_moment, [sympy.Matrix(wrench)])
    return list(moved)


def _at_center(robot: Robot, b: ProgramBuilder, name: str, mass, first_moment,
               columns) -> tuple:
    """R_0, the centre of mass c_0 = first_moment / mass (in {0}), and each [linear; angular]
    column about {0}'s origin in its axes moved about c_0 in world axes."""
    R, _ = base_frame(robot, b)
    R = Matrix(R)
    center = Matrix(first_moment) * define(b, f"{name}_inverse_mass", 1 / mass)
    center = Matrix([define(b, f"{name}_c{axis}", e) for axis, e in zip("xyz", center)])
    out = []
    for k, column in enumerate(columns, start=1):
        f, n = Matrix(column[:3, 0]), Matrix(column[3:, 0])
        linear = b.vector(f"{name}{k}_lin", R * f)
        angular = b.vector(f"{name}{k}_ang", R * (n - center.cross(f)))
        out.append(sympy.Matrix.vstack(linear, angular))
    return R, center, out
