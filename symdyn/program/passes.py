"""Program -> Program passes, and the operation count they are judged by.

Each pass keeps the program's meaning and does one thing:

* ``fold_parameters``: free parameters fixed to numbers are substituted (``substitute``) and
  dropped from the inputs; sympy folds the constants as it rebuilds each expression, so
  products with 0 vanish, factors 1 disappear and signs merge;
* ``propagate_copies``: assignments of a number, a symbol or a negated symbol are substituted
  into their uses (a derivation leaves them where an expression folds, ``x = 0``);
* ``rename``: symbols get other names (the emitters' identifiers);
* ``eliminate_dead_code``: assignments no output depends on are dropped;
* ``eliminate_common_subexpressions``: symengine's CSE over the right-hand sides (but those the
  program holds irreducible), each new temporary placed just before its first use, and the
  copies it leaves (``x = t3``) dropped;
* ``hoist_trigonometry``: sin and cos of the inputs move to the top, where they overlap;
* ``optimize``: the pipeline ``generate`` runs, and ``optimize_all`` runs it once for programs
  that share their steps.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from time import monotonic

import symengine
import sympy

from .builder import is_trivial
from .program import Argument, Assignment, Program, support, symbols_in
from .symengine_form import engine_form, to_sympy


def fold_parameters(program: Program, values) -> Program:
    """Fix some free parameters: ``values`` maps their symbols to numbers (or expressions)."""
    values = dict(values)
    inputs = tuple(
        Argument.vector(arg.name, [s for s in arg.values if s not in values])
        if arg.name == "params" else arg
        for arg in program.inputs)
    folded = substitute(program, values)
    return replace(folded, inputs=tuple(arg for arg in inputs if arg.values))


def substitute(program: Program, values: dict) -> Program:
    """``values`` (symbols -> expressions) written into every step and output: a free
    parameter's number, or a mimic joint's variable in the coordinates (derive/quantities)."""
    body = [Assignment(a.lhs, a.rhs.xreplace(values)) for a in program.assignments]
    return program.with_body(body, _map_outputs(program, lambda e: e.xreplace(values)))


def rename(program: Program, names: dict) -> Program:
    """Give symbols other names (input symbols and assigned ones alike); nothing else changes."""
    names = {old: new for old, new in names.items() if old != new}
    if not names:
        return program
    inputs = tuple(Argument(arg.name, tuple(s.xreplace(names) for s in arg.values), arg.shape)
                   for arg in program.inputs)
    body = [Assignment(a.lhs.xreplace(names), a.rhs.xreplace(names))
            for a in program.assignments]
    renamed = program.with_body(body, _map_outputs(program, lambda e: e.xreplace(names)))
    return replace(renamed, inputs=inputs)


def propagate_copies(program: Program) -> Program:
    copies: dict[sympy.Symbol, sympy.Expr] = {}
    body = []
    for a in program.assignments:
        # xreplace walks the whole expression even where it has nothing to replace
        rhs = a.rhs
        if copies and not copies.keys().isdisjoint(symbols_in((rhs,))):
            rhs = rhs.xreplace(copies)
        if is_trivial(rhs):
            copies[a.lhs] = rhs
        else:
            body.append(Assignment(a.lhs, rhs))
    return program.with_body(body, _map_outputs(program, lambda e: e.xreplace(copies)))


def eliminate_dead_code(program: Program) -> Program:
    return program.with_body(support(program.assignments,
                                     [v for out in program.outputs for v in out.values]))


# Expressions per call of symengine's CSE. Its search for shared factors is quadratic in how
# often a factor recurs (sin and cos of the joints in a hundred products each, the factor 2 in a
# thousand), while what a step shares it nearly always shares with steps near it. For a 20-joint
# chain, windows optimize the derivatives in 2.8 s instead of 3.6 s, with 0.7% more
# multiplications. No shipped robot's program is that long.
WINDOW = 3072
# And terms per call: its search for shared sub-sums grows with the square of the sums' lengths.
# The Lagrange route's derivatives (sums of hundreds of terms, 106,000 in all for the Panda's
# inverse dynamics derivatives) took 70 s in two windows, 10 s in windows of 5000 terms, with
# 4% more multiplications. No Newton-Euler program of a shipped robot reaches 5000 terms.
WINDOW_TERMS = 5000


def _windows(exprs) -> list[slice]:
    """Consecutive runs of at most WINDOW expressions and about WINDOW_TERMS terms (a sum's
    terms; any other expression counts one)."""
    windows, start, terms = [], 0, 0
    for k, e in enumerate(exprs):
        terms += len(e.args) if isinstance(e, symengine.Add) else 1
        if k - start + 1 >= WINDOW or terms >= WINDOW_TERMS:
            windows.append(slice(start, k + 1))
            start, terms = k + 1, 0
    if start < len(exprs):
        windows.append(slice(start, len(exprs)))
    return windows


def eliminate_common_subexpressions(program: Program) -> Program:
    """Common subexpressions across the program, a window (``_windows``) at a time,
    become temporaries ``t0, t1, ...``, each placed just before its first use. An assignment
    that CSE leaves a copy (a temporary, its negation) is dropped and its uses read what it
    copies, as ``propagate_copies`` would. Irreducible right-hand sides (Program.irreducible)
    are not searched: there is nothing in them to find, and for a 20-joint chain's forward
    dynamics derivatives the search of their 2n LDL^T solves took a third of the pass."""
    rhs = [a.rhs for a in program.assignments]
    outs = [sympy.sympify(v) for out in program.outputs for v in out.values]
    originals = rhs + outs
    given = [engine_form(e, program.engine_forms) for e in originals]
    taken = {s.name for s in program.input_symbols} | {a.lhs.name for a in program.assignments}
    names = _fresh_names("t", taken)
    earlier: dict = {}      # earlier windows' copies (symengine's symbol -> what it copies)
    body: list[Assignment] = []
    values = []             # the outputs' new forms
    for part in _windows(given):
        start = part.start
        # Earlier windows' copies are replaced before CSE, which then sees every symbol the
        # window reads and names its temporaries apart from them.
        exprs, kept = zip(*(_replaced(e, original, earlier)
                            for e, original in zip(given[part], originals[part])))
        searched = [k >= len(rhs) or originals[k] not in program.irreducible
                    for k in range(start, start + len(exprs))]
        window = _Window([e for e, s in zip(exprs, searched) if s], names, body)
        found = iter(window.reduced)
        reduced = [next(found) if s else e for e, s in zip(exprs, searched)]
        for k, (original, before, e) in enumerate(zip(kept, exprs, reduced), start):
            value = window.settle(e)
            if k >= len(rhs):
                values.append(window.converted(original, before, value))
            elif value != before and is_trivial(value):
                window.copy(symengine.Symbol(program.assignments[k].lhs.name), value)
            else:
                body.append(Assignment(program.assignments[k].lhs,
                                       window.converted(original, before, value)))
        earlier.update(window.exported())
    out_values = iter(values)
    # the derivation's symengine forms (Program.engine_forms) and irreducible steps are of
    # steps no longer there, which they would keep alive as long as the optimized program
    return replace(program.with_body(body, _map_outputs(program, lambda _: next(out_values))),
                   engine_forms={}, irreducible=frozenset())


def _replaced(expr, original, copies: dict):
    """``expr`` with ``copies`` replaced, and its sympy form ``original`` where that still
    holds (else None)."""
    hit = {s: copies[s] for s in expr.free_symbols if s in copies} if copies else None
    return (expr.xreplace(hit), None) if hit else (expr, original)


class _Window:
    """symengine's CSE of consecutive expressions of a program (``reduced``, to be settled in
    order): their temporaries, the copies they leave, and the body the temporaries go into."""

    def __init__(self, exprs, names, body: list):
        replacements, self.reduced = symengine.cse(list(exprs))
        # Renamed as they are converted back to sympy, by the conversion's memo (symengine's
        # xreplace copies its whole dictionary on every call: quadratic in the program's size).
        self.memo: dict = {temp: sympy.Symbol(next(names)) for temp, _ in replacements}
        self.temps = dict(replacements)
        self.order = {temp: k for k, temp in enumerate(self.temps)}   # as symengine made them
        # Copies, the temporaries' apart from the assignments': a temporary may have the name
        # of an assignment this window does not read (x0), and in the reduced expressions that
        # name is the temporary's.
        self.temp_copies: dict = {}
        self.copies: dict = {}
        self.placed: set = set()
        self.body = body

    def settle(self, expr):
        """``expr`` with the temporaries it first uses placed, dependencies first, and its
        copies replaced (on symengine's side, whose free_symbols costs a fraction of sympy's,
        and which merges what the replacement makes alike: x0 - a = 0 for a = x0)."""
        symbols = expr.free_symbols
        temps = self.temps.keys() & symbols      # set operations: most expressions read few
        for temp in sorted(temps - self.placed, key=self.order.__getitem__):
            if temp in self.placed:          # placed meanwhile, as another one's dependency
                continue
            value = self.settle(self.temps[temp])
            self.placed.add(temp)
            if is_trivial(value):
                self.temp_copies[temp] = value
            else:
                self.body.append(Assignment(self.memo[temp], to_sympy(value, self.memo)))
        hit = {s: self.temp_copies[s] for s in self.temp_copies.keys() & temps}
        hit.update((s, self.copies[s]) for s in self.copies.keys() & (symbols - temps))
        return expr.xreplace(hit) if hit else expr

    def copy(self, symbol, value):
        """An assignment left a copy of ``value``: its uses read ``value``."""
        self.copies[symbol] = value

    def exported(self) -> dict:
        """The assignments' copies for the windows after this one, a temporary among them by
        its name: the next window's CSE names its own x0, x1, ... too."""
        def named(value):
            return value.xreplace({x: symengine.Symbol(self.memo[x].name)
                                   for x in value.free_symbols if x in self.temps})
        return {s: named(value) for s, value in self.copies.items()}

    def converted(self, original, before, expr):
        # An expression CSE left alone (a third to a half of them) keeps its sympy form.
        if original is not None and expr == before:
            return original
        return to_sympy(expr, self.memo)


