"""Robot: the constant model every derivation reads, built once from a RobotSpec.

Both conventions are brought to one form here, so that there is a single Newton-Euler
recursion (Craig's, Section 6.5) and it runs in the cheapest frames:

* each link i gets a *joint frame* {i} whose z axis is joint axis i, placed in {i-1} by
  ``Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)`` -- Craig's link frame;
* a modified-DH table already is that; a standard-DH table is rewritten exactly, since
  ``Rz Tz Tx(a_i) Rx(alpha_i) . Rz Tz ...`` regroups as ``Rz Tz . Rx(alpha_i) Tx(a_i) Rz Tz ...``
  (Tx and Rx commute). Link i's inertial data, given in the standard frame, are moved into the
  joint frame, and the last ``Tx(a_n) Rx(alpha_n)`` becomes the fixed ``tool`` transform.

Each link's inertia is held as the ten standard parameters about the joint frame's origin:
mass, first moment ``m r_c`` and inertia ``J_O``. The recursion is linear in them (Khalil).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import sympy

from ..spatial import Inertia, Placement
from . import joints
from .dh import pose, rot_x, rot_z, trans_x
from .identifiers import identifiers
from .joint_frames import joint_frames
from .joints import quaternion_rotation
from .spec import CONSTRAINT_AXES, LinkSpec, RobotSpec


def folded(value):
    """``value`` (an expression or a matrix) with each number that has no closed form, the
    cosine of a twist of 1.2 rad, as the double nearest to it. Kept as cos(6/5), it would stay a
    factor of its own in every product, computed at run time: the code of a robot with generic
    angles would carry several times the operations its geometry needs. As a double, products
    of such numbers fold into one constant, as a numeric library's do. Rationals and the
    algebraic numbers special angles give (sqrt(2)/2) stay exact."""
    atoms = {f for f in value.atoms(sympy.Function) if f.is_number}
    if not atoms:
        return value
    return sympy.expand(value.xreplace({f: sympy.Float(f.evalf(30), 15) for f in atoms}))


def inertia_matrix(ixx, iyy, izz, ixy, iyz, ixz) -> sympy.Matrix:
    """The symmetric tensor of a robot file's six entries (Robotics Toolbox's order)."""
    return sympy.Matrix([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


def stored(body: Inertia, keep=sympy.expand) -> Inertia:
    """A body as the model keeps it: each entry through ``keep`` (expanded, by default), the
    matrices immutable, so that equal bodies are equal expressions."""
    return Inertia(keep(sympy.sympify(body.mass)),
                   sympy.ImmutableMatrix(sympy.Matrix(body.first_moment).applyfunc(keep)),
                   sympy.ImmutableMatrix(sympy.Matrix(body.inertia_origin).applyfunc(keep)))


# A body without mass: a fixed base's, and a floating base's where the file gives it none.
NO_BODY = Inertia(sympy.Integer(0), sympy.ImmutableMatrix.zeros(3, 1),
                  sympy.ImmutableMatrix.zeros(3, 3))


def joint_friction(viscous, coulomb, velocity) -> sympy.Expr:
    """Viscous and Coulomb friction at a joint's ``velocity`` (a link's, or an elastic joint's
    motor's): Tc+ for a velocity > 0 and Tc- for one < 0, written (Tc+ - Tc-)/2 sign +
    (Tc+ + Tc-)/2 sign^2: the same three cases, without a branch for the processor to
    mispredict."""
    plus, minus = coulomb
    s = sympy.sign(velocity)
    return viscous * velocity + (plus - minus) / 2 * s + (plus + minus) / 2 * s**2


@dataclass(frozen=True)
class Elastic:
    """An elastic joint's motor side (Spong's reduced model, in the joint's units: the motor's
    position theta is its rotor's angle over the gear ratio). The spring K (theta - q) +
    D (thetad - qd) drives the link; the motor's torque tau_m drives the rotor, B thetadd =
    tau_m - spring - friction(thetad), the rotor's inertia B = G^2 Jm and the friction the
    joint's, on the motor's velocity (the gear's and bearings' friction). The rotor turns about
    its own axis alone: the reduced model leaves out its coupling with the links' rotations."""

    stiffness: sympy.Expr          # K
    damping: sympy.Expr            # D
    # the motor's actuator, reflected as a rigid joint's (Link): B = G^2 Jm, G^2 Bv, |G| Tc
    armature: sympy.Expr
    viscous: sympy.Expr
    coulomb: tuple
    theta: sympy.Symbol
    thetad: sympy.Symbol
    thetadd: sympy.Symbol


