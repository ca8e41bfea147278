"""Base parameters: the fewest combinations of the standard parameters that determine tau.

tau = Y pi has fewer independent columns than parameters: some parameters never reach a joint,
others only in fixed combinations. The base parameters beta = B pi are those combinations, and
tau = Y_b beta with Y_b a choice of Y's columns.

Two stages, as Khalil and Bennis' rules and Gautier's numeric method are used together:

1. Grouping rules, symbolic and exact (Khalil and Dombre, "Modeling, Identification and Control
   of Robots", Ch. 12; written once, in robot/regroup.py): the part of link j that looks the
   same whatever q_j moves with its parent, so it is added there and removed from link j. For
   a revolute joint it is M_j, MZ_j and YY_j on both XX_j and YY_j (giving XXR_j = XX_j - YY_j,
   ...); for a prismatic joint the whole rotational inertia. Carried by the joint's placement
   at q = 0, the rules hold in both DH conventions and for URDF-placed joints (the parameters
   are taken in the joint frames, where all three agree). From a child of the fixed base the
   part vanishes; a floating base's body takes it as any parent does, and its own ten all
   stay (its six forces see every one of them: the whole robot's inertia in {0}).
2. Gautier's QR on the regressor stacked over random states catches what the rules leave:
   parameters whose column is zero (those that never move or never meet gravity, e.g. link 1's
   first moments when axis 1 is vertical) are dropped, and columns still dependent (parallel
   axes near the base, a rotor inertia beside ZZ_1) are grouped into the first independent ones,
   with coefficients from the least-squares fit -- numbers, so that stage needs numeric
   geometry. It also verifies stage 1: Y pi must equal Y_b beta at every sample.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import symengine
import sympy
from symengine.lib.symengine_wrapper import DictBasic

from ..errors import DerivationError
from ..program.builder import ProgramBuilder
from ..program.evaluate import evaluate
from ..program.passes import eliminate_dead_code
from ..program.program import Argument, Program
from ..program.symengine_form import expand, to_sympy
from ..robot.model import Robot
from ..robot.poses import normalized
from ..robot.regroup import moved_to_parents, resting
from ..spatial import Inertia, Placement
from .quantities import QUANTITIES
from .regressor import bodies, standard_parameters

RANK_TOLERANCE = 1e-9      # of a column's part outside the span of those before it, relative
                           # to the stacked regressor's largest singular value


@dataclass(frozen=True)
class BaseParameters:
    names: tuple[str, ...]            # XXR2, ZZR1, mx3 ...
    combinations: tuple[sympy.Expr, ...]   # each beta_k in the standard parameters' symbols
    standard: tuple[sympy.Symbol, ...]     # the standard parameters, as symbols of their names
    columns: tuple[int, ...]          # Y_b = Y[:, columns]
    absent: tuple[str, ...]           # standard parameters no joint force depends on

    @property
    def matrix(self) -> sympy.Matrix:
        """B, b x p: beta = B pi."""
        return sympy.Matrix([[c.coeff(s) for s in self.standard] for c in self.combinations])

    def values(self, robot: Robot, values=None) -> np.ndarray | None:
        """beta of the robot file's own parameters (free symbols fixed by ``values``), or None
        where they are not all numbers."""
        pi = [sympy.sympify(v).subs(values or {}) for _, v in standard_parameters(robot)]
        if not all(v.is_number for v in pi):
            return None
        return np.array(self.matrix.subs(values or {}), dtype=float) @ np.array(pi, dtype=float)


def base_parameters(robot: Robot, regressor: Program, *, samples=None, seed: int = 0,
                    fitted=None) -> BaseParameters:
    """The base parameters of ``robot``, whose regressor program is ``regressor``; with
    ``fitted`` (standard parameters' indices), of those alone, the others held known (the
    grouping rules mix a link's ten inertial parameters, so those go together)."""
    names = [name for name, _ in standard_parameters(robot)]
    standard = tuple(sympy.Symbol(name) for name in names)
    grouped = _grouping_rules(robot, standard)
    p = len(names)
    W = _stacked(robot, regressor, samples or 3 * p // robot.dof + 10, seed)
    scale = max(1.0, float(np.abs(W).max()))
    # stage 1 holds exactly: Y pi = Y pi_R for every pi, so W (A - I) = 0
    A = _linear_map(grouped, standard, _random_values(robot, seed))
    if np.abs(W @ (A - np.eye(p))).max() > 1e-8 * scale:
        raise DerivationError(f"{robot.name}: the grouping rules do not hold (a symdyn bug)")
    candidates = [k for k in range(p) if grouped[k] != 0 and (fitted is None or k in fitted)]
    absent = [k for k in candidates if np.abs(W[:, k]).max() <= 1e-10 * scale]
    candidates = [k for k in candidates if k not in absent]
    independent, dependent = [], []
    # W = Q R with Q's columns orthonormal: W's columns have the lengths and angles of R's,
    # which have p entries where W's have (samples n)
    R = np.linalg.qr(W, mode="r")
    tolerance = RANK_TOLERANCE * np.linalg.norm(R, 2)
    basis = np.zeros((p, 0))      # orthonormal, spanning the independent columns
    for k in candidates:          # the first columns that raise the rank, in standard order
        part = R[:, k]
        for _ in range(2):        # projected out twice: once loses orthogonality to rounding
            part = part - basis @ (basis.T @ part)
        length = np.linalg.norm(part)
        if length > tolerance:
            independent.append(k)
            basis = np.column_stack([basis, part / length])
        else:
            dependent.append(k)
    combinations = [grouped[k] for k in independent]
    if dependent:
        if any(sympy.sympify(grouped[k]).free_symbols - set(standard) for k in dependent) or (
                robot.parameters and _geometry_symbolic(robot)):
            raise DerivationError(
                f"{robot.name}: its base parameters group columns by numbers that depend on "
                "its free symbols; give them values (--set) to find the base parameters")
        K, *_ = np.linalg.lstsq(W[:, independent], W[:, dependent], rcond=None)
        for row, k in enumerate(independent):
            combinations[row] = grouped[k] + sum(
                (_number(K[row, col]) * grouped[d] for col, d in enumerate(dependent)),
                sympy.Integer(0))
    combinations = [expand(c) for c in combinations]
    labels = tuple(names[k] if c == standard[k] else _grouped_name(names[k])
                   for k, c in zip(independent, combinations))
    return BaseParameters(labels, tuple(combinations), standard, tuple(independent),
                          tuple(names[k] for k in absent))


def base_program(name: str, robot: Robot, regressor: Program, base: BaseParameters) -> Program:
    """base_regressor: Y's base columns, from the regressor's program (dead code pruned by the
    passes); base_parameters: beta = B pi, pi an input (free geometric symbols as params)."""
    n, p, b = robot.dof, len(base.standard), len(base.names)
    (dims,) = QUANTITIES[name].dims(robot, b)
    if name == "base_regressor":
        Y = regressor.output("Y").values
        values = [Y[i * p + k] for i in range(n) for k in base.columns]
        # the regressor's very steps (and what it knows of them): optimize_all sees them shared
        return replace(regressor, name=name, outputs=(Argument("Y_b", tuple(values), dims),))
    pi = tuple(sympy.Symbol(f"pi_{s}") for s in base.standard)
    # renamed by symengine: sympy rebuilds each of a generic robot's long sums of Float terms
    # (a 20-joint chain's: 1.9 s)
    renamed = {symengine.Symbol(s.name): symengine.Symbol(f"pi_{s}") for s in base.standard}
    beta = tuple(to_sympy(symengine.sympify(c).xreplace(renamed)) for c in base.combinations)
    inputs = [Argument.vector("pi", pi)]
    if robot.parameters:
        inputs.append(Argument.vector("params", robot.parameters))
    builder = ProgramBuilder(reserved={str(s) for arg in inputs for s in arg.values} | {"beta"})
    outputs = [builder.define(f"beta{k + 1}", v) for k, v in enumerate(beta)]
    return builder.program(name, inputs, [Argument("beta", tuple(outputs), dims)])


def _grouping_rules(robot: Robot, standard) -> list[sympy.Expr]:
    """pi_R: the standard parameters with each link's invariant part moved to its parent (the
    rule of robot/regroup.py), a floating base's body among the parents. Held as lists of the
    ten parameters in symengine: toward the base they are long sums, which sympy's sums and
    matrices would rebuild at every step."""
    count = 10 * len(bodies(robot))
    tens = [[symengine.Symbol(s.name) for s in standard[k:k + 10]] for k in range(0, count, 10)]
    root = tens.pop(0) if robot.floating else None
    move = _mover()
    tens, root = moved_to_parents(robot, tens,
                                  lambda link, ten: link.kind.invariant(ten),
                                  lambda part, link: move(part, resting(link)), root)
    memo: dict = {}       # to_sympy's
    grouped = [expand(g, memo) for ten in ([root] if root else []) + tens for g in ten]
    return grouped + list(standard[count:])          # the actuators' columns as they are


def _mover():
    """(parameters, placement) -> the parameters of the body seen from a frame in which its own
    has that placement (``Placement.act_inertia``). The transform, linear
    in the parameters, is taken once on symbols for all of them and the placement, and each
    link's values are substituted into it."""
    # Symbols no robot file can name (not identifiers), not Dummies: sympy numbers its Dummies
    # from a random start, symengine orders the terms of the moved parameters by their hashes,
    # and the floats of a generic robot's base parameters were summed in a different order in
    # every run (their last digits, and the generated files, changed).
    generic = sympy.symbols("m. mx. my. mz. xx. xy. yy. xz. yz. zz.")
    R = sympy.Matrix(3, 3, sympy.symbols("R.:9"))
    P = sympy.Matrix(sympy.symbols("P.:3"))
    body = Inertia.from_parameters(generic, sympy.Matrix)
    moved = [symengine.sympify(v) for v in Placement(R, P).act_inertia(body).parameters()]
    symbols = [symengine.sympify(x) for x in (*generic, *R, *P)]

    def move(parameters, placement: Placement):
        values = DictBasic(dict(zip(symbols, map(symengine.sympify, (
            *parameters, *placement.rotation, *placement.translation)))))
        return [symengine.expand(v.xreplace(values)) for v in moved]
    return move


def _linear_map(grouped, standard, values) -> np.ndarray:
    """A with pi_R = A pi at ``values`` of the free symbols. Each entry is differentiated only
    in the parameters it contains: a few of them, where a full Jacobian would take p^2."""
    column = {symengine.Symbol(s.name): j for j, s in enumerate(standard)}
    values = {symengine.Symbol(s.name): v for s, v in values.items()}
    A = np.zeros((len(grouped), len(standard)))
    for k, g in enumerate(grouped):
        g = symengine.sympify(g)
        for s in g.free_symbols & column.keys():
            A[k, column[s]] = float(g.diff(s).xreplace(values))
    return A


def _random_values(robot: Robot, seed: int) -> dict:
    rng = np.random.default_rng(seed + 1)
    return {s: float(rng.uniform(0.5, 1.5)) for s in robot.parameters}


def _geometry_symbolic(robot: Robot) -> bool:
    return any(link.rotation.free_symbols - set(link.configuration)
               or link.position.free_symbols - set(link.configuration) for link in robot.links)


def _stacked(robot: Robot, regressor: Program, samples: int, seed: int) -> np.ndarray:
    """Y at ``samples`` random states, stacked: (samples n) x p."""
    rng = np.random.default_rng(seed)
    n = robot.dof
    values = {s: np.full(samples, v) for s, v in _random_values(robot, seed).items()}
    for symbols, bound in ((robot.q, np.pi), (robot.qd, 3), (robot.qdd, 5)):
        values.update({s: rng.uniform(-bound, bound, samples) for s in symbols})
    values = normalized(robot, values)
    # dead code pruned: the derivation's steps in the parameters themselves stay behind
    return evaluate(eliminate_dead_code(regressor), values).reshape(samples * n, -1)


def _number(x: float) -> sympy.Expr:
    """A least-squares coefficient: a simple fraction where it is one to 1e-10, else a float."""
    fraction = sympy.Rational(x).limit_denominator(1000)
    if abs(float(fraction) - x) <= 1e-10 * max(1.0, abs(x)):
        return fraction
    return sympy.Float(x, 15)


def _grouped_name(name: str) -> str:
    """XX2 -> XXR2, mx3 -> mxR3, Ia1 -> IaR1: Khalil's R for a regrouped parameter."""
    stem = name.rstrip("0123456789")
    return f"{stem}R{name[len(stem):]}"


__all__ = ["BaseParameters", "base_parameters", "base_program"]
