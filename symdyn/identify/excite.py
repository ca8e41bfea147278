"""Excitation trajectories: periodic joint motions whose base regressor is well conditioned.

Each joint follows a finite Fourier series (Swevers, Ganseman, Tukel, De Schutter and Van
Brussel, "Optimal robot excitation and identification", IEEE TRA 13(5), 1997):

    q_i(t)   = q0_i + sum_k  a_ik / (w k) sin(w k t) - b_ik / (w k) cos(w k t),   w = 2 pi / T
    qd_i(t)  =        sum_k  a_ik cos(w k t) + b_ik sin(w k t)
    qdd_i(t) =        sum_k -a_ik w k sin(w k t) + b_ik w k cos(w k t)

periodic, so measurements can be averaged over periods and differentiated without end effects.
The coefficients minimise the condition number of the base regressor stacked along the motion:
the best of random draws, then refined by a random walk with a shrinking step. Each candidate
is scaled to stay within the robot file's position and velocity limits (or, without them,
within +-1 rad or m of q0 and 2 rad/s or m/s), so every trajectory is feasible.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..derive.dynamics import Dynamics
from .estimate import base_regressor_function
from .progress import Throttled

DEFAULT_RANGE = 1.0          # rad or m either side of q0, without position limits
DEFAULT_SPEED = 2.0          # rad/s or m/s, without velocity limits
MARGIN = 0.9                 # of each limit the trajectory may use
POINTS = 120                 # samples along a period for the condition number


@dataclass(frozen=True)
class Trajectory:
    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    condition: float
    period: float
    harmonics: int


def excitation(dynamics: Dynamics, *, harmonics: int = 5, period: float = 10.0,
               rate: float = 100.0, iterations: int = 400, seed: int = 0, values=None,
               progress=None) -> Trajectory:
    """A Fourier-series trajectory of ``harmonics`` harmonics and ``period`` seconds, sampled
    at ``rate`` Hz, chosen for the smallest condition number of the base regressor."""
    progress = Throttled(progress)
    regressor, _ = base_regressor_function(dynamics, values)
    n = dynamics.robot.dof
    q0, half_range, speed = _bounds(dynamics.robot)
    rng = np.random.default_rng(seed)
    grid = np.linspace(0, period, POINTS, endpoint=False)

    def cost(coefficients):
        """The stacked regressor's condition number, from the eigenvalues of its b x b Gram
        matrix: exact enough for the well-conditioned motions sought (to 1e7), and a small
        problem where an SVD of the tall matrix costs more than the regressor itself."""
        q, qd, qdd = _motion(coefficients, q0, period, grid)
        W = regressor(q, qd, qdd).reshape(len(grid) * n, -1)
        eigenvalues = np.linalg.eigvalsh(W.T @ W)
        return (float(np.sqrt(eigenvalues[-1] / eigenvalues[0])) if eigenvalues[0] > 0
                else np.inf)

    def feasible(coefficients):
        q, qd, _ = _motion(coefficients, q0, period, grid)
        scale = min(1.0, *(half_range / np.maximum(np.abs(q - q0).max(axis=0), 1e-12)),
                    *(speed / np.maximum(np.abs(qd).max(axis=0), 1e-12)))
        return coefficients * scale

    best, best_cost = None, np.inf
    draws = max(20, iterations // 10)
    for k in range(draws):
        candidate = feasible(rng.normal(0, 1, (2, n, harmonics)))
        c = cost(candidate)
        if c < best_cost:
            best, best_cost = candidate, c
        progress.estimate(f"excitation: {k + 1}/{draws} random draws, condition number "
                          f"{best_cost:.4g}", (k + 1) / (draws + iterations))
    step = 0.3
    for k in range(iterations):
        candidate = feasible(best + rng.normal(0, step, best.shape) * np.abs(best).max())
        c = cost(candidate)
        if c < best_cost:
            best, best_cost = candidate, c
        else:
            step = max(step * 0.99, 0.01)
        progress.estimate(f"excitation: {k + 1}/{iterations} steps, condition number "
                          f"{best_cost:.4g}", (draws + k + 1) / (draws + iterations))
    t = np.arange(int(round(period * rate))) / rate
    q, qd, qdd = _motion(best, q0, period, t)
    return Trajectory(t, q, qd, qdd, float(best_cost), period, harmonics)


def _motion(coefficients, q0, period, t):
    """q, qd, qdd at times t (N,) of the series with coefficients (2, n, harmonics)."""
    a, b = coefficients
    w = 2 * np.pi / period
    k = np.arange(1, a.shape[1] + 1)
    phase = w * np.outer(t, k)                       # (N, harmonics)
    sin, cos = np.sin(phase), np.cos(phase)
    q = q0 + sin @ (a / (w * k)).T - cos @ (b / (w * k)).T
    qd = cos @ a.T + sin @ b.T
    qdd = -sin @ (a * w * k).T + cos @ (b * w * k).T
    return q, qd, qdd


def _bounds(robot):
    """q0, the half range about it and the speed each coordinate may use."""
    q0, half, speed = [], [], []
    for limits in _coordinate_limits(robot):
        if "lower" in limits:
            q0.append((limits["lower"] + limits["upper"]) / 2)
            half.append(MARGIN * (limits["upper"] - limits["lower"]) / 2)
        else:
            q0.append(0.0)
            half.append(DEFAULT_RANGE)
        speed.append(MARGIN * limits.get("velocity", DEFAULT_SPEED / MARGIN))
    return np.array(q0), np.array(half), np.array(speed)


def _coordinate_limits(robot) -> list[dict]:
    """Each coordinate's position and speed limits: its own joint's, narrowed by those of the
    mimic joints that follow it (q_j = m q + c within [lower_j, upper_j] bounds q by
    (lower_j - c) / m and (upper_j - c) / m; |qd_j| <= v_j bounds |qd| by v_j / |m|)."""
    column = {link: k for k, link in enumerate(robot.coordinates)}
    out = [{k: float(v) for k, v in (robot.spec.links[i - 1].limits or {}).items()}
           for i in robot.coordinates]
    for row in robot.spec.links:
        if row.mimic is None or not row.limits or row.multiplier == 0:
            continue
        own, ends = out[column[row.mimic]], row.followed_range()
        if ends is not None:
            own["lower"] = max(own.get("lower", ends[0]), ends[0])
            own["upper"] = min(own.get("upper", ends[1]), ends[1])
        if "velocity" in row.limits:
            own["velocity"] = min(own.get("velocity", np.inf),
                                  float(row.limits["velocity"]) / abs(float(row.multiplier)))
    return out
