"""Forward and reverse differentiation of programs, and the choice between them."""
from __future__ import annotations

import numpy as np
import sympy
from support import ROBOTS

import symdyn
from symdyn.program import Argument
from symdyn.program.builder import ProgramBuilder
from symdyn.program.derivative import (
    derivatives,
    directional_derivatives,
    products,
    reverse_derivatives,
)
from symdyn.program.evaluate import evaluate

x, y, z, w = sympy.symbols("x y z w")


def _chain(b: ProgramBuilder) -> list:
    """Two outputs of a few steps that share x, y and z, a step reading a step twice."""
    s = b.define("s", sympy.sin(x) * y)
    t = b.define("t", s * z + x**2)
    u = b.define("u", t * s + sympy.cos(y))
    return [u + z * w, t * w]


def _values(b: ProgramBuilder, exprs, values) -> np.ndarray:
    program = b.program("p", [Argument.vector("in", [x, y, z, w])],
                        [Argument.vector("out", exprs)])
    return np.asarray(evaluate(program, values), dtype=float)


def test_reverse_mode_gives_what_forward_mode_gives_along_any_rates():
    # a unit direction, one along two symbols at rates that are expressions, and none
    directions = [{x: 1}, {y: sympy.cos(z), z: 2 * w}, {}]
    values = {x: 0.3, y: -1.2, z: 0.7, w: 1.9}
    results = []
    for differentiate in (
            lambda b, t: directional_derivatives(b, t, directions, ["_f1", "_f2", "_f3"]),
            lambda b, t: reverse_derivatives(b, t, directions, "_bar")):
        b = ProgramBuilder()
        columns = differentiate(b, _chain(b))
        results.append(_values(b, [e for column in columns for e in column], values))
    assert np.allclose(results[0], results[1], rtol=0, atol=1e-14)
    assert list(results[0][4:]) == [0, 0]        # the empty direction's
    b = ProgramBuilder()
    targets = _chain(b)
    for a in reversed(b.assignments):       # the targets written out in the inputs
        targets = [t.subs(a.lhs, a.rhs) for t in targets]
    exact = [sympy.diff(t, x) for t in targets]
    assert np.allclose(results[1][:2], [float(e.subs(values)) for e in exact], atol=1e-14)


def test_reverse_mode_names_each_targets_adjoints():
    b = ProgramBuilder()
    reverse_derivatives(b, _chain(b), [{x: 1}], "_bar")
    # an adjoint that is a symbol or a number is no step: u's of target 1 (1), t's (s, and w
    # for target 2); s's are sums
    assert [a.lhs.name for a in b.assignments[3:]] == ["s_bar1", "s_bar2"]


def test_products_choose_reverse_for_many_directions_of_few_targets():
    # a recursion through six inputs, a_k = a_(k-1) x_(k+1) + sin(x_(k+1)): forward carries k
    # tangents into step k (the first's the partials themselves), reverse one adjoint
    b = ProgramBuilder()
    inputs = sympy.symbols("x1:7")
    a = inputs[0]
    for k, xk in enumerate(inputs[1:], start=1):
        a = b.define(f"a{k}", a * xk + sympy.sin(xk))
    assert products(b, [a], [{xk: 1} for xk in inputs]) == (2 + 3 + 4 + 5, 5 * 2)
    b = ProgramBuilder()
    targets = [b.define(f"o{k}", e) for k, e in enumerate(
        [x * y * k + sympy.sin(x) for k in range(1, 6)])]
    forward, reverse = products(b, targets, [{x: 1}])
    assert forward < reverse


def test_the_regressor_takes_reverse_mode_on_an_arm_and_forward_on_a_floating_base(
        monkeypatch):
    taken = []
    import symdyn.program.derivative as derivative
    for mode in ("reverse_derivatives", "directional_derivatives"):
        original = getattr(derivative, mode)
        monkeypatch.setattr(derivative, mode, lambda *a, _o=original, _m=mode, **k: (
            taken.append(_m), _o(*a, **k))[1])
    symdyn.newton_euler(symdyn.load_robot(ROBOTS / "puma560.yaml")).program("regressor")
    assert taken == ["reverse_derivatives"]
    b = ProgramBuilder()
    targets = [b.define("f", x * y * z * w)]
    assert derivatives(b, targets, [{x: 1}], ["_dx"], "_bar")
    assert taken[-1] == "directional_derivatives"
