"""Inertia of simple solids, and of a link made of several: the Handbook's table of moments of
inertia (Springer Handbook of Robotics, chapter 2 on dynamics, the table of uniform solids),
combined by the parallel-axis theorem.

Each solid is uniform, given by its kind and dimensions in its own frame (a cylinder's and a
rod's axis along its z, unless ``axis`` says x or y), placed in the link frame by ``xyz`` and
``rpy``, with a mass or a density (kg/m^3; kg/m for a thin rod). A link made of solids gets the
ten inertial parameters in the form that is linear in them: its mass, first moment m c and
inertia about the link frame's origin, exact and symbolic where the dimensions are.

>>> import sympy
>>> box = Solid("box", {"x": 2, "y": 2, "z": 2}, sympy.Integer(12), (0, 0, 0), (0, 0, 0))
>>> box.inertia_com()
Matrix([
[8, 0, 0],
[0, 8, 0],
[0, 0, 8]])
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from ..spatial import Inertia, Placement
from .dh import pose

# kind -> its dimensions, in the order a list gives them
KINDS = {
    "box": ("x", "y", "z"),
    "cylinder": ("radius", "length"),
    "hollow_cylinder": ("inner", "outer", "length"),
    "sphere": ("radius",),
    "rod": ("length",),
}
AXES = {"x": (0, sympy.pi / 2, 0), "y": (-sympy.pi / 2, 0, 0), "z": (0, 0, 0)}   # z onto it


@dataclass(frozen=True)
class Solid:
    kind: str
    size: dict            # dimension name -> expression
    mass: sympy.Expr
    xyz: tuple            # the solid's frame in the link frame
    rpy: tuple
    axis: str = "z"       # a cylinder's or rod's axis in its own frame

    @classmethod
    def with_density(cls, kind, size, density, xyz, rpy, axis="z") -> "Solid":
        return cls(kind, size, density * volume(kind, size), xyz, rpy, axis)

    def inertia_com(self) -> sympy.Matrix:
        """About the centre of mass, in the solid's own frame (the axis along z)."""
        m, s = self.mass, self.size
        if self.kind == "box":
            x, y, z = s["x"], s["y"], s["z"]
            return sympy.diag(m * (y**2 + z**2), m * (x**2 + z**2), m * (x**2 + y**2)) / 12
        if self.kind == "cylinder":
            r, h = s["radius"], s["length"]
            across = m * (3 * r**2 + h**2) / 12
            return sympy.diag(across, across, m * r**2 / 2)
        if self.kind == "hollow_cylinder":
            r2 = s["inner"]**2 + s["outer"]**2
            across = m * (3 * r2 + s["length"]**2) / 12
            return sympy.diag(across, across, m * r2 / 2)
        if self.kind == "sphere":
            return sympy.eye(3) * 2 * m * s["radius"]**2 / 5
        if self.kind == "rod":
            across = m * s["length"]**2 / 12
            return sympy.diag(across, across, 0)
        raise ValueError(f"unknown solid {self.kind!r}")

    def placement(self) -> tuple[sympy.Matrix, sympy.Matrix]:
        """The rotation of the solid's axes in the link frame, and its centre there."""
        T = pose(self.xyz, self.rpy) * pose((0, 0, 0), AXES[self.axis])
        return T[:3, :3], T[:3, 3]


def volume(kind: str, size: dict) -> sympy.Expr:
    if kind == "box":
        return size["x"] * size["y"] * size["z"]
    if kind == "cylinder":
        return sympy.pi * size["radius"]**2 * size["length"]
    if kind == "hollow_cylinder":
        return sympy.pi * (size["outer"]**2 - size["inner"]**2) * size["length"]
    if kind == "sphere":
        return 4 * sympy.pi * size["radius"]**3 / 3
    if kind == "rod":                      # a line: its density is per metre
        return size["length"]
    raise ValueError(f"unknown solid {kind!r}")


def combined(solids) -> tuple[sympy.Expr, tuple, tuple]:
    """Mass, first moment m c and inertia about the link frame's origin (Ixx, Iyy, Izz, Ixy,
    Iyz, Ixz) of solids fixed together: each moved to the origin by the parallel-axis theorem,
    J_O = R I_c R^T + m (|c|^2 E - c c^T), then summed."""
    body = Inertia(sympy.Integer(0), sympy.zeros(3, 1), sympy.zeros(3, 3))
    for solid in solids:
        alone = Inertia(solid.mass, sympy.zeros(3, 1), solid.inertia_com())
        body = body + Placement(*solid.placement()).act_inertia(alone)
    J = body.inertia_origin.applyfunc(sympy.expand)
    return (sympy.expand(body.mass), tuple(sympy.expand(v) for v in body.first_moment),
            (J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2], J[0, 2]))
