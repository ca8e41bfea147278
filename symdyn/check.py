"""``symdyn check``: one robot derived by both routes, compared with each other, with the
structure every rigid-body model has, and with Pinocchio when it is installed.

Numerically on random states, always; symbolically (the difference of the two routes simplified
to zero) where that is cheap, for robots of up to two joints.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import sympy

from .api import python_module
from .derive import QUANTITIES, lagrange, newton_euler
from .derive.dynamics import frame_function
from .derive.elastic import columns as elastic_columns
from .derive.elastic import positions as elastic_positions
from .derive.energy import total_mass
from .derive.quantities import COMPOSED, FROM_REGRESSOR, ROUTE_FREE
from .derive.regressor import standard_parameters
from .reference import friction_torques, spring_torques
from .robot.model import Robot
from .robot.poses import closed_configuration

TOLERANCE = 1e-10
DIFFERENCED = 1e-6      # a reference of central differences: their truncation and round-off
# Differences are relative to the largest magnitude compared, or to this (SI units) where
# that is smaller, so that outputs that are round-off about zero (a prismatic robot's dAg v,
# 1e-15; the potential energy without gravity) are not taken for numbers. A floor from each
# quantity's own scale (m g L for an energy) would compare a gripper's grams as closely as an
# arm's kilograms: not yet.
FLOOR = 1.0
# How far snapped angles may move the model: 1e-9 rad of snapping moves it by about as much.
SNAPPING_TOLERANCE = 1e-6
SLOW_BY_LAGRANGE = ("regressor", *FROM_REGRESSOR, "inverse_dynamics_derivatives",
                    "forward_dynamics_derivatives")
SYMBOLIC_UP_TO = 2   # joints
# Links up to which the Lagrange route is compared: its M and Christoffel symbols grow with the
# square and cube of the links that support each other (TIAGo's 48 took 160 s for M alone;
# random trees of 24 links, 3 to 27 s for M and tau), Newton-Euler's linearly.
LAGRANGE_UP_TO = 24


@dataclass(frozen=True)
class Row:
    check: str
    error: float | None      # largest relative difference; None for a yes/no check
    passed: bool
    note: str = ""
    tolerance: float | None = None   # what error passes
    skipped: str = ""        # why the check could not run (it then neither passes nor fails)

    @classmethod
    def skip(cls, check: str, why: str) -> "Row":
        return cls(check, None, True, skipped=why)


def relative(a, b) -> float:
    """The largest difference, relative to the largest magnitude; a function with several
    outputs (a tuple) is compared on all of them."""
    a, b = (np.concatenate([np.ravel(np.asarray(x, dtype=float))
                            for x in (v if isinstance(v, tuple) else (v,))]) for v in (a, b))
    return float(np.max(np.abs(a - b)) / max(FLOOR, float(np.max(np.abs(b)))))


def _numeric(name, a, b, tolerance=TOLERANCE, cancelled=0.0) -> Row:
    """``a`` against ``b``, the difference relative to the largest magnitude, or to the
    ``cancelled`` magnitude where ``a`` was got by cancelling one that large (inverse dynamics
    less a damping of 1e11 N s/m: its round-off is 1e11 eps)."""
    error = relative(a, b) * max(FLOOR, _largest(b)) / max(FLOOR, _largest(b), cancelled)
    return Row(name, error, error <= tolerance, tolerance=tolerance)


def _largest(values) -> float:
    return float(max(np.max(np.abs(np.asarray(v, dtype=float)))
                     for v in (values if isinstance(values, tuple) else (values,))))


# How many times eps * cond(M) a solve with M may be off (TOLERANCE below that is kept): with
# 16 joints, the Allegro hand's forward dynamics round trip was off by 0.35 times that bound.
SOLVE_ROUNDING = 100


def _solved(name, a, b, M, forces, qdd, tolerance=TOLERANCE) -> Row:
    """``a``, made by solving with M (forward dynamics, its derivatives), against ``b``: each
    state's difference relative to its size, within ``tolerance``, or within what a solve
    keeps where that is more: SOLVE_ROUNDING eps cond(M) (1 + |forces| / (|M| |qdd|)), the
    round-off of the forces that cancel in M qdd = forces (|forces| per state, torques beside
    which M qdd is small: a huge damping) magnified by M's condition. A state whose bound
    leaves no digit (an M singular to working precision) is not compared: the row says so."""
    parts = [(np.asarray(x, dtype=float), np.asarray(y, dtype=float)) for x, y in
             zip(*(v if isinstance(v, tuple) else (v,) for v in (a, b)))]
    states = len(M)
    errors = np.zeros(states)
    for x, y in parts:
        x, y = x.reshape(states, -1), y.reshape(states, -1)
        errors = np.maximum(errors, np.abs(x - y).max(axis=1)
                            / np.maximum(1.0, np.abs(y).max(axis=1)))
    condition = np.linalg.cond(M)
    scale = np.linalg.norm(M, 2, axis=(1, 2)) * np.maximum(1.0, np.abs(qdd).max(axis=1))
    bound = np.maximum(tolerance, SOLVE_ROUNDING * np.finfo(float).eps * condition
                       * (1 + np.asarray(forces) / scale))
    digits = bound < 1e-3
    if not digits.any():
        return Row.skip(name, f"cond(M) up to {condition.max():.1e} leaves no digit to compare")
    worst = int(np.argmax(np.where(digits, errors / bound, -1)))
    note = "" if bound[worst] == tolerance else (
        f"tolerance eps cond(M) (1 + |forces| / (|M| |qdd|)) at its state: cond(M) "
        f"{condition[worst]:.1e}")
    if not digits.all():
        note += (f"{'; ' if note else ''}{int((~digits).sum())} of {states} states not compared: "
                 f"cond(M) up to {condition.max():.1e}")
    return Row(name, float(errors[worst]), bool(errors[worst] <= bound[worst]), note,
               float(bound[worst]))


def check(robot: Robot, *, states: int = 100, seed: int = 0, progress=None,
          urdf=None, base=None, tip=None, snap_angles=0.0, mjcf=None) -> list[Row]:
    """Every check of ``robot``, on ``states`` random states. With ``urdf``, Pinocchio's model
    is built from that URDF itself (the chain ``base`` -> ``tip`` of it, as ``symdyn import``
    takes it, its angles within ``snap_angles`` of multiples of pi/12 taken as those), so that
    an imported robot file is checked against its original; a row then says how far the
    snapping moved the model from the URDF as written. With ``mjcf``, MuJoCo's model of that
    MJCF file (its chain ``base`` -> ``tip``) is a second reference."""
    progress = progress or (lambda message: None)
    rng = np.random.default_rng(seed)
    n = robot.dof
    values = {str(p): float(v) for p, v in zip(robot.parameters,
                                                rng.uniform(0.5, 1.5, len(robot.parameters)))}
    symbols = {p: values[str(p)] for p in robot.parameters}
    routes = {"newton-euler": newton_euler(robot, progress=progress)}
    # joints whose q moves at their velocity alone (routes.lagrange)
    by_rates = all(kind.nq == kind.nv for kind, _ in robot.joint_kinds)
    if by_rates and len(robot.links) <= LAGRANGE_UP_TO:
        routes["lagrange"] = lagrange(robot, progress=progress)
    available = routes["newton-euler"].available
    # The regressor and the derivatives by Lagrange cost minutes beyond four joints (tests
    # compare them on small arms); the base parameters' functions are the regressor's.
    # Kinematics, the potential energy and the centre of mass are one program by either route;
    # Pinocchio checks those.
    # and a composed quantity (all_terms) is its parts, compared already (and bit for bit below)
    compared = [name for name in available
                if name not in (*SLOW_BY_LAGRANGE, *ROUTE_FREE, *COMPOSED)]
    ne = python_module(routes["newton-euler"], values=values, progress=progress)
    q = configurations(robot, rng, states)
    qd, qdd = rng.uniform(-3, 3, (states, n)), rng.uniform(-5, 5, (states, n))
    tau = rng.uniform(-10, 10, (states, n))
    wrench = rng.uniform(-10, 10, (states, 6))
    progress(f"comparing on {states} random states")
    args = {"q": q, "qd": qd, "qdd": qdd, "tau": tau, "f_ext": wrench,
            "gains": rng.uniform(0, 50, (states, 2)), "restitution": rng.uniform(0, 1, (states, 1)),
            "lambda_c": rng.uniform(-10, 10, (states, sum(c.size for c in robot.constraints))),
            "theta": q[:, elastic_positions(robot)] + rng.uniform(-0.05, 0.05,
                                                                (states, len(robot.elastic))),
            "thetad": rng.uniform(-3, 3, (states, len(robot.elastic))),
            "qddd": rng.uniform(-5, 5, (states, n)), "qdddd": rng.uniform(-5, 5, (states, n))}

    rows = []
    singular = routes["newton-euler"].singular
    if "lagrange" in routes:
        la = python_module(routes["lagrange"], values=values, quantities=compared,
                           progress=progress, optimized=False)      # a reference: unoptimized
        for name in compared:
            inputs = [args[i] for i in QUANTITIES[name].inputs]
            rows.append(_numeric(f"{name}: Newton-Euler = Lagrange",
                                 getattr(ne, name)(*inputs), getattr(la, name)(*inputs)))
    else:
        rows.append(Row.skip("Newton-Euler = Lagrange", (
            "the Lagrange route takes joints whose q moves at their velocity alone"
            if not by_rates else
            f"the Lagrange route of {len(robot.links)} links takes many minutes (compared up "
            f"to {LAGRANGE_UP_TO})") + "; Pinocchio is the reference"))
    M, g = ne.mass_matrix(q), ne.gravity_torques(q)
    # what the actuators add to the rigid body's torques besides the rotors: friction, springs
    f = ne.friction_torques(qd) + (ne.joint_spring_torques(q)
                                   if "joint_spring_torques" in available else 0)
    rows.append(_numeric("M qdd + h + friction (+ springs) = inverse_dynamics",
                         np.einsum("nij,nj->ni", M, qdd) + ne.nonlinear_effects(q, qd) + f,
                         ne.inverse_dynamics(q, qd, qdd)))
    if "coriolis_matrix" in available:
        C = ne.coriolis_matrix(q, qd)
        rows.append(_numeric("C qd + g = h", np.einsum("nij,nj->ni", C, qd) + g,
                             ne.nonlinear_effects(q, qd)))
    if "regressor" in available:
        pi = np.array([float(sympy.sympify(v).subs(symbols))
                       for _, v in standard_parameters(robot)])
        rows.append(_numeric("regressor Y pi = inverse_dynamics",
                             ne.regressor(q, qd, qdd) @ pi, ne.inverse_dynamics(q, qd, qdd)))
    if "base_parameters" in available:
        rows.append(_numeric("base_regressor Y_b beta = inverse_dynamics",
                             ne.base_regressor(q, qd, qdd) @ ne.base_parameters(pi),
                             ne.inverse_dynamics(q, qd, qdd)))
    if singular:
        rows.append(Row.skip("forward_dynamics", f"not derived: {singular}"))
    else:
        tau_of_qdd = ne.inverse_dynamics(q, qd, qdd)
        rows.append(_solved("forward_dynamics(inverse_dynamics(qdd)) = qdd",
                            ne.forward_dynamics(q, qd, tau_of_qdd), qdd, M,
                            _forces(tau_of_qdd, ne.nonlinear_effects(q, qd), f), qdd))
    step = 1e-6
    if "coriolis_matrix" in available:
        rate = configuration_rate(robot, q, qd)
        Mdot = (ne.mass_matrix(q + step * rate) - ne.mass_matrix(q - step * rate)) / (2 * step)
        skew = Mdot - 2 * C
        error = float(np.max(np.abs(skew + np.swapaxes(skew, 1, 2)))
                      / max(FLOOR, float(np.max(np.abs(Mdot)))))
        rows.append(Row("dM/dt - 2C skew-symmetric (finite differences)", error, error <= 1e-6,
                        tolerance=1e-6))
    rows.append(_numeric("kinetic_energy = 1/2 qd^T M qd", ne.kinetic_energy(q, qd),
                         0.5 * np.einsum("ni,nij,nj->n", qd, M, qd)))
    # dV/dq by central differences along each velocity's direction in q (a floating base's
    # too: its tangent directions, which Pinocchio's derivatives take)
    gradient = np.stack([(ne.potential_energy(q + step * e) - ne.potential_energy(q - step * e))
                         / (2 * step) for e in (configuration_rate(robot, q, np.broadcast_to(
                             unit, qd.shape)) for unit in np.eye(n))], axis=-1)
    error = relative(gradient, g)
    rows.append(Row("gravity_torques = dV/dq of potential_energy (finite differences)", error,
                    error <= 1e-6, tolerance=1e-6))
    # integrate moves q at the configuration's rate, and difference undoes it
    rate = (ne.integrate(q, step * qd) - ne.integrate(q, -step * qd)) / (2 * step)
    error = relative(rate, configuration_rate(robot, q, qd))
    rows.append(Row("d/dt integrate(q, qd t) at t = 0 is q's rate (finite differences)", error,
                    error <= 1e-6, tolerance=1e-6))
    # (a turn of less than pi, which difference takes the short way: |qd / 2| <= 2.6)
    rows.append(_numeric("difference(q, integrate(q, qd / 2)) = qd / 2",
                         ne.difference(q, ne.integrate(q, qd / 2)), qd / 2))
    together = ne.all_terms(q, qd)
    alone = (M, ne.nonlinear_effects(q, qd), *ne.pose_and_jacobian(q), ne.jacobian_dot_qd(q, qd))
    rows.append(Row("all_terms = M, h, T, J, Jdot_qd of their own functions, bit for bit", None,
                    all(np.array_equal(a, b) for a, b in zip(together, alone))))
    if robot.frames:
        T, J = ne.frame_poses(q), ne.frame_jacobians(q)
        alone = [getattr(ne, frame_function("frame_pose_and_jacobian", frame.identifier))(q)
                 for frame in robot.frames]
        rows.append(Row("pose_and_jacobian_<frame> = frame_poses, frame_jacobians, bit for bit",
                        None, all(np.array_equal(T_f, T[:, k]) and np.array_equal(J_f, J[:, k])
                                  for k, (T_f, J_f) in enumerate(alone))))
    rows.append(Row("M symmetric", None, bool(np.array_equal(M, np.swapaxes(M, 1, 2)))))
    eigenvalues = np.linalg.eigvalsh(M)
    if singular:
        rows.append(Row("M positive semi-definite", None, bool(np.all(
            eigenvalues >= -TOLERANCE * max(1.0, float(eigenvalues.max())))), "singular"))
    else:
        definite = bool(np.all(eigenvalues > 0))
        # Free parameters get random values, which need not be those of a physical body.
        rows.append(Row("M positive definite", None, definite or bool(robot.parameters),
                        "" if definite else "not at these random parameter values"))
    rows += _pinocchio_rows(robot, values, ne, args, f, progress, singular, available,
                            (urdf, base, tip, snap_angles) if urdf is not None else None)
    if robot.constraints and urdf is None:
        rows += _constraint_rows(robot, ne, symbols, rng, min(states, 20), progress)
    if robot.elastic:
        rows += _elastic_rows(robot, ne, args, symbols, available)
    if mjcf is not None:
        rows += _mujoco_rows(robot, ne, args, f, progress, mjcf, base, tip, snap_angles)
    if "lagrange" in routes:
        rows += _symbolic_rows(routes, progress)
    return rows


def _forces(*forces) -> np.ndarray:
    """Per state, the sum of the largest magnitudes of generalized forces (N or N m) that
    meet in M qdd = tau - h - friction."""
    return sum(np.abs(np.asarray(x, dtype=float)).max(axis=1) for x in forces)


def configurations(robot: Robot, rng, states: int) -> np.ndarray:
    """Random configurations q, (states, nq): each joint's kind's (joints.py: joint angles in
    [-pi, pi] and as many metres; a spherical joint's unit quaternion and a floating base's
    uniform over rotations, with the base's position in [-1, 1] m)."""
    kinds = [kind for kind, _ in robot.joint_kinds]
    # drawn the links' first, then a floating base's (the order the checks' states have had)
    parts = [kind.random(rng, states) for kind in kinds[robot.floating:]]
    parts = [kind.random(rng, states) for kind in kinds[:robot.floating]] + parts
    return np.hstack(parts) if parts else np.zeros((states, 0))


def configuration_rate(robot: Robot, q, qd) -> np.ndarray:
    """dq/dt at velocities qd, (states, nq): each joint's kind's rates (joints.py: qd itself
    for a one-axis joint; a quaternion's quat (omega, 0) / 2, a floating base's position's
    R v), so that q + h dq/dt is q moved by h qd to first order."""
    parts, at_q, at_v = [], 0, 0
    for kind, _ in robot.joint_kinds:
        parts.append(kind.rate_numbers(q[:, at_q:at_q + kind.nq], qd[:, at_v:at_v + kind.nv]))
        at_q, at_v = at_q + kind.nq, at_v + kind.nv
    return np.hstack(parts) if parts else qd


def _symbolic_rows(routes, progress) -> list[Row]:
    """The two routes' closed forms, their difference simplified to zero: for small robots
    whose numbers are plain (``_plain_numbers``). Others' differences take simplification
    minutes, or are rounding it cannot remove; the numeric rows compare those."""
    ne, la = routes["newton-euler"], routes["lagrange"]
    names = [f"{attribute}: Newton-Euler - Lagrange simplifies to 0"
             for attribute in ("M", "C", "g", "tau")]
    if ne.robot.dof > SYMBOLIC_UP_TO:
        return [Row.skip(name, f"closed forms of more than {SYMBOLIC_UP_TO} joints are too "
                         "large to simplify; compared numerically") for name in names]
    if not all(_plain_numbers(e) for e in (ne.M, ne.tau, la.M, la.tau)):
        return [Row.skip(name, "the robot's numbers (floats, or fractions of many digits, "
                         "in sines and cosines) would take simplification minutes; compared "
                         "numerically") for name in names]
    progress("comparing the two routes symbolically")
    rows = []
    for attribute, name in zip(("M", "C", "g", "tau"), names):
        difference = sympy.simplify(getattr(ne, attribute) - getattr(la, attribute))
        rows.append(Row(name, None, difference == sympy.zeros(*difference.shape)))
    return rows


def _frame_rows(pin, model, data, ne, q_pin, q, qd, G) -> list[Row]:
    """frame_poses, frame_jacobians and frame_jacobians_dot_qd of every named frame against
    Pinocchio's frame of the same name (``G``: see _pinocchio_rows). A model of a URDF has a
    frame per URDF link: an import's frames, named after those links, are compared; a frame
    the robot file adds or renames has none, and the rows say how many were compared."""
    def frame(name):        # a URDF link's BODY frame (a joint may share its name), or ours
        kinds = [kind for kind in (pin.FrameType.BODY, pin.FrameType.OP_FRAME)
                 if model.existFrame(name, kind)]
        return model.getFrameId(name, kinds[0]) if kinds else None

    picked = [k for k, name in enumerate(ne.FRAMES) if frame(name) is not None]
    checks = ("frame_poses = Pinocchio frame placements",
              "frame_jacobians = Pinocchio frame Jacobians (world axes)",
              "frame_jacobians_dot_qd = Pinocchio classical accelerations")
    if not picked:
        return [Row.skip(check, "no named frame has a frame of its name in Pinocchio's model")
                for check in checks]
    some = (f" ({len(picked)} of {len(ne.FRAMES)} frames, by name)"
            if len(picked) < len(ne.FRAMES) else "")
    frames = [frame(ne.FRAMES[k]) for k in picked]
    world = pin.LOCAL_WORLD_ALIGNED
    poses, jacobians, accelerations = [], [], []
    for qi, vi in zip(q_pin, qd @ G.T):
        pin.forwardKinematics(model, data, qi, vi, np.zeros(model.nv))
        pin.updateFramePlacements(model, data)
        pin.computeJointJacobians(model, data, qi)
        poses.append([data.oMf[f].homogeneous.copy() for f in frames])
        jacobians.append([_columns(pin.getFrameJacobian(model, data, f, world), 6) @ G
                          for f in frames])
        accelerations.append([np.r_[a.linear, a.angular] for a in (
            pin.getFrameClassicalAcceleration(model, data, f, world) for f in frames)])
    ours = (ne.frame_poses(q), ne.frame_jacobians(q), ne.frame_jacobians_dot_qd(q, qd))
    return [_numeric(check + some, value[:, picked], reference) for check, value, reference
            in zip(checks, ours, (poses, jacobians, accelerations))]


def _columns(J, rows: int) -> np.ndarray:
    """A Jacobian as rows x joints (Pinocchio's of a one-joint model comes as a vector)."""
    return np.reshape(J, (rows, -1))


def _plain_numbers(expr) -> bool:
    """Whether simplification can work on ``expr`` quickly: its numbers are integers or short
    fractions, and no sine or cosine is of a number (pi/2 is folded before; 0.1234 is not)."""
    if expr.atoms(sympy.Float):
        return False
    if any(r.q > 1000 or abs(r.p) > 10**6 for r in expr.atoms(sympy.Rational)):
        return False
    return not any(f.args[0].is_number for f in expr.atoms(sympy.sin, sympy.cos))


def _pinocchio_rows(robot, values, ne, args, f, progress, singular, available,
                    urdf=None) -> list[Row]:
    try:
        import pinocchio as pin
    except ImportError:
        return [Row.skip("Pinocchio", "not installed: pip install pin")]
    from .reference import configuration_map, pinocchio_model, pinocchio_permutation, urdf_model

    symbols = {p: values[str(p)] for p in robot.parameters}
    q, qd, qdd, tau, wrench = (args[k] for k in ("q", "qd", "qdd", "tau", "f_ext"))
    # Mimic joints: Pinocchio's model has each joint free, its functions are evaluated at the
    # links' joint variables (q_links = G q + c) and their forces and matrices taken to the
    # coordinates by G (G^T tau, G^T M G, J G): Pinocchio 4.1 refuses mimic joints in most
    # of these algorithms (and its computeCoriolisMatrix with them gives a C whose C qd is not
    # h - g). _mimic_rows compares with its own mimic model where it takes it.
    # A floating base's seven and six lead q and qd in both models, outside G.
    # A robot file's links in any order in which parents come first, Pinocchio's model of it
    # has them depth first (pinocchio_order): P takes the file's links' values to its joints'.
    # A spherical joint's four and three entries of q and v stay together (P and Pq).
    shift = robot.base_velocities
    P, Pq = ((np.eye(len(robot.link_qd)), np.eye(len(robot.link_q))) if urdf is not None
             else (pinocchio_permutation(robot.spec, entries=e) for e in ("v", "q")))
    G = P @ np.array(robot.coupling_matrix.subs(symbols), dtype=float)
    G = np.block([[np.eye(shift), np.zeros((shift, G.shape[1]))],
                  [np.zeros((G.shape[0], shift)), G]])
    coupled = bool(robot.coupling)
    head = robot.base_configuration
    A, offsets = configuration_map(robot, symbols)
    q_links = np.hstack([q[:, :head], q[:, head:] @ (Pq @ A).T + Pq @ offsets])
    qd_links, qdd_links = qd @ G.T, qdd @ G.T
    if urdf is not None:
        progress(f"comparing with Pinocchio's model of {urdf[0]}")
        try:
            model, configuration = urdf_model(*urdf, root=robot.spec.root)
        except (RuntimeError, ValueError) as exc:
            return [Row.skip("Pinocchio", f"cannot build its model of {urdf[0]}: {exc}")]
        if "gravity" in robot.spec.omitted:     # a variant: the URDF's robot, in free fall
            model.gravity.setZero()
        if model.nv != robot.slot_count:
            return [Row("Pinocchio", None, False, f"{urdf[0]}'s chain has {model.nv} "
                        f"velocities, the robot file "
                        f"{robot.slot_count}")]
        name = f" ({Path(urdf[0]).name})"
        snapping = (_snapping_rows(urdf, robot.spec.root, model, configuration(q_links),
                                   qd_links, qdd_links)
                    if urdf[3] else [])
    else:
        progress("comparing with Pinocchio")
        try:
            model = pinocchio_model(robot.spec, symbols, mimic=False)
        except (RuntimeError, ValueError) as exc:     # Pinocchio refuses a non-physical body
            return [Row.skip("Pinocchio", f"{exc} (free symbols drawn at random need not "
                             "describe a physical body)")]
        name, snapping = "", []

        def configuration(x):
            return np.atleast_2d(x)
    data = model.createData()
    # Pinocchio 4.1's computeKineticEnergy counts the armature for some joint types only (RZ,
    # not RevoluteUnaligned): the reference is the bodies' energy plus the rotors', 1/2 Ia qd^2.
    bodies = model.copy()
    bodies.armature = np.zeros(model.nv)
    bodies_data = bodies.createData()
    frame = model.getFrameId("tool", pin.FrameType.OP_FRAME)   # (a URDF may have a link tool)
    tool = model.frames[frame].placement
    tool_joint = model.frames[frame].parentJoint
    q_pin = configuration(q_links)
    poses, jacobians, accelerations = [], [], []
    for qi, vi in zip(q_pin, qd_links):
        pin.forwardKinematics(model, data, qi, vi, np.zeros(model.nv))
        pin.updateFramePlacements(model, data)
        poses.append(data.oMf[frame].homogeneous.copy())
        acceleration = pin.getFrameClassicalAcceleration(model, data, frame,
                                                         pin.LOCAL_WORLD_ALIGNED)
        accelerations.append(np.r_[acceleration.linear, acceleration.angular])
        jacobians.append(_columns(pin.computeFrameJacobian(model, data, qi, frame,
                                                           pin.LOCAL_WORLD_ALIGNED), 6) @ G)
    kinematics = [_numeric(f"forward_kinematics = Pinocchio frame placement{name}",
                           ne.forward_kinematics(q), poses),
                  _numeric(f"jacobian = Pinocchio frame Jacobian (world axes){name}",
                           ne.jacobian(q), jacobians),
                  _numeric(f"jacobian_dot_qd = Pinocchio classical acceleration{name}",
                           ne.jacobian_dot_qd(q, qd), accelerations)]
    if robot.frames:        # the named frames, by their names
        kinematics += [replace(row, check=row.check + name)
                       for row in _frame_rows(pin, model, data, ne, q_pin, q, qd, G)]
    ref = {k: [] for k in ("rnea", "crba", "coriolis", "gravity", "nle", "aba", "fext", "drnea",
                           "daba", "kinetic", "potential", "com", "com_jacobian",
                           "centroidal", "centroidal_dot")}
    viscous, stiffness = (np.diag([0.0] * shift + list(P @ [
        float(sympy.sympify(v).subs(symbols))
        for v in robot.per_velocity(values)[shift:]])) for values in (
            (link.viscous for link in robot.links),
            (link.spring[0] if link.spring else 0 for link in robot.links)))
    # friction and the joint springs, at the links' joint variables in the file's order
    friction = np.hstack([np.zeros((len(qd_links), shift)), (friction_torques(
        robot.spec, qd_links[:, shift:] @ P, symbols) + spring_torques(
        robot.spec, q[:, head:] @ A.T + offsets, symbols)) @ P.T])
    derivatives = "inverse_dynamics_derivatives" in available
    # Pinocchio 4.1's derivatives, computeCoriolisMatrix and dAg are not its own rnea's where a
    # joint's motion subspace turns with its configuration (a universal joint: C v differs
    # from h - g by 0.13): there its rnea and aba differenced are the reference, its rate of
    # centroidal momentum at qdd = 0 dAg v, and C is checked by C qd + g = h and dM/dt - 2C
    varying = not all(link.kind.constant for link in robot.links)
    ref["centroidal_dot_by"] = ("computeCentroidalMomentumTimeVariation at qdd = 0" if varying
                                else "computeCentroidalMapTimeVariation dAg v")
    for qi, vi, ai, ti, fi, wi in zip(q_pin, qd_links, qdd_links, tau, friction, wrench):
        ref["rnea"].append(G.T @ (pin.rnea(model, data, qi, vi, ai) + fi))
        fext = [pin.Force.Zero() for _ in range(model.njoints)]
        fext[tool_joint] = -tool.act(pin.Force(wi[:3], wi[3:]))  # the tool's on the world
        ref["fext"].append(G.T @ (pin.rnea(model, data, qi, 0 * vi, 0 * ai, fext)
                                  - pin.computeGeneralizedGravity(model, data, qi)))
        ref["kinetic"].append(pin.computeKineticEnergy(bodies, bodies_data, qi, vi)
                              + 0.5 * model.armature @ vi**2)
        ref["potential"].append(pin.computePotentialEnergy(model, data, qi))
        ref["com"].append(pin.centerOfMass(model, data, qi).copy())
        ref["com_jacobian"].append(_columns(pin.jacobianCenterOfMass(model, data, qi), 3) @ G)
        ref["centroidal"].append(_columns(pin.computeCentroidalMap(model, data, qi), 6) @ G)
        if varying:
            rate = pin.computeCentroidalMomentumTimeVariation(model, data, qi, vi, 0 * vi)
            ref["centroidal_dot"].append(np.r_[rate.linear, rate.angular])
        else:
            pin.computeCentroidalMapTimeVariation(model, data, qi, vi)
            ref["centroidal_dot"].append(_columns(data.dAg, 6) @ vi)
        M = pin.crba(model, data, qi)
        M = G.T @ (np.triu(M) + np.triu(M, 1).T) @ G
        ref["crba"].append(M)
        ref["gravity"].append(G.T @ pin.computeGeneralizedGravity(model, data, qi))
        ref["nle"].append(G.T @ pin.nonLinearEffects(model, data, qi, vi))
        if "coriolis_matrix" in available and not varying:
            ref["coriolis"].append(G.T @ pin.computeCoriolisMatrix(model, data, qi, vi) @ G)
        if derivatives and varying:
            dq, dv = _differenced(pin, model, lambda x, y: pin.rnea(model, data, x, y, ai),
                                  qi, vi)
            ref["drnea"].append((G.T @ (dq + stiffness) @ G, G.T @ (dv + viscous) @ G))
        elif derivatives:
            pin.computeRNEADerivatives(model, data, qi, vi, ai)
            ref["drnea"].append((G.T @ (data.dtau_dq + stiffness) @ G,
                                 G.T @ (data.dtau_dv + viscous) @ G))
        if singular:
            continue
        if not coupled:     # G: the permutation of Pinocchio's depth-first order
            ref["aba"].append(G.T @ pin.aba(model, data, qi, vi, G @ ti - fi))
            if derivatives and varying:
                dq, dv = _differenced(pin, model, lambda x, y: pin.aba(
                    model, data, x, y, G @ ti - fi), qi, vi)
                full = pin.crba(model, data, qi)
                Minv = np.linalg.inv(np.triu(full) + np.triu(full, 1).T)
                ref["daba"].append(tuple(G.T @ x @ G for x in (
                    dq - Minv @ stiffness, dv - Minv @ viscous, Minv)))
            elif derivatives:
                pin.computeABADerivatives(model, data, qi, vi, G @ ti - fi)
                Minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
                ref["daba"].append(tuple(G.T @ x @ G for x in (
                    data.ddq_dq - Minv @ stiffness, data.ddq_dv - Minv @ viscous, Minv)))
        else:       # M qdd = tau - h - friction in the coordinates, and its derivatives there
            Minv = np.linalg.inv(M)
            h = G.T @ (pin.rnea(model, data, qi, vi, 0 * vi) + fi)
            acceleration = Minv @ (ti - h)
            ref["aba"].append(acceleration)
            if derivatives:
                if varying:
                    dq, dv = _differenced(pin, model, lambda x, y: pin.rnea(
                        model, data, x, y, G @ acceleration), qi, vi)
                else:
                    pin.computeRNEADerivatives(model, data, qi, vi, G @ acceleration)
                    dq, dv = data.dtau_dq, data.dtau_dv
                ref["daba"].append((-Minv @ G.T @ (dq + stiffness) @ G,
                                    -Minv @ G.T @ (dv + viscous) @ G, Minv))
    if not singular:
        M_ours, qdd_ours = ne.mass_matrix(q), ne.forward_dynamics(q, qd, tau)
        forces = _forces(tau, ne.nonlinear_effects(q, qd), f)
    rows = [] if singular else [
        _solved("forward_dynamics = Pinocchio aba" if not coupled else
                "forward_dynamics = Pinocchio crba and rnea solved",
                qdd_ours, np.array(ref["aba"]), M_ours, forces, qdd_ours)]
    # (differenced, the reference keeps DIFFERENCED's accuracy)
    forward, inverse, tolerance = (
        ("Pinocchio aba, central differences" if not coupled else
         "-M^-1 Pinocchio rnea, central differences", "Pinocchio rnea, central differences",
         DIFFERENCED) if varying else
        ("Pinocchio computeABADerivatives" if not coupled else
         "-M^-1 Pinocchio computeRNEADerivatives", "Pinocchio computeRNEADerivatives", 1e-9))
    if derivatives and not singular:
        rows.append(_solved(
            f"forward_dynamics_derivatives = {forward}",
            ne.forward_dynamics_derivatives(q, qd, tau),
            tuple(np.array(part) for part in zip(*ref["daba"])), M_ours, forces, qdd_ours,
            tolerance))
    rows.append(_numeric("inverse_dynamics = Pinocchio rnea (+ friction and springs)",
                         ne.inverse_dynamics(q, qd, qdd), ref["rnea"]))
    if derivatives:
        rows.append(_numeric(f"inverse_dynamics_derivatives = {inverse}",
                             ne.inverse_dynamics_derivatives(q, qd, qdd),
                             tuple(np.array(part) for part in zip(*ref["drnea"])), tolerance))
    rows.append(_numeric("mass_matrix = Pinocchio crba", ne.mass_matrix(q), ref["crba"]))
    if "coriolis_matrix" in available and varying:
        rows.append(Row.skip("coriolis_matrix = Pinocchio computeCoriolisMatrix",
                             "Pinocchio 4.1's, with a joint whose motion subspace turns with "
                             "it, is not its own rnea's (C v is not h - g); C qd + g = h and "
                             "dM/dt - 2C skew-symmetric check it"))
    elif "coriolis_matrix" in available:
        rows.append(_numeric("coriolis_matrix = Pinocchio computeCoriolisMatrix",
                             ne.coriolis_matrix(q, qd), ref["coriolis"]))
    rows += [_numeric("gravity_torques = Pinocchio computeGeneralizedGravity",
                      ne.gravity_torques(q), ref["gravity"]),
             _numeric("nonlinear_effects = Pinocchio nonLinearEffects",
                      ne.nonlinear_effects(q, qd), ref["nle"]),
             _numeric("tool_wrench_torques = Pinocchio rnea with fext",
                      ne.tool_wrench_torques(q, wrench), ref["fext"])]
    mass = float(sympy.sympify(total_mass(robot)).subs(symbols))
    rows += _energy_rows(ne, q, qd, ref, mass, pin.computeTotalMass(model), urdf is not None)
    whole = urdf is None
    if robot.floating or whole:
        rows += _motion_rows(pin, model, robot, ne, q, q_pin, qd, qd_links, P, Pq, whole)
    if coupled:
        rows += _mimic_rows(robot, symbols, ne, q, qd, qdd, urdf)
    return [replace(row, check=row.check + name) for row in rows] + kinematics + snapping


def _elastic_rows(robot, ne, args, symbols, available) -> list[Row]:
    """The elastic joints' quantities against Pinocchio's model of the link side (the robot
    file's, the elastic joints' rotors and friction left to their motors): the extended
    forward dynamics as aba with the springs' torques and each motor's B thetadd = tau_m -
    tau_s - f(thetad); the feedforward as rnea (theta = q + tau_s / K), computeRNEADerivatives
    along the motion (thetad) and central differences of those between states a step before
    and after on the motion's quartic (thetadd, to 1e-6)."""
    try:
        import pinocchio as pin
    except ImportError:
        return [Row.skip("elastic joints", "Pinocchio is not installed: pip install pin")]
    from .reference import joint_friction, pinocchio_model, pinocchio_permutation

    if robot.floating or robot.several or robot.coupling:
        return [Row.skip("elastic joints", "compared with Pinocchio on fixed bases of one-axis "
                         "joints without mimic joints")]
    model = pinocchio_model(robot.spec, symbols)
    data = model.createData()
    P = pinocchio_permutation(robot.spec)           # Pinocchio's order of our joints' values
    at = elastic_columns(robot)     # in q as in qd: a fixed base of one-axis joints
    motor = [[float(sympy.sympify(x).subs(symbols)) for x in (
        e.stiffness, e.damping, e.armature, e.viscous, *e.coulomb)] for e in
        (link.elastic for link in robot.elastic)]
    K, D, B, Bv, plus, minus = (np.array(column) for column in zip(*motor))

    def motor_friction(v):
        return joint_friction(Bv, plus, minus, v)

    # the joint springs' torques K (q - q_ref) and their rate K qd, beside the rigid body's
    stiffness = np.array([float(sympy.sympify(link.spring[0] if link.spring else 0).subs(
        symbols)) for link in robot.links])

    def rnea(q, qd, qdd):
        return (P.T @ pin.rnea(model, data, P @ q, P @ qd, P @ qdd)
                + spring_torques(robot.spec, q, symbols))

    def rnea_rate(q, qd, qdd, qddd):
        """d/dt of rnea along the motion: dtau/dq qd + dtau/dqd qdd + M qddd."""
        pin.computeRNEADerivatives(model, data, P @ q, P @ qd, P @ qdd)
        M = data.M.copy()
        M[np.tril_indices_from(M, -1)] = M.T[np.tril_indices_from(M, -1)]
        return (P.T @ (data.dtau_dq @ (P @ qd) + data.dtau_dv @ (P @ qdd) + M @ (P @ qddd))
                + stiffness * qd)

    q, theta, qd, thetad, tau = (args[k] for k in ("q", "theta", "qd", "thetad", "tau"))
    rows = []
    if "elastic_forward_dynamics" in available:
        springs = K * (theta - q[:, at]) + D * (thetad - qd[:, at])
        link_tau = tau.copy()
        link_tau[:, at] = springs
        link_tau -= (friction_torques(robot.spec, qd, symbols)
                     + spring_torques(robot.spec, q, symbols))
        qdd = [P.T @ pin.aba(model, data, P @ x, P @ v, P @ t)
               for x, v, t in zip(q, qd, link_tau)]
        thetadd = (tau[:, at] - springs - motor_friction(thetad)) / B
        rows.append(_numeric("elastic_forward_dynamics = Pinocchio aba with the springs' "
                             "torques, B thetadd = tau_m - tau_s - f",
                             ne.elastic_forward_dynamics(q, theta, qd, thetad, tau),
                             (np.array(qdd), thetadd)))
    if "elastic_inverse_dynamics" in available:
        motion = [args[k] for k in ("q", "qd", "qdd", "qddd", "qdddd")]
        step, expected = 1e-4, []
        for x, v, a, j, s in zip(*motion):
            def along(h):       # the state h later on the motion's quartic
                return (x + h * v + h**2 / 2 * a + h**3 / 6 * j + h**4 / 24 * s,
                        v + h * a + h**2 / 2 * j + h**3 / 6 * s, a + h * j + h**2 / 2 * s,
                        j + h * s)
            spring, rate = rnea(x, v, a)[at], rnea_rate(x, v, a, j)[at]
            second = (rnea_rate(*along(step)) - rnea_rate(*along(-step)))[at] / (2 * step)
            theta_dd = a[at] + second / K
            theta_d = v[at] + rate / K
            torques = rnea(x, v, a) + friction_torques(robot.spec, v[None], symbols)[0]
            torques[at] = B * theta_dd + spring + motor_friction(theta_d)
            expected.append((x[at] + spring / K, theta_d, theta_dd, torques))
        rows.append(_numeric("elastic_inverse_dynamics = Pinocchio rnea, its derivatives "
                             "along the motion and their central differences",
                             ne.elastic_inverse_dynamics(*motion),
                             tuple(np.array(x) for x in zip(*expected)), 1e-6))
    return rows


def _constraint_rows(robot, ne, symbols, rng, states, progress) -> list[Row]:
    """The constraints' quantities on ``states`` random states they allow (positions closed by
    Newton on Pinocchio's residual, velocities in G's null space) against Pinocchio's model of
    the robot file (reference.ConstraintReference): phi, G and gamma of its frames, the
    constrained forward dynamics and an impact through the KKT matrix of its M, h and G, D =
    G M^-1 G^T; a closed-loop mechanism's inverse dynamics through that KKT back to qdd, and
    its closure from passive joints 0.05 rad off."""
    try:
        import pinocchio  # noqa: F401
    except ImportError:
        return [Row.skip("constraints", "Pinocchio is not installed: pip install pin")]
    from .reference import ConstraintReference

    progress(f"comparing the constraints on {states} states they allow")
    reference = ConstraintReference(robot, symbols)
    try:
        sampled = [reference.state(rng, spread=0.2) for _ in range(states)]
    except ValueError as exc:
        return [Row.skip("constraints", f"{exc} near closed_at")]
    q, v, qdd = (np.array(x) for x in zip(*sampled))
    terms = [reference.terms(*state) for state in zip(q, v)]
    phi, G, gamma = (np.array(x) for x in zip(*terms))
    rows = [_numeric("constraint_residual = Pinocchio frames' (on the constraints: 0)",
                     ne.constraint_residual(q), phi),
            _numeric("constraint_jacobian = Pinocchio frame Jacobians (in the rows' axes)",
                     ne.constraint_jacobian(q), G),
            _numeric("constraint_drift = -dG/dt qd (Pinocchio classical accelerations)",
                     ne.constraint_drift(q, v), gamma)]
    # velocities the constraints do not allow, so that G v is not zero on both sides
    free = rng.uniform(-2, 2, v.shape)
    rate = configuration_rate(robot, q, free)
    step = 1e-6
    moved = (ne.constraint_residual(q + step * rate) - ne.constraint_residual(q - step * rate))
    error = relative(moved / (2 * step), np.einsum("nij,nj->ni", G, free))
    rows.append(Row("d phi/dt = G qd (finite differences)", error, error <= 1e-6,
                    tolerance=1e-6))
    if hasattr(ne, "constrained_forward_dynamics"):
        tau = rng.uniform(-5, 5, v.shape)
        gains = rng.uniform(0, 50, (len(q), 2))
        expected = [reference.kkt(*state) for state in zip(q, v, tau, gains)]
        ours = ne.constrained_forward_dynamics(q, v, tau, gains)
        M = ne.mass_matrix(q)
        forces = _forces(tau, ne.nonlinear_effects(q, v), ne.friction_torques(v))
        rows.append(_solved("constrained_forward_dynamics = KKT of Pinocchio's M, h, G", ours,
                            tuple(np.array(x) for x in zip(*expected)), M, forces, ours[0]))
        D = G @ np.linalg.solve(M, np.swapaxes(G, 1, 2))
        rows.append(_numeric("delassus_matrix = G M^-1 G^T", ne.delassus_matrix(q)[0], D))
        r = rng.uniform(0, 1, (len(q), 1))
        after, impulses = ne.impulse_dynamics(q, free, r)
        error = relative(np.einsum("nij,nj->ni", G, after),
                         -r * np.einsum("nij,nj->ni", G, free))
        rows.append(Row("impulse_dynamics: G qd+ = -r G qd", error, error <= TOLERANCE,
                        tolerance=TOLERANCE))
    if hasattr(ne, "constrained_forward_dynamics_derivatives"):
        rows.append(_constrained_derivatives_row(ne, reference, q[:5], free[:5], tau[:5],
                                                 gains[:5]))
    if hasattr(ne, "closed_loop_inverse_dynamics"):
        tau_a, lam = ne.closed_loop_inverse_dynamics(q, v, qdd)
        full = np.zeros_like(v)
        full[:, list(robot.actuated)] = tau_a
        back = [reference.kkt(*state) for state in zip(q, v, full)]
        rows.append(_numeric("closed_loop_inverse_dynamics: its tau_a gives qdd and lambda "
                             "back (KKT)", (qdd, lam),
                             tuple(np.array(x) for x in zip(*back)), 1e-9))
        off = np.zeros_like(v)
        off[:, list(robot.passive)] = 0.05         # (a spherical joint's quaternion turned)
        closed, residual, converged = ne.close_loops(ne.integrate(q, off))
        rows.append(Row("close_loops from the passive joints 0.05 rad off: converged",
                        float(np.max(residual)), bool(np.all(converged == 1)), tolerance=1e-10))
    return rows


def _constrained_derivatives_row(ne, reference, q, v, tau, gains) -> Row:
    """constrained_forward_dynamics_derivatives against central differences of
    constrained_forward_dynamics: along q in the tangent space (Pinocchio's integrate), qd and
    tau, qdd's and lambda's, with Baumgarte's gains, off the constraints."""
    ours = ne.constrained_forward_dynamics_derivatives(q, v, tau, gains)
    step, n = 1e-6, v.shape[1]
    numeric = [[], [], []]
    for j in range(n):
        e = np.zeros(n)
        e[j] = step
        moved = [(np.array([reference.integrate(x, e) for x in q]), v, tau),
                 (np.array([reference.integrate(x, -e) for x in q]), v, tau),
                 (q, v + e, tau), (q, v - e, tau), (q, v, tau + e), (q, v, tau - e)]
        values = [ne.constrained_forward_dynamics(*args, gains) for args in moved]
        for k in range(3):
            ahead, behind = values[2 * k], values[2 * k + 1]
            numeric[k].append([(a - b) / (2 * step) for a, b in zip(ahead, behind)])
    expected = [np.stack([column[output] for column in numeric[k]], axis=-1)
                for output in (0, 1) for k in range(3)]
    error = max(relative(a, b) for a, b in zip(ours, expected))
    return Row("constrained_forward_dynamics_derivatives = finite differences", error,
               error <= 1e-5, tolerance=1e-5)


def _mujoco_rows(robot, ne, args, f, progress, path, base, tip, snap_angles) -> list[Row]:
    """M, h, g and tau (but friction) against MuJoCo's model of the MJCF file ``path``, and the
    pose and Jacobian of each frame that is one of its sites (MujocoReference)."""
    try:
        from .reference import MujocoReference
        reference = MujocoReference(path, base, tip, robot.spec.root, snap_angles,
                                    free_bodies=robot.free_bodies)
    except ImportError:
        return [Row.skip("MuJoCo", "not installed: pip install 'symdyn[mjcf]'")]
    progress(f"comparing with MuJoCo's model of {path}")
    name = f" (MuJoCo, {Path(path).name})"
    if reference.G.shape[1] != robot.dof:
        return [Row(f"velocities{name}", None, False, f"{path}'s chain has "
                    f"{reference.G.shape[1]}, the robot file {robot.dof}")]
    q, qd, qdd = (args[k] for k in ("q", "qd", "qdd"))
    zero = np.zeros_like(qd)
    rows = [_numeric(f"mass_matrix{name}", ne.mass_matrix(q),
                     np.array([reference.mass_matrix(x) for x in q])),
            _numeric(f"gravity_torques{name}", ne.gravity_torques(q),
                     np.array([reference.inverse_dynamics(x, z, z) for x, z in zip(q, zero)])),
            _numeric(f"nonlinear_effects{name}", ne.nonlinear_effects(q, qd),
                     np.array([reference.inverse_dynamics(x, v, z)
                               for x, v, z in zip(q, qd, zero)])),
            _numeric(f"inverse_dynamics - friction_torques{name}",
                     ne.inverse_dynamics(q, qd, qdd) - f,
                     np.array([reference.inverse_dynamics(*state) for state in zip(q, qd, qdd)]),
                     cancelled=_largest(f))]
    if reference.tool is not None:
        rows += [_numeric(f"forward_kinematics at {reference.tool}{name}",
                          ne.forward_kinematics(q),
                          np.array([reference.frame_pose(x, reference.tool) for x in q])),
                 _numeric(f"jacobian at {reference.tool}{name}", ne.jacobian(q),
                          np.array([reference.frame_jacobian(x, reference.tool) for x in q]))]
    frames = [(k, frame) for k, frame in enumerate(getattr(ne, "FRAMES", ()))
              if reference.frame(frame)]
    if frames:
        T, J = ne.frame_poses(q), ne.frame_jacobians(q)
        rows += [_numeric(f"frame_poses at bodies and sites{name}", T[:, [k for k, _ in frames]],
                          np.array([[reference.frame_pose(x, frame) for _, frame in frames]
                                    for x in q])),
                 _numeric(f"frame_jacobians at bodies and sites{name}",
                          J[:, [k for k, _ in frames]],
                          np.array([[reference.frame_jacobian(x, frame)
                                     for _, frame in frames] for x in q]))]
    if robot.constraints and reference.equalities:
        rows += _equality_rows(robot, ne, reference, name, args["q"].shape[0])
    if any(link.spring for link in robot.links):
        rows.append(_numeric(f"joint_spring_torques = -qfrc_spring{name}",
                             ne.joint_spring_torques(q),
                             np.array([reference.spring_torques(x) for x in q])))
    if robot.tendons and len(reference.tendons) == len(robot.tendons):
        lengths, jacobians = zip(*(reference.tendon_lengths(x) for x in q))
        rows += [_numeric(f"tendon_lengths{name}", ne.tendon_lengths(q), np.array(lengths)),
                 _numeric(f"tendon_jacobian{name}", ne.tendon_jacobian(q),
                          np.array(jacobians))]
    if reference.taken_out:
        rows[0] = replace(rows[0], note="MuJoCo's model without its "
                          + ", ".join(reference.taken_out) + ", which the import leaves out")
    return rows


def _equality_rows(robot, ne, reference, name, states) -> list[Row]:
    """constraint_residual and constraint_jacobian against MuJoCo's rows of the equalities
    they come from (efc_pos, efc_J, world-aligned, turned into the robot file's rows' axes by
    its own kinematics, Loops.axes: a loop's root's), the rows the robot file keeps. phi on
    ``states`` configurations near closed_at (moved up to 0.3 rad, not closed: the residuals
    are not 0) and at closed_at itself, a floating base where closed_at puts it (MuJoCo's qpos0
    on import), but a weld's rotation rows, which MuJoCo measures by a quaternion's vector part
    (the robot file's to first order); G where they hold (closed again on the robot file's own
    kinematics, robot.constraints.Loops)."""
    from .robot.constraints import Loops

    names = [c.name for c in robot.constraints]
    if set(names) - set(reference.equalities):
        return [Row.skip(f"constraint_jacobian{name}", "constraints the MJCF does not name")]
    loops = Loops(robot)
    rng = np.random.default_rng(len(robot.constraints))
    base = closed_configuration(robot)[:robot.base_configuration]

    def expected(values, which):        # MuJoCo's rows of each constraint, in its axes
        q = np.r_[base, [values[s] for s in loops.symbols]]
        rows = reference.equality_rows(q)
        out = []
        for c, axes in zip(robot.constraints, loops.axes(values)):
            mine = rows[c.name][which]
            if c.kind != "coupling":
                mine = np.kron(np.eye(len(mine) // 3), axes.T) @ mine
            out.append(mine[list(c.rows) if c.kind != "coupling" else [0]])
        return q, (np.concatenate(out) if which == 0 else np.vstack(out))
    near = [expected(c, 0) for c in [loops.closed_at] + [loops.near(rng, 0.3)
                                                        for _ in range(states)]]
    q, phi = (np.array(x) for x in zip(*near))
    positions = [k for k, (c, r) in enumerate(_row_owners(robot))
                 if not (c.kind == "weld" and r >= 3)]
    out = [_numeric(f"constraint_residual = equality efc_pos, at closed_at and off it{name}",
                    ne.constraint_residual(q)[:, positions], phi[:, positions])]
    closed = [c for c in (loops.closed(loops.near(rng, 0.3)) for _ in range(states))
              if c is not None]
    if not closed:
        return out + [Row.skip(f"constraint_jacobian{name}",
                               "no configuration near closed_at closes")]
    q, G = (np.array(x) for x in zip(*(expected(c, 1) for c in closed)))
    return out + [_numeric(f"constraint_jacobian = equality rows{name}",
                           ne.constraint_jacobian(q), G)]


def _row_owners(robot) -> list[tuple]:
    """(constraint, its row's index in CONSTRAINT_AXES; a coupling's 0) of each row of phi."""
    return [(c, r) for c in robot.constraints
            for r in (c.rows if c.kind != "coupling" else (0,))]


def _motion_rows(pin, model, robot, ne, q, q_pin, v, v_links, P, Pq, whole: bool) -> list[Row]:
    """integrate and difference against Pinocchio's: of every joint with ``whole`` (its model
    of the robot file, whose q and v are the links' permuted by Pq and P: ours are the
    coordinates' among them), else of a floating base's seven and six alone (the joints'
    q + v and q1 - q0 are check's own rows; Pinocchio's continuous joints would wrap them).
    A quaternion and its negative are one rotation: Pinocchio's sign is its matrix
    conversion's, symdyn's continues q's. ``v``: the coordinates' velocities, ``v_links`` the
    links' (Pinocchio's model's)."""
    head, shift = robot.base_configuration, robot.base_velocities
    ahead = np.roll(q, 1, axis=0)     # each state's neighbour: random pairs of configurations
    moved, between = ne.integrate(q, v), ne.difference(q, ahead)
    reference = np.array([pin.integrate(model, qi, vi) for qi, vi in zip(q_pin, v_links)])
    back = np.array([pin.difference(model, a, b) for a, b in zip(q_pin, np.roll(q_pin, 1, 0))])
    if whole:
        q_at = [robot.link_q.index(x) for x in robot.q[head:]]
        v_at = [robot.link_qd.index(x) for x in robot.qd[shift:]]
        reference = np.hstack([reference[:, :head], (reference[:, head:] @ Pq)[:, q_at]])
        back = np.hstack([back[:, :shift], (back[:, shift:] @ P)[:, v_at]])
        what = ""
    else:
        moved, reference, between, back = moved[:, :7], reference[:, :7], between[:, :6], \
            back[:, :6]
        what = " (the base's seven and six)"
    at = 0
    for kind, _ in robot.joint_kinds:
        for part in kind.units:
            turn = slice(at + part.start, at + part.stop)
            if part.stop - part.start == 4 and turn.stop <= moved.shape[1]:
                moved[:, turn] *= np.sign(np.sum(moved[:, turn] * reference[:, turn], axis=1,
                                                 keepdims=True))
        at += kind.nq
    return [_numeric(f"integrate = Pinocchio integrate{what}, a quaternion up to sign",
                     moved, reference),
            _numeric(f"difference = Pinocchio difference{what}", between, back)]


def _mimic_rows(robot, symbols, ne, q, qd, qdd, urdf) -> list[Row]:
    """inverse_dynamics (friction aside), mass_matrix and the tool's Jacobian against
    Pinocchio's own model with mimic joints: buildModelFromUrdf(..., mimic=True) of the URDF,
    or the robot file's joints made mimic joints (transformJointIntoMimic)."""
    import pinocchio as pin

    from .reference import pinocchio_model, pinocchio_permutation, urdf_mimic_model

    names = ("inverse_dynamics - friction_torques = Pinocchio rnea, mimic joints",
             "mass_matrix = Pinocchio crba, mimic joints",
             "jacobian = Pinocchio frame Jacobian, mimic joints")
    def order(head: int, size: int, entries: str) -> np.ndarray:
        """The coordinates' ``entries`` in Pinocchio's order (a URDF's: the import's own),
        after a floating base's ``head``."""
        P = (np.eye(size - head) if urdf is not None
             else pinocchio_permutation(robot.spec, coordinates=True, entries=entries))
        return np.block([[np.eye(head), np.zeros((head, len(P)))],
                         [np.zeros((len(P), head)), P]])
    V = order(robot.base_velocities, robot.dof, "v")
    Q = order(robot.base_configuration, robot.nq, "q")
    try:
        model, configuration = (urdf_mimic_model(urdf[0], urdf[3], robot.spec.root)
                                if urdf is not None
                                else (pinocchio_model(robot.spec, symbols), np.atleast_2d))
    except (RuntimeError, ValueError) as exc:       # a mimic joint before the one it follows
        return [Row.skip(name, f"Pinocchio has no model of these mimic joints: {exc}")
                for name in names]
    operational = pin.FrameType.OP_FRAME            # (a URDF may have a link named tool)
    frame = (model.getFrameId("tool", operational) if model.existFrame("tool", operational)
             else None)
    if robot.several:     # Pinocchio 4.1's crba there disagrees with its own rnea (4e-4)
        names = (names[0], "mass_matrix = Pinocchio rnea's columns, mimic joints", names[2])
    tau, M, J = [], [], []
    for qi, vi, ai in zip(configuration(q @ Q.T), qd @ V.T, qdd @ V.T):
        tau.append(V.T @ pin.rnea(model, model.createData(), qi, vi, ai))
        if robot.several:
            rest = pin.rnea(model, model.createData(), qi, 0 * vi, 0 * vi)
            full = np.array([pin.rnea(model, model.createData(), qi, 0 * vi, e) - rest
                             for e in np.eye(model.nv)]).T
        else:   # its crba adds the mimic joints' terms into data.M without clearing it
            full = pin.crba(model, model.createData(), qi)
            full = np.triu(full) + np.triu(full, 1).T
        M.append(V.T @ full @ V)
        if frame is not None:
            J.append(pin.computeFrameJacobian(model, model.createData(), qi, frame,
                                              pin.LOCAL_WORLD_ALIGNED) @ V)
    friction = ne.friction_torques(qd)
    rows = [_numeric(names[0], ne.inverse_dynamics(q, qd, qdd) - friction, tau,
                     cancelled=_largest(friction)),
            _numeric(names[1], ne.mass_matrix(q), M)]
    if robot.several:
        rows[1] = replace(rows[1], note="Pinocchio 4.1's crba with mimic and spherical joints "
                          "is not its own rnea's M")
    if frame is not None:
        rows.append(_numeric(names[2], ne.jacobian(q), J))
    return rows


def _snapping_rows(urdf, root, snapped, q, qd, qdd) -> list[Row]:
    """How far snapping the URDF's angles moves Pinocchio's model: tau, M and the tool's pose of
    the URDF as written against those of the snapped one (no row if nothing was snapped)."""
    import pinocchio as pin

    from .reference import urdf_model

    path, base, tip, tolerance = urdf
    written, _ = urdf_model(path, base, tip, root=root)
    if all(a.isApprox(b, 0.0) for a, b in zip(written.jointPlacements, snapped.jointPlacements)):
        return []

    def terms(model):
        data, frame = model.createData(), model.getFrameId("tool", pin.FrameType.OP_FRAME)
        tau, M, pose = [], [], []
        for qi, vi, ai in zip(q, qd, qdd):
            pin.framesForwardKinematics(model, data, qi)
            pose.append(data.oMf[frame].homogeneous.copy())
            tau.append(pin.rnea(model, data, qi, vi, ai).copy())
            M.append(pin.crba(model, data, qi).copy())
        return np.array(tau), np.array(M), np.array(pose)

    error = relative(terms(snapped), terms(written))
    return [Row(f"the URDF's angles snapped at {tolerance:g} = as written (Pinocchio: tau, M, "
                "tool pose)", error, error <= SNAPPING_TOLERANCE,
                "what --snap-angles changes", SNAPPING_TOLERANCE)]


def _differenced(pin, model, function, q, v, step=1e-6) -> tuple[np.ndarray, np.ndarray]:
    """The derivatives of ``function``(q, v) (Pinocchio's rnea or aba at fixed acceleration or
    force) along q in the tangent space (Pinocchio's integrate) and along v, by central
    differences of step ``step``."""
    units = np.eye(model.nv) * step
    along_q = [(function(pin.integrate(model, q, e), v) - function(pin.integrate(model, q, -e),
                                                                  v)) / (2 * step) for e in units]
    along_v = [(function(q, v + e) - function(q, v - e)) / (2 * step) for e in units]
    return np.array(along_q).T, np.array(along_v).T


def _energy_rows(ne, q, qd, ref, ours, mass, urdf) -> list[Row]:
    """The energies and the centre of mass against Pinocchio's. A URDF's model holds what the
    chain leaves out too (bodies fixed to the world before the chain's base): its potential
    energy is then compared up to a constant, and its centre of mass where the masses agree."""
    rows = [_numeric("kinetic_energy = Pinocchio computeKineticEnergy",
                     ne.kinetic_energy(q, qd), ref["kinetic"])]
    V, V_ref = ne.potential_energy(q), np.array(ref["potential"])
    if urdf:
        rows.append(_numeric("potential_energy = Pinocchio computePotentialEnergy (up to a "
                             "constant)", V - V[0], V_ref - V_ref[0]))
    else:
        rows.append(_numeric("potential_energy = Pinocchio computePotentialEnergy", V, V_ref))
    name = "center_of_mass = Pinocchio centerOfMass"
    if ours == 0:
        rows.append(Row.skip(name, "the links have no mass"))
    elif abs(ours - mass) > TOLERANCE * mass:
        rows.append(Row.skip(name, f"the URDF's model weighs {mass:g} kg with the bodies off "
                             f"the chain, the chain {ours:g} kg"))
    else:
        rows.append(_numeric(name, ne.center_of_mass(q), ref["com"]))
        rows.append(_numeric("com_jacobian = Pinocchio jacobianCenterOfMass",
                             ne.com_jacobian(q), ref["com_jacobian"]))
        rows.append(_numeric("centroidal_map = Pinocchio computeCentroidalMap",
                             ne.centroidal_map(q), ref["centroidal"]))
        rows.append(_numeric(f"centroidal_map_dot_qd = Pinocchio {ref['centroidal_dot_by']}",
                             ne.centroidal_map_dot_qd(q, qd), ref["centroidal_dot"]))
    return rows
