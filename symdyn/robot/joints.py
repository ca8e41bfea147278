"""Joint kinds, one class each (Pinocchio's joint models, MuJoCo's joint types).

A kind says how many numbers its configuration has (nq) and its velocity (nv), where it rests
(``neutral``), and how a configuration moves along a velocity and back: ``integrate`` and
``difference``, its Lie group's exponential and logarithm (Pinocchio's JointModel*::integrate
and difference). The derivations ask a link's kind (``Link.kind``; a floating base's is
FREE_FLYER) and never which kind it is. Adding a kind is a class here, its entry in KINDS, and
its tests.

Steps are named through a builder ``b`` passed in (program.builder.ProgramBuilder:
``define(name, expr)`` and ``vector(name, values)``), so that the model needs nothing of the
program's.

A quaternion is (x, y, z, w), Eigen's and Pinocchio's order. A spherical joint's turns by the
exponential of its angular velocity in its own frame (JointModelSpherical), and back by the
logarithm. A free flyer moves by the exponential of its twist in its own frame
(JointModelFreeFlyer, whose velocity is LOCAL): with omega the angular and u the linear part of
v, theta = |omega|,

    R_1 = R_0 exp([omega]x),      p_1 = p_0 + R_0 V u,
    V   = I + (1 - cos theta)/theta^2 [omega]x + (theta - sin theta)/theta^3 [omega]x^2,

the quaternion q_1 = q_0 (omega/theta sin(theta/2), cos(theta/2)) (Hamilton's product, the
rotation of R_1), brought back to unit norm to first order, q (3 - |q|^2)/2, as Pinocchio does so
that a long integration keeps a unit quaternion. ``difference`` is its inverse, the logarithm of
q_0^-1 q_1 taken the short way (|theta| <= pi): omega = 2 atan2(|r|, |w|)/|r| r for the relative
quaternion (r, w) with w >= 0, u = V^-1 R_0^T (p_1 - p_0), V^-1 = I - [omega]x/2 +
(1 - (theta/2) cot(theta/2))/theta^2 [omega]x^2.

No branch: each coefficient with a removable singularity at theta = 0 divides by
theta + 1 - sign(theta), which is theta but at exactly 0, where the coefficient multiplies a zero
vector. Nearby, the direct formulas lose no accuracy that matters: (1 - cos theta)/theta^2 is
written 2 sin^2(theta/2)/theta^2, and the cancellation in the others is of a term that multiplies
[omega]x^2, of size theta^2, so the result keeps its absolute accuracy.
"""
from __future__ import annotations

import numpy as np
import sympy

from ..spatial import skew
from .dh import rot_z

_O, _X, _Y, _Z = (0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)
_LIMITS = (("lower", -1), ("upper", 1), ("velocity", 1), ("effort", 1))
_UNIT = sympy.Float(1.0)      # a quaternion's entries lie within [-1, 1]


