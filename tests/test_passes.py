"""Each pass alone: it keeps the program's values and does its one job."""
from __future__ import annotations

import numpy as np
import sympy

import symdyn
from symdyn.program import Argument, Assignment, Program, op_count
from symdyn.program.passes import (eliminate_common_subexpressions, eliminate_dead_code,
                                   propagate_copies)
from support import ROBOTS

x, y, z, a, b, c, d = sympy.symbols("x y z a b c d")


def program(assignments, outputs):
    return Program("f", (Argument.vector("in", (x, y, z)),),
                   tuple(Assignment(lhs, rhs) for lhs, rhs in assignments),
                   (Argument.vector("out", outputs),))


def evaluate(p: Program, values):
    env = {s: sympy.Float(v, 30) for s, v in values.items()}
    for assignment in p.assignments:
        env[assignment.lhs] = assignment.rhs.xreplace(env).evalf(30)
    return [float(sympy.sympify(v).xreplace(env)) for v in p.outputs[0].values]


def same_values(p1, p2):
    values = {x: 0.3, y: -1.7, z: 2.2}
    np.testing.assert_allclose(evaluate(p1, values), evaluate(p2, values), rtol=1e-14)


def test_propagate_copies_inlines_numbers_symbols_and_negations():
    p = program([(a, sympy.Integer(2)), (b, -x), (c, a * b + y), (d, c)], (d, b))
    q = propagate_copies(p)
    assert [str(s.lhs) for s in q.assignments] == ["c"]
    assert q.assignments[0].rhs == -2 * x + y
    assert q.outputs[0].values == (c, -x)
    same_values(p, q)


def test_dead_code_is_removed_and_live_code_kept():
    p = program([(a, x * y), (b, a * z), (c, x + y)], (b,))
    q = eliminate_dead_code(p)
    assert [str(s.lhs) for s in q.assignments] == ["a", "b"]
    same_values(p, q)


def test_cse_shares_subexpressions_across_assignments_and_outputs():
    p = program([(a, x * y + z), (b, sympy.sin(x * y) * z)], (a + b, x * y * z))
    q = eliminate_common_subexpressions(p)
    assert op_count(q).mul < op_count(p).mul
    names = [str(s.lhs) for s in q.assignments]
    assert names[0] == "t0" and q.assignments[0].rhs == x * y      # placed before its first use
    same_values(p, q)


def test_cse_temporaries_do_not_clash_with_existing_names():
    t0 = sympy.Symbol("t0")
    p = Program("f", (Argument.vector("in", (x, y, t0)),), (Assignment(a, x * y + t0),),
                (Argument.vector("out", (a, x * y * t0)),))
    q = eliminate_common_subexpressions(p)
    assert "t0" not in [str(s.lhs) for s in q.assignments]


def test_op_count_counts_as_the_printed_code_computes():
    p = program([(a, x * y * z - x), (b, x**3 + 2 * y)], (a + b, sympy.sin(x)))
    # a: 2 mul 1 add; b: 2 mul (x*x*x) + 1 mul (2*y), 1 add; out: 1 add, 1 call
    assert op_count(p) == symdyn.program.OpCount(mul=5, add=3, calls=1)


def test_optimize_reduces_puma_without_changing_tau():
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    raw = symdyn.newton_euler(robot).program
    optimized = symdyn.optimize(raw)
    assert op_count(optimized).mul < op_count(raw).mul
    assert op_count(optimized).add < op_count(raw).add
    rng = np.random.default_rng(0)
    values = dict(zip(raw.input_symbols, rng.uniform(-2, 2, 18)))
    np.testing.assert_allclose(evaluate(raw, values), evaluate(optimized, values), rtol=1e-12)
