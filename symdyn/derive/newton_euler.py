"""Recursive Newton-Euler: joint forces from a motion, as named steps of a straight-line program.

The outward recursion carries velocities and accelerations from the base to the tip (Craig
(6.45)-(6.47), derived in seed 003), the inward one carries forces from the tip to the base and
projects them on the joint axes (Craig (6.49)-(6.51); seed 000 (23)-(25)). All vectors of link i
are in its joint frame {i}; ``R`` is ^{i-1}R_i and ``P`` is ^{i-1}P_i (see robot.model).

Forces are taken about the frame origin, with the link's ten inertial parameters (m, MS = m r_c,
J about the origin), as in Khalil's customized algorithm: no centre-of-mass acceleration is
needed and the equations stay linear in the parameters. With the matrix U = S(domega) + S(omega)^2,
shared by the next link's acceleration and this link's force:

    F_i = m_i dv_i + U_i MS_i
    N_i = J_i domega_i + omega_i x (J_i omega_i) + MS_i x dv_i    (the first two via U, see euler)
    f_i = F_i + R_{i+1} f_{i+1}
    n_i = N_i + R_{i+1} n_{i+1} + P_{i+1} x (R_{i+1} f_{i+1})

Gravity enters as the base's acceleration dv_0 = -g. ``rnea`` takes the joint velocities and
accelerations and the gravity as expressions, so the same recursion gives tau (symbols), g(q)
(zeros) and M(q) qd (see quantities.py); M itself comes cheaper from composite bodies
(composite.py).

A floating base (model.FreeFlyer) is body 0 of the recursion: its velocity [v; omega] and
acceleration [a; domega] (in {0}, the lists' first six entries) start the outward pass, with
dv_0 = a + omega x v - g_0 (its origin's classical acceleration, gravity g_0 = R^T g in its
axes), and the inward pass ends with its own force: the wrench [f_0; n_0] the base needs, the
first six entries of tau (the Newton-Euler equations of one rigid body, Kurfess (ed.), Robotics
and Automation Handbook, Ch. 4, for the base; Featherstone, Rigid Body Dynamics Algorithms,
Ch. 9).
"""
from __future__ import annotations

from dataclasses import dataclass

import symengine
import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import directional_derivatives
from ..robot.model import Robot
from ..spatial import skew
from . import composite
from .algebra import Matrix, define, placement, vector
from .kinematics import slot_tangents
from .record import Step


@dataclass(frozen=True)
class NewtonEuler:
    """The Newton-Euler route to every quantity (see quantities.py)."""

    robot: Robot
    method = "newton-euler"

    def inverse_dynamics(self, b, qd, qdd, gravity, steps=None,
                         progress=None) -> list[sympy.Expr]:
        return rnea(self.robot, b, qd, qdd, gravity, steps=steps, progress=progress)

    def mass_matrix(self, b: ProgramBuilder) -> sympy.Matrix:
        """By composite rigid bodies (composite.py)."""
        return composite.mass_matrix(self.robot, b)

    def coriolis_matrix(self, b: ProgramBuilder, qd) -> sympy.Matrix:
        """By composite rigid bodies (composite.py)."""
        return composite.coriolis_matrix(self.robot, b, qd)

    def inverse_dynamics_derivatives(self, b: ProgramBuilder, qd, qdd, gravity):
        """By composite rigid bodies (composite.py), whose formulas take motion subspaces
        constant in their joints' frames; with a joint whose subspace turns with it (a
        universal joint), the recursion differentiated forward along each velocity's tangent
        (kinematics.slot_tangents) and along the velocities."""
        robot = self.robot
        if all(link.kind.constant for link in robot.links):
            return composite.inverse_dynamics_derivatives(robot, b, qd, qdd, gravity)
        tau = rnea(robot, b, qd, qdd, gravity)
        n = len(tau)
        by_q = directional_derivatives(b, tau, slot_tangents(robot, b),
                                       [f"_dq{k + 1}" for k in range(n)])
        by_qd = directional_derivatives(b, tau, [{v: 1} for v in qd],
                                        [f"_dqd{k + 1}" for k in range(n)])
        return tuple(sympy.Matrix(n, n, lambda r, c: columns[c][r])
                     for columns in (by_q, by_qd))

    def tool_wrench_torques(self, b: ProgramBuilder, force, moment) -> list[sympy.Expr]:
        """The inward recursion alone, started by the tool's wrench: J^T w without a J."""
        robot = self.robot
        n = robot.slot_count
        R, p = Matrix(robot.tool[:3, :3]), Matrix(robot.tool[:3, 3])   # frame {n} of the file
        f_tip = vector(b, "f_tip", R * Matrix(force))
        n_tip = vector(b, "n_tip", R * Matrix(moment) + p.cross(f_tip))
        return rnea(robot, b, [0] * n, [0] * n, [0, 0, 0], tip=(f_tip, n_tip))


