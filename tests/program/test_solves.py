"""Columns solved after a program's steps (program.Solve, derive.factors.solve_columns): with a
tree's factors, against numpy's dense solve of the same M, as the evaluator reads them and
unrolled (program/solves.py); their loop's operations; and the programs that may not hold
one."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import symengine
import sympy

from symdyn.derive.factors import LOOP_COLUMNS, LTDL, solve_columns
from symdyn.emit.context import function_code
from symdyn.emit.printers import CPrinter
from symdyn.program import Argument, evaluate, op_count
from symdyn.program.builder import ProgramBuilder
from symdyn.program.program import compose, view
from symdyn.program.solves import unrolled

# a floating base's six coordinates in a chain, then two legs of three and an arm of two
PARENTS = (-1, 0, 1, 2, 3, 4, 5, 6, 7, 5, 9, 10, 5, 12)


def solving(parents, columns: int, zeros=()):
    """A program whose output ``x`` (n x columns) is solved with symbolic factors: its inputs
    L's entries, 1/D and the right-hand sides, each column's own symbols but at ``zeros``
    ((row, column) pairs, 0-based), where the right-hand side is 0."""
    n = len(parents)
    L = {kj: sympy.Symbol(f"L{kj[0]}_{kj[1]}") for kj in pattern(parents)}
    inv_d = [sympy.Symbol(f"iD{k}") for k in range(n)]
    rhs = [sympy.Integer(0) if (i, c) in zeros else sympy.Symbol(f"b{i}_{c}")
           for i in range(n) for c in range(columns)]
    b = ProgramBuilder()
    # a step of the program's own, so that the solve reads values its steps set
    scaled = [b.define(f"s{i}", 2 * v) for i, v in enumerate(rhs)]
    factors = LTDL({kj: symengine.sympify(s) for kj, s in L.items()},
                   [symengine.sympify(s) for s in inv_d], parents)
    (x,) = solve_columns(b, {"x": scaled}, columns, factors, lambda kb, f, column, suffix:
                         f.solve(kb, column, f"x{{}}{suffix}", f"z{{}}{suffix}"), "solve")
    inputs = (Argument.vector("L", L.values()), Argument.vector("iD", inv_d),
              Argument.vector("b", [v for v in rhs if v != 0]))
    return b.program("solving", inputs, [Argument("x", tuple(x), (n, columns))]), L, inv_d


def ancestors(parents, k):
    return [] if parents[k] < 0 else [parents[k], *ancestors(parents, parents[k])]


def pattern(parents):
    """L's entries (k, j): j supports k."""
    return [(k, j) for k in range(len(parents)) for j in ancestors(parents, k)]


def values_of(parents, columns, rng):
    """Numbers for ``solving``'s inputs, and the dense M = L^T D L they make."""
    n = len(parents)
    L = np.eye(n)
    for k, j in pattern(parents):
        L[k, j] = rng.uniform(-1, 1)
    d = rng.uniform(0.5, 2, n)
    return L, d, rng.normal(size=(n, columns))


@pytest.mark.parametrize("parents", [PARENTS, (-1, 0, 1, 2), (-1, 0, 0, 1, 1)])
@pytest.mark.parametrize("columns", [LOOP_COLUMNS + 1, LOOP_COLUMNS - 3])
def test_the_solved_output_is_numpys_solve_of_M(parents, columns):
    """Enough columns for a loop (a Solve) or too few (solved in the derivation's steps)."""
    rng = np.random.default_rng(len(parents))
    n = len(parents)
    zeros = {(0, 1), (n - 1, 1), (2, 3)} | {(i, 4) for i in range(n)}
    program, L_symbols, iD_symbols = solving(parents, columns, zeros)
    assert bool(program.solves) == (columns >= LOOP_COLUMNS)
    L, d, B = values_of(parents, columns, rng)
    for i, c in zeros:
        B[i, c] = 0.0
    point = {s: L[kj] for kj, s in L_symbols.items()}
    point.update(zip(iD_symbols, 1 / d))
    point.update((sympy.Symbol(f"b{i}_{c}"), B[i, c]) for i in range(n) for c in range(columns)
                 if (i, c) not in zeros)
    expected = np.linalg.solve(L.T @ np.diag(d) @ L, 2 * B)
    np.testing.assert_allclose(evaluate(program, point, "x"), expected, rtol=1e-12, atol=1e-12)
    # unrolled, the factors are no output and each entry a step's (or 0: a zero column)
    plain = unrolled(program)
    assert [out.name for out in plain.outputs] == ["x"] and not plain.solves
    np.testing.assert_allclose(evaluate(plain, point, "x"), expected, rtol=1e-12, atol=1e-12)
    assert all(v == 0 for v in plain.output("x").values[4::columns])


def test_unrolled_skips_the_zeros_the_loop_computes():
    """The loop solves every entry of every column (vectorized over the columns); the steps
    unrolled skip the zeros of the right-hand sides: a column of zeros costs nothing."""
    n, columns = len(PARENTS), LOOP_COLUMNS
    program, _, _ = solving(PARENTS, columns, {(i, columns - 1) for i in range(n)})
    entries = len(pattern(PARENTS))
    loop = op_count(program)
    steps = op_count(replace(program, solves=()))
    assert loop.mul - steps.mul == columns * (2 * entries + n)
    assert loop.add - steps.add == columns * 2 * entries
    plain = op_count(unrolled(program))
    assert plain.mul - steps.mul == (columns - 1) * (2 * entries + n)


def test_a_program_that_solves_is_neither_composed_nor_viewed():
    program, _, _ = solving((-1, 0, 0), LOOP_COLUMNS)
    with pytest.raises(ValueError, match="solves"):
        compose("both", program.inputs, [program])
    with pytest.raises(ValueError, match="solves"):
        view(program, "part", program.inputs, program.outputs[:1])
    with pytest.raises(ValueError, match="unroll"):
        program.expanded("x")


def test_a_loop_leaves_out_the_columns_of_zeros_at_either_end():
    """A solve leaves a column of zeros zero: C's loop runs from the first column with a
    nonzero to the last."""
    n, columns = len(PARENTS), LOOP_COLUMNS + 3
    zeros = {(i, c) for i in range(n) for c in (0, 1, 5, columns - 1)}
    program, _, _ = solving(PARENTS, columns, zeros)
    (loop,) = function_code(program, "", CPrinter(), c_layout=True).solves
    assert loop.columns == (2, columns - 1)
