"""URDF -> Chain: the serial chain between two links of a URDF, in numbers, ready to be written
as a robot file (write.py).

The XML is read by defusedxml's SAX parser with DTDs, entities and external references refused
(a billion-laughs file fails at its first declaration), each element keeping its line for the
errors. Only what dynamics needs is read: links' <inertial>, joints' <origin>, <axis>, <limit>,
<dynamics> and <mimic>, and symdyn's own <symdyn:actuator> (written by export.py, ignored by
other tools); meshes and everything else are skipped.

The chain runs from a base link to a tip link through the movable joints between them. Fixed
joints on it are folded into the next joint's placement, or into the tool after the last one.
Everything that moves with a chain joint and no later one -- links on fixed joints, and subtrees
on joints that are not in the chain, held at zero as Pinocchio's buildReducedModel holds them --
is lumped into that joint's body by the parallel-axis theorem. Links before the first joint are
fixed to the world and do not enter the dynamics -- but on a floating base (``root``
"free_flyer", Pinocchio's buildModelFromUrdf with JointModelFreeFlyer), where the URDF's root
link moves freely and carries, lumped the same way, every link fixed to it.
"""
from __future__ import annotations

import io
import math
import xml.sax
from dataclasses import dataclass, field, replace
from pathlib import Path

import defusedxml
import defusedxml.sax
import numpy as np

from ..errors import RobotFileError
from ..spatial import Inertia
from .expr import decimal
from .reading import read_bounded
from .rigid import QUARTER_TOLERANCE, inertia_tensor, no_body, pose, seen_from
from .spec import ROOTS
from .validity import actuator_problem, body_problem

MAX_URDF_BYTES = 8 << 20
MAX_MAGNITUDE = 1e30
MOVABLE = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic"}
UNSUPPORTED = {"floating": "a floating joint (6 degrees of freedom)",
               "planar": "a planar joint (3 degrees of freedom)"}
ACTUATOR = "symdyn:actuator"    # symdyn's own elements, as export.py writes them
GRAVITY = "symdyn:gravity"
ROOT = "symdyn:root"            # <symdyn:root type="free_flyer"/>: an export's floating base


@dataclass(frozen=True)
class Element:
    tag: str
    attrs: dict
    children: tuple
    line: int

    def all(self, tag):
        return [child for child in self.children if child.tag == tag]


@dataclass(frozen=True)
class Joint:
    name: str
    kind: str                 # as the URDF says: revolute, continuous, prismatic, fixed, ...
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
    link: str                 # its child link's name in the URDF
    mimic: tuple | None = None    # a mimic joint's (followed joint, 1-based; multiplier, offset)


@dataclass(frozen=True)
class Chain:
    robot: str                # the URDF's robot name
    base_link: str
    tip_link: str
    joints: tuple[ChainJoint, ...]
    base: np.ndarray          # the base link in the URDF's root link frame, all joints at zero
    tool: np.ndarray          # the tip link in the last joint's frame
    gravity: tuple = (0.0, 0.0, -9.81)            # in the root link's frame
    locked: tuple[str, ...] = field(default=())   # movable joints off the chain, held at zero
    other_tips: tuple[str, ...] = field(default=())   # leaves on fixed joints past the tip
    warnings: tuple[str, ...] = field(default=())     # inconsistent inertias, when allowed
    # A whole tree's links on fixed joints (sensors, fingertips): (URDF link, the movable joint
    # it is fixed to, 1-based, 0 the base; its pose in that joint's child link frame)
    frames: tuple[tuple[str, int, np.ndarray], ...] = field(default=())
    # A floating base's body: the root link and every link fixed to it, about the root link's
    # origin; None for a base fixed to the world.
    root_body: Inertia | None = None

    @property
    def tree(self) -> bool:
        """Whether the joints branch (some joint's parent is not the joint before it)."""
        return any(joint.parent != k for k, joint in enumerate(self.joints))

    @property
    def whole(self) -> bool:
        """Whether this is everything below the base, not a chain to a tip: a tree, or a
        floating base without joints."""
        return self.tree or not self.joints