class JointKind:
    """What every kind supplies. ``subspace``: its motion subspace S in its own frame, a
    column per velocity, each the (linear, angular) velocity of the joint frame's origin that
    the velocity gives (Featherstone's S, Pinocchio's constant S; [linear; angular] as a
    Jacobian's rows); ``suffixes``: how the names of its velocities' quantities end (none for
    one). ``integrate(b, name, q, v)``: q (nq entries) moved by v (nv) for unit time;
    ``difference(b, name, q0, q1)``: the nv entries of the velocity that moves q0 to q1 in unit
    time; ``name`` prefixes the steps they name."""

    name: str
    nq: int
    nv: int
    neutral: tuple           # the configuration at rest (Pinocchio's neutral)
    subspace: tuple          # nv (linear, angular) pairs of 3-tuples
    suffixes: tuple = ()
    coordinates: tuple = ()  # how the names of its configuration's entries end (none for one)
    velocity_names: tuple = ()   # and its velocity's (its suffixes, unless given)
    letter = ("v", "v")      # a printout's letter for its velocity (LaTeX, text)
    # Whether the robot file gives it an axis (its joint frame's z), and whether its joint
    # frame may be turned about that axis at will (the derivation picks the cheapest turn):
    # not where its coordinates are along the frame's x and y.
    axis: bool = True
    symmetric: bool = True
    dh = False               # a DH table's row places it (a turn or a slide about its z)
    angular = False          # its one coordinate is an angle (a file's degrees are read so)
    configuration_text = "one number"    # what a message says its configuration is
    # what the generated code's header says of its entries of q and qd, as lines
    layout: tuple = ()
    # Its name in URDF and in MJCF (None: the format has no such joint), and the order of its
    # configuration's entries in MuJoCo's qpos (a quaternion's w first)
    urdf: str | None = None
    mjcf: str | None = None
    qpos_order: tuple = (0,)

    def symbols(self, i: int) -> tuple[tuple, tuple, tuple]:
        """Link i's joint variables: its configuration's nq symbols, its velocity's nv and
        their rates': q{i}, qd{i}, qdd{i} for a joint of one coordinate, else each ending in
        its entry's name (q{i}_x ... q{i}_w, qd{i}_x ...)."""
        if not self.coordinates:
            return tuple((sympy.Symbol(f"{prefix}{i}"),) for prefix in ("q", "qd", "qdd"))
        return tuple(tuple(sympy.Symbol(f"{prefix}{i}_{end}") for end in ends)
                     for prefix, ends in (("q", self.coordinates), ("qd", self.velocity_names),
                                          ("qdd", self.velocity_names)))

    def transform(self, configuration, offset=0) -> tuple[sympy.Matrix, sympy.Matrix]:
        """The joint's own motion: the rotation and translation of its frame from where it
        rests (turned about its axis by ``offset``, the joint frame's choice) at
        ``configuration``, in the resting frame's axes: Rz(offset) X_J(q)."""
        turn = rot_z(offset)[:3, :3]
        rotation, translation = self.motion_of(configuration)
        return turn * rotation, turn * translation

    def motion_of(self, configuration) -> tuple[sympy.Matrix, sympy.Matrix]:
        """X_J(q): the rotation and translation the configuration gives the joint frame."""
        raise NotImplementedError

    def integrate(self, b, name: str, q, v) -> list:
        raise NotImplementedError

    def difference(self, b, name: str, q0, q1) -> list:
        raise NotImplementedError

    def placement(self, b, link) -> tuple[sympy.Matrix, sympy.Matrix]:
        """^{p(i)}R_i and ^{p(i)}P_i of ``link`` (model.Link, whose rotation and position are
        functions of its configuration), with the steps the kind names once for all uses."""
        return sympy.Matrix(link.rotation), sympy.Matrix(link.position)

    def angle_steps(self, b, link) -> dict:
        """{sin or cos of the joint's angle: its step}: a turn about its axis has them (its
        placement's, named once however often asked; the composite algorithm turns bodies
        about the axis with them), other kinds none."""
        return {}

    def rates(self, q, v) -> dict:
        """{entry of q: its time derivative} where q moves at the velocity v (nv): the
        direction along which a derivative in the configuration moves (a Jacobian's columns
        are these rates for unit velocities); the entries that do not move left out."""
        raise NotImplementedError

    def bounds(self, limits) -> dict:
        """Its limits in the form of Pinocchio's model: "lower" and "upper" of each of q's nq
        entries, "velocity" and "effort" of each velocity; ``limits`` the robot file's
        ({lower, upper, velocity, effort}, any of them, or None), unbounded (oo) elsewhere."""
        limits = limits or {}
        return {key: [limits.get(key, sign * sympy.oo)] for key, sign in _LIMITS}

    def random(self, rng, states: int):
        """Random configurations, (states, nq) numbers (numpy's ``rng``), as Pinocchio's
        randomConfiguration draws them for a check: over the whole range it moves in."""
        raise NotImplementedError

    def rate_numbers(self, q, v):
        """``rates`` in numbers, row by row: dq/dt (states, nq) at velocities v (states, nv)."""
        raise NotImplementedError

    # Where its configuration holds a unit quaternion (or a unit circle's cosine and sine),
    # and what a message calls it
    units: tuple = ()
    unit_word = "quaternion"

    def normalized(self, q: list) -> list:
        """q (nq numbers or arrays of them) brought back to its manifold, as Pinocchio's
        normalize: each unit part to unit norm (another turns no rigid body)."""
        q = list(q)
        for part in self.units:
            norm = np.sqrt(sum(np.asarray(x) ** 2 for x in q[part]))
            q[part] = [x / norm for x in q[part]]
        return q

    def integrate_numbers(self, q, v) -> list[float]:
        """``integrate`` in numbers: one configuration (nq) moved by one velocity (nv)."""
        values = self.integrate(_Numbers(), "", [sympy.Float(x) for x in q],
                                [sympy.Float(x) for x in v])
        return [float(x) for x in values]

    def invariant(self, ten) -> tuple:
        """The part of a link's ten parameters (spatial.PARAMETERS' order) that its parent
        sees the same whatever the joint's configuration, and that adds nothing to the joint's
        own forces: what the base parameters regroup into the parent (robot/regroup.py).
        None of it, unless the kind says."""
        return (0,) * 10

    def turns(self) -> bool:
        """Whether any of its velocities turns the frame (its columns need the lever arm)."""
        return any(angular != _O for _, angular in self.subspace)

    # Whether S is the same in its own frame at every configuration (then the joint adds no
    # velocity product of its own, c_J = 0, and the composite formulas hold as they are)
    constant = True

    def columns(self, q) -> tuple:
        """S(q): the motion subspace at configuration ``q``, as ``subspace``."""
        return self.subspace

    def column_rates(self, q, v) -> tuple:
        """dS/dt in its own frame, column by column ((linear, angular) each), at q moving at
        v: zeros where S is constant."""
        return ((sympy.zeros(3, 1), sympy.zeros(3, 1)),) * self.nv

    def bias(self, q, v) -> tuple[sympy.Matrix, sympy.Matrix]:
        """c_J = dS/dt v (linear, angular) at q moving at v."""
        linear, angular = sympy.zeros(3, 1), sympy.zeros(3, 1)
        for (rate_v, rate_w), x in zip(self.column_rates(q, v), v):
            linear, angular = linear + rate_v * x, angular + rate_w * x
        return linear, angular

    def motion(self, v, q=None) -> tuple[sympy.Matrix, sympy.Matrix]:
        """The joint frame's own (linear, angular) velocity S(q) v at velocities ``v`` (nv)."""
        linear, angular = sympy.zeros(3, 1), sympy.zeros(3, 1)
        for (s_v, s_w), x in zip(self.columns(q), v):
            linear, angular = linear + sympy.Matrix(s_v) * x, angular + sympy.Matrix(s_w) * x
        return linear, angular

    def project(self, f, n, q=None) -> list:
        """S(q)^T [f; n]: the forces along its velocities of the force f and moment n at its
        frame's origin (in its axes)."""
        return [sympy.Matrix(s_v).dot(f) + sympy.Matrix(s_w).dot(n)
                for s_v, s_w in self.columns(q)]


