"""Safe parsing of the numbers and expressions a robot file may hold.

Robot files are data. An entry such as ``"pi/2"`` or ``"-l1/2"`` is parsed with Python's ``ast``
and rebuilt node by node from a short whitelist: numbers, ``pi``, names, ``+ - * / **`` and the
functions ``sqrt``, ``sin`` and ``cos``. Nothing is ever passed to ``eval`` or ``sympify``.

Decimal numbers become exact rationals (``0.4318`` -> ``2159/5000``), so the derivation is exact
and the printers decide how to write constants.

>>> import sympy
>>> parse_expression("-l1/2 + 0.25", lambda name: sympy.Symbol(name))
1/4 - l1/2
"""
from __future__ import annotations

import ast
import math
import operator
from typing import Callable

import sympy

MAX_LENGTH = 200
MAX_EXPONENT = 8

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


class ExpressionError(ValueError):
    """An entry that is not a number or an allowed expression; the message says why."""


def number(value: int | float) -> sympy.Expr:
    """An exact sympy number for a YAML int or float (a float by its shortest decimal form)."""
    if isinstance(value, bool):
        raise ExpressionError(f"{value!r} is a boolean, not a number")
    if isinstance(value, int):
        return sympy.Integer(value)
    if not math.isfinite(value):
        raise ExpressionError(f"{value!r} is not a finite number")
    return sympy.Rational(repr(value))


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
            return number(node.value)
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                raise ExpressionError(f"{node.id} is a function; call it, as in {node.id}(x)")
            return self.resolve(node.id)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](self.visit(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = self.visit(node.left), self.visit(node.right)
            if isinstance(node.op, ast.Pow):
                self._check_exponent(right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise ExpressionError(f"division by zero in {self.text!r}")
            return _BINARY[type(node.op)](left, right)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FUNCTIONS
            and len(node.args) == 1
            and not node.keywords
        ):
            return FUNCTIONS[node.func.id](self.visit(node.args[0]))
        raise ExpressionError(
            f"{self.text!r}: {_describe(node)} is not allowed; use numbers, pi, parameter names, "
            f"+ - * / **, and {', '.join(sorted(FUNCTIONS))}(...)"
        )

    @staticmethod
    def _check_exponent(exponent):
        # Bounded so that a robot file cannot ask for 9**9**9.
        if not (exponent.is_Rational and abs(exponent) <= MAX_EXPONENT):
            raise ExpressionError(f"exponents must be numbers of size at most {MAX_EXPONENT}")


def _describe(node) -> str:
    if isinstance(node, ast.Call):
        return "this function call"
    if isinstance(node, ast.Constant):
        return f"the constant {node.value!r}"
    if isinstance(node, ast.Attribute):
        return "attribute access"
    return f"'{type(node).__name__}'"
