"""Dynamics: what a derivation returns -- immutable, with the program and the record."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import sympy

from ..program.program import Program
from ..robot.model import Robot
from .record import Record


@dataclass(frozen=True)
class Dynamics:
    """The derived inverse dynamics of one robot, by one method.

    ``program`` computes tau from q, qd, qdd (and the free parameters) in named steps, exactly as
    derived; ``record`` holds each equation's value for the printouts.
    """

    robot: Robot
    method: str
    program: Program
    record: Record

    @cached_property
    def tau(self) -> sympy.Matrix:
        """tau as closed-form expressions of q, qd, qdd (n x 1); large for 6-DOF arms."""
        return self.program.expanded("tau")
