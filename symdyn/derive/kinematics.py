"""Link placements, forward kinematics, the tool's pose, Jacobians and dJ/dt qd, as named steps.

Everything is composed from the joint frames the dynamics use (Craig's, z along each joint axis),
placed in the world by the robot's base; the file's own link frames and the tool are constant
transforms from them. dJ/dt qd is the forward-mode derivative of J qd along qd: no second
recursion.
"""
from __future__ import annotations

import symengine
import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import directional_derivative
from ..robot import joints
from ..robot.model import Link, Robot


def placement(link: Link, b: ProgramBuilder):
    """^{i-1}R_i and ^{i-1}P_i, in the steps its kind names (robot/joints.py)."""
    return link.kind.placement(b, link)


def forward_kinematics(robot: Robot, b: ProgramBuilder):
    """^0R_i and ^0p_i of every joint frame, composed outward: ^0T_i = ^0T_{p(i)} ^{p(i)}T_i."""
    frames = []
    for link in robot.links:
        i = link.index
        R0, p0 = frames[link.parent - 1] if link.parent else (sympy.eye(3), sympy.zeros(3, 1))
        R, P = placement(link, b)
        p = b.vector(f"p{i}", _plus(p0, _times(R0, P)))
        frames.append((_named(b, f"R{i}", _times(R0, R)), p))
    return frames


def frames_from(robot: Robot, b: ProgramBuilder, root: int) -> list:
    """^rR_i and ^rp_i of the joint frames of link ``root``'s subtree, in root's joint frame
    (forward_kinematics's for the base, 0), root's own the identity; None for the other links.
    What moves the root drops out: a loop hanging from it is a function of its own joints."""
    if not root:
        return forward_kinematics(robot, b)
    inside = set(robot.subtree(root))
    frames = [None] * len(robot.links)
    frames[root - 1] = (sympy.eye(3), sympy.zeros(3, 1))
    for link in robot.links:
        i = link.index
        if i == root or i not in inside:
            continue
        R0, p0 = frames[link.parent - 1]
        R, P = placement(link, b)
        p = b.vector(f"p{root}_{i}", _plus(p0, _times(R0, P)))
        frames[i - 1] = (_named(b, f"R{root}_{i}", _times(R0, R)), p)
    return frames


def file_frames(robot: Robot) -> list[sympy.Matrix]:
    """^{i}T_{i'}: link i's frame as the robot file's convention places it, in joint frame {i}
    (the same in modified DH; Tx(a_i) Rx(alpha_i) on in standard DH; turned back from the
    joint's axis in convention urdf: see robot.model)."""
    return [sympy.Matrix(link.file_frame) for link in robot.links]


def base_frame(robot: Robot, b: ProgramBuilder) -> tuple[sympy.Matrix, sympy.Matrix]:
    """^wR_0 and ^wp_0: the file's base placement, or a floating base's pose, its rotation's
    entries named once (Rb_xy), from which every frame in the world is composed."""
    R, p = sympy.Matrix(robot.base[:3, :3]), sympy.Matrix(robot.base[:3, 3])
    if robot.floating:
        R = _named(b, "Rb", R)
    return R, p


def world_frames(robot: Robot, b: ProgramBuilder) -> list[tuple[sympy.Matrix, sympy.Matrix]]:
    """^wR_i and ^wp_i of every joint frame: the base placement, then the chain."""
    base_R, base_p = base_frame(robot, b)
    return [(R, p) if robot.base == sympy.eye(4) else
            (_named(b, f"Rw{i}", _times(base_R, R)),
             b.vector(f"pw{i}", _plus(base_p, _times(base_R, p))))
            for i, (R, p) in enumerate(forward_kinematics(robot, b), start=1)]


def _times(A, B) -> symengine.DenseMatrix:
    """A B, multiplied by symengine: sympy's product goes through its polynomial domains,
    several times slower on these entries, and each entry goes to the builder, which takes
    symengine's expressions as they are."""
    return symengine.DenseMatrix(A) * symengine.DenseMatrix(B)


def _plus(A, B) -> symengine.DenseMatrix:
    return symengine.DenseMatrix(A) + symengine.DenseMatrix(B)


def _named(b: ProgramBuilder, name: str, R) -> sympy.Matrix:
    """A rotation's entries as named steps, ``{name}_xy`` in row x, column y."""
    return sympy.Matrix(3, 3, [b.define(f"{name}_{'xyz'[r]}{'xyz'[c]}", R[r, c])
                               for r in range(3) for c in range(3)])


