"""Derivations: robot model -> Dynamics (programs of every quantity, recorded steps)."""
from .dynamics import Dynamics
from .lagrange import lagrange
from .newton_euler import newton_euler
from .quantities import QUANTITIES

__all__ = ["QUANTITIES", "Dynamics", "lagrange", "newton_euler"]