def hoist_trigonometry(program: Program) -> Program:
    """Assignments ``s = sin(x)``, ``c = cos(x)`` whose x reads only inputs go first, in order.

    Each sin/cos is a long chain of dependent operations that needs nothing computed. Placed
    where the recursion first reads it, it stalls the link that waits for it; listed together at
    the top, the chains of all joints run side by side (the PUMA 560's C tau: 167 -> 121 ns).
    An angle with an offset, ``t3 = 0.3 + q2`` (robot.model), is written into its sin and cos
    again, so that they too read only inputs; ``t3`` is then dead code unless something else
    reads it (``optimize`` eliminates dead code after this pass).
    """
    inputs = set(program.input_symbols)
    offsets = {a.lhs: a.rhs for a in program.assignments if _is_offset_angle(a.rhs, inputs)}

    def is_trigonometry(a):
        return isinstance(a.rhs, (sympy.sin, sympy.cos)) and a.rhs.free_symbols <= inputs

    body = [Assignment(a.lhs, a.rhs.xreplace(offsets))
            if isinstance(a.rhs, (sympy.sin, sympy.cos)) else a for a in program.assignments]
    first = [a for a in body if is_trigonometry(a)]
    rest = [a for a in body if not is_trigonometry(a)]
    return program.with_body(first + rest)


