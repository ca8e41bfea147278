"""Constraints in the robot file: closed loops, contacts with the world and joint couplings.

    constraints:
      - {name: loop, point: [crank_tip, rocker_tip], axes: [x, y]}   # a loop closed at a point
      - {name: grip, weld: [palm, handle]}           # two frames' poses held together
      - {name: foot, point: [lf_foot]}               # one frame: held to the world, a contact
      - {name: tool, weld: [tool], at: {xyz: [0.5, 0, 0.2]}}         # ... at a given pose
      - {name: tendon, coupling: {j1: 1, j2: -1}, value: 0}   # 1 q_j1 - 1 q_j2 = 0
    closed_at: {j1: 0.3, j2: -0.2}     # where the constraints hold (other joints at 0)
    actuated: [j1]                     # a closed-loop mechanism's driven joints

A frame is a named frame of the file (``frames:``), a link, by name, or ``tool``; a joint is
named as
JOINTS names it (spec.joint_names). ``axes`` keeps some of the rows, in the world's axes (x, y,
z; and rx, ry, rz of a weld's rotation): a planar loop closes in two. What the file cannot
mean is refused in one line at the constraint's line: a name given twice, a frame or joint
nobody is named, a coupling of a mimic joint (which has no coordinate), a loop that does not
close at ``closed_at`` (``check`` at load, in numbers: the model's own kinematics).
"""
from __future__ import annotations

import numpy as np
import sympy
import yaml

from ..errors import RobotFileError
from .spec import CONSTRAINT_AXES, CONSTRAINT_KINDS, ConstraintSpec

CONSTRAINT_KEYS = {"name", *CONSTRAINT_KINDS, "axes", "at", "value"}
TOOL = "tool"       # the tool frame, which a constraint may hold without a frame of that name
MAX_CONSTRAINTS = 64
# How far a loop may stay open at closed_at, relative to the robot's size: 1e-9 m on a 1 m arm
# (the numbers a file gives, to 15 digits, and their kinematics in doubles keep far better).
CLOSURE_TOLERANCE = 1e-9


def read(reader, node, links, frame_names) -> tuple[ConstraintSpec, ...]:
    """The file's ``constraints`` (a YAML node), checked against the links' and the named
    frames' names; ``reader`` is file._Reader, whose checks and errors these are."""
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise reader.error("must be a non-empty list of constraints", node, "constraints",
                           "entries such as {name: loop, point: [a_tip, b_tip]}")
    if len(node.value) > MAX_CONSTRAINTS:
        raise reader.error(f"{len(node.value)} constraints are more than {MAX_CONSTRAINTS}",
                           node, "constraints")
    frames = set(frame_names) | {link.name for link in links if link.name} | {TOOL}
    joints = _joints(links)
    out, names = [], set()
    for k, item in enumerate(node.value):
        field = f"constraints[{k}]"
        keys = reader.mapping(item, field, CONSTRAINT_KEYS)
        name = reader.name_text(reader.require(keys, "name", item, field), f"{field}.name")
        if name in names:
            raise reader.error(f"the constraint name {name!r} is given twice", keys["name"],
                               f"{field}.name")
        names.add(name)
        kinds = [kind for kind in CONSTRAINT_KINDS if kind in keys]
        if len(kinds) != 1:
            raise reader.error("give exactly one kind of constraint", item, field,
                               "one of point: [frames], weld: [frames], coupling: {joint: "
                               "coefficient}")
        (kind,) = kinds
        line = item.start_mark.line + 1
        if kind == "coupling":
            out.append(_coupling(reader, keys, field, name, joints, line))
        else:
            out.append(_held(reader, keys, field, name, kind, frames, line))
    return tuple(out)


def _joints(links) -> dict[str, bool]:
    """Each joint's name (spec.joint_names' rule): whether it has a coordinate (no mimic)."""
    return {link.joint_name or link.name or f"joint{i}": link.mimic is None
            for i, link in enumerate(links, start=1)}


