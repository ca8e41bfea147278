"""What the robot file adds to the tree: constraints (closed loops, contacts with the world and
joint couplings) and fixed tendons (joint combinations an actuator pulls).

    constraints:
      - {name: loop, point: [crank_tip, rocker_tip], axes: [x, y]}   # a loop closed at a point
      - {name: grip, weld: [palm, handle]}           # two frames' poses held together
      - {name: foot, point: [lf_foot]}               # one frame: held to the world, a contact
      - {name: tool, weld: [tool], at: {xyz: [0.5, 0, 0.2]}}         # ... at a given pose
      - {name: tendon, coupling: {j1: 1, j2: -1}, value: 0}   # 1 q_j1 - 1 q_j2 = 0
    closed_at: {j1: 0.3, j2: -0.2}     # where the constraints hold (other joints at 0)
    actuated: [j1]                     # a closed-loop mechanism's driven joints
    tendons:                           # length = -1 q_j1 + 1 q_j2 (MuJoCo's fixed tendon)
      - {name: hipknee, joints: {j1: -1, j2: 1}}

A frame is a named frame of the file (``frames:``), a link, by name, or ``tool``; a joint is
named as
JOINTS names it (spec.joint_names). ``axes`` keeps some of the rows (x, y, z; and rx, ry, rz of
a weld's rotation), in the axes of a loop's root (the link both its frames hang from, which
turns with it), and in the world's for a frame held to the world: a planar loop closes in
two. What the file cannot
mean is refused in one line at the constraint's line: a name given twice, a frame or joint
nobody is named, a coupling of a mimic joint (which has no coordinate), a loop that does not
close at ``closed_at`` (``check`` at load, in numbers: the model's own kinematics). A tendon
may take mimic joints: its length is of the links' joint variables.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import sympy
import yaml

from ..errors import RobotFileError
from .joints import KINDS
from .poses import Poses, closed_base, link_values, moved
from .spec import CONSTRAINT_AXES, CONSTRAINT_KINDS, ConstraintSpec, TendonSpec

CONSTRAINT_KEYS = {"name", *CONSTRAINT_KINDS, "axes", "at", "value"}
TENDON_KEYS = {"name", "joints"}
TOOL = "tool"       # the tool frame, which a constraint may hold without a frame of that name
MAX_CONSTRAINTS = 64
# How far a loop may stay open at closed_at, relative to the robot's size: 1e-9 m on a 1 m arm
# (the numbers a file gives, to 15 digits, and their kinematics in doubles keep far better).
CLOSURE_TOLERANCE = 1e-9
UNIT = 1e-9       # how far from 1 a closed_at quaternion's norm may be


def read(reader, node, links, frame_names) -> tuple[ConstraintSpec, ...]:
    """The file's ``constraints`` (a YAML node), checked against the links' and the named
    frames' names; ``reader`` is file._Reader, whose checks and errors these are."""
    frames = set(frame_names) | {link.name for link in links if link.name} | {TOOL}
    out = []
    for field, item, keys, name in reader.named_entries(
            node, "constraints", MAX_CONSTRAINTS, CONSTRAINT_KEYS,
            "{name: loop, point: [a_tip, b_tip]}"):
        kinds = [kind for kind in CONSTRAINT_KINDS if kind in keys]
        if len(kinds) != 1:
            raise reader.error("give exactly one kind of constraint", item, field,
                               "one of point: [frames], weld: [frames], coupling: {joint: "
                               "coefficient}")
        (kind,) = kinds
        line = item.start_mark.line + 1
        if kind == "coupling":
            out.append(_coupling(reader, keys, field, name, links, line))
        else:
            out.append(_held(reader, keys, field, name, kind, frames, line))
    return tuple(out)


def _joints(links) -> dict:
    """Each joint's link (its LinkSpec) by the joint's name (spec.joint_names' rule)."""
    return {link.joint_name or link.name or f"joint{i}": link
            for i, link in enumerate(links, start=1)}


