"""The recursions' arithmetic: symengine's matrices and expressions.

Newton-Euler, the composite-body algorithms and the LDL^T solves multiply thousands of 3x3 matrices,
symengine does that many times faster than sympy (whose small products go through DomainMatrix).
Programs stay in sympy's form: each named step goes through the builder, which expands it and
brings it back as sympy's, and what the builder returns comes back here as symengine's.
"""
from __future__ import annotations

import symengine

from ..program.builder import ProgramBuilder
from ..program.symengine_form import as_engine
from ..robot.model import Link
from . import kinematics

Matrix = symengine.DenseMatrix
Z = symengine.ImmutableMatrix([0, 0, 1])     # shared: never to be written into


def define(b: ProgramBuilder, name: str, value, expand: bool = True,
           irreducible: bool = False):
    """``b.define``, as symengine's."""
    return as_engine(b.define(name, value, expand, irreducible))


def placement(link: Link, b: ProgramBuilder) -> tuple[Matrix, Matrix]:
    """``kinematics.placement``, as symengine's."""
    return tuple(Matrix(x) for x in kinematics.placement(link, b))


def vector(b: ProgramBuilder, name: str, values, expand: bool = True) -> Matrix:
    """``b.vector``, as symengine's."""
    return Matrix([as_engine(v) for v in b.components(name, values, expand)])
