"""M's factorizations, written out as steps: M = L D L^T (a dense M) and Featherstone's
M = L^T D L (a tree's, keeping M's zeros), their solves and M^-1. Forward dynamics solves with
them, its derivatives and the constraints' Delassus matrix too (constraints.py).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass, replace

import symengine
import sympy

from ..program.builder import ProgramBuilder, is_trivial
from ..program.program import Argument, symbols_in
from ..program.symengine_form import as_engine, to_sympy
from .algebra import Matrix, define


def factor(robot, b: ProgramBuilder, M: sympy.Matrix) -> "LDLT | LTDL":
    """M's factors as forward dynamics takes them: Featherstone's L^T D L on the coordinates'
    tree (robot.coordinate_parents), which keeps a tree's zeros and on a chain starts its
    divisions at the tip, where the composite bodies finish first; L D L^T where mimic joints
    across branches fill M in. The same steps each time it is asked for on one program."""
    tree = robot.coordinate_parents
    return LDLT.factor(b, M) if tree is None else LTDL.factor(b, M, tree)


# A semidefinite matrix's pivot below this share of its trace is a zero one's round-off
# (LDLT.factor): 1e4 times double's epsilon, far below any pivot of rows that are
# independent to better than a micro-radian, far above round-off.
PIVOT_FLOOR = 1e-12
# Added to the floor so that an all-zero matrix's pivots fall below it too, and divide by no 0.
TINY = 1e-30


@dataclass(frozen=True)
class LDLT:
    """M = L D L^T written out: the unit lower triangle L and the inverse pivots 1/D.

    Held as symengine's expressions: the sums of M^-1 and of the solves are built there, many
    times faster than sympy builds them (the builder brings each step back).
    """
    L: list          # rows
    inv_d: list

    @classmethod
    def factor(cls, b: ProgramBuilder, M: sympy.Matrix, name: str = "",
               semidefinite: bool = False) -> LDLT:
        """M symmetric positive definite; one division per joint, no square roots; the steps
        named D, iD and L after ``name`` (M's own: none).

        ``semidefinite``: M may be singular (a Delassus matrix where the constraints' rows
        become dependent: a loop at a singular configuration). A pivot below PIVOT_FLOOR
        times M's trace is round-off of a zero one: its inverse is taken as d / floor^2,
        not 1 / d, and falls to 0 with d, so that its unknown drops out and the solve gives
        one of the singular system's solutions (for multipliers, G^T lambda and so the
        motion are every solution's), where 1/d would multiply round-off into 1e17."""
        n, M = M.rows, Matrix(M)
        L = [[symengine.Integer(int(i == j)) for j in range(n)] for i in range(n)]
        d, inv_d = [None] * n, [None] * n
        floor = define(b, f"{name}floor", PIVOT_FLOOR * symengine.Add(*(
            M[j, j] for j in range(n))) + TINY) if semidefinite else None
        for j in range(n):
            d[j] = define(b, f"{name}D{j + 1}", M[j, j] - symengine.Add(*(
                L[j][k] ** 2 * d[k] for k in range(j))))
            if floor is None:
                inv_d[j] = define(b, f"{name}iD{j + 1}", 1 / d[j])
            else:       # d / max(d, floor)^2: 1 / d above the floor, falling to 0 with d
                # below it; max by fabs, not a test, whose (double)(x > 0) cost Cassie's
                # ten pivots 0.2 us
                top = define(b, f"{name}m{j + 1}", (d[j] + floor + abs(d[j] - floor)) / 2)
                inv_d[j] = define(b, f"{name}iD{j + 1}", d[j] / (top * top))
            for i in range(j + 1, n):
                L[i][j] = define(b, f"{name}L{i + 1}_{j + 1}", (M[i, j] - symengine.Add(*(
                    L[i][k] * L[j][k] * d[k] for k in range(j)))) * inv_d[j])
        return cls(L, inv_d)

    def inverse(self, b: ProgramBuilder, name: str = "Minv") -> list[list]:
        """M^-1 = L^-T D^-1 L^-1, rows, its upper triangle computed and mirrored. W = L^-1 is unit
        lower triangular, W_ij = -sum_{j <= k < i} L_ik W_kj, and (M^-1)_ij is the sum over
        k >= max(i, j) of W_ki (1/D_k) W_kj: one triangle, where n solves compute both."""
        L, n = self.L, len(self.inv_d)
        one, zero = symengine.Integer(1), symengine.Integer(0)
        W = [[one if i == j else zero for j in range(n)] for i in range(n)]
        for j in range(n):
            for i in range(j + 1, n):
                W[i][j] = define(b, f"W{i + 1}_{j + 1}", -symengine.Add(*(
                    L[i][k] * W[k][j] for k in range(j, i))))
        U = [[define(b, f"U{k + 1}_{j + 1}", W[k][j] * self.inv_d[k]) if k >= j else zero
              for j in range(n)] for k in range(n)]
        inverse = [[None] * n for _ in range(n)]
        for i in range(n):
            for j in range(i, n):
                inverse[i][j] = inverse[j][i] = define(b, f"{name}{i + 1}_{j + 1}", symengine.Add(*(
                    W[k][i] * U[k][j] for k in range(j, n))))
        return inverse

    @property
    def solve_cost(self) -> int:
        """The multiplications of a solve: L's entries twice, and the pivots."""
        n = len(self.inv_d)
        return n * (n - 1) + n

    def solve(self, b: ProgramBuilder, rhs, unknown: str = "qdd{}_out",
              through: str = "y{}") -> list[sympy.Expr]:
        """x with M x = rhs, by forward and back substitution; x_i named ``unknown`` with i
        (from 1) and the forward pass's values ``through``.

        Where rhs holds symbols and zeros alone, each product of a step pairs an entry of L
        or 1/D with an unknown of this solve or a symbol of its rhs: its steps are irreducible
        (CSE would look in vain, at a cost quadratic in how often L's entries recur). Another
        number in rhs makes products of L's entries, which other solves share.
        """
        rhs = [symengine.sympify(r) for r in rhs]
        irreducible = symbols_and_zeros(rhs)
        return self.finish(b, self.half(b, rhs, through, irreducible), unknown, irreducible)

    def half(self, b: ProgramBuilder, rhs, through: str = "y{}",
             irreducible: bool = False) -> list:
        """y = L^-1 rhs, the forward substitution: M^-1 = L^-T D^-1 L^-1, so that
        g^T M^-1 h = y_g^T D^-1 y_h (the Delassus matrix's entries take a half solve a row)."""
        L = self.L
        y = []
        for i in range(len(self.inv_d)):
            y.append(define(b, through.format(i + 1), symengine.sympify(rhs[i]) - symengine.Add(
                *(L[i][k] * y[k] for k in range(i))), irreducible=irreducible))
        return y

    def finish(self, b: ProgramBuilder, y, unknown: str = "qdd{}_out",
               irreducible: bool = False) -> list[sympy.Expr]:
        """x = L^-T D^-1 y, the back substitution: the solve of rhs after half(rhs)."""
        L, n = self.L, len(self.inv_d)
        x = [None] * n
        for i in reversed(range(n)):
            x[i] = define(b, unknown.format(i + 1), y[i] * self.inv_d[i] - symengine.Add(*(
                L[k][i] * x[k] for k in range(i + 1, n))), irreducible=irreducible)
        return [to_sympy(v) for v in x]


@dataclass(frozen=True)
class LTDL:
    """M = L^T D L for a tree's M, a chain's among them (Featherstone, "Efficient factorization
    of the joint-space inertia matrix for branched kinematic trees", IJRR 2005; RBDA Section
    6.3): L unit lower triangular with L_kj nonzero only where j supports k, the same pattern
    as M's, so that no zero of M is filled in. Held as symengine's expressions, as LDLT's
    are."""

    L: dict          # (k, j) -> L_kj for j an ancestor of k, 0-based
    inv_d: list
    parents: tuple   # 0-based parent of each link, -1 for the base

    @classmethod
    def factor(cls, b: ProgramBuilder, M: sympy.Matrix, parents) -> "LTDL":
        """From the last coordinate to the first: its pivot, then its row of L, taken out of
        the entries of its ancestors (one division per joint, no square roots). ``parents``:
        robot.coordinate_parents, 0-based, -1 for the base."""
        n, M = M.rows, Matrix(M)
        up = tuple(parents)
        H = {(k, j): M[k, j] for k in range(n) for j in _ancestors(up, k, True)}
        L, inv_d = {}, [None] * n
        for k in reversed(range(n)):
            # row k is final once the links it supports are done: named, so that the updates
            # of its ancestors' entries below read symbols, not sums
            for j in _ancestors(up, k):
                H[k, j] = define(b, f"H{k + 1}_{j + 1}", H[k, j])
            d = define(b, f"D{k + 1}", H[k, k])
            inv_d[k] = define(b, f"iD{k + 1}", 1 / d)
            for i in _ancestors(up, k):
                L[k, i] = define(b, f"L{k + 1}_{i + 1}", H[k, i] * inv_d[k])
                for j in _ancestors(up, i, True):
                    H[i, j] = H[i, j] - L[k, i] * H[k, j]
        return cls(L, inv_d, up)

    def inverse(self, b: ProgramBuilder) -> list[list]:
        """M^-1 = W D^-1 W^T with W = L^-1, which has L's pattern: (M^-1)_ij sums
        W_ik (1/D_k) W_jk over the links k that support both i and j."""
        n, up = len(self.inv_d), self.parents
        W = {}
        for k in range(n):
            W[k, k] = symengine.Integer(1)
            for j in _ancestors(up, k):
                W[k, j] = define(b, f"W{k + 1}_{j + 1}", -symengine.Add(*(
                    self.L[k, m] * W[m, j] for m in _ancestors(up, k) if (m, j) in W)))
        U = {(i, k): define(b, f"U{i + 1}_{k + 1}", w * self.inv_d[k])
             for (i, k), w in W.items()}
        inverse = [[None] * n for _ in range(n)]
        for i in range(n):
            for j in range(i, n):
                common = set(_ancestors(up, i, True)) & set(_ancestors(up, j, True))
                inverse[i][j] = inverse[j][i] = define(b, f"Minv{i + 1}_{j + 1}", symengine.Add(
                    *(U[i, k] * W[j, k] for k in sorted(common))))
        return inverse

    @property
    def solve_cost(self) -> int:
        """The multiplications of a solve: L's entries twice, and the pivots."""
        return 2 * len(self.L) + len(self.inv_d)

    def solve(self, b: ProgramBuilder, rhs, unknown: str = "qdd{}_out",
              through: str = "y{}") -> list[sympy.Expr]:
        """x with M x = rhs: L^T y = rhs from the leaves in, y / D, then L x = y / D from the
        base out (RBDA Table 6.4); x_i named ``unknown`` with i (from 1), y_i ``through``.
        Where rhs holds symbols and zeros alone, no product of a step recurs (LDLT.solve)."""
        rhs = [symengine.sympify(r) for r in rhs]
        irreducible = symbols_and_zeros(rhs)
        return self.finish(b, self.half(b, rhs, through, irreducible), unknown, irreducible)

    def half(self, b: ProgramBuilder, rhs, through: str = "y{}",
             irreducible: bool = False) -> list:
        """y = L^-T rhs, from the leaves in: M^-1 = L^-1 D^-1 L^-T, so that g^T M^-1 h =
        y_g^T D^-1 y_h (LDLT.half)."""
        up = self.parents
        y = [symengine.sympify(r) for r in rhs]
        for k in reversed(range(len(self.inv_d))):
            y[k] = define(b, through.format(k + 1), y[k], irreducible=irreducible)
            for j in _ancestors(up, k):
                y[j] = y[j] - self.L[k, j] * y[k]
        return y

    def finish(self, b: ProgramBuilder, y, unknown: str = "qdd{}_out",
               irreducible: bool = False) -> list[sympy.Expr]:
        """x = L^-1 D^-1 y, from the base out: the solve of rhs after half(rhs)."""
        up = self.parents
        x = [None] * len(self.inv_d)
        for k in range(len(self.inv_d)):
            x[k] = define(b, unknown.format(k + 1), y[k] * self.inv_d[k] - symengine.Add(*(
                self.L[k, j] * x[j] for j in _ancestors(up, k))), irreducible=irreducible)
        return [to_sympy(v) for v in x]


# Fewer columns than this are solved in the derivation's steps, not in a loop (solve_columns):
# AVX-512 holds 8 doubles, AVX2 4, and a loop over fewer columns than a vector holds gains
# nothing over straight-line code that skips the zeros (two four-bars on one base, 6 columns:
# their constrained FD derivatives 160 ns unrolled, 174 ns in loops).
LOOP_COLUMNS = 8


def solve_columns(b: ProgramBuilder, rhs: dict, columns: int, factors, solve,
                  name: str) -> list[list]:
    """The values of the outputs ``rhs`` names, whose columns (their rows stacked, each
    output row-major with ``columns`` columns) are solved by ``solve(kb, factors, column,
    suffix)``: one column's solve written with the builder ``kb`` from ``factors`` (LTDL,
    Multipliers, M^-1's entries: what the derivation holds), its steps' names ending in
    ``suffix``.

    With LOOP_COLUMNS columns or more, the program solves them once its steps are done
    (program.Solve): the outputs hold the right-hand sides, and a kernel, one column's solve
    as a program of its own in which every expression of ``factors`` but a number is a symbol,
    whose values the output ``factors`` holds (the solves of one program share it). C
    runs the kernel in one loop over the columns, which gcc vectorizes: Solo-12's 36 solves
    for its FD derivatives took 1.14 us unrolled, 0.55 us in the loop; TALOS's 76, 18 us and
    4.6 us. Fewer columns are solved here, column by column. ``name``: the kernel's."""
    stacked = [(out, values[i * columns:(i + 1) * columns]) for out, values in rhs.items()
               for i in range(len(values) // columns)]
    if columns < LOOP_COLUMNS:
        solved = [solve(b, factors, [row[c] for _, row in stacked], f"_{c + 1}")
                  for c in range(columns)]
        out = {name: [] for name in rhs}
        for k, (output, _) in enumerate(stacked):
            out[output] += [to_sympy(solved[c][k]) for c in range(columns)]
        return list(out.values())
    slots: dict = {}            # an expression of the derivation's -> the kernel's symbol

    def slot(value):
        if isinstance(value, int) or value.is_Number:
            return value
        return slots.setdefault(value, symengine.Symbol(f"f{len(slots)}"))
    column = [symengine.Symbol(f"b{i}") for i in range(len(stacked))]
    mapped = _mapped(factors, slot)     # every slot made: the kernel's steps are named apart
    kb = ProgramBuilder(reserved={s.name for s in [*column, *slots.values()]})
    result = solve(kb, mapped, column, "")
    program = kb.program(name, (), [Argument.vector("column", map(to_sympy, result))])
    read = symbols_in([a.rhs for a in program.assignments] + list(program.outputs[0].values))
    used = [(value, symbol) for value, symbol in slots.items() if to_sympy(symbol) in read]
    inputs = (Argument.vector("factors", [to_sympy(symbol) for _, symbol in used]),
              Argument.vector("column", map(to_sympy, column)))
    b.solve(list(rhs), Argument.vector("factors", [to_sympy(v) for v, _ in used]),
            replace(program, inputs=inputs))
    return [list(values) for values in rhs.values()]


def _mapped(value, leaf):
    """``value`` (a dataclass, a dict, a list, a tuple, a sympy Matrix or an expression, nested)
    with ``leaf`` of each expression and number in it."""
    if is_dataclass(value):
        return replace(value, **{f.name: _mapped(getattr(value, f.name), leaf)
                                 for f in fields(value)})
    if isinstance(value, dict):
        return {key: _mapped(v, leaf) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_mapped(v, leaf) for v in value)
    if isinstance(value, sympy.MatrixBase):
        return value.applyfunc(lambda v: to_sympy(leaf(as_engine(v))))
    return None if value is None else leaf(value)


def symbols_and_zeros(rhs) -> bool:
    """Whether a solve's right-hand side holds symbols (or their negations) and zeros alone:
    then no product of its steps recurs (LDLT.solve)."""
    return all(r == 0 or not r.is_Number and is_trivial(r) for r in rhs)


def _ancestors(parents, k: int, itself: bool = False) -> list[int]:
    """The links that support link k (0-based, parents[-1] for the base), nearest first; k
    too, first, with ``itself``."""
    out = [k] if itself else []
    k = parents[k]
    while k >= 0:
        out.append(k)
        k = parents[k]
    return out
