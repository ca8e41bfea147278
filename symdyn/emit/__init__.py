"""Emitters: optimized programs -> Python and C files through Jinja templates."""
from __future__ import annotations

import builtins
import contextlib
import gc
import types
from pathlib import Path
from typing import Callable

import sympy

from ..derive.dynamics import Dynamics
from ..derive.newton_euler import newton_euler
from ..derive.quantities import FROM_REGRESSOR
from ..errors import EmitError
from ..program import optimize_all
from ..program.passes import prepare_all
from ..robot import load_robot
from ..robot.expr import ExpressionError, parse_expression
from . import build
from .backends import WRAPPER
from .render import backend, module_code, render
from .write import write_files


def generate(dynamics: Dynamics, lang="python", out_dir="generated", *,
             quantities=None, values=None,
             progress: Callable[[str], None] | None = None) -> list[Path]:
    """Optimize the dynamics' programs and write them as files into ``out_dir``.

    ``lang`` is a language or a list of them (the programs are optimized once for all);
    ``quantities`` names the functions to write (all of them by default); ``values``
    ({symbol or name: number}) fixes some of the robot's free parameters in the code.
    All files are written, or none.
    """
    progress = progress or (lambda message: None)
    backends = [backend(lang)] if isinstance(lang, str) else [backend(x) for x in lang]
    with _without_cycle_collection():
        values, programs = _optimized(dynamics, quantities, values, progress)
        files = {}
        for chosen in backends:
            progress(f"writing {chosen.lang} code")
            files.update(render(_module(dynamics, programs, chosen, values), chosen))
    return write_files(files, out_dir)


@contextlib.contextmanager
def _without_cycle_collection():
    """Python's cycle collector paused, as it was before afterwards. Expressions hold no
    reference cycles, and a large model makes millions of them: the collector, visiting the
    live ones again and again as they pile up, took a quarter of a 20-joint chain's full model
    (25 s against 19 s, timed in one process). Reference counting still frees all of it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def python_module(dynamics: Dynamics, *, quantities=None, values=None, progress=None,
                  optimized=True):
    """The generated Python module, made in memory and imported, without writing a file.

    For notebooks and checks: the same code ``generate`` writes, with the same functions.
    ``optimized=False`` leaves out the passes that only make the code faster (common
    subexpressions, trigonometry hoisting): a reference evaluated a few times, such as the
    Lagrange route in ``check``, is then ready in a fraction of the time.
    """
    progress = progress or (lambda message: None)
    chosen = backend("python")
    with _without_cycle_collection():
        values, programs = _optimized(dynamics, quantities, values, progress,
                                      optimize_all if optimized else _light)
        (text,) = render(_module(dynamics, programs, chosen, values), chosen).values()
    module = types.ModuleType(f"symdyn_{dynamics.robot.name}_{dynamics.method}")
    exec(builtins.compile(text, f"<symdyn {dynamics.robot.name}>", "exec"), module.__dict__)
    return module


def compile(robot, *, quantities=None, values=None, cache=None, progress=None):
    """The generated C, compiled with its CPython wrapper and imported: a module with the
    Python module's functions, whose batches run through vectorised C.

    ``robot`` is a Dynamics or a robot file (derived by Newton-Euler). The C is exactly what
    ``generate(..., "c")`` writes with the same ``quantities`` and ``values``; the build is
    cached by content (see ``cache``), so a second call only loads it.
    """
    progress = progress or (lambda message: None)
    dynamics = robot if isinstance(robot, Dynamics) else newton_euler(load_robot(robot))
    chosen = backend("c")
    with _without_cycle_collection():
        values, programs = _optimized(dynamics, quantities, values, progress)
        module = _module(dynamics, programs, chosen, values)
        source = render(module, chosen)
    extension = build.extension_name(module.name, source)
    wrapper = render(module, chosen, WRAPPER, extension=extension)
    progress("compiling the C code and its Python wrapper")
    return build.build(module.name, source, wrapper, cache=cache)


def _module(dynamics, programs, chosen, values):
    """The template context; the base parameters' names where their functions are written."""
    based = any(p.name in FROM_REGRESSOR for p in programs)
    return module_code(dynamics.robot, programs, chosen, values,
                       base_names=dynamics.base.names if based else ())


def _light(programs, values, progress):
    """The passes a program needs to be printed, none that only make it faster."""
    return prepare_all(programs, values)


def _optimized(dynamics, quantities, values, progress, passes=optimize_all):
    """The fixed values, resolved, and the chosen quantities' optimized programs: by default
    every one the robot has."""
    values = resolve_values(dynamics.robot, values or {})
    for name in quantities or ():
        why = dynamics.unavailable(name)
        if why:
            raise EmitError(f"no {name} for {dynamics.robot.name}: {why}")
    programs = [dynamics.program(name) for name in quantities or dynamics.available]
    return values, passes(programs, values, progress)


def resolve_values(robot, values) -> dict:
    """{symbol: exact number} for values given by symbol or by name; unknown names are errors."""
    free = {str(p): p for p in robot.parameters}
    resolved = {}
    for key, value in values.items():
        name = str(key)
        if name not in free:
            known = ", ".join(free) or "none"
            raise EmitError(f"{name!r} is not a free symbol of {robot.name} (its free symbols: "
                            f"{known})")
        try:
            resolved[free[name]] = (value if isinstance(value, sympy.Expr)
                                    else parse_expression(value, _no_names))
        except ExpressionError as exc:
            raise EmitError(f"value of {name}: {exc}") from None
    return resolved


def _no_names(name):
    raise ExpressionError(f"{name!r}: a value must be a number (or pi)")


__all__ = ["compile", "generate", "python_module"]
