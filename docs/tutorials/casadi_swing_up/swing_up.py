"""The planar two-link arm swung up from hanging to upright: a direct multiple-shooting NLP in
casadi.Opti, solved by IPOPT, its dynamics symdyn's forward dynamics as a CasADi function.
Run with symdyn and casadi installed (pip install 'symdyn[casadi]')."""
import sys

import casadi as ca
import numpy as np

import symdyn

# The CasADi module of the shipped planar arm, its masses, lengths and gravity fixed.
arm = symdyn.newton_euler(symdyn.load_robot("planar2"))
symdyn.generate(arm, "casadi", "build", quantities=["forward_dynamics", "gravity_torques"],
                values={"m1": 1.0, "m2": 1.0, "l1": 0.5, "l2": 0.5, "g": 9.81})
sys.path.insert(0, "build")
import planar2_casadi  # noqa: E402  (written just above)

forward_dynamics = planar2_casadi.forward_dynamics()      # qdd = f(q, qd, tau)
print(forward_dynamics)

N, T = 60, 1.5                 # shooting intervals, seconds
h = T / N
hanging = [-np.pi / 2, 0, 0, 0]    # gravity is along -y0: q1 = -pi/2 hangs down
upright = [np.pi / 2, 0, 0, 0]


def rk4(x, u):
    """One Runge-Kutta step of x = (q, qd) under torques u, held over the step."""
    def f(x):
        return ca.vertcat(x[2:], forward_dynamics(x[:2], x[2:], u))
    k1 = f(x)
    k2 = f(x + h / 2 * k1)
    k3 = f(x + h / 2 * k2)
    k4 = f(x + h * k3)
    return x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


opti = ca.Opti()
X = opti.variable(4, N + 1)
U = opti.variable(2, N)
opti.minimize(h * ca.sumsqr(U))
opti.subject_to(X[:, 0] == hanging)
opti.subject_to(X[:, N] == upright)
for k in range(N):
    opti.subject_to(X[:, k + 1] == rk4(X[:, k], U[:, k]))
opti.subject_to(opti.bounded(-25, U, 25))          # N m
for k in range(N + 1):                              # a straight line from hanging to upright
    opti.set_initial(X[:, k], np.array(hanging) + k / N * (np.array(upright) - hanging))
opti.solver("ipopt", {"print_time": False}, {"print_level": 0, "sb": "yes"})
solution = opti.solve()

x, u = solution.value(X), solution.value(U)
# the solution, replayed with the numpy module's forward dynamics as an independent check
symdyn.generate(arm, "python", "build", quantities=["forward_dynamics"],
                values={"m1": 1.0, "m2": 1.0, "l1": 0.5, "l2": 0.5, "g": 9.81})
import planar2  # noqa: E402

state = np.array(hanging, dtype=float)
for k in range(N):
    def f(s, k=k):
        return np.concatenate([s[2:], planar2.forward_dynamics(s[:2], s[2:], u[:, k])])
    k1 = f(state)
    k2 = f(state + h / 2 * k1)
    k3 = f(state + h / 2 * k2)
    k4 = f(state + h * k3)
    state = state + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
print(f"IPOPT: {solution.stats()['return_status']} after {solution.stats()['iter_count']} "
      f"iterations; cost {solution.value(opti.f):.2f} N^2 m^2 s")
print(f"largest torque {np.abs(u).max():.1f} N m; final state from the numpy replay "
      f"{np.round(state, 4).tolist()}")
print(f"replay's distance from upright: {np.abs(state - upright).max():.1e}")
