"""Expression printers for the generated Python (numpy) and C (C99, <math.h>).

Both write constants as the shortest decimal that round-trips to the same double, integer powers
as products (x*x is exact and cheaper than pow(x, 2)), and leave every other choice to sympy.
"""
from __future__ import annotations

import sympy
from sympy.printing.c import C99CodePrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pycode import PythonCodePrinter


class _ArithmeticMixin:
    def _print_Rational(self, expr):
        return repr(float(expr))

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Mul(self, expr):
        coeff, rest = expr.as_coeff_Mul()
        if coeff.is_Rational and not coeff.is_Integer and rest is not sympy.S.One:
            sign = "-" if coeff < 0 else ""
            factor = self.parenthesize(rest, PRECEDENCE["Mul"], strict=True)
            return f"{sign}{float(abs(coeff))!r}*{factor}"
        return super()._print_Mul(expr)

    def _print_Pow(self, expr, rational=False):
        base, exponent = expr.base, expr.exp
        if exponent.is_Integer and exponent != 0 and abs(exponent) <= 8:
            factor = self.parenthesize(base, PRECEDENCE["Mul"], strict=True)
            product = "*".join([factor] * abs(int(exponent)))
            if exponent > 0:
                return product
            return f"1.0/{product}" if abs(exponent) == 1 else f"1.0/({product})"
        return super()._print_Pow(expr)


class PythonPrinter(_ArithmeticMixin, PythonCodePrinter):
    """numpy-vectorised Python: functions from ``np``."""

    _functions = {"sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "sqrt": "np.sqrt",
                  "sign": "np.sign", "Abs": "np.abs"}

    def _print_Function(self, expr):
        name = self._functions.get(expr.func.__name__)
        if name is None:
            return super()._print_Function(expr)
        return f"{name}({', '.join(self._print(a) for a in expr.args)})"

    _print_sin = _print_cos = _print_tan = _print_sign = _print_Abs = _print_Function

    def _print_Pow(self, expr, rational=False):
        if expr.exp == sympy.Rational(1, 2):
            return f"np.sqrt({self._print(expr.base)})"
        return super()._print_Pow(expr, rational)


class CPrinter(_ArithmeticMixin, C99CodePrinter):
    """C99 with <math.h> doubles."""

    def _print_sign(self, expr):
        # In doubles, not sympy's int arithmetic, so a loop over states vectorises at full width.
        x = self.parenthesize(expr.args[0], PRECEDENCE["Relational"])
        return f"((double)({x} > 0) - (double)({x} < 0))"
