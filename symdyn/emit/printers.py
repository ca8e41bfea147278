"""Expression printers for the generated Python (numpy) and C (C99, <math.h>).

Both write every constant as a plain decimal literal that round-trips to the same double (pi and
sqrt(2) too: C99 has no M_PI, and the module imports no math), integer powers as products (x*x
is exact and cheaper than pow(x, 2)), and leave every other choice to sympy. A constant that is
not a finite real number cannot be written: it is an EmitError, never ``inf`` or ``nan`` in code.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy
from sympy.codegen.ast import float32, real
from sympy.printing.c import C99CodePrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pycode import PythonCodePrinter

from ..errors import EmitError

# Integers beyond this are written as doubles: C has no integer literal for them.
LARGEST_INTEGER_LITERAL = 2**31 - 1


_NOT_FINITE = (sympy.nan, sympy.zoo, sympy.oo, sympy.S.NegativeInfinity)   # sympy's singletons


def literal(value) -> str:
    """A number as the shortest decimal that reads back as the same double."""
    if type(value) is sympy.Float:
        # not through the cache: a Float's hash converts it to a float, which is all it needs
        return _finite(float(value), value)
    return _cached_literal(value)


@functools.lru_cache(maxsize=4096)      # a program's few hundred constants recur everywhere
def _cached_literal(value) -> str:
    if any(value is special for special in _NOT_FINITE):
        raise EmitError(f"the constant {value} is not finite (a division by zero?)")
    try:
        number = float(value)
    except (TypeError, OverflowError):
        raise EmitError(f"the constant {value} is not a real number of double range") from None
    return _finite(number, value)


def _finite(number: float, value) -> str:
    if not math.isfinite(number):
        raise EmitError(f"the constant {value} is not finite (a division by zero?)")
    return repr(number)


@functools.lru_cache(maxsize=4096)
def float_literal(value) -> str:
    """A number as the shortest decimal that reads back as the same float (IEEE single),
    suffixed f: single-precision code never promotes to double."""
    text = literal(value)
    single = np.float32(float(text))
    if not np.isfinite(single):
        raise EmitError(f"the constant {value} is beyond single precision's range")
    text = np.format_float_positional(single, unique=True, trim="0") \
        if 1e-4 <= abs(single) < 1e7 or single == 0 else \
        np.format_float_scientific(single, unique=True, trim="0")
    return f"{text}f"


# What a printed sum never puts in parentheses.
_TIGHTER_THAN_ADD = (sympy.Mul, sympy.Pow, sympy.Symbol, sympy.Number, sympy.Function)


def _fusable(text: str) -> bool:
    """Whether a printed term is a product a fused multiply-add can take, its last factor by
    itself: a product of names and numbers (no call, no quotient), evaluated left to right,
    so that a*b*c + d is symdyn_fma(a*b, c, d)."""
    return "*" in text and "(" not in text and "/" not in text


def _plain_factor(f) -> bool:
    """A factor a printed product needs no parentheses or constant folding for: a symbol, a
    function of symbols, or one of those to a positive integer power."""
    if f.is_Pow:
        return f.exp.is_Integer and f.exp > 0 and _plain_factor(f.base)
    return f.is_Symbol or f.is_Function and not f.is_number


# The types nearly every node of a program has.
_COMMON_TYPES = (sympy.Symbol, sympy.Add, sympy.Mul, sympy.Pow, sympy.Integer, sympy.Rational,
                 sympy.Float, sympy.sin, sympy.cos)
# Those whose text differs between the languages (np.sin, sin).
_LANGUAGE_TYPES = (sympy.sin, sympy.cos)


class _ArithmeticMixin:
    _literal = staticmethod(literal)    # a number's text (a float printer's: float_literal)
    _one = "1.0"
    def __init__(self, settings=None):
        # Terms in the order sympy holds them (canonical, the same in every run), not sorted
        # again for display: printing a large program is then several times faster.
        super().__init__({"order": "none", **(settings or {})})
        # A Float's text by its mpf tuple: the Float's own hash converts it to a float every
        # time, and a program's few thousand constants are printed 10^5 times.
        self._floats: dict = {}
        # sympy's dispatcher searches the bases of each node's type for a method, node after
        # node; for the common types (exactly these, not their subclasses) the method it
        # finds, _print_<type>, is looked up once.
        self._methods = {t: getattr(self, f"_print_{t.__name__}") for t in _COMMON_TYPES}
        self.common = True
        # {expression: its code} where it reads the same in every language, whole lines and the
        # terms of sums (C fuses a sum's products into it, Python does not: their terms still
        # read the same). The emitter hands the printers of a program the same dict.
        self.shared = {}
        # {symbol: the step that sets it}, where a sum's terms are printed in the order their
        # operands are set (a loop's kernel, context.SolveLoop): a sum is a chain of fused
        # multiply-adds evaluated left to right, so that each waits for its last operand
        # alone, not for all of them at its first term. None: sympy's order.
        self.term_order = None

    def _print(self, expr, **kwargs):
        method = None if kwargs else self._methods.get(type(expr))
        if method is None or type(expr) in _LANGUAGE_TYPES:
            self.common = False
        return super()._print(expr, **kwargs) if method is None else method(expr)

    def _print_Symbol(self, expr):
        # A program's names are identifiers the module made safe (render.identifiers); sympy's
        # checks on each of the 10^5 symbols printed are kept for anything else.
        name = expr.name
        if name in self.reserved_words or not name.isidentifier():
            self.common = False
            return super()._print_Symbol(expr)
        return name

    # A constant such as pi, sqrt(2) or cos(pi/7) is one literal, whatever its form: its leaves
    # (constants, powers and functions of numbers) are caught where they are printed, which
    # costs nothing for the symbols and sums that make up the rest of the code.
    def _print_NumberSymbol(self, expr):
        return self._literal(expr)

    _print_Pi = _print_Exp1 = _print_GoldenRatio = _print_EulerGamma = _print_Catalan = \
        _print_NumberSymbol

    def _print_ImaginaryUnit(self, expr):
        return self._literal(expr)      # refused: not a real number

    _print_NaN = _print_Infinity = _print_NegativeInfinity = _print_ComplexInfinity = \
        _print_ImaginaryUnit      # refused: not finite

    def _print_Function(self, expr):
        if all(arg.is_number for arg in expr.args):
            return self._literal(expr)
        return super()._print_Function(expr)

    def _print_Integer(self, expr):
        if abs(expr) > LARGEST_INTEGER_LITERAL:
            return self._literal(expr)
        return str(expr.p)

    def _print_Rational(self, expr):
        return self._literal(expr)

    def _number_literal(self, expr):
        """A number's literal (a Float's through _print_Float's table)."""
        return self._print_Float(expr) if type(expr) is sympy.Float else self._literal(expr)

    def _print_Float(self, expr):
        text = self._floats.get(expr._mpf_)
        if text is None:
            text = self._floats[expr._mpf_] = self._literal(expr)
        return text

    def doprint(self, expr, assign_to=None):
        """The code for ``expr``; afterwards ``common`` tells whether it is the same text in
        every language (only arithmetic, printed here, where the languages agree)."""
        if assign_to is not None:
            self.common = False
            return super().doprint(expr, assign_to)
        # sympy's doprint first walks the tree for UnevaluatedExpr and collects named constants
        # to declare; these printers meet neither (constants are literals), and the walk is a
        # sixth of the printing time of a large program.
        self._not_supported, self._number_symbols = set(), set()
        self.common = True
        return self._shared(sympy.sympify(expr))

    # The two shapes nearly every line of a program has, printed as sympy prints them but
    # without asking each factor and term its precedence: a sum whose terms bind at least as
    # tightly as "+", and a product of a number and factors that need no parentheses.
    def _print_Add(self, expr, order=None):
        if not all(isinstance(term, _TIGHTER_THAN_ADD) for term in expr.args):
            self.common = False
            return super()._print_Add(expr, order)
        args = expr.args
        if self.term_order:
            args = sorted(args, key=self._set_at)
        terms = [self._shared(term) for term in args]
        if any(map(_fusable, terms)):
            self.common = False         # C fuses the products into the sum (CPrinter._sum)
        return self._sum(terms)

    def _set_at(self, term) -> int:
        """The step that sets ``term``'s last operand (term_order; -1 for inputs)."""
        return max((self.term_order.get(s, -1) for s in term.free_symbols), default=-1)

    def _shared(self, expr) -> str:
        """``expr``'s code, printed once for all languages where it reads the same in each."""
        text = self.shared.get(expr)
        if text is None:
            common, self.common = self.common, True
            text = self._print(expr)
            if self.common:
                self.shared[expr] = text
            self.common = common and self.common
        return text

    def _sum(self, terms) -> str:
        parts = []
        for text in terms:
            parts += ("-", text[1:]) if text[0] == "-" else ("+", text)
        if parts[0] == "+":
            parts.pop(0)
        else:
            parts[:2] = ["-" + parts[1]]
        return " ".join(parts)

    def _print_Mul(self, expr):
        args = expr.args
        coeff = args[0] if args[0].is_Number else None
        factors = args[1:] if coeff is not None else args
        if all(_plain_factor(f) for f in factors):      # then not a constant
            printed = "*".join([self._print(f) for f in factors])
            if coeff is None:
                return printed
            if not coeff.is_Integer:
                return f"{self._number_literal(coeff)}*{printed}"     # one literal, rounded once
            if coeff.p < 0:                              # .p: an Integer's int
                return "-" + printed if coeff.p == -1 else f"-{self._print(-coeff)}*{printed}"
            return f"{self._print(coeff)}*{printed}"
        if expr.is_number:
            return self._literal(expr)     # pi/2 too: sympy's C printer would write M_PI_2, not C99
        # A divisor raised to a power is written as a product, which sympy's printer would
        # leave bare after "/": x/(1 + w)**2 must not become x/(1 + w)*(1 + w).
        powers = [a for a in args if a.is_Pow and a.exp.is_Integer and a.exp < -1]
        if powers:
            top = sympy.Mul(*(a for a in args if a not in powers))
            over = self._print(sympy.Mul(*(1 / a for a in powers)))
            top = self._one if top == 1 else self.parenthesize(top, PRECEDENCE["Mul"],
                                                               strict=True)
            return f"{top}/({over})"
        # The constant factors are one literal, rounded once (-0.70710678118654757*x).
        numbers = [a for a in expr.args if a.is_number]
        self.common = False         # sympy's printers, which differ between the languages
        if not numbers or len(numbers) == 1 and numbers[0].is_Integer:
            return super()._print_Mul(expr)      # most products: no new Mul to build
        coeff = sympy.Mul(*numbers)
        rest = sympy.Mul(*(a for a in expr.args if not a.is_number))
        if not coeff.is_Integer and rest is not sympy.S.One:
            factor = self.parenthesize(rest, PRECEDENCE["Mul"], strict=True)
            return f"{self._literal(coeff)}*{factor}"
        return super()._print_Mul(expr)

    def _print_Pow(self, expr, rational=False):
        base, exponent = expr.base, expr.exp
        if base.is_number and exponent.is_number:
            return self._literal(expr)
        if exponent.is_Integer and exponent != 0 and abs(exponent) <= 8:
            factor = self.parenthesize(base, PRECEDENCE["Mul"], strict=True)
            product = "*".join([factor] * abs(int(exponent)))
            if exponent > 0:
                return product
            return (f"{self._one}/{product}" if abs(exponent) == 1
                    else f"{self._one}/({product})")
        self.common = False
        return super()._print_Pow(expr)