class _Vector(JointKind):
    """A joint whose configuration is a vector its velocity moves: q + v, and q1 - q0 back
    (dq/dt = v, nq = nv)."""

    def integrate(self, b, name, q, v):
        return [x + dx for x, dx in zip(q, v)]

    def difference(self, b, name, q0, q1):
        return [x1 - x0 for x0, x1 in zip(q0, q1)]

    def rates(self, q, v):
        return {x: dx for x, dx in zip(q, v) if dx != 0}

    def random(self, rng, states):
        """Within [-pi, pi] (rad, or as many metres)."""
        return rng.uniform(-np.pi, np.pi, (states, self.nq))

    def rate_numbers(self, q, v):
        return v


class _Coordinate(_Vector):
    """A joint of one coordinate."""

    nq = nv = 1
    neutral = (0,)


class Revolute(_Coordinate):
    """A turn about the joint frame's z axis by q (rad)."""

    name = urdf = "revolute"
    mjcf = "hinge"
    angular = dh = True
    subspace = ((_O, _Z),)

    def transform(self, configuration, offset=0):
        """Rz(q + offset): the offset is added to the angle before its sine and cosine."""
        return rot_z(configuration[0] + offset)[:3, :3], sympy.zeros(3, 1)

    def invariant(self, ten):
        """The mass M, the first moment MZ along the axis and YY on both XX and YY."""
        m, _, _, mz, _, _, yy, _, _, _ = ten
        return (m, 0, 0, mz, yy, 0, yy, 0, 0, 0)

    def placement(self, b, link):
        """The rotation in the steps S_i, C_i of its angle's sine and cosine (q_i, or q_i plus
        its offset: see robot.model)."""
        return (sympy.Matrix(link.rotation).xreplace(self.angle_steps(b, link)),
                sympy.Matrix(link.position))

    def angle_steps(self, b, link):
        return {f: b.define(f"{'S' if f.func is sympy.sin else 'C'}{link.index}", f)
                for f in sorted(link.rotation.atoms(sympy.sin, sympy.cos),
                                key=sympy.default_sort_key)}


