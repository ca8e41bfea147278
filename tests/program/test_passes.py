"""Each pass alone: it keeps the program's values and does its one job."""
from __future__ import annotations

import numpy as np
import pytest
import symengine
import sympy
from support import ROBOTS, exact_values, import_file

import symdyn
from symdyn.program import Argument, Assignment, Program, op_count, passes
from symdyn.program.passes import (
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fold_parameters,
    hoist_trigonometry,
    propagate_copies,
)

x, y, z, a, b, c, d, s_ = sympy.symbols("x y z a b c d s")


def program(assignments, outputs):
    return Program("f", (Argument.vector("in", (x, y, z)),),
                   tuple(Assignment(lhs, rhs) for lhs, rhs in assignments),
                   (Argument.vector("out", outputs),))


def same_values(p1, p2):
    values = {x: 0.3, y: -1.7, z: 2.2}
    np.testing.assert_allclose(exact_values(p1, values), exact_values(p2, values), rtol=1e-14)


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


def test_cse_drops_the_copies_it_leaves_and_merges_what_they_make_alike():
    # a becomes t0 = x*y + z; then c = t0 - a is 0, a copy too, and out = b + c*y is b
    p = program([(a, x * y + z), (b, (x * y + z) * x), (c, x * y + z - a)], (b + c * y, a))
    q = eliminate_common_subexpressions(p)
    t0 = sympy.Symbol("t0")
    assert [(str(s.lhs), s.rhs) for s in q.assignments] == [("t0", x * y + z), ("b", t0 * x)]
    assert q.outputs[0].values == (b, t0)
    same_values(p, q)



def test_cse_passes_irreducible_steps_by_and_a_changed_one_loses_the_hint():
    # b would share x*y with a; told irreducible, CSE leaves it as it is, and reads it only
    p = program([(a, x * y + z), (b, x * y * z + 2 * z)], (a + b,))
    hinted = Program(p.name, p.inputs, p.assignments, p.outputs,
                     irreducible=frozenset({x * y * z + 2 * z}))
    kept = eliminate_common_subexpressions(hinted)
    assert Assignment(b, x * y * z + 2 * z) in kept.assignments
    assert op_count(kept).mul > op_count(eliminate_common_subexpressions(p)).mul
    same_values(p, kept)
    # fixing z changes b's right-hand side: no longer the hinted one, it is searched again
    folded = eliminate_common_subexpressions(fold_parameters(hinted, {z: 3}))
    assert folded == eliminate_common_subexpressions(fold_parameters(p, {z: 3}))
    assert folded.assignments[0] == Assignment(sympy.Symbol("t0"), x * y)


def test_an_included_step_stays_irreducible_where_it_is_unchanged():
    from symdyn.program.builder import ProgramBuilder
    other = ProgramBuilder()
    u = other.define("u", x * y + z, irreducible=True)
    other.define("v", u * y + z, irreducible=True)
    other.define("w", u * z)
    b = ProgramBuilder()
    b.include(other, {})
    assert b.program("f", (), ()).irreducible == {x * y + z, u * y + z}
    b = ProgramBuilder()
    b.include(other, {z: c})             # both change: z is c here
    assert not b.program("f", (), ()).irreducible


