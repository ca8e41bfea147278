"""Dynamics: what a derivation returns -- the model's quantities as programs, made on demand."""
from __future__ import annotations

import math
from dataclasses import replace
from functools import cached_property

import numpy as np
import sympy

from ..errors import DerivationError
from ..program.evaluate import evaluate
from ..program.program import Argument, Program, compose, view
from ..robot.constraints import Loops, independent_rows, left_out_problem, rank
from ..robot.model import Robot
from ..robot.poses import closed_configuration, normalized
from ..robot.regroup import regrouped
from ..robot.spec import CONSTRAINT_AXES
from .base_parameters import BaseParameters, base_parameters, base_program
from .energy import total_mass
from .quantities import (
    AS_GIVEN,
    COMPOSED,
    FROM_REGRESSOR,
    PER_FRAME,
    QUANTITIES,
    WHOLE_OF,
    Route,
    build,
    inputs,
    parts_of,
)
from .record import Record, Step

# What a quantity may require of a robot (Quantity.requires), each a test of the robot's
# Dynamics that says why it is not met, or None where it is.
REQUIREMENTS = {
    "invertible M": lambda d: d.singular,
    "frames": lambda d: None if d.robot.frames else "its robot file names no frames (frames:)",
    "mass": lambda d: None if total_mass(d.robot) != 0 else (
        "its links have no mass, so it has no centre of mass"),
    "links": lambda d: None if d.robot.links else (
        "it has no links (a floating base without joints)"),
    "base parameters": lambda d: d.base_problem,
    "constraints": lambda d: None if d.robot.constraints else (
        "its robot file names no constraints (constraints:)"),
    "tendons": lambda d: None if d.robot.tendons else (
        "its robot file names no tendons (tendons:)"),
    "independent constraints": lambda d: d.constraint_problem,
    "a closed-loop mechanism": lambda d: d.mechanism_problem,
    "elastic joints": lambda d: None if d.robot.elastic else (
        "its robot file has no elastic joints (elastic:)"),
    "joint springs": lambda d: None if any(link.spring for link in d.robot.links) else (
        "its robot file has no joint springs (spring:)"),
    "undamped springs, no mimic joints": lambda d: _elastic_inverse_problem(d.robot),
}


def _elastic_inverse_problem(robot) -> str | None:
    """Why the motors' motion does not follow from the links' alone: a damped spring's
    deflection obeys K delta + D delta_dot = tau_s, a differential equation in time, not an
    algebraic one; mimic joints' third and fourth derivatives are not inputs."""
    damped = robot.joint_names(link for link in robot.elastic if link.elastic.damping != 0)
    if damped:
        return (f"the springs of {', '.join(damped)} are damped: their deflection "
                "K delta + D delta' = tau_s is then a differential equation along the motion, "
                "not a function of it (give damping 0 for the feedforward)")
    if robot.coupling:
        return "it has mimic joints, whose motion's third and fourth derivatives it does not take"
    return None


