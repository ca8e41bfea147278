"""Naming intermediates while deriving (Khalil's customized Newton-Euler, SymPyBotics' ``ifunc``).

A derivation hands every intermediate quantity to ``ProgramBuilder.define``. A non-trivial one is
written as an assignment to a fresh symbol, and the symbol stands in for it from then on, so no
expression ever grows beyond a few terms; zeros, ones, numbers, plain symbols and negated symbols
are passed through, so they cost nothing, and an expression already defined is given its first
symbol again (U_xx = U_yy = -qd1**2 is computed once).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Iterable

import symengine
import sympy

from .program import Argument, Assignment, Program, Solve
from .symengine_form import engine_form, to_sympy


def is_trivial(expr) -> bool:
    """True for what costs nothing to repeat: numbers, symbols and their negations (sympy's
    expressions or symengine's, which answer the same questions)."""
    if expr.is_Number or expr.is_Symbol:
        return True
    return expr.is_Mul and len(expr.args) == 2 and expr.args[0] == -1 and expr.args[1].is_Symbol


def _expanded(expr):
    """symengine's expansion of ``expr``, or None for sympy's expressions expanded already
    (the round trip would cost more)."""
    if isinstance(expr, sympy.Basic) and _is_expanded(expr):
        return None
    return symengine.expand(symengine.sympify(expr))


def _is_expanded(expr: sympy.Expr) -> bool:
    """True where expanding changes nothing: no sum is a factor or raised to a power (sympy
    already merges like terms and distributes a number over a sum; symengine's expand leaves
    function arguments alone)."""
    if expr.is_Add:
        return all(_is_expanded(term) for term in expr.args)
    if expr.is_Mul:
        return all(not factor.is_Add and _is_expanded(factor) for factor in expr.args)
    if expr.is_Pow:
        return expr.base.is_Symbol or expr.base.is_Function
    return True


class ProgramBuilder:
    """Collects assignments in the order a derivation defines them."""

    def __init__(self, reserved: Iterable[str] = ()):
        self._assignments: list[Assignment] = []
        self._requested: list[str] = []      # the name each assignment was defined under
        self._defined: dict[sympy.Expr, sympy.Symbol] = {}
        self._converted: dict = {}           # symengine's expressions met, as sympy's
        self._engine: dict = {}              # and the reverse, for the steps (engine_forms)
        self._by_engine: dict = {}           # symengine's form of a step -> its symbol
        self._irreducible: set = set()       # right-hand sides CSE is to pass by
        self._taken = set(reserved)
        self._solves: list[Solve] = []
        self._factors: dict[str, Argument] = {}     # the solves' factors outputs, by name
        self._ended = False                  # end(): no more steps

    def define(self, name: str, expr, expand: bool = True,
               irreducible: bool = False) -> sympy.Expr:
        """``expr`` (expanded, unless told not to) as a new symbol named after ``name``, unless
        it is trivial. ``irreducible``: the derivation knows that no part of ``expr`` recurs in
        another step (see Program.irreducible)."""
        if self._ended:
            raise ValueError("a step defined after the derivation's end")
        if expand:
            engine = _expanded(expr)
        elif isinstance(expr, symengine.Basic):
            engine = expr
        else:
            expr, engine = sympy.sympify(expr), None
        if engine is not None:
            # a step met again is known by symengine's form, which hashes and compares in
            # C++: a tenth of a chain's steps, not converted to sympy's again
            known = self._by_engine.get(engine)
            if known is not None:
                return known
            # not sympify: its way back is generic and 5 times slower
            expr = to_sympy(engine, self._converted)
            if is_trivial(expr):
                return expr
            if expr in self._defined:
                return self._by_engine.setdefault(engine, self._defined[expr])
        elif is_trivial(expr):
            return expr
        elif expr in self._defined:
            return self._defined[expr]
        symbol = self._defined[expr] = sympy.Symbol(self._fresh(name))
        if engine is not None:
            self._engine[expr] = engine
            self._by_engine[engine] = symbol
        if irreducible:
            self._irreducible.add(expr)
        self._assignments.append(Assignment(symbol, expr))
        self._requested.append(name)
        return symbol

    def include(self, other: "ProgramBuilder", values: dict) -> dict:
        """Another derivation's steps, defined again here as if derived here: the same names
        asked for, the same expressions (already expanded) in this builder's symbols, so a step
        this derivation already has is shared. ``values`` gives the other's inputs in this
        program's terms; the result maps those of its symbols named otherwise here to this
        program's, for its outputs."""
        mapping = dict(values)
        for name, a in zip(other._requested, other._assignments):
            rhs = a.rhs.xreplace(mapping)
            if rhs is a.rhs and rhs in other._engine:
                self._engine.setdefault(rhs, other._engine[rhs])
            symbol = self.define(name, rhs, expand=False,
                                 irreducible=rhs is a.rhs and rhs in other._irreducible)
            if symbol != a.lhs:     # only what changes: xreplace rebuilds all it touches
                mapping[a.lhs] = symbol
        return mapping

    def components(self, name: str, values, expand: bool = True) -> list:
        """A 3-vector's components, named ``{name}_x``, ``{name}_y``, ``{name}_z``."""
        return [self.define(f"{name}_{axis}", v, expand) for axis, v in zip("xyz", values)]

    def vector(self, name: str, values, expand: bool = True) -> sympy.Matrix:
        """``components`` as sympy's column."""
        return sympy.Matrix(self.components(name, values, expand))

    def engine_form(self, expr):
        """``expr`` as symengine's: a step's right-hand side as it was built, anything else
        converted."""
        return engine_form(expr, self._engine)

    @property
    def assignments(self) -> tuple[Assignment, ...]:
        return tuple(self._assignments)

    def solve(self, outputs, factors: Argument, kernel: Program) -> None:
        """Have the program solve its outputs ``outputs`` after its steps (Solve): ``kernel``
        solves a column, reading ``factors`` (its first input, with their values here, an
        output of the program that several solves may share)."""
        if self._factors.setdefault(factors.name, factors) != factors:
            raise ValueError(f"two solves' factors are named {factors.name}")
        self._solves.append(Solve(tuple(outputs), factors.name, kernel))

    def program(self, name: str, inputs: Iterable[Argument],
                outputs: Iterable[Argument]) -> Program:
        """The steps so far as a program of ``outputs``, and of the factors its solves read
        after them."""
        return Program(name, tuple(inputs), tuple(self._assignments),
                       tuple(outputs) + tuple(self._factors.values()),
                       MappingProxyType(self._engine), frozenset(self._irreducible),
                       solves=tuple(self._solves))

    def end(self) -> None:
        """The derivation is over: the memos that only found its steps again go (a 64-joint
        chain's, 260 MB of its 1.2 GB of derivations), while what ``include`` reads stays."""
        self._ended = True
        self._converted, self._defined, self._by_engine = {}, {}, {}

    def _fresh(self, name: str) -> str:
        candidate, k = name, 1
        while candidate in self._taken:
            candidate, k = f"{name}_{k}", k + 1
        self._taken.add(candidate)
        return candidate
