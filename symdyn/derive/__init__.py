"""Derivations: robot model -> Dynamics (programs and recorded steps)."""
from .dynamics import Dynamics
from .newton_euler import newton_euler

__all__ = ["Dynamics", "newton_euler"]