class Prismatic(_Coordinate):
    """A slide along the joint frame's z axis by q (m)."""

    name = urdf = "prismatic"
    mjcf = "slide"
    dh = True
    subspace = ((_Z, _O),)

    def motion_of(self, configuration):
        return sympy.eye(3), sympy.Matrix([0, 0, configuration[0]])

    def invariant(self, ten):
        """The whole rotational inertia (a body without mass or first moment)."""
        return (0, 0, 0, 0, *ten[4:])


class Helical(Revolute):
    """A screw about the joint frame's z axis: a turn by q (rad) and a slide by pitch q (m)
    (Pinocchio's JointModelHelical, whose pitch is in m/rad)."""

    name = "helical"
    urdf = mjcf = None
    dh = False

    def __init__(self, pitch=0):
        self.pitch = sympy.sympify(pitch)
        self.subspace = (((0, 0, self.pitch), _Z),)

    def transform(self, configuration, offset=0):
        rotation, _ = super().transform(configuration, offset)
        return rotation, sympy.Matrix([0, 0, self.pitch * configuration[0]])

    def invariant(self, ten):
        """The turn's axial inertia alone: a slide along the axis moves the mass."""
        return (0, 0, 0, 0, ten[6], 0, ten[6], 0, 0, 0)


class Universal(_Vector):
    """Two turns whose axes cross at the joint frame's origin: by q1 about its z axis, then by
    q2 about ``second`` (a unit vector of that turned frame, normal to z): Rz(q1) Rot(second,
    q2) (Pinocchio's JointModelUniversal; a Cardan joint). Its motion subspace turns with q2,
    S(q) = [R2^T z, second] (angular), so that it has a velocity product of its own,
    c_J = dS/dt v = (R2^T z x second) qd1 qd2, R2 = Rot(second, q2)."""

    name = "universal"
    nq = nv = 2
    neutral = (0, 0)
    coordinates = velocity_names = suffixes = ("1", "2")
    symmetric = False
    constant = False
    angular = True
    configuration_text = "two angles"
    layout = ("two entries of q, its angles about its first axis and then its second, and two",
              "of qd, their rates (Pinocchio's JointModelUniversal)")

    def __init__(self, second=(1, 0, 0)):
        self.second = sympy.Matrix(second)
        self.subspace = ((_O, _Z), (_O, tuple(self.second)))

    def _second_turn(self, angle) -> sympy.Matrix:
        K = skew(self.second)
        return sympy.eye(3) + sympy.sin(angle) * K + (1 - sympy.cos(angle)) * K * K

    def transform(self, configuration, offset=0):
        first, second = configuration
        return (rot_z(first + offset)[:3, :3] * self._second_turn(second),
                sympy.zeros(3, 1))

    def columns(self, q):
        if q is None:
            return self.subspace
        turned = self._second_turn(q[1]).T * sympy.Matrix(_Z)
        return ((_O, tuple(turned)), (_O, tuple(self.second)))

    def column_rates(self, q, v):
        """The first column turns back as the second turn goes: (R2^T z) x second qd2."""
        (_, first), _ = self.columns(q)
        zero = sympy.zeros(3, 1)
        return ((zero, sympy.Matrix(first).cross(self.second) * v[1]), (zero, zero))


class Translation(_Vector):
    """A slide along all three axes of the joint frame: its origin's position (Pinocchio's
    JointModelTranslation)."""

    name = "translation"
    nq = nv = 3
    neutral = (0, 0, 0)
    subspace = ((_X, _O), (_Y, _O), (_Z, _O))
    coordinates = velocity_names = ("x", "y", "z")
    suffixes = ("fx", "fy", "fz")
    axis = symmetric = False
    configuration_text = "a position"
    layout = ("three entries of q and of qd, its position (x, y, z) in its frame and their",
              "rates (Pinocchio's JointModelTranslation)")

    def motion_of(self, configuration):
        return sympy.eye(3), sympy.Matrix(configuration)

    invariant = Prismatic.invariant


