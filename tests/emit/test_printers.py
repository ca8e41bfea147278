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
    (-x + 2 * y, "symdyn_fma(2, y, -x)", "-x + 2*y"),     # C fuses a sum's products into it
    (x * y - z * w, "symdyn_fma(-w, z, x*y)", "x*y - w*z"),
    (1 - 2 * x * y + z**2, "symdyn_fma(-2*x, y, symdyn_fma(z, z, 1))", "1 + z*z - 2*x*y"),
    (x - y * z**2, "symdyn_fma(-y*z, z, x)", "x - y*z*z"),   # fused as evaluated: (y*z)*z
    (x * sympy.sin(y) + z / w + w * (x + y),                    # calls, quotients: not fused
     "w*(x + y) + x*sin(y) + z/w", "w*(x + y) + x*np.sin(y) + z/w"),
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
    printer.doprint(x * y - z)
    assert not printer.common            # C fuses it
    printer.doprint(x - 2 * sympy.sin(y))
    assert not printer.common            # sin is np.sin in Python
    printer.doprint(x - y)
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


def _c_value(code: str, values: dict) -> float:
    """The value of a printed C expression of these cases, read as Python (their C is Python
    but for the fused multiply-add)."""
    return eval(code, {"symdyn_fma": lambda a, b, c: a * b + c, "sin": math.sin,
                       "cos": math.cos}, values)


def test_printed_like_sympy_and_evaluated_like_sympy():
    # The printers' own layout of sums and products matches sympy's stock code printers
    # (powers and fractions aside, which they write as products and decimals; C's fused
    # multiply-adds aside) and computes the same numbers.
    rng = random.Random(7)
    stock = PythonCodePrinter({"order": "none"})
    stock_c = C99CodePrinter({"order": "none"})
    values = {x: 0.3, y: -1.7, z: 2.2, w: 0.9}
    checked = fused = 0
    for _ in range(300):
        expr = _random_expr(rng, rng.randint(1, 4))
        if expr.is_number:
            continue
        python, c = PythonPrinter().doprint(expr), CPrinter().doprint(expr)
        expected = float(expr.evalf(30, subs=values))
        named = {str(s): v for s, v in values.items()}
        for got in (eval(python, {"np": np}, named), _c_value(c, named)):
            assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), (expr, python, c)
        if not expr.atoms(sympy.Pow) and all(r.is_Integer for r in expr.atoms(sympy.Rational)):
            assert python == stock.doprint(expr).replace("math.", "np."), expr
            if "symdyn_fma" not in c:
                assert c == stock_c.doprint(expr), expr
            fused += "symdyn_fma" in c
            checked += 1
    assert checked > 50 and fused > 20


def test_a_kernels_sums_take_their_terms_in_the_order_their_operands_are_set():
    """In a loop's kernel (printers' term_order), a sum is the chain of fused multiply-adds
    that waits for each operand where it comes: the innermost term the one set first."""
    a, b, c, d = sympy.symbols("a b c d")
    printer = CPrinter()
    expr = a * x - b * y - c * z + d
    assert printer.doprint(expr) == "symdyn_fma(-c, z, symdyn_fma(-b, y, symdyn_fma(a, x, d)))"
    printer = CPrinter()
    printer.term_order = {z: 0, x: 1, y: 2}      # z is set first, then x, then y
    assert printer.doprint(expr) == "symdyn_fma(-b, y, symdyn_fma(a, x, symdyn_fma(-c, z, d)))"