def read_chain(path, base: str | None = None, tip: str | None = None, *,
               allow_inconsistent_inertia: bool = False,
               snap_angles: float = QUARTER_TOLERANCE, root: str | None = None) -> Chain:
    """The chain from ``base`` (default: the root link) to ``tip`` of the URDF at ``path``, or,
    without a ``tip`` where the movable joints below ``base`` branch, the whole tree below it
    (its joints depth first, as Pinocchio numbers them); without a ``tip`` and no branch, the
    chain to the only end. RobotFileError names element and line. Inertias no rigid body has
    are errors, or warnings with ``allow_inconsistent_inertia``; angles within
    ``snap_angles`` of a multiple of pi/2 are taken as that multiple. ``root``: "fixed",
    "free_flyer" (the root link floats), or None for what the URDF's <symdyn:root> says
    (fixed without one)."""
    tree = _Tree(Path(path), allow_inconsistent_inertia, snap_angles)
    floating = (root or tree.root) == "free_flyer"
    chain = tree.chain(base, tip, floating)
    if not floating:
        return chain
    if chain.base_link != tree.root_link:
        raise RobotFileError(path, f"a floating base moves the URDF's root link "
                             f"{tree.root_link!r}, not {chain.base_link!r}",
                             expected="no --base with --root free_flyer")
    first = None if chain.whole else chain.joints[0].link
    locked = list(chain.locked)
    body = tree.lumped(chain.base_link, first, locked, chain={j.name for j in chain.joints},
                       whole=first is None)
    return replace(chain, root_body=body, locked=tuple(locked))


class _Builder(xml.sax.ContentHandler):
    """SAX events -> Elements, each with the line it starts on."""

    def __init__(self):
        super().__init__()
        self.stack = [("", {}, [], 0)]

    def startElement(self, name, attrs):
        self.stack.append((name, dict(attrs), [], self._locator.getLineNumber()))

    def endElement(self, name):
        tag, attrs, children, line = self.stack.pop()
        self.stack[-1][2].append(Element(tag, attrs, tuple(children), line))