def _transform(R, p) -> sympy.Matrix:
    T = sympy.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def _composed(b: ProgramBuilder, name: str, R, p, T) -> tuple[sympy.Matrix, sympy.Matrix]:
    """(R, p) followed by the constant transform T, as named steps (nothing for T = I)."""
    if T == sympy.eye(4):
        return R, p
    return _named(b, name, _times(R, T[:3, :3])), b.vector(f"{name}_p",
                                                          _plus(p, _times(R, T[:3, 3])))


def tool_frame(robot: Robot, b: ProgramBuilder, frames=None):
    """^wR_tool and ^wp_tool (the tool on the base: of {0})."""
    R, p = ((frames or world_frames(robot, b))[robot.tool_link - 1] if robot.tool_link
            else base_frame(robot, b))
    return _composed(b, "Rt", R, p, robot.tool)


def jacobian(robot: Robot, b: ProgramBuilder, frames=None) -> sympy.Matrix:
    """The tool's geometric Jacobian in world axes (Spong et al., Chapter 4): column i is
    [z_i x (p_tool - p_i); z_i] for a revolute joint and [z_i; 0] for a prismatic one, with z_i
    and p_i the axis and origin of joint frame {i} (its z axis is joint i's axis), for the
    joints that move the tool's link; zero for the others. A spherical joint has three, of the
    x, y and z axes of its frame: each joint's, its motion subspace's (_columns)."""
    frames = frames or world_frames(robot, b)
    _, p_tool = tool_frame(robot, b, frames)
    return point_jacobian(robot, b, frames, robot.tool_link, p_tool)


def point_jacobian(robot: Robot, b: ProgramBuilder, frames, link: int, point,
                   name: str = "", above: int | None = None) -> sympy.Matrix:
    """The geometric Jacobian, in the axes of ``frames`` (the world's, or a link's:
    frames_from), of a frame of link ``link`` whose origin is at ``point``: the columns of
    the joints that move that link, zero for the others, and zero too for those that move
    link ``above`` and for a floating base where ``above`` is given (a loop's root: they carry
    the loop whole); steps named with the prefix ``name``."""
    moving = set(robot.support(link)) - set(robot.support(above or 0))
    columns = []
    if robot.floating:          # [v; omega] of the base in its axes
        columns = (_columns(b, f"{name}r0", joints.FREE_FLYER, *base_frame(robot, b), point,
                            robot.joint_configuration(0))
                   if above is None else [sympy.zeros(6, 1)] * joints.FREE_FLYER.nv)
    for joint, frame in zip(robot.links, frames):
        columns += (_columns(b, f"{name}r{joint.index}", joint.kind, *frame, point,
                             joint.configuration)
                    if joint.index in moving else [sympy.zeros(6, 1)] * joint.nv)
    J = sympy.Matrix.hstack(*columns)
    if robot.coupling:          # a coordinate's column: its joints' columns, by G
        shift = robot.base_velocities
        J = sympy.Matrix.hstack(*columns[:shift], *(
            sum((J[:, shift + j] * m for j, m in links), sympy.zeros(6, 1))
            for links in robot.coordinate_links))
    return sympy.Matrix(6, robot.dof,
                        lambda r, c: b.define(f"{name}J{r + 1}_{c + 1}", J[r, c]))


def _columns(b: ProgramBuilder, name: str, kind, R, p, point, q) -> list[sympy.Matrix]:
    """The Jacobian's columns of a joint of ``kind`` at configuration ``q`` whose frame is at
    (R, p), for ``point`` (joint_motions), the lever arm named ``name`` where the joint
    turns."""
    arm = b.vector(name, point - p) if kind.turns() else None
    return [sympy.Matrix.vstack(v, w) for v, w in joint_motions(kind, R, arm, q)]


def joint_motions(kind, R, arm, q=None) -> list[tuple[sympy.Matrix, sympy.Matrix]]:
    """(v, w) of each of a joint's unit velocities, in the axes R is in, for a point at ``arm``
    from its frame's origin (None where the joint does not turn): each column (s_v, s_w) of
    its motion subspace at configuration ``q`` moves the point by R s_v + (R s_w) x arm and
    turns it by R s_w (a revolute joint's z x arm and z, a prismatic one's z and 0)."""
    motions = []
    for linear, angular in kind.columns(q):
        w = R * sympy.Matrix(angular)
        v = R * sympy.Matrix(linear) + (w.cross(arm) if arm is not None else sympy.zeros(3, 1))
        motions.append((v, w))
    return motions


def named_frames(robot: Robot, b: ProgramBuilder, frames) -> list[tuple]:
    """^wR and ^wp of each named frame: its link's frame (or the base), then its placement."""
    return [frame_pose(robot, b, frames, frame, f"Rn{k}")
            for k, frame in enumerate(robot.frames, start=1)]


