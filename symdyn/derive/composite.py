"""The mass and Coriolis matrices and the derivatives of inverse dynamics by composite rigid
bodies, in the joint frames.

Link i and the links outward of it (its subtree), welded together, form the composite body i.
Its ten inertial parameters in frame {i}, about the origin O_i, gather inward from the tips
(Khalil and Dombre, 9.4): with the placement ^{p(i)}T_i = (R, P) of robot.model (p(i) the
parent) and the child's first moment turned into {p(i)}, r = R MS,

    m'  = m
    MS' = r + m P
    J'  = R J R^T - m S(P)^2 - S(P) S(r) - S(r) S(P)

are link i's parameters seen from its parent's frame, where the parent's composite body adds
them to its own link's (the algebra is spatial.py's; here each step is named). Where R is a
turn about the joint's axis after a permutation of axes (most DH twists), a chain's R J R^T is
written in the double angle of the turn (_turned).

M (Walker and Orin's method 3; Featherstone's CRBA). A unit acceleration of joint j, everything
else at rest and no gravity, needs the force that moves the composite body j alone: about O_j,
(n, f) = (J^c z, z x MS^c) for a revolute joint, (MS^c x z, m^c z) for a prismatic one. M_jj is
its component along the joint; carried inward as Newton-Euler's inward recursion carries forces,
it gives M_ij for every i < j, and nothing outward of joint j is recomputed for each column.

With spatial motions (omega, u) and forces (n, f) about each frame's origin, link k's velocity
v_k, acceleration a_k (a_0 = (0, -g): gravity as the base's acceleration), inertia I_k and
momentum I_k v_k, and after Echeandia and Wensing ("Numerical methods to compute the Coriolis
matrix and Christoffel symbols for rigid-body systems", JCND 2021)

    B_k  = (v_k x* I_k - I_k v_k x + (I_k v_k) xbar*) / 2,

summed over the links outward of i into B^c_i as I^c_i is. v x* I - I v x is the rate of change
of I as the link moves, itself an inertia with no mass (D): first moment m u + omega x MS and
moment S(omega) J - J S(omega) - S(u) S(MS) - S(MS) S(u); (I v) xbar* maps a motion s to
s x* (I v). So B^c is 15 numbers (D^c and the momentum h^c) that gather inward like inertias.

Derivatives (Carpentier and Mansard, RSS 2018, here in the joint frames). Moving q_j turns links
j..n rigidly about the joint's screw S_j; moving qd_j adds S_j to their velocities. With the
parent's v_{j-1} and a_{j-1}, z_j = S_j x v_j and y_j = S_j x a_{j-1} - z_j x v_{j-1}, each
outward link's force f_k = I_k a_k + v_k x* I_k v_k changes by

    df_k/dq_j  = S_j x* f_k - I_k y_j - 2 B_k z_j,
    df_k/dqd_j = 2 B_k S_j - 2 I_k z_j.

Summed over the links outward of both joints, with F_j the force joint j transmits:

    dtau_i/dq_j  =  S_i . (S_j x* F_j - I^c_j y_j - 2 B^c_j z_j)    for i <= j,
                 = -S_i . (I^c_i y_j + 2 B^c_i z_j)                  for i > j (S_i turns too),
    dtau_i/dqd_j =  S_i . (2 B^c_k S_j - 2 I^c_k z_j),  k = max(i, j).

dtau/dqd is twice the Christoffel-consistent C, which Pinocchio's computeCoriolisMatrix gives.
C's upper triangle is columns carried inward like M's; the derivatives' upper triangles pair the
two forces of joint j with S_i carried outward into frame {j}, one motion for both. Each lower
triangle pairs the rows S_i^T I^c_i and S_i^T 2 B^c_i, carried inward as forces (D^c is
symmetric, and S . (s x* h) = -(S x* h) . s), with y_j, z_j and S_j. Nothing outward of a joint
is recomputed for each of its derivatives.

A joint of several velocities (spherical, planar, translation, a free flyer inside the tree) has
a unit motion S_i per velocity, constant in its frame (Pinocchio's joint models): M, the
momentum map and C take one column (and row) per unit motion, z = S x v_i with v_i the link's
own velocity, as Pinocchio's dJ = v_i x S. In the derivatives its columns are Pinocchio's
too (computeRNEADerivatives): along q, the links turn about S_k with the joint's own velocity
kept in its frame, so that z and y take the parent's velocity, z_p = S x v_{p(i)} (the same
as z for one axis, S x S = 0); along qd, 2 z is z + z_p (dAdv = dJ + dVdq); and between two
axes of one joint the second turns with the first, as an outward joint's does, so that S_k x*
F_j drops out of that block. A joint whose motion subspace turns with its configuration (a
universal joint) gets C from its columns' rates (dJ = v_i x S + dS/dt, _zetas) and its
derivatives from the recursion differentiated forward (newton_euler.NewtonEuler).

A floating base (model.FreeFlyer) is body 0, and its six velocities one joint whose unit motions
s_k are constant in {0} (Pinocchio's LOCAL free-flyer); its composite body is the whole robot,
I^c_0, D^c_0, h^c_0 in {0}. Its rows are those of a joint inward of every other: each column's
force carried into {0}, all six of it ([f; n]). Its columns differ from a one-axis joint's:

- along q, Pinocchio's tangent space: q moved by exp(d s_k) moves the whole robot rigidly, and
  every velocity, acceleration and force in the bodies' own frames stays; only gravity, fixed
  in the world, turns in {0}: g_0 changes by -d e_k x g_0. So a q-column is M's first three
  columns times that turn, dtau/dq_k = M[:, :3] (e_k x g_0) for a turn, zero for a shift.
- along qd: v_k adds s_k to every body's velocity, but the base's own velocity product
  v_0 x v_0 stays zero, so that where a one-axis joint has 2 z_j = 2 S_j x v_{p(j)} the base has
  s_k x v_0: dtau/dqd_k = S_i . (2 B^c_i s_k - I^c_i (s_k x v_0)).
- C is not half of dtau/dqd there (its velocity is not a coordinate's rate): its base columns
  are J^T (I^c dJ + B^c J) with dJ = v_0 x s_k, the base's J carried along by its own motion, as
  Pinocchio's computeCoriolisMatrix has them: C_k = S_i . (B^c_i s_k - I^c_i (s_k x v_0)), and
  dM/dt - 2C stays skew along the configuration's rate.
"""
from __future__ import annotations

