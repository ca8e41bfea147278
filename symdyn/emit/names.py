"""The identifiers of generated code: names no symbol may take, and the names given to those
that would."""
from __future__ import annotations

import keyword

import sympy

# Identifiers an intermediate must not take: the languages' keywords, the names the templates
# declare in a function's scope, and the C library's names that the code calls or could meet;
# and any name that begins with TEMPLATE_PREFIX, which the templates' own names (symdyn_fma, the
# sin and cos code's symdyn_x ...) begin with.
RESERVED = (
    set(keyword.kwlist)
    | {"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
       "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
       "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
       "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex",
       "_Imaginary"}
    | {"np", "batch", "in", "out", "step", "lane", "entry", "lanes_in", "lanes_out", "beyond",
       "LANES", "MAX_ARGS", "MAX_DIMS"}
    | {"sin", "cos", "sqrt", "fabs", "copysign", "rint", "fma", "pow", "errno", "NAN", "INFINITY",
       "HUGE_VAL"}
    | {"sinf", "cosf", "tanf", "sqrtf", "fabsf", "atan2f", "fmaf", "powf", "HUGE_VALF"}   # floats'
    | {"ca", "functools", "jax", "jnp", "dtype"}      # the CasADi and JAX modules' names
)
TEMPLATE_PREFIX = "symdyn_"
PARAMETER_PREFIX = "p_"


def reserved(name: str) -> bool:
    return name in RESERVED or name.startswith(TEMPLATE_PREFIX)


def identifiers(parameters, programs) -> dict[sympy.Symbol, sympy.Symbol]:
    """The names the code gives symbols whose own names it cannot use.

    A free parameter is ``p_<name>``, so a user's name never meets an identifier of C, Python,
    their libraries or the templates (``NAN``, ``errno``, ``batch`` ...); an intermediate that
    happens to be reserved gets a trailing ``_`` (which no template's name has). Names stay
    unique within the module.
    """
    taken = RESERVED | {s.name for p in programs for s in p.input_symbols} | {
        a.lhs.name for p in programs for a in p.assignments}
    names = {}

    def fresh(name):
        while name in taken:
            name += "_"
        taken.add(name)
        return sympy.Symbol(name)

    for symbol in parameters:
        names[symbol] = fresh(PARAMETER_PREFIX + str(symbol))
    for program in programs:
        for a in program.assignments:
            if reserved(a.lhs.name) and a.lhs not in names:
                names[a.lhs] = fresh(a.lhs.name)
    return names