def reflected(row: LinkSpec) -> tuple:
    """A joint's actuator (the robot file's motor side) reflected to the joint: its rotor
    inertia G^2 Jm, viscous friction G^2 B and Coulomb friction |G| Tc+, |G| Tc-."""
    G = row.gear_ratio
    return (G**2 * row.motor_inertia, G**2 * row.viscous_friction,
            tuple(sympy.Abs(G) * c for c in row.coulomb_friction))


# A joint without an actuator on its link: an elastic joint's is its motor's (Elastic)
NO_ACTUATOR = (sympy.Integer(0), sympy.Integer(0), (sympy.Integer(0), sympy.Integer(0)))


@dataclass(frozen=True)
class Link:
    """Link i in its joint frame {i} (z along joint axis i; a spherical joint turns about all
    three of its axes)."""

    index: int                     # 1-based, as in the books
    parent: int                    # the parent link's index, 0 for the base (Featherstone's
                                   # lambda(i)): always less than index, parents first
    kind: joints.JointKind         # its joint's: what its configuration is and how it moves
    # The joint's variables (JointKind.symbols): its configuration's nq, its velocity's nv
    # (Pinocchio's v, in the joint frame's axes) and their rates
    configuration: tuple
    velocities: tuple
    accelerations: tuple
    rotation: sympy.ImmutableMatrix   # ^{i-1}R_i, in sin(q_i), cos(q_i) for a revolute joint,
                                      # in the quaternion for a spherical one
    position: sympy.ImmutableMatrix   # ^{i-1}P_i, origin of {i} in {i-1}
    inertia: Inertia                  # about the origin of {i}
    # The actuator reflected to the joint (Robotics Toolbox's convention, motor side data):
    armature: sympy.Expr              # G^2 Jm, added to M's diagonal
    viscous: sympy.Expr               # G^2 B
    coulomb: tuple                    # |G| Tc+ (applied when qd > 0), |G| Tc- (when qd < 0)
    # ^{i}T_{i'}: the link frame as the robot file's convention places it, in joint frame {i}
    file_frame: sympy.ImmutableMatrix = sympy.ImmutableMatrix(sympy.eye(4))
    # A mimic joint's (followed link, multiplier, offset): q_i = multiplier q_followed + offset
    mimic: tuple | None = None
    # An elastic joint's motor side; its rotor and friction are then there, not in armature,
    # viscous and coulomb, which are the link side's (zero)
    elastic: Elastic | None = None
    # A spring at the joint, (stiffness K, reference q_ref): the passive torque -K (q - q_ref)
    spring: tuple | None = None

    @property
    def revolute(self) -> bool:
        return self.joint == "revolute"

    @property
    def joint(self) -> str:
        """Its kind's name, the robot file's (joints.KINDS)."""
        return self.kind.name

    @property
    def nv(self) -> int:
        """How many velocities the joint has: 3 for a spherical joint, else 1."""
        return self.kind.nv

    @property
    def rest(self) -> dict:
        """{configuration symbol: its value} where the joint rests (its kind's neutral)."""
        return dict(zip(self.configuration, self.kind.neutral))

    # A joint of one coordinate's variables (friction, springs, mimic joints, couplings and
    # tendons are of those); None for a joint of several
    @property
    def q(self) -> sympy.Symbol | None:
        return self.configuration[0] if self.kind.nq == 1 else None

    @property
    def qd(self) -> sympy.Symbol | None:
        return self.velocities[0] if self.kind.nv == 1 else None

    @property
    def qdd(self) -> sympy.Symbol | None:
        return self.accelerations[0] if self.kind.nv == 1 else None


