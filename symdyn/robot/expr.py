"""Safe parsing of the numbers and expressions a robot file may hold.

Robot files are data. An entry such as ``"pi/2"`` or ``"-l1/2"`` is parsed with Python's ``ast``
and rebuilt node by node from a short whitelist: numbers, ``pi``, names, ``+ - * / **`` and the
functions ``sqrt``, ``sin`` and ``cos``. Nothing is ever passed to ``eval`` or ``sympify``.

Decimal numbers become exact rationals (``0.4318`` -> ``2159/5000``), so the derivation is exact
and the printers decide how to write constants. Every step is bounded before the next: exponents
are small numbers, numbers stay within MAX_MAGNITUDE (and their numerators and denominators
within MAX_DIGITS), and a result that is not a finite real
number (``0**-1``, ``sqrt(-1)``) is refused, so no entry can hang the reader or reach the code
as ``inf`` or a complex constant.

>>> import sympy
>>> parse_expression("-l1/2 + 0.25", lambda name: sympy.Symbol(name))
1/4 - l1/2
"""
from __future__ import annotations

import ast
import math
import operator
import re
from typing import Callable

import sympy
from sympy.printing.str import StrPrinter

MAX_LENGTH = 200
MAX_EXPONENT = 8
MAX_MAGNITUDE = sympy.Integer(10) ** 30   # of every number's size: 1e-30 <= |x| <= 1e30, or 0
# Of every number's numerator and denominator: room for a double's 17 digits down to 1e-30
# (CAD tools write inertias with noise such as -3.469446951953614e-18, 5e32 its denominator).
MAX_DIGITS = sympy.Integer(10) ** 48

FUNCTIONS = {"sqrt": sympy.sqrt, "sin": sympy.sin, "cos": sympy.cos}
CONSTANTS = {"pi": sympy.pi}

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}


# The one grammar of a decimal number, in every file symdyn reads (YAML, URDF, CSV): ASCII digits,
# an optional fraction and exponent. Python's float() also takes 1_0 and other scripts' digits,
# which no robot or measurement file means.
DECIMAL = r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"
_DECIMAL = re.compile(DECIMAL + r"\Z")


def decimal(text: str) -> float:
    """``text`` as a float, if it is a decimal number by DECIMAL (surrounding blanks allowed);
    ValueError otherwise."""
    stripped = text.strip(" \t")
    if not _DECIMAL.match(stripped):
        raise ValueError(f"{text.strip()[:40]!r} is not a decimal number")
    return float(stripped)


class ExpressionError(ValueError):
    """An entry that is not a number or an allowed expression; the message says why."""


def number(value: int | float) -> sympy.Expr:
    """An exact sympy number for a YAML int or float (a float by its shortest decimal form)."""
    if isinstance(value, bool):
        raise ExpressionError(f"{value!r} is a boolean, not a number")
    if isinstance(value, int):
        return _bounded(sympy.Integer(value))
    if not math.isfinite(value):
        raise ExpressionError(f"{value!r} is not a finite number")
    return _bounded(sympy.Rational(repr(value)))


def as_text(expr: sympy.Expr) -> str:
    """An expression as a robot file writes it: the file's decimals as decimals.

    >>> as_text(sympy.Rational("0.4318")), as_text(sympy.Rational(1, 3) + sympy.Symbol("l1"))
    ('0.4318', 'l1 + 1/3')
    """
    return _FilePrinter().doprint(expr)


