"""Robot -> URDF: a robot file's model for the ecosystem's viewers and simulators.

The URDF's links are symdyn's joint frames (Craig's frames: z along each joint axis), so every
joint is placed by its transform at q = 0 and turns about (or slides along) z:

    world --base_joint--> base_link --joint1--> link1 ... --jointn--> linkn --tool_joint--> tool

A floating base's base_link is the root, with the base's body, and no world: URDF has no
floating joint, and a reader gives the root its free-flyer (Pinocchio's buildModelFromUrdf with
JointModelFreeFlyer; <symdyn:root type="free_flyer"/> says so).

Each link carries its body (the payload in the last) about its centre of mass. What URDF has no
element for is kept in symdyn's own namespace, which other tools skip: the gravity
(<symdyn:gravity>) and the actuator on the motor side (<symdyn:actuator>: rotor inertia, gear
ratio, viscous and asymmetric Coulomb friction); <dynamics> carries the joint-side damping and,
where it is symmetric, friction, for the tools that read it; <mimic> a mimic joint's coupling.
URDF has no closed loops, contacts or tendons: a robot file's constraints and tendons are left
out, and urdf_left_out says so.
Importing the export gives back the same dynamics (tests/robot/test_urdf.py). Names come from
the robot file's name only, which is validated, and every attribute is XML-escaped all the same.
"""
from __future__ import annotations

import math
import re
from xml.sax.saxutils import escape, quoteattr

import numpy as np
import sympy

from .model import Robot
from .rigid import rpy
from .write import decimal, decimals

NAMESPACE = "urn:symdyn:urdf:1"   # names symdyn's elements; not a document to fetch
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)
VISUAL_RADIUS = 0.02       # the cylinders drawn with visual=True, in metres


def urdf_text(robot: Robot, values: dict | None = None, *, visual: bool = False,
              notes: list[str] | None = None) -> str:
    """The URDF of ``robot`` with its free symbols replaced by ``values`` ({symbol: number});
    raises ValueError naming the symbols that are left, or the spherical joints (which URDF
    does not have)."""
    num = Numbers.of(robot, values, "a URDF")
    spec = robot.spec
    refuse_kinds(robot, "URDF", "urdf", "export-mjcf", "mjcf")
    out = ['<?xml version="1.0"?>',
           f"<!-- {escape(robot.name)}: exported by symdyn from its robot file. Links are "
           "symdyn's joint frames (z along each joint axis). -->",
           *(comment(f"Note: {line}.") for line in (
               urdf_left_out(robot) if notes is None else notes)),
           f'<robot name={quoteattr(robot.name)} xmlns:symdyn={quoteattr(NAMESPACE)}>']
    gravity = num.vector(spec.gravity)
    if not np.allclose(gravity, DEFAULT_GRAVITY, rtol=0, atol=0):
        out.append(f'  <symdyn:gravity xyz="{_words(gravity)}"/>')
    if robot.floating:      # the root link moves: a reader adds its free-flyer
        out.append('  <symdyn:root type="free_flyer"/>')
        out += _link("base_link", robot.root.inertia, num, False, np.eye(4))
    else:
        out.append('  <link name="world"/>')
        out += _fixed("base_joint", "world", "base_link", num.matrix(robot.base))
        out.append('  <link name="base_link"/>')
    for link, row in zip(robot.links, spec.links):
        placement = np.eye(4)
        placement[:3, :3] = num.matrix(link.rotation.subs(link.rest))
        placement[:3, 3] = num.vector(link.position.subs(link.rest))
        name, parent = f"link{link.index}", f"link{link.parent}" if link.parent else "base_link"
        out += _joint(f"joint{link.index}", link, row, parent, name, placement, num)
        out += _link(name, link.inertia, num, visual, placement)
    out += _fixed("tool_joint", f"link{robot.tool_link}" if robot.tool_link else "base_link",
                  "tool", num.matrix(robot.tool))
    out += ['  <link name="tool"/>', "</robot>", ""]
    return "\n".join(out)