from dataclasses import dataclass

import symengine
import sympy

from ..program.builder import ProgramBuilder
from ..program.symengine_form import as_engine, to_sympy
from ..robot.model import Robot
from ..spatial import Force, Inertia, Motion, Placement, cross, skew
from .algebra import Matrix, define, placement, vector

AXES = "xyz"


def _named(b: ProgramBuilder, name: str, x):
    """A motion or force with its six entries as named steps (``{name}w``, ``{name}u``)."""
    return type(x)(vector(b, f"{name}w", x.angular), vector(b, f"{name}u", x.linear))


def _named_inertia(b: ProgramBuilder, name: str, body: Inertia) -> Inertia:
    return Inertia(define(b, f"m{name}", body.mass), vector(b, f"MS{name}", body.first_moment),
                   _symmetric(b, f"J{name}", body.inertia_origin))


def _symmetric(b: ProgramBuilder, name: str, J) -> Matrix:
    entries = {(row, col): define(b, f"{name}_{AXES[row]}{AXES[col]}", J[row, col])
               for row in range(3) for col in range(row, 3)}
    return Matrix(3, 3, [entries[min(row, col), max(row, col)]
                         for row in range(3) for col in range(3)])


def _to_parent(b: ProgramBuilder, name: str, X: Placement, body: Inertia,
               link=None) -> Inertia:
    """``X.act_inertia`` with R MS and J R^T named (``{name}r``, ``{name}JR_xy``), so that no
    entry of R J R^T expands into many terms. Where ``link``'s rotation is a turn about its
    joint's axis after one that only permutes axes (_about_axis), a chain's body is turned about
    the axis first (_turned), then placed by the permutation, which costs nothing. A tree's is
    not: with fewer multiplications, ANYmal's ID derivatives took 11-17% longer (Solo-12's and
    the Allegro hand's within 2%), as trees' long functions move with their values' lifetimes
    (see emit/context.py's SCHEDULED_STEPS)."""
    about_axis = None if link is None else _about_axis(b, link, X)
    if about_axis is not None:
        fixed, S, C = about_axis
        X, body = Placement(fixed, X.translation), _turned(b, name, body, S, C, link.index)

    def step(tag, value):
        if tag == "h":
            return vector(b, f"{name}r", value)
        return Matrix(3, 3, [define(b, f"{name}JR_{AXES[row]}{AXES[col]}", value[row, col])
                             for row in range(3) for col in range(3)])
    return X.act_inertia(body, step)


def _chain_link(robot: Robot, i: int):
    """Link i where _to_parent may turn bodies about its axis (a chain's), else None."""
    return None if robot.branched else robot.links[i - 1]