@dataclass(frozen=True)
class FreeFlyer:
    """A floating base: the base frame {0} moves freely in the world (Pinocchio's
    JointModelFreeFlyer, whose conventions these are).

    Its configuration is the position of {0}'s origin in the world and the unit quaternion
    (x, y, z, w) of its orientation; its velocity is [v; omega], the velocity of {0}'s origin and
    the angular velocity, both in {0}'s axes (Pinocchio's LOCAL), and its acceleration their
    spatial rate [dv; domega] (the classical acceleration of the origin is dv + omega x v).
    Its body is the base link's inertia, about {0}'s origin."""

    inertia: Inertia
    position: tuple = sympy.symbols("base_x base_y base_z")
    quaternion: tuple = sympy.symbols("base_qx base_qy base_qz base_qw")
    velocity: tuple = sympy.symbols("base_vx base_vy base_vz base_wx base_wy base_wz")
    acceleration: tuple = sympy.symbols("base_ax base_ay base_az base_dwx base_dwy base_dwz")

    @property
    def configuration(self) -> tuple:
        return self.position + self.quaternion

    def rotation(self) -> sympy.Matrix:
        """^world R_0 of its quaternion (quaternion_rotation)."""
        return quaternion_rotation(self.quaternion)


@dataclass(frozen=True)
class Frame:
    """A named frame fixed to link ``link`` (0: the base frame {0}), placed in its joint frame."""

    name: str
    link: int
    placement: sympy.ImmutableMatrix      # ^{link}T_frame, 4 x 4
    identifier: str = ""                  # its name in the code's identifiers (identifiers.py)


@dataclass(frozen=True)
class Constraint:
    """A constraint on the model (spec.ConstraintSpec resolved): a point or weld constraint
    between two frames, or of a frame and the world (``ends``' second None: a contact, its
    world pose ``anchor``, or where the frame is at closed_at for None); a coupling of
    coordinates. ``rows`` are the kept ones of [position; rotation], in the world's axes."""

    name: str
    kind: str                                   # point | weld | coupling
    ends: tuple = ()                            # (Frame, Frame | None)
    rows: tuple[int, ...] = ()
    anchor: sympy.ImmutableMatrix | None = None
    coefficients: tuple = ()                    # coupling: (a joint variable, coefficient)
    value: sympy.Expr = sympy.Integer(0)
    line: int | None = None

    @property
    def size(self) -> int:
        """How many equations it makes: G's rows."""
        return 1 if self.kind == "coupling" else len(self.rows)


@dataclass(frozen=True)
class Tendon:
    """A fixed tendon (spec.TendonSpec resolved): its length is the sum of ``coefficients``'
    (a link's joint variable, coefficient) products."""

    name: str
    coefficients: tuple


