"""The straight-line program: the typed form every derivation produces and every emitter reads.

A Program is an ordered list of single assignments ``lhs = rhs`` (each lhs assigned once, each rhs
using only inputs and earlier lhs), a list of named inputs and a list of named outputs. Passes are
functions Program -> Program (see passes.py); emitters print one. Nothing here is mutable.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

import sympy


def symbols_in(exprs, found: set | None = None) -> set:
    """The free symbols of all of ``exprs`` (sympy's), found in one walk, added to ``found``.
    sympy's free_symbols builds a set at every node and merges them, twice the time on a
    program's expressions, which have no bound variables (no integrals or lambdas) for it to
    leave out."""
    found = set() if found is None else found
    _collect([e if isinstance(e, sympy.Basic) else sympy.sympify(e) for e in exprs], found)
    return found


def _collect(pending: list, found: set) -> None:
    """The symbols of the expressions ``pending`` (emptied) into ``found``: the walk of every
    pass, so its methods are bound once and each node's arguments read as sympy stores them
    (``_args``, without ``args``' property call)."""
    pop, extend, add = pending.pop, pending.extend, found.add
    while pending:
        expr = pop()
        if expr.is_Symbol:
            add(expr)
        else:
            extend(expr._args)


def support(assignments, roots) -> list:
    """The assignments the expressions ``roots`` depend on, in program order."""
    live = symbols_in(roots)
    needed = []
    for a in reversed(assignments):
        if a.lhs in live:
            needed.append(a)
            _collect([a.rhs], live)
    return needed[::-1]


def compose(name: str, inputs, programs) -> "Program":
    """One program with the outputs of all of ``programs`` (over ``inputs``, which hold every
    input they read): their steps in order, and a step an earlier one already computes -- the
    same right-hand side, read through the sharing so far -- left out, its uses reading the
    earlier one; a step named as an earlier, different one is renamed. None of them solves
    outputs (Solve): their operands would be taken for their values."""
    if any(program.solves for program in programs):
        raise ValueError(f"{name}: a program with solves is not composed")
    taken = {s.name for arg in inputs for s in arg.values}
    defined: dict = {}          # right-hand side -> the symbol that holds it
    body, outputs = [], []
    for program in programs:
        renamed: dict = {}      # its symbols that are named otherwise here
        for a in program.assignments:
            rhs = a.rhs.xreplace(renamed) if renamed else a.rhs
            symbol = defined.get(rhs)
            if symbol is None:
                symbol = a.lhs
                k = 1
                while symbol.name in taken:
                    symbol, k = sympy.Symbol(f"{a.lhs.name}_{k}"), k + 1
                taken.add(symbol.name)
                defined[rhs] = symbol
                body.append(Assignment(symbol, rhs))
            if symbol != a.lhs:
                renamed[a.lhs] = symbol
        outputs += [Argument(out.name, tuple(sympy.sympify(v).xreplace(renamed)
                                             for v in out.values), out.shape)
                    for out in program.outputs]
    return Program(name, tuple(inputs), tuple(body), tuple(outputs))


def view(whole: "Program", name: str, inputs, outputs) -> "Program":
    """The part of ``whole`` that computes ``outputs`` (some of its outputs' values) from
    ``inputs``: the steps they read, and ``whole`` kept, for the passes (Program.whole).
    ``whole`` solves no output (Solve): a view would take the operands for its values."""
    if whole.solves:
        raise ValueError(f"{name}: a view of a program with solves")
    outputs = tuple(outputs)
    return Program(name, tuple(inputs),
                   tuple(support(whole.assignments, [v for out in outputs for v in out.values])),
                   outputs, whole=whole)


@dataclass(frozen=True)
class Assignment:
    lhs: sympy.Symbol
    rhs: sympy.Expr


@dataclass(frozen=True)
class Argument:
    """A named array of the generated function: an input's symbols or an output's expressions.

    ``shape`` is (n,) for a vector or (n, m) for a matrix, whose ``values`` are row-major.
    """

    name: str
    values: tuple[sympy.Expr, ...]
    shape: tuple[int, ...]

    @classmethod
    def vector(cls, name, values):
        values = tuple(values)
        return cls(name, values, (len(values),))


@dataclass(frozen=True)
class Solve:
    """Columns solved by one kernel once every step is done: -M^-1 dtau's with M's factors,
    a KKT system's with the constraints' too. The outputs ``outputs`` hold, stacked row on
    row, the right-hand sides (each output's columns the same count), and the output
    ``factors`` the values the kernel reads, so that every pass treats these operands as
    outputs; ``kernel`` is one column's solve, a program of two inputs (the factors, the
    column) and one output (the column solved), linear in the column (a column of zeros
    solves to zeros). A language that writes loops runs the kernel
    in one loop over the columns, which the compiler vectorizes as Eigen's products are
    vectorized (numpy: on arrays of the columns); the others print it unrolled
    (solves.unrolled), column by column, its zeros skipped."""

    outputs: tuple[str, ...]
    factors: str
    kernel: "Program"


@dataclass(frozen=True)
class Program:
    """``outputs = f(inputs)`` as single assignments, e.g. tau = inverse_dynamics(q, qd, qdd)."""

    name: str
    inputs: tuple[Argument, ...]
    assignments: tuple[Assignment, ...]
    outputs: tuple[Argument, ...]
    # symengine's form of right-hand sides the derivation built there ({sympy's: symengine's}),
    # which the passes would otherwise convert again; a cache, no part of the program's value
    engine_forms: Mapping = field(default_factory=dict, compare=False, repr=False)
    # right-hand sides no part of which recurs in another step, as the derivation knows (an
    # LDL^T solve's products, each with an unknown of that solve alone): CSE passes them by.
    # A hint, held by the expression, so that a pass that changes one drops it.
    irreducible: frozenset = field(default_factory=frozenset, compare=False, repr=False)
    # the program this one is a part of (see view): a pass works on that whole and keeps
    # the steps this one's outputs read, so that each part is its whole's, bit for bit
    whole: "Program | None" = field(default=None, compare=False, repr=False)
    # outputs solved after the last step (Solve); () for almost every program
    solves: tuple[Solve, ...] = ()

    def with_body(self, assignments, outputs=None) -> "Program":
        return replace(self, assignments=tuple(assignments),
                       outputs=self.outputs if outputs is None else tuple(outputs))

    def cached(self, fn):
        """``fn(self)``, computed once for this program: a program never changes, and the
        facts emitters ask of it (its operations, the inputs it reads) cost a walk over all of
        it, once per language otherwise. Kept with the program, gone with it."""
        memo = self.__dict__.setdefault("_cached", {})     # not a field: no part of its value
        if fn not in memo:
            memo[fn] = fn(self)
        return memo[fn]

    @property
    def returned(self) -> tuple[Argument, ...]:
        """The outputs the function returns: all but its solves' factors (Solve)."""
        factors = {solve.factors for solve in self.solves}
        return tuple(out for out in self.outputs if out.name not in factors)

    def output(self, name) -> Argument:
        return next(out for out in self.outputs if out.name == name)

    @property
    def input_symbols(self) -> tuple[sympy.Symbol, ...]:
        return tuple(s for arg in self.inputs for s in arg.values)

    def expanded(self, name: str | None = None) -> sympy.Matrix:
        """An output (the first by default) as closed-form expressions of the inputs.

        Cheap for small robots; for a 6-DOF arm the expressions are large, which is why the
        program exists. A program with solves (Solve) is to be unrolled first (solves.unrolled).
        """
        if self.solves:
            raise ValueError(f"{self.name}: unroll its solves first (solves.unrolled)")
        values = {}
        for a in self.assignments:
            values[a.lhs] = a.rhs.xreplace(values)
        out = self.outputs[0] if name is None else self.output(name)
        flat = [sympy.sympify(v).xreplace(values) for v in out.values]
        return sympy.Matrix(*out.shape, flat) if len(out.shape) == 2 else sympy.Matrix(flat)