def _is_offset_angle(expr, inputs) -> bool:
    """An input plus a number (or a number minus an input): an angle and its offset."""
    if not (expr.is_Add and len(expr.args) == 2 and expr.args[0].is_Number):
        return False
    variable = expr.args[1]
    return variable in inputs or (variable.is_Mul and -variable in inputs)


def prepare_all(programs, values=None) -> list[Program]:
    """``prepare`` of each program, a whole (Program.whole) prepared once for all its parts."""
    programs = list(programs)
    wholes = {id(p.whole): prepare(p.whole, values) for p in programs if p.whole is not None}
    return [prepare(p, values) if p.whole is None else part_of(wholes[id(p.whole)], p)
            for p in programs]


def prepare(program: Program, values=None) -> Program:
    """The passes every printed program needs: ``values`` fixed, copies and dead code gone.
    The rest of ``optimize`` only makes the code faster. A part (Program.whole) is its whole's,
    passed, as all these passes are."""
    if program.whole is not None:
        return part_of(prepare(program.whole, values), program)
    if values:
        program = fold_parameters(program, values)
    return eliminate_dead_code(propagate_copies(program))


def optimize(program: Program, values=None) -> Program:
    """The passes ``generate`` runs, in order; ``values`` fixes free parameters first."""
    if program.whole is not None:
        return part_of(optimize(program.whole, values), program)
    program = eliminate_common_subexpressions(prepare(program, values))
    return eliminate_dead_code(hoist_trigonometry(program))