class _Turning(JointKind):
    """A kind whose configuration holds a unit quaternion: its one unit part (``units``)."""

    def placement(self, b, link):
        """Its fixed part times its quaternion's rotation, whose entries are named once
        (expanded, each entry of the product would carry every monomial of the quaternion's
        times a constant)."""
        (turn,) = self.units
        quaternion = link.configuration[turn]
        turn = quaternion_rotation(quaternion)
        turn = sympy.Matrix(3, 3, [b.define(f"Rq{link.index}_{'xyz'[r]}{'xyz'[c]}", turn[r, c])
                                   for r in range(3) for c in range(3)])
        fixed = sympy.Matrix(link.rotation).xreplace(dict(zip(quaternion, (0, 0, 0, 1))))
        return fixed * turn, sympy.Matrix(link.position)


class Spherical(_Turning):
    """A turn about all three axes: a unit quaternion, and the angular velocity in the joint
    frame's own axes (Pinocchio's JointModelSpherical, MuJoCo's ball)."""

    name = "spherical"
    nq, nv = 4, 3
    neutral = (0, 0, 0, 1)
    subspace = ((_O, _X), (_O, _Y), (_O, _Z))
    suffixes = ("x", "y", "z")
    coordinates = ("x", "y", "z", "w")
    velocity_names = ("x", "y", "z")
    letter = (r"\omega", "ω")
    axis = symmetric = False
    mjcf = "ball"
    units = (slice(0, 4),)
    configuration_text = "a quaternion"
    layout = ("four entries of q, the unit quaternion (x, y, z, w) of its frame's turn, and",
              "three of qd, its angular velocity in its own axes (Pinocchio's",
              "JointModelSpherical, MuJoCo's ball)")
    qpos_order = (3, 0, 1, 2)

    def motion_of(self, configuration):
        return quaternion_rotation(configuration), sympy.zeros(3, 1)

    def integrate(self, b, name, q, v):
        return turned(b, name, q, v)

    def invariant(self, ten):
        """The mass at the point it turns about."""
        return (ten[0], 0, 0, 0, 0, 0, 0, 0, 0, 0)

    def difference(self, b, name, q0, q1):
        return turn_between(b, name, q0, q1)[0]

    def rates(self, q, v):
        return _moving(q, quaternion_rates(q, v))

    def random(self, rng, states):
        return _random_turns(rng, states)

    def rate_numbers(self, q, v):
        return np.stack(quaternion_rates(q.T, v.T), axis=1)

    def bounds(self, limits):
        """Its quaternion's entries within [-1, 1], its velocity and torque unbounded."""
        return {"lower": [-_UNIT] * 4, "upper": [_UNIT] * 4, "velocity": [sympy.oo] * 3,
                "effort": [sympy.oo] * 3}


