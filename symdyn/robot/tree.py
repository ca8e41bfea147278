"""A robot description's links and joints -> Chain: the part of the tree a robot file is made of.

The importers (urdf.py, mjcf.py) read their formats into the same picture: links, each the
child of at most one joint, the joints with their placements, axes, limits and friction, and
each link's body. Here that tree is cut as ``symdyn import`` asks, the same for every format.

The chain runs from a base link to a tip link through the movable joints between them. Fixed
joints on it are folded into the next joint's placement, or into the tool after the last one.
Everything that moves with a chain joint and no later one -- links on fixed joints, and subtrees
on joints that are not in the chain, held at zero as Pinocchio's buildReducedModel holds them --
is lumped into that joint's body by the parallel-axis theorem. Links before the first joint are
fixed to the world and do not enter the dynamics -- but on a floating base (``root``
"free_flyer", Pinocchio's buildModelFromUrdf with JointModelFreeFlyer), where the root link
moves freely and carries, lumped the same way, every link fixed to it. Without a tip, where the
movable joints branch, the whole tree is taken.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import RobotFileError
from ..spatial import Inertia
from .joints import KINDS
from .rigid import no_body, seen_from

# A movable joint's kind (joints.KINDS) by the source's word for it: URDF's (a continuous joint
# is a revolute angle), or the kind's own name (the MJCF reader's joints).
MOVABLE = {"continuous": "revolute", **{name: name for name in KINDS},
           **{kind.urdf: name for name, kind in KINDS.items() if kind.urdf}}
# The kind of note (LinkTree.note) of a body no rigid body has, which published files hold
# (round-off, massless links with inertia): imported as it is, the robot file saying so.
INCONSISTENT = ("inertias no rigid body has, taken as the file gives them (the robot file "
                "says allow_inconsistent_inertia: true):")
TENDON_OFF_CHAIN = "tendons left out, whose joints the chain leaves out:"


@dataclass(frozen=True)
class Joint:
    name: str
    kind: str                 # URDF's words: revolute, continuous, prismatic, fixed, ...
    parent: str
    child: str
    origin: np.ndarray        # the child link's frame in the parent's, joint at zero
    axis: np.ndarray          # unit vector in the child link's frame
    limits: dict              # lower, upper, velocity, effort: those given
    viscous: float            # <dynamics damping>, joint side
    coulomb: float            # <dynamics friction>, joint side, both directions
    actuator: dict | None     # <symdyn:actuator>: motor-side data, exact
    mimic: tuple | None       # <mimic>: (the joint this one follows, multiplier, offset)
    line: int
    spring: tuple | None = None   # (stiffness, reference): MJCF's joint stiffness, springref


@dataclass(frozen=True)
class ChainJoint:
    """A movable joint of the model, with the body that moves with it (and with no later joint)."""

    name: str
    kind: str                 # revolute | prismatic
    placement: np.ndarray     # its frame (its child link's) in its parent joint's frame
    axis: np.ndarray
    body: Inertia             # about the origin of this joint's frame, in its axes
    limits: dict
    viscous: float
    coulomb: float
    actuator: dict | None
    parent: int               # the movable joint it is placed from (1-based; 0: the base)
    link: str                 # its child link's name in the file
    mimic: tuple | None = None    # a mimic joint's (followed joint, 1-based; multiplier, offset)
    spring: tuple | None = None   # (stiffness, reference): a spring at the joint


@dataclass(frozen=True)
class Held:
    """A constraint of the source: two frames (or one, held to the world) held together, or
    a coupling of joints (the sum of ``terms``' coefficient times joint variable at
    ``value``)."""

    name: str
    kind: str                 # point | weld | coupling, as the robot file names them
    ends: tuple[str, ...]     # the frames' names
    line: int | None          # where the source gives it
    axes: tuple[str, ...] = ()    # the rows kept (spec.CONSTRAINT_AXES' names); () for all
    source_id: int | None = None  # the source's own number for it (MuJoCo's equality id)
    terms: tuple[tuple[str, float], ...] = ()     # coupling: (joint name, coefficient)
    value: float = 0.0
    at: np.ndarray | None = None  # a frame held to the world: where (4 x 4; None: where it
                                  # is at closed_at)


@dataclass(frozen=True)
class Tendon:
    """A fixed tendon of the source: its length the sum of ``terms``' coefficient times joint
    variable (mimic joints' too)."""

    name: str
    terms: tuple[tuple[str, float], ...]
    line: int | None


@dataclass(frozen=True)
class Chain:
    robot: str                # the robot's name in its file
    base_link: str
    tip_link: str
    joints: tuple[ChainJoint, ...]
    base: np.ndarray          # the base link in the root link's frame, all joints at zero
    tool: np.ndarray          # the tip link in the last joint's frame
    gravity: tuple = (0.0, 0.0, -9.81)            # in the root link's frame
    locked: tuple[str, ...] = field(default=())   # movable joints off the chain, held at zero
    other_tips: tuple[str, ...] = field(default=())   # leaves on fixed joints past the tip
    warnings: tuple[str, ...] = field(default=())     # what is left out or allowed, a line each
    # Every link of the source the model moves (the base link, each joint's child, the links
    # and sites fixed to them), as a named frame: (its name, the movable joint it moves with,
    # 1-based, 0 the base; its frame's pose in that joint's child link frame)
    frames: tuple[tuple[str, int, np.ndarray], ...] = field(default=())
    # A floating base's body: the root link and every link fixed to it, about the root link's
    # origin; None for a base fixed to the world.
    root_body: Inertia | None = None
    format: str = "URDF"      # the file's format, as the robot file's header names it
    inconsistent: bool = False    # some body is one no rigid body has (INCONSISTENT)
    # Constraints the source holds the tree by (their frames among ``frames``), and the
    # joints' values where they hold, (joint name, value) of those not 0.
    constraints: tuple[Held, ...] = field(default=())
    tendons: tuple[Tendon, ...] = field(default=())
    closed_at: tuple = field(default=())
    # A floating base's pose where the constraints hold (the source's: MuJoCo's qpos0), in
    # the world; None: the world's origin, unturned.
    closed_at_root: np.ndarray | None = None

    @property
    def tree(self) -> bool:
        """Whether the joints branch (some joint's parent is not the joint before it)."""
        return any(joint.parent != k for k, joint in enumerate(self.joints))

    @property
    def coupled(self) -> bool:
        """Whether some joint is a mimic joint."""
        return any(joint.mimic is not None for joint in self.joints)

    @property
    def whole(self) -> bool:
        """Whether this is everything below the base, not a chain to a tip: a tree, or a
        floating base without joints."""
        return self.tree or not self.joints


class LinkTree:
    """Links and the joints between them, as an importer read them; ``chain`` and ``read``
    cut them. An importer fills ``path``, ``robot``, ``format``, ``gravity``, ``root`` (the
    file's own "fixed" or "free_flyer"), ``links`` (names, in the file's order), ``joints``
    (by child link), ``note``s what it leaves out, calls ``index`` and gives each link's
    ``body``."""

    format = "URDF"
    gravity = Chain.gravity
    root = "fixed"

    def __init__(self, path: Path):
        self.path = path
        self.robot = ""
        self.links: dict = {}
        self.joints: dict[str, Joint] = {}          # by child link
        self.noted: dict[str, list[str]] = {}       # what is left out or allowed, by kind
        self.held: list[Held] = []                  # the source's constraints
        self.tendons: list[Tendon] = []             # and its fixed tendons
        self.closed_at: list[tuple] = []            # as Chain.closed_at
        self.closed_at_root: np.ndarray | None = None   # as Chain.closed_at_root

    def note(self, kind: str, what: str):
        """Say that ``what`` (a joint, a body, an option) is ``kind`` of thing the import
        leaves out or takes as it is ("springs left out, as MuJoCo's passive forces: joints");
        each kind becomes one line of the warnings."""
        if what not in self.noted.setdefault(kind, []):
            self.noted[kind].append(what)

    def notes(self) -> tuple[str, ...]:
        """The warnings: a line for each kind of thing noted, naming the first few of them."""
        lines = []
        for kind, items in self.noted.items():
            shown = ", ".join(items[:6]) + (f" and {len(items) - 6} more" if len(items) > 6
                                            else "")
            lines.append(f"{self.path}: {kind} {shown}")
        return tuple(lines)

    def index(self):
        """Each link's child joints, once the links and joints are read."""
        self.children: dict[str, list[Joint]] = {name: [] for name in self.links}
        for joint in self.joints.values():
            self.children[joint.parent].append(joint)

    def body(self, link: str) -> Inertia:
        """The link's body, about the origin of its frame, in its axes."""
        raise NotImplementedError

    def link_frame(self, link: str) -> np.ndarray:
        """The source's own frame of ``link`` in the frame the import gives the link: the same
        frame, but where an importer moves it (MJCF: to the body's last hinge)."""
        return np.eye(4)

    def own(self, link: str) -> bool:
        """Whether ``link`` is one of the source's (named frames are made of those), not one
        an importer made (MJCF: the links between one body's joints)."""
        return True

    def fixed_frames(self, link: str, parent: int, placement: np.ndarray) -> list:
        """``link`` and the links fixed to it through fixed joints alone, as frames (see
        Chain.frames) of the movable joint ``parent``, ``link`` at ``placement`` in its child
        link frame."""
        out, stack = [], [(link, placement)]
        while stack:
            name, T = stack.pop()
            if self.own(name):
                out.append((name, parent, T @ self.link_frame(name)))
            stack += [(joint.child, T @ joint.origin) for joint in sorted(
                self.children[name], key=self.sibling_key, reverse=True)
                if joint.kind not in MOVABLE]
        return out

    def sibling_key(self, joint: Joint):
        """The order of a link's child joints in a whole tree: by name, as Pinocchio numbers
        a URDF's (urdfdom's sorted map of joints)."""
        return joint.name

    def read(self, base: str | None, tip: str | None, root: str | None) -> Chain:
        """The chain ``base`` -> ``tip`` (see read_chain in urdf.py); ``root`` None for the
        file's own."""
        floating = (root or self.root) == "free_flyer"
        chain = self.chain(base, tip, floating)
        if floating:
            if chain.base_link != self.root_link:
                raise RobotFileError(self.path, f"a floating base moves the {self.format}'s "
                                     f"root link {self.root_link!r}, not {chain.base_link!r}",
                                     expected="no --base with --root free_flyer")
            first = None if chain.whole else chain.joints[0].link
            locked = list(chain.locked)
            body = self.lumped(chain.base_link, first, locked,
                               chain={j.name for j in chain.joints}, whole=first is None)
            chain = replace(chain, root_body=body, locked=tuple(locked))
        return replace(self.constrained(chain), format=self.format, warnings=self.notes(),
                       inconsistent=INCONSISTENT in self.noted)

    def constrained(self, chain: Chain) -> Chain:
        """``chain`` with the source's constraints, tendons and closed_at. Each constraint's
        frames are frames of the chain, its joints joints of it (else refused: a chain that
        leaves them out, by --tip or --base); a coupling's mimic joints are written as the
        joints they follow. A tendon with joints off the chain is left out and said so."""
        if not (self.held or self.tendons):
            return chain
        kept = {name for name, _, _ in chain.frames}
        joints = {joint.name: joint for joint in chain.joints}
        held = []
        for h in self.held:
            missing = [end for end in h.ends if end not in kept] + [
                joint for joint, _ in h.terms if joint not in joints]
            if missing:
                raise RobotFileError(self.path, f"constraint {h.name!r} holds "
                                     f"{missing[0]!r}, which the imported chain leaves out",
                                     line=h.line,
                                     expected="the whole tree (no --tip) or a --base below "
                                              "which the constraint lies")
            held.append(replace(h, **self.followed(h.terms, h.value, chain)) if h.terms
                        else h)
        tendons = []
        for tendon in self.tendons:
            if all(joint in joints for joint, _ in tendon.terms):
                tendons.append(tendon)
            else:
                self.note(TENDON_OFF_CHAIN, repr(tendon.name))
        return replace(chain, constraints=tuple(held), tendons=tuple(tendons),
                       closed_at=tuple((j, v) for j, v in self.closed_at if j in joints),
                       closed_at_root=self.closed_at_root)

    @staticmethod
    def followed(terms, value, chain: Chain) -> dict:
        """A coupling's terms and value with each mimic joint's (q = m q_followed + c) moved
        to the joint it follows: coupling holds coordinates."""
        out, value = {}, float(value)
        for joint, coefficient in terms:
            link = next(j for j in chain.joints if j.name == joint)
            if link.mimic is not None:
                followed, multiplier, offset = link.mimic
                joint, value = (chain.joints[followed - 1].name,
                                value - coefficient * offset)
                coefficient *= multiplier
            out[joint] = out.get(joint, 0.0) + coefficient
        return {"terms": tuple((j, c) for j, c in out.items() if c != 0), "value": value}

    @property
    def root_link(self) -> str:
        """The link no joint has as its child (chain() checks there is one)."""
        return next(name for name in self.links if name not in self.joints)

    def error(self, message, element=None, expected=None):
        """The error at an Element or a Joint (a <joint> element)."""
        field = None if element is None else f"<{getattr(element, 'tag', 'joint')}>"
        return RobotFileError(self.path, message, field=field, expected=expected,
                              line=None if element is None else element.line)

    # -- the chain ---------------------------------------------------------------------------
    def chain(self, base: str | None, tip: str | None, floating: bool = False) -> Chain:
        """The chain base -> tip, or the whole tree below base (see import_chain); on a
        ``floating`` root, a base without movable joints below it too (a drone: no joints)."""
        roots = [name for name in self.links if name not in self.joints]
        below_roots = {link for root in roots for link in self.below(root)}
        if len(roots) != 1 or len(below_roots) != len(self.links):
            loop = sorted(set(self.links) - below_roots)
            raise RobotFileError(self.path, f"the links form {len(roots)} trees" + (
                f" and a loop through {', '.join(loop)}" if loop else
                f" (roots: {', '.join(roots)})"), expected="one tree")
        base = base or roots[0]
        for given, option in ((base, "--base"), (tip, "--tip")):
            if given is not None and given not in self.links:
                raise RobotFileError(self.path, f"{option} {given!r} is not a link of the "
                                     f"{self.format}",
                                     expected="one of " + ", ".join(sorted(self.links)))
        ends = self.chain_ends(base)
        coupled = any(self.joints[link].mimic is not None and self.joints[link].kind in MOVABLE
                      for link in self.below(base) if link in self.joints)
        if tip is None and (len(ends) > 1 or floating and not ends or coupled):
            return self.whole(base)     # (a chain takes no mimic joints: the whole does)
        tip, other_tips = (tip, ()) if tip else self.default_tip(base)
        path = self.path_between(base, tip)
        for joint in path:
            if joint.mimic is not None and joint.kind in MOVABLE:
                raise self.error(f"joint {joint.name!r} in the chain mimics {joint.mimic[0]!r}",
                                 joint, expected="a chain of independent joints; choose "
                                 "another with --base and --tip")
        movable = [joint for joint in path if joint.kind in MOVABLE]
        if not movable:
            raise RobotFileError(self.path, f"no movable joint between {base!r} and {tip!r}")
        chain_joints, locked = [], []
        frames = self.fixed_frames(base, 0, np.eye(4))
        placement = np.eye(4)
        for joint in path:
            placement = placement @ joint.origin
            if joint.kind not in MOVABLE:
                continue
            later = movable.index(joint) + 1
            stop = movable[later].child if later < len(movable) else None
            body = self.lumped(joint.child, stop, locked, chain=set(j.name for j in movable))
            chain_joints.append(ChainJoint(joint.name, MOVABLE[joint.kind], placement,
                                           joint.axis, body, joint.limits, joint.viscous,
                                           joint.coulomb, joint.actuator,
                                           parent=len(chain_joints), link=joint.child,
                                           spring=joint.spring))
            frames += self.fixed_frames(joint.child, len(chain_joints), np.eye(4))
            placement = np.eye(4)
        return Chain(self.robot, base, tip, tuple(chain_joints), self.pose_in_root(base),
                     placement, self.gravity, tuple(locked), other_tips, self.notes(),
                     tuple(frames))

    def chain_ends(self, base: str) -> set:
        """The last movable joint on the way to each leaf below ``base``: more than one where
        the movable joints branch, none where no joint below it moves."""
        leaves = [link for link in self.below(base) if not self.children[link]]
        return {self.last_movable(leaf, base) for leaf in leaves} - {None}

    def whole(self, base: str) -> Chain:
        """Every movable joint below ``base``, depth first, siblings in ``sibling_key``'s order
        (a URDF's by name, as Pinocchio numbers them; an MJCF's as MuJoCo does), each
        placed in its parent movable joint's frame, with the bodies its fixed joints hold."""
        joints: list[ChainJoint] = []
        frames: list[tuple[str, int, np.ndarray]] = []

        def below(link: str, parent: int, placement: np.ndarray) -> list:
            # pushed last first, so that they are popped in sibling_key's order
            return [(joint, parent, placement) for joint in sorted(
                self.children[link], key=self.sibling_key, reverse=True)]

        if self.own(base):
            frames.append((base, 0, self.link_frame(base)))
        stack = below(base, 0, np.eye(4))     # a stack, not recursion: a tree may be deep
        while stack:
            joint, parent, placement = stack.pop()
            origin = placement @ joint.origin
            if joint.kind not in MOVABLE:
                if self.own(joint.child):
                    frames.append((joint.child, parent, origin @ self.link_frame(joint.child)))
                stack += below(joint.child, parent, origin)
                continue
            body = self.lumped(joint.child, None, [], chain=set(), whole=True)
            joints.append(ChainJoint(joint.name, MOVABLE[joint.kind], origin, joint.axis,
                                     body, joint.limits, joint.viscous, joint.coulomb,
                                     joint.actuator, parent, joint.child,
                                     spring=joint.spring))
            if self.own(joint.child):
                frames.append((joint.child, len(joints), self.link_frame(joint.child)))
            stack += below(joint.child, len(joints), np.eye(4))
        joints = self.coupled(joints, base)
        return Chain(self.robot, base, joints[-1].link if joints else base, tuple(joints),
                     self.pose_in_root(base),
                     np.eye(4), self.gravity, (), (), self.notes(), tuple(frames))

    def coupled(self, joints: list[ChainJoint], base: str) -> list[ChainJoint]:
        """The model's joints with each mimic joint's coupling to the joint it follows (by
        its place in the model), which must be one of the model's and follow none."""
        place = {joint.name: k for k, joint in enumerate(joints, start=1)}
        out = []
        for chain_joint in joints:
            mimic = self.joints[chain_joint.link].mimic
            if mimic is not None:
                name, multiplier, offset = mimic
                file_joint = self.joints[chain_joint.link]
                if name not in place:
                    raise self.error(
                        f"joint {chain_joint.name!r} mimics {name!r}, which is not a movable "
                        f"joint below {base!r}", file_joint,
                        expected="a mimic of a joint of the imported tree (--base)")
                if self.joints[joints[place[name] - 1].link].mimic is not None:
                    raise self.error(
                        f"joint {chain_joint.name!r} mimics {name!r}, a mimic joint itself: a "
                        "mimic of a mimic is not taken", file_joint,
                        expected="mimic joints that follow independent joints")
                chain_joint = replace(chain_joint, mimic=(place[name], multiplier, offset))
            out.append(chain_joint)
        return out

    def default_tip(self, base: str) -> tuple[str, tuple]:
        """The one end of the movable joints below ``base``: the only leaf, or the child of the
        last movable joint when only fixed joints branch after it."""
        leaves = [link for link in self.below(base) if not self.children[link]
                  and self.last_movable(link, base)]    # not those fixed to the base
        ends = {self.last_movable(leaf, base) for leaf in leaves}
        if len(ends) > 1:
            raise RobotFileError(self.path, f"the tree below {base!r} branches; choose the "
                                 "chain's end with --tip", expected="one of the leaves "
                                 + ", ".join(sorted(leaves)))
        if len(leaves) <= 1:
            return (leaves or [base])[0], ()
        (end,) = ends
        return end, tuple(sorted(leaves))

    def last_movable(self, link: str, base: str) -> str | None:
        for joint in reversed(self.path_between(base, link)):
            if joint.kind != "fixed":
                return joint.child
        return None

    def below(self, link: str) -> list[str]:
        out, stack = [], [link]
        while stack:
            name = stack.pop()
            out.append(name)
            stack.extend(joint.child for joint in self.children[name])
        return out

    def path_between(self, base: str, tip: str) -> list[Joint]:
        path, link = [], tip
        while link != base:
            if link not in self.joints:
                raise RobotFileError(self.path, f"{tip!r} is not below {base!r} in the tree",
                                     expected="--tip a link below --base")
            path.append(self.joints[link])
            link = self.joints[link].parent
        return path[::-1]

    def pose_in_root(self, link: str) -> np.ndarray:
        T = np.eye(4)
        while link in self.joints:
            T = self.joints[link].origin @ T
            link = self.joints[link].parent
        return T

    def lumped(self, link: str, stop: str | None, locked: list, chain: set,
               whole: bool = False) -> Inertia:
        """The bodies of ``link`` and every link below it, except from ``stop`` on (``whole``:
        from every movable joint on, each a joint of the model), about the origin of ``link``'s
        frame (joints off the chain held at zero)."""
        total = no_body()
        stack = [(link, np.eye(4))]
        while stack:
            name, T = stack.pop()
            total = total + seen_from(T, self.body(name))
            for joint in self.children[name]:
                if joint.child == stop or (whole and joint.kind in MOVABLE):
                    continue
                if joint.kind in MOVABLE:
                    if joint.mimic is not None and joint.mimic[0] in chain:
                        raise self.error(f"joint {joint.name!r} mimics {joint.mimic[0]!r} of the "
                                         "chain", joint,
                                         expected="a chain of independent joints")
                    locked.append(joint.name)
                stack.append((joint.child, T @ joint.origin))
        return total
