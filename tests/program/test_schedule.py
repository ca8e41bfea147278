"""The steps' order for an out-of-order machine: the longest chains first, live values bounded,
every step after its operands, nothing else changed."""
from __future__ import annotations

import re

import pytest
import sympy

import symdyn
from symdyn import api
from symdyn.emit.render import backend
from symdyn.program import Argument, Assignment, Program, optimize_all, schedule
from symdyn.program.program import symbols_in
from symdyn.program.schedule import order_for_machine

x, y, z = sympy.symbols("x y z")


def program(assignments, outputs) -> Program:
    return Program("f", (Argument.vector("in", (x, y, z)),),
                   tuple(Assignment(lhs, rhs) for lhs, rhs in assignments),
                   (Argument.vector("out", outputs),))


def names(p: Program) -> list[str]:
    return [a.lhs.name for a in p.assignments]


def operands_first(p: Program) -> bool:
    set_ = set(p.input_symbols)
    for a in p.assignments:
        if not symbols_in((a.rhs,)) <= set_:
            return False
        set_.add(a.lhs)
    return True


def most_live(p: Program) -> int:
    """The most values set and still to be read by a later step, at any point of the order."""
    last_use = {}
    for k, a in enumerate(p.assignments):
        for s in symbols_in((a.rhs,)):
            last_use[s] = k
    live = most = 0
    for k, a in enumerate(p.assignments):
        live -= sum(1 for s in symbols_in((a.rhs,)) if last_use.get(s) == k
                    and s not in p.input_symbols)
        live += a.lhs in last_use
        most = max(most, live)
    return most


def test_the_longest_chain_starts_first():
    a, b, c1, c2, c3, c4 = sympy.symbols("a b c1 c2 c3 c4")
    p = program([(a, x * y), (b, a + z),
                 (c1, x * z), (c2, c1 * c1 + x), (c3, c2 * c2 + y), (c4, c3 * c3 + z)], (b, c4))
    ordered = order_for_machine(p)
    assert names(ordered)[0] == "c1"        # the chain of four before the chain of two
    assert sorted(ordered.assignments, key=str) == sorted(p.assignments, key=str)
    assert operands_first(ordered) and ordered.outputs == p.outputs


def test_past_the_registers_it_frees_values_before_it_sets_more(monkeypatch):
    # 64 values summed pairwise: each heads a longer chain than any sum (five operations deep
    # against one), so that the longest chains first would compute all 64 before a sum
    values = [sympy.Symbol(f"v{k}") for k in range(64)]
    steps = [(v, ((x * (k + 1) + y) * z + x) * y) for k, v in enumerate(values)]
    while len(values) > 1:
        sums = [sympy.Symbol(f"s{len(steps) + k}") for k in range(len(values) // 2)]
        steps += [(s, values[2 * k] + values[2 * k + 1]) for k, s in enumerate(sums)]
        values = sums
    p = program(steps, tuple(values))
    bounded = order_for_machine(p)
    assert operands_first(bounded)
    assert most_live(bounded) <= schedule.REGISTERS + 1
    monkeypatch.setattr(schedule, "REGISTERS", 10_000)
    assert most_live(order_for_machine(p)) == 64


def test_a_program_past_the_limit_keeps_its_order():
    a, b, c1, c2 = sympy.symbols("a b c1 c2")
    p = program([(a, x * y), (b, a + z), (c1, x * z), (c2, c1 * c1 + x)], (b, c2))
    assert order_for_machine(p, limit=3) is p
    assert names(order_for_machine(p, limit=4)) != names(p)


def test_the_pandas_programs_keep_their_steps_in_a_valid_order_deterministically():
    dynamics = symdyn.newton_euler(symdyn.load_robot("panda"))
    programs = optimize_all([p for name in ("mass_matrix", "inverse_dynamics_derivatives")
                             for p in dynamics.programs(name)])
    for p in programs:
        ordered = order_for_machine(p)
        assert names(ordered) != names(p)
        assert set(ordered.assignments) == set(p.assignments)
        assert operands_first(ordered)
        assert names(order_for_machine(p)) == names(ordered)


def assigned(text: str, start: str, end: str, pattern: str) -> list[str]:
    """The names a generated function assigns, in its order: from ``start`` to ``end``."""
    body = text[text.index(start):]
    return re.findall(pattern, body[:body.index(end)], re.M)


@pytest.mark.parametrize("name, ordered", [("panda", True), ("space_arm", False)])
def test_a_chains_c_is_ordered_for_the_machine_and_a_trees_is_not(tmp_path, name, ordered):
    dynamics = symdyn.newton_euler(symdyn.load_robot(name))
    symdyn.generate(dynamics, ["python", "c"], tmp_path, quantities=["mass_matrix"])
    c = assigned((tmp_path / f"{name}.c").read_text(), f"void {name}_mass_matrix(", "\n}\n",
                 r"^\s+const double (\w+) =")
    python = assigned((tmp_path / f"{name}.py").read_text(), "def mass_matrix(", "\n    return",
                      r"^\s+(\w+) = (?!q\[|params\[)")
    both = set(c) & set(python)
    c, python = [n for n in c if n in both], [n for n in python if n in both]
    assert len(both) > 50
    assert (c != python) == ordered


def test_the_wrappers_lane_kernels_keep_the_derivations_order():
    # a value there is a vector of states: the machine's order, holding more at once, made the
    # Panda's batches slower (context.Function.lane_steps)
    dynamics = symdyn.newton_euler(symdyn.load_robot("panda"))
    values, programs = api._optimized(dynamics, ["mass_matrix"], {}, None)
    module = api._module(dynamics, programs, backend("c", "double"), values)
    (function,) = module.functions
    python = api._module(dynamics, programs, backend("python", "double"), values).functions[0]
    assert [s.lhs for s in function.lane_steps if s.kind == "line"] == \
        [s.lhs for s in python.body.steps if s.kind == "line"]
    assert function.lane_steps != function.body.steps
    assert sorted(map(str, function.lane_steps)) == sorted(map(str, function.body.steps))
