"""URDF -> Chain: a URDF's links and joints, in numbers, cut as tree.py cuts every format's.

The XML is read by xmltree.py (no DTD, no entities), each element keeping its line for the
errors. Only what dynamics needs is read: links' <inertial>, joints' <origin>, <axis>, <limit>,
<dynamics> and <mimic>, and symdyn's own <symdyn:actuator> (written by export.py, ignored by
other tools); meshes and everything else are skipped.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..spatial import Inertia
from .expr import decimal
from .joints import KINDS
from .reading import read_bounded
from .rigid import (
    LARGEST,
    QUARTER_TOLERANCE,
    in_bounds,
    inertia_tensor,
    no_body,
    pose,
    seen_from,
)
from .spec import ROOTS
from .tree import INCONSISTENT, MOVABLE, Chain, Joint, LinkTree
from .validity import actuator_problem, body_problem
from .xmltree import Element, parse

MAX_URDF_BYTES = 8 << 20
ACTUATOR = "symdyn:actuator"    # symdyn's own elements, as export.py writes them
GRAVITY = "symdyn:gravity"
ROOT = "symdyn:root"            # <symdyn:root type="free_flyer"/>: an export's floating base


# The joint types URDF has: the kinds' (JointKind.urdf; a continuous joint is a revolute one),
# and fixed
URDF_TYPES = ("continuous", *(kind.urdf for kind in KINDS.values() if kind.urdf), "fixed")
SEVERAL_LEFT_OUT = ("the limits, damping, friction and actuators of joints of several "
                    "coordinates left out (a robot file's planar or floating joint has none):")


def read_chain(path, base: str | None = None, tip: str | None = None, *,
               strict_inertia: bool = False,
               snap_angles: float = QUARTER_TOLERANCE, root: str | None = None) -> Chain:
    """The chain from ``base`` (default: the root link) to ``tip`` of the URDF at ``path``, or,
    without a ``tip`` where the movable joints below ``base`` branch, the whole tree below it
    (its joints depth first, as Pinocchio numbers them); without a ``tip`` and no branch, the
    chain to the only end. RobotFileError names element and line. Inertias no rigid body has
    are taken with a warning (published files hold them), or refused with
    ``strict_inertia``; angles within
    ``snap_angles`` of a multiple of pi/2 are taken as that multiple. ``root``: "fixed",
    "free_flyer" (the root link floats), or None for what the URDF's <symdyn:root> says
    (fixed without one)."""
    return _Tree(Path(path), strict_inertia, snap_angles).read(base, tip, root)


class _Tree(LinkTree):
    def __init__(self, path: Path, strict: bool, snap_angles: float):
        super().__init__(path)
        self.strict = strict
        self.snap_angles = snap_angles
        root = parse(read_bounded(path, MAX_URDF_BYTES, "a URDF file"), path, "a URDF file")
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
        for element in root.all("link"):
            name = self.name(element)
            if name in self.links:
                raise self.error(f"link {name!r} is defined twice", element)
            self.links[name] = element
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
        self.index()

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
        bounded = in_bounds(values)
        if bounded is None:
            raise self.error(f"{attribute}={text!r} is not finite or larger than "
                             f"{LARGEST:g}", element)
        return bounded

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
        if kind not in URDF_TYPES:
            raise self.error(f"joint {name!r} has type {kind!r}", element,
                             expected=", ".join(URDF_TYPES[:-1]) + " or " + URDF_TYPES[-1])
        several = kind in MOVABLE and KINDS[MOVABLE[kind]].nq != 1
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
        if kind == "floating":      # which has none
            axis = np.array([0.0, 0.0, 1.0])
        elif kind in MOVABLE:
            norm = float(np.linalg.norm(axis))
            if norm == 0:
                raise self.error(f"joint {name!r} has a zero axis", axis_element or element)
            axis = axis / norm
        limits = {}
        limit = self.only(element, "limit")
        if limit is not None and several:
            self.note(SEVERAL_LEFT_OUT, f"{name!r} <limit>")
        elif limit is not None and kind in MOVABLE:
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
            if several and (viscous or coulomb):
                self.note(SEVERAL_LEFT_OUT, f"{name!r} <dynamics>")
                viscous = coulomb = 0.0
        mimic = self.only(element, "mimic")
        if mimic is not None and several:
            raise self.error(f"joint {name!r} is a {kind} joint with a <mimic>", mimic,
                             expected="a mimic on a revolute, continuous or prismatic joint")
        if mimic is not None:
            mimic = (mimic.attrs.get("joint", ""), self.number(mimic, "multiplier", 1.0),
                     self.number(mimic, "offset", 0.0))
        actuator = self.actuator(element, name)
        if actuator is not None and several:
            self.note(SEVERAL_LEFT_OUT, f"{name!r} <{ACTUATOR}>")
            actuator = None
        return Joint(name, kind, links["parent"], links["child"], self.origin(element), axis,
                     limits, viscous, coulomb, actuator, mimic,
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
            if self.strict or mass < 0:     # a negative mass is no published round-off
                raise self.error(f"link {link!r}: {problem}", where,
                                 expected="a rigid body's inertial data (without "
                                          "--strict-inertia, published data is taken as it is)")
            self.note(INCONSISTENT, f"{link!r} (line {where.line})")
        return seen_from(self.origin(inertial),
                         Inertia(float(mass), np.zeros(3), inertia_tensor(six)))