def _about_axis(b: ProgramBuilder, link, X: Placement):
    """(A, S, C) where a revolute joint's rotation ^{p(i)}R_i is A Rz(phi) with A a signed
    permutation (a twist of 0, +-pi/2 or pi, as most arms' tables have), S and C the named sin
    and cos of its angle phi; else None."""
    trig = {f.func: as_engine(step) for f, step in link.kind.angle_steps(b, link).items()}
    if set(trig) != {sympy.sin, sympy.cos}:
        return None
    S, C = trig[sympy.sin], trig[sympy.cos]
    fixed = X.rotation.subs({S: 0, C: 1})      # R at phi = 0: A, a rotation
    if not all(fixed[r, c] in (0, 1, -1) for r in range(3) for c in range(3)):
        return None
    turn = Matrix([[C, -S, 0], [S, C, 0], [0, 0, 1]])
    if any(x.expand() != 0 for x in fixed * turn - X.rotation):
        return None
    return fixed, S, C


def _turned(b: ProgramBuilder, name: str, body: Inertia, S, C, i: int) -> Inertia:
    """``body`` turned about its frame's z axis by phi, Rz h and Rz J Rz^T, J's entries in the
    double angle (sin 2phi = 2 S C, cos 2phi = 1 - 2 S^2, named once for joint i):

        xx' = xx - S^2 d - sin 2phi xy,   yy' = yy + S^2 d + sin 2phi xy,   d = xx - yy,
        xy' = S C d + cos 2phi xy,        xz' = C xz - S yz,   yz' = S xz + C yz,   zz' = zz.

    Two multiply-adds an entry past its inputs, where J Rz^T then Rz (J Rz^T) take two rounds
    of products: the Panda's M 222 -> 206 multiplications, its C 915 -> 876; the PUMA 560's
    centroidal map 238 -> 207 and 59 -> 41 ns; the rest within 2%."""
    ss, sc = define(b, f"SS{i}", S * S), define(b, f"SC{i}", S * C)
    sin2, cos2 = define(b, f"S2x{i}", 2 * sc), define(b, f"C2x{i}", 1 - 2 * ss)
    J, h = body.inertia_origin, body.first_moment
    xx, yy, zz, xy, xz, yz = J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[0, 2], J[1, 2]
    d = define(b, f"{name}Kd", xx - yy)
    xy_ = define(b, f"{name}K_xy", sc * d + cos2 * xy)
    xz_ = define(b, f"{name}K_xz", C * xz - S * yz)
    yz_ = define(b, f"{name}K_yz", S * xz + C * yz)
    turned = Matrix([[define(b, f"{name}K_xx", xx - ss * d - sin2 * xy), xy_, xz_],
                     [xy_, define(b, f"{name}K_yy", yy + ss * d + sin2 * xy), yz_],
                     [xz_, yz_, zz]])
    return Inertia(body.mass, Matrix([C * h[0] - S * h[1], S * h[0] + C * h[1], h[2]]), turned)


def _force_to_parent(b: ProgramBuilder, name: str, X: Placement, force: Force) -> Force:
    """A force about O_i in {i}, about O_{p(i)} in {p(i)}: ``X.act_force``, named."""
    moved = X.act_force(force, lambda tag, f: vector(b, f"f{name}", f))
    return Force(vector(b, f"n{name}", moved.angular), moved.linear)


def _carried(robot: Robot, b: ProgramBuilder, name: str, placements, j: int, force: Force,
             to_base: bool = False):
    """(i, force) for i = j and each link inward of it, the ``force`` of frame {j} in frame
    {i}; then (0, force in {0}) too with ``to_base``."""
    i = j
    while i:
        yield i, force
        parent = robot.links[i - 1].parent
        if parent or to_base:
            force = _force_to_parent(b, f"{name}{parent}_{j}", placements[i], force)
        i = parent
    if to_base:
        yield 0, force


def _entries(robot: Robot, b: ProgramBuilder, name: str, placements, j: int, force: Force):
    """(r, value) for each row r of the derivations' lists (Robot.slots: a floating base's six
    first) that the force F of frame {j} reaches carried inward: S_i . F for link j and each
    link inward of it, and a floating base's [f; n] of F in {0}."""
    for i, f in _carried(robot, b, name, placements, j, force, robot.floating):
        if i:
            yield from zip(robot.velocity_slots(i), _along(robot.links[i - 1], f))
        else:
            yield from enumerate([*f.linear, *f.angular])


def _along(link, force: Force) -> list:
    """S_i^T F: a force's components along the joint's unit motions (_axes)."""
    return [force.dot(S) for S in _axes(link)]


