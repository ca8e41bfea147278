"""Emitters: optimized programs -> Python and C files through Jinja templates."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..derive.dynamics import Dynamics
from ..errors import EmitError
from ..program.passes import optimize
from ..robot.expr import ExpressionError, parse_expression
from .render import backend, module_code, render, write_files


def generate(dynamics: Dynamics, lang: str = "python", out_dir="generated", *,
             values=None, progress: Callable[[str], None] | None = None) -> list[Path]:
    """Optimize the dynamics' programs and write them as ``lang`` files into ``out_dir``.

    ``values`` ({symbol or name: number}) fixes some of the robot's free parameters in the code.
    """
    progress = progress or (lambda message: None)
    chosen = backend(lang)
    values = resolve_values(dynamics.robot, values or {})
    progress(f"optimizing {dynamics.program.name} ({len(dynamics.program.assignments)} steps)")
    programs = [optimize(dynamics.program, values)]
    progress(f"writing {lang} code")
    module = module_code(dynamics.robot, programs, chosen, values)
    return write_files(render(module, chosen), out_dir)


def resolve_values(robot, values) -> dict:
    """{symbol: exact number} for values given by symbol or by name; unknown names are errors."""
    import sympy

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


__all__ = ["generate"]
