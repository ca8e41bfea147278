"""Derivations: robot model -> Dynamics (programs of every quantity, recorded steps)."""
from .dynamics import Dynamics
from .quantities import QUANTITIES
from .routes import lagrange, newton_euler

__all__ = ["QUANTITIES", "Dynamics", "lagrange", "newton_euler"]
