"""Differentiation of a straight-line program, written as more named steps, forward or reverse.

Forward: each assignment ``x = f(y1, ..., ym)`` gets a tangent ``dx = sum_j df/dy_j dy_j`` per
direction, built from symengine's derivative of the small right-hand side and the tangents
already known, so the derivative of a program is another program of about the same size, not a
differentiated closed form. The builder's value numbering turns d sin(q_i) = cos(q_i) dq_i into
the existing C_i.

Reverse: each target instead gets an adjoint of every step it reads, ``x_bar`` (d target / d x),
passed back from the steps that read x, ``y_bar += df/dy x_bar``, and a direction's derivative
is the adjoints of the symbols it moves, weighted by their rates. Forward costs about a sweep per
direction, reverse a sweep per target: the regressor's 10 n parameters of a chain's n torques
are the case for reverse (a 64-joint chain's: 114,000 multiplications instead of 271,000), a
floating base's short branches the case for forward. ``derivatives`` counts the products each
would write and takes the fewer.
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


def reverse_derivatives(b: ProgramBuilder, targets, directions, suffix: str) -> list[list]:
    """What ``directional_derivatives`` gives, by reverse mode: for each target, the adjoints of
    the steps it reads that move along some direction, each a new step named
    ``{symbol}{suffix}{k}`` for the k-th target (from 1), then each direction's derivative as
    the sum of its symbols' adjoints times their rates."""
    targets = [sympy.sympify(t) for t in targets]
    rates = [{as_engine(s): as_engine(t) for s, t in tangents.items() if t != 0}
             for tangents in directions]
    calls = _calls(b)
    moved = set().union(*(tangents.keys() for tangents in directions))
    active = []         # (step, the symbols it reads that move, its partials)
    for a in support(b.assignments, targets):
        symbols = [y for y in sorted(symbols_in((a.rhs,)), key=by_name) if y in moved]
        if symbols:
            moved.add(a.lhs)
            active.append((a, symbols, _partials(b.engine_form(a.rhs), calls)))
    rows = []
    for k, target in enumerate(targets, start=1):
        partial = _partials(b.engine_form(target), calls)
        bar = {y: partial(y) for y in sorted(symbols_in((target,)), key=by_name) if y in moved}
        for a, symbols, partial in reversed(active):
            adjoint = bar.pop(a.lhs, None)
            if adjoint is None:
                continue
            adjoint = as_engine(b.define(f"{a.lhs.name}{suffix}{k}", adjoint))
            if adjoint == 0:
                continue
            for y in symbols:
                term = partial(y) * adjoint
                bar[y] = bar[y] + term if y in bar else term
        given = {as_engine(y): value for y, value in bar.items()}
        rows.append([to_sympy(symengine.Add(*(given[s] * rate for s, rate in tangents.items()
                                              if s in given))) for tangents in rates])
    return [list(column) for column in zip(*rows)] if rows else [[] for _ in directions]


def derivatives(b: ProgramBuilder, targets, directions, suffixes, suffix: str) -> list[list]:
    """``directional_derivatives`` (named by ``suffixes``) or ``reverse_derivatives`` (named
    by ``suffix``), whichever writes the fewer products (``products``)."""
    forward, reverse = products(b, targets, directions)
    if reverse < forward:
        return reverse_derivatives(b, targets, directions, suffix)
    return directional_derivatives(b, targets, directions, suffixes)


def products(b: ProgramBuilder, targets, directions) -> tuple[int, int]:
    """The products of a partial derivative and a tangent or an adjoint that forward and
    reverse mode would write, from which symbols each step reads (no algebra): forward, one
    for each direction moving each symbol a step reads (none for a direction's own symbol at
    the rate 1, whose tangent is the partial itself); reverse, one for each target reading
    each step, for each moving symbol it reads, and one for each target and each symbol a
    direction moves at another rate. A sum of them is what CSE leaves of either, nearly: for
    the robots tried, the one with fewer products had the fewer multiplications optimized."""
    targets = [sympy.sympify(t) for t in targets]
    along: dict = {}            # symbol -> the directions moving it, as bits
    rated: dict = {}            # a direction's own symbol -> how many move it at a rate not 1
    for k, tangents in enumerate(directions):
        for s, rate in tangents.items():
            if rate != 0:
                along[s] = along.get(s, 0) | 1 << k
                rated[s] = rated.get(s, 0) + (rate != 1)
    forward, reads = 0, []
    for a in support(b.assignments, targets):
        symbols = [y for y in symbols_in((a.rhs,)) if y in along]
        if symbols:
            moving = 0
            for y in symbols:
                moving |= along[y]
                forward += rated[y] if y in rated else _count(along[y])
            along[a.lhs] = moving
            reads.append((a.lhs, symbols))
    read_by: dict = {}          # symbol -> the targets reading it, as bits
    for r, target in enumerate(targets):
        for y in symbols_in((target,)):
            if y in along:
                read_by[y] = read_by.get(y, 0) | 1 << r
    reverse = 0
    for lhs, symbols in reversed(reads):
        readers = read_by.get(lhs, 0)
        reverse += _count(readers) * len(symbols)
        for y in symbols:
            read_by[y] = read_by.get(y, 0) | readers
    reverse += sum(_count(read_by.get(s, 0)) * count for s, count in rated.items())
    return forward, reverse


def _count(bits: int) -> int:
    """How many bits ``bits`` has set."""
    return bin(bits).count("1")


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