@dataclass(frozen=True)
class Motion:
    """What the outward pass knows of link i, in frame {i}."""

    omega: Matrix            # symengine's, as in composite.py
    domega: Matrix
    dv: Matrix
    U: Matrix                # S(domega) + S(omega)^2, so that a point's acceleration is dv + U r
    ww: Matrix               # omega omega^T: the six products omega_j omega_k
    R: Matrix                # ^{i-1}R_i with sin and cos of q_i as named symbols
    P: Matrix                # ^{i-1}P_i


def rnea(robot: Robot, b: ProgramBuilder, qd, qdd, gravity, *, tip=None, steps=None,
         progress=None) -> list[sympy.Expr]:
    """Joint forces for joint velocities ``qd``, accelerations ``qdd`` and ``gravity``.

    ``tip`` is the wrench (f_{n+1}, n_{n+1}) the tool's link exerts on its environment, in its
    frame about its origin (seed 001's end-effector load). Each intermediate becomes a named step
    of ``b``; ``steps``, when given, receives the record of each equation for the printouts.
    """
    progress = progress or (lambda message: None)
    steps = [] if steps is None else steps
    base, motions = forward_pass(robot, b, qd, qdd, gravity, steps, progress)
    return backward_pass(robot, b, base, motions, steps, progress, tip)


def base_motion(robot: Robot, b: ProgramBuilder, qd, qdd, gravity, steps) -> Motion:
    """The base's motion in {0}: at rest, gravity as its acceleration, for a fixed base; for a
    floating one, its velocity and acceleration, the first six entries of ``qd`` and ``qdd``."""
    if not robot.floating:
        zero = symengine.zeros(3, 1)
        return Motion(zero, zero, -Matrix(gravity), symengine.zeros(3, 3),
                      symengine.zeros(3, 3), None, None)
    v, omega = Matrix(qd[:3]), vector(b, "w0", qd[3:6])
    domega = vector(b, "dw0", qdd[3:6])
    dv = vector(b, "dv0", Matrix(qdd[:3]) + omega.cross(v) - Matrix(gravity))
    steps += [Step("omega", 0, sympy.ImmutableMatrix(omega)),
              Step("domega", 0, sympy.ImmutableMatrix(domega)),
              Step("dv", 0, sympy.ImmutableMatrix(dv))]
    return _moving(b, 0, omega, domega, dv, None, None)


def _moving(b: ProgramBuilder, i: int, omega, domega, dv, R, P) -> Motion:
    """Link i's Motion, with omega omega^T and U named."""
    products = {(r, c): define(b, f"ww{i}_{'xyz'[r]}{'xyz'[c]}", omega[r] * omega[c])
                for r in range(3) for c in range(r, 3)}
    ww = Matrix(3, 3, [products[min(r, c), max(r, c)] for r in range(3) for c in range(3)])
    # S(omega)^2 = omega omega^T - |omega|^2 I
    S, trace = skew(domega), ww[0, 0] + ww[1, 1] + ww[2, 2]
    U = Matrix(3, 3, [define(b, f"U{i}_{'xyz'[r]}{'xyz'[c]}",
                              S[r, c] + ww[r, c] - (trace if r == c else 0))
                      for r in range(3) for c in range(3)])
    return Motion(omega, domega, dv, U, ww, R, P)