@dataclass(frozen=True)
class Robot:
    """The constant model: DH table as given, links in joint frames, gravity, free symbols."""

    spec: RobotSpec
    links: tuple[Link, ...]
    gravity: sympy.ImmutableMatrix      # gravitational acceleration in the base frame {0}
    tool: sympy.ImmutableMatrix         # the tool frame in its link's joint frame
    tool_link: int                      # that link: the frame named tool's, or the last
    base: sympy.ImmutableMatrix = sympy.ImmutableMatrix(sympy.eye(4))   # ^{world}T_0
    frames: tuple["Frame", ...] = ()    # the named frames, in the file's order
    # A floating base, or None for a base fixed in the world. With one, ``base`` is its pose
    # (in its configuration's symbols) and ``gravity`` is in {0}'s axes: R(q)^T g.
    root: FreeFlyer | None = None
    constraints: tuple[Constraint, ...] = ()
    # The joint variables where the constraints hold ((link_q symbol, value), the others 0), a
    # floating base's pose there (None: the world's origin, unturned), and the actuated
    # joints' velocities (indices of v).
    closed_at_values: tuple = ()
    closed_at_base: sympy.ImmutableMatrix | None = None   # a floating base's pose there
    actuated: tuple[int, ...] = ()
    tendons: tuple[Tendon, ...] = ()

    @property
    def passive(self) -> tuple[int, ...]:
        """The velocities (indices of v) a closed-loop mechanism's motors do not drive."""
        return tuple(k for k in range(self.dof) if k not in self.actuated)

    @property
    def closed_at(self) -> dict:
        """{link_q symbol: value} where the constraints hold (see closed_at_values)."""
        return dict(self.closed_at_values)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def floating(self) -> bool:
        return self.root is not None

    @property
    def dof(self) -> int:
        """nv, the number of velocities: one per joint, but none for a mimic joint, and six
        for a floating base."""
        return len(self.qd)

    @property
    def nq(self) -> int:
        """The configuration's size: nv, and one more for a floating base's quaternion."""
        return len(self.q)

    @property
    def base_velocities(self) -> int:
        """How many velocities the base has (6 floating, 0 fixed): the first of q's
        derivatives, ahead of the joints' coordinates."""
        return 6 if self.floating else 0

    @property
    def base_configuration(self) -> int:
        """How many of q's numbers the base takes (7 floating, 0 fixed), ahead of the joints'
        coordinates: where they start in q."""
        return 7 if self.floating else 0

    @property
    def base_inertia(self) -> Inertia:
        """The base's body about {0}'s origin: a floating base's, none (no mass) for a fixed
        one, whose body no joint force depends on."""
        return self.root.inertia if self.root else NO_BODY

    def slots(self, links, base: str | None = None) -> list:
        """A list the derivations take and give, one entry per velocity of the bodies: a
        floating base's six (its ``base`` symbols, "velocity" or "acceleration", or zeros),
        then ``links``' (one per velocity of each link's joint, mimic joints' too: link_qd's
        order)."""
        if not self.floating:
            return list(links)
        head = list(getattr(self.root, base)) if base else [sympy.Integer(0)] * 6
        return head + list(links)

    @property
    def slot_count(self) -> int:
        """The length of a slots list: nv, with mimic joints' velocities too."""
        return self.base_velocities + len(self.link_qd)

    def per_velocity(self, values) -> list:
        """One value per link as a slots list of the links: each link's for each of its
        velocities."""
        return self.slots(v for link, v in zip(self.links, values) for _ in range(link.nv))

    @cached_property
    def offsets(self) -> tuple[int, ...]:
        """Where each link's velocities start in a slots list (Pinocchio's idx_v): after a
        floating base's six and the velocities of the links before it."""
        out, k = [], self.base_velocities
        for link in self.links:
            out.append(k)
            k += link.nv
        return tuple(out)

    def velocity_slots(self, i: int) -> range:
        """Link i's velocities' places in a slots list."""
        return range(self.offsets[i - 1], self.offsets[i - 1] + self.links[i - 1].nv)

    @cached_property
    def velocity_columns(self) -> dict[int, range]:
        """{link: the places of its joint's velocities in qd} for the links with coordinates
        of their own."""
        out, k = {}, self.base_velocities
        for i in self.coordinates:
            out[i] = range(k, k + self.links[i - 1].nv)
            k += self.links[i - 1].nv
        return out

    def joint_configuration(self, i: int) -> tuple:
        """The configuration symbols of link i's joint, or of a floating base's (i = 0)."""
        return self.links[i - 1].configuration if i else self.root.configuration

    def joint_names(self, links) -> list[str]:
        """The robot file's names of ``links``' joints (RobotSpec.joint_names), for messages."""
        names = self.spec.joint_names()
        return [names[link.index - 1] for link in links]

    @property
    def elastic(self) -> tuple[Link, ...]:
        """The links on elastic joints, in link order: theta's order."""
        return tuple(link for link in self.links if link.elastic)

    @property
    def free_bodies(self) -> bool:
        """Whether a fixed base carries links on free_flyer joints: bodies moving freely in
        the world (an MJCF scene's, imported with free_bodies)."""
        return not self.floating and any(
            link.kind.mjcf == "free" and not link.parent for link in self.links)

    @property
    def several(self) -> tuple[Link, ...]:
        """The links whose joints have several coordinates (a spherical joint's quaternion)."""
        return tuple(link for link in self.links if link.q is None)

    @cached_property
    def coordinates(self) -> tuple[int, ...]:
        """The links whose joints have coordinates of their own, in link order (q's order,
        Pinocchio's with mimic joints)."""
        return tuple(link.index for link in self.links if link.mimic is None)

    @cached_property
    def joint_kinds(self) -> tuple[tuple[joints.JointKind, int], ...]:
        """(kind, link index) of each joint with coordinates of its own, in q's order: a
        floating base's first (joints.FREE_FLYER, link 0), then the links' (``coordinates``)."""
        return ((joints.FREE_FLYER, 0),) * self.floating + tuple(
            (self.links[i - 1].kind, i) for i in self.coordinates)

    @property
    def parameters(self) -> tuple[sympy.Symbol, ...]:
        """The free symbols of the model, in the order the generated code takes them."""
        return self.spec.parameters

    @cached_property
    def parents(self) -> tuple[int, ...]:
        """Each link's parent (0: the base), in link order: the tree, as Featherstone's and
        Pinocchio's recursions read it. A serial chain's is (0, 1, ..., n-1)."""
        return tuple(link.parent for link in self.links)

    @cached_property
    def children(self) -> tuple[tuple[int, ...], ...]:
        """children[i]: the links whose parent is i (0: the base), in link order."""
        out = [[] for _ in range(len(self.links) + 1)]
        for link in self.links:
            out[link.parent].append(link.index)
        return tuple(tuple(c) for c in out)

    @property
    def branched(self) -> bool:
        """A link (or the base) with two children or more: a tree, not a chain."""
        return any(len(links) > 1 for links in self.children)

    def support(self, i: int) -> tuple[int, ...]:
        """The links from the base out to link i, i last: those whose joints move it."""
        path = []
        while i:
            path.append(i)
            i = self.links[i - 1].parent
        return tuple(reversed(path))

    def common_ancestor(self, i: int, j: int) -> int:
        """The outermost link that both link i and link j are carried by (themselves included;
        0, the base, where none is)."""
        ours = set(self.support(j))
        common = [k for k in self.support(i) if k in ours]
        return common[-1] if common else 0

    def constraint_root(self, constraint) -> int | None:
        """The link a loop's two frames both hang from (common_ancestor, 0 the base), in whose
        frame's axes its rows are; None for a frame held to the world and a coupling."""
        if constraint.kind == "coupling" or constraint.ends[1] is None:
            return None
        first, second = constraint.ends
        return self.common_ancestor(first.link, second.link)

    def subtree(self, i: int) -> tuple[int, ...]:
        """Link i and every link outward of it, in link order (parents first)."""
        inside = {i}
        for link in self.links[i:]:
            if link.parent in inside:
                inside.add(link.index)
        return tuple(sorted(inside))

    @cached_property
    def q(self) -> tuple[sympy.Symbol, ...]:
        """The generated functions' q: a floating base's configuration (seven numbers), then
        the joints' coordinates."""
        base = self.root.configuration if self.root else ()
        return base + tuple(s for i in self.coordinates for s in self.links[i - 1].configuration)

    @cached_property
    def qd(self) -> tuple[sympy.Symbol, ...]:
        """Its velocity: a floating base's six, then the coordinates' rates (a spherical
        joint's angular velocity)."""
        base = self.root.velocity if self.root else ()
        return base + tuple(s for i in self.coordinates for s in self.links[i - 1].velocities)

    @cached_property
    def qdd(self) -> tuple[sympy.Symbol, ...]:
        base = self.root.acceleration if self.root else ()
        return base + tuple(s for i in self.coordinates
                            for s in self.links[i - 1].accelerations)

    # Each link's own joint variables, which the derivations treat as independent; a mimic
    # joint's follow the coordinates by ``coupling``.
    @cached_property
    def link_q(self) -> tuple[sympy.Symbol, ...]:
        return tuple(s for link in self.links for s in link.configuration)

    @cached_property
    def link_qd(self) -> tuple[sympy.Symbol, ...]:
        return tuple(s for link in self.links for s in link.velocities)

    @cached_property
    def link_qdd(self) -> tuple[sympy.Symbol, ...]:
        return tuple(s for link in self.links for s in link.accelerations)

    @cached_property
    def coupling_matrix(self) -> sympy.ImmutableMatrix:
        """G, links x coordinates: the links' joint velocities are G qd (a column per
        coordinate, its own link's 1 and its mimic joints' multipliers), and the generalized
        forces on the coordinates G^T tau of the links' joint forces tau. The identity
        without mimic joints."""
        shift = self.base_velocities
        G = sympy.zeros(len(self.link_qd), self.dof - shift)
        for link in self.links:
            row = self.offsets[link.index - 1] - shift
            if link.mimic is None:
                for j, column in enumerate(self.velocity_columns[link.index]):
                    G[row + j, column - shift] = 1
            else:
                G[row, self.velocity_columns[link.mimic[0]][0] - shift] = link.mimic[1]
        return sympy.ImmutableMatrix(G)

    @cached_property
    def coordinate_links(self) -> tuple[tuple[tuple[int, sympy.Expr], ...], ...]:
        """G's nonzero entries by column: for each coordinate, the (0-based link, multiplier)
        pairs it moves, its own link's 1 and its mimic joints'. Products by G are sums over
        these: sympy's dense products of the nearly diagonal G cost seconds on 30 links."""
        G = self.coupling_matrix
        return tuple(tuple((j, G[j, k]) for j in range(G.rows) if G[j, k] != 0)
                     for k in range(G.cols))

    @cached_property
    def coupling(self) -> dict:
        """A mimic joint's variables in the coordinates: q_j -> m q_i + c, qd_j -> m qd_i,
        qdd_j -> m qdd_i (empty without mimic joints)."""
        out = {}
        for link in self.links:
            if link.mimic is not None:
                followed, m, c = link.mimic
                source = self.links[followed - 1]
                out.update({link.q: m * source.q + c, link.qd: m * source.qd,
                            link.qdd: m * source.qdd})
        return out

    @cached_property
    def coordinate_parents(self) -> tuple[int, ...] | None:
        """The coordinates' tree (0-based parents, -1 the base) in which M(q)'s nonzero
        entries are those of a coordinate and its ancestors, as in the links' tree: the links'
        own without mimic joints; None where coupling joints across branches fills M in."""
        # A spherical joint's three velocities are a chain of their own (its 3 x 3 block of M
        # is full), the joint's children hanging from its last.
        shift = self.base_velocities

        def own(i):             # the velocities that move link i's joint
            if i == 0:
                return range(-1, 0)
            link = self.links[i - 1]
            columns = self.velocity_columns[link.index if link.mimic is None else link.mimic[0]]
            return range(columns.start - shift, columns.stop - shift)

        def coordinate(i):      # the last of them (-1: the base)
            return own(i)[-1]

        def ancestors(i):       # the velocities that move the links supporting link i
            return {c for j in self.support(i) for c in own(j)}

        parents = [c - 1 if c > own(i)[0] else coordinate(self.links[i - 1].parent)
                   for i in self.coordinates for c in own(i)]
        if any(p >= k for k, p in enumerate(parents)):     # a joint follows one outward of it
            return None
        if self.floating:       # the base's six, a chain, support every joint: M's first rows
            parents = [-1, 0, 1, 2, 3, 4] + [p + 6 if p >= 0 else 5 for p in parents]

        def chain(k):
            out = set()
            while k >= 0:
                out.add(k)
                k = parents[k]
            return out
        if all({a + shift for a in ancestors(link.index) if a >= 0}
               <= chain(coordinate(link.index) + shift) for link in self.links):
            return tuple(parents)
        return None

    @classmethod
    def from_spec(cls, spec: RobotSpec) -> "Robot":
        rows = spec.links
        links = []
        placed = joint_frames(rows, folded) if spec.convention == "urdf" else None
        for i, row in enumerate(rows, start=1):
            kind = joints.kind_of(row.joint, row.pitch, None if row.axis2 is None else (
                placed[i - 1].turn.T * sympy.Matrix(row.axis2)).applyfunc(sympy.expand))
            variables = kind.symbols(i)
            q = variables[0][0]
            parent = row.parent
            if spec.convention == "urdf":
                rotation, position = placed[i - 1].placement(kind, variables[0])
                rotation, position = (x.applyfunc(sympy.expand) for x in (rotation, position))
                frame = sympy.eye(4)
                frame[:3, :3] = placed[i - 1].turn.T      # the file's link frame in the joint frame
            else:
                # The joint frame's placement: Craig's (alpha_{i-1}, a_{i-1}) come from the
                # parent's standard row, or are this row's own in a modified table.
                if spec.convention == "modified":
                    alpha, a = row.alpha, row.a
                else:
                    alpha, a = (rows[parent - 1].alpha, rows[parent - 1].a) if parent else (0, 0)
                theta = row.theta + q if row.joint == "revolute" else row.theta
                d = row.d + q if row.joint == "prismatic" else row.d
                rotation, position = _placement(alpha, a, theta, d)
                if row.gamma != 0 or row.b != 0:      # Khalil-Kleinfinger: Rz(gamma) Tz(b) first
                    rotation, position = _before(row.gamma, row.b, rotation, position)
                # {i}_std = {i} Tx(a_i) Rx(alpha_i); modified: the joint frame itself
                frame = (trans_x(row.a) * rot_x(row.alpha) if spec.convention == "standard"
                         else sympy.eye(4))
            inertia = _link_inertia(row)
            if i == len(rows) and spec.payload is not None:
                load = spec.payload
                inertia = inertia + stored(Inertia.from_com(
                    load.mass, sympy.Matrix(load.com), inertia_matrix(*load.inertia)))
            if frame != sympy.eye(4):       # the file gives it in its link frame
                inertia = stored(Placement.of_transform(frame).act_inertia(inertia))
            inertia = stored(inertia, folded)
            elastic = (Elastic(*row.elastic, *reflected(row),
                               *sympy.symbols(f"theta{i} thetad{i} thetadd{i}"))
                       if row.elastic else None)
            armature, viscous, coulomb = NO_ACTUATOR if elastic else reflected(row)
            links.append(Link(i, parent, kind, *variables,
                              folded(sympy.ImmutableMatrix(rotation)),
                              folded(sympy.ImmutableMatrix(position)), inertia,
                              armature=armature, viscous=viscous, coulomb=coulomb,
                              file_frame=folded(sympy.ImmutableMatrix(frame)),
                              mimic=None if row.mimic is None else (row.mimic, row.multiplier,
                                                                   row.offset),
                              elastic=elastic, spring=row.spring))
        # Each frame in its link's joint frame: the file's link frame there, then the frame in
        # it. The tool: the frame named tool, or the file's frame {n} moved by ``tool``.
        frames = tuple(Frame(f.name, f.parent, folded(sympy.ImmutableMatrix(
            (sympy.Matrix(links[f.parent - 1].file_frame) if f.parent else sympy.eye(4))
            * pose(f.placement.xyz, f.placement.rpy))), identifier)
            for f, identifier in zip(spec.frames, identifiers(f.name for f in spec.frames)))
        named_tool = [frame for frame in frames if frame.name == "tool"]
        if named_tool:
            tool, tool_link = named_tool[0].placement, named_tool[0].link
        else:
            # (a floating base without joints: the base frame {0})
            tool, tool_link = (sympy.Matrix(links[-1].file_frame) if links else sympy.eye(4),
                               len(links))
            if spec.tool is not None:
                tool = tool * pose(spec.tool.xyz, spec.tool.rpy)
        gravity = sympy.Matrix(spec.gravity)      # in the world, which is {0} unless placed
        base, root = sympy.eye(4), None
        if spec.base is not None:
            base = pose(spec.base.xyz, spec.base.rpy)
        if spec.floating:
            body = spec.base_body
            root = FreeFlyer(stored(Inertia.from_com(
                body.mass, sympy.Matrix(body.com), inertia_matrix(*body.inertia)), folded)
                if body is not None else NO_BODY)
            base[:3, :3], base[:3, 3] = root.rotation(), sympy.Matrix(root.position)
        gravity = (base[:3, :3].T * gravity).applyfunc(sympy.expand)
        robot = cls(spec, tuple(links), folded(sympy.ImmutableMatrix(gravity)),
                    folded(sympy.ImmutableMatrix(tool)), tool_link,
                    folded(sympy.ImmutableMatrix(base)), frames, root)
        coordinates = dict(zip(spec.joint_names(), (link.q for link in robot.links)))
        tendons = tuple(Tendon(t.name, tuple((coordinates[j], c) for j, c in t.terms))
                        for t in spec.tendons)
        return dataclasses.replace(robot, tendons=tendons,
                                   **(_constrained(spec, robot) if spec.constraints else {}))



