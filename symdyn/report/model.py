"""A printout's data: equations with left-hand sides in the books' style, blocks of them,
and tables (robot/table.py's). ``printout.py`` makes them from a derivation; ``render.py``
writes them out.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..robot.table import Table
from .notation import Notation


@dataclass(frozen=True)
class Lhs:
    """A left-hand side in the books' style: {}^{pre}base_{sub}, with an optional dot accent."""

    base: str                # as written in text and MathML: "ω", "v", "F", "τ", "d_12", ...
    latex: str               # the base in LaTeX: r"\omega"
    sub: str = ""
    pre: str = ""            # left superscript: the frame a vector is expressed in
    pre_sub: str = ""        # left subscript (^{i-1}_{i}T)
    accent: str = ""         # "", "dot"
    sub_latex: str = ""      # the subscript in LaTeX, where it is not ``sub`` itself


@dataclass(frozen=True)
class Equation:
    lhs: Lhs
    value: object            # a display-ready sympy expression or matrix
    parts: tuple[str, ...] = ()   # a column's entries' names where they are not x, y, z


@dataclass(frozen=True)
class Block:
    title: str
    general: tuple[tuple[str, str], ...]   # the general equations first: (LaTeX, text)
    note: str
    equations: tuple[Equation, ...]


@dataclass(frozen=True)
class Printout:
    """A derivation, step by step: report.render writes it as text, markdown, LaTeX or HTML."""

    title: str
    intro: tuple[str, ...]
    tables: tuple[Table, ...]
    blocks: tuple[Block, ...]
    notation: Notation