def frame_pose(robot: Robot, b: ProgramBuilder, frames, frame, name: str) -> tuple:
    """^wR and ^wp of a frame fixed to a link (model.Frame: its link's joint frame, or the
    base's for link 0, then its placement), steps named ``name``."""
    R, p = frames[frame.link - 1] if frame.link else base_frame(robot, b)
    return _composed(b, name, R, p, frame.placement)


# The kinematic quantities' outputs (see quantities.QUANTITIES), each a list of row-major lists.
def forward_kinematics_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    return [list(_transform(*tool_frame(robot, b)))]


def link_poses_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    frames = world_frames(robot, b)
    return [[e for i, ((R, p), F) in enumerate(zip(frames, file_frames(robot)), start=1)
             for e in _transform(*_composed(b, f"Rf{i}", R, p, F))]]


def jacobian_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    return [list(jacobian(robot, b))]


def pose_and_jacobian_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    """The frames derived once, for both."""
    frames = world_frames(robot, b)
    return [list(_transform(*tool_frame(robot, b, frames))), list(jacobian(robot, b, frames))]


def body_jacobian_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    frames = world_frames(robot, b)
    R_tool, _ = tool_frame(robot, b, frames)
    J = jacobian(robot, b, frames)
    body = _times(sympy.diag(R_tool.T, R_tool.T), J)
    return [[b.define(f"Jb{r + 1}_{c + 1}", body[r, c])
             for r in range(6) for c in range(robot.dof)]]


def frame_poses_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    poses = named_frames(robot, b, world_frames(robot, b))
    return [[e for R, p in poses for e in _transform(R, p)]]


def _frame_jacobians(robot: Robot, b: ProgramBuilder) -> list[sympy.Matrix]:
    frames = world_frames(robot, b)
    return [point_jacobian(robot, b, frames, frame.link, p, f"F{k}_")
            for k, (frame, (_, p)) in enumerate(zip(robot.frames,
                                                    named_frames(robot, b, frames)), start=1)]


def frame_jacobians_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    return [[e for J in _frame_jacobians(robot, b) for e in J]]


def frame_jacobians_dot_qd_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    velocity = [b.define(f"F{k}_v{r}", e)
                for k, J in enumerate(_frame_jacobians(robot, b), start=1)
                for r, e in enumerate(_times(J, robot.qd))]
    return [directional_derivative(b, velocity, rates(robot, b), "_dt")]


def jacobian_dot_qd_outputs(robot: Robot, b: ProgramBuilder) -> list[list]:
    J = jacobian(robot, b)
    velocity = [b.define(f"v{k}", e) for k, e in enumerate(_times(J, robot.qd))]
    return [directional_derivative(b, velocity, rates(robot, b), "_dt")]


def rates(robot: Robot, b: ProgramBuilder) -> dict:
    """d/dt of each configuration symbol at the velocity qd, named: each joint's kind's rates
    (robot/joints.py: a joint variable's is its velocity; a quaternion's and a floating base's
    position's are products)."""
    return {s: b.define(f"{s}_dt", r) for kind, q, v in _joints(robot)
            for s, r in kind.rates(q, v).items()}


def slot_tangents(robot: Robot, b: ProgramBuilder) -> list[dict]:
    """Each link velocity's direction in the configuration (a Robot.slots list), {symbol:
    rate}: its joint kind's rates for that unit velocity (robot/joints.py: a one-axis joint's
    moves its variable, a spherical joint's its quaternion as the joint turns about that axis
    of its frame, a floating base's its position and quaternion). The derivative of a program
    of q along one is the column of its Jacobian that maps that velocity (Pinocchio's
    tangent-space derivatives)."""
    out = []
    for kind, q, _ in _joints(robot):
        for k in range(kind.nv):
            unit = [int(k == r) for r in range(kind.nv)]
            out.append(_named_rates(b, kind.rates(q, unit), len(out)))
    return out


def _joints(robot: Robot) -> list[tuple]:
    """(kind, configuration symbols, velocity symbols) of each joint, a floating base's first."""
    root = robot.root
    return ([(joints.FREE_FLYER, root.configuration, root.velocity)] if root else []) + [
        (link.kind, link.configuration, link.velocities) for link in robot.links]


def _named_rates(b: ProgramBuilder, rates: dict, k: int) -> dict:
    """{symbol: its rate along velocity k, named}."""
    return {s: b.define(f"{s}_d{k + 1}", rate) for s, rate in rates.items()}