def test_ldlt_solves_of_named_steps_are_irreducible_and_of_numbers_not():
    """A solve of named steps (forward dynamics' residuals) is marked, one of numbers is not;
    FD derivatives' products of M^-1 and inverse dynamics' derivatives are marked, and M^-1,
    whose products of L's entries recur, is searched."""
    from symdyn.derive.factors import LDLT
    from symdyn.program.builder import ProgramBuilder
    b = ProgramBuilder()
    symmetric = sympy.Matrix(3, 3, lambda i, j: sympy.Symbol(f"m{min(i, j)}{max(i, j)}"))
    factors = LDLT.factor(b, symmetric)
    before = len(b.assignments)
    factors.solve(b, [x, 0, -y])
    marked = b.program("f", (), ()).irreducible
    assert {a.rhs for a in b.assignments[before:]} == marked and len(marked) == 5   # y1 = x
    factors.solve(b, [1, 0, 0])
    assert b.program("f", (), ()).irreducible == marked
    program = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "puma560.yaml")).program(
        "forward_dynamics_derivatives")
    steps = {a.lhs: a.rhs for a in program.assignments}
    marked = {out.name: [steps[v] in program.irreducible for v in out.values if v in steps]
              for out in program.outputs}
    assert len(marked["Minv"]) == 36 and not any(marked["Minv"])
    assert marked["dqdd_dq"] == [True] * 30      # dtau/dq1 is zero (axis 1 is vertical)
    assert marked["dqdd_dqd"] == [True] * 36


@pytest.mark.parametrize("window", [2, 3])
def test_cse_in_windows_keeps_values_and_carries_copies_into_later_windows(monkeypatch, window):
    # a is a copy of a temporary of the first window (x*y + z, which b shares); the windows
    # after it read that temporary by its name
    monkeypatch.setattr(passes, "WINDOW", window)
    p = program([(a, x * y + z), (b, (x * y + z) * x), (c, x * y + z - a), (d, a * y + c)],
                (b + c * y, d, a))
    q = eliminate_common_subexpressions(p)
    assert a not in {s.lhs for s in q.assignments} and q.outputs[0].values[2] == sympy.Symbol("t0")
    same_values(p, q)


def test_cse_window_temporaries_are_not_taken_for_earlier_assignments_of_their_name(
        monkeypatch):
    # symengine names its temporaries x0, x1, ...: the first window's assignment x0 is a copy,
    # and the second window, which does not read it, calls its own temporary x0
    monkeypatch.setattr(passes, "WINDOW", 2)
    x0 = sympy.Symbol("x0")
    p = program([(x0, x * y + z), (b, (x * y + z) * x), (c, (y * z + x) * y),
                 (d, (y * z + x) * z)], (b, c + d, x0))
    same_values(p, eliminate_common_subexpressions(p))


def test_cse_window_temporaries_are_not_taken_for_assignments_of_their_name_it_copies(
        monkeypatch):
    # the first window calls y*z + x its temporary x0 and leaves the assignment x0 a copy of
    # x*y + z (read only by the second window): d must still read the temporary
    monkeypatch.setattr(passes, "WINDOW", 5)
    x0, e = sympy.symbols("x0 e")
    p = program([(a, (y * z + x) * y), (b, (y * z + x) * z), (x0, x * y + z),
                 (c, (x * y + z) * x), (d, (y * z + x) * x), (e, x0 * y)], (a, b, c, d, e))
    same_values(p, eliminate_common_subexpressions(p))


def test_cse_window_temporaries_are_named_apart_from_what_earlier_copies_bring(monkeypatch):
    # c is a copy of the input x0 (c = t0 - a + x0, a = t0); the second window reads c only,
    # and must not call its own temporary x0
    monkeypatch.setattr(passes, "WINDOW", 3)
    x0, e = sympy.symbols("x0 e")
    p = Program("f", (Argument.vector("in", (x, y, z, x0)),), tuple(
        Assignment(lhs, rhs) for lhs, rhs in [
            (a, x * y + z), (b, (x * y + z) * x), (c, x * y + z - a + x0),
            (d, (y * z + x) * y), (e, (y * z + x) * z + c)]),
        (Argument.vector("out", (b, d, e, c)),))
    q = eliminate_common_subexpressions(p)
    values = {x: 0.3, y: -1.7, z: 2.2, x0: 0.9}
    np.testing.assert_allclose(exact_values(p, values), exact_values(q, values), rtol=1e-14)