def _one_number(reader, joints: dict, joint: str, node, field) -> None:
    """Refuse a joint of several coordinates where one number per joint is asked (a
    coefficient)."""
    kind = KINDS[joints[joint].joint]
    if kind.nq != 1:
        raise reader.error(f"{joint!r} is a {kind.name} joint, whose configuration is "
                           f"{kind.configuration_text}, not one number", node, field,
                           "a revolute or prismatic joint")


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


def _coupling(reader, keys, field, name, links, line) -> ConstraintSpec:
    terms = _terms(reader, keys["coupling"], f"{field}.coupling", links, mimic=False)
    for key in ("axes", "at"):
        if key in keys:
            raise reader.error(f"a coupling has no {key}", keys[key], f"{field}.{key}",
                               f"{key} only with point and weld")
    value = _number(reader, keys["value"], f"{field}.value") if "value" in keys else (
        sympy.Integer(0))
    return ConstraintSpec(name, "coupling", terms=terms, value=value, line=line)


def _terms(reader, node, field, links, mimic: bool) -> tuple[tuple[str, sympy.Expr], ...]:
    """{joint: coefficient} of a coupling or a tendon, the joints named as JOINTS names
    them; a mimic joint only where ``mimic`` (a tendon's length is of the links' joint
    variables; a coupling is of coordinates)."""
    if not isinstance(node, yaml.MappingNode) or not node.value:
        raise reader.error("must map joints to their coefficients", node, field,
                           "such as {j1: 1, j2: -1}")
    joints = _joints(links)
    terms = []
    for key_node, value_node in node.value:
        joint = reader.name_text(key_node, field)
        if joint not in joints:
            raise reader.error(f"{joint!r} names no joint", key_node, field,
                               "a joint's name (JOINTS)")
        _one_number(reader, joints, joint, key_node, field)
        if not mimic and joints[joint].mimic is not None:
            raise reader.error(f"{joint!r} is a mimic joint, which has no coordinate of its "
                               "own to couple", key_node, field, "the joint it follows")
        if joint in dict(terms):
            raise reader.error(f"{joint!r} is given twice", key_node, field)
        terms.append((joint, _number(reader, value_node, f"{field}.{joint}")))
    if all(c == 0 for _, c in terms):
        raise reader.error("every coefficient is 0", node, field, "a coefficient not 0")
    return tuple(terms)


def read_tendons(reader, node, links) -> tuple[TendonSpec, ...]:
    """``tendons``: [{name, joints: {joint: coefficient}}], each name once."""
    out = []
    for field, item, keys, name in reader.named_entries(
            node, "tendons", MAX_CONSTRAINTS, TENDON_KEYS,
            "{name: t, joints: {j1: -1, j2: 1}}"):
        terms = _terms(reader, reader.require(keys, "joints", item, field), f"{field}.joints",
                       links, mimic=True)
        out.append(TendonSpec(name, terms, item.start_mark.line + 1))
    return tuple(out)


def _number(reader, node, field, angle: bool = False) -> sympy.Expr:
    """A number (``angle``: an angle's, in radians: reader.radians)."""
    value = reader.radians(node, field, whole=True) if angle else reader.expression(node, field)
    if not value.is_number:
        raise reader.error(f"{value} is not a number", node, field,
                           "a number (constraints are fixed in the generated code)")
    return value


ROOT = "root"      # closed_at's key for a floating base's pose (Pinocchio's root_joint)


