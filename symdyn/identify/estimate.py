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

from ..derive.dynamics import Dynamics
from ..emit import python_module
from ..errors import DataFileError, DerivationError
from ..program.passes import eliminate_dead_code
from .data import Measurements

POORLY_EXCITED = 0.10       # relative standard deviation
CHUNK = 20000               # samples a pass of the regressor takes


@dataclass(frozen=True)
class Fit:
    beta: np.ndarray
    std: np.ndarray

    @property
    def relative_std(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.beta != 0, self.std / np.abs(self.beta), np.inf)


@dataclass(frozen=True)
class Estimate:
    names: tuple[str, ...]
    ordinary: Fit
    weighted: Fit
    condition: float              # of the stacked base regressor
    joint_sigma: np.ndarray       # each joint's residual standard deviation (ordinary fit)
    samples: int

    def as_yaml(self, robot: str, data: str) -> str:
        """The estimates as a YAML document: each parameter's value and standard deviation."""
        def fit(f):
            return {name: {"value": float(v), "std": float(s)}
                    for name, v, s in zip(self.names, f.beta, f.std)}
        return yaml.safe_dump({
            "robot": robot, "data": data, "samples": self.samples,
            "condition_number": float(self.condition),
            "joint_residual_std": [float(s) for s in self.joint_sigma],
            "weighted": fit(self.weighted), "ordinary": fit(self.ordinary)}, sort_keys=False)

    @property
    def poorly_excited(self) -> tuple[str, ...]:
        return tuple(name for name, r in zip(self.names, self.weighted.relative_std)
                     if r > POORLY_EXCITED)


def base_regressor_function(dynamics: Dynamics, values=None):
    """The base regressor as a numpy function of (q, qd, qdd), and the names of its columns;
    free symbols it depends on (lengths, not masses) need ``values``."""
    program = eliminate_dead_code(dynamics.program("base_regressor"))
    used = set().union(*(a.rhs.free_symbols for a in program.assignments),
                       *(sympy.sympify(v).free_symbols for v in program.outputs[0].values))
    missing = [str(s) for s in dynamics.robot.parameters
               if s in used and s not in (values or {})]
    if missing:
        raise DerivationError(f"{dynamics.robot.name}: the base regressor depends on "
                              f"{', '.join(missing)}; give them values (--set)")
    module = python_module(dynamics, quantities=["base_regressor"], values=values)
    params = [np.zeros(len(module.PARAMETERS))] if module.PARAMETERS else []
    return (lambda q, qd, qdd: module.base_regressor(q, qd, qdd, *params)), module.BASE_PARAMETERS


def stacked(regressor, q, qd, qdd, progress=None) -> np.ndarray:
    """The base regressor at every sample, (N n) x b, computed a chunk at a time."""
    progress = progress or (lambda message: None)
    parts = []
    for start in range(0, len(q), CHUNK):
        stop = min(start + CHUNK, len(q))
        progress(f"base regressor at samples {start + 1}..{stop} of {len(q)}")
        Y = regressor(q[start:stop], qd[start:stop], qdd[start:stop])
        parts.append(Y.reshape(-1, Y.shape[-1]))
    return np.vstack(parts)


def identify(dynamics: Dynamics, data: Measurements, *, values=None,
             progress=None) -> Estimate:
    """Ordinary and weighted least-squares estimates of the base parameters from ``data``."""
    progress = progress or (lambda message: None)
    regressor, names = base_regressor_function(dynamics, values)
    n, b = dynamics.robot.dof, len(names)
    if data.samples * n <= b:
        raise DataFileError(data.path, f"{data.samples} samples of {n} joints give "
                            f"{data.samples * n} equations for {b} base parameters",
                            expected="many more samples than base parameters")
    W = stacked(regressor, data.q, data.qd, data.qdd, progress)
    y = data.tau.reshape(-1)
    progress(f"least squares: {W.shape[0]} equations, {b} base parameters")
    singular = np.linalg.svd(W, compute_uv=False)
    condition = float(singular[0] / singular[-1]) if singular[-1] > 0 else np.inf
    if not condition < 1e10:
        raise DataFileError(data.path, f"the motion does not excite every base parameter (the "
                            f"stacked regressor's condition number is {condition:.3g})",
                            expected="a richer motion, e.g. from symdyn excite")
    ordinary = _least_squares(W, y)
    residual = (y - W @ ordinary.beta).reshape(-1, n)
    dof_left = max(data.samples - b / n, 1.0)
    joint_sigma = np.sqrt((residual ** 2).sum(axis=0) / dof_left)
    weights = np.tile(1.0 / np.where(joint_sigma > 0, joint_sigma, 1.0), data.samples)
    weighted = _least_squares(W * weights[:, None], y * weights)
    return Estimate(tuple(names), ordinary, weighted, condition, joint_sigma, data.samples)


def _least_squares(W, y) -> Fit:
    beta, *_ = np.linalg.lstsq(W, y, rcond=None)
    residual = y - W @ beta
    variance = residual @ residual / (W.shape[0] - W.shape[1])
    # (W^T W)^-1 from the SVD, which stays accurate where W^T W's entries would not
    _, s, vt = np.linalg.svd(W, full_matrices=False)
    covariance = (vt.T / s ** 2) @ vt * variance
    return Fit(beta, np.sqrt(np.diag(covariance)))