def test_cse_in_windows_keeps_a_robots_values(monkeypatch):
    monkeypatch.setattr(passes, "WINDOW", 40)
    raw = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "puma560.yaml")).program("mass_matrix")
    windowed = symdyn.optimize(raw)
    monkeypatch.undo()
    whole = symdyn.optimize(raw)
    assert windowed != whole      # the windows are not one
    rng = np.random.default_rng(1)
    values = dict(zip(raw.input_symbols, rng.uniform(-2, 2, len(raw.input_symbols))))
    np.testing.assert_allclose(exact_values(windowed, values), exact_values(whole, values),
                               rtol=1e-12)

def test_cse_windows_end_at_a_budget_of_terms(monkeypatch):
    """Long sums close a window early (the search for shared sub-sums grows with the square
    of their length); the program keeps its values."""
    monkeypatch.setattr(passes, "WINDOW_TERMS", 12)
    long = [(a, sum(sympy.Symbol(f"s{k}") * x for k in range(8))),
            (b, sum(sympy.Symbol(f"s{k}") * x for k in range(6)) + y),
            (c, x * y + z), (d, (x * y + z) * a + b)]
    windows = passes._windows([symengine.sympify(rhs) for _, rhs in long])
    assert windows == [slice(0, 2), slice(2, 4)]
    p = Program("f", (Argument.vector("in", (x, y, z, *sympy.symbols("s0:8"))),),
                tuple(Assignment(lhs, rhs) for lhs, rhs in long), (Argument.vector("out", (d,)),))
    q = eliminate_common_subexpressions(p)
    rng = np.random.default_rng(2)
    values = dict(zip(p.input_symbols, rng.uniform(-2, 2, len(p.input_symbols))))
    np.testing.assert_allclose(exact_values(p, values), exact_values(q, values), rtol=1e-14)


def test_trigonometry_of_inputs_moves_to_the_top_in_order():
    p = program([(a, x * y), (b, sympy.sin(y)), (c, sympy.cos(a) + b), (d, sympy.cos(y))],
                (c, d))
    hoisted = hoist_trigonometry(p)
    assert [str(s.lhs) for s in hoisted.assignments] == ["b", "d", "a", "c"]
    same_values(p, hoisted)


def test_op_count_counts_as_the_printed_code_computes():
    p = program([(a, x * y * z - x), (b, x**3 + 2 * y)], (a + b, sympy.sin(x)))
    # a: 2 mul 1 add; b: 2 mul (x*x*x) + 1 mul (2*y), 1 add; out: 1 add, 1 call
    assert op_count(p) == symdyn.program.OpCount(mul=5, add=3, calls=1)


def test_entry_cost_counts_each_entrys_steps_again_and_stops_past_its_limit():
    # a = x*y (1), b = a + z (1): out (b, b*a, 2.5*x) reads 2, 3 (b*a, b, a once), 1
    p = program([(a, x * y), (b, a + z)], (b, b * a, 2.5 * x))
    assert passes.entry_cost(p, 100) == 6
    assert passes.entry_cost(p, 3) == 4      # counted only until it passes the limit
    assert passes.entry_cost(program([], (x, 1)), 100) == 0


def test_kept_values_are_the_sines_and_values_many_loops_would_compute_again():
    # s = sin(x), kept always; a = (xy + xz + yz)^2, 5 operations, read by c and d, each read
    # by three entries: computed 6 times, (6 - 1) * 5 = 25 outweighs a write's 20, kept; b, 1
    # operation, read the same: not; c and d, read three times: (3 - 1) * 2 (a kept), not
    square = (x * y + x * z + y * z) ** 2
    p = program([(s_, sympy.sin(x)), (a, square), (b, x + y), (c, a + b + s_), (d, a * b)],
                (c, 2 * c, 3 * c, d, 2 * d, 3 * d))
    assert passes.kept_values(p, 20) == {s_, a}
    assert passes.kept_values(p, 30) == {s_}           # a's 25 no longer outweighs a write
    assert passes.kept_values(program([(a, square)], (a,)), 0) == set()      # read once