def optimize_all(programs, values=None, progress=None) -> list[Program]:
    """``optimize`` of each program. Programs with the same steps (the base regressor is a
    choice of the regressor's outputs) are optimized once, as one program with the first one's
    outputs and whatever the others add, and then each keeps the steps its own outputs read.
    ``progress`` hears of each optimization as it starts."""
    programs = list(programs)
    # a part is optimized as its whole (once, whether asked for or not) and cut from it
    wholes = {id(p.whole): p.whole for p in programs if p.whole is not None}
    alone = list({id(p): p for p in programs + list(wholes.values()) if p.whole is None}.values())
    sharing: dict = {}
    for program in alone:
        sharing.setdefault(_steps_key(program), []).append(program)
    optimized = {}
    total = sum(len(group[0].assignments) for group in sharing.values())
    done, started = 0, monotonic()
    for group in sharing.values():
        steps = len(group[0].assignments)
        if progress:
            progress(f"optimizing {', '.join(p.name for p in group)} ({steps} steps"
                     f"{_time_left(done, total, monotonic() - started)})")
        done += steps
        if len(group) == 1:
            optimized[id(group[0])] = optimize(group[0], values)
            continue
        entries = [[sympy.sympify(v) for out in p.outputs for v in out.values] for p in group]
        known = set(entries[0])
        joint = entries[0] + [e for e in dict.fromkeys(e for more in entries[1:] for e in more)
                              if e not in known]
        together = optimize(replace(group[0], outputs=(Argument.vector("outputs", joint),)),
                            values)
        found: dict = {}
        for entry, value in zip(joint, together.outputs[0].values):
            found.setdefault(entry, value)
        for p in group:
            outputs = [Argument(out.name, tuple(found[sympy.sympify(v)] for v in out.values),
                                out.shape) for out in p.outputs]
            optimized[id(p)] = eliminate_dead_code(replace(together, name=p.name,
                                                           outputs=tuple(outputs)))
    return [optimized[id(p)] if p.whole is None else part_of(optimized[id(p.whole)], p)
            for p in programs]


def _time_left(done: int, total: int, elapsed: float) -> str:
    """How much of the optimizing is done and the time it has left, from the steps optimized so
    far: its time grows about linearly with a program's steps (CSE's windows bound it; 0.25-0.9
    ms a step across the Panda's Lagrange programs), once some are done to take the rate from
    and while more than a second is left."""
    left = elapsed * (total - done) / done if done else 0.0
    if left < 1:
        return ""
    return f"; {done / total:.0%} of all steps done, about {left:.0f} s of optimizing left"