def _constrained(spec: RobotSpec, robot: Robot) -> dict:
    """The constraints, closed_at and the actuated joints of ``robot`` (its fields), of the
    spec's names: a frame is a named frame, else a link's own frame as the file places it,
    else (``tool``) the tool."""
    frames = {"tool": Frame("tool", robot.tool_link, robot.tool)}
    frames.update({link.name: Frame(link.name, link_index, sympy.ImmutableMatrix(
        robot.links[link_index - 1].file_frame))
        for link_index, link in enumerate(spec.links, start=1) if link.name})
    frames.update({frame.name: frame for frame in robot.frames})
    links = dict(zip(spec.joint_names(), robot.links))
    joints = {name: link.q for name, link in links.items()}
    constraints = []
    for c in spec.constraints:
        if c.kind == "coupling":
            constraints.append(Constraint(c.name, c.kind, coefficients=tuple(
                (joints[name], coefficient) for name, coefficient in c.terms), value=c.value,
                line=c.line))
            continue
        count = 3 if c.kind == "point" else 6
        rows = tuple(CONSTRAINT_AXES.index(a) for a in c.axes) or tuple(range(count))
        anchor = (folded(sympy.ImmutableMatrix(pose(c.at.xyz, c.at.rpy)))
                  if c.at is not None else None)
        ends = (frames[c.frames[0]], frames[c.frames[1]] if len(c.frames) == 2 else None)
        constraints.append(Constraint(c.name, c.kind, ends, rows, anchor, line=c.line))
    closed_at = {}
    for name, value in spec.closed_at:
        link = links[name]
        closed_at.update(zip(link.configuration, value if link.q is None else (value,)))
    closed_at.update({s: sympy.sympify(v).subs(closed_at).subs(
        {q: 0 for q in robot.link_q if q not in closed_at})
        for s, v in robot.coupling.items() if s in robot.link_q})
    root = spec.closed_at_root
    return {"constraints": tuple(constraints), "closed_at_values": tuple(closed_at.items()),
            "closed_at_base": (folded(sympy.ImmutableMatrix(pose(root.xyz, root.rpy)))
                               if root is not None else None),
            "actuated": tuple(k for name in spec.actuated
                              for k in robot.velocity_columns[links[name].index])}


