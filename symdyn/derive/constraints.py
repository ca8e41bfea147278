"""The constraints on a tree (robot.constraints) and the dynamics they constrain.

Each constraint holds frames together, or a frame to the world, or a sum of coordinates at a
value (robot/constraints.py). Its rows are in the axes of its root: for a loop, the link both
its frames hang from (Robot.constraint_root; {0} for the base), whose frame turns with the
loop, so that the rows a planar loop keeps are independent in every pose; for a frame held to
the world, the world (Pinocchio's LOCAL_WORLD_ALIGNED, and MuJoCo's equality rows). With R_r
the root's rotation (the identity for the world) and p_b the second frame's origin (the
anchor's, for the world):

    phi(q)        the residual: R_r^T (p_a - p_b), and R_r^T times the vee of the skew part of
                  R_a R_b^T; sum_i c_i q_i - value for a coupling
    G(q)          the Jacobian: R_r^T (J_a - J_b) of the frames' geometric Jacobians (each
                  frame's own origin's velocity, its angular velocity), of the joints inside
                  the loop alone: those that carry the root carry the loop whole, and have no
                  column, exactly. d phi / dt = G v, exactly for positions and couplings
                  (R_r^T turns with those joints alone), at phi = 0 for rotations, as
                  Pinocchio's and MuJoCo's welds. A loop's frames are composed from its
                  root's frame outward (kinematics.frames_from), so that its phi, G and
                  gamma are written in its own joints alone: R_r^T never multiplies out
                  the base's and the upper joints' turns only to cancel them
    gamma(q, v)   the drift -dG/dt v: minus the frames' relative classical acceleration at
                  qdd = 0, the forward-mode time derivative of G v (no second recursion)

lambda is then the force (and, for a weld, the moment) the constraint puts on the first frame,
in the root's axes: where the frames coincide, G^T lambda is the wrench R_r lambda on the first
frame's link and its opposite on the second's.

and the dynamics on the constraint manifold (the Handbook's chapter on interacting bodies:
the reaction forces are the multipliers lambda of the constraints, and drop out there):

    M qdd = tau - h - friction + G^T lambda,      G qdd = gamma - K_d G v - K_p phi

solved through M's sparse factors M = L^T D L (factors.py), never a dense inverse: each row of
G half way through M^-1, W_j = L^-T g_j, the Delassus matrix D = G M^-1 G^T = W^T D^-1 W
(m x m, L D L^T) from them, lambda = D^-1 (gamma - K_d G v - K_p phi - G a0) with a0 the
unconstrained accelerations, and qdd = a0 + L^-1 D^-1 (W lambda), the other half once
(Pinocchio's constraintDynamics; K_p and K_d its Baumgarte corrector). An impact (Pinocchio's
impulseDynamics) changes v by M^-1 G^T Lambda with Lambda = -D^-1 (1 + r) G v. A closed-loop
mechanism's inverse dynamics (Khalil and Kleinfinger; OpenSYMORO) projects the tree's: the
passive joints' forces vanish, G_p^T lambda = tau_tree,p, solved as (G_p G_p^T) lambda = G_p
tau_tree,p, and the actuated joints take tau_tree,a - G_a^T lambda. The loops are closed by
Newton's method on the passive joints, q_p <- q_p - G_p^T (G_p G_p^T)^-1 phi, CLOSURE_STEPS
times, written out.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import directional_derivative, directional_derivatives
from ..program.symengine_form import to_sympy
from ..robot.constraints import Loops
from ..robot.model import Robot
from . import kinematics
from .factors import LDLT, factor, solve_columns, symbols_and_zeros


def multiplier_symbols(m: int) -> tuple:
    """The constraints' forces as inputs (constraint_derivatives holds them): lambda_c1..m."""
    return sympy.symbols(f"lambda_c1:{m + 1}")


# Newton steps of close_loops: from an error of 0.1 rad, 4 to 5 give every digit (quadratic);
# the rest are no work for the processor's result, only its time.
CLOSURE_STEPS = 8
# The residual below which close_loops says it converged (|phi|, m or rad).
CLOSED = 1e-10