def test_op_count_takes_a_float_factor_of_one_as_the_integers():
    # as a factor 1 or -1 (no multiplication); any other number is one
    one, minus = sympy.Float(1.0), sympy.Float(-1.0)
    for unit in (one, minus):
        p = program([(a, sympy.Mul(unit, x, y, evaluate=False))], (a,))
        assert op_count(p).mul == 1
    assert op_count(program([(a, sympy.Mul(sympy.Float(1.5), x, y))], (a,))).mul == 2


def test_facts_of_a_program_are_computed_once_and_not_carried_to_a_changed_one():
    p = program([(a, x * y)], (a,))
    calls = []

    def fact(prog):
        calls.append(prog)
        return len(prog.assignments)

    assert p.cached(fact) == 1 and p.cached(fact) == 1 and len(calls) == 1
    assert p.with_body([]).cached(fact) == 0 and len(calls) == 2
    assert p == program([(a, x * y)], (a,)) and hash(p) == hash(program([(a, x * y)], (a,)))


def test_optimize_reduces_puma_without_changing_tau():
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    raw = symdyn.newton_euler(robot).program()
    optimized = symdyn.optimize(raw)
    assert op_count(optimized).mul < op_count(raw).mul
    assert op_count(optimized).add < op_count(raw).add
    rng = np.random.default_rng(0)
    values = dict(zip(raw.input_symbols, rng.uniform(-2, 2, 18)))
    np.testing.assert_allclose(exact_values(raw, values), exact_values(optimized, values),
                               rtol=1e-12)


def test_optimizing_says_the_share_of_steps_done_and_the_time_it_has_left(monkeypatch):
    # three programs of 1, 1 and 2 steps, each taking 10 s on the clock the pass reads: the
    # second is announced at a quarter of the steps done with 30 s left, the third at half
    # with 20 s; the first has no rate to go by yet
    clock = iter([0, 0, 10, 20])    # at the start, then at each announcement
    monkeypatch.setattr(passes, "monotonic", lambda: next(clock))
    programs = [program([(a, x * y)], (a,)), program([(b, y * z)], (b,)),
                program([(c, x * z), (d, c * y)], (d,))]
    said = []
    passes.optimize_all(programs, progress=said.append)
    assert said == ["optimizing f (1 steps)",
                    "optimizing f (1 steps; 25% of all steps done, about 30 s of optimizing "
                    "left)",
                    "optimizing f (2 steps; 50% of all steps done, about 20 s of optimizing "
                    "left)"]


def test_less_than_a_second_left_is_not_said():
    assert passes._time_left(99, 100, 2.0) == ""
    assert passes._time_left(0, 100, 0.0) == ""


def test_programs_that_share_their_steps_are_optimized_once_and_each_pruned_to_its_own():
    shared = program([(a, x * y + z), (b, (x * y + z) * x), (c, x * y * z)], (b, a + c))
    part = Program("g", shared.inputs, shared.assignments,       # the same steps, some outputs
                   (Argument.vector("out", (a + c, c * c)),))
    alone = program([(d, x * y)], (d,))
    one, other, third = passes.optimize_all([shared, part, alone])
    assert one == symdyn.optimize(shared) and third == symdyn.optimize(alone)
    assert other.name == "g" and b not in {s.lhs for s in other.assignments}
    # the first program's temporaries serve the other's outputs
    assert {s.lhs for s in other.assignments} <= {s.lhs for s in one.assignments}
    values = {x: 0.3, y: -1.7, z: 2.2}
    np.testing.assert_allclose(exact_values(other, values), exact_values(part, values), rtol=1e-14)


def test_the_base_regressor_is_the_regressors_optimized_columns():
    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "puma560.yaml"))
    Y, Y_b = passes.optimize_all([dynamics.program("regressor"),
                                  dynamics.program("base_regressor")])
    assert Y == symdyn.optimize(dynamics.program("regressor"))
    p, columns = Y.outputs[0].shape[1], dynamics.base.columns
    assert Y_b.outputs[0].values == tuple(Y.outputs[0].values[i * p + k]
                                          for i in range(6) for k in columns)
    assert len(Y_b.assignments) < len(Y.assignments)


