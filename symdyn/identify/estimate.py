"""Least squares on the base regressor: the base parameters, with their standard deviations.

The base regressor is stacked over every sample (W, N n x b) against the measured torques y.
Ordinary least squares gives beta and, from its residual variance sigma^2 = |y - W beta|^2 /
(N n - b), the covariance sigma^2 (W^T W)^-1. Weighted least squares then weighs each joint's
rows by the inverse of its own residual deviation, as joints differ in torque size and noise
(Gautier and Khalil, "Exciting trajectories for the identification of base inertial
parameters of robots", IJRR 1992; Swevers et al., IEEE TRA 1997). A relative standard
deviation above POORLY_EXCITED marks a parameter the motion does not excite well enough.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy
import yaml

from ..api import python_module
from ..derive.base_parameters import BaseParameters, base_parameters
from ..derive.dynamics import Dynamics
from ..derive.regressor import INERTIAL, SPRING, standard_parameters
from ..errors import DataFileError, DerivationError
from ..program.passes import eliminate_dead_code
from .data import Measurements
from .progress import Throttled

POORLY_EXCITED = 0.10       # relative standard deviation
CHUNK = 5000                # samples a pass of the regressor takes (its memory: CHUNK n b)


@dataclass(frozen=True)
class Fit:
    beta: np.ndarray
    std: np.ndarray

    @property
    def relative_std(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.beta != 0, self.std / np.abs(self.beta), np.inf)


# What --fit chooses from: groups of standard parameters (their names' stems, see regressor.py).
GROUPS = {"inertia": INERTIAL, "rotor": ("Ia",), "viscous": ("fv",), "coulomb": ("fcp", "fcm"),
          "spring": SPRING}


@dataclass(frozen=True)
class Estimate:
    names: tuple[str, ...]
    ordinary: Fit
    weighted: Fit
    condition: float              # of the stacked base regressor
    joint_sigma: np.ndarray       # each joint's residual standard deviation (ordinary fit)
    samples: int
    base: BaseParameters          # what was estimated: beta = B pi of the fitted parameters
    held: tuple[str, ...] = ()    # standard parameters held at the robot file's values

    def as_yaml(self, robot: str, data: str) -> str:
        """The estimates as a YAML document (its format: docs/reference/estimates.md)."""
        def fit(f):
            return {name: {"value": float(v), "std": float(s)}
                    for name, v, s in zip(self.names, f.beta, f.std)}
        return yaml.safe_dump({
            "robot": robot, "data": data, "samples": self.samples,
            "condition_number": float(self.condition),
            "joint_residual_std": [float(s) for s in self.joint_sigma],
            "held_at_robot_file_values": list(self.held),
            "combinations": {name: str(c) for name, c in zip(self.names,
                                                             self.base.combinations)},
            "weighted": fit(self.weighted), "ordinary": fit(self.ordinary)}, sort_keys=False)

    @property
    def poorly_excited(self) -> tuple[str, ...]:
        return tuple(name for name, r in zip(self.names, self.weighted.relative_std)
                     if r > POORLY_EXCITED)


def fitted_parameters(dynamics: Dynamics, groups=None) -> list[int]:
    """The indices of the standard parameters in ``groups`` (keys of GROUPS; all by default)."""
    groups = tuple(GROUPS) if groups is None else tuple(groups)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise DerivationError(f"--fit {unknown[0]!r}: expected one of {', '.join(GROUPS)}")
    stems = {stem for g in groups for stem in GROUPS[g]}
    names = [name for name, _ in standard_parameters(dynamics.robot)]
    chosen = [k for k, name in enumerate(names) if name.rstrip("0123456789") in stems]
    if not chosen:
        raise DerivationError(f"{dynamics.robot.name} has no {' or '.join(groups)} parameters "
                              "to estimate (a robot file without actuator data has none of "
                              "rotor, viscous or coulomb)")
    return chosen


def regressor_function(dynamics: Dynamics, values=None, fitted=None):
    """(q, qd, qdd) -> (Y_b, offset) as numpy, the names of Y_b's columns and their base
    parameters: tau = Y_b beta + offset, the offset being what the parameters held known
    (those not ``fitted``) contribute at the robot file's values. Free symbols the regressor
    depends on (lengths, not masses) need ``values``."""
    robot = dynamics.robot
    everything = fitted is None or len(fitted) == len(standard_parameters(robot))
    base = dynamics.base if everything else base_parameters(
        robot, dynamics.program("regressor"), fitted=set(fitted))
    name = "base_regressor" if everything else "regressor"
    program = eliminate_dead_code(dynamics.program(name))
    used = set().union(*(a.rhs.free_symbols for a in program.assignments),
                       *(sympy.sympify(v).free_symbols for v in program.outputs[0].values))
    missing = [str(s) for s in robot.parameters if s in used and s not in (values or {})]
    if missing:
        raise DerivationError(f"{robot.name}: the regressor depends on {', '.join(missing)}; "
                              "give them values (--set)")
    module = python_module(dynamics, quantities=[name], values=values)
    params = [np.zeros(len(module.PARAMETERS))] if module.PARAMETERS else []
    if everything:
        def evaluate(q, qd, qdd):
            Y = module.base_regressor(q, qd, qdd, *params)
            return Y, np.zeros(Y.shape[:-1])
        return evaluate, tuple(module.BASE_PARAMETERS), base
    held = [k for k in range(len(base.standard)) if k not in set(fitted)]
    known = [sympy.sympify(v).subs(values or {}) for _, v in standard_parameters(robot)]
    if not all(known[k].is_number for k in held):
        raise DerivationError(f"{robot.name}: the parameters held known need numbers; give "
                              "its free symbols values (--set)")
    pi_held = np.array([float(known[k]) for k in held])
    columns = list(base.columns)

    def evaluate(q, qd, qdd):
        Y = module.regressor(q, qd, qdd, *params)
        return Y[..., columns], Y[..., held] @ pi_held
    return evaluate, base.names, base


def base_regressor_function(dynamics: Dynamics, values=None):
    """The base regressor as a numpy function of (q, qd, qdd), and the names of its columns."""
    evaluate, names, _ = regressor_function(dynamics, values)
    return (lambda q, qd, qdd: evaluate(q, qd, qdd)[0]), names


def identify(dynamics: Dynamics, data, *, values=None, fit=None, progress=None) -> Estimate:
    """Ordinary and weighted least-squares estimates of the base parameters from ``data``:
    Measurements, or an iterable of them (``data.blocks`` of a file of any length). ``fit``
    names the groups of parameters estimated (keys of GROUPS, all by default); the others are
    held at the robot file's values. The samples are folded into triangular factors as they
    come (``_Factors``), so memory grows with the base parameters, not with the samples."""
    progress = Throttled(progress)
    fitted = fitted_parameters(dynamics, fit)
    regressor, names, base = regressor_function(dynamics, values, fitted)
    n, b = dynamics.robot.dof, len(names)
    factors = _Factors(n, b)
    path = None
    for block in [data] if isinstance(data, Measurements) else data:
        path = block.path
        for start in range(0, block.samples, CHUNK):
            stop = min(start + CHUNK, block.samples)
            with np.errstate(over="ignore", invalid="ignore"):      # _check_sizes says
                Y, offset = regressor(block.q[start:stop], block.qd[start:stop],
                                      block.qdd[start:stop])
            tau = block.tau[start:stop]
            _check_sizes(block, start, Y, tau)
            factors.add(Y, tau - offset)
        progress.estimate(f"{factors.samples} samples", block.done)
    if path is None or factors.samples * n <= b:
        raise DataFileError(path or "the data", f"{factors.samples} samples of {n} joints give "
                            f"{factors.samples * n} equations for {b} base parameters",
                            expected="many more samples than base parameters")
    progress(f"least squares: {factors.samples * n} equations, {b} base parameters")
    ordinary = factors.fit(np.ones(n))
    condition = ordinary.condition
    if not condition < 1e10:
        raise DataFileError(path, f"the motion does not excite every base parameter (the "
                            f"stacked regressor's condition number is {condition:.3g})",
                            expected="a richer motion, e.g. from symdyn excite")
    dof_left = max(factors.samples - b / n, 1.0)
    joint_sigma = np.sqrt(factors.joint_residuals(ordinary.fit.beta) / dof_left)
    weighted = factors.fit(1.0 / np.where(joint_sigma > 0, joint_sigma, 1.0))
    chosen = set(fitted)
    return Estimate(tuple(names), ordinary.fit, weighted.fit, condition, joint_sigma,
                    factors.samples, base,
                    tuple(str(s) for k, s in enumerate(base.standard) if k not in chosen))


# Beyond this a regressor entry's square, summed over the samples, could overflow a double.
LARGEST = 1e150


def _check_sizes(block: Measurements, start: int, Y, tau):
    """Refuse samples whose regressor or torque is not finite or too large to be squared: a
    value like 1e308, or one that overflows a product (qd = 1e200), is bad input."""
    bad = ~(np.isfinite(Y).all(axis=(1, 2)) & (np.abs(Y).max(axis=(1, 2)) < LARGEST)
            & (np.abs(tau).max(axis=1) < LARGEST))
    if not bad.any():
        return
    k = start + int(np.argmax(bad))
    values = {f"{kind}{j + 1}": float(getattr(block, kind)[k, j])
              for kind in ("q", "qd", "qdd", "tau") for j in range(block.q.shape[1])}
    column = max(values, key=lambda name: abs(values[name]))
    raise DataFileError(block.path, f"{values[column]:g} makes the regressor or the torque "
                        "overflow", line=block.line(k), field=column,
                        expected=f"values whose products stay below {LARGEST:g}")


@dataclass(frozen=True)
class _Solved:
    fit: Fit
    condition: float    # of the stacked regressor: its factor R has the same singular values


class _Factors:
    """For each joint j, the triangular factor R_j of [W_j y_j]: its samples' base-regressor
    rows beside their torques, updated by a QR of [R_j; new rows] as blocks arrive (Lawson and
    Hanson, "Solving Least Squares Problems", ch. 27: sequential accumulation). R_j keeps all
    that least squares needs of joint j's rows: |[W_j y_j] v| = |R_j v| for every v."""

    def __init__(self, n: int, b: int):
        self.R = [np.zeros((0, b + 1)) for _ in range(n)]
        self.samples = 0

    def add(self, Y: np.ndarray, tau: np.ndarray):
        for j, R in enumerate(self.R):
            rows = np.column_stack([Y[:, j, :], tau[:, j]])
            self.R[j] = np.linalg.qr(np.vstack([R, rows]), mode="r")
        self.samples += len(Y)

    def fit(self, weights: np.ndarray) -> _Solved:
        """Least squares with joint j's rows weighed by weights[j]."""
        stacked = np.linalg.qr(np.vstack([w * R for w, R in zip(weights, self.R)]), mode="r")
        b = stacked.shape[1] - 1
        R, z, rho = stacked[:b, :b], stacked[:b, b], stacked[b, b] if len(stacked) > b else 0
        # beta and (W^T W)^-1 = (R^T R)^-1 from R's SVD, which stays accurate where W^T W's
        # entries would not, and says how well conditioned W is before anything is divided
        u, s, vt = np.linalg.svd(R)
        if not s[-1] > 0:
            return _Solved(Fit(np.full(b, np.nan), np.full(b, np.inf)), np.inf)
        beta = vt.T @ ((u.T @ z) / s)
        variance = rho ** 2 / (self.samples * len(self.R) - b)
        covariance = (vt.T / s ** 2) @ vt * variance
        return _Solved(Fit(beta, np.sqrt(np.diag(covariance))), float(s[0] / s[-1]))

    def joint_residuals(self, beta: np.ndarray) -> np.ndarray:
        """|y_j - W_j beta|^2 for each joint."""
        v = np.append(beta, -1.0)
        return np.array([float(np.sum((R @ v) ** 2)) for R in self.R])