class _Tree:
    def __init__(self, path: Path, lenient: bool, snap_angles: float):
        self.path = path
        self.lenient = lenient
        self.snap_angles = snap_angles
        self.warnings: list[str] = []
        root = self.parse(read_bounded(path, MAX_URDF_BYTES, "a URDF file"))
        if root.tag != "robot":
            raise self.error(f"the root element is <{root.tag}>", root,
                             expected="a URDF file, whose root element is <robot>")
        self.robot = root.attrs.get("name", "")
        floating = self.only(root, ROOT)
        self.root = "fixed" if floating is None else floating.attrs.get("type")
        if self.root not in ROOTS:
            raise self.error(f"<{ROOT}> type {self.root!r} is not known", floating,
                             expected=" or ".join(ROOTS))
        gravity = self.only(root, GRAVITY)
        self.gravity = (Chain.gravity if gravity is None
                        else tuple(float(g) for g in self.numbers(gravity, "xyz", 3)))
        self.links: dict[str, Element] = {}
        for element in root.all("link"):
            name = self.name(element)
            if name in self.links:
                raise self.error(f"link {name!r} is defined twice", element)
            self.links[name] = element
        self.joints: dict[str, Joint] = {}          # by child link
        names = set()
        for element in root.all("joint"):
            joint = self.joint(element)
            if joint.name in names:
                raise self.error(f"joint {joint.name!r} is defined twice", element)
            if joint.child in self.joints:
                raise self.error(f"link {joint.child!r} is the child of two joints", element,
                                 expected="a tree")
            names.add(joint.name)
            self.joints[joint.child] = joint
        if not self.links:
            raise self.error("the robot has no links", root)
        self.children: dict[str, list[Joint]] = {name: [] for name in self.links}
        for joint in self.joints.values():
            self.children[joint.parent].append(joint)

    @property
    def root_link(self) -> str:
        """The link no joint has as its child (chain() checks there is one)."""
        return next(name for name in self.links if name not in self.joints)

    # -- XML ---------------------------------------------------------------------------------
    def error(self, message, element=None, expected=None):
        """The error at an Element or a Joint (a <joint> element)."""
        field = None if element is None else f"<{getattr(element, 'tag', 'joint')}>"
        return RobotFileError(self.path, message, field=field, expected=expected,
                              line=None if element is None else element.line)

    def parse(self, raw: bytes) -> Element:
        builder = _Builder()
        parser = defusedxml.sax.make_parser()
        parser.forbid_dtd = True          # URDF has no DTD; refusing it refuses every entity
        parser.forbid_entities = True
        parser.forbid_external = True
        parser.setContentHandler(builder)
        try:
            parser.parse(io.BytesIO(raw))
        except xml.sax.SAXParseException as exc:
            raise RobotFileError(self.path, f"not well-formed XML: {exc.getMessage()}",
                                 line=exc.getLineNumber()) from None
        except defusedxml.DefusedXmlException as exc:
            locator = getattr(builder, "_locator", None)
            line = locator.getLineNumber() if locator else None
            raise RobotFileError(self.path, "a DTD or an entity declaration is not read "
                                 f"({type(exc).__name__})", line=line,
                                 expected="a URDF without <!DOCTYPE> or <!ENTITY>") from None
        (root,) = builder.stack[0][2]
        return root

    def name(self, element) -> str:
        name = element.attrs.get("name")
        if not name:
            raise self.error("has no name", element)
        return name

    def numbers(self, element, attribute, count, default=None) -> np.ndarray:
        text = element.attrs.get(attribute)
        if text is None:
            if default is None:
                raise self.error(f"{attribute} is missing", element,
                                 expected=f"{count} number{'s' * (count > 1)}")
            return np.array(default, dtype=float)
        words = text.split()
        if any(word.lower().lstrip("+-") in ("nan", "inf", "infinity") for word in words):
            raise self.error(f"{attribute}={text!r} is not finite", element)
        try:
            values = [decimal(word) for word in words]
        except ValueError:
            hint = " (a xacro file? run xacro first)" if "$" in text else ""
            raise self.error(f"{attribute}={text!r} is not {count} number{'s' * (count > 1)}"
                             + hint, element) from None
        if len(values) != count:
            raise self.error(f"{attribute}={text!r} has {len(values)} numbers, not {count}",
                             element)
        if not all(math.isfinite(v) and abs(v) <= MAX_MAGNITUDE for v in values):
            raise self.error(f"{attribute}={text!r} is not finite or larger than "
                             f"{MAX_MAGNITUDE:g}", element)
        return np.array(values)

    def number(self, element, attribute, default=None) -> float:
        return float(self.numbers(element, attribute, 1,
                                  None if default is None else [default])[0])

    def only(self, parent, tag) -> Element | None:
        found = parent.all(tag)
        if len(found) > 1:
            raise self.error(f"<{tag}> is given twice", found[1])
        return found[0] if found else None

    def origin(self, parent) -> np.ndarray:
        element = self.only(parent, "origin")
        if element is None:
            return np.eye(4)
        return pose(self.numbers(element, "xyz", 3, (0, 0, 0)),
                    self.numbers(element, "rpy", 3, (0, 0, 0)), self.snap_angles)

    def joint(self, element) -> Joint:
        name = self.name(element)
        kind = element.attrs.get("type", "")
        if kind not in (*MOVABLE, "fixed", *UNSUPPORTED):
            raise self.error(f"joint {name!r} has type {kind!r}", element,
                             expected="revolute, continuous, prismatic or fixed")
        links = {}
        for tag in ("parent", "child"):
            link_element = self.only(element, tag)
            link = link_element.attrs.get("link") if link_element is not None else None
            if not link:
                raise self.error(f"joint {name!r} has no <{tag} link=...>", element)
            if link not in self.links:
                raise self.error(f"joint {name!r}: {tag} link {link!r} is not defined",
                                 link_element)
            links[tag] = link
        axis_element = self.only(element, "axis")
        axis = (np.array([1.0, 0.0, 0.0]) if axis_element is None    # URDF's default
                else self.numbers(axis_element, "xyz", 3))
        if kind in MOVABLE:
            norm = float(np.linalg.norm(axis))
            if norm == 0:
                raise self.error(f"joint {name!r} has a zero axis", axis_element or element)
            axis = axis / norm
        limits = {}
        limit = self.only(element, "limit")
        if limit is not None and kind in MOVABLE:
            keys = ("velocity", "effort") if kind == "continuous" else (
                "lower", "upper", "velocity", "effort")
            given = {k: self.number(limit, k) for k in keys if k in limit.attrs}
            # URDF's lower and upper default to 0: both absent means no position limits;
            # velocity and effort 0 are written by tools that have no value
            limits = {k: v for k, v in given.items() if k in ("lower", "upper") or v != 0}
            if ("lower" in limits) != ("upper" in limits):
                limits.setdefault("lower", 0.0)
                limits.setdefault("upper", 0.0)
            if limits.get("lower", 0) > limits.get("upper", 0):
                raise self.error(f"joint {name!r}: the lower limit is above the upper", limit)
            for k in ("velocity", "effort"):
                if limits.get(k, 1) < 0:
                    raise self.error(f"joint {name!r}: the {k} limit is negative", limit)
        dynamics = self.only(element, "dynamics")
        viscous = coulomb = 0.0
        if dynamics is not None:
            viscous, coulomb = (self.number(dynamics, k, 0.0) for k in ("damping", "friction"))
            if viscous < 0 or coulomb < 0:
                raise self.error(f"joint {name!r}: damping and friction cannot be negative",
                                 dynamics)
        mimic = self.only(element, "mimic")
        if mimic is not None:
            mimic = (mimic.attrs.get("joint", ""), self.number(mimic, "multiplier", 1.0),
                     self.number(mimic, "offset", 0.0))
        return Joint(name, kind, links["parent"], links["child"], self.origin(element), axis,
                     limits, viscous, coulomb, self.actuator(element, name), mimic,
                     element.line)

    def actuator(self, joint_element, name) -> dict | None:
        element = self.only(joint_element, ACTUATOR)
        if element is None:
            return None
        data = {key: self.number(element, key, default)
                for key, default in (("motor_inertia", 0.0), ("gear_ratio", 1.0),
                                     ("viscous_friction", 0.0))}
        data["coulomb_friction"] = tuple(self.numbers(element, "coulomb_friction", 2, (0, 0)))
        for key, value in data.items():
            problem = actuator_problem(key, value)
            if problem:
                raise self.error(f"joint {name!r}: {problem}", element)
        return data

    def body(self, link: str) -> Inertia:
        """The link's <inertial>, about the link frame's origin; checked as a rigid body."""
        element = self.links[link]
        inertial = self.only(element, "inertial")
        if inertial is None:
            return no_body()
        mass_element = self.only(inertial, "mass")
        mass = 0.0 if mass_element is None else self.number(mass_element, "value")
        tensor = self.only(inertial, "inertia")
        six = [0.0] * 6 if tensor is None else [
            self.number(tensor, k, 0.0) for k in ("ixx", "iyy", "izz", "ixy", "iyz", "ixz")]
        problem = body_problem(mass, (0, 0, 0), six, about_origin=False)
        if problem:
            where = (mass_element if "mass is" in problem else tensor) or inertial
            if not self.lenient:
                raise self.error(f"link {link!r}: {problem}", where,
                                 expected="a rigid body's inertial data, or "
                                          "--allow-inconsistent-inertia for published data")
            warning = str(self.error(f"link {link!r}: {problem} (allowed by "
                                     "--allow-inconsistent-inertia)", where))
            if warning not in self.warnings:
                self.warnings.append(warning)
        return seen_from(self.origin(inertial),
                         Inertia(float(mass), np.zeros(3), inertia_tensor(six)))

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
                raise RobotFileError(self.path, f"{option} {given!r} is not a link of the URDF",
                                     expected="one of " + ", ".join(sorted(self.links)))
        ends = self.chain_ends(base)
        if tip is None and (len(ends) > 1 or floating and not ends):
            return self.whole(base)
        tip, other_tips = (tip, ()) if tip else self.default_tip(base)
        path = self.path_between(base, tip)
        for joint in path:
            self.check_movable(joint, "in the chain")
            if joint.mimic is not None and joint.kind in MOVABLE:
                raise self.error(f"joint {joint.name!r} in the chain mimics {joint.mimic[0]!r}",
                                 joint, expected="a chain of independent joints; choose "
                                 "another with --base and --tip")
        movable = [joint for joint in path if joint.kind in MOVABLE]
        if not movable:
            raise RobotFileError(self.path, f"no movable joint between {base!r} and {tip!r}")
        chain_joints, locked = [], []
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
                                           parent=len(chain_joints), link=joint.child))
            placement = np.eye(4)
        return Chain(self.robot, base, tip, tuple(chain_joints), self.pose_in_root(base),
                     placement, self.gravity, tuple(locked), other_tips, tuple(self.warnings))

    def chain_ends(self, base: str) -> set:
        """The last movable joint on the way to each leaf below ``base``: more than one where
        the movable joints branch, none where no joint below it moves."""
        leaves = [link for link in self.below(base) if not self.children[link]]
        return {self.last_movable(leaf, base) for leaf in leaves} - {None}

    def whole(self, base: str) -> Chain:
        """Every movable joint below ``base``, depth first, siblings in the order of their
        joints' names (Pinocchio's numbering, which urdfdom's sorted map of joints gives), each
        placed in its parent movable joint's frame, with the bodies its fixed joints hold."""
        joints: list[ChainJoint] = []
        frames: list[tuple[str, int, np.ndarray]] = []

        def below(link: str, parent: int, placement: np.ndarray) -> list:
            # pushed last first, so that they are popped in the order of their names
            return [(joint, parent, placement) for joint in sorted(
                self.children[link], key=lambda j: j.name, reverse=True)]

        stack = below(base, 0, np.eye(4))     # a stack, not recursion: a URDF may be deep
        while stack:
            joint, parent, placement = stack.pop()
            self.check_movable(joint, "in the tree")
            origin = placement @ joint.origin
            if joint.kind not in MOVABLE:
                frames.append((joint.child, parent, origin))
                stack += below(joint.child, parent, origin)
                continue
            body = self.lumped(joint.child, None, [], chain=set(), whole=True)
            joints.append(ChainJoint(joint.name, MOVABLE[joint.kind], origin, joint.axis,
                                     body, joint.limits, joint.viscous, joint.coulomb,
                                     joint.actuator, parent, joint.child))
            stack += below(joint.child, len(joints), np.eye(4))
        joints = self.coupled(joints, base)
        return Chain(self.robot, base, joints[-1].link if joints else base, tuple(joints),
                     self.pose_in_root(base),
                     np.eye(4), self.gravity, (), (), tuple(self.warnings), tuple(frames))

    def coupled(self, joints: list[ChainJoint], base: str) -> list[ChainJoint]:
        """The model's joints with each mimic joint's coupling to the joint it follows (by
        its place in the model), which must be one of the model's and follow none."""
        place = {joint.name: k for k, joint in enumerate(joints, start=1)}
        out = []
        for chain_joint in joints:
            mimic = self.joints[chain_joint.link].mimic
            if mimic is not None:
                name, multiplier, offset = mimic
                urdf_joint = self.joints[chain_joint.link]
                if name not in place:
                    raise self.error(
                        f"joint {chain_joint.name!r} mimics {name!r}, which is not a movable "
                        f"joint below {base!r}", urdf_joint,
                        expected="a mimic of a joint of the imported tree (--base)")
                if self.joints[joints[place[name] - 1].link].mimic is not None:
                    raise self.error(
                        f"joint {chain_joint.name!r} mimics {name!r}, a mimic joint itself: a "
                        "mimic of a mimic is not taken", urdf_joint,
                        expected="mimic joints that follow independent joints")
                chain_joint = replace(chain_joint, mimic=(place[name], multiplier, offset))
            out.append(chain_joint)
        return out

    def check_movable(self, joint: Joint, where: str):
        if joint.kind in UNSUPPORTED:
            raise self.error(f"joint {joint.name!r} {where} is {UNSUPPORTED[joint.kind]}",
                             joint, expected="revolute, continuous, prismatic or fixed "
                             "joints; choose the chain with --base and --tip")

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
                self.check_movable(joint, "is lumped into the chain's links, but")
                if joint.kind in MOVABLE:
                    if joint.mimic is not None and joint.mimic[0] in chain:
                        raise self.error(f"joint {joint.name!r} mimics {joint.mimic[0]!r} of the "
                                         "chain", joint,
                                         expected="a chain of independent joints")
                    locked.append(joint.name)
                stack.append((joint.child, T @ joint.origin))
        return total
