"""A robot file's content as validated plain data: RobotSpec and its parts.

Every reader (the YAML reader in file.py, and through it the importers) produces a RobotSpec;
the model (model.py) is built from one. Nothing here reads, and nothing derives beyond
restating a link's own fields (LinkSpec.followed_range).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from . import angles, joints

CONVENTIONS = ("standard", "modified", "urdf")
DH_COLUMNS = ("a", "alpha", "d", "theta")
# A link's joint: the kinds joints.py registers (a spherical joint, convention urdf alone: q a
# unit quaternion (x, y, z, w), v the angular velocity in its frame).
JOINTS = tuple(joints.KINDS)
# The root joint: the base fixed in the world, or a free-flyer (six degrees of freedom, its
# configuration a position and a unit quaternion, Pinocchio's JointModelFreeFlyer).
ROOTS = ("fixed", joints.FREE_FLYER.name)


@dataclass(frozen=True)
class PlacementSpec:
    """A frame's pose in another: translation ``xyz``, then rotation R = Rz(yaw) Ry(pitch)
    Rx(roll) for ``rpy`` = (roll, pitch, yaw), as URDF writes an origin."""

    xyz: tuple
    rpy: tuple


@dataclass(frozen=True)
class LinkSpec:
    """One row of the DH table, the link's place in the tree and its inertial data, exactly as
    the file gives them.

    Either ``com`` and ``inertia`` (about the centre of mass) are set, or ``first_moment``
    (m*r) and ``inertia_origin`` (about the frame's origin); the other pair is None.
    Inertia tuples are in the order Ixx, Iyy, Izz, Ixy, Iyz, Ixz.
    """

    joint: str
    a: sympy.Expr
    alpha: sympy.Expr
    d: sympy.Expr
    theta: sympy.Expr
    mass: sympy.Expr
    # The tree: the link's parent (0 the base, else the parent's 1-based position: parents come
    # first) and its name, if the file gives one. Without them, a file is a chain.
    parent: int = 0
    name: str | None = None
    joint_name: str | None = None     # the joint's own name (the source's), else the link's
    # Khalil and Kleinfinger's rotation about and shift along the parent's z before alpha, a,
    # theta, d (modified DH alone): how a modified-DH tree places a link's second child.
    gamma: sympy.Expr = sympy.Integer(0)
    b: sympy.Expr = sympy.Integer(0)
    com: tuple | None = None
    inertia: tuple | None = None
    first_moment: tuple | None = None
    inertia_origin: tuple | None = None
    # The actuator, on the motor side (Robotics Toolbox's convention), reflected by the model.
    motor_inertia: sympy.Expr = sympy.Integer(0)        # Jm
    gear_ratio: sympy.Expr = sympy.Integer(1)           # G: joint velocity * G = motor velocity
    viscous_friction: sympy.Expr = sympy.Integer(0)     # B
    coulomb_friction: tuple = (sympy.Integer(0), sympy.Integer(0))  # (Tc+ if qd > 0, Tc- if < 0)
    # An elastic joint (Spong's reduced model): (stiffness K, damping D) of the spring between
    # the motor, after its gear, and the link; None for a rigid joint. The rotor and friction
    # above are then the motor side's (model.Elastic).
    elastic: tuple | None = None
    # A spring at the joint (MuJoCo's joint stiffness): (stiffness K >= 0, reference q_ref), a
    # passive torque -K (q - q_ref) on the joint's variable; None for none.
    spring: tuple | None = None
    # The joint's limits, as URDF's <limit>: position (rad or m), speed, force or torque;
    # None where the file gives none (unlimited).
    limits: dict | None = None
    # convention urdf: the joint frame in the parent link's frame (zero where the file gives
    # none), and the joint's unit axis in it (URDF's <origin> and <axis>); the DH entries are 0
    origin: PlacementSpec | None = None
    axis: tuple | None = None
    pitch: sympy.Expr = sympy.Integer(0)     # a helical joint's, m/rad
    axis2: tuple | None = None               # a universal joint's second axis, unit, as axis
    # A mimic joint follows another's coordinate, q = multiplier q_mimic + offset (URDF's
    # <mimic>): ``mimic`` is that joint's link (1-based), None for an independent joint.
    mimic: int | None = None
    multiplier: sympy.Expr = sympy.Integer(1)
    offset: sympy.Expr = sympy.Integer(0)

    def followed_range(self) -> tuple[float, float] | None:
        """A mimic joint's position limits as the followed joint's coordinate sees them,
        (lower - offset) / multiplier to (upper - offset) / multiplier in order; None without
        numeric limits (or a multiplier of 0, which no coordinate's range bounds)."""
        values = [self.multiplier, self.offset, *((self.limits or {}).get(k)
                                                  for k in ("lower", "upper"))]
        if self.mimic is None or any(v is None or not sympy.sympify(v).is_number
                                     for v in values) or self.multiplier == 0:
            return None
        m, c, low, high = (float(v) for v in values)
        return tuple(sorted(((low - c) / m, (high - c) / m)))


@dataclass(frozen=True)
class FrameSpec:
    """A named frame fixed to a link (a sensor, a foot, a fingertip, the tool): its placement
    in the link's frame as the robot file's convention places it (0: the base frame {0})."""

    name: str
    parent: int
    placement: PlacementSpec


# Constraints on the tree (constraints.py reads them): a point constraint makes two frames'
# origins coincide (3 rows), a weld their poses (6); either with one frame holds it to the
# world (a contact); a coupling holds a sum of coefficients times joint coordinates at a value.
CONSTRAINT_KINDS = ("point", "weld", "coupling")
# The rows of a point (the first three) or weld constraint, in the world's axes: the position's
# x, y, z, then the rotation's about x, y, z.
CONSTRAINT_AXES = ("x", "y", "z", "rx", "ry", "rz")


@dataclass(frozen=True)
class ConstraintSpec:
    """One constraint as the file gives it: what it holds, by the names of frames (named
    frames or links) and joints; ``line`` where the file gives it, for its errors."""

    name: str
    kind: str                        # one of CONSTRAINT_KINDS
    frames: tuple[str, ...] = ()     # point, weld: two frames, or one held to the world
    axes: tuple[str, ...] = ()       # the rows kept (CONSTRAINT_AXES); all of the kind's if ()
    at: PlacementSpec | None = None  # a frame held to the world: where (None: where it is at
                                     # the configuration closed_at)
    terms: tuple[tuple[str, sympy.Expr], ...] = ()   # coupling: (joint name, coefficient)
    value: sympy.Expr = sympy.Integer(0)             # coupling: the sum's value
    line: int | None = None


@dataclass(frozen=True)
class TendonSpec:
    """A fixed tendon: a length that is a sum of coefficients times joint variables (MuJoCo's
    fixed tendon), which an actuator may pull (a transmission: its force f acts on the joints
    as J^T f)."""

    name: str
    terms: tuple[tuple[str, sympy.Expr], ...]     # (joint name, coefficient)
    line: int | None = None


@dataclass(frozen=True)
class BodySpec:
    """A rigid body about its centre of mass: the payload fixed to the last link (in that
    link's frame), or a floating base's own body (in the base frame {0})."""

    mass: sympy.Expr
    com: tuple
    inertia: tuple


@dataclass(frozen=True)
class RobotSpec:
    """A robot file's content: validated, with expressions parsed, nothing derived yet."""

    name: str
    source: str
    convention: str
    gravity: tuple
    links: tuple[LinkSpec, ...]
    parameters: tuple[sympy.Symbol, ...]  # the free symbols, in order of first appearance
    path: str
    digest: str  # sha256 of the file's bytes: generated files say which version they came from
    payload: BodySpec | None = None
    warnings: tuple[str, ...] = ()   # what is odd but accepted, for the user to see
    base: PlacementSpec | None = None   # frame {0} in the world; None: the world is {0}
    tool: PlacementSpec | None = None   # the tool frame in the last link's frame {n}
    frames: tuple[FrameSpec, ...] = ()  # named frames; one named "tool" is the tool
    omitted: tuple[str, ...] = ()       # parts a variant leaves out (see variant.py)
    # Numbers of angle fields near a special angle (see angles.py): those read as the angle
    # have ``exact`` set, the others are near misses kept as written.
    angle_readings: tuple[angles.Reading, ...] = ()
    root: str = "fixed"                 # one of ROOTS
    base_body: BodySpec | None = None   # a floating base's body; None: none (no mass)
    constraints: tuple[ConstraintSpec, ...] = ()
    # The configuration at which the constraints hold, (joint name, value) for the joints it
    # does not leave at 0 (a spherical joint's value its unit quaternion (x, y, z, w), the
    # identity where not given); and a closed-loop mechanism's actuated joints, by name.
    closed_at: tuple[tuple[str, sympy.Expr], ...] = ()
    closed_at_root: PlacementSpec | None = None    # a floating base's pose there (root:)
    actuated: tuple[str, ...] = ()
    tendons: tuple[TendonSpec, ...] = ()

    @property
    def floating(self) -> bool:
        return self.root == "free_flyer"

    def joint_names(self) -> tuple[str, ...]:
        """Each link's joint's name: the file's joint_name, else its link's name, else
        joint<i> (the generated JOINTS, and the names constraints use)."""
        return tuple(link.joint_name or link.name or f"joint{i}"
                     for i, link in enumerate(self.links, start=1))