def forward_pass(robot: Robot, b: ProgramBuilder, qd, qdd, gravity, steps,
                 progress) -> tuple[Motion, list[Motion]]:
    """Base to tip: omega_i, domega_i, dv_i of each link from its parent's (Craig
    (6.45)-(6.47)); the links come parents first. ``qd`` and ``qdd`` hold a floating base's
    six first (robot.base_velocities), then each link's (a spherical joint's three: its
    angular velocity w in its own frame, omega_i = R^T omega_{i-1} + w and domega_i =
    R^T domega_{i-1} + omega_i x w + dw/dt, Featherstone's S = [I; 0] with no bias of its
    own)."""
    base = base_motion(robot, b, qd, qdd, gravity, steps)
    motions = []
    for link in robot.links:
        i = link.index
        parent = motions[link.parent - 1] if link.parent else base
        progress(f"outward recursion, link {i}/{len(robot.links)}")
        R, P = placement(link, b)
        slots = robot.velocity_slots(i)
        qd_i, qdd_i = (Matrix([qd[k] for k in slots]), Matrix([qdd[k] for k in slots]))
        # The parent's origin acceleration carried to this link's origin, still in frame {i-1}.
        dv_parent = vector(b, f"dvp{i}", parent.U * P + parent.dv)
        # The joint's own motion S qd (linear, angular) and S qdd, in its frame.
        kind, q_i = link.kind, link.configuration
        v_J, w_J = kind.motion(qd_i, q_i)
        a_J, dw_J = (a + c for a, c in zip(kind.motion(qdd_i, q_i), kind.bias(q_i, qd_i)))
        omega = vector(b, f"w{i}", R.T * parent.omega + w_J)
        # R^T omega_{i-1} x w_J equals omega_i x w_J (w_J x w_J = 0), and omega_i is named;
        # a slide adds Craig's 2 omega_i x v_J (Eq. (6.34)), which is 2 R^T omega_{i-1} x v_J
        # where the joint turns too: the rate of v_J, seen from the parent, adds w_J x v_J
        # (zero for a one-axis joint and a screw, whose v_J and w_J are parallel).
        domega = vector(b, f"dw{i}", R.T * parent.domega + omega.cross(w_J) + dw_J)
        dv = vector(b, f"dv{i}", R.T * dv_parent + omega.cross(v_J) * 2 - w_J.cross(v_J)
                    + a_J)
        motion = _moving(b, i, omega, domega, dv, R, P)
        steps += [Step("omega", i, sympy.ImmutableMatrix(omega)),
                  Step("domega", i, sympy.ImmutableMatrix(domega)),
                  Step("dv", i, sympy.ImmutableMatrix(dv))]
        motions.append(motion)
    return base, motions


def base_wrench(robot: Robot, b: ProgramBuilder, qd, qdd, gravity) -> list[sympy.Expr]:
    """[f_0; n_0], in {0} about its origin: what the bodies' motion takes from the base (a
    floating base's own body included), the rate of the whole robot's momentum about {0}'s
    origin less gravity's pull; ``qd`` and ``qdd`` as rnea's."""
    base, motions = forward_pass(robot, b, qd, qdd, gravity, [], lambda message: None)
    return backward_pass(robot, b, base, motions, [], lambda message: None, wrench=True)[:6]