def _placement(alpha, a, theta, d):
    """^{i-1}R_i and ^{i-1}P_i of Rx(alpha) Tx(a) Rz(theta) Tz(d), trig of q_i kept apart."""
    ca, sa = sympy.cos(alpha), sympy.sin(alpha)
    ct, st = _cos_sin_of_joint(theta)
    rotation = sympy.Matrix([[ct, -st, 0], [ca * st, ca * ct, -sa], [sa * st, sa * ct, ca]])
    rotation = rotation.applyfunc(lambda e: sympy.expand(e))
    position = sympy.Matrix([a, -sa * d, ca * d])
    return rotation, position.applyfunc(sympy.expand)


def _before(gamma, b, rotation, position):
    """Rz(gamma) Tz(b) followed by (rotation, position): a rotation about and a shift along the
    parent's z, which leave the joint's own angle where _placement put it."""
    turn = rot_z(gamma)[:3, :3]
    return ((turn * rotation).applyfunc(sympy.expand),
            (turn * position + sympy.Matrix([0, 0, b])).applyfunc(sympy.expand))


def _cos_sin_of_joint(theta):
    """cos and sin of ``theta`` = q + offset. An offset that is a number other than a multiple
    of pi/2 stays in the angle: sin(q + 0.3), one addition before the joint's sine, where the
    expanded cos(0.3) sin(q) + sin(0.3) cos(q) would put two constants into every product the
    rotation enters. The offset is taken in [0, 2 pi): symengine writes sin(q - 0.3) as
    -sin(0.3 - q), and the code would lose the pair. A quarter turn turns sin into cos exactly,
    and a symbol's offset is expanded, so that the code takes sin and cos of inputs alone."""
    constant, variable = sympy.sympify(theta).as_coeff_Add()
    if constant != 0 and variable.is_Symbol and (2 * constant / sympy.pi).is_integer is not True:
        turn = 2 * sympy.pi.evalf(40)
        angle = variable + sympy.Float(constant.evalf(40) % turn, 17)
        return sympy.cos(angle), sympy.sin(angle)
    return sympy.expand_trig(sympy.cos(theta)), sympy.expand_trig(sympy.sin(theta))


def _link_inertia(row: LinkSpec) -> Inertia:
    if row.first_moment is not None:
        return Inertia(row.mass, sympy.ImmutableMatrix(row.first_moment),
                       sympy.ImmutableMatrix(inertia_matrix(*row.inertia_origin)))
    return stored(Inertia.from_com(row.mass, sympy.Matrix(row.com),
                                   inertia_matrix(*row.inertia)))