def rows(robot: Robot, b: ProgramBuilder) -> tuple[list, list[list]]:
    """(phi, G): each constraint's kept rows, in robot.constraints' order; G by rows of the
    velocities' length."""
    held = any(c.kind != "coupling" and c.ends[1] is None for c in robot.constraints)
    frames, anchors = ((kinematics.world_frames(robot, b), Loops(robot).anchors) if held
                       else (None, None))
    phi, G = [], []
    for k, constraint in enumerate(robot.constraints, start=1):
        if constraint.kind == "coupling":
            phi.append(b.define(f"phi{k}", sympy.Add(*(c * q for q, c in
                                                      constraint.coefficients))
                                - constraint.value))
            row = [sympy.Integer(0)] * robot.dof
            for q, c in constraint.coefficients:
                row[_velocity(robot, q)] += c
            G.append(row)
            continue
        first, second = constraint.ends
        if second is None:
            residual, jacobian = _held(robot, b, frames, first, constraint.anchor if
                                       constraint.anchor is not None else anchors[k - 1],
                                       f"C{k}a_")
        else:
            residual, jacobian = _loop(robot, b, constraint, f"C{k}")
        for r in constraint.rows:
            phi.append(b.define(f"phi{k}_{r + 1}", residual[r]))
            G.append(jacobian(r))
    return phi, [[b.define(f"G{i + 1}_{c + 1}", e) for c, e in enumerate(row)]
                 for i, row in enumerate(G)]


def _held(robot, b, frames, frame, anchor, name):
    """A frame held to the world at ``anchor``: its residual (the six rows, world axes) and
    a function of a row giving G's row."""
    R, p = kinematics.frame_pose(robot, b, frames, frame, name)
    J = kinematics.point_jacobian(robot, b, frames, frame.link, p, name)
    T = sympy.Matrix(anchor) if isinstance(anchor, sympy.MatrixBase) else sympy.Matrix(
        anchor).applyfunc(lambda x: sympy.Float(x, 17))
    residual = [*(p - T[:3, 3]), *_vee(kinematics._times(R, T[:3, :3].T))]
    return residual, lambda r: [J[r, c] for c in range(robot.dof)]


