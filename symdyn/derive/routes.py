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
    A floating base is refused: Lagrange's equations differentiate in q, and a free-flyer's
    configuration holds a unit quaternion whose rates are not its velocities (they would need
    Boltzmann-Hamel's quasi-velocities); the Newton-Euler route derives it."""
    if robot.floating:
        raise DerivationError(f"{robot.name}: the Lagrange route takes fixed bases only (its "
                              "equations differentiate in q, and a floating base's q holds a "
                              "quaternion); use the Newton-Euler route")
    return Dynamics(robot, Lagrange(robot), progress=progress)
