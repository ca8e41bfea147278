"""Equations cut to fit a printed line, the same in every format.

A long sum breaks at its signs (LaTeX's breqn, a browser, a terminal's wrap), inside
parentheses too, but breqn finds no break in a product of two long sums ((c_5 (...) - s_5
(...)) (c_4 (...) + ...) runs past the margin) and fails outright ("Dimension too large") on
a sum pages long, which a 6-joint arm's Lagrange derivation has. So the widest sum of a product
of sums wider than a line is named (u_1, u_2, ...) and defined at the end of the printout, as
the Newton-Euler printouts' named intermediates are, and a sum longer than ``LONG`` is cut
into named partial sums.
"""
from __future__ import annotations

import itertools
import unicodedata

import sympy

from .notation import Notation

LINE = 80       # printed characters (c_{23} counts three) a line of the LaTeX page holds with
                # breqn's indent: A4, 18 mm margins, 10 pt
LONG = 1500     # printed characters of one sum, about twenty lines: breqn's limit is near 200


class Page:
    """Names for the sums too wide for a line, made while fitting a printout's values."""

    def __init__(self, notation: Notation, taken: set[str]):
        self.notation = notation
        self.terms: list[tuple[sympy.Symbol, sympy.Expr]] = []     # in the order made
        taken = {name.replace("_", "") for name in taken}
        self._names = (sympy.Symbol(f"u_{k}") for k in itertools.count(1)
                       if f"u{k}" not in taken)
        self._widths: dict[sympy.Basic, int] = {}
        self._named: dict[sympy.Basic, sympy.Symbol] = {}

    def fit(self, value):
        """``value`` with each of its terms no wider than a line and its sum no longer than
        LONG, what was too wide named (``terms``)."""
        if isinstance(value, sympy.MatrixBase):
            return value.applyfunc(self.fit)
        value = sympy.sympify(value)
        terms = [self._line(t) for t in sympy.Add.make_args(value)]
        chunks, chunk, width = [], [], 0
        for term in terms:               # partial sums of at most LONG characters each
            if chunk and width + self._width(term) > LONG:
                chunks.append(chunk)
                chunk, width = [], 0
            chunk.append(term)
            width += self._width(term) + 3
        if not chunks:
            return sympy.Add(*terms)
        return sympy.Add(*(self._name(sympy.Add(*c)) for c in chunks + [chunk]))

    def _line(self, term):
        """A term of a sum made to fit the page: the widest sum of its too wide products of
        sums named, one by one (breqn breaks a line inside one pair of parentheses, however
        deep, but not between two, nor inside a power's)."""
        while True:
            crowded = [f for m in sympy.preorder_traversal(term) for f in self._crowded(m)]
            if not crowded:
                return term
            widest = max(crowded, key=self._width)
            term = term.xreplace({widest: self._name(widest)})

    def _crowded(self, m) -> list:
        """The sums of m, where m is wider than a line and a product of two or more of them,
        a fraction of one (LaTeX's \\frac does not break) or a sum's power."""
        if self._width(m) <= LINE:
            return []
        if m.is_Pow:
            return [m.base] if m.base.is_Add else []
        if not m.is_Mul:
            return []
        sums = [a for a in m.args if a.is_Add]
        fraction = any(a.is_Rational and not a.is_Integer for a in m.args)   # 5 (...)/4
        return sums if len(sums) > 1 or fraction else []

    def _name(self, value):
        """The name of a sum, the same name wherever the sum recurs."""
        if value not in self._named:
            self._named[value] = name = next(self._names)
            self.terms.append((name, self.fit(value)))
        return self._named[value]

    def _width(self, expr) -> int:
        """About the printed characters of ``expr`` in LaTeX: a symbol's own, an operator's
        three, parentheses' two."""
        if expr not in self._widths:
            self._widths[expr] = self._measure(expr)
        return self._widths[expr]

    def _measure(self, expr) -> int:
        if expr.is_Symbol:
            text = self.notation.text_names.get(expr, str(expr).replace("_", ""))
            return sum(1 for c in text if not unicodedata.combining(c))
        if expr.is_Number:
            return len(str(expr)) if not expr.is_Rational else len(str(abs(expr.p))) + 1
        if not expr.args:
            return len(str(expr))
        widths = [self._width(a) + (2 if a.is_Add else 0) for a in expr.args]
        if expr.is_Add:
            return sum(widths) + 3 * (len(widths) - 1)
        if expr.is_Mul or expr.is_Pow:
            return sum(widths) + len(widths) - 1
        return len(type(expr).__name__) + 2 + sum(widths)     # sin(...)