def test_fold_parameters_substitutes_folds_and_drops_the_inputs():
    m, g = sympy.symbols("m g")
    p = Program("f", (Argument.vector("in", (x,)), Argument.vector("params", (m, g))),
                (Assignment(a, m * x + g), Assignment(b, a * g * m), Assignment(c, g * x)),
                (Argument.vector("out", (b, c)),))
    q = fold_parameters(p, {g: sympy.Integer(0), m: sympy.Integer(1)})
    assert [arg.name for arg in q.inputs] == ["in"]            # no parameters left to pass
    assert [s.rhs for s in q.assignments] == [x, 0, 0]         # m*x + 0 -> x; products with 0
    optimized = symdyn.optimize(p, {g: 0, m: 1})
    assert optimized.assignments == () and optimized.outputs[0].values == (0, 0)
    half = fold_parameters(p, {m: sympy.Rational(1, 2)})
    assert [str(s) for s in half.inputs[1].values] == ["g"]


def test_generate_with_fixed_values(tmp_path):
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    dynamics = symdyn.newton_euler(robot)
    (path,) = symdyn.generate(dynamics, "python", tmp_path, values={"g": 9.81, "l1": "1/2"})
    module = import_file(path, "planar2_fixed")
    assert module.PARAMETERS == ("m1", "m2", "l2")
    assert "Fixed at generation: g = 9.81, l1 = 0.5." in path.read_text()
    full = symdyn.generate(dynamics, "python", tmp_path / "full")[0]
    reference = import_file(full, "planar2_full")
    rng = np.random.default_rng(5)
    q, qd, qdd = (rng.uniform(-2, 2, (20, 2)) for _ in range(3))
    np.testing.assert_allclose(module.inverse_dynamics(q, qd, qdd, [1.0, 2.0, 0.7]),
                               reference.inverse_dynamics(q, qd, qdd, [1.0, 2.0, 0.5, 0.7, 9.81]),
                               rtol=1e-13)
    with pytest.raises(symdyn.EmitError, match="'l3' is not a free symbol"):
        symdyn.generate(dynamics, "python", tmp_path, values={"l3": 1})
    with pytest.raises(symdyn.EmitError, match="must be a number"):
        symdyn.generate(dynamics, "python", tmp_path, values={"g": "m1"})


def test_generation_leaves_the_cycle_collector_as_it_found_it(tmp_path):
    import gc
    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "planar2.yaml"))
    seen = []
    progress = lambda message: seen.append(gc.isenabled())      # noqa: E731
    assert gc.isenabled()
    symdyn.generate(dynamics, "python", tmp_path / "on", quantities=["mass_matrix"],
                    progress=progress)
    assert gc.isenabled() and seen and not any(seen)          # paused while it worked
    gc.disable()
    try:
        symdyn.generate(dynamics, "python", tmp_path / "off", quantities=["mass_matrix"])
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(symdyn.EmitError):                       # and after a failure too
        symdyn.generate(dynamics, "python", tmp_path, values={"nope": 1})
    assert gc.isenabled()


@pytest.mark.parametrize("expr", [
    x * y + 2 * z, x**2 * sympy.sin(y + z) - 3, x * (y + z), (x + y)**2 * z,
    x / (y + z), (x * y)**3 + sympy.Rational(1, 2) * (a + b) * c, sympy.cos(x * (y + z)) * d,
])
def test_builder_expands_as_symengine_does_skipping_what_is_expanded(expr):
    import symengine

    from symdyn.program.builder import ProgramBuilder
    b = ProgramBuilder()
    symbol = b.define("e", expr)
    (assignment,) = b.assignments
    expanded = sympy.sympify(symengine.expand(symengine.sympify(expr)))
    assert assignment.lhs == symbol
    assert assignment.rhs == expanded and assignment.rhs.args == expanded.args


