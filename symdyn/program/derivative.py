"""Forward-mode differentiation of a straight-line program, written as more named steps.

Each assignment ``x = f(y1, ..., ym)`` gets a tangent ``dx = sum_j df/dy_j dy_j``, built from
sympy's derivative of the small right-hand side and the tangents already known, so the derivative
of a program is another program of about the same size, not a differentiated closed form. The
builder's value numbering turns d sin(q_i) = cos(q_i) dq_i into the existing C_i.
"""
from __future__ import annotations

import functools

import symengine
import sympy

from .builder import ProgramBuilder
from .program import support, symbols_in
from .symengine_form import as_engine, by_name, to_sympy


def directional_derivative(b: ProgramBuilder, targets, tangents, suffix: str) -> list:
    """The tangents of the expressions ``targets`` of ``b``'s symbols, as new named steps.

    ``tangents`` maps input symbols to their direction ({q_i: qd_i} gives d/dt, {q_j: 1} gives
    d/dq_j); each new step is named ``{symbol}{suffix}``.
    """
    return directional_derivatives(b, targets, [tangents], [suffix])[0]


def directional_derivatives(b: ProgramBuilder, targets, directions, suffixes) -> list[list]:
    """``directional_derivative`` along several directions in one sweep, each right-hand side
    differentiated once for all of them. The tangents are summed in symengine, and become sympy
    once, as steps of ``b``."""
    targets = [sympy.sympify(t) for t in targets]
    dots = [{s: as_engine(t) for s, t in tangents.items() if t != 0}
            for tangents in directions]
    # Which directions move each symbol: most steps move along few of many directions (the
    # regressor's 10 n parameters), and only those are visited.
    moved_along: dict[sympy.Symbol, set[int]] = {}
    for k, dot in enumerate(dots):
        for s in dot:
            moved_along.setdefault(s, set()).add(k)
    calls = _calls(b)
    for a in support(b.assignments, targets):
        symbols = sorted(symbols_in((a.rhs,)), key=by_name)   # str would run the printer
        partial = _partials(b.engine_form(a.rhs), calls)
        for k in sorted(set().union(*(moved_along.get(y, ()) for y in symbols))):
            dot = dots[k]
            tangent = b.define(f"{a.lhs.name}{suffixes[k]}", symengine.Add(*(
                partial(y) * dot[y] for y in symbols if y in dot)))
            if tangent != 0:
                dot[a.lhs] = as_engine(tangent)
                moved_along.setdefault(a.lhs, set()).add(k)
    partials = [_partials(b.engine_form(t), calls) for t in targets]
    return [[to_sympy(symengine.Add(*(partial(y) * dot[y] for y in sorted(
        symbols_in((t,)), key=by_name) if y in dot))) for t, partial in zip(targets, partials)]
        for dot in dots]


def jacobian(b: ProgramBuilder, values, symbols, name: str) -> sympy.Matrix:
    """d values / d symbols, each column one forward-mode pass of the program."""
    columns = directional_derivatives(b, values, [{s: 1} for s in symbols],
                                      [f"_{name}{j + 1}" for j in range(len(symbols))])
    return sympy.Matrix(len(values), len(symbols), lambda i, j: columns[j][i])


def _calls(b: ProgramBuilder) -> dict:
    """{a function call: the symbol of the step that computes it} (the sines and cosines of
    the joints): a partial derivative reads those steps (d sin(q) = cos(q) dq, and cos(q) is a
    step), where in a sum or product the builder would not find them, and each would be
    computed again (Solo-12's constrained derivatives: 24 more calls of sin and cos)."""
    return {b.engine_form(a.rhs): as_engine(a.lhs) for a in b.assignments
            if isinstance(a.rhs, sympy.Function)}


def _partials(engine, calls=None):
    """y -> d engine / d y, each computed once, by symengine (many times faster than sympy on
    large expressions); with ``calls``, the function calls in it that steps compute read as
    those steps' symbols."""
    @functools.cache
    def partial(y):
        value = engine.diff(as_engine(y))
        return value.xreplace(calls) if calls else value
    return partial