def read_closed_at(reader, node, links, floating: bool = False
                   ) -> tuple[tuple[tuple[str, sympy.Expr], ...], object]:
    """``closed_at``: {joint: value} for the joints with coordinates, a spherical joint's a
    unit quaternion [x, y, z, w]; and, on a floating base, ``root: {xyz, rpy}``, its pose
    (PlacementSpec; None where not given: the world's origin, unturned)."""
    joints = _joints(links)
    if not isinstance(node, yaml.MappingNode) or not node.value:
        raise reader.error("must map joints to their values", node, "closed_at",
                           "such as {j1: 0.3, j2: -0.2}")
    out, root = [], None
    for key_node, value_node in node.value:
        joint = reader.name_text(key_node, "closed_at")
        if joint == ROOT and floating:
            if ROOT in joints:
                raise reader.error(f"{ROOT!r} names the floating base here, and a joint is "
                                   "named so too", key_node, "closed_at",
                                   "another name for that joint")
            if root is not None:
                raise reader.error(f"{ROOT!r} is given twice", key_node, "closed_at")
            root = reader.placement(value_node, f"closed_at.{ROOT}")
            for value in (*root.xyz, *root.rpy):
                if not value.is_number:
                    raise reader.error(f"{value} is not a number", value_node,
                                       f"closed_at.{ROOT}", "numbers (the base's pose where "
                                       "the constraints hold)")
            continue
        if joint not in joints:
            raise reader.error(f"{joint!r} names no joint", key_node, "closed_at",
                               "a joint's name (JOINTS)")
        if joints[joint].mimic is not None:
            raise reader.error(f"{joint!r} is a mimic joint: its value follows", key_node,
                               "closed_at", "the joint it follows")
        if joint in dict(out):
            raise reader.error(f"{joint!r} is given twice", key_node, "closed_at")
        field = f"closed_at.{joint}"
        kind = KINDS[joints[joint].joint]
        if kind.nq == 1:
            out.append((joint, _number(reader, value_node, field, kind.angular)))
            continue
        entries = f"[{', '.join(kind.coordinates)}]"
        if not isinstance(value_node, yaml.SequenceNode) or len(value_node.value) != kind.nq:
            raise reader.error(f"a {kind.name} joint's value is its configuration, "
                               f"{kind.configuration_text}", value_node, field, entries)
        value = tuple(_number(reader, x, field) for x in value_node.value)
        for part in kind.units:
            if abs(float(sympy.sqrt(sum(x**2 for x in value[part]))) - 1) > UNIT:
                raise reader.error(f"the {kind.unit_word} is not a unit one", value_node,
                                   field, f"{entries} with a {kind.unit_word} of norm 1 (to "
                                   f"{UNIT:g})")
        out.append((joint, value))
    return tuple(out), root