def part_of(passed: Program, part: Program) -> Program:
    """``part`` (a view of its whole, see program.view) cut from ``passed``, what a pass made
    of the whole: the outputs it names, now as ``passed`` computes them, and the steps they
    read. Every step is the whole's own, so each output is the whole's, bit for bit."""
    found: dict = {}
    for before, after in zip(part.whole.outputs, passed.outputs):
        for value, done in zip(before.values, after.values):
            found.setdefault(sympy.sympify(value), done)
    outputs = tuple(Argument(out.name, tuple(found[sympy.sympify(v)] for v in out.values),
                             out.shape) for out in part.outputs)
    own = {arg.name for arg in part.inputs}     # as the pass left them (parameters fixed)
    return eliminate_dead_code(replace(
        passed, name=part.name, inputs=tuple(arg for arg in passed.inputs if arg.name in own),
        outputs=outputs, whole=None))


def _steps_key(program: Program):
    """What programs must have in common to be optimized as one: the very same steps (one
    tuple, made once by the derivation) over the same inputs. A program without steps shares
    nothing: every empty tuple is one object, so identity alone would join, say, the one-joint
    base_parameters(pi) (its output an input, unchanged) with friction_torques(qd)."""
    if not program.assignments:
        return id(program)
    return id(program.assignments), program.inputs


@dataclass(frozen=True)
class OpCount:
    """Arithmetic of a program as the printed code performs it.

    ``mul`` counts multiplications and divisions (x**k costs k-1, a constant factor costs one,
    a factor -1 nothing: it becomes a subtraction); ``add`` counts additions and subtractions;
    ``calls`` counts sin, cos, sqrt and other function calls.
    """

    mul: int
    add: int
    calls: int

    def __add__(self, other):
        return OpCount(self.mul + other.mul, self.add + other.add, self.calls + other.calls)

    def __str__(self):
        return f"{self.mul} mul, {self.add} add, {self.calls} calls"


def op_count(program: Program) -> OpCount:
    """The program's arithmetic, counted once per program (every emitter reports it)."""
    return program.cached(_op_count)


def solve_operations(program: Program) -> int:
    """The multiplications and additions of the program's solves (Solve), as their loops run
    the kernel on every column."""
    loops = _solves_count(program)
    return loops.mul + loops.add


def _solves_count(program: Program) -> OpCount:
    """The arithmetic of the program's solves: the kernel's once a column, as its loop
    computes it."""
    total = OpCount(0, 0, 0)
    for solve in program.solves:
        kernel, columns = op_count(solve.kernel), program.output(solve.outputs[0]).shape[1]
        total += OpCount(columns * kernel.mul, columns * kernel.add, columns * kernel.calls)
    return total


def _op_count(program: Program) -> OpCount:
    mul = add = calls = 0
    pending = [a.rhs for a in program.assignments] + [
        sympy.sympify(v) for out in program.outputs for v in out.values]
    while pending:      # a loop, not a recursion: programs have 10^5 nodes
        expr = pending.pop()
        args = expr._args       # as sympy stores them: no property call on 10^5 nodes
        if not args:
            continue
        pending.extend(args)
        if expr.is_Add:
            add += len(args) - 1
        elif expr.is_Mul:
            # sympy holds a product's number first (as_coeff_mul's coefficient)
            first = args[0]
            if not first.is_Number:
                mul += len(args) - 1
            else:
                mul += len(args) - 2 + (0 if _is_unit(first) else 1)
        elif expr.is_Pow and expr.exp.is_Integer:
            exponent = int(expr.exp)
            mul += abs(exponent) - 1 + (1 if exponent < 0 else 0)
        else:
            calls += 1
    return OpCount(mul, add, calls) + _solves_count(program)