def _composites(robot: Robot, b: ProgramBuilder, placements, name: str, bodies) -> list[Inertia]:
    """The sums over each link's subtree of ``bodies``, each in the link's frame {i}."""
    composites = [None] * len(robot.links)
    for link in reversed(robot.links):
        i = link.index
        body = bodies[i - 1]
        for c in robot.children[i]:
            body = body + _to_parent(b, f"{name}{c}", placements[c], composites[c - 1],
                                      _chain_link(robot, c))
        composites[i - 1] = _named_inertia(b, f"{name}{i}", body)
    return composites


def _composite_forces(robot: Robot, b: ProgramBuilder, placements, name: str, forces) -> list:
    """The sums over each link's subtree of ``forces``, each about O_i in {i}."""
    composites = [None] * len(robot.links)
    for link in reversed(robot.links):
        i = link.index
        force = forces[i - 1]
        for c in robot.children[i]:
            force = force + _force_to_parent(b, f"{name}{c}", placements[c], composites[c - 1])
        composites[i - 1] = Force(vector(b, f"{name}n{i}", force.angular),
                                  vector(b, f"{name}f{i}", force.linear))
    return composites


def _placements(robot: Robot, b: ProgramBuilder) -> list:
    """^{p(i)}X_i of each link, 1-based as the links."""
    return [None] + [Placement(*placement(link, b)) for link in robot.links]


def _inertias(robot: Robot) -> list[Inertia]:
    return [_inertia(link.inertia) for link in robot.links]


def _inertia(body) -> Inertia:
    """A body of the model as symengine's."""
    return Inertia(symengine.sympify(body.mass), Matrix(body.first_moment),
                   Matrix(body.inertia_origin))


def _column_name(name: str, link, k: int) -> str:
    """The steps' name of the column of a joint's k-th velocity: a spherical joint's by its
    axis (its kind's suffixes)."""
    suffixes = link.kind.suffixes
    return f"{name}{suffixes[k]}" if suffixes else name


def _axes(link) -> list[Motion]:
    """S_i's columns, its kind's motion subspace (robot/joints.py): a one-axis joint's unit
    motion, a spherical joint's turns about the three axes of its frame."""
    return [Motion(symengine.Matrix(list(angular)), symengine.Matrix(list(linear)))
            for linear, angular in link.kind.columns(link.configuration)]


def _zetas(robot: Robot, link, v: Motion, qd) -> list[Motion]:
    """z = S x v - dS/dt (its rate in its own frame, JointKind.column_rates) of each column of
    S_i: minus the rate of the column carried along as the link moves, Pinocchio's dJ."""
    columns = _axes(link)
    if link.kind.constant:
        return [S.cross(v) for S in columns]
    rates = link.kind.column_rates(link.configuration,
                                   [qd[k] for k in robot.velocity_slots(link.index)])
    return [S.cross(v) - Motion(symengine.Matrix(list(w)), symengine.Matrix(list(u)))
            for S, (u, w) in zip(columns, rates)]


def _scaled(x, c):
    return x * symengine.sympify(c)


def _columns(robot: Robot, b: ProgramBuilder, placements, composite) -> sympy.Matrix:
    """M from the composite inertias: column j is the force moving composite body j alone, its
    entries those of the links that support j (zero elsewhere: a tree's M is sparse). A
    floating base's rows come first: the force carried into {0}, [f; n]."""
    M = sympy.zeros(robot.slot_count, robot.slot_count)
    for link, body in zip(robot.links, composite):
        for k, (j, S) in enumerate(zip(robot.velocity_slots(link.index), _axes(link))):
            for r, value in _entries(robot, b, _column_name("M", link, k), placements,
                                     link.index, body.times(S)):
                M[r, j] = M[j, r] = value
    return M


def _whole(robot: Robot, b: ProgramBuilder, placements, composite) -> Inertia:
    """The whole robot's inertia about {0}'s origin in its axes: a floating base's body and
    each child's composite body carried into {0} (the reaction's, at a fixed base)."""
    return _at_base(robot, b, placements, "c", _inertia(robot.base_inertia), composite)


def _at_base(robot: Robot, b: ProgramBuilder, placements, name: str, own: Inertia,
             composites) -> Inertia:
    """The base's composite body in {0}: its ``own`` and each child's composite carried in."""
    for c in robot.children[0]:
        own = own + _to_parent(b, f"{name}{c}", placements[c], composites[c - 1],
                               _chain_link(robot, c))
    return _named_inertia(b, f"{name}0", own)


def _force_at_base(robot: Robot, b: ProgramBuilder, placements, name: str, own: Force,
                   composites) -> Force:
    """``_at_base`` for forces: the base's ``own`` and each child's carried into {0}."""
    for c in robot.children[0]:
        own = own + _force_to_parent(b, f"{name}{c}", placements[c], composites[c - 1])
    return _named(b, f"{name}0", own)


