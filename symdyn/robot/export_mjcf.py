"""Robot -> MJCF: a robot file's model for MuJoCo, to view and simulate it.

The bodies are symdyn's joint frames (z along each joint axis), as in the URDF export, so each
body is placed at its frame at q = 0 and its hinge or slide turns about (or slides along) its
own z through its origin, qpos being symdyn's q:

    world -> base (welded where the file's base is) -> link1 ... linkn, each with its joint

A floating base is a body on a free joint (MuJoCo's qpos: the position and the quaternion
(w, x, y, z); its linear velocity in the world's axes, reference.MujocoReference maps them). A
spherical joint is a ball joint, its qpos the quaternion (w, x, y, z), its qvel symdyn's v,
and, where driven, three motors about its frame's axes.
Each body carries its link's inertia; the named frames and the tool are sites. A mimic joint is
a joint equality (joint1 = offset + multiplier joint2). The constraints are equalities: a
point a ``connect`` and a weld a ``weld`` of the two frames' sites (a frame held to the world,
of its site and one in the world at the anchor), a coupling a fixed tendon held at its value
(MuJoCo measures a tendon equality from qpos0, here q = 0, where a fixed tendon's length is 0);
the fixed tendons are tendons, and the keyframe ``closed_at`` is where the constraints hold.
MuJoCo holds every row of a connect or weld: where the rows a file leaves out (``axes``) do
not repeat the others, its motion is not the file's, and mjcf_left_out says so. The rotor
inertias are the joints' armature, the viscous friction their damping, a symmetric Coulomb
friction their frictionloss; a joint's effort limit is its actuator force range, and every
independent joint has a motor (a closed-loop mechanism's actuated joints alone).

Capsules along the links (from each frame's origin to its parent's) and spheres at the joints
make the model visible; they neither collide nor weigh (contype 0, inertias as given).
MuJoCo needs mass and inertia in every moving body: a massless link, or a point mass, is given
MuJoCo's lower bounds (``boundmass``, ``boundinertia``), 1e-12 kg and kg m^2, which move its
dynamics by that much. MuJoCo refuses inertias no rigid body has, which published data (and a
robot file with ``allow_inconsistent_inertia``) may hold: such a model is written with
``balanceinertia``, MuJoCo's repair, and a comment naming the links whose dynamics it changes.
Names are the robot file's, which are validated, and escaped anyway.
"""
from __future__ import annotations

import dataclasses
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from .constraints import Loops
from .export import Numbers, comment, refuse_kinds
from .model import Robot
from .poses import closed_base, link_values
from .rigid import wxyz_of_rotation
from .validity import body_problem
from .write import decimal, decimals

BOUND = 1e-12            # boundmass and boundinertia: MuJoCo's floor on moving bodies
RADIUS = 0.02            # the capsules' radius, in metres