def comment(text: str) -> str:
    """An XML comment of ``text`` (names of the robot file's, any text): escaped, and with no
    "--", which ends no comment but makes the file one no parser reads."""
    return "<!-- " + re.sub(r"-(?=-)", "- ", escape(text)) + " -->"


def urdf_left_out(robot: Robot) -> list[str]:
    """What the URDF of ``robot`` cannot hold, in words: URDF is a tree, with no closed loops,
    contacts, couplings, tendons, joint springs or elastic joints."""
    out = []
    if robot.constraints:
        out.append("constraints left out (URDF has no closed loops, contacts or couplings; "
                   "export-mjcf keeps them): " + ", ".join(repr(c.name)
                                                          for c in robot.constraints))
    if robot.tendons:
        out.append("tendons left out (URDF has none): "
                   + ", ".join(repr(t.name) for t in robot.tendons))
    springs = [link for link in robot.links if link.spring]
    if springs:
        out.append("joint springs left out (URDF has no joint stiffness): "
                   + ", ".join(map(repr, robot.joint_names(springs))))
    if robot.elastic:
        out.append("elastic joints written rigid, their motors' rotors and friction the "
                   "joints' (URDF has no joint stiffness; the robot file is the elastic "
                   "model's source): " + ", ".join(map(repr, robot.joint_names(robot.elastic))))
    return out


class Numbers:
    """A robot's expressions as floats, its free symbols replaced by given values."""

    def __init__(self, values):
        self.values = values

    @classmethod
    def of(cls, robot: Robot, values: dict | None, what: str) -> "Numbers":
        """The numbers of ``robot`` at ``values``; ValueError naming the free symbols left,
        which ``what`` (a file of numbers: "a URDF") cannot hold."""
        values = values or {}
        free = [str(p) for p in robot.parameters if p not in values]
        if free:
            raise ValueError(f"{what} holds numbers: give {', '.join(free)} a value (--set)")
        return cls(values)

    def __call__(self, expr) -> float:
        return float(sympy.sympify(expr).subs(self.values))

    def vector(self, exprs) -> np.ndarray:
        return np.array([self(e) for e in exprs], dtype=float)

    def matrix(self, m) -> np.ndarray:
        return np.array(sympy.Matrix(m).subs(self.values), dtype=float)


def _words(values) -> str:
    return decimals(values)[1:-1].replace(",", "")


def _origin(T) -> str:
    # angles in full (pi/2 as 1.5707963267948966): other tools take them literally
    return (f'<origin xyz="{_words(T[:3, 3])}" '
            f'rpy="{" ".join(repr(a + 0.0) for a in rpy(T[:3, :3]))}"/>')


def refuse_kinds(robot: Robot, form: str, key: str, other: str, other_key: str) -> None:
    """Raise ValueError naming the joints of the first kind that the format ``form`` has no
    name for (its ``key``: JointKind.urdf or mjcf), and how the ``other`` export writes it."""
    unwritten = [link for link in robot.links if getattr(link.kind, key) is None]
    if unwritten:
        kind = unwritten[0].kind
        names = ", ".join(robot.joint_names(link for link in unwritten if link.kind is kind))
        written = getattr(kind, other_key)
        raise ValueError(f"{form} has no {kind.name} joint ({names})" + (
            f"; {other} writes it as a {written} joint" if written else ""))


def _fixed(name, parent, child, T) -> list[str]:
    return [f'  <joint name="{name}" type="fixed">', f'    <parent link="{parent}"/>',
            f'    <child link="{child}"/>', f"    {_origin(T)}", "  </joint>"]


