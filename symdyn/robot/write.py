"""Chain -> robot file text: what ``symdyn import`` writes, of a URDF or an MJCF file.

In modified DH (Craig) when dhfit finds a table that reproduces the chain within 1e-12 -- its
frames are the cheapest for the recursion and the printouts -- else with each joint's origin
and axis as the file places them (convention urdf). Either way the link's inertial data are
moved into the file's link frame, and the file's base link and tip become ``base`` and ``tool``.

Numbers are written with 15 significant digits (URDFs give far fewer), angles within the
import's tolerance of a multiple of pi/12 as that multiple (pi/2, -pi/4); names from the file
appear only inside quoted YAML strings and comments, JSON-escaped, so a name cannot break out
of either.
"""
from __future__ import annotations

import json
import math

import numpy as np
import sympy

from . import angles
from .dhfit import modified_dh
from .expr import as_text
from .file import BASE, NAME_TEXT_LENGTH
from .joints import KINDS
from .rigid import QUARTER_TOLERANCE, rpy, seen_from
from .tree import Chain, ChainJoint

FORMS = ("auto", "modified", "urdf")


def robot_file(chain: Chain, *, name: str, source: str, form: str = "auto",
               command: str = "", snap_angles: float = QUARTER_TOLERANCE) -> tuple[str, str]:
    """The robot file's text, and the convention it is written in ("modified" or "urdf");
    ``command``, the import command to note in its header; angles within ``snap_angles`` of a
    multiple of pi/12 are written as that multiple."""

    near = set()      # angles written as numbers though close to a multiple of pi/12

    def angle(value: float) -> str:
        exact, offset, means = angles.nearest(value, angles.ANGLE, snap_angles)
        if exact == -sympy.pi:      # atan2's -pi (of a -0.0) is the same turn as pi
            exact = sympy.pi
        if means:
            return as_text(exact)
        if offset < angles.NEAR:
            near.add(decimal(value))
        return decimal(value)

    def exact_angle(value: float) -> str:
        """The special angle a number is to a few units in the last place, else the number."""
        exact, _, means = angles.nearest(value, angles.ANGLE)
        return as_text(exact) if means else decimal(value)

    kinds = [joint.kind for joint in chain.joints]
    placements = [joint.placement for joint in chain.joints]
    axes = [joint.axis for joint in chain.joints]
    tree = chain.tree or chain.coupled      # links with their parents
    if tree and form == "modified":
        raise ValueError("a tree, or mimic joints, are written as the file places the joints, "
                         "not in modified DH")
    floating = chain.root_body is not None
    if floating and form == "modified":
        raise ValueError("a floating base is written as the URDF places its joints: its frame "
                         "{0} is the URDF's root link, which a DH table would move")
    table = None
    if form != "urdf" and not tree and not floating and all(KINDS[k].dh for k in kinds):
        tip = _compose(placements) @ chain.tool
        table = modified_dh(kinds, placements, axes, tip_x=tip[:3, 0])
        if table is None and form == "modified":
            raise ValueError("no DH table reproduces these joint axes within 1e-12")
    convention = "urdf" if table is None else "modified"
    part = (f"the whole tree below {_quote(chain.base_link)}" if chain.whole else
            f"the chain {_quote(chain.base_link)} -> {_quote(chain.tip_link)}")
    lines = [f"# {name}: imported by symdyn from the {chain.format} robot {_quote(chain.robot)}, "
             f"{part}."
             + (f"\n# Made by: {_quote(command)}" if command else ""),
             "# " + (f"Modified (Craig) DH: a DH table reproduces the {chain.format}'s joint "
                     "axes within 1e-12." if table else f"Joints placed as the {chain.format} "
                     "places them: no DH table reproduces its joint axes within 1e-12."),
             "# Names are the file's own: each link's, its joint's (JOINTS) and every link's "
             "and site's as a frame (FRAMES)."]
    if chain.locked:
        lines.append("# Held at zero and lumped into the links: "
                     + ", ".join(_quote(j) for j in chain.locked) + ".")
    if chain.other_tips:
        lines.append("# Other ends on fixed joints (import with --tip to make one the tool): "
                     + ", ".join(_quote(t) for t in chain.other_tips) + ".")
    lines += [f"# Warning: {_comment(warning)}" for warning in chain.warnings]
    header = len(lines)
    lines += [f"name: {_quote(name)}", f"source: {_quote(source)}", f"convention: {convention}",
              f"gravity: {decimals(chain.gravity)}"]
    if chain.inconsistent:
        lines.append(f"allow_inconsistent_inertia: true   # as the {chain.format}'s data")
    if floating:
        lines += ["root: free_flyer", "base_body: {" + ", ".join(
            entry.strip() for entry in _body(chain.root_body)) + "}   # "
            + _quote(chain.base_link) + " and the links fixed to it"]
    lines.append("links:" if chain.joints else "links: []   # a floating base alone")
    base, tool = chain.base, chain.tool
    names = [_quote(n) for n in file_names([joint.link for joint in chain.joints])]
    joint_names = [_quote(n) for n in file_names([joint.name for joint in chain.joints],
                                                 reserved=())]
    frames = list(chain.frames)
    if table is None:
        for k, joint in enumerate(chain.joints):
            place = [f"name: {names[k]}", f"joint_name: {joint_names[k]}"]
            if tree:
                place.append(f"parent: {names[joint.parent - 1] if joint.parent else 'base'}")
            place.append(f"origin: {_placement(joint.placement, angle)}")
            if KINDS[joint.kind].axis:      # (a spherical joint turns about every axis)
                place.append(f"axis: {decimals(joint.axis)}")
            if joint.mimic is not None:      # only in a tree (or a coupled chain: named)
                followed, multiplier, offset = joint.mimic
                place += [f"mimic: {names[followed - 1]}", f"multiplier: {decimal(multiplier)}",
                          "offset: " + (angle(offset) if joint.kind == "revolute"
                                        else decimal(offset))]
            lines += _link(joint, joint.body, place)
    else:
        size = sum(float(np.linalg.norm(p[:3, 3])) for p in placements)
        # the frames' placements, from the file's link frames into the table's joint frames
        frames = [(link, parent, (np.linalg.inv(table.base) if parent == 0
                                  else table.frames[parent - 1]) @ placement)
                  for link, parent, placement in frames]
        base = base @ table.base                  # frame {0} in the world
        tool = table.frames[-1] @ chain.tool      # the tip in frame {n}
        for k, (joint, (alpha, a, theta, d), offset) in enumerate(zip(
                chain.joints, table.rows, table.frames)):
            lines += _link(joint, seen_from(offset, joint.body), [
                f"name: {names[k]}", f"joint_name: {joint_names[k]}",
                f"alpha: {angle(alpha)}", f"a: {decimal(a, size)}",
                f"theta: {angle(theta)}", f"d: {decimal(d, size)}"])
    placed = [(key, placement) for key, placement in (("base", base), ("tool", tool))
              if not _is_identity(placement)]
    for key, placement in placed:
        lines.append(f"{key}: {_placement(placement, angle)}")
    frame_names = {}
    if frames:
        # a link named tool is the tool, but where the tool is placed apart (a chain's tip)
        taken = ("tool",) if any(key == "tool" for key, _ in placed) else ()
        lines.append(f"frames:     # every link of the {chain.format}, by its name")
        frame_names = dict(zip((link for link, _, _ in frames),
                               file_names([link for link, _, _ in frames], reserved=taken)))
        for link, parent, placement in frames:
            where = names[parent - 1] if parent else "base"
            lines.append(f"  - {{name: {_quote(frame_names[link])}, parent: {where}, "
                         f"{_placement_fields(placement, angle)}}}")
    joint_of = dict(zip((joint.name for joint in chain.joints), joint_names))

    def joint_sum(terms) -> str:
        return "{" + ", ".join(f"{joint_of[j]}: {decimal(c)}" for j, c in terms) + "}"
    if chain.constraints:
        lines.append(f"constraints:     # the {chain.format}'s equalities")
        constraint_names = file_names([c.name for c in chain.constraints], reserved=())
        for name, held in zip(constraint_names, chain.constraints):
            if held.kind == "coupling":
                lines.append(f"  - {{name: {_quote(name)}, coupling: {joint_sum(held.terms)}, "
                             f"value: {decimal(held.value)}}}")
                continue
            ends = ", ".join(_quote(frame_names[end]) for end in held.ends)
            kept = f", axes: [{', '.join(held.axes)}]" if held.axes else ""
            at = f", at: {_placement(held.at, angle)}" if held.at is not None else ""
            lines.append(f"  - {{name: {_quote(name)}, {held.kind}: [{ends}]{kept}{at}}}")
    root = chain.closed_at_root
    placed = root is not None and not np.array_equal(root, np.eye(4))
    if (chain.closed_at or placed) and chain.constraints:
        # a joint's value as it is: where a loop closes is no angle to take as a near
        # multiple of pi/12 (that opened Cassie's by 3.5e-8 under --snap-angles 1e-6)
        def value_text(kind, value):
            return (exact_angle(value) if kind == "revolute" else decimal(value)
                    if kind == "prismatic" else decimals(value))
        entries = [f"root: {_placement(root, angle)}"] if placed else []
        entries += [f"{joint_of[joint]}: {value_text(kind, value)}"
                    for joint, value in chain.closed_at
                    for kind in [next(j.kind for j in chain.joints if j.name == joint)]
                    if joint in joint_of]
        lines.append("closed_at: {" + ", ".join(entries) + "}   # where the constraints hold")
    if chain.tendons:
        lines.append(f"tendons:     # the {chain.format}'s fixed tendons")
        for name, tendon in zip(file_names([t.name for t in chain.tendons], reserved=()),
                                chain.tendons):
            lines.append(f"  - {{name: {_quote(name)}, joints: {joint_sum(tendon.terms)}}}")
    if near:
        lines.insert(header, f"# Angles near multiples of pi/12 but not within {snap_angles:g} "
                     f"({', '.join(sorted(near))}): kept as the {chain.format} gives them, which "
                     "costs operations; if they mean those angles, import with a wider "
                     "--snap-angles.")
    return "\n".join(lines) + "\n", convention


