"""Denavit-Hartenberg transforms, in both conventions.

Standard (Spong, Paul):  ^{i-1}T_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)
Modified (Craig):        ^{i-1}T_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)

>>> import sympy
>>> q = sympy.Symbol("q")
>>> link_transform("modified", a=1, alpha=0, d=0, theta=q)[:3, 3].T
Matrix([[1, 0, 0]])
"""
from __future__ import annotations

import sympy


def rot_x(angle) -> sympy.Matrix:
    c, s = sympy.cos(angle), sympy.sin(angle)
    return sympy.Matrix([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]])


def rot_z(angle) -> sympy.Matrix:
    c, s = sympy.cos(angle), sympy.sin(angle)
    return sympy.Matrix([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def rot_y(angle) -> sympy.Matrix:
    c, s = sympy.cos(angle), sympy.sin(angle)
    return sympy.Matrix([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]])


def pose(xyz, rpy) -> sympy.Matrix:
    """The homogeneous transform of a placement as URDF gives it: translation ``xyz``, then
    R = Rz(yaw) Ry(pitch) Rx(roll) for ``rpy`` = (roll, pitch, yaw)."""
    roll, pitch, yaw = rpy
    T = rot_z(yaw) * rot_y(pitch) * rot_x(roll)
    T[:3, 3] = sympy.Matrix(xyz)
    return T


def trans_x(distance) -> sympy.Matrix:
    return sympy.Matrix([[1, 0, 0, distance], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def trans_z(distance) -> sympy.Matrix:
    return sympy.Matrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, distance], [0, 0, 0, 1]])


def link_transform(convention: str, *, a, alpha, d, theta) -> sympy.Matrix:
    """^{i-1}T_i for one row of the table, in the row's own convention."""
    if convention == "standard":
        return rot_z(theta) * trans_z(d) * trans_x(a) * rot_x(alpha)
    if convention == "modified":
        return rot_x(alpha) * trans_x(a) * rot_z(theta) * trans_z(d)
    raise ValueError(f"unknown DH convention {convention!r}")
