"""A picture of a robot at a configuration: its link frames as triads (x, y, z in red, green
and blue), the links as segments between the origins of each frame and its parent's, the
named frames and the tool, projected along a view (isometric by default); for a DH table each
link labelled with its four parameters, as the textbooks' figures are; for a tree a second
panel with the kinematic tree, each joint's kind beside its link.

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
from ..robot.model import quaternion_rotation
from ..robot.poses import Poses, link_values

# (azimuth, elevation) in degrees of the direction the robot is seen from; z is up on the page
# but from the top, where y is.
VIEWS = {"iso": (45.0, math.degrees(math.atan(1 / math.sqrt(2)))), "front": (-90.0, 0.0),
         "side": (0.0, 0.0), "top": (-90.0, 90.0)}
AXIS_COLOURS = ("#d62728", "#2ca02c", "#1f77b4")        # x, y, z: red, green, blue
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
    owners = ([("the base's", robot.root.quaternion)] if robot.root else []) + [
        (f"joint {name}'s", link.ball.quaternion)
        for name, link in zip(robot.joint_names(robot.balls), robot.balls)]
    for whose, quaternion in owners:
        at = robot.q.index(quaternion[0])
        if abs(np.linalg.norm(q[at:at + 4]) - 1) > 1e-6:
            raise DrawError(f"--q: {whose} quaternion (x, y, z, w) = {q[at:at + 4].tolist()} "
                            "is not a unit one")
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
    if not any(name == "tool" for name, _ in named):
        named.append(("tool", joint[robot.tool_link] @ number(robot.tool)))
        on.append(robot.tool_link)
    return {"links": links, "named": named, "named_links": on}


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
    triad = 0.12 * size
    tree = robot.parents != tuple(range(len(robot.links)))
    with matplotlib.rc_context({"svg.hashsalt": "symdyn", "svg.fonttype": "none",
                                "font.size": 8}):
        figure = pyplot.figure(figsize=(11, 6) if tree else (7, 6))
        axes = figure.add_subplot(1, 2, 1) if tree else figure.add_subplot(1, 1, 1)
        _robot(axes, robot, placed, P, triad, view)
        if tree:
            _tree(figure.add_subplot(1, 2, 2), robot)
        out = io.BytesIO()
        figure.savefig(out, format=fmt, metadata=NO_DATE[fmt], dpi=150)
        pyplot.close(figure)
    return out.getvalue()


def _robot(axes, robot, placed, P, triad: float, view: str):
    """The frames, links and labels, projected by P, on equal axes; labels at one place (a
    wrist's frames, its links of no length) stacked, not drawn over each other."""
    links = placed["links"]
    taken: dict = {}

    def label(point, text, dx, dy, **style):
        key = (round(float(point[0]), 6), round(float(point[1]), 6), dx)
        below = taken.get(key, 0)
        taken[key] = below + 1
        axes.annotate(text, (float(point[0]), float(point[1])), xytext=(dx, dy - 9 * below),
                      parse_math=False,
                      textcoords="offset points", **style)
    for link in robot.links:                                    # the links, grey
        a, b = (P @ links[k][:3, 3] for k in (link.parent, link.index))
        axes.plot([a[0], b[0]], [a[1], b[1]], color="0.45", linewidth=2.5, zorder=1)
    for k, T in enumerate(links):
        _triad(axes, P, T, triad, f"origin-{k}")
        name = "{0}" if k == 0 else robot.spec.links[k - 1].name or f"{{{k}}}"
        label(P @ T[:3, 3], name, 4, -10, color="0.2")
    for k, ((name, T), link) in enumerate(zip(placed["named"], placed["named_links"])):
        a, b = P @ links[link][:3, 3], P @ T[:3, 3]        # the frame on its link, dashed
        axes.plot([a[0], b[0]], [a[1], b[1]], color="0.6", linewidth=1, linestyle="--",
                  zorder=1)
        _triad(axes, P, T, 0.6 * triad, f"frame-{k}", marker="s")
        if link and name == robot.spec.links[link - 1].name and np.allclose(
                T[:3, 3], links[link][:3, 3], atol=1e-9 * max(1.0, triad)):
            continue        # a link's own frame (an import's body): its label is there
        label(P @ T[:3, 3], name, -4, 6, color="0.35", style="italic", ha="right")
    if robot.spec.convention != "urdf":                          # the textbook's labels
        geometry = table.geometry(robot.spec)
        for link, row in zip(robot.links, geometry.rows):
            cells = dict(zip(geometry.header, row))
            middle = P @ (links[link.parent][:3, 3] + links[link.index][:3, 3]) / 2
            label(middle, f"{link.index}: " + ", ".join(
                f"{key} = {table.text(cells[key])}" for key in ("a", "alpha", "d", "theta")
                if key in cells), 10, 0, fontsize=6.5, color="0.3")
    axes.set_aspect("equal", adjustable="datalim")
    axes.set_title(f"{robot.name}: {table.joints(robot.spec)}, {view} view", parse_math=False)
    axes.set_axis_off()


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


def _tree(axes, robot):
    """The kinematic tree: the base at the top, each link below its parent, leaves spread
    left to right, each labelled with its name and its joint's kind."""
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
            x, column[0] = column[0], column[0] + 1
        place[k] = (x, -depth)
    visit(0, 0)
    for link in robot.links:
        (x0, y0), (x1, y1) = place[link.parent], place[link.index]
        axes.plot([x0, x1], [y0, y1], color="0.6", zorder=1)
    for k, (x, y) in place.items():
        if k == 0:
            text = "base" + (" (floating)" if robot.floating else "")
        else:
            link = robot.links[k - 1]
            kind = "mimic " + link.joint if link.mimic else link.joint
            text = f"{robot.spec.links[k - 1].name or k}\n{kind}"
        axes.annotate(text, (x, y), ha="center", va="center", fontsize=6.5, parse_math=False,
                      bbox={"boxstyle": "round", "fc": "white", "ec": "0.5"})
    axes.set_xlim(-1, max(column[0], 1))
    axes.set_ylim(min(y for _, y in place.values()) - 1, 1)
    axes.set_title("kinematic tree")
    axes.set_axis_off()