def mjcf_text(robot: Robot, values: dict | None = None, notes: list[str] | None = None) -> str:
    """The MJCF of ``robot`` with its free symbols replaced by ``values`` ({symbol: number});
    raises ValueError naming the symbols that are left, or the joints MJCF has no name for."""
    refuse_kinds(robot, "MJCF", "mjcf", "export-urdf", "urdf")
    free = [link for link in robot.links if link.kind.mjcf == "free"]
    if free:
        names = ", ".join(robot.joint_names(free))
        raise ValueError(f"MJCF holds a free joint on a body of the world alone, its qpos that "
                         f"body's pose in the world, not a free_flyer joint's q inside a tree "
                         f"({names}); export-urdf writes it as a floating joint")
    num = Numbers.of(robot, values, "an MJCF file")
    spec = robot.spec
    names = [row.name or f"link{link.index}" for link, row in zip(robot.links, spec.links)]
    children: dict[int, list[int]] = {}
    for link in robot.links:
        children.setdefault(link.parent, []).append(link.index)
    sites: dict[int, list[str]] = {}
    for frame in robot.frames:
        sites.setdefault(frame.link, []).append(_site(frame.name, num.matrix(frame.placement)))
    if not any(frame.name == "tool" for frame in robot.frames):
        sites.setdefault(robot.tool_link, []).append(_site("tool", num.matrix(robot.tool)))
    named = {frame.name for frame in robot.frames} | {"tool"}
    for end in {end.name: end for c in robot.constraints for end in c.ends
                if end is not None and end.name not in named}.values():     # a link by name
        sites.setdefault(end.link, []).append(_site(end.name, num.matrix(end.placement)))
    order = []           # the links in MuJoCo's qpos order: the bodies depth first

    def body(index: int, depth: int) -> list[str]:
        pad = "  " * depth
        link = robot.links[index - 1]
        row = spec.links[index - 1]
        order.append(link)
        placement = np.eye(4)
        placement[:3, :3] = num.matrix(link.rotation.subs(link.rest))
        placement[:3, 3] = num.vector(link.position.subs(link.rest))
        lines = [f"{pad}<body name={quoteattr(names[index - 1])} {_pose(placement)}>",
                 f"{pad}  {_joint(f'joint{index}', link, row, num)}",
                 f"{pad}  {_inertial(link.inertia, num)}",
                 f'{pad}  <geom type="sphere" size="{2 * RADIUS}"/>']
        back = -placement[:3, :3].T @ placement[:3, 3]    # the parent's origin, in this frame
        if np.linalg.norm(back) > 1e-9:
            lines.append(f'{pad}  <geom type="capsule" size="{RADIUS}" '
                         f'fromto="0 0 0 {_words(back)}"/>')
        lines += [f"{pad}  {site}" for site in sites.get(index, [])]
        for child in children.get(index, []):
            lines += body(child, depth + 1)
        return lines + [f"{pad}</body>"]

    impossible = [names[link.index - 1] for link in robot.links if _impossible(link.inertia, num)]
    if robot.floating and _impossible(robot.root.inertia, num):
        impossible.insert(0, "base")
    out = [f"<mujoco model={quoteattr(robot.name)}>",
           f"  <!-- {escape(robot.name)}: exported by symdyn from its robot file. Bodies are "
           "symdyn's joint frames (z along each joint axis); qpos is symdyn's q. -->"]
    out += [f"  {comment(f'Note: {line}.')}" for line in (
        mjcf_left_out(robot) if notes is None else notes)]
    if impossible:
        out.append("  " + comment("Inertias no rigid body has, which MuJoCo balances (its "
                                  "dynamics differ from the robot file's there): "
                                  f"{', '.join(impossible)}."))
    out += [f'  <compiler angle="radian" inertiafromgeom="false" boundmass="{BOUND}" '
            f'boundinertia="{BOUND}"' + (' balanceinertia="true"' if impossible else "") + "/>",
           f'  <option gravity="{_words(num.vector(spec.gravity))}"/>',
           '  <default><geom contype="0" conaffinity="0" rgba="0.6 0.6 0.7 1"/></default>',
           "  <worldbody>"]
    if robot.floating:          # at qpos0 where closed_at puts it, as the import reads it
        base = closed_base(robot)
        place = "" if np.array_equal(base, np.eye(4)) else f" {_pose(base)}"
        out += [f'    <body name="base"{place}>', '      <freejoint name="root"/>',
                f"      {_inertial(robot.root.inertia, num)}",
                f'      <geom type="sphere" size="{2 * RADIUS}"/>']
    else:
        out += [f'    <body name="base" {_pose(num.matrix(robot.base))}>']
    out += [f"      {site}" for site in sites.get(0, [])]
    for child in children.get(0, []):
        out += body(child, 3)
    out.append("    </body>")
    anchors = Loops(robot).anchors if robot.constraints else []
    held = [(c, anchor) for c, anchor in zip(robot.constraints, anchors) if c.kind != "coupling"]
    out += [f"    {_site(_world_site(c), num.matrix(anchor))}" for c, anchor in held
            if c.ends[1] is None]
    out.append("  </worldbody>")
    out += _tendons(robot, num)
    equalities = [f'    <{"connect" if c.kind == "point" else "weld"} name={quoteattr(c.name)} '
                  f'site1={quoteattr(c.ends[0].name)} site2='
                  f'{quoteattr(c.ends[1].name if c.ends[1] else _world_site(c))}/>'
                  for c, _ in held]
    equalities += [f'    <tendon name={quoteattr(c.name)} tendon1={quoteattr(_coupling(c))} '
                   f'polycoef="{decimal(num(c.value))} 0 0 0 0"/>'
                   for c in robot.constraints if c.kind == "coupling"]
    for link in robot.links:
        if link.mimic is not None:
            followed, multiplier, offset = link.mimic
            equalities.append(f'    <joint joint1="joint{link.index}" joint2="joint{followed}" '
                              f'polycoef="{decimal(num(offset))} {decimal(num(multiplier))} '
                              '0 0 0"/>')
    if equalities:
        out += ["  <equality>", *equalities, "  </equality>"]
    if robot.constraints:
        out += ["  <keyframe>", f'    <key name="closed_at" qpos="{_words(_qpos(robot, order))}"/>',
                "  </keyframe>"]
    motors = [link for link in robot.links if link.mimic is None]
    if robot.actuated:          # a closed-loop mechanism's passive joints have no motor
        motors = [link for link in motors
                  if set(robot.velocity_columns[link.index]) & set(robot.actuated)]
    if motors:                  # a ball's three, about its frame's axes
        out += ["  <actuator>"] + [
            f'    <motor name="motor{link.index}{axis}" joint="joint{link.index}"{gear}/>'
            for link in motors for axis, gear in (
                [(a, f' gear="{_words(np.eye(6)[k])}"') for k, a in enumerate(link.kind.suffixes)]
                or [("", "")])]
        out.append("  </actuator>")
    return "\n".join(out + ["</mujoco>", ""])


