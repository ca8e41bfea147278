"""The order of a program's steps for a machine that runs them out of order: the long chains
started first, within a bound on the values held at once.

A derivation leaves its steps in the order it found them: a link's quantities, then the next
link's. A processor that reorders instructions looks a few hundred ahead at most; where the
steps in that window wait on one another, it waits too. List scheduling (the compilers' pass
before register allocation; gcc runs it on x86 only under -fschedule-insns) takes, among the
steps whose operands are ready, the one that heads the longest chain of dependent operations
to the end of the program, so that independent chains interleave. Each value computed early
lives until its last use: past REGISTERS values live at once, the choice goes to the ready
step that leaves the fewest live (ties: the most critical), so that the compiler spills little.

Measured on the shipped arms' C (gcc 12 -O3 -march=native, an AMD EPYC with AVX-512, a module
of seven functions, alternating with the derivation's order, the least of 15
rounds): the Panda's forward dynamics 143 -> 114 ns, M 59 -> 54, C 171 -> 157, the centroidal
map 89 -> 79, the ID derivatives 336 -> 303, its inverse dynamics 67 -> 69; the PUMA 560's ID
derivatives 155 -> 131, FD derivatives 328 -> 297, the centroidal map 56 -> 49, the others
within 5%. Where the order's gains turn to losses (long functions, trees) the derivation's
order stays: context.SCHEDULED_STEPS says where, and why.
"""
from __future__ import annotations

import heapq

import sympy

from .program import Program, symbols_in

# The values a function holds before the order turns to freeing them: AVX-512's vector
# registers. Tried 16 to 64: at 24 and 64 the Panda's inverse dynamics derivatives took 40%
# longer than in the derivation's order, at 16 its all_terms, at 48 its forward dynamics.
REGISTERS = 32
# Cycles an arithmetic operation's result takes (a multiply-add's latency on current x86 and
# ARM cores): a step's latency is that times the depth of its expression.
LATENCY = 4


def order_for_machine(program: Program, limit: int | None = None) -> Program:
    """``program`` with its steps in list-scheduling order (module docstring); the same
    program where it has more than ``limit`` steps. Deterministic: ties go to program order."""
    steps = program.assignments
    if limit is not None and len(steps) > limit:
        return program
    where = {a.lhs: k for k, a in enumerate(steps)}
    reads = [sorted({where[s] for s in symbols_in((a.rhs,)) if s in where}) for a in steps]
    users: list[list[int]] = [[] for _ in steps]
    for k, operands in enumerate(reads):
        for j in operands:
            users[j].append(k)
    # the longest chain of latencies from each step to the end of the program
    priority = [0] * len(steps)
    for k in reversed(range(len(steps))):
        priority[k] = (LATENCY * _depth(steps[k].rhs)
                       + max((priority[u] for u in users[k]), default=0))
    pending_uses = [len(u) for u in users]
    waiting = [len(r) for r in reads]
    ready = [(-priority[k], k) for k in range(len(steps)) if not waiting[k]]
    heapq.heapify(ready)
    live, order = 0, []
    while ready:
        if live < REGISTERS:
            _, best = heapq.heappop(ready)
        else:
            best = _freeing(ready, reads, pending_uses, users)
        order.append(best)
        for j in reads[best]:
            pending_uses[j] -= 1
            live -= pending_uses[j] == 0
        # a value no later step reads is read by outputs' entries alone, which C stores as soon
        # as their operands are set (context.Body.ready): counted as holding no register
        live += bool(users[best])
        for u in users[best]:
            waiting[u] -= 1
            if not waiting[u]:
                heapq.heappush(ready, (-priority[u], u))
    if order == list(range(len(steps))):
        return program
    return program.with_body([steps[k] for k in order])


def _freeing(ready: list, reads, pending_uses, users) -> int:
    """Of the ready steps, taken off the heap ``ready``, the one that leaves the fewest values
    live (ties: the most critical, then program order)."""
    def growth(entry):
        k = entry[1]
        return bool(users[k]) - sum(pending_uses[j] == 1 for j in reads[k])
    best = min(ready, key=lambda entry: (growth(entry), entry))
    ready.remove(best)
    heapq.heapify(ready)
    return best[1]


def _depth(expr: sympy.Expr) -> int:
    """The operations on the longest path through ``expr`` (one for a copy or a load)."""
    return 1 + max((_depth(a) for a in expr.args if a.args), default=0)