class FreeFlyer(_Turning):
    """A body moving freely: its origin's position and a unit quaternion; its velocity [v;
    omega] in its own axes (Pinocchio's JointModelFreeFlyer, LOCAL; MuJoCo's free joint, whose
    linear velocity is in the world's)."""

    name = "free_flyer"
    nq, nv = 7, 6
    neutral = (0, 0, 0, 0, 0, 0, 1)
    subspace = ((_X, _O), (_Y, _O), (_Z, _O), (_O, _X), (_O, _Y), (_O, _Z))
    suffixes = ("fx", "fy", "fz", "nx", "ny", "nz")
    axis = symmetric = False
    coordinates = ("x", "y", "z", "qx", "qy", "qz", "qw")
    velocity_names = ("vx", "vy", "vz", "wx", "wy", "wz")
    urdf, mjcf = "floating", "free"
    units = (slice(3, 7),)
    configuration_text = "a position and a quaternion"
    layout = ("seven entries of q, its frame's position and unit quaternion (x, y, z, w), and",
              "six of qd, [v; omega] in its own axes (Pinocchio's JointModelFreeFlyer)")
    qpos_order = (0, 1, 2, 6, 3, 4, 5)

    def motion_of(self, configuration):
        return quaternion_rotation(configuration[3:7]), sympy.Matrix(configuration[:3])

    def integrate(self, b, name, q, v):
        p0, quat0 = sympy.Matrix(q[:3]), q[3:7]
        u, omega = sympy.Matrix(v[:3]), sympy.Matrix(v[3:6])
        theta = b.define(f"{name}theta", sympy.sqrt(omega.dot(omega)))
        safe = _nonzero(b, f"{name}theta", theta)
        half = (b.define(f"{name}sh", sympy.sin(theta / 2)),
                b.define(f"{name}ch", sympy.cos(theta / 2)))
        W = skew(omega)
        V = (sympy.eye(3) + 2 * (half[0] / safe) ** 2 * W
             + b.define(f"{name}c3", (theta - sympy.sin(theta)) / safe ** 3) * W * W)
        step = b.vector(f"{name}Vu", V * u)
        p1 = p0 + quaternion_rotation(quat0) * step
        return [*p1, *turned(b, name, quat0, omega, theta, half)]

    def difference(self, b, name, q0, q1):
        omega, theta, ratio, w = turn_between(b, name, q0[3:7], q1[3:7])
        W = skew(sympy.Matrix(omega))
        inverse = (sympy.eye(3) - W / 2 + b.define(
            f"{name}e2", (1 - ratio * w) / _nonzero(b, f"{name}theta", theta) ** 2) * W * W)
        delta = b.vector(f"{name}delta", [a - c for a, c in zip(q1[:3], q0[:3])])
        local = b.vector(f"{name}dp", quaternion_rotation(q0[3:7]).T * delta)
        return [*(inverse * local), *omega]

    def bounds(self, limits):
        """Its position unbounded, its quaternion's entries within [-1, 1], its velocity and
        wrench unbounded."""
        return {"lower": [-sympy.oo] * 3 + [-_UNIT] * 4, "upper": [sympy.oo] * 3 + [_UNIT] * 4,
                "velocity": [sympy.oo] * 6, "effort": [sympy.oo] * 6}

    def rates(self, q, v):
        """d p/dt = R v and d quat/dt = quat (0, omega) / 2."""
        dp = quaternion_rotation(q[3:]) * sympy.Matrix(v[:3])
        return _moving(q, [*dp, *quaternion_rates(q[3:], v[3:])])

    def random(self, rng, states):
        """Its position within [-1, 1] m, its turn uniform over rotations."""
        return np.hstack([rng.uniform(-1, 1, (states, 3)), _random_turns(rng, states)])

    def rate_numbers(self, q, v):
        R = np.array(_rotation_entries(*q[:, 3:7].T))          # (3, 3, states)
        return np.hstack([np.einsum("ijn,nj->ni", R, v[:, :3]),
                          np.stack(quaternion_rates(q[:, 3:7].T, v[:, 3:6].T), axis=1)])