def _world_site(constraint) -> str:
    """The site in the world a frame is held to."""
    return f"{constraint.name} (world)"


def _coupling(constraint) -> str:
    """The tendon a coupling holds (tendons and equalities are named apart in MuJoCo, but a
    robot file's tendon may take the coupling's name)."""
    return f"{constraint.name} (coupling)"


def _tendons(robot: Robot, num) -> list[str]:
    """The fixed tendons: the robot file's, and one per coupling."""
    index = {link.q: link.index for link in robot.links}
    tendons = [(t.name, t.coefficients) for t in robot.tendons] + [
        (_coupling(c), c.coefficients) for c in robot.constraints if c.kind == "coupling"]
    if not tendons:
        return []
    out = ["  <tendon>"]
    for name, coefficients in tendons:
        out.append(f"    <fixed name={quoteattr(name)}>")
        out += [f'      <joint joint="joint{index[q]}" coef="{decimal(num(c))}"/>'
                for q, c in coefficients]
        out.append("    </fixed>")
    return out + ["  </tendon>"]


def _qpos(robot: Robot, order) -> list[float]:
    """MuJoCo's qpos at closed_at: a floating base's pose (poses.closed_base, its quaternion
    w first), then every joint (mimic joints too) in the bodies' order."""
    values = dict(zip(robot.link_q, link_values(robot, robot.closed_at)))
    base = closed_base(robot)
    head = [*base[:3, 3], *wxyz_of_rotation(base[:3, :3])] if robot.floating else []
    return [float(x) for x in head] + [
        values[link.configuration[k]] for link in order for k in link.kind.qpos_order]


def mjcf_left_out(robot: Robot) -> list[str]:
    """What the MJCF of ``robot`` does not hold as the robot file does, in words: elastic joints
    (ELASTIC_RIGID); constraints whose left-out rows (``axes``) do not repeat the rows kept,
    where the constraints hold (MuJoCo holds them all)."""
    out = ([ELASTIC_RIGID + ", ".join(map(repr, robot.joint_names(robot.elastic)))]
           if robot.elastic else [])
    partial = [c for c in robot.constraints
               if c.kind != "coupling" and len(c.rows) < (3 if c.kind == "point" else 6)]
    if not partial:
        return out
    whole = dataclasses.replace(robot, constraints=tuple(
        dataclasses.replace(c, rows=tuple(range(3 if c.kind == "point" else 6)))
        if c in partial else c for c in robot.constraints))
    ranks = [np.linalg.matrix_rank(Loops(r).generic()[1], tol=1e-6) for r in (robot, whole)]
    if ranks[0] == ranks[1]:
        return out
    names = ", ".join(repr(c.name) for c in partial)
    return out + [f"constraints {names} keep some rows (axes:) that the others do not repeat; "
            "MuJoCo holds every row of a connect or weld, so the MJCF's motion is not the "
            "robot file's"]


