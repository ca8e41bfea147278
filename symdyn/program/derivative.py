"""Forward-mode differentiation of a straight-line program, written as more named steps.

Each assignment ``x = f(y1, ..., ym)`` gets a tangent ``dx = sum_j df/dy_j dy_j``, built from
sympy's derivative of the small right-hand side and the tangents already known, so the derivative
of a program is another program of about the same size, not a differentiated closed form. The
builder's value numbering turns d sin(q_i) = cos(q_i) dq_i into the existing C_i.
"""
from __future__ import annotations

import symengine
import sympy

from .builder import ProgramBuilder


def directional_derivative(b: ProgramBuilder, targets, tangents, suffix: str) -> list:
    """The tangents of the expressions ``targets`` of ``b``'s symbols, as new named steps.

    ``tangents`` maps input symbols to their direction ({q_i: qd_i} gives d/dt, {q_j: 1} gives
    d/dq_j); each new step is named ``{symbol}{suffix}``.
    """
    targets = [sympy.sympify(t) for t in targets]
    dot = {s: sympy.sympify(t) for s, t in tangents.items() if t != 0}
    for a in _support(b.assignments, targets):
        moving = sorted((y for y in a.rhs.free_symbols if y in dot), key=str)
        if moving:
            tangent = b.define(f"{a.lhs}{suffix}", sympy.Add(
                *(_diff(a.rhs, y) * dot[y] for y in moving)))
            if tangent != 0:
                dot[a.lhs] = tangent
    return [sympy.Add(*(_diff(t, y) * dot[y]
                        for y in sorted(t.free_symbols, key=str) if y in dot)) for t in targets]


def jacobian(b: ProgramBuilder, values, symbols, name: str) -> sympy.Matrix:
    """d values / d symbols, each column one forward-mode pass of the program."""
    columns = [directional_derivative(b, values, {s: 1}, f"_{name}{j + 1}")
               for j, s in enumerate(symbols)]
    return sympy.Matrix(len(values), len(symbols), lambda i, j: columns[j][i])


def _diff(expr, symbol):
    """d expr / d symbol by symengine, many times faster than sympy on large expressions."""
    return sympy.sympify(symengine.diff(symengine.sympify(expr), symengine.sympify(symbol)))


def _support(assignments, targets):
    """The assignments the targets depend on, in program order."""
    needed = set().union(*(t.free_symbols for t in targets))
    support = []
    for a in reversed(assignments):
        if a.lhs in needed:
            support.append(a)
            needed |= a.rhs.free_symbols
    return reversed(support)
