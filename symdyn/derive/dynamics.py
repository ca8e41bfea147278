"""Dynamics: what a derivation returns -- the model's quantities as programs, made on demand."""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property

import sympy

from ..program.program import Program
from ..robot.model import Robot
from ..robot.regroup import regrouped
from .quantities import QUANTITIES, Route, build
from .record import Record, Step


class Dynamics:
    """The dynamics of one robot by one route (Newton-Euler or Lagrange).

    ``program(name)`` is the straight-line program of one quantity (``inverse_dynamics``,
    ``mass_matrix``, ``coriolis_matrix``, ``gravity_torques``, ``nonlinear_effects``,
    ``friction_torques``, ``forward_dynamics``), built the first time it is asked for and kept;
    ``record`` holds the inverse dynamics' equations for the printouts; ``tau``, ``M``, ``C``
    and ``g`` are closed forms, practical for small robots.

    The programs are derived from the robot with its inertial parameters regrouped (see
    robot/regroup.py), which changes no value and removes terms; the record, which printouts
    show, from the robot as its file describes it.
    """

    QUANTITIES = tuple(QUANTITIES)

    def __init__(self, robot: Robot, route: Route, progress=None):
        self.robot = robot
        self.route = route
        self.progress = progress or (lambda message: None)
        self._regrouped = replace(route, robot=regrouped(robot))
        self._programs: dict[str, Program] = {}

    @property
    def method(self) -> str:
        return self.route.method

    def program(self, name: str = "inverse_dynamics") -> Program:
        if name not in QUANTITIES:
            raise KeyError(f"unknown quantity {name!r}; choose from {', '.join(QUANTITIES)}")
        if name not in self._programs:
            self.progress(f"deriving {name} by {self.method}")
            self._programs[name] = build(name, self._regrouped.robot, self._regrouped,
                                         progress=self.progress)
        return self._programs[name]

    @cached_property
    def record(self) -> Record:
        steps: list[Step] = []
        program = build("inverse_dynamics", self.robot, self.route, steps, self.progress)
        return Record(tuple(steps), program)

    @cached_property
    def tau(self) -> sympy.Matrix:
        """tau(q, qd, qdd) in closed form (n x 1)."""
        return self.program("inverse_dynamics").expanded()

    @cached_property
    def M(self) -> sympy.Matrix:
        return self.program("mass_matrix").expanded()

    @cached_property
    def C(self) -> sympy.Matrix:
        return self.program("coriolis_matrix").expanded()

    @cached_property
    def g(self) -> sympy.Matrix:
        return self.program("gravity_torques").expanded()

    def __repr__(self):
        return f"<Dynamics of {self.robot.name} by {self.method}>"