# MuJoCo's joints are rigid: a motor on a hinge of its own, the link on a spring after it,
# would make the motor's angle and the deflection the coordinates, not q and theta, and add the
# rotor's coupling with the links' rotations, which the reduced model leaves out.
ELASTIC_RIGID = ("elastic joints written rigid, in the stiff limit (each motor locked to its "
                 "link: its rotor the joint's armature, its friction the joint's), as MuJoCo "
                 "has no reduced elastic-joint model: ")


def _words(values) -> str:
    return decimals(values)[1:-1].replace(",", "")


def _pose(T) -> str:
    return f'pos="{_words(T[:3, 3])}" quat="{_words(wxyz_of_rotation(T[:3, :3]))}"'


def _site(name: str, T) -> str:
    return f'<site name={quoteattr(name)} {_pose(T)} size="{RADIUS / 2}"/>'


def _joint(name, link, row, num) -> str:
    if link.q is None:      # no rotor, friction or limits (the robot file refuses them)
        return f'<joint name="{name}" type="{link.kind.mjcf}"/>'
    attributes = [f'name="{name}"', f'type="{link.kind.mjcf}"', 'axis="0 0 1"']
    limits = {k: num(v) for k, v in (row.limits or {}).items()}
    if "lower" in limits:
        attributes.append(f'range="{decimal(limits["lower"])} {decimal(limits["upper"])}" '
                          'limited="true"')
    if limits.get("effort"):
        attributes.append(f'actuatorfrcrange="{decimal(-limits["effort"])} '
                          f'{decimal(limits["effort"])}" actuatorfrclimited="true"')
    side = link.elastic or link     # an elastic joint's motor locked to its link (left out)
    armature, viscous = num(side.armature), num(side.viscous)
    plus, minus = (num(c) for c in side.coulomb)
    stiffness, reference = (num(x) for x in link.spring) if link.spring else (0.0, 0.0)
    for key, value in (("armature", armature), ("damping", viscous),
                       ("frictionloss", plus if plus == -minus else 0.0),
                       ("stiffness", stiffness), ("springref", reference if stiffness else 0)):
        if value:
            attributes.append(f'{key}="{decimal(value)}"')
    return f"<joint {' '.join(attributes)}/>"


def _about_com(inertia, num) -> tuple[float, np.ndarray, np.ndarray, float]:
    """The body's mass, centre of mass and inertia about it, and the scale of its numbers."""
    mass = num(inertia.mass)
    h = num.vector(inertia.first_moment)
    J = num.matrix(inertia.inertia_origin)
    c = h / mass if mass else np.zeros(3)
    about_com = J - mass * (c @ c * np.eye(3) - np.outer(c, c))
    return mass, c, about_com, max(float(np.abs(about_com).max()), float(np.abs(J).max()))


def _impossible(inertia, num) -> bool:
    mass, c, tensor, _ = _about_com(inertia, num)
    six = [tensor[i, j] for i, j in ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))]
    return body_problem(mass, c, six, about_origin=False) is not None


def _inertial(inertia, num) -> str:
    """The body about its centre of mass (its full tensor: MuJoCo finds the principal axes)."""
    mass, c, about_com, scale = _about_com(inertia, num)
    six = [about_com[i, j] for i, j in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))]
    return (f'<inertial pos="{_words(c)}" mass="{decimal(mass)}" '
            f'fullinertia="{" ".join(decimal(v, scale) for v in six)}"/>')