def entry_cost(program: Program, limit: int) -> int:
    """The operations (nodes of the expressions) that computing each output entry on its own
    would take, its steps and theirs, none shared between entries, summed over the entries:
    counted only until the sum passes ``limit``, so that it costs at most that many visits."""
    rhs = {a.lhs: a.rhs for a in program.assignments}
    total = 0
    for out in program.outputs:
        for value in out.values:
            seen: set = set()
            pending = [sympy.sympify(value)]
            while pending:
                expr = pending.pop()
                if expr.is_Symbol:
                    if expr in rhs and expr not in seen:
                        seen.add(expr)
                        pending.append(rhs[expr])
                elif expr._args:
                    total += 1
                    if total > limit:
                        return total
                    pending.extend(expr._args)
    return total


def kept_values(program: Program, write_cost: int, rounds: int = 3) -> frozenset:
    """The assignments worth computing once and keeping in memory for a batch, where a compiler
    that fuses each output entry's loop with all it reads would compute them again in every
    loop that reads them (XLA's, JAX's _once): every sine and cosine, and a value whose
    operations (nodes of the expressions, as entry_cost) times the times it would be computed
    again outweigh ``write_cost``, the operations' worth of writing and reading it back.

    How often a value is computed depends on which values after it are kept, and what it costs
    on which before it are: ``rounds`` passes alternate between the two, backwards deciding
    from the counts of its readers, forwards recounting the costs (three settle the shipped
    arms within a few values of a greedy choice that recounts after each value, at a linear
    cost in the steps, not a quadratic one)."""
    lhs = [a.lhs for a in program.assignments]
    assigned = set(lhs)
    reads = [[s for s in symbols_in([a.rhs]) if s in assigned] for a in program.assignments]
    own = [_nodes(a.rhs) for a in program.assignments]
    trig = {a.lhs for a in program.assignments if a.rhs.func in (sympy.sin, sympy.cos)}
    readers: dict = {s: [] for s in lhs}
    for k, symbols in enumerate(reads):
        for s in symbols:
            readers[s].append(k)
    by_outputs = dict.fromkeys(lhs, 0)
    for out in program.outputs:
        for value in out.values:
            for s in symbols_in([sympy.sympify(value)]):
                if s in assigned:
                    by_outputs[s] += 1
    index = {s: k for k, s in enumerate(lhs)}
    kept = set(trig)
    for _ in range(rounds):
        cost: list[int] = []
        for k, symbols in enumerate(reads):
            cost.append(own[k] + sum(cost[index[s]] for s in symbols if s not in kept))
        computed = [0] * len(lhs)
        kept = set(trig)
        for k in reversed(range(len(lhs))):
            computed[k] = by_outputs[lhs[k]] + sum(1 if lhs[r] in kept else computed[r]
                                                   for r in readers[lhs[k]])
            if (computed[k] - 1) * cost[k] > write_cost:
                kept.add(lhs[k])
    return frozenset(kept)


def _nodes(expr) -> int:
    """The operations of an expression: its nodes with arguments."""
    count, pending = 0, [expr]
    while pending:
        node = pending.pop()
        if node._args:
            count += 1
            pending.extend(node._args)
    return count


def _is_unit(number) -> bool:
    """Whether a product's number is 1 or -1 (a Float's by its mpf tuple: abs() and == would
    make a Float and convert it, on every product of a program of generic geometry)."""
    if number.is_Float:
        return number._mpf_ in _UNIT_MPFS
    return number is _MINUS_ONE or number is _ONE


_MINUS_ONE, _ONE = sympy.S.NegativeOne, sympy.S.One
_UNIT_MPFS = {sympy.Float(1)._mpf_, sympy.Float(-1)._mpf_}


def _map_outputs(program: Program, fn) -> list[Argument]:
    return [Argument(out.name, tuple(fn(sympy.sympify(v)) for v in out.values), out.shape)
            for out in program.outputs]


def _fresh_names(prefix, taken):
    k = 0
    while True:
        name = f"{prefix}{k}"
        k += 1
        if name not in taken:
            yield name