def _body(body) -> list[str]:
    """A body's mass, centre of mass and inertia about it, as a robot file gives them."""
    entries = [f"mass: {decimal(body.mass)}"]
    if body.mass or body.inertia_origin.any():
        com = body.com()
        tensor = body.inertia_com()
        six = [tensor[i, j] for i, j in ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))]
        # the tensor about the COM is a difference: its noise is next to the one about the origin
        entries += [f"com: {decimals(com)}",
                    f"inertia: {decimals(six, np.abs(body.inertia_origin).max())}"]
    return entries


def _link(joint: ChainJoint, body, placement_lines) -> list[str]:
    entries = [f"joint: {joint.kind}   # {_quote(joint.name)}", *placement_lines, *_body(body)]
    if joint.limits:
        entries.append("limits: {" + ", ".join(f"{k}: {decimal(v)}"
                                               for k, v in joint.limits.items()) + "}")
    actuator = joint.actuator or {"viscous_friction": joint.viscous,
                                  "coulomb_friction": (joint.coulomb, -joint.coulomb)}
    defaults = {"motor_inertia": 0, "gear_ratio": 1, "viscous_friction": 0,
                "coulomb_friction": (0, 0)}
    for key, value in actuator.items():
        if np.any(np.asarray(value) != np.asarray(defaults[key])):
            entries.append(f"{key}: " + (decimals(value) if isinstance(value, tuple)
                                         else decimal(value)))
    if joint.spring:
        stiffness, reference = joint.spring
        entries.append(f"spring: {{stiffness: {decimal(stiffness)}"
                       + (f", reference: {decimal(reference)}" if reference else "") + "}")
    return [("  - " if k == 0 else "    ") + entry for k, entry in enumerate(entries)]


