"""A program's solves (program.Solve) written out as steps: what the languages that write no
loops print, and what the evaluator reads.

Each column replays the kernel's steps with the factors' values and the column's right-hand
side put in: symengine folds what a zero of the right-hand side makes zero, and a step that
folds to a number, a symbol or its negation is no step, so that each column costs what its
own nonzeros make it (a column of zeros nothing), as a solve written column by column in the
derivation would.
"""
from __future__ import annotations

import symengine
import sympy

from .builder import is_trivial
from .program import Argument, Assignment, Program
from .symengine_form import as_engine, engine_form, to_sympy


def unrolled(program: Program) -> Program:
    """``program`` with its solves written out as steps after its own, the factors no output;
    each column's steps named after the kernel's with the column (from 1): ``y3`` -> ``y3_5``."""
    if not program.solves:
        return program
    outputs = {out.name: out for out in program.outputs}
    taken = {s.name for s in program.input_symbols} | {a.lhs.name for a in program.assignments}
    body = list(program.assignments)
    solved = {}
    for solve in program.solves:
        kernel = solve.kernel
        factors = [engine_form(v, program.engine_forms)
                   for v in outputs[solve.factors].values]
        stacked = [outputs[name] for name in solve.outputs]
        columns = stacked[0].shape[1]
        results = [[None] * len(out.values) for out in stacked]
        for c in range(columns):
            column = [engine_form(v, program.engine_forms)
                      for out in stacked for v in out.values[c::columns]]
            known = {as_engine(s): v for arg, values in zip(kernel.inputs, (factors, column))
                     for s, v in zip(arg.values, values)}
            for a in kernel.assignments:
                value = engine_form(a.rhs, kernel.engine_forms).xreplace(known)
                if not is_trivial(value):
                    name, k = f"{a.lhs.name}_{c + 1}", 1
                    while name in taken:
                        name, k = f"{a.lhs.name}_{c + 1}_{k}", k + 1
                    taken.add(name)
                    body.append(Assignment(sympy.Symbol(name), to_sympy(value)))
                    value = symengine.Symbol(name)
                known[as_engine(a.lhs)] = value
            entries = iter(kernel.outputs[0].values)
            for out, result in zip(stacked, results):
                for i in range(len(out.values) // columns):
                    result[i * columns + c] = to_sympy(
                        engine_form(next(entries), kernel.engine_forms).xreplace(known))
        solved.update((out.name, Argument(out.name, tuple(values), out.shape))
                      for out, values in zip(stacked, results))
    return Program(program.name, program.inputs, tuple(body),
                   tuple(solved.get(out.name, out) for out in program.returned),
                   program.engine_forms, program.irreducible)
