"""A picture of a robot at a configuration: its link frames as triads (x, y, z in red, green
and blue), the links as segments between the origins of each frame and its parent's, the
named frames and the tool (a tree's only where its file names one), projected along a view
(isometric by default); for a DH table each link labelled with its four parameters, as the
textbooks' figures are; the constraints in magenta (a loop's two frames joined, a contact's
frame on a triangle, each labelled with its name); for a tree, or a robot with constraints or
tendons, a second panel with the kinematic tree, each joint's kind beside its link, a loop as
an edge between its frames' links, a coupling's and a tendon's joints joined by dotted lines.
Labels that would fall on one another are moved apart.

The frames drawn are the robot file's own link frames (as ``link_poses`` places them), the
base frame {0} and the named frames, placed by poses.Poses, the model's own kinematics in
numbers. Needs matplotlib (the optional extra ``symdyn[draw]``); names are drawn as the text
they are, never read as matplotlib's mathtext ($...$). The SVG is deterministic
(no date, fixed ids); each frame origin's marker carries an id, ``origin-<i>`` for link i (0
for the base) and ``frame-<k>`` for the k-th named frame, so that a reader (the tests) can
find where it was drawn.
"""
from __future__ import annotations

import io
import math

import numpy as np
import sympy

from ..errors import SymdynError
from ..robot import table
from ..robot.constraints import Loops
from ..robot.model import quaternion_rotation
from ..robot.poses import Poses, link_values

# (azimuth, elevation) in degrees of the direction the robot is seen from; z is up on the page
# but from the top, where y is.
VIEWS = {"iso": (45.0, math.degrees(math.atan(1 / math.sqrt(2)))), "front": (-90.0, 0.0),
         "side": (0.0, 0.0), "top": (-90.0, 90.0)}