def read_actuated(reader, node, links) -> tuple[str, ...]:
    """``actuated``: a closed-loop mechanism's driven joints, by name."""
    joints = _joints(links)
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise reader.error("must be a non-empty list of joints", node, "actuated",
                           "the joints a closed-loop mechanism's motors drive")
    out = []
    for j, item in enumerate(node.value):
        joint = reader.name_text(item, f"actuated[{j}]")
        if joint not in joints or joints[joint].mimic is not None:
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
    a frame held to the world where it is at closed_at holds there by its making. A geometry
    with free symbols (parameters: without values) is refused first, in one line naming them:
    where loops close, which rows they keep and how they are driven are found in numbers."""
    symbolic = _symbolic_geometry(robot)
    if symbolic:
        field, names = symbolic[0]
        raise RobotFileError(path, f"a robot with constraints has its geometry in numbers, and "
                             f"{field} holds {', '.join(names)}", field="parameters",
                             expected=f"a value for {names[0]} in parameters: (such as "
                                      f"{{{names[0]}: 0.3}}); masses and inertias may stay "
                                      "symbols")
    loops = Loops(robot)
    residuals = loops.residuals(loops.closed_at)
    for constraint, residual in zip(robot.constraints, residuals):
        scale = loops.size if constraint.kind != "coupling" else max(
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


def _symbolic_geometry(robot) -> list[tuple[str, list[str]]]:
    """(field, the free symbols' names) of each placement of ``robot`` that holds free
    symbols: a link's joint placement, a named frame's, the tool's, a contact's ``at``."""
    moving = set(robot.link_q) | {s for link in robot.links for s in link.configuration}

    def free(matrix) -> list[str]:
        return sorted(str(s) for s in sympy.Matrix(matrix).free_symbols - moving)
    placed = [(f"link {i} (its placement)",
               sympy.Matrix(link.rotation).row_join(sympy.Matrix(link.position)))
              for i, link in enumerate(robot.links, start=1)]
    placed += [(f"frames ({frame.name})", frame.placement) for frame in robot.frames]
    placed += [("tool", robot.tool)]
    placed += [(f"constraints ({c.name}: at)", c.anchor) for c in robot.constraints
               if c.anchor is not None]
    return [(field, free(matrix)) for field, matrix in placed if free(matrix)]


def independent_rows(robot, closed_at: dict | None = None) -> list[tuple[int, ...]]:
    """For each constraint of ``robot``, the rows it keeps (indices into CONSTRAINT_AXES; a
    coupling's 0) that do not repeat the rows kept before them, in G where the constraints
    hold and G's rank is highest (Loops.generic): constraint by constraint, the row
    that adds most to those kept (its part outside their span the longest) while one adds
    anything. A planar loop's point keeps x and y and drops z; a weld of a hinged link to
    the world keeps rz, the hinge's angle. ``closed_at`` stands for the robot's where given."""
    _, G = Loops(robot, closed_at).generic()
    tolerance = RANK_TOLERANCE * max(1.0, np.abs(G).max())
    basis, out, start = np.zeros((0, G.shape[1])), [], 0
    for constraint in robot.constraints:
        left, rows = list(range(constraint.size)), []
        while left:
            outside = G[[start + k for k in left]]
            outside = outside - outside @ basis.T @ basis
            lengths = np.linalg.norm(outside, axis=1)
            best = int(np.argmax(lengths))
            if lengths[best] <= tolerance:
                break
            basis = np.vstack([basis, outside[best] / lengths[best]])
            rows.append(left.pop(best))
        out.append(tuple(constraint.rows[k] if constraint.kind != "coupling" else k
                         for k in sorted(rows)))
        start += constraint.size
    return out


def left_out_problem(robot, kept: list[tuple[int, ...]], closed_at: dict | None = None
                     ) -> tuple[int, str] | None:
    """Whether the rows ``kept`` (independent_rows' form) leave out only rows that follow from
    them: moved along the kept rows' manifold (FOLLOW_STEP along directions of their G's null
    space from where G's rank is highest, closed again on the kept rows), the rows left out
    must stay where they hold too. At a configuration that is singular on the whole of the
    constraints' manifold (a chain held to the world at full stretch) a row is zero there
    without following from the others, and leaving it out frees a motion the mechanism does
    not have. None where they follow; else (the index of the first constraint whose left-out
    rows drift, a sentence saying how far)."""
    dropped = [tuple(r for r in (c.rows if c.kind != "coupling" else (0,)) if r not in keep)
               for c, keep in zip(robot.constraints, kept)]
    if not any(dropped):
        return None
    whole = Loops(robot, closed_at)
    reduced = Loops(dataclasses.replace(robot, constraints=tuple(
        dataclasses.replace(c, rows=keep) for c, keep in zip(robot.constraints, kept)
        if keep)), closed_at)
    start, _ = whole.generic()
    G = reduced.jacobian(start)[:, :reduced.velocities]
    _, values, directions = np.linalg.svd(G) if len(G) else (None, np.zeros(0),
                                                            np.eye(G.shape[1]))
    free = directions[np.sum(values > RANK_TOLERANCE * max(1.0, np.abs(G).max())):]
    rng = np.random.default_rng(0)
    drift = {}          # (constraint, row left out): the most it drifts
    for _ in range(FOLLOW_SAMPLES if len(free) else 0):
        direction = rng.standard_normal(len(free)) @ free
        q = start
        for k, d in enumerate(FOLLOW_STEP * direction / np.linalg.norm(direction)):
            q = moved(robot, q, k, d)
        q = reduced.closed(q)
        if q is None:
            continue
        for i, (residual, constraint) in enumerate(zip(whole.residuals(q), robot.constraints)):
            rows = list(constraint.rows) if constraint.kind != "coupling" else [0]
            for r in dropped[i]:
                drift[i, r] = max(drift.get((i, r), 0.0), abs(residual[rows.index(r)]))
    drifting = {key: value for key, value in drift.items() if value > FOLLOWS * whole.size}
    if not drifting:
        return None
    i = min(drifting)[0]
    rows = [r for j, r in drifting if j == i]
    names = (", ".join(CONSTRAINT_AXES[r] for r in rows)
             if robot.constraints[i].kind != "coupling" else "its row")
    return i, (f"{'its rows' if len(rows) > 1 else 'its row'} {names} "
               f"{'are' if len(rows) > 1 else 'is'} zero where the constraints hold without "
               f"following from the others: moved {FOLLOW_STEP} rad along the motion the others "
               f"leave, {'they drift' if len(rows) > 1 else 'it drifts'} by "
               f"{max(drifting[i, r] for r in rows):.2g}, so that leaving "
               f"{'them' if len(rows) > 1 else 'it'} out would free a motion the mechanism "
               "does not have (it is at a singular configuration wherever the constraints "
               "hold: a chain held at full stretch)")


# How far left_out_problem moves (rad, or m of a prismatic joint), in how many directions, and
# how far a left-out row may drift there relative to the robot's size (Gauss-Newton closes
# the kept rows to 1e-12 of it; a row that does not follow drifts by about the step squared).
FOLLOW_STEP = 0.1
FOLLOW_SAMPLES = 3
FOLLOWS = 1e-8
# Rows of G whose rank they add to is below this, relative to G's largest entry, repeat others
# (central differences of STEP keep G to some 1e-10).
RANK_TOLERANCE = 1e-6
STEP = 1e-6


class Loops:
    """The constraints of a robot in numbers, from the model's own placements (poses.Poses,
    ``poses``): the residuals, G by central differences, and configurations where the
    constraints hold. A configuration is
    the coordinates' values, {symbol: number} of ``symbols`` (those not given 0; a mimic
    joint's follows); a floating base is where closed_at puts it (poses.closed_base) unless a
    pose is given. A frame held to the world with no ``at`` is held where it is at
    closed_at."""

    def __init__(self, robot, closed_at: dict | None = None):
        self.robot = robot
        self.symbols = [s for i in robot.coordinates for s in robot.links[i - 1].configuration]
        self.velocities = robot.dof - robot.base_velocities      # the joints'
        self.poses = Poses(robot)
        self.frame = Poses.frame
        self.base = closed_base(robot)
        closed_at = robot.closed_at if closed_at is None else closed_at
        self.closed_at = dict(zip(robot.link_q, link_values(robot, closed_at)))
        self.closed_at = {s: self.closed_at[s] for s in self.symbols}
        # The sum of the joint frames' offsets: the length an open loop is measured against.
        zero = link_values(robot, {})
        self.size = max(1.0, sum(float(np.linalg.norm(f(*zero)[:, 3]))
                                 for f in self.poses.placements))
        poses = self.poses(self.closed_at, self.base)
        self.anchors = [c.anchor if c.kind == "coupling" or c.ends[1] is not None
                        or c.anchor is not None else self.frame(poses, c.ends[0])
                        for c in robot.constraints]
        # each loop's root (Robot.constraint_root) and its file frame's turn in its joint frame
        self.roots = [robot.constraint_root(c) for c in robot.constraints]
        self.placed = [np.eye(3) if not root else np.array(
            robot.links[root - 1].file_frame, dtype=float)[:3, :3] for root in self.roots]

    def axes(self, q: dict, base: np.ndarray | None = None) -> list[np.ndarray]:
        """The world's rotation of each constraint's rows' axes at ``q``: its root's frame for a
        loop, the identity for a frame held to the world and a coupling."""
        return self._axes(self.poses(q, self.base if base is None else base))

    def _axes(self, poses) -> list[np.ndarray]:
        return [np.eye(3) if root is None else poses[root][:3, :3] @ placed
                for root, placed in zip(self.roots, self.placed)]

    def residuals(self, q: dict, base: np.ndarray | None = None) -> list[np.ndarray]:
        """Each constraint's residual, its kept rows, as derive's constraints take it: a
        point's or weld's from the frames' poses, p_a - p_b and the vee of the skew part of
        R_a R_b^T, in its rows' axes (``axes``: a loop's root's, the world's for a frame held
        to it); a coupling's sum less its value."""
        poses = self.poses(q, self.base if base is None else base)
        out = []
        for constraint, anchor, axes in zip(self.robot.constraints, self.anchors,
                                            self._axes(poses)):
            if constraint.kind == "coupling":
                total = sum(float(c) * float(q.get(s, 0)) for s, c in constraint.coefficients)
                out.append(np.array([total - float(constraint.value)]))
                continue
            end, other = constraint.ends
            a = self.frame(poses, end)
            b = np.array(anchor, dtype=float) if other is None else self.frame(poses, other)
            turn = a[:3, :3] @ b[:3, :3].T
            rotation = 0.5 * np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0],
                                       turn[1, 0] - turn[0, 1]])
            residual = np.concatenate([a[:3, 3] - b[:3, 3], rotation])
            residual = np.kron(np.eye(2), axes.T) @ residual
            out.append(residual[list(constraint.rows)])
        return out

    def jacobian(self, q: dict) -> np.ndarray:
        """G at ``q`` by central differences; a floating base's columns (its translations,
        then its rotations about its origin, in the world's axes) after the joints'."""
        def difference(ahead, behind, base_ahead=None, base_behind=None):
            return (np.concatenate(self.residuals(ahead, base_ahead)) -
                    np.concatenate(self.residuals(behind, base_behind))) / (2 * STEP)
        columns = [difference(moved(self.robot, q, k, STEP), moved(self.robot, q, k, -STEP))
                   for k in range(self.velocities)]
        if self.robot.floating:
            for axis in range(6):
                ahead, behind = self.base.copy(), self.base.copy()
                if axis < 3:
                    ahead[axis, 3] += STEP
                    behind[axis, 3] -= STEP
                else:
                    ahead[:3, :3], behind[:3, :3] = (_turn(axis - 3, d) @ self.base[:3, :3]
                                                     for d in (STEP, -STEP))
                columns.append(difference(q, q, ahead, behind))
        return np.array(columns).T

    def near(self, rng, spread: float) -> dict:
        """closed_at moved by a random velocity of the joints, each entry within ``spread``
        (a spherical joint's quaternion turned, staying a unit one)."""
        q = self.closed_at
        for k, d in enumerate(rng.uniform(-spread, spread, self.velocities)):
            q = moved(self.robot, q, k, d)
        return q

    def closed(self, q: dict, steps: int = 20) -> dict | None:
        """``q`` moved (least-norm Gauss-Newton steps on the joints) to where the
        constraints hold, to 1e-12 of the robot's size; None where it does not get there."""
        for _ in range(steps):
            residual = np.concatenate(self.residuals(q))
            if np.abs(residual).max() < 1e-12 * self.size:
                return q
            G = self.jacobian(q)[:, :self.velocities]
            step = np.linalg.lstsq(G, residual, rcond=None)[0]
            for k, d in enumerate(step):
                q = moved(self.robot, q, k, -d)
        return None

    def generic(self, samples: int = 3) -> tuple[dict, np.ndarray]:
        """(q, G) where the constraints hold and G's rank is highest (of ``configurations``),
        so that a closed_at at a singular configuration (a four-bar's links in a line) does
        not take rows for repeats that are not."""
        pairs = [(q, self.jacobian(q)) for q in self.configurations(samples)]
        return max(pairs, key=lambda pair: rank(pair[1]))

    def configurations(self, samples: int = 3) -> list[dict]:
        """closed_at and up to ``samples`` configurations near it (0.2 rad) closed by
        Gauss-Newton steps: where the constraints hold, for what is true of a mechanism at
        most of its configurations (a seeded draw: the same each time)."""
        configurations = [self.closed_at]
        rng = np.random.default_rng(0)
        for _ in range(samples):
            closed = self.closed(self.near(rng, 0.2))
            if closed is not None:
                configurations.append(closed)
        return configurations


def rank(G) -> int:
    """G's rank, its singular values below RANK_TOLERANCE of its largest entry taken as 0."""
    return int(np.linalg.matrix_rank(G, tol=RANK_TOLERANCE * max(1.0, np.abs(G).max())))


def _turn(axis: int, angle: float) -> np.ndarray:
    """The rotation by ``angle`` about the world's axis ``axis`` (0, 1, 2): Rodrigues'."""
    K = np.zeros((3, 3))
    i, j = (axis + 1) % 3, (axis + 2) % 3
    K[j, i], K[i, j] = 1.0, -1.0
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K