def frame_function(quantity: str, frame: str) -> str:
    """The name of a per-frame quantity's function for one frame: pose_and_jacobian_<frame>
    (frame_pose_and_jacobian's) of the frame's identifier (Frame.identifier), which no other
    quantity's name begins with."""
    return quantity.removeprefix("frame_") + "_" + frame


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
        self._parts: dict = {}        # see quantities.build

    @property
    def method(self) -> str:
        return self.route.method

    @cached_property
    def singular(self) -> str | None:
        """Why M(q) is singular, naming the joints, or None where it is not (or cannot be
        known: a robot with free symbols). Seen at three random configurations: a joint that
        moves no inertia (a point mass on its axis, no rotor) leaves M singular at every q."""
        if self.robot.parameters:
            return None
        program = self.program("mass_matrix")
        rng = np.random.default_rng(0)
        joints = None
        for _ in range(3):
            M = evaluate(program, normalized(self.robot, dict(zip(
                self.robot.q, rng.uniform(-3, 3, self.robot.nq)))))
            eigenvalues, vectors = np.linalg.eigh(M)
            if eigenvalues[0] > 1e-12 * max(1.0, eigenvalues[-1]):
                return None
            weak = np.abs(vectors[:, 0]) > 0.1        # the joints along M's null direction
            joints = weak if joints is None else joints & weak
        names = ", ".join(str(j + 1) for j in np.flatnonzero(joints)) or "several"
        return (f"M(q) is singular: joint {names} moves no inertia of its own (a point mass on "
                "its axis and no rotor inertia?), so forward dynamics has no unique answer")

    @property
    def available(self) -> tuple[str, ...]:
        """The quantities this robot has: all but forward dynamics (and its derivatives) where
        M(q) is singular, the base parameters' where they cannot be found (see base_problem),
        and the centre of mass of a robot without mass."""
        return tuple(q for q in self.QUANTITIES if self.unavailable(q) is None)

    def unavailable(self, name: str) -> str | None:
        """Why this robot has no quantity ``name`` (the first of its requirements it does not
        meet: REQUIREMENTS), or None where it has it."""
        for requirement in QUANTITIES[name].requires:
            why = REQUIREMENTS[requirement](self)
            if why:
                return why
        return None

    @cached_property
    def constraint_problem(self) -> str | None:
        """Why the constraints' rows are not independent (G of less than full row rank where
        they hold, at closed_at and near it: then lambda is not unique), naming those that
        depend on the others; or None."""
        G = self._generic_constraint_jacobian()
        if G is None:
            return None
        tolerance = 1e-9 * max(1.0, np.abs(G).max())

        def rank_of(rows):
            return np.linalg.matrix_rank(rows, tol=tolerance) if len(rows) else 0
        if rank_of(G) == len(G):
            return None
        kept = independent_rows(self.robot)
        problem = left_out_problem(self.robot, kept)
        if problem:
            k, message = problem
            return (f"the constraints' {len(G)} rows have rank {rank_of(G)} where they hold, and "
                    f"no choice of rows holds the mechanism ({self.robot.constraints[k].name}: "
                    f"{message})")
        advice = []
        for constraint, keep in zip(self.robot.constraints, kept):
            if len(keep) == constraint.size:
                continue
            if not keep:
                advice.append(f"leave {constraint.name} out, which repeats the others")
            else:
                axes = ", ".join(CONSTRAINT_AXES[k] for k in keep)
                advice.append(f"give {constraint.name} axes: [{axes}]")
        return (f"the constraints' {len(G)} rows have rank {rank_of(G)} where they hold: "
                f"{'; '.join(advice)}")

    @cached_property
    def mechanism_problem(self) -> str | None:
        """Why the robot is no closed-loop mechanism whose actuated joints determine the
        rest (actuated: given; a fixed base; the passive joints' columns of G of full row
        rank where the constraints hold), or None."""
        robot = self.robot
        if not robot.constraints:
            return "its robot file names no constraints (constraints:)"
        if not robot.actuated:
            return "its robot file names no actuated joints (actuated:)"
        if robot.floating:
            return "a closed-loop mechanism here has a fixed base"
        # the passive columns' rank where it is highest: a closed_at at an actuation
        # singularity (the four-bar's coupler and rocker in a line) does not make the
        # mechanism one its motors never drive
        jacobians = self._constraint_jacobians
        tolerance = 1e-9 * max(1.0, max(np.abs(G).max() for G in jacobians))
        passive = max(np.linalg.matrix_rank(G[:, list(robot.passive)], tol=tolerance)
                      for G in jacobians)
        rows = len(jacobians[0])
        if passive < rows:
            return (f"the passive joints' {len(robot.passive)} columns of G have rank {passive} "
                    f"where the constraints hold, below their {rows} rows: the actuated joints "
                    "leave the constraints' forces undetermined")
        return None

    def _generic_constraint_jacobian(self) -> np.ndarray | None:
        """G, in numbers, where the constraints hold and its rank is highest (of
        _constraint_jacobians), or None without constraints."""
        if not self.robot.constraints:
            return None
        return max(self._constraint_jacobians, key=rank)

    @cached_property
    def _constraint_jacobians(self) -> list[np.ndarray]:
        """G, in numbers, at closed_at and at configurations near it where the constraints
        hold (Loops.configurations), a floating base where closed_at puts it. (load_robot
        refuses a symbolic geometry.)"""
        robot = self.robot
        program = self.program("constraint_jacobian")
        out = []
        for q in Loops(robot).configurations():
            values = {**dict(zip(robot.q, closed_configuration(robot))), **q}
            out.append(np.asarray(evaluate(program, values), dtype=float).reshape(-1, robot.dof))
        return out

    @cached_property
    def base_problem(self) -> str | None:
        """Why the base parameters cannot be found, or None."""
        try:
            self.base
        except DerivationError as exc:
            return str(exc)
        return None

    def program(self, name: str = "inverse_dynamics") -> Program:
        """The program of quantity ``name`` (derived once, then kept): the named steps the
        code is written from; ``.expanded()`` gives its output in closed form."""
        if name not in QUANTITIES:
            raise KeyError(f"unknown quantity {name!r}; choose from {', '.join(QUANTITIES)}")
        if name not in self._programs:
            self.progress(f"deriving {name} by {self.method}")
            if name in WHOLE_OF:
                self._compose(WHOLE_OF[name])
                return self._programs[name]
            if name in FROM_REGRESSOR:
                program = base_program(name, self.robot, self.program("regressor"), self.base)
            elif name in AS_GIVEN:
                program = build(name, self.robot, self.route, progress=self.progress)
            else:
                program = build(name, self._regrouped.robot, self._regrouped,
                                progress=self.progress, parts=self._parts)
            self._programs[name] = program
        return self._programs[name]

    def forget_derivations(self) -> None:
        """Drop the programs derived so far (a later request derives them again): once a
        command has optimized what it writes, a large robot's derivations are most of the
        memory it holds (a 64-joint chain's: 1.6 of 1.9 GB), which writing the code reuses."""
        self._programs.clear()
        self._parts.clear()

    def programs(self, name: str) -> list[Program]:
        """The programs of quantity ``name``: its program, or for a quantity of each named
        frame (PER_FRAME), one per frame, each the part of the composed program that its
        frame's share of the outputs reads (see frame_function)."""
        if name not in PER_FRAME:
            return [self.program(name)]
        whole, quantity = self.program(name), QUANTITIES[name]
        programs = []
        for k, frame in enumerate(self.robot.frames):
            outputs = []
            for (out, _), shape, source in zip(quantity.outputs, quantity.dims(self.robot),
                                               quantity.frame_outputs):
                size = math.prod(shape)
                outputs.append(Argument(out, whole.output(source).values[k * size:
                                                                         (k + 1) * size],
                                        shape))
            programs.append(view(whole, frame_function(name, frame.identifier),
                                 inputs(self.robot, name), outputs))
        return programs

    def _compose(self, whole: str) -> None:
        """The program of ``whole`` (COMPOSED), and its parts as views of it: the quantities
        it is composed of, and those made of their outputs (PARTS)."""
        robot, route = self._regrouped.robot, self._regrouped
        composed = compose(whole, inputs(self.robot, whole), [
            build(part, robot, route, progress=self.progress, parts=self._parts)
            for part in COMPOSED[whole]])
        self._programs[whole] = composed
        for part in parts_of(whole):
            outputs = [composed.output(out) for out, _ in QUANTITIES[part].outputs]
            self._programs[part] = view(composed, part, inputs(self.robot, part), outputs)

    @cached_property
    def base(self) -> BaseParameters:
        """The base parameters: grouping rules, then Gautier's QR on the regressor."""
        if self.unavailable("regressor"):
            raise DerivationError(f"{self.robot.name} has no base parameters: "
                                  f"{self.unavailable('regressor')}")
        self.progress("base parameters: grouping rules and QR of the stacked regressor")
        return base_parameters(self.robot, self.program("regressor"))

    @cached_property
    def record(self) -> Record:
        """Every equation of the derivation as it was evaluated, link by link (what the
        printouts show: symdyn.report.printout)."""
        steps: list[Step] = []
        program = build("inverse_dynamics", self.robot, self.route, steps, self.progress)
        return Record(tuple(steps), program)

    @cached_property
    def tau(self) -> sympy.Matrix:
        """tau(q, qd, qdd) in closed form (n x 1): M qdd + C qd + g, with friction and the
        joint springs where the file has them. Its symbols are the joints' q1, qd1, qdd1, ...
        (``robot.q``, ``robot.qd``, ``robot.qdd``) and the file's free parameters
        (``robot.parameters``)."""
        return self.program("inverse_dynamics").expanded()

    @cached_property
    def M(self) -> sympy.Matrix:
        """The joint-space inertia matrix M(q) in closed form (n x n, symmetric), the rotors'
        G^2 Jm on its diagonal: ``sympy.trigsimp(dynamics.M[0, 0])`` simplifies an entry
        (seconds an entry past three joints)."""
        return self.program("mass_matrix").expanded()

    @cached_property
    def C(self) -> sympy.Matrix:
        """The Coriolis and centrifugal matrix C(q, qd) in closed form (n x n), of Christoffel
        symbols: C qd is the velocity product terms, and dM/dt - 2C is skew-symmetric."""
        return self.program("coriolis_matrix").expanded()

    @cached_property
    def g(self) -> sympy.Matrix:
        """The gravity torques g(q) in closed form (n x 1): the joint forces that hold the
        robot still, dV/dq of its potential energy."""
        return self.program("gravity_torques").expanded()

    def __repr__(self):
        return f"<Dynamics of {self.robot.name} by {self.method}>"