def _units() -> list[Motion]:
    """A floating base's six unit velocities in {0}, in qd's order: [v; omega]."""
    zero, out = symengine.zeros(3, 1), []
    for k in range(6):
        unit = symengine.zeros(3, 1)
        unit[k % 3] = 1
        out.append(Motion(zero, unit) if k < 3 else Motion(unit, zero))
    return out


def _column(force: Force) -> list:
    """A force in {0} as a floating base's six entries, [f; n]."""
    return [*force.linear, *force.angular]


def _base_block(whole: Inertia) -> sympy.Matrix:
    """A floating base's 6 x 6 block of M: the whole robot's inertia in {0}, rows and columns
    [linear; angular]."""
    block = sympy.zeros(6, 6)
    for k, unit in enumerate(_units()):
        block[:, k] = _column(whole.times(unit))
    return block


def momentum_map(robot: Robot, b: ProgramBuilder) -> tuple[list[Force], Inertia]:
    """The robot's momentum per unit velocity of each joint, about {0}'s origin in its axes:
    composite body j moving along its joint, carried into {0} as M's column is carried inward.
    And the whole robot's inertia in {0}: a floating base's six columns (its M's first rows),
    and the centre of mass the centroidal map moves to."""
    placements = _placements(robot, b)
    composite = _composites(robot, b, placements, "c", _inertias(robot))
    columns = []
    for link, body in zip(robot.links, composite):
        for k, S in enumerate(_axes(link)):
            *_, (_, force) = _carried(robot, b, _column_name("M", link, k), placements,
                                      link.index, body.times(S), to_base=True)
            columns.append(force)
    return columns, _whole(robot, b, placements, composite)


def mass_center(robot: Robot, b: ProgramBuilder) -> tuple:
    """The whole robot's mass and first moment m c about {0}'s origin in its axes, of the
    composite bodies (their rotational inertia, unread, is pruned from the program)."""
    placements = _placements(robot, b)
    whole = _whole(robot, b, placements,
                   _composites(robot, b, placements, "c", _inertias(robot)))
    return whole.mass, whole.first_moment


def mass_matrix(robot: Robot, b: ProgramBuilder) -> sympy.Matrix:
    """M(q) without the rotors' inertia (quantities.py adds it)."""
    placements = _placements(robot, b)
    composite = _composites(robot, b, placements, "c", _inertias(robot))
    M = _columns(robot, b, placements, composite)
    if robot.floating:
        M[:6, :6] = _base_block(_whole(robot, b, placements, composite))
    return M


def coriolis_matrix(robot: Robot, b: ProgramBuilder, qd) -> sympy.Matrix:
    """C(q, qd), as Pinocchio's computeCoriolisMatrix: half of d(C qd)/dqd (Christoffel's) on a
    fixed base; a floating base's columns as the module docstring says."""
    moving = _Moving.of(robot, b, qd)
    C = sympy.zeros(robot.slot_count, robot.slot_count)
    half = symengine.Rational(1, 2)

    def put(r, c, value):
        C[r, c] = b.define(f"C{r + 1}_{c + 1}", value)

    for link in robot.links:
        j = link.index
        for k, c in enumerate(robot.velocity_slots(j)):
            column = _scaled(moving.by_velocity(j, k), half)
            for r, value in _entries(robot, b, _column_name("C", link, k), moving.placements, j,
                                     column):
                put(r, c, value)
    for (i, a, j), row in _rows(robot, b, moving).items():
        if j:
            for k, c in enumerate(robot.velocity_slots(j)):
                put(robot.offsets[i - 1] + a, c, moving.by_velocity_of_row(j, *row, k) * half)
        else:
            for k, s in enumerate(_units()):
                put(robot.offsets[i - 1] + a, k,
                    moving.by_base_velocity_of_row(s, *row, coriolis=True) * half)
    if robot.floating:
        for k, s in enumerate(_units()):
            for r, value in enumerate(_column(moving.by_base_velocity(s, coriolis=True))):
                put(r, k, value * half)
    return C


