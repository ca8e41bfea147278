"""The expression printers: sympy's layout of sums and products, cheaper constants and powers."""
import math
import random

import numpy as np
import pytest
import sympy
from sympy.printing.c import C99CodePrinter
from sympy.printing.pycode import PythonCodePrinter

from symdyn.emit.printers import CPrinter, PythonPrinter
from symdyn.errors import EmitError

x, y, z, w = sympy.symbols("x y z w")


CASES = [
    (x - y, "x - y", "x - y"),
    (-x + 2 * y, "-x + 2*y", "-x + 2*y"),
    (-x * y, "-x*y", "-x*y"),
    (-3 * x * sympy.sin(y), "-3*x*sin(y)", "-3*x*np.sin(y)"),
    (x * y**2, "x*y*y", "x*y*y"),
    (-x**3, "-x*x*x", "-x*x*x"),
    (x * (y + z), "x*(y + z)", "x*(y + z)"),
    (-x * (y - z), "-x*(y - z)", "-x*(y - z)"),
    (x / y, "x/y", "x/y"),
    (-x / (y * z), "-x/(y*z)", "-x/(y*z)"),
    (1 / (x + y), "1.0/(x + y)", "1.0/(x + y)"),
    (x / (w + 1)**2, "x/((1 + w)*(1 + w))", "x/((1 + w)*(1 + w))"),
    (-x / (y * w**3), "(-x/y)/(w*w*w)", "(-x/y)/(w*w*w)"),
    (sympy.sqrt(2) * x, "1.4142135623730951*x", "1.4142135623730951*x"),
    (-sympy.Rational(1, 3) * x * y, "-0.3333333333333333*x*y", "-0.3333333333333333*x*y"),
    (x - sympy.Rational(1, 2), "-0.5 + x", "-0.5 + x"),   # sympy's order: the number first
    (sympy.Float(0.25) * x * y**2, "0.25*x*y*y", "0.25*x*y*y"),
    (sympy.Float(-2.5) * x * sympy.cos(y), "-2.5*x*cos(y)", "-2.5*x*np.cos(y)"),
    (sympy.Float(0.1) * sympy.pi * x, "0.31415926535897937*x", "0.31415926535897937*x"),
    ((x + y)**2, "(x + y)*(x + y)", "(x + y)*(x + y)"),
    (sympy.sign(x) * y, "y*((double)(x > 0) - (double)(x < 0))", "y*np.sign(x)"),
    (3_000_000_000 * x, "3000000000.0*x", "3000000000.0*x"),
    (sympy.pi / 2, "1.5707963267948966", "1.5707963267948966"),   # not M_PI_2: C99 has none
    (-sympy.pi / 2, "-1.5707963267948966", "-1.5707963267948966"),
    (2 * sympy.cos(1) * x, "1.0806046117362795*x", "1.0806046117362795*x"),   # rounded once
    (sympy.sqrt(x + y) * z, "z*sqrt(x + y)", "z*np.sqrt(x + y)"),
]


@pytest.mark.parametrize("expr, c, python", CASES)
def test_sums_products_and_constants(expr, c, python):
    assert CPrinter().doprint(expr) == c
    assert PythonPrinter().doprint(expr) == python


@pytest.mark.parametrize("expr, c, python", CASES)
def test_text_said_to_be_common_to_the_languages_is(expr, c, python):
    # the emitters print such text once, for both languages
    for printer in (CPrinter(), PythonPrinter()):
        printer.doprint(expr)
        assert not printer.common or c == python
    printer.doprint(x * y - 2 * z)
    assert printer.common


def test_constants_that_are_not_finite_real_numbers_are_refused():
    for constant in (sympy.zoo, sympy.oo, sympy.nan, sympy.I):
        with pytest.raises(EmitError):
            CPrinter().doprint(constant * x)


def _random_expr(rng: random.Random, depth: int) -> sympy.Expr:
    """Sums and products of symbols, small integers, sin, cos and quotients."""
    if depth == 0:
        return rng.choice([x, y, z, w, sympy.Integer(rng.randint(-3, 3))])
    a, b = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    angle = a if not a.is_number else x       # sin(5) would be a literal, not sympy's sin(5)
    return rng.choice([a + b, a - b, a * b, -a * b, sympy.sin(angle) * b, sympy.cos(angle) - b,
                       a / (b**2 + 1), rng.randint(-4, 4) * a + b])


def test_printed_like_sympy_and_evaluated_like_sympy():
    # The printers' own layout of sums and products matches sympy's stock code printers
    # (powers and fractions aside, which they write as products and decimals) and computes the
    # same numbers.
    rng = random.Random(7)
    stock = PythonCodePrinter({"order": "none"})
    stock_c = C99CodePrinter({"order": "none"})
    values = {x: 0.3, y: -1.7, z: 2.2, w: 0.9}
    checked = 0
    for _ in range(300):
        expr = _random_expr(rng, rng.randint(1, 4))
        if expr.is_number:
            continue
        python = PythonPrinter().doprint(expr)
        expected = float(expr.evalf(30, subs=values))
        got = eval(python, {"np": np}, {str(s): v for s, v in values.items()})
        assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), (expr, python)
        if not expr.atoms(sympy.Pow) and all(r.is_Integer for r in expr.atoms(sympy.Rational)):
            assert python == stock.doprint(expr).replace("math.", "np."), expr
            assert CPrinter().doprint(expr) == stock_c.doprint(expr), expr
            checked += 1
    assert checked > 50