class PythonPrinter(_ArithmeticMixin, PythonCodePrinter):
    """numpy-vectorised Python: functions from ``np`` (``_functions``; a subclass takes them
    from another module)."""

    _functions = {"sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "sqrt": "np.sqrt",
                  "sign": "np.sign", "Abs": "np.abs", "atan2": "np.arctan2"}

    def _print_Function(self, expr):
        if all(arg.is_number for arg in expr.args):
            return self._literal(expr)
        name = self._functions.get(expr.func.__name__)
        if name is None:
            raise EmitError(f"no function for {expr.func.__name__} in {type(self).__name__}")
        return f"{name}({', '.join(self._print(a) for a in expr.args)})"

    _print_sin = _print_cos = _print_tan = _print_sign = _print_Abs = _print_atan2 = \
        _print_Function

    def _print_Pow(self, expr, rational=False):
        if expr.exp == sympy.Rational(1, 2) and not expr.base.is_number:
            self.common = False
            return f"{self._functions['sqrt']}({self._print(expr.base)})"
        return super()._print_Pow(expr, rational)


class CasadiPrinter(PythonPrinter):
    """CasADi's SX expressions: the same arithmetic, functions from ``ca``."""

    _functions = {"sin": "ca.sin", "cos": "ca.cos", "tan": "ca.tan", "sqrt": "ca.sqrt",
                  "sign": "ca.sign", "Abs": "ca.fabs", "atan2": "ca.atan2"}


