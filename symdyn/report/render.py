"""Printout -> text, markdown, LaTeX or HTML, through the templates in templates/report/.

Python prints every expression and left-hand side in the chosen format (text, LaTeX, MathML);
the templates only lay the pieces out.
"""
from __future__ import annotations

import html
import textwrap
from dataclasses import dataclass

import sympy

from ..emit.templating import environment
from ..robot.table import Table, columns
from .model import Lhs, Printout

FORMATS = ("text", "markdown", "latex", "html")
WIDTH = 200     # characters of LaTeX beyond which an equation is set to be broken across lines


@dataclass(frozen=True)
class _Cell:
    text: str
    math: bool                      # an expression in the format's notation, not plain text


def render(printout: Printout, fmt: str, picture: str | None = None) -> str:
    """The printout as text, markdown, LaTeX or HTML, with the robot's ``picture`` beside its
    tables where one is given (HTML: the SVG itself; markdown and LaTeX: its file's name). The
    template gets the printout's own blocks and tables, and functions that print their parts
    in the format."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    notation = printout.notation
    expr = {"text": notation.text, "markdown": notation.latex, "latex": notation.latex,
            "html": notation.mathml}[fmt]
    lhs = {"text": _lhs_text, "markdown": _lhs_latex, "latex": _lhs_latex,
           "html": _lhs_mathml}[fmt]
    general = 0 if fmt in ("markdown", "latex") else 1     # LaTeX where it renders, else text
    rows = _breakable_rows if fmt == "latex" else _rows

    def cells(table: Table) -> tuple[tuple[_Cell, ...], ...]:
        return tuple(tuple(_Cell(expr(notation.readable(_math(c))), True)
                           if isinstance(c, (sympy.Basic, sympy.MatrixBase, tuple))
                           else _Cell(str(c), False) for c in row) for row in table.rows)

    env = environment()
    env.filters["tex"] = _tex_escape
    env.filters["wrap"] = lambda text, width=100: "\n".join(textwrap.wrap(text, width))
    return env.get_template(f"report/{fmt}.j2").render(
        title=printout.title, intro=printout.intro, tables=printout.tables, picture=picture,
        blocks=printout.blocks, cells=cells,
        lines=lambda table: columns([table.header] + [[c.text for c in row]
                                                      for row in cells(table)]),
        general=lambda block: tuple(g[general] for g in block.general),
        equations=lambda block: rows(block.equations, lhs, expr))


def _math(cell):
    """A table's cell as an expression: a vector (a tuple) as a row."""
    return sympy.Matrix([cell]) if isinstance(cell, tuple) else cell


def _rows(equations, lhs, expr) -> tuple[tuple[str, str], ...]:
    return tuple((lhs(e.lhs), expr(e.value)) for e in equations)


def _breakable_rows(equations, lhs, expr) -> tuple[tuple[str, str], ...]:
    """Rows LaTeX's breqn can break across lines where they are long: it breaks a sum at its
    signs, but not inside a matrix, so a long vector is set one entry a row, and a long matrix
    (a pose) with its long entries named, each then on its own rows."""
    rows = []
    for e in equations:
        value, printed = e.value, expr(e.value)
        if not (isinstance(value, sympy.MatrixBase) and len(printed) > WIDTH):
            rows.append((lhs(e.lhs), printed))
            continue
        if value.cols == 1:
            axes = ([rf"\text{{{part}}}" for part in e.parts] if e.parts else "xyz"
                    if value.rows == 3 else [str(k) for k in range(1, value.rows + 1)])
            rows += [(rf"\left({lhs(e.lhs)}\right)_{{{axis}}}", expr(v))
                     for axis, v in zip(axes, value)]
        else:       # a long matrix (a pose): as the books set it, its long entries named
            name = lhs(e.lhs)
            entries = {(r, c): expr(value[r, c]) for r in range(value.rows)
                       for c in range(value.cols)}
            long = [k for k, text in entries.items() if len(text) > WIDTH // 8]
            cells = {k: rf"\left({name}\right)_{{{k[0] + 1}{k[1] + 1}}}" if k in long else text
                     for k, text in entries.items()}
            rows.append((name, r"\left[\begin{matrix}" + r" \\ ".join(
                " & ".join(cells[r, c] for c in range(value.cols)) for r in range(value.rows))
                + r"\end{matrix}\right]"))
            rows += [(cells[k], entries[k]) for k in long]
    return tuple(rows)


SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _lhs_text(lhs: Lhs) -> str:
    accent = "\u0307" if lhs.accent == "dot" else ""
    pre = lhs.pre.translate(SUPERSCRIPT) + lhs.pre_sub.translate(SUBSCRIPT)
    return f"{pre}{lhs.base}{accent}{lhs.sub.translate(SUBSCRIPT)}"


def _lhs_latex(lhs: Lhs) -> str:
    base = rf"\dot{{{lhs.latex}}}" if lhs.accent == "dot" else lhs.latex
    pre = f"{{}}^{{{lhs.pre}}}" if lhs.pre else ""
    pre += f"_{{{lhs.pre_sub}}}" if lhs.pre_sub else ""
    sub = lhs.sub_latex or lhs.sub
    sub = sub.replace("C", "C_{", 1) + "}" if sub.startswith("C") and len(sub) > 1 else sub
    return f"{pre}{base}" + (f"_{{{sub}}}" if sub else "")


def _lhs_mathml(lhs: Lhs) -> str:
    base = f"<mi>{html.escape(lhs.base)}</mi>"
    if lhs.accent == "dot":
        base = f'<mover accent="true">{base}<mo>\u02d9</mo></mover>'
    sub = f"<mi>{html.escape(lhs.sub)}</mi>" if lhs.sub else "<none/>"
    if not (lhs.pre or lhs.pre_sub):
        return base if not lhs.sub else f"<msub>{base}{sub}</msub>"
    pre_sub = f"<mn>{lhs.pre_sub}</mn>" if lhs.pre_sub else "<none/>"
    pre = f"<mn>{lhs.pre}</mn>" if lhs.pre else "<none/>"
    return f"<mmultiscripts>{base}{sub}<none/><mprescripts/>{pre_sub}{pre}</mmultiscripts>"


def _tex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}"),
                 ("&", r"\&"), ("%", r"\%"), ("#", r"\#"), ("^", r"\^{}")):
        text = text.replace(a, b)
    return text
