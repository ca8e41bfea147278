"""The two derivation routes, each as the Dynamics of a robot: Newton-Euler's recursions and
Lagrange's equations (the modules of the same names). Kept apart from them so that a quantity's
builder may use a recursion (the centroidal quantities use Newton-Euler's base wrench) without
the routes' modules depending on Dynamics, which builds the quantities."""
from __future__ import annotations

from ..errors import DerivationError
from ..robot.model import Robot
from .dynamics import Dynamics
from .lagrange import Lagrange
from .newton_euler import NewtonEuler


def newton_euler(robot: Robot, *, progress=None) -> Dynamics:
    """The dynamics of ``robot`` by the Newton-Euler route (programs are derived on demand)."""
    return Dynamics(robot, NewtonEuler(robot), progress=progress)


def lagrange(robot: Robot, *, progress=None) -> Dynamics:
    """The dynamics of ``robot`` by the Euler-Lagrange route (programs are derived on demand).
    A floating base, spherical and planar joints are refused: Lagrange's equations
    differentiate in q, and their configurations hold unit quaternions (a unit circle's cosine
    and sine) whose rates are not their velocities (they would need Boltzmann-Hamel's
    quasi-velocities); the Newton-Euler route derives them."""
    moved = next(((kind, i) for kind, i in robot.joint_kinds if kind.nq != kind.nv), None)
    if moved:                   # its q + v is no configuration: it holds a quaternion
        kind, i = moved
        what = f"a {kind.name} joint's" if i else "a floating base's"
        raise DerivationError(f"{robot.name}: the Lagrange route takes fixed bases and joints "
                              f"whose q moves at its velocity only (its equations "
                              f"differentiate in q, and {what} q is {kind.configuration_text}, "
                              "whose rates are not its velocities); use the Newton-Euler "
                              "route")
    return Dynamics(robot, Lagrange(robot), progress=progress)