def backward_pass(robot: Robot, b: ProgramBuilder, base: Motion, motions: list[Motion], steps,
                  progress, tip=None, wrench: bool = False) -> list[sympy.Expr]:
    """Tip to base: F_i, N_i, then f_i, n_i with the forces of link i's children, and tau_i
    (Craig (6.49)-(6.51), about the origin). ``tip`` acts on the tool's link. A floating base
    is body 0: its wrench [f_0; n_0] comes first in the list; a fixed base's too (the reaction
    it gives the links) with ``wrench``."""
    shift = robot.base_velocities
    tau = [sympy.Integer(0)] * len(robot.link_qd)
    transmitted = {}          # link -> (f, n), the force it takes from its parent
    for link, motion in zip(reversed(robot.links), reversed(motions)):
        i = link.index
        progress(f"inward recursion, link {i}/{len(robot.links)}")
        f, n = _transmitted(robot, b, i, link.inertia, motion, motions, transmitted, steps,
                            tip)
        own = [b.define(f"tau{i}" + (f"_{s}" if s else ""), e) for s, e in zip(
            link.kind.suffixes or ("",), link.kind.project(f, n, link.configuration))]
        for k, value in zip(robot.velocity_slots(i), own):
            tau[k - shift] = value
        steps.append(Step("tau", i, sympy.ImmutableMatrix(own)))
    if not (robot.floating or wrench):
        return tau
    f, n = _transmitted(robot, b, 0, robot.base_inertia, base, motions, transmitted, steps,
                        tip)
    return [b.define(f"tau0_{axis}", e) for axis, e in zip(("fx", "fy", "fz", "nx", "ny", "nz"),
                                                            [*f, *n])] + tau


def _transmitted(robot: Robot, b: ProgramBuilder, i: int, body, motion: Motion, motions,
                 transmitted: dict, steps, tip) -> tuple[Matrix, Matrix]:
    """f_i and n_i: body i's own force and moment (F_i, N_i) and those its children take from
    it (popped from ``transmitted``), in frame {i}; kept in ``transmitted`` for its parent."""
    m, MS, J = (symengine.sympify(body.mass), Matrix(body.first_moment),
                Matrix(body.inertia_origin))
    F = vector(b, f"F{i}", motion.dv * m + motion.U * MS)
    N = vector(b, f"N{i}", euler(J, motion, b, i) + MS.cross(motion.dv), expand=False)
    f, n = F, N
    if tip is not None and i == robot.tool_link:     # the environment, as a child
        f, n = f + tip[0], n + tip[1]
    children = robot.children[i]
    for c in children:
        f_c, n_c = transmitted.pop(c)
        child = motions[c - 1]
        f_rot = vector(b, f"fr{i}" if len(children) == 1 else f"fr{i}_{c}", child.R * f_c)
        f, n = f + f_rot, n + child.R * n_c + child.P.cross(f_rot)
    f, n = vector(b, f"f{i}", f), vector(b, f"n{i}", n)
    transmitted[i] = f, n
    steps += [Step("F", i, sympy.ImmutableMatrix(F)), Step("N", i, sympy.ImmutableMatrix(N)),
              Step("f", i, sympy.ImmutableMatrix(f)), Step("n", i, sympy.ImmutableMatrix(n))]
    return f, n


def euler(J, motion: Motion, b: ProgramBuilder, i: int) -> Matrix:
    """J domega + omega x (J omega), linear in the six entries of J, with U as coefficients.

    Khalil's grouping: each entry of J multiplies one named quantity (an entry of domega or of U,
    a difference of two diagonal entries of U, or a product omega_j omega_k), so a full symbolic J
    costs 18 multiplications, and each zero entry of a numeric J saves its share.
    """
    (XX, XY, XZ), (_, YY, YZ), (_, _, ZZ) = J.tolist()
    U, dw, ww = motion.U, motion.domega, motion.ww
    V = [define(b, f"V{i}_{axis}", U[j, j] - U[k, k])
         for axis, j, k in (("x", 1, 2), ("y", 2, 0), ("z", 0, 1))]
    return Matrix([
        XX * dw[0] - XY * U[2, 0] + XZ * U[1, 0] + YZ * V[0] + (ZZ - YY) * ww[1, 2],
        XY * U[2, 1] + YY * dw[1] - YZ * U[0, 1] + XZ * V[1] + (XX - ZZ) * ww[0, 2],
        -XZ * U[1, 2] + YZ * U[0, 2] + ZZ * dw[2] + XY * V[2] + (YY - XX) * ww[0, 1],
    ])