class JaxPrinter(PythonPrinter):
    """jax.numpy: functions from ``jnp``."""

    _functions = {"sin": "jnp.sin", "cos": "jnp.cos", "tan": "jnp.tan", "sqrt": "jnp.sqrt",
                  "sign": "jnp.sign", "Abs": "jnp.abs", "atan2": "jnp.arctan2"}


class CPrinter(_ArithmeticMixin, C99CodePrinter):
    """C99 with <math.h> doubles. A sum's products are fused into it, a*b + c as
    symdyn_fma(a, b, c), which the templates define as C99's fma where the target computes it
    in one instruction (FP_FAST_FMA) and as a*b + c elsewhere: half the instructions of a
    multiply-and-add program, whatever flags the code is built with, and one rounding less."""

    def _sum(self, terms) -> str:
        products, others = [], []
        for text in terms:
            (products if _fusable(text) else others).append(text)
        code = super()._sum(others) if others else products.pop(0)
        for text in products:
            head, last = text.rsplit("*", 1)
            code = f"symdyn_fma({head}, {last}, {code})"
        return code

    real = "double"         # the C type of every number

    def _print_sign(self, expr):
        # In doubles, not sympy's int arithmetic, so a loop over states vectorises at full width.
        x = self.parenthesize(expr.args[0], PRECEDENCE["Relational"])
        return f"(({self.real})({x} > 0) - ({self.real})({x} < 0))"


class FloatCPrinter(CPrinter):
    """C99 in single precision (float), for an FPU without doubles: float literals (1.5f),
    <math.h>'s float functions (sinf, sqrtf, fmaf), nothing promoted to double."""

    _literal = staticmethod(float_literal)
    _one = "1.0f"
    real = "float"

    def __init__(self, settings=None):
        super().__init__({"type_aliases": {real: float32}, **(settings or {})})