def _held(reader, keys, field, name, kind, frames, line) -> ConstraintSpec:
    node = keys[kind]
    if not isinstance(node, yaml.SequenceNode) or len(node.value) not in (1, 2):
        raise reader.error("must list one frame (held to the world) or two (held together)",
                           node, f"{field}.{kind}", "[frame] or [frame, frame]")
    names = []
    for j, item in enumerate(node.value):
        frame = reader.name_text(item, f"{field}.{kind}[{j}]")
        if frame not in frames:
            raise reader.error(f"{frame!r} names no frame or link", item,
                               f"{field}.{kind}[{j}]", "the name of a named frame, a link or "
                               "tool")
        names.append(frame)
    if len(names) == 2 and names[0] == names[1]:
        raise reader.error("a frame held to itself holds nothing", node, f"{field}.{kind}",
                           "two different frames")
    allowed = CONSTRAINT_AXES[:3] if kind == "point" else CONSTRAINT_AXES
    axes = ()
    if "axes" in keys:
        axes_node = keys["axes"]
        if not isinstance(axes_node, yaml.SequenceNode) or not axes_node.value:
            raise reader.error("must be a non-empty list of axes", axes_node, f"{field}.axes",
                               " ".join(allowed))
        axes = tuple(reader.choice(a, f"{field}.axes[{j}]", allowed)
                     for j, a in enumerate(axes_node.value))
        if len(set(axes)) != len(axes):
            raise reader.error("an axis is given twice", axes_node, f"{field}.axes")
        axes = tuple(a for a in allowed if a in axes)       # in the rows' order
    at = None
    if "at" in keys:
        if len(names) != 1:
            raise reader.error("places a frame held to the world; this constraint holds two "
                               "frames together", keys["at"], f"{field}.at",
                               "at only with one frame")
        at = reader.placement(keys["at"], f"{field}.at")
    if "value" in keys:
        raise reader.error(f"a {kind} constraint has no value", keys["value"],
                           f"{field}.value", "value only with coupling")
    return ConstraintSpec(name, kind, tuple(names), axes, at, line=line)


def _coupling(reader, keys, field, name, joints, line) -> ConstraintSpec:
    node = keys["coupling"]
    if not isinstance(node, yaml.MappingNode) or not node.value:
        raise reader.error("must map joints to their coefficients", node, f"{field}.coupling",
                           "such as {j1: 1, j2: -1}")
    terms = []
    for key_node, value_node in node.value:
        joint = reader.name_text(key_node, f"{field}.coupling")
        if joint not in joints:
            raise reader.error(f"{joint!r} names no joint", key_node, f"{field}.coupling",
                               "a joint's name (JOINTS)")
        if not joints[joint]:
            raise reader.error(f"{joint!r} is a mimic joint, which has no coordinate of its "
                               "own to couple", key_node, f"{field}.coupling",
                               "the joint it follows")
        if joint in dict(terms):
            raise reader.error(f"{joint!r} is given twice", key_node, f"{field}.coupling")
        coefficient = _number(reader, value_node, f"{field}.coupling.{joint}")
        terms.append((joint, coefficient))
    if all(c == 0 for _, c in terms):
        raise reader.error("every coefficient is 0: the coupling holds nothing", node,
                           f"{field}.coupling")
    for key in ("axes", "at"):
        if key in keys:
            raise reader.error(f"a coupling has no {key}", keys[key], f"{field}.{key}",
                               f"{key} only with point and weld")
    value = _number(reader, keys["value"], f"{field}.value") if "value" in keys else (
        sympy.Integer(0))
    return ConstraintSpec(name, "coupling", terms=tuple(terms), value=value, line=line)


def _number(reader, node, field) -> sympy.Expr:
    value = reader.expression(node, field)
    if not value.is_number:
        raise reader.error(f"{value} is not a number", node, field,
                           "a number (constraints are fixed in the generated code)")
    return value


def read_closed_at(reader, node, links) -> tuple[tuple[str, sympy.Expr], ...]:
    """``closed_at``: {joint: value} for the joints with coordinates."""
    joints = _joints(links)
    if not isinstance(node, yaml.MappingNode) or not node.value:
        raise reader.error("must map joints to their values", node, "closed_at",
                           "such as {j1: 0.3, j2: -0.2}")
    out = []
    for key_node, value_node in node.value:
        joint = reader.name_text(key_node, "closed_at")
        if joint not in joints:
            raise reader.error(f"{joint!r} names no joint", key_node, "closed_at",
                               "a joint's name (JOINTS)")
        if not joints[joint]:
            raise reader.error(f"{joint!r} is a mimic joint: its value follows", key_node,
                               "closed_at", "the joint it follows")
        if joint in dict(out):
            raise reader.error(f"{joint!r} is given twice", key_node, "closed_at")
        out.append((joint, _number(reader, value_node, f"closed_at.{joint}")))
    return tuple(out)