def _loop(robot, b, constraint, name):
    """Two frames held together: the residual's six rows and a function of a row giving G's
    row, in the axes of the link both hang from (the module's docstring), derived from its
    frame outward: a function of the loop's own joints alone."""
    first, second = constraint.ends
    root = robot.constraint_root(constraint)
    inside = kinematics.frames_from(robot, b, root)
    # the root's file frame, in its joint frame: the rows' axes, constant
    axes = sympy.Matrix(robot.links[root - 1].file_frame)[:3, :3] if root else sympy.eye(3)
    Ra, pa = _pose(b, inside, first, f"{name}a_")
    Rb, pb = _pose(b, inside, second, f"{name}b_")
    relative = (kinematics.point_jacobian(robot, b, inside, first.link, pa, f"{name}a_", root)
                - kinematics.point_jacobian(robot, b, inside, second.link, pb, f"{name}b_",
                                            root))
    residual = [*kinematics._times(axes.T, pa - pb),
                *kinematics._times(axes.T, sympy.Matrix(_vee(kinematics._times(Ra, Rb.T))))]

    def row(r):
        axis, block = axes[:, r % 3], 3 * (r // 3)
        return [sympy.Add(*(axis[i] * relative[block + i, c] for i in range(3)))
                for c in range(robot.dof)]
    return residual, row


def _pose(b, frames, frame, name):
    """A frame's rotation and origin in the axes of ``frames`` (kinematics.frames_from), the
    base's the identity."""
    R, p = frames[frame.link - 1] if frame.link else (sympy.eye(3), sympy.zeros(3, 1))
    return kinematics._composed(b, name, R, p, frame.placement)


def _vee(turn) -> list:
    """The vee of the skew part of a rotation: its angle times its axis, to first order."""
    return [(turn[2, 1] - turn[1, 2]) / 2, (turn[0, 2] - turn[2, 0]) / 2,
            (turn[1, 0] - turn[0, 1]) / 2]


def _velocity(robot: Robot, q) -> int:
    """The index in v of the joint whose coordinate is the symbol ``q``."""
    (link,) = (i for i in robot.coordinates if robot.links[i - 1].q == q)
    return robot.velocity_columns[link][0]


def drift(robot: Robot, b: ProgramBuilder) -> list:
    """gamma = -dG/dt v: G v differentiated in time at qdd = 0 (kinematics.rates)."""
    velocity = [b.define(f"Gv{i + 1}", _dot(row, robot.qd))
                for i, row in enumerate(rows(robot, b)[1])]
    rate = directional_derivative(b, velocity, kinematics.rates(robot, b), "_dt")
    return [b.define(f"gamma{i + 1}", -r) for i, r in enumerate(rate)]


# -- the constrained dynamics -------------------------------------------------------------------
def _square(values, n):
    return sympy.Matrix(n, n, values)


@dataclass(frozen=True)
class Multipliers:
    """What the constrained dynamics share, from M's factors M = L^T D L (or L D L^T): the
    constraints' rows taken half way through M^-1, W_j = L^-T g_j, the Delassus matrix from
    them, D_ij = W_i^T D^-1 W_j (a half solve a row, where G M^-1 G^T by full solves takes
    two), and its factors."""

    factors: object
    W: list
    V: list             # W_j D^-1, entry by entry: G M^-1 r = V r' for r' = L^-T r
    delassus: sympy.Matrix
    delassus_factors: LDLT

    def move(self, b: ProgramBuilder, name: str, x, weights) -> list:
        """x + M^-1 G^T weights: the other half of the solve, once, for the sum of the rows'
        halves."""
        n = len(x)
        combined = [sympy.Add(*(self.W[j][k] * w for j, w in enumerate(weights)))
                    for k in range(n)]
        step = self.factors.finish(b, combined, f"{name}_m{{}}")
        return [b.define(f"{name}{k + 1}", x[k] + step[k]) for k in range(n)]

    def kkt(self, b: ProgramBuilder, name: str, r1, r2) -> tuple[list, list]:
        """(x, y) with M x = r1 + G^T y and G x = r2: y = D^-1 (r2 - G M^-1 r1), x = M^-1
        (r1 + G^T y), M's half solve of r1 taken once for both."""
        n = len(r1)
        half = self.factors.half(b, r1, f"{name}_h{{}}", symbols_and_zeros(r1))
        y = self.delassus_factors.solve(b, [r - sympy.Add(*(v[k] * half[k] for k in range(n)))
                                            for r, v in zip(r2, self.V)],
                                        f"{name}_y{{}}", f"{name}_z{{}}")
        combined = [half[k] + sympy.Add(*(self.W[j][k] * w for j, w in enumerate(y)))
                    for k in range(n)]
        return self.factors.finish(b, combined, f"{name}_x{{}}"), y


def multipliers(robot: Robot, part, b: ProgramBuilder, G) -> Multipliers:
    n, m = robot.dof, len(G)
    factors = factor(robot, b, _square(part("mass_matrix")[0], n))
    W = [factors.half(b, G[j], f"W{j + 1}_{{}}", symbols_and_zeros(G[j])) for j in range(m)]
    scaled = [[b.define(f"V{j + 1}_{k + 1}", W[j][k] * factors.inv_d[k]) if W[j][k] != 0
               else 0 for k in range(n)] for j in range(m)]
    D = sympy.Matrix(m, m, lambda i, j: b.define(
        f"Dl{min(i, j) + 1}_{max(i, j) + 1}", sympy.Add(*(
            W[max(i, j)][k] * scaled[min(i, j)][k] for k in range(n)))))
    return Multipliers(factors, W, scaled, D, LDLT.factor(b, D, "Dl", semidefinite=True))


def constrained_forward_dynamics(robot: Robot, part, b: ProgramBuilder, gains) -> list[list]:
    """[qdd, lambda]: the KKT system of the module's docstring, through M's factors and D's.
    a0 solved in full, beside the Delassus matrix, not half solved for both (Multipliers.kkt):
    fewer multiplications, but on the path from D to qdd (Cassie's: 3.27 us against 3.02)."""
    phi = part("constraint_residual")[0]
    G = _rows(part("constraint_jacobian")[0], robot.dof)
    gamma = part("constraint_drift")[0]
    a0 = part("forward_dynamics")[0]
    kp, kd = gains
    solved = multipliers(robot, part, b, G)
    rhs = [b.define(f"kkt{i + 1}", gamma[i] - kd * _dot(row, robot.qd) - kp * phi[i]
                    - _dot(row, a0)) for i, row in enumerate(G)]
    lam = solved.delassus_factors.solve(b, rhs, "lambda{}", "zl{}")
    return [solved.move(b, "qddc", a0, lam), lam]


def constraint_derivatives(robot: Robot, part, b: ProgramBuilder, tangents, velocities, qdd,
                           lam) -> list[list]:
    """[d(G^T lambda)/dq, d(G qdd - gamma)/dq, d(G qdd - gamma)/dqd, d(G qd)/dq] for qdd and
    lambda held (inputs): the terms the constrained dynamics' derivatives add to inverse
    dynamics' (the contact forces' share of Pinocchio's computeRNEADerivatives with fext, and
    its getFrameAccelerationDerivatives). q's derivatives along ``tangents`` (the velocities'
    directions in the configuration, quantities.tangents), qd's along ``velocities`` (among
    the links' velocity symbols, a mimic joint's with the one it follows:
    quantities.velocity_tangents), forward mode through the programs of G and gamma."""
    n = robot.dof
    G = _rows(part("constraint_jacobian")[0], n)
    gamma = part("constraint_drift")[0]
    force = [b.define(f"GTl{k + 1}", sympy.Add(*(row[k] * w for row, w in zip(G, lam))))
             for k in range(n)]
    acceleration = [b.define(f"Ga{i + 1}", _dot(row, qdd) - gamma[i]) for i, row in enumerate(G)]
    velocity = [b.define(f"Gv{i + 1}", _dot(row, robot.qd)) for i, row in enumerate(G)]
    by_q = directional_derivatives(b, force + acceleration + velocity, tangents,
                                   [f"_dq{j + 1}" for j in range(n)])
    by_qd = directional_derivatives(b, acceleration, velocities,
                                    [f"_dv{j + 1}" for j in range(n)])
    m = len(G)

    def matrix(columns, start, rows):
        return [columns[j][start + i] for i in range(rows) for j in range(n)]
    return [matrix(by_q, 0, n), matrix(by_q, n, m), matrix(by_qd, 0, m), matrix(by_q, n + m, m)]


def constrained_forward_dynamics_derivatives(robot: Robot, part, b: ProgramBuilder, gains,
                                             inverse_dynamics_derivatives):
    """[dqdd/dq, dqdd/dqd, dqdd/dtau, dlambda/dq, dlambda/dqd, dlambda/dtau]: the KKT system
    differentiated (Pinocchio's computeConstraintDynamicsDerivatives), each column a KKT solve
    through the factors the dynamics share (Multipliers.kkt) of

        M dqdd - G^T dlambda = dtau - d(ID - G^T lambda)/dx,
        G dqdd = -d(G qdd - gamma + K_d G qd + K_p phi)/dx,

    qdd and lambda held at the constrained dynamics' (``inverse_dynamics_derivatives`` gives
    (dtau/dq, dtau/dqd) at a qdd). d phi/dq is G: exact for points and couplings, at phi = 0
    for a weld's rotation, as G is d phi/dt there."""
    n = robot.dof
    kp, kd = gains
    qdd, lam = part("constrained_forward_dynamics")
    dtau_dq, dtau_dqd = inverse_dynamics_derivatives(qdd)
    dforce_dq, dacc_dq, dacc_dqd, dvel_dq = part("constraint_derivatives", {
        **dict(zip(robot.qdd, qdd)), **dict(zip(multiplier_symbols(len(lam)), lam))})
    G = _rows(part("constraint_jacobian")[0], n)
    solved = multipliers(robot, part, b, G)
    m = len(G)
    # the right-hand sides, row-major, (r1, r2) of each column: solved after the steps
    # (solve_columns), a column of each derivative side by side
    r1 = {"q": [-dtau_dq[k] + dforce_dq[k] for k in range(n * n)],
          "qd": [-dtau_dqd[k] for k in range(n * n)],
          "tau": [sympy.Integer(int(k // n == k % n)) for k in range(n * n)]}
    r2 = {"q": [-(dacc_dq[k] + kd * dvel_dq[k] + kp * G[k // n][k % n]) for k in range(m * n)],
          "qd": [-(dacc_dqd[k] + kd * G[k // n][k % n]) for k in range(m * n)],
          "tau": [sympy.Integer(0)] * (m * n)}
    rhs = {}
    for wrt in r1:
        rhs.update({f"dqdd_d{wrt}": r1[wrt], f"dlambda_d{wrt}": r2[wrt]})

    def kkt(kb, s, column, suffix):
        # the column's entries of each derivative: three independent solves the machine
        # overlaps
        out = []
        for k, wrt in enumerate(r1):
            start = k * (n + m)
            out += _stacked(s.kkt(kb, f"c{wrt}{suffix}", column[start:start + n],
                                  column[start + n:start + n + m]))
        return out
    out = solve_columns(b, rhs, n, solved, kkt, "kkt")
    return out[0::2] + out[1::2]


def _stacked(parts) -> list:
    return [v for part in parts for v in part]


def delassus(robot: Robot, part, b: ProgramBuilder) -> list[list]:
    """[D, D^-1]: G M^-1 G^T and its inverse (from its L D L^T)."""
    G = _rows(part("constraint_jacobian")[0], robot.dof)
    solved = multipliers(robot, part, b, G)
    return [list(solved.delassus), [to_sympy(e) for row in solved.delassus_factors.inverse(
        b, "Dinv") for e in row]]


def impulse_dynamics(robot: Robot, part, b: ProgramBuilder, restitution) -> list[list]:
    """[v+, Lambda]: the velocity after an impact on the constraints with restitution r, and
    the impulses: G v+ = -r G v, M (v+ - v) = G^T Lambda."""
    G = _rows(part("constraint_jacobian")[0], robot.dof)
    solved = multipliers(robot, part, b, G)
    rhs = [b.define(f"imp{i + 1}", -(1 + restitution) * _dot(row, robot.qd))
           for i, row in enumerate(G)]
    impulses = solved.delassus_factors.solve(b, rhs, "Lambda{}", "zi{}")
    return [solved.move(b, "qd_plus", robot.qd, impulses), impulses]


def closed_loop_inverse_dynamics(robot: Robot, part, b: ProgramBuilder) -> list[list]:
    """[tau_a, lambda]: the actuated joints' forces and the constraints' multipliers for a
    motion (q, qd, qdd) the constraints allow: the passive joints' forces vanish,
    G_p^T lambda = tau_tree,p."""
    tau = part("inverse_dynamics")[0]
    G = _rows(part("constraint_jacobian")[0], robot.dof)
    passive = [[row[k] for k in robot.passive] for row in G]
    lam = _passive_solve(b, passive, [tau[k] for k in robot.passive], "cl", transposed=True)
    out = [b.define(f"tau_a{j + 1}", tau[k] - sympy.Add(*(G[i][k] * lam[i]
                                                          for i in range(len(G)))))
           for j, k in enumerate(robot.actuated)]
    return [out, lam]


def close_loops(robot: Robot, part, b: ProgramBuilder) -> list[list]:
    """[q, residual, converged]: the passive joints moved by CLOSURE_STEPS Newton steps from
    q's own values (the actuated joints, and a floating base, held), the residual |phi| after
    them, and 1 where that is below CLOSED (0 where it is not; NaN where a step was not
    defined: a singular configuration)."""
    q = dict(zip(robot.q, robot.q))
    passive = [robot.links[i - 1] for i, columns in robot.velocity_columns.items()
               if columns[0] in robot.passive]
    for step in range(1, CLOSURE_STEPS + 1):
        phi = part("constraint_residual", q)[0]
        G = _rows(part("constraint_jacobian", q)[0], robot.dof)
        A = [[row[k] for k in robot.passive] for row in G]
        delta = dict(zip(robot.passive, _passive_solve(b, A, phi, f"n{step}_")))
        for link in passive:        # moved back along -delta: a quaternion turned by it
            moves = [-delta[k] for k in robot.velocity_columns[link.index]]
            now = [q[s] for s in link.configuration]
            moved = link.kind.integrate(b, f"j{link.index}_{step}_", now, moves)
            q.update({s: b.define(f"{s}_{step}", x) for s, x in zip(link.configuration, moved)})
    q = [q[s] for s in robot.q]
    phi = part("constraint_residual", dict(zip(robot.q, q)))[0]
    residual = b.define("residual", sympy.sqrt(sympy.Add(*(e**2 for e in phi))))
    converged = b.define("converged", (1 - sympy.sign(residual - CLOSED)) / 2)
    return [q, [residual], [converged]]


def _passive_solve(b: ProgramBuilder, A, rhs, name: str, transposed: bool = False) -> list:
    """x with A x = rhs, or A^T x = rhs (``transposed``), for A (m x p, its rows; rank m, the
    passive joints' columns of G): where A is square, its one solution; else the smallest x
    with A x = rhs, or the least-squares x of A^T x = rhs.

    A square A goes through N = A^T A with its columns sparsest first (_column_order): a
    column's pivot fills in only among the columns that share its rows, so that a parallel
    robot's legs, which share no rows but the platform's, each eliminate alone before the
    platform's few columns (N an arrow): the Delta's inverse dynamics took 2636
    multiplications through A A^T, whose every entry couples all of its loops. Either normal
    matrix's L D L^T has positive pivots wherever A has full rank."""
    m, p = len(A), len(A[0]) if A else 0
    if m == p:
        order = _column_order(A)
        columns = [[row[j] for row in A] for j in order]         # A's, sparsest first
        N = sympy.Matrix(p, p, lambda i, j: b.define(
            f"{name}N{min(i, j) + 1}_{max(i, j) + 1}", _dot(columns[i], columns[j])))
        factors = LDLT.factor(b, N, f"{name}N")
        if transposed:      # x = A y, (A^T A) y = rhs
            y = factors.solve(b, [rhs[j] for j in order], f"{name}y{{}}", f"{name}z{{}}")
            return [b.define(f"{name}x{i + 1}", _dot([row[j] for j in order], y))
                    for i, row in enumerate(A)]
        y = factors.solve(b, [_dot(column, rhs) for column in columns], f"{name}y{{}}",
                          f"{name}z{{}}")      # (A^T A) x = A^T rhs, in A's column order
        x = [None] * p
        for k, j in enumerate(order):
            x[j] = y[k]
        return x
    if transposed:
        rhs = [_dot(row, rhs) for row in A]
    AAt = sympy.Matrix(m, m, lambda i, j: b.define(f"{name}A{min(i, j) + 1}_{max(i, j) + 1}",
                                                   _dot(A[i], A[j])))
    w = LDLT.factor(b, AAt, f"{name}A").solve(b, rhs, f"{name}w{{}}", f"{name}z{{}}")
    if transposed:          # (A A^T) w = A rhs
        return w
    return [sympy.Add(*(A[i][j] * w[i] for i in range(m))) for j in range(p)]   # A^T w


def _column_order(A) -> list[int]:
    """A's columns by how many rows they have an entry in, fewest first (then in order)."""
    return sorted(range(len(A[0])), key=lambda j: (sum(row[j] != 0 for row in A), j))


def _dot(a, b) -> sympy.Expr:
    return sympy.Add(*(x * y for x, y in zip(a, b)))


def _rows(values, n: int) -> list[list]:
    """A flattened row-major matrix of n columns, as its rows."""
    return [list(values[i:i + n]) for i in range(0, len(values), n)]