def file_names(names, reserved=(BASE,)) -> list[str]:
    """Names as a robot file takes them (file.py's NAME_TEXT_RULE), each the source's own
    where it can be: spaces at either end and control characters left out, at most
    NAME_TEXT_LENGTH characters; a ``reserved`` word (``base``: the word for the base among
    the links' parents) and a name met before get a suffix."""
    out, taken = [], set()
    for text in names:
        name = "".join(ch for ch in text if ch.isprintable()).strip()[:NAME_TEXT_LENGTH - 8]
        name = name or "unnamed"
        if name in reserved:
            name = f"{name} (link)"
        unique, k = name, 2
        while unique in taken:
            unique, k = f"{name} ({k})", k + 1
        taken.add(unique)
        out.append(unique)
    return out


def _comment(text: str) -> str:
    """``text`` on one line of a YAML comment."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def _compose(transforms) -> np.ndarray:
    T = np.eye(4)
    for t in transforms:
        T = T @ t
    return T


def _is_identity(T) -> bool:
    return bool(np.abs(T - np.eye(4)).max() <= 1e-15)


def _placement(T, angle) -> str:
    return f"{{{_placement_fields(T, angle)}}}"


def _placement_fields(T, angle) -> str:
    return f"xyz: {decimals(T[:3, 3])}, rpy: [{', '.join(angle(a) for a in rpy(T[:3, :3]))}]"


def decimals(values, scale=0.0) -> str:
    """A list of decimals; noise next to the largest of them (or ``scale``) written as 0."""
    values = [float(v) for v in values]
    scale = max([scale, *(abs(v) for v in values)])
    return "[" + ", ".join(decimal(v, scale) for v in values) + "]"


def decimal(value, scale=0.0) -> str:
    """15 significant digits, none below 1e-30 (the robot file's bound on a number's size);
    0 for what is rounding noise next to the entries' ``scale``."""
    value = float(value)
    if abs(value) < 1e-30 or abs(value) <= 1e-14 * scale:
        return "0"
    digits = max(1, min(15, 30 + math.floor(math.log10(abs(value))) + 1))
    for shorter in range(min(digits, 6), digits):     # float noise (...99999999) left out
        text = format(value, f".{shorter}g")
        if abs(float(text) - value) <= 4e-15 * max(abs(value), scale):
            return text
    return format(value, f".{digits}g")


def _quote(text: str) -> str:
    """A YAML double-quoted string (JSON's escapes are YAML's), safe in a comment too."""
    return json.dumps(text)