def inverse_dynamics_derivatives(robot: Robot, b: ProgramBuilder, qd, qdd, gravity):
    """dtau/dq and dtau/dqd of the rigid bodies (no rotors, no friction), by the module
    docstring's formulas; ``qd`` and ``qdd`` are Robot.slots lists."""
    size = robot.slot_count
    moving = _Moving.of(robot, b, qd)
    rows = _rows(robot, b, moving)
    accelerations = _accelerations(robot, b, moving, qd, qdd, gravity)
    forces = _composite_forces(robot, b, moving.placements, "F", [
        body.times(a) + v.cross_force(body.times(v))
        for body, v, (a, _) in zip(moving.inertias, moving.velocities, accelerations)])
    dq, dqd = sympy.zeros(size, size), sympy.zeros(size, size)
    memo: dict = {}     # the entries are symengine's sums: to_sympy, not sympy's sympify

    def entry(value):
        return to_sympy(value, memo)

    y, by_q, by_qd, within = {}, {}, {}, {}
    for link, Ic, F, (_, a_parent) in zip(robot.links, moving.composite, forces, accelerations):
        j = link.index
        v_parent = moving.velocities[j - 1] - moving.own[j - 1]
        y[j], by_q[j], by_qd[j] = [], [], []
        for k, (S, z) in enumerate(zip(_axes(link), moving.z_parent[j - 1])):
            column = _column_name(str(j), link, k)
            y[j].append(_named(b, f"y{column}", S.cross(a_parent) - z.cross(v_parent)))
            # What the links outward of joint j add to the force it transmits, per unit of
            # q_j (they turn about S_j) and of qd_j (they speed up along it); its own other
            # axes turn with them, which cancels S_j x* F_j (as for a joint outward of j)
            turned = Ic.times(y[j][k]) + moving.twice_b(j, z)
            by_q[j].append(_named(b, f"Dq{column}", S.cross_force(F) - turned))
            within[j, k] = turned
            by_qd[j].append(_named(b, f"Dqd{column}", moving.by_velocity(j, k, True)))
    for link in robot.links:
        # S_i carried outward pairs with both forces of each joint j outward of i: one motion
        # carried instead of two forces carried inward.
        i = link.index
        for a, S in enumerate(_axes(link)):
            row, carried = robot.velocity_slots(i)[a], {i: S}
            for j in robot.subtree(i):
                if j > i:
                    parent = robot.links[j - 1].parent
                    carried[j] = _named(b, f"S{_column_name(str(i), link, a)}_{j}",
                                        moving.placements[j].act_inverse(carried[parent]))
                for k, column in enumerate(robot.velocity_slots(j)):
                    dq[row, column] = entry(by_q[j][k].dot(carried[j]) if j > i or k == a
                                            else -within[j, k].dot(carried[j]))
                    dqd[row, column] = entry(by_qd[j][k].dot(carried[j]))
    for (i, a, j), (m, r) in rows.items():
        if j:   # joint i outward of joint j: S_i turns with the links, and its turn cancels
            # S_j x* F_i
            row = robot.velocity_slots(i)[a]
            for k, column in enumerate(robot.velocity_slots(j)):
                dq[row, column] = entry(-(m.dot(y[j][k]) + r.dot(moving.z_parent[j - 1][k])))
                dqd[row, column] = entry(moving.by_velocity_of_row(j, m, r, k, True))
    if robot.floating:
        _base_derivatives(robot, b, moving, rows, by_q, by_qd, gravity, dq, dqd, entry)
    return dq, dqd


def _base_derivatives(robot: Robot, b: ProgramBuilder, moving: "_Moving", rows, by_q, by_qd,
                      gravity, dq, dqd, entry):
    """A floating base's rows and columns of dtau/dq and dtau/dqd (the module docstring): its
    rows are each joint's forces carried into {0}; its q-columns gravity's alone, M's first
    three columns times the turn of g_0; its qd-columns the rows of the joints and the whole
    robot's 2 B^c_0 s - 2 I^c_0 zeta."""
    zero = symengine.zeros(3, 1)
    for link in robot.links:
        for k, j in enumerate(robot.velocity_slots(link.index)):
            for derivative, force, name in ((dq, by_q, "Gq"), (dqd, by_qd, "Gqd")):
                for r, value in _entries(robot, b, _column_name(name, link, k),
                                         moving.placements, link.index,
                                         force[link.index][k]):
                    if r < 6:
                        derivative[r, j] = entry(value)
    g = Matrix(gravity)
    units = _units()
    # turning {0} by d about its axis k turns g_0 by -d e_k x g_0: the base's acceleration
    # relative to gravity, [a - g_0; domega], gains d e_k x g_0
    tilts = [Motion(zero, vector(b, f"tilt{k + 1}", cross(s.angular, g)))
             for k, s in enumerate(units[3:])]
    for (i, a, j), (m, r) in rows.items():
        if j == 0:
            row = robot.velocity_slots(i)[a]
            for k, s in enumerate(units):
                dqd[row, k] = entry(moving.by_base_velocity_of_row(s, m, r))
            for k, tilt in enumerate(tilts):
                dq[row, 3 + k] = entry(m.dot(tilt))
    for k, s in enumerate(units):
        dqd[:6, k] = [entry(value) for value in _column(moving.by_base_velocity(s))]
    for k, tilt in enumerate(tilts):
        dq[:6, 3 + k] = [entry(value) for value in _column(moving.whole.times(tilt))]