def test_symengine_expressions_come_back_exactly_as_sympy_builds_them():
    import random

    import symengine

    from symdyn.program.symengine_form import to_sympy
    rng = random.Random(3)
    q = sympy.Dummy("q")
    leaves = [x, y, z, a, q, sympy.cos(x), sympy.sin(q), x**2, sympy.Integer(2),
              sympy.Rational(-3, 7), sympy.Float(0.25), sympy.pi, sympy.sqrt(2)]

    def expr(depth):
        if depth == 0:
            return rng.choice(leaves)
        u, v = expr(depth - 1), expr(depth - 1)
        return rng.choice([u + v, u - v, u * v, -u * v, 3 * u + v, u / (v + 1), u**2 * v,
                           u * (v + x), sympy.Rational(1, 2) * (u + v)])
    u, v = symengine.symbols("u v")
    # What symengine keeps and sympy rewrites: a number times a sum, products of roots.
    for form in (symengine.Mul(2, u + v), symengine.sqrt(2) * symengine.sqrt(3) * u,
                 2**u * 3**u, symengine.Rational(1, 2) * symengine.sqrt(2) * u * symengine.pi):
        assert identical(to_sympy(form), sympy.sympify(form)), form
    memo = {}
    for _ in range(300):
        engine = symengine.sympify(expr(rng.randint(1, 3)))
        for form in (engine, symengine.expand(engine)):   # 2*(x + y) in the first only
            assert identical(to_sympy(form, memo), sympy.sympify(form)), form


def identical(u, v) -> bool:
    """The same tree, arguments in the same order (== on sympy's sums ignores their order)."""
    if type(u) is not type(v) or len(u.args) != len(v.args):
        return False
    return u == v if not u.args else all(identical(s, t) for s, t in zip(u.args, v.args))


def test_included_steps_are_shared_and_renamed_as_if_derived_here():
    from symdyn.program.builder import ProgramBuilder
    other = ProgramBuilder()
    s = other.define("S", sympy.sin(x))
    u = other.define("u", s * y + z)
    b = ProgramBuilder()
    own = b.define("S", sympy.sin(x))      # a step both have: shared, not repeated
    b.define("u", x * z)                    # a name both use: the included step is renamed
    mapping = b.include(other, {z: c})
    assert s not in mapping and own == s             # kept: the same step, the same name
    assert mapping[u] == sympy.Symbol("u_1")
    assert b.assignments[-1] == Assignment(sympy.Symbol("u_1"), own * y + c)
    assert len(b.assignments) == 3


def test_an_ended_derivation_takes_no_more_steps_and_can_still_be_included():
    from symdyn.program.builder import ProgramBuilder
    other = ProgramBuilder()
    u = other.define("u", sympy.sin(x) * y + z)
    program = other.program("p", (), [Argument.vector("out", [u])])
    other.end()
    with pytest.raises(ValueError, match="after the derivation's end"):
        other.define("v", x * y)
    b = ProgramBuilder()
    mapping = b.include(other, {z: c})
    assert [a.rhs for a in b.assignments] == [program.assignments[0].rhs.subs(z, c)]
    assert mapping[z] == c


@pytest.mark.parametrize("route", [symdyn.newton_euler, symdyn.lagrange])
def test_a_quantity_of_quantities_is_one_program_however_it_is_reached(route):
    """Forward dynamics (and its derivatives) include the programs of M, h and inverse
    dynamics' derivatives: built before them or for them, the program is the same."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    quantities = ("forward_dynamics", "forward_dynamics_derivatives")
    fresh = [route(robot).program(name) for name in quantities]
    warm = route(robot)
    for name in ("mass_matrix", "nonlinear_effects", "inverse_dynamics_derivatives"):
        warm.program(name)
    assert [warm.program(name) for name in quantities] == fresh
