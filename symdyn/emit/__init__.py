"""Emitters: optimized programs -> Python and C files through Jinja templates."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..derive.dynamics import Dynamics
from ..program.passes import optimize
from .render import backend, module_code, render, write_files


def generate(dynamics: Dynamics, lang: str = "python", out_dir="generated", *,
             progress: Callable[[str], None] | None = None) -> list[Path]:
    """Optimize the dynamics' programs and write them as ``lang`` files into ``out_dir``."""
    progress = progress or (lambda message: None)
    chosen = backend(lang)
    progress(f"optimizing {dynamics.program.name} ({len(dynamics.program.assignments)} steps)")
    programs = [optimize(dynamics.program)]
    progress(f"writing {lang} code")
    return write_files(render(module_code(dynamics.robot, programs, chosen), chosen), out_dir)


__all__ = ["generate"]