@dataclass(frozen=True)
class _Moving:
    """The robot moving at qd: each link's velocity v_i, and the composite bodies' inertias I^c,
    rates D^c and momenta h^c (see the module docstring), in the joint frames; a floating
    base's velocity v_0 and its composite body (the whole robot) in {0}."""

    links: tuple
    placements: list
    inertias: list[Inertia]
    composite: list[Inertia]
    velocities: list[Motion]
    z: list[list[Motion]]     # S_i x v_i, one per column of S_i
    z_parent: list[list[Motion]]    # S_i x v_{p(i)} (in {i}): z again for a one-axis joint
    own: list[Motion]         # S_i qd_i, the joint's own velocity
    rate: list[Inertia]
    momentum: list[Force]
    base: Motion              # v_0: zero for a fixed base
    whole: Inertia | None = None    # I^c_0, D^c_0 and h^c_0 of a floating base
    whole_rate: Inertia | None = None
    whole_momentum: Force | None = None

    @classmethod
    def of(cls, robot: Robot, b: ProgramBuilder, qd) -> "_Moving":
        """At the velocities ``qd``, a Robot.slots list."""
        placements = _placements(robot, b)
        inertias = _inertias(robot)
        zero = symengine.zeros(3, 1)
        base = (Motion(Matrix(qd[3:6]), Matrix(qd[:3])) if robot.floating
                else Motion(zero, zero))
        velocities, rates, momenta, owns = [], [], [], []
        for link, body in zip(robot.links, inertias):
            i = link.index
            # v_i = ^iX_{p(i)} v_{p(i)} + S_i qd_i
            parent = velocities[link.parent - 1] if link.parent else base
            v = placements[i].act_inverse(parent)
            motion = Motion(zero, zero)
            for S, k in zip(_axes(link), robot.velocity_slots(i)):
                v, motion = v + _scaled(S, qd[k]), motion + _scaled(S, qd[k])
            owns.append(motion)
            u, omega = vector(b, f"u{i}", v.linear), vector(b, f"w{i}", v.angular)
            velocities.append(Motion(omega, u))
            rates.append(_rate(body, velocities[-1]))
            momenta.append(body.times(velocities[-1]))
        composite = _composites(robot, b, placements, "c", inertias)
        rate = _composites(robot, b, placements, "d", rates)
        momentum = _composite_forces(robot, b, placements, "h", momenta)
        whole = ()
        if robot.floating:
            own = _inertia(robot.base_inertia)
            whole = (_at_base(robot, b, placements, "c", own, composite),
                     _at_base(robot, b, placements, "d", _rate(own, base), rate),
                     _force_at_base(robot, b, placements, "h", own.times(base), momentum))
        z = [[_named(b, _column_name(f"z{link.index}", link, k), z)
              for k, z in enumerate(_zetas(robot, link, v, qd))]
             for link, v in zip(robot.links, velocities)]
        # S x v_{p(i)}: S x v_i where the joint's own velocity is along S (one axis)
        z_parent = [zs if link.nv == 1 else
                    [_named(b, _column_name(f"zp{link.index}", link, k), S.cross(v - own))
                     for k, S in enumerate(_axes(link))]
                    for link, zs, v, own in zip(robot.links, z, velocities, owns)]
        return cls(robot.links, placements, inertias, composite, velocities, z, z_parent,
                   owns, rate, momentum, base, *whole)

    def twice_b(self, j: int, s: Motion) -> Force:
        """2 B^c_j s = D^c_j s + s x* h^c_j, for a motion s in frame {j}."""
        return self.rate[j - 1].times(s) + s.cross_force(self.momentum[j - 1])

    def parent_zeta(self, j: int, k: int, derivative: bool):
        """z_parent of column k of S_j where dtau/dqd (``derivative``) of a joint of several
        velocities pairs it with z (Pinocchio's dAdv = dJ + dVdq: 2 zeta = z + z_parent);
        None where 2 zeta is 2 z (C's column, twice dJ; a one-axis joint, z = z_parent)."""
        if derivative and self.z_parent[j - 1] is not self.z[j - 1]:
            return self.z_parent[j - 1][k]
        return None

    def by_velocity(self, j: int, k: int = 0, derivative: bool = False) -> Force:
        """2 B^c_j S_j - 2 I^c_j zeta_j: the force whose S_i component is dtau_i/dqd_j (with
        ``derivative``), i supporting j, or twice C's column; of column k of S_j."""
        twice_b, z = self.twice_b(j, _axes(self.links[j - 1])[k]), self.z[j - 1][k]
        other = self.parent_zeta(j, k, derivative)
        if other is None:
            return twice_b - _scaled(self.composite[j - 1].times(z), 2)
        return twice_b - self.composite[j - 1].times(z + other)

    def by_velocity_of_row(self, j: int, m: Force, r: Force, k: int = 0,
                           derivative: bool = False):
        """dtau_i/dqd_j for i outward of j (with ``derivative``), or twice C_ij, from the rows
        (m, r) of joint i in frame {j} (_rows); of column k of S_j."""
        S, z = _axes(self.links[j - 1])[k], self.z[j - 1][k]
        other = self.parent_zeta(j, k, derivative)
        return r.dot(S) - (2 * m.dot(z) if other is None else m.dot(z + other))

    def base_z(self, s: Motion, coriolis: bool) -> Motion:
        """A floating base's 2 zeta for its unit velocity s (the module docstring): s x v_0,
        twice that for C."""
        return _scaled(s.cross(self.base), 2 if coriolis else 1)

    def by_base_velocity(self, s: Motion, coriolis: bool = False) -> Force:
        """2 B^c_0 s - 2 I^c_0 zeta: the whole robot's force in {0} for a floating base's unit
        velocity s, its [f; n] dtau_0/dqd_s (or 2 C's column)."""
        return (self.whole_rate.times(s) + s.cross_force(self.whole_momentum)
                - self.whole.times(self.base_z(s, coriolis)))

    def by_base_velocity_of_row(self, s: Motion, m: Force, r: Force, coriolis: bool = False):
        """dtau_i/dqd_s (or 2 C_is) for joint i and a floating base's unit velocity s, from the
        rows (m, r) of joint i in {0}."""
        return r.dot(s) - m.dot(self.base_z(s, coriolis))