def read_actuated(reader, node, links) -> tuple[str, ...]:
    """``actuated``: a closed-loop mechanism's driven joints, by name."""
    joints = _joints(links)
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise reader.error("must be a non-empty list of joints", node, "actuated",
                           "the joints a closed-loop mechanism's motors drive")
    out = []
    for j, item in enumerate(node.value):
        joint = reader.name_text(item, f"actuated[{j}]")
        if joint not in joints or not joints[joint]:
            raise reader.error(f"{joint!r} names no joint with a coordinate", item,
                               f"actuated[{j}]", "a joint's name (JOINTS), no mimic joint")
        if joint in out:
            raise reader.error(f"{joint!r} is given twice", item, f"actuated[{j}]")
        out.append(joint)
    return tuple(out)


def check(robot, path) -> None:
    """Refuse (RobotFileError at the constraint's line) a constraint of ``robot`` that does
    not hold at its configuration closed_at: a loop left open, a coupling off its value.
    Computed in numbers from the model's own placements (each joint's rotation and origin);
    a frame held to the world where it is at closed_at holds there by its making."""
    residuals = numeric_residuals(robot, robot.closed_at)
    size = max(1.0, robot_size(robot))
    for constraint, residual in zip(robot.constraints, residuals):
        if residual is None:
            continue
        scale = size if constraint.kind != "coupling" else max(
            1.0, sum(abs(float(c)) for _, c in constraint.coefficients))
        if not np.all(np.isfinite(residual)) or np.abs(residual).max() > (
                CLOSURE_TOLERANCE * scale):
            what = ("the joints' sum is off its value by" if constraint.kind == "coupling"
                    else "it does not hold: off by")
            raise RobotFileError(path, f"constraint {constraint.name!r}: {what} "
                                 f"{np.abs(residual).max():.3g} at closed_at",
                                 field="constraints", line=constraint.line,
                                 expected="closed_at giving the joints' values where the "
                                          "constraints hold")


def robot_size(robot) -> float:
    """The sum of the joint frames' offsets: the length an open loop is measured against."""
    return sum(float(sympy.Matrix(link.position).subs({link.q: 0}).norm())
               for link in robot.links)


def numeric_residuals(robot, q: dict) -> list[np.ndarray | None]:
    """Each constraint's residual, its kept rows, at the joint variables ``q`` {symbol:
    number} (a floating base at the world's origin): a point's or weld's from the frames'
    numeric poses, the rotation as derive's constraints take it (the vee of the skew part of
    R_a R_b^T); a coupling's sum less its value; None for a frame held to the world where it
    is at closed_at."""
    poses = numeric_link_poses(robot, q)
    out = []
    for constraint in robot.constraints:
        if constraint.kind == "coupling":
            total = sum(float(c) * float(q.get(s, 0)) for s, c in constraint.coefficients)
            out.append(np.array([total - float(constraint.value)]))
            continue
        end, other = constraint.ends
        if other is None and constraint.anchor is None:
            out.append(None)
            continue
        a = _frame_pose(poses, end)
        b = np.array(constraint.anchor, dtype=float) if other is None else _frame_pose(poses,
                                                                                     other)
        position = a[:3, 3] - b[:3, 3]
        turn = a[:3, :3] @ b[:3, :3].T
        rotation = 0.5 * np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0],
                                   turn[1, 0] - turn[0, 1]])
        out.append(np.concatenate([position, rotation])[list(constraint.rows)])
    return out


def _frame_pose(poses, frame) -> np.ndarray:
    return poses[frame.link] @ np.array(frame.placement, dtype=float)


def numeric_link_poses(robot, q: dict) -> list[np.ndarray]:
    """The world pose of the base frame {0} and of each joint frame, in numbers, at the joint
    variables ``q`` (the others 0; a floating base at the world's origin)."""
    poses = [np.eye(4) if robot.floating else np.array(robot.base, dtype=float)]
    values = {**{s: 0 for s in robot.link_q}, **q}
    for link in robot.links:
        T = np.eye(4)
        T[:3, :3] = np.array(link.rotation.subs(values), dtype=float)
        T[:3, 3] = np.array(link.position.subs(values), dtype=float).ravel()
        poses.append(poses[link.parent] @ T)
    return poses