class Planar(JointKind):
    """A slide along the joint frame's x and y and a turn about its z, the plane's normal:
    (x, y, cos theta, sin theta), its velocity (vx, vy, omega_z) in its own axes (Pinocchio's
    JointModelPlanar, URDF's planar joint, whose axis is the normal). It moves by SE(2)'s
    exponential: R_1 = R_0 Rz(w), p_1 = p_0 + R_0 V (vx, vy), V = [[a, -c], [c, a]] with
    a = sin(w)/w and c = (1 - cos w)/w, and back by its logarithm, V^-1 = [[e, w/2], [-w/2, e]],
    e = (w/2) cot(w/2). A quotient with a removable singularity at w = 0 divides by
    w + 1 - sign(w)^2, and its numerator is shifted alike where its limit there is 1."""

    name = urdf = "planar"
    nq, nv = 4, 3
    neutral = (0, 0, 1, 0)
    subspace = ((_X, _O), (_Y, _O), (_O, _Z))
    coordinates = ("x", "y", "c", "s")
    velocity_names = ("vx", "vy", "w")
    suffixes = ("fx", "fy", "nz")
    symmetric = False
    units = (slice(2, 4),)
    unit_word = "(cos, sin)"
    configuration_text = "a position in the plane and the cosine and sine of an angle"
    layout = ("four entries of q, (x, y, cos, sin) in its plane, and three of qd, (vx, vy,",
              "omega) in its own axes (Pinocchio's JointModelPlanar)")

    def motion_of(self, configuration):
        x, y, c, s = configuration
        return sympy.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]]), sympy.Matrix([x, y, 0])

    def integrate(self, b, name, q, v):
        x, y, c, s = q
        vx, vy, w = v
        gap = b.define(f"{name}gap", 1 - sympy.sign(w) ** 2)
        safe = b.define(f"{name}w_s", w + gap)
        sin, cos = b.define(f"{name}sw", sympy.sin(w)), b.define(f"{name}cw", sympy.cos(w))
        a = b.define(f"{name}a", (sin + gap) / safe)
        e = b.define(f"{name}e", 2 * sympy.sin(w / 2) ** 2 / safe)
        dx, dy = b.define(f"{name}dx", a * vx - e * vy), b.define(f"{name}dy", e * vx + a * vy)
        c1, s1 = b.define(f"{name}c", c * cos - s * sin), b.define(f"{name}s", s * cos + c * sin)
        scale = b.define(f"{name}unit", (3 - c1 * c1 - s1 * s1) / 2)
        return [x + c * dx - s * dy, y + s * dx + c * dy, c1 * scale, s1 * scale]

    def difference(self, b, name, q0, q1):
        x0, y0, c0, s0 = q0
        x1, y1, c1, s1 = q1
        w = b.define(f"{name}w", sympy.atan2(c0 * s1 - s0 * c1, c0 * c1 + s0 * s1))
        half = w / 2
        gap = b.define(f"{name}gap", 1 - sympy.sign(w) ** 2)
        e = b.define(f"{name}e", sympy.cos(half) * (half + gap) / (sympy.sin(half) + gap))
        dx, dy = x1 - x0, y1 - y0
        tx, ty = b.define(f"{name}tx", c0 * dx + s0 * dy), b.define(f"{name}ty", c0 * dy - s0 * dx)
        return [e * tx + half * ty, e * ty - half * tx, w]

    def rates(self, q, v):
        x, y, c, s = q
        vx, vy, w = v
        return _moving(q, [c * vx - s * vy, s * vx + c * vy, -s * w, c * w])

    def random(self, rng, states):
        """Its position within [-1, 1] m, its angle uniform."""
        angle = rng.uniform(-np.pi, np.pi, states)
        return np.column_stack([rng.uniform(-1, 1, (states, 2)), np.cos(angle), np.sin(angle)])

    def rate_numbers(self, q, v):
        _, _, c, s = q.T
        vx, vy, w = v.T
        return np.column_stack([c * vx - s * vy, s * vx + c * vy, -s * w, c * w])

    def bounds(self, limits):
        """Its position unbounded, its cosine and sine within [-1, 1], its velocity and
        force unbounded."""
        return {"lower": [-sympy.oo] * 2 + [-_UNIT] * 2, "upper": [sympy.oo] * 2 + [_UNIT] * 2,
                "velocity": [sympy.oo] * 3, "effort": [sympy.oo] * 3}

    def invariant(self, ten):
        """Its axial inertia, yy on xx and yy: massless, it looks the same however it moves in
        the plane, and adds nothing to the torque about the normal."""
        return (0, 0, 0, 0, ten[6], 0, ten[6], 0, 0, 0)


# The kinds a link's joint may be, by the robot file's name; a floating base's is FREE_FLYER.
FREE_FLYER = FreeFlyer()
KINDS = {kind.name: kind for kind in (Revolute(), Prismatic(), Helical(), Universal(),
                                      Spherical(), Translation(), Planar(), FREE_FLYER)}


def kind_of(name: str, pitch=0, second=None) -> JointKind:
    """The kind of a robot file's ``joint``: KINDS', a helical joint's of its ``pitch``, a
    universal joint's of its ``second`` axis (in its joint frame)."""
    if name == "helical":
        return Helical(pitch)
    if name == "universal":
        return Universal(second)
    return KINDS[name]


class _Numbers:
    """A builder that names nothing: each step its value (integrate_numbers)."""

    @staticmethod
    def define(name, expr):
        return sympy.sympify(expr).evalf()

    @staticmethod
    def vector(name, values):
        return sympy.Matrix(values).evalf()


# -- quaternions ----------------------------------------------------------------------------------
def quaternion_rotation(quaternion) -> sympy.Matrix:
    """The rotation matrix of a quaternion (x, y, z, w), by the formula Eigen's
    toRotationMatrix (and so Pinocchio) uses: a rotation for a unit quaternion; for another,
    the same matrix Pinocchio computes, which is not a rotation."""
    return sympy.Matrix(_rotation_entries(*quaternion))