def _rate(body: Inertia, v: Motion) -> Inertia:
    """D = v x* I - I v x, the rate of change of the body's inertia as it moves with v (a
    body with no mass: the module docstring)."""
    h, J, m = body.first_moment, body.inertia_origin, body.mass
    Sw, Su, SMS = skew(v.angular), skew(v.linear), skew(h)
    return Inertia(symengine.Integer(0), v.linear * m + v.angular.cross(h),
                   Sw * J - J * Sw - Su * SMS - SMS * Su)


def _rows(robot: Robot, b: ProgramBuilder, moving: _Moving) -> dict:
    """{(i, a, j): (m, r)} for each j supporting i, j < i, and each column a of S_i: the rows
    S_i^T I^c_i and S_i^T 2 B^c_i as forces (D^c is symmetric), carried from frame {i} into
    frame {j}; into {0} too (j = 0) for a floating base."""
    rows = {}
    for link, Ic, D, h in zip(robot.links, moving.composite, moving.rate, moving.momentum):
        i = link.index
        for a, S in enumerate(_axes(link)):
            m, r = Ic.times(S), D.times(S) - S.cross_force(h)
            for (j, m_j), (_, r_j) in zip(
                    _carried(robot, b, _column_name("M", link, a), moving.placements, i, m,
                             robot.floating),
                    _carried(robot, b, _column_name("R", link, a), moving.placements, i, r,
                             robot.floating)):
                if j < i:
                    rows[i, a, j] = m_j, r_j
    return rows


def _accelerations(robot: Robot, b: ProgramBuilder, moving: _Moving, qd, qdd, gravity):
    """(a_i, a_{p(i)}) of each link in its frame {i}, spatial: a_i = ^iX_{p(i)} a_{p(i)} +
    S_i qdd_i + v_i x S_i qd_i, from a_0 = (0, -g) (gravity as the base's acceleration) or a
    floating base's [domega; a - g_0]. ``qd`` and ``qdd``: Robot.slots lists."""
    out = []
    g = Matrix(gravity)
    base = (Motion(Matrix(qdd[3:6]), Matrix(qdd[:3]) - g) if robot.floating
            else Motion(symengine.zeros(3, 1), -g))
    for link, v in zip(robot.links, moving.velocities):
        i = link.index
        own = out[link.parent - 1][0] if link.parent else base
        parent = _named(b, f"ap{i}", moving.placements[i].act_inverse(own))
        a = parent
        for S, k in zip(_axes(link), robot.velocity_slots(i)):
            a = a + _scaled(S, qdd[k]) + _scaled(v.cross(S), qd[k])
        out.append((_named(b, f"a{i}", a), parent))
    return out
