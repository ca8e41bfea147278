"""The Euler-Lagrange route (seed 002): energies, the inertia matrix, Christoffel symbols.

With v_i and omega_i the velocity of link i's frame origin and its angular velocity, both in the
base frame, and J_v^i, J_w^i their Jacobians (column j: z_j x (p_i - p_j) and z_j for a revolute
joint, z_j and 0 for a prismatic one), the kinetic energy of link i about its frame origin is

    K_i = 1/2 m v.v + v.(omega x h) + 1/2 omega^T I omega,   h = ^0R_i MS_i,  I = ^0R_i J_i ^0R_i^T

so that K = 1/2 qd^T M(q) qd with

    d_kj = sum_i  m_i v_k.v_j - v_k.(h_i x w_j) + w_k.(h_i x v_j) + w_k^T I_i w_j

(v_k, w_k the k-th columns of J_v^i, J_w^i) -- the handbook's sum of m J_v^T J_v + J_w^T R I R^T
J_w, taken about the frame origin so that first moments need no division by the mass. The
Christoffel symbols c_ijk = (dd_kj/dq_i + dd_ki/dq_j - dd_ij/dq_k) / 2 give C_kj = sum_i c_ijk
qd_i, and the potential energy V = -sum_i g.(m_i p_i + h_i) gives g_k = dV/dq_k. The derivatives
are forward-mode derivatives of the program (program/derivative.py), not of closed forms.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import jacobian
from ..robot.model import Robot
from .energy import potential_energy
from .kinematics import forward_kinematics, joint_motions
from .record import Step


@dataclass(frozen=True)
class Lagrange:
    """The Euler-Lagrange route to every quantity (see quantities.py)."""

    robot: Robot
    method = "lagrange"

    def inverse_dynamics(self, b, qd, qdd, gravity, steps=None, progress=None) -> list:
        """M(q) qdd + C(q, qd) qd + g(q), each part only where it is not zero."""
        progress = progress or (lambda message: None)
        n = len(self.robot.link_qd)
        steps = [] if steps is None else steps
        tau = sympy.zeros(n, 1)
        moving, accelerating = any(v != 0 for v in qd), any(a != 0 for a in qdd)
        if moving or accelerating:
            progress("inertia matrix from the link Jacobians")
            M = self.mass_matrix(b, steps)      # once, for both terms
            tau += M * sympy.Matrix(qdd)
        if moving:
            progress("Christoffel symbols")
            tau += self._christoffel(b, M, qd, steps) * sympy.Matrix(qd)
        if any(g != 0 for g in gravity):
            progress("potential energy and gravity torques")
            tau += sympy.Matrix(self.gravity_torques(b, gravity, steps))
        return [b.define(f"tau{k + 1}", tau[k]) for k in range(n)]

    def mass_matrix(self, b: ProgramBuilder, steps=None) -> sympy.Matrix:
        robot, n = self.robot, len(self.robot.link_qd)
        steps = [] if steps is None else steps
        frames = forward_kinematics(robot, b)
        M = sympy.zeros(n, n)
        for link, (R, p) in zip(robot.links, frames):
            i = link.index
            Jv, Jw = _jacobians(robot, frames, i, b)
            h = b.vector(f"h{i}", R * link.inertia.first_moment)
            inertia = R * link.inertia.inertia_origin * R.T
            I0 = sympy.Matrix(3, 3, lambda r, c: b.define(
                f"I{i}_{'xyz'[min(r, c)]}{'xyz'[max(r, c)]}", inertia[min(r, c), max(r, c)]))
            m = link.inertia.mass
            end = robot.velocity_slots(i).stop      # the velocities that move link i end here
            for k in range(end):
                for j in range(k, end):
                    v_k, v_j, w_k, w_j = Jv[:, k], Jv[:, j], Jw[:, k], Jw[:, j]
                    M[k, j] += (m * v_k.dot(v_j) - v_k.dot(h.cross(w_j)) + w_k.dot(h.cross(v_j))
                                + (w_k.T * I0 * w_j)[0])
            steps += [Step("Jv", i, sympy.ImmutableMatrix(Jv)),
                      Step("Jw", i, sympy.ImmutableMatrix(Jw))]
        for k in range(n):
            for j in range(k, n):
                M[k, j] = M[j, k] = b.define(f"d{k + 1}_{j + 1}", M[k, j])
        steps.append(Step("d", 0, sympy.ImmutableMatrix(M)))
        return M

    def coriolis_matrix(self, b: ProgramBuilder, qd, steps=None) -> sympy.Matrix:
        return self._christoffel(b, self.mass_matrix(b), qd, [] if steps is None else steps)

    def _christoffel(self, b: ProgramBuilder, M, qd, steps) -> sympy.Matrix:
        """C_kj = sum_i c_ijk qd_i, the c_ijk from the derivatives of M's program."""
        robot, n = self.robot, len(self.robot.link_qd)
        dM_dq = jacobian(b, list(M), robot.link_q, "q")         # column i: M's entries by q_i
        dM = [dM_dq[:, i].reshape(n, n) for i in range(n)]
        C = sympy.zeros(n, n)
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    c = (dM[i][k, j] + dM[j][k, i] - dM[k][i, j]) / 2
                    if c != 0:
                        symbol = b.define(f"c{i + 1}{j + 1}{k + 1}", c)
                        steps.append(Step(f"c{i + 1}{j + 1}{k + 1}", 0,
                                          sympy.ImmutableMatrix([symbol])))
                        C[k, j] += symbol * qd[i]
        return C

    def inverse_dynamics_derivatives(self, b: ProgramBuilder, qd, qdd, gravity):
        """Forward-mode derivatives of this route's inverse dynamics program."""
        tau = self.inverse_dynamics(b, qd, qdd, gravity)
        robot = self.robot
        return jacobian(b, tau, robot.link_q, "dq"), jacobian(b, tau, robot.link_qd, "dqd")

    def tool_wrench_torques(self, b: ProgramBuilder, force, moment) -> list:
        """J^T w, with J the Jacobian of the tool frame (the file's last frame)."""
        robot = self.robot
        if not robot.tool_link:         # a tool on the fixed base moves with no joint
            return [sympy.Integer(0)] * len(robot.link_qd)
        frames = forward_kinematics(robot, b)
        R_n, p_n = frames[robot.tool_link - 1]
        R_tool, p_tool = robot.tool[:3, :3], robot.tool[:3, 3]
        p = b.vector("p_tool", p_n + R_n * p_tool)
        f0 = b.vector("f0", R_n * R_tool * sympy.Matrix(force))
        n0 = b.vector("n0", R_n * R_tool * sympy.Matrix(moment))
        torques, moving = [], set(robot.support(robot.tool_link))
        for link, (R, p_j) in zip(robot.links, frames):
            torques += [v.dot(f0) + w.dot(n0) if link.index in moving else sympy.Integer(0)
                        for v, w in joint_motions(link.kind, R, p - p_j,
                                                  link.configuration)]
        return torques

    def gravity_torques(self, b: ProgramBuilder, gravity, steps=None) -> list:
        robot = self.robot
        steps = [] if steps is None else steps
        V = potential_energy(robot, b, gravity)
        torques = list(jacobian(b, [V], robot.link_q, "q"))
        steps += [Step("V", 0, sympy.ImmutableMatrix([V])),
                  Step("g", 0, sympy.ImmutableMatrix(torques))]
        return torques


def _jacobians(robot: Robot, frames, i: int, b: ProgramBuilder):
    """J_v and J_w of link i's frame origin, 3 x n (a column per velocity of the links),
    zero but for the joints that move it."""
    n = len(robot.link_qd)
    p_i = frames[i - 1][1]
    Jv, Jw = sympy.zeros(3, n), sympy.zeros(3, n)
    for j in robot.support(i):
        link, (R, p) = robot.links[j - 1], frames[j - 1]
        motions = joint_motions(link.kind, R, p_i - p, link.configuration)
        for column, (v, w) in zip(robot.velocity_slots(j), motions):
            Jv[:, column] = b.vector(f"Jv{i}_{column + 1}", v) if link.kind.turns() else v
            Jw[:, column] = w
    return Jv, Jw