def _joint(name, link, row, parent, child, placement, num) -> list[str]:
    limits = {k: num(v) for k, v in (row.limits or {}).items()}
    positioned = "lower" in limits
    kind = link.kind.urdf if positioned or not link.revolute else "continuous"
    lines = [f'  <joint name="{name}" type="{kind}">', f'    <parent link="{parent}"/>',
             f'    <child link="{child}"/>', f"    {_origin(placement)}",
             *(['    <axis xyz="0 0 1"/>'] if link.kind.axis else [])]
    if link.q is None:          # no limits, mimic, friction or actuator (the robot file's)
        return lines + ["  </joint>"]
    if kind != "continuous" or limits:
        bounds = "".join(f' {k}="{decimal(limits[k])}"' for k in ("lower", "upper")
                         if k in limits)
        lines.append(f'    <limit{bounds} effort="{decimal(limits.get("effort", 0))}" '
                     f'velocity="{decimal(limits.get("velocity", 0))}"/>')
    if link.mimic is not None:
        followed, multiplier, offset = link.mimic
        lines.append(f'    <mimic joint="joint{followed}" multiplier="{decimal(num(multiplier))}" '
                     f'offset="{decimal(num(offset))}"/>')
    side = link.elastic or link     # an elastic joint's motor locked to its link (left out)
    viscous = num(side.viscous)
    plus, minus = (num(c) for c in side.coulomb)
    friction = f' friction="{decimal(plus)}"' if plus == -minus else ""
    if viscous or friction:
        lines.append(f'    <dynamics damping="{decimal(viscous)}"{friction}/>')
    actuator = {"motor_inertia": num(row.motor_inertia), "gear_ratio": num(row.gear_ratio),
                "viscous_friction": num(row.viscous_friction)}
    coulomb = [num(c) for c in row.coulomb_friction]
    if actuator != {"motor_inertia": 0, "gear_ratio": 1, "viscous_friction": 0} or any(coulomb):
        attributes = "".join(f' {k}="{decimal(v)}"' for k, v in actuator.items())
        lines.append(f'    <symdyn:actuator{attributes} coulomb_friction="{_words(coulomb)}"/>')
    return lines + ["  </joint>"]


def _link(name, inertia, num, visual, placement) -> list[str]:
    mass = num(inertia.mass)
    lines = [f'  <link name="{name}">']
    h = num.vector(inertia.first_moment)
    J = num.matrix(inertia.inertia_origin)
    if mass or J.any():      # published data may give a massless link inertia
        c = h / mass if mass else np.zeros(3)
        about_com = J - mass * (c @ c * np.eye(3) - np.outer(c, c))
        scale = max(np.abs(about_com).max(), np.abs(J).max())   # a difference: noise of J
        tensor = " ".join(f'{k}="{decimal(about_com[i, j], scale)}"' for k, (i, j) in (
            ("ixx", (0, 0)), ("ixy", (0, 1)), ("ixz", (0, 2)), ("iyy", (1, 1)),
            ("iyz", (1, 2)), ("izz", (2, 2))))
        lines += ["    <inertial>", f'      <origin xyz="{_words(c)}" rpy="0 0 0"/>',
                  f'      <mass value="{decimal(mass)}"/>', f"      <inertia {tensor}/>",
                  "    </inertial>"]
    if visual:      # the joint along z, and a bone back to the parent's origin
        lines += _cylinder(np.zeros(3), np.array([0, 0, 1.0]), 4 * VISUAL_RADIUS)
        back = -placement[:3, :3].T @ placement[:3, 3]
        if np.linalg.norm(back) > 1e-9:
            lines += _cylinder(back / 2, back, float(np.linalg.norm(back)))
    lines.append("  </link>")
    return lines


def _cylinder(center, direction, length) -> list[str]:
    """A visual cylinder of ``length`` along ``direction`` about ``center``."""
    pitch = math.acos(max(-1.0, min(1.0, direction[2] / np.linalg.norm(direction))))
    yaw = math.atan2(direction[1], direction[0])
    return ["    <visual>",
            f'      <origin xyz="{_words(center)}" rpy="0 {decimal(pitch)} {decimal(yaw)}"/>',
            f'      <geometry><cylinder radius="{VISUAL_RADIUS}" length="{decimal(length)}"/>'
            "</geometry>", "    </visual>"]