def _rotation_entries(x, y, z, w) -> list:
    """quaternion_rotation's rows, in whatever x, y, z, w are: symbols, or arrays of numbers."""
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def _random_turns(rng, states):
    """Unit quaternions uniform over rotations (normalized Gaussian 4-vectors), (states, 4)."""
    turn = rng.normal(size=(states, 4))
    return turn / np.linalg.norm(turn, axis=1, keepdims=True)


def quaternion_rates(quaternion, omega) -> list:
    """d quat/dt = quat (omega, 0) / 2 (Hamilton's product) of a quaternion (x, y, z, w) whose
    frame turns at the angular velocity ``omega`` in its own axes (symbols, or arrays of
    numbers)."""
    x, y, z, w = quaternion
    wx, wy, wz = omega
    return [(w * wx + y * wz - z * wy) / 2, (w * wy + z * wx - x * wz) / 2,
            (w * wz + x * wy - y * wx) / 2, -(x * wx + y * wy + z * wz) / 2]


def turned(b, name: str, quat0, omega, theta=None, half=None) -> list:
    """The unit quaternion quat0 turned by the angular velocity omega in its own frame for unit
    time: quat0 (omega/theta sin(theta/2), cos(theta/2)), renormalized to first order; its
    angle theta and (sin, cos) of theta/2 where already named."""
    omega = sympy.Matrix(omega)
    if theta is None:
        theta = b.define(f"{name}theta", sympy.sqrt(omega.dot(omega)))
        half = (b.define(f"{name}sh", sympy.sin(theta / 2)),
                b.define(f"{name}ch", sympy.cos(theta / 2)))
    half_sin, half_cos = half
    turn = b.vector(f"{name}r", omega * b.define(f"{name}s_theta",
                                                 half_sin / _nonzero(b, f"{name}theta", theta)))
    quat1 = [b.define(f"{name}quat{k}", x)
             for k, x in enumerate(_product(quat0, [*turn, half_cos]))]
    scale = b.define(f"{name}unit", (3 - sum(x * x for x in quat1)) / 2)
    return [x * scale for x in quat1]


def turn_between(b, name: str, quat0, quat1) -> tuple:
    """(omega, theta, (theta/2) / sin(theta/2), cos(theta/2)): the rotation vector from unit
    quaternion quat0 to quat1 in quat0's frame, the short way round."""
    x0, y0, z0, w0 = quat0
    relative = [b.define(f"{name}rel{k}", x) for k, x in enumerate(
        _product([-x0, -y0, -z0, w0], quat1))]
    # q and -q are one rotation: the one with w >= 0 turns by theta <= pi (1 where w = 0)
    sign = sympy.sign(relative[3])
    flip = b.define(f"{name}flip", 1 + sign - sign ** 2)
    r = b.vector(f"{name}r", sympy.Matrix(relative[:3]) * flip)
    w = b.define(f"{name}w_abs", relative[3] * flip)
    norm = b.define(f"{name}rn", sympy.sqrt(r.dot(r)))
    # (theta/2) / sin(theta/2)
    ratio = b.define(f"{name}f", sympy.atan2(norm, w) / _nonzero(b, f"{name}rn", norm))
    omega = list(b.vector(f"{name}omega", 2 * ratio * r))
    theta = b.define(f"{name}theta", 2 * ratio * norm)
    return omega, theta, ratio, w


def _moving(q, rates) -> dict:
    """{entry of q: its rate, expanded}, the entries that move."""
    rates = zip(q, (sympy.expand(r) for r in rates))
    return {s: r for s, r in rates if r != 0}


def _product(a, c) -> list:
    """Hamilton's product a c of quaternions (x, y, z, w)."""
    ax, ay, az, aw = a
    cx, cy, cz, cw = c
    return [aw * cx + ax * cw + ay * cz - az * cy,
            aw * cy - ax * cz + ay * cw + az * cx,
            aw * cz + ax * cy - ay * cx + az * cw,
            aw * cw - ax * cx - ay * cy - az * cz]


def _nonzero(b, name: str, x):
    """x, but 1 where x = 0 exactly (x >= 0): a divisor whose quotient multiplies zero there.
    Its gap 1 - sign(x) (0 or 1) is a step of its own: added to x after 1, the 1 would round a
    small x away."""
    return b.define(f"{name}_s", x + b.define(f"{name}_gap", 1 - sympy.sign(x)))