class _FilePrinter(StrPrinter):
    def _print_Rational(self, expr):
        p, q = int(expr.p), int(expr.q)
        twos, fives = _multiplicity(q, 2), _multiplicity(q, 5)
        if q != 2**twos * 5**fives:           # not a finite decimal: 1/3
            return super()._print_Rational(expr)
        places = max(twos, fives)
        digits = str(abs(p) * 10**places // q).rjust(places + 1, "0")
        return ("-" if p < 0 else "") + digits[:-places] + "." + digits[-places:]


def _multiplicity(n: int, factor: int) -> int:
    count = 0
    while n % factor == 0:
        n, count = n // factor, count + 1
    return count


def parse_expression(value, resolve: Callable[[str], sympy.Expr]) -> sympy.Expr:
    """Turn a YAML scalar into a sympy expression.

    ``resolve(name)`` gives the expression a name stands for (a parameter's value or a free
    symbol); it may raise ExpressionError for names it refuses.
    """
    if isinstance(value, (bool, int, float)):
        return number(value)
    if not isinstance(value, str):
        raise ExpressionError(f"{type(value).__name__} {value!r} is not a number or an expression")
    text = value.strip()
    if not text:
        raise ExpressionError("empty expression")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_LENGTH} characters")
    if not text.isascii():
        # Python would read a fullwidth "ｌ1" as "l1": names are ASCII, so nothing is guessed.
        odd = next(ch for ch in text if not ch.isascii())
        raise ExpressionError(f"{text!r} holds the non-ASCII character {odd!r} "
                              f"(U+{ord(odd):04X}); names and numbers are ASCII")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ExpressionError(f"{text!r} is not a valid expression") from None
    return _Builder(resolve, text).visit(tree.body)


class _Builder:
    def __init__(self, resolve, text):
        self.resolve = resolve
        self.text = text

    def visit(self, node) -> sympy.Expr:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            literal = ast.get_source_segment(self.text, node)
            if literal is not None and not _DECIMAL.match(literal):
                raise ExpressionError(f"{literal!r} is not a decimal number (digits 0-9, "
                                      "without _)")
            return number(node.value)
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                raise ExpressionError(f"{node.id} is a function; call it, as in {node.id}(x)")
            return self.resolve(node.id)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _bounded(_UNARY[type(node.op)](self.visit(node.operand)))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = self.visit(node.left), self.visit(node.right)
            if isinstance(node.op, ast.Pow):
                self._check_exponent(right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise ExpressionError(f"division by zero in {self.text!r}")
            return _bounded(_BINARY[type(node.op)](left, right))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FUNCTIONS
            and len(node.args) == 1
            and not node.keywords
        ):
            return _bounded(FUNCTIONS[node.func.id](self.visit(node.args[0])))
        raise ExpressionError(
            f"{self.text!r}: {_describe(node)} is not allowed; use numbers, pi, parameter names, "
            f"+ - * / **, and {', '.join(sorted(FUNCTIONS))}(...)"
        )

    @staticmethod
    def _check_exponent(exponent):
        # Bounded so that a robot file cannot ask for 9**9**9.
        if not (exponent.is_Rational and abs(exponent) <= MAX_EXPONENT):
            raise ExpressionError(f"exponents must be numbers of size at most {MAX_EXPONENT}")


def _bounded(value: sympy.Expr) -> sympy.Expr:
    """``value``, if it is a finite real number of bounded size or an expression whose powers
    stay small (``((l1 + 1)**8)**8`` is ``(l1 + 1)**64``); else ExpressionError."""
    if value.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):
        raise ExpressionError("the value is not finite (a division by zero?)")
    if value.has(sympy.I):
        raise ExpressionError(f"{value} is not a real number")
    for number in value.atoms(sympy.Rational):
        p, q = abs(number.p), number.q
        if p > MAX_DIGITS or q > MAX_DIGITS or p and not (q <= p * MAX_MAGNITUDE
                                                           and p <= q * MAX_MAGNITUDE):
            raise ExpressionError("a number beyond the limits of 1e-30 and 1e30 in size, or of "
                                  f"48 digits (in {_short(value)})")
    for power in value.atoms(sympy.Pow):
        if power.exp.is_Rational and abs(power.exp) > MAX_EXPONENT:
            raise ExpressionError(f"exponents must be numbers of size at most {MAX_EXPONENT} "
                                  f"(in {_short(value)})")
    if value.is_number and not value.is_Rational:
        magnitude = abs(complex(value.evalf(20)))
        if not magnitude <= MAX_MAGNITUDE:
            raise ExpressionError(f"{_short(value)} is beyond the limit of 1e30")
    return value


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(node) -> str:
    if isinstance(node, ast.Call):
        return "this function call"
    if isinstance(node, ast.Constant):
        return f"the constant {node.value!r}"
    if isinstance(node, ast.Attribute):
        return "attribute access"
    return f"'{type(node).__name__}'"
