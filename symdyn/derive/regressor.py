"""The regressor Y(q, qd, qdd): tau = Y pi, linear in the standard parameters pi.

Per body, pi holds the ten inertial parameters in Pinocchio's order (its dynamic parameters,
and computeJointTorqueRegressor's columns): m, m c_x, m c_y, m c_z, then the inertia about the
origin of joint frame {i} in its axes, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz. A floating base's
body comes first (its names end in 0, its frame is {0}), then the links'. A robot with actuator
data adds per joint its reflected rotor inertia G^2 Jm, viscous friction G^2 B and Coulomb
friction |G| Tc+ and |G| Tc- (quantities.friction's terms, each with its own column), and one
with joint springs its stiffness K and K q_ref (quantities.springs' terms, K q - K q_ref).

Y is not derived by a recursion of its own: the route's inverse dynamics is derived for the robot
with every inertial parameter a symbol, and column k is its derivative along pi_k, taken on the
program (program/derivative.py), so both routes give the regressor, each checking the other.
Forward, only the steps that carry pi_k get a tangent -- the forces of link k's body and those
inward of it -- so the columns cost what SymPyBotics' and Khalil's column-wise recursions cost;
reverse, row i is the adjoint of torque i passed outward to every body it carries, each body's
ten columns then its parameters' partials against that adjoint (Atkeson, An and Hollerbach's
form, Y_ij = (X_ji S_i)^T A_j): 10 n sweeps or n. Whichever writes the fewer products is taken:
reverse for serial arms (the Puma's 759 multiplications -> 503, a 64-joint chain's 271,000 ->
114,000), forward for a floating base's short branches (Solo-12's 1,672 against 1,908).
"""
from __future__ import annotations

from dataclasses import replace

import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import derivatives
from ..robot.model import Robot
from ..spatial import PARAMETERS, Inertia

INERTIAL = PARAMETERS    # a body's ten, in Pinocchio's order
ACTUATOR = ("Ia", "fv", "fcp", "fcm")     # G^2 Jm, G^2 B, |G| Tc+, |G| Tc-
SPRING = ("k", "kr")     # a joint spring's stiffness K and K q_ref: K (q - q_ref) = K q - K q_ref


def has_actuators(robot: Robot) -> bool:
    return any(link.armature != 0 or link.viscous != 0 or any(c != 0 for c in link.coulomb)
               for link in robot.links)


def has_springs(robot: Robot) -> bool:
    return any(link.spring for link in robot.links)


def bodies(robot: Robot) -> list[tuple[int, Inertia]]:
    """(index, inertia) of each body with parameters of its own, in pi's order: a floating
    base's (0) first, then the links' (1..n)."""
    base = [(0, robot.root.inertia)] if robot.floating else []
    return base + [(link.index, link.inertia) for link in robot.links]


def standard_parameters(robot: Robot) -> list[tuple[str, sympy.Expr]]:
    """(name, value) of each standard parameter, in the regressor's column order: XX3 is I_xx
    of link 3 about its joint frame's origin (XX0 a floating base's), Ia3 the rotor inertia
    reflected to joint 3."""
    out = []
    for index, body in bodies(robot):
        out += [(f"{name}{index}", sympy.sympify(v))
                for name, v in zip(INERTIAL, body.parameters())]
    if has_actuators(robot):
        for link in robot.links:
            out += [(f"{name}{link.index}", sympy.sympify(v)) for name, v in zip(
                ACTUATOR, (link.armature, link.viscous, *link.coulomb))]
    if has_springs(robot):
        for link in robot.links:
            stiffness, reference = link.spring or (0, 0)
            out += [(f"{name}{link.index}", sympy.sympify(v)) for name, v in zip(
                SPRING, (stiffness, stiffness * reference))]
    return out


def regressor(robot: Robot, route, b: ProgramBuilder) -> sympy.Matrix:
    """Y, (a floating base's six +) one row per link x p, by derivatives of ``route``'s
    inverse dynamics (a route of ``robot``)."""
    symbols = {}

    def parametric(index):
        names = [f"pi_{name}{index}" for name in INERTIAL]
        ten = [symbols.setdefault(s, sympy.Dummy(s)) for s in names]
        return Inertia.from_parameters(ten, sympy.ImmutableMatrix)
    root = robot.root and replace(robot.root, inertia=parametric(0))
    links = tuple(replace(link, inertia=parametric(link.index)) for link in robot.links)
    tau = replace(route, robot=replace(robot, links=links, root=root)).inverse_dynamics(
        b, robot.slots(robot.link_qd, "velocity"), robot.slots(robot.link_qdd, "acceleration"),
        robot.gravity)
    columns = derivatives(b, tau, [{symbol: 1} for symbol in symbols.values()],
                          [f"_d{name.removeprefix('pi_')}" for name in symbols], "_bar")
    Y = sympy.Matrix([[column[i] for column in columns] for i in range(len(tau))])
    if has_actuators(robot):
        Y = Y.row_join(sympy.Matrix.hstack(*(_actuator_columns(robot, i) for i in range(
            len(robot.links)))))
    if has_springs(robot):
        Y = Y.row_join(sympy.Matrix.hstack(*(_spring_columns(robot, i) for i in range(
            len(robot.links)))))
    return Y


def _actuator_columns(robot: Robot, i: int) -> sympy.Matrix:
    """The columns of joint i's rotor inertia, viscous and Coulomb friction (Tc+ where qd > 0,
    Tc- where qd < 0, written with sign(qd) as quantities.friction writes them), in the rows of
    Robot.slots."""
    link = robot.links[i]
    if link.nv != 1:        # a joint of several axes has no rotor nor friction (robot file):
        return sympy.zeros(robot.slot_count, 4)     # columns of zeros, which no data identify
    s = sympy.sign(link.qd)
    entries = (link.qdd, link.qd, (s**2 + s) / 2, (s**2 - s) / 2)
    row = robot.offsets[i]
    return sympy.Matrix(robot.slot_count, 4, lambda r, c: entries[c] if r == row else 0)


def _spring_columns(robot: Robot, i: int) -> sympy.Matrix:
    """The columns of joint i's spring stiffness K and K q_ref (q_i and -1), in the rows of
    Robot.slots; zeros at a joint of several axes (a spherical one), which has no spring."""
    link = robot.links[i]
    if link.nv != 1:
        return sympy.zeros(robot.slot_count, 2)
    entries, row = (link.q, sympy.Integer(-1)), robot.offsets[i]
    return sympy.Matrix(robot.slot_count, 2, lambda r, c: entries[c] if r == row else 0)
