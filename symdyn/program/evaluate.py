"""A program's value at numbers: the one numeric evaluator of the derivation's own steps.

The derivation needs numbers before any code exists: Gautier's QR of the stacked regressor finds
the base parameters, and M(q) at random configurations tells whether forward dynamics exists.
Both run here, on the Program itself: each step's right-hand side (symengine's form) walked
once with numpy, at one point or many at once (each input an array, broadcast as numpy does).
No text is printed and nothing is executed, so a name or a number from a robot file stays data.
What a user runs is the emitted module, checked against this and against Pinocchio in the tests.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import symengine

from .program import Program
from .solves import unrolled
from .symengine_form import engine_form

# the functions a program's steps hold (the emitters print the same set)
_FUNCTIONS = {symengine.sin: np.sin, symengine.cos: np.cos, symengine.tan: np.tan,
              symengine.sign: np.sign, symengine.Abs: np.abs, symengine.atan2: np.arctan2}


def evaluate(program: Program, values: Mapping, output: str | None = None) -> np.ndarray:
    """``output`` (the first by default) at ``values`` ({input symbol: number or array}).

    Inputs given as arrays of one shape B (N points, say) give an array B + the output's shape;
    numbers give the output's shape alone. Every input the program reads needs a value.
    """
    program = unrolled(program)
    env = {symengine.Symbol(s.name): np.asarray(v, dtype=float) for s, v in values.items()}
    batch = np.broadcast_shapes(*(v.shape for v in env.values()))

    def value(expr):
        if expr.is_Symbol:
            return env[expr]
        if expr.is_Number:
            return float(expr)
        args = expr.args
        if expr.is_Add or expr.is_Mul:
            combine = np.add if expr.is_Add else np.multiply
            out = value(args[0])
            for a in args[1:]:
                out = combine(out, value(a))
            return out
        if expr.is_Pow:
            return np.power(value(args[0]), value(args[1]))
        function = _FUNCTIONS.get(type(expr))
        if function is not None:
            return function(*(value(a) for a in args))
        return float(expr)           # a constant: pi, E, or one of their functions

    for a in program.assignments:
        env[symengine.Symbol(a.lhs.name)] = value(engine_form(a.rhs, program.engine_forms))
    out = program.outputs[0] if output is None else program.output(output)
    entries = [np.broadcast_to(value(symengine.sympify(v)), batch) for v in out.values]
    return np.stack(entries, axis=-1).reshape(batch + out.shape)