AXIS_COLOURS = ("#d62728", "#2ca02c", "#1f77b4")        # x, y, z: red, green, blue
CONSTRAINT_COLOUR = "#c2188b"                            # loops and contacts: magenta
TENDON_COLOUR = "#e08a00"                                # couplings and tendons: orange
FONT = 8            # points; a label's box is about 0.6 of it a character and 1.3 high
# The formats a picture is written in (svg and png by draw, pdf for LaTeX printouts), without
# the date or version that would make two runs' files differ.
NO_DATE = {"svg": {"Date": None}, "png": {"Software": None},
           "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}


class DrawError(SymdynError):
    """A configuration or a view the drawing cannot take; said in one line."""


def projection(view: str) -> np.ndarray:
    """The 2 x 3 matrix taking world points to the page: rows the page's right and up."""
    azimuth, elevation = (math.radians(a) for a in VIEWS[view])
    return np.array([[-math.sin(azimuth), math.cos(azimuth), 0.0],
                     [-math.sin(elevation) * math.cos(azimuth),
                      -math.sin(elevation) * math.sin(azimuth), math.cos(elevation)]])


def configuration(robot, text: str | None) -> np.ndarray:
    """q of ``text`` (numbers separated by commas or spaces, nq of them: a floating base's
    position and unit quaternion (x, y, z, w) first), or where the drawing starts by default:
    the constraints' closed_at where the file gives constraints, else zeros (a floating base
    at the world's origin, unturned; a spherical joint unturned). DrawError for a wrong count,
    a number that is not finite, a quaternion (the base's or a spherical joint's) that is not
    a unit one."""
    if text is None:
        links = dict(zip(robot.link_q, link_values(robot, robot.closed_at)))
        return np.array([0.0] * 6 * robot.floating + [1.0] * robot.floating
                        + [links[s] for s in robot.q[robot.base_configuration:]])
    words = text.replace(",", " ").split()
    try:
        q = np.array([float(w) for w in words])
    except ValueError:
        raise DrawError(f"--q {text!r} is not a list of numbers (expected {robot.nq} numbers, "
                        "such as 0,0.5,-1)") from None
    if len(q) != robot.nq:
        raise DrawError(f"--q gives {len(q)} numbers; {robot.name} takes {robot.nq} (q's size"
                        + (", a floating base's position and quaternion first)"
                           if robot.floating else ")"))
    if not np.all(np.isfinite(q)):
        raise DrawError(f"--q {text!r} holds a number that is not finite")
    names = ["the base's", *(f"joint {name}'s" for name in robot.joint_names(robot.links))]
    for kind, i in robot.joint_kinds:
        at = robot.q.index(robot.joint_configuration(i)[0])
        for part in kind.units:
            unit = q[at:at + kind.nq][part]
            if abs(np.linalg.norm(unit) - 1) > 1e-6:
                raise DrawError(f"--q: {names[i]} {kind.unit_word} {unit.tolist()} is not a "
                                "unit one")
    return q


def frames(robot, q: np.ndarray, values: dict | None = None) -> dict:
    """The world poses to draw at q: ``links`` (the base frame {0}, then each link's frame as
    its file places it), ``named`` (the named frames, then the tool where no frame is named
    tool: (name, pose)) and ``named_links``, the link each of those is fixed to. ``values``
    give the robot's free symbols numbers; DrawError names those the geometry holds without
    one."""
    poses = Poses(robot, values)
    fixed = [link.file_frame for link in robot.links] + [f.placement for f in robot.frames] + [
        robot.tool] + [robot.base] * (not robot.floating)      # a floating base's is q's
    free = set(poses.free).union(*(sympy.Matrix(T).subs(values or {}).free_symbols
                                   for T in fixed))
    if free:
        raise DrawError(f"the geometry of {robot.name} has free symbols "
                        f"({', '.join(sorted(map(str, free)))}): give them values "
                        "(--set name=value)")

    def number(T) -> np.ndarray:
        return np.array(sympy.Matrix(T).subs(values or {}), dtype=float)
    at = dict(zip(robot.q[robot.base_configuration:], q[robot.base_configuration:]))
    base = None
    if robot.floating:
        base = np.eye(4)
        base[:3, :3] = np.array(quaternion_rotation(q[3:7]), dtype=float)
        base[:3, 3] = q[:3]
    joint = poses(at, base if robot.floating else number(robot.base))
    links = [joint[0]] + [pose @ number(link.file_frame)
                          for pose, link in zip(joint[1:], robot.links)]
    named = [(frame.name, joint[frame.link] @ number(frame.placement)) for frame in robot.frames]
    on = [frame.link for frame in robot.frames]
    if not any(name == "tool" for name, _ in named) and (
            robot.spec.tool is not None or not robot.branched):
        named.append(("tool", joint[robot.tool_link] @ number(robot.tool)))
        on.append(robot.tool_link)
    held = []           # each point or weld: (name, its first frame's pose, the other's)
    if robot.constraints:
        anchors = Loops(robot).anchors
        for constraint, anchor in zip(robot.constraints, anchors):
            if constraint.kind == "coupling":
                continue
            first, second = (None if end is None else joint[end.link] @ number(end.placement)
                             for end in constraint.ends)
            if second is None:
                second = (number(constraint.anchor) if constraint.anchor is not None
                          else np.asarray(anchor, dtype=float))
            held.append((constraint.name, first, second, constraint.ends[1] is None))
    return {"links": links, "named": named, "named_links": on, "held": held}


def draw(robot, q: np.ndarray, view: str = "iso", fmt: str = "svg",
         values: dict | None = None) -> bytes:
    """The picture of ``robot`` at ``q`` seen along ``view``, as SVG, PNG or PDF bytes;
    ``values`` for its free symbols (frames)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise DrawError("drawing needs matplotlib: pip install 'symdyn[draw]'") from None
    if view not in VIEWS:
        raise DrawError(f"unknown view {view!r}; choose from {', '.join(VIEWS)}")
    placed = frames(robot, q, values)
    P = projection(view)
    origins = np.array([T[:3, 3] for T in placed["links"]]
                       + [T[:3, 3] for _, T in placed["named"]])
    size = max(float(np.ptp(origins, axis=0).max()), 0.1)
    # the triads shorter where there are many frames, so that they do not hide each other
    triad = 0.12 * size / math.sqrt(max(1.0, len(placed["links"]) / 8))
    tree = (robot.parents != tuple(range(len(robot.links))) or bool(robot.constraints)
            or bool(robot.tendons))
    layout = _tree_layout(robot) if tree else None
    # a box's character about 0.6 of its 6.5 points wide, and the padding: 0.06 inches
    width = min(16.0, 7 + max(4.0, 0.06 * layout[1])) if tree else 7.0
    with matplotlib.rc_context({"svg.hashsalt": "symdyn", "svg.fonttype": "none",
                                "font.size": FONT}):
        figure = pyplot.figure(figsize=(width, 6))
        if tree:        # the robot's panel 7 inches of the width, the tree's the rest
            grid = figure.add_gridspec(1, 2, width_ratios=(7, width - 7))
            axes = figure.add_subplot(grid[0])
        else:
            axes = figure.add_subplot(1, 1, 1)
        _robot(axes, robot, placed, P, triad, view, 7.0)
        if tree:
            _tree(figure.add_subplot(grid[1]), robot, layout)
        out = io.BytesIO()
        figure.savefig(out, format=fmt, metadata=NO_DATE[fmt], dpi=150)
        pyplot.close(figure)
    return out.getvalue()


class _Labels:
    """Labels placed where no other is: each asked for at a point and an offset (points), moved
    up or down by its height until its box, as the page will show it (its characters' width
    in points, taken to data units by ``per_point``), meets no box placed before it."""

    def __init__(self, axes, per_point: float):
        self.axes, self.per_point, self.boxes = axes, per_point, []

    def __call__(self, point, text: str, dx: float, dy: float, fontsize: float = FONT,
                 **style):
        x, y = float(point[0]), float(point[1])
        width = 0.6 * fontsize * max(len(line) for line in text.split("\n"))
        height = 1.3 * fontsize * (text.count("\n") + 1)
        left = dx - (width if style.get("ha") == "right" else 0)
        for shift in [0] + [sign * k * height for k in range(1, 12) for sign in (-1, 1)]:
            box = (x + left * self.per_point, y + (dy + shift) * self.per_point,
                   width * self.per_point, height * self.per_point)
            if not any(_overlap(box, other) for other in self.boxes):
                break
        self.boxes.append(box)
        if shift:       # a thin line back to its point
            style["arrowprops"] = {"arrowstyle": "-", "color": "0.75", "linewidth": 0.5,
                                   "shrinkA": 0, "shrinkB": 2}
        self.axes.annotate(text, (x, y), xytext=(dx, dy + shift), parse_math=False,
                           textcoords="offset points", fontsize=fontsize, **style)


def _overlap(a, b) -> bool:
    return (a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3]
            and b[1] < a[1] + a[3])


def _robot(axes, robot, placed, P, triad: float, view: str, inches: float):
    """The frames, links, constraints and labels, projected by P, on equal axes ``inches``
    wide; labels kept off one another (_Labels)."""
    links = placed["links"]
    held = placed["held"]
    points = np.array([P @ T[:3, 3] for T in links] + [P @ T[:3, 3] for _, T in placed["named"]]
                      + [P @ T[:3, 3] for _, _, T, _ in held])
    extent = max(float(np.ptp(points, axis=0).max()), 1e-3) * 1.3
    label = _Labels(axes, extent / (0.75 * inches * 72))     # data units a point
    for link in robot.links:                                    # the links, grey
        a, b = (P @ links[k][:3, 3] for k in (link.parent, link.index))
        axes.plot([a[0], b[0]], [a[1], b[1]], color="0.45", linewidth=2.5, zorder=1)
    for k, T in enumerate(links):
        _triad(axes, P, T, triad, f"origin-{k}")
        name = "{0}" if k == 0 else robot.spec.links[k - 1].name or f"{{{k}}}"
        label(P @ T[:3, 3], name, 4, -10, color="0.2")
    ends = {end.name for c in robot.constraints for end in c.ends if end is not None}
    for k, ((name, T), link) in enumerate(zip(placed["named"], placed["named_links"])):
        a, b = P @ links[link][:3, 3], P @ T[:3, 3]        # the frame on its link, dashed
        axes.plot([a[0], b[0]], [a[1], b[1]], color="0.6", linewidth=1, linestyle="--",
                  zorder=1)
        _triad(axes, P, T, 0.6 * triad, f"frame-{k}", marker="s")
        if name in ends or (link and name == robot.spec.links[link - 1].name and np.allclose(
                T[:3, 3], links[link][:3, 3], atol=1e-9 * max(1.0, triad))):
            continue        # a link's own frame (an import's body), a constraint's: labelled
        label(P @ T[:3, 3], name, -4, 6, color="0.35", style="italic", ha="right")
    for name, first, second, world in held:                     # the constraints, magenta
        a, b = P @ first[:3, 3], P @ second[:3, 3]
        axes.plot([a[0], b[0]], [a[1], b[1]], color=CONSTRAINT_COLOUR, linewidth=1.2,
                  linestyle=":", zorder=4)
        axes.plot([b[0]], [b[1]], marker="^" if world else "o", markersize=7,
                  markerfacecolor="none", markeredgecolor=CONSTRAINT_COLOUR, zorder=4)
        label(b, name, 6, 4, color=CONSTRAINT_COLOUR)
    if robot.spec.convention != "urdf":                          # the textbook's labels
        geometry = table.geometry(robot.spec)
        for link, row in zip(robot.links, geometry.rows):
            cells = dict(zip(geometry.header, row))
            middle = P @ (links[link.parent][:3, 3] + links[link.index][:3, 3]) / 2
            label(middle, f"{link.index}: " + ", ".join(
                f"{key} = {table.text(cells[key])}" for key in ("a", "alpha", "d", "theta")
                if key in cells), 10, 0, fontsize=6.5, color="0.3")
    axes.set_aspect("equal", adjustable="datalim")
    axes.set_title(f"{robot.name}: {table.joints(robot.spec)}, {view} view"
                   + _constraints_said(robot), parse_math=False)
    axes.set_axis_off()


def _constraints_said(robot) -> str:
    """The constraints and tendons in words, for the title: "" where there are none."""
    kinds = {"point": "loop", "weld": "weld", "coupling": "coupling"}
    counts: dict[str, int] = {}
    for c in robot.constraints:
        kind = kinds[c.kind] if c.kind == "coupling" or c.ends[1] is not None else "contact"
        counts[kind] = counts.get(kind, 0) + 1
    if robot.tendons:
        counts["tendon"] = len(robot.tendons)
    if not counts:
        return ""
    return "\n" + ", ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in counts.items())


def _triad(axes, P, T, length: float, gid: str, marker: str = "o"):
    """A frame's axes from its origin, and its origin's marker, named ``gid``."""
    origin = P @ T[:3, 3]
    for axis, colour in enumerate(AXIS_COLOURS):
        tip = P @ (T[:3, 3] + length * T[:3, axis])
        axes.plot([origin[0], tip[0]], [origin[1], tip[1]], color=colour, linewidth=1.5,
                  zorder=2)
    (dot,) = axes.plot([origin[0]], [origin[1]], marker=marker, markersize=4, color="black",
                       zorder=3)
    dot.set_gid(gid)


def _tree_layout(robot) -> tuple[dict, float]:
    """Where each box of the kinematic tree goes: ({link: (x, y)}, the width in characters),
    the base at the top, each link a row below its parent, leaves left to right as wide as
    their labels (parents over the middle of their children)."""
    children: dict[int, list[int]] = {}
    for link in robot.links:
        children.setdefault(link.parent, []).append(link.index)
    place: dict[int, tuple[float, float]] = {}
    column = [0.0]

    def visit(k: int, depth: int):
        below = children.get(k, [])
        for c in below:
            visit(c, depth + 1)
        if below:
            x = sum(place[c][0] for c in below) / len(below)
        else:
            width = max(len(line) for line in _tree_label(robot, k).split("\n")) + 4
            x, column[0] = column[0] + width / 2, column[0] + width
        place[k] = (x, -depth)
    visit(0, 0)
    return place, column[0]


def _tree_label(robot, k: int) -> str:
    if k == 0:
        return "base" + (" (floating)" if robot.floating else "")
    link = robot.links[k - 1]
    kind = "mimic " + link.joint if link.mimic else link.joint
    return f"{robot.spec.links[k - 1].name or k}\n{kind}"


def _tree(axes, robot, layout):
    """The kinematic tree (_tree_layout), each box its link's name and joint's kind; a loop
    an edge between its frames' links (magenta, dashed), a coupling's and a tendon's joints
    joined by dotted orange lines."""
    place, width = layout
    for link in robot.links:
        (x0, y0), (x1, y1) = place[link.parent], place[link.index]
        axes.plot([x0, x1], [y0, y1], color="0.6", zorder=1)
    joints = {link.q: link.index for link in robot.links if link.q is not None}
    for c in robot.constraints:
        if c.kind == "coupling":
            _join(axes, [place[joints[q]] for q, _ in c.coefficients], TENDON_COLOUR, ":")
        elif c.ends[1] is not None:
            _join(axes, [place[c.ends[0].link], place[c.ends[1].link]], CONSTRAINT_COLOUR, "--")
    for tendon in robot.tendons:
        _join(axes, [place[joints[q]] for q, _ in tendon.coefficients], TENDON_COLOUR, ":")
    for k, (x, y) in place.items():
        axes.annotate(_tree_label(robot, k), (x, y), ha="center", va="center", fontsize=6.5,
                      parse_math=False, bbox={"boxstyle": "round", "fc": "white", "ec": "0.5"},
                      zorder=3)
    axes.set_xlim(-1, max(width, 4) + 1)
    axes.set_ylim(min(y for _, y in place.values()) - 1, 1)
    axes.set_title("kinematic tree")
    axes.set_axis_off()


def _join(axes, points, colour: str, style: str):
    """A curve through ``points`` (boxes of the tree), bowed out so that it is not a link."""
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        t = np.linspace(0, 1, 30)
        bow = 0.35 * np.sin(np.pi * t)
        axes.plot(x0 + (x1 - x0) * t + bow, y0 + (y1 - y0) * t, color=colour,
                  linestyle=style, linewidth=1.2, zorder=2)
