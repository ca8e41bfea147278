"""Link placements and forward kinematics in the joint frames, as named steps."""
from __future__ import annotations

import sympy

from ..program.builder import ProgramBuilder
from ..robot.model import Link, Robot


def placement(link: Link, b: ProgramBuilder):
    """^{i-1}R_i and ^{i-1}P_i, with sin(q_i) and cos(q_i) computed once as S_i and C_i."""
    trig = {}
    if link.revolute:
        trig = {sympy.sin(link.q): b.define(f"S{link.index}", sympy.sin(link.q)),
                sympy.cos(link.q): b.define(f"C{link.index}", sympy.cos(link.q))}
    return sympy.Matrix(link.rotation).xreplace(trig), sympy.Matrix(link.position)


def forward_kinematics(robot: Robot, b: ProgramBuilder):
    """^0R_i and ^0p_i of every joint frame, composed link by link: ^0T_i = ^0T_{i-1} ^{i-1}T_i."""
    R0, p0 = sympy.eye(3), sympy.zeros(3, 1)
    frames = []
    for link in robot.links:
        i = link.index
        R, P = placement(link, b)
        p0 = b.vector(f"p{i}", p0 + R0 * P)
        R0 = sympy.Matrix(3, 3, lambda r, c, R0=R0: b.define(
            f"R{i}_{'xyz'[r]}{'xyz'[c]}", (R0 * R)[r, c]))
        frames.append((R0, p0))
    return frames
