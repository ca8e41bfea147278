"""Single shooting for the Panda by Levenberg-Marquardt, with the generated derivatives of
forward dynamics: the torques of a 0.5 s motion, corrected step by step so that the arm ends at
rest at a goal. Run with symdyn installed."""
import numpy as np

import symdyn

panda = symdyn.compile("panda", quantities=["forward_dynamics", "forward_dynamics_derivatives",
                                            "gravity_torques"])
n, steps, h = 7, 50, 0.01
goal = np.concatenate([np.full(n, 0.05), np.zeros(n)])      # q = 0.05 rad, at rest


def step(x, u):
    """Semi-implicit Euler: x = (q, qd), u = tau, held over the step."""
    q, qd = x[:n], x[n:]
    qd_next = qd + h * panda.forward_dynamics(q, qd, u)
    return np.concatenate([q + h * qd_next, qd_next])


def rollout(x0, u):
    xs = [x0]
    for k in range(steps):
        xs.append(step(xs[-1], u[k]))
    return np.array(xs)


def step_jacobians(x, u):
    """dx_next/dx and dx_next/du of step(), from dqdd/dq, dqdd/dqd and M^-1 (= dqdd/dtau)."""
    q, qd = x[:n], x[n:]
    dq, dqd, Minv = panda.forward_dynamics_derivatives(q, qd, u)
    eye = np.eye(n)
    dv = np.hstack([h * dq, eye + h * dqd])                   # d qd_next / d(q, qd)
    A = np.vstack([np.hstack([eye, np.zeros((n, n))]) + h * dv, dv])
    B = np.vstack([h * h * Minv, h * Minv])
    return A, B


def sensitivities(xs, u):
    """The final state's sensitivity to every torque: dx_N/du_k = A_{N-1} ... A_{k+1} B_k."""
    G = np.zeros((2 * n, steps * n))
    Phi = np.eye(2 * n)
    for k in reversed(range(steps)):
        A, B = step_jacobians(xs[k], u[k])
        G[:, k * n:(k + 1) * n] = Phi @ B
        Phi = Phi @ A
    return G


def cost(u):
    return 0.5 * np.sum((rollout(x0, u)[-1] - goal) ** 2)


x0 = np.zeros(2 * n)
u = np.array([panda.gravity_torques(x0[:n])] * steps)        # hold still: gravity compensation
G = sensitivities(rollout(x0, u), u)

# The derivatives against finite differences of the rollout, for one torque.
e = np.zeros_like(u)
e[10, 3] = 1e-6
numeric = (rollout(x0, u + e)[-1] - rollout(x0, u - e)[-1]) / 2e-6
print(f"dx_N/du: largest difference from finite differences "
      f"{np.abs(numeric - G[:, 10 * n + 3]).max():.1e}")

# Levenberg-Marquardt: Gauss-Newton steps, damped by lam where the linearisation is poor.
costs, lam = [cost(u)], 1e-8
while len(costs) <= 5:
    xs = rollout(x0, u)
    G = sensitivities(xs, u)
    delta = -np.linalg.solve(G.T @ G + lam * np.eye(steps * n), G.T @ (xs[-1] - goal))
    candidate = u + delta.reshape(steps, n)
    if cost(candidate) < costs[-1]:
        u, lam = candidate, lam / 10
        costs.append(cost(u))
    else:
        lam *= 10
print("terminal cost by iteration:", ", ".join(f"{c:.1e}" for c in costs))
assert costs[-1] < 0.05 * costs[0]
