"""The books' notation: theta_i, dot-theta_i, c_12 for cos(q1 + q2), in text, LaTeX and MathML.

Expressions are prepared once for display (``readable``): definitions substituted while they
stay small, trigonometry simplified, sines and cosines of joint angles written s_i, c_i, s_ij.
Then each format prints the same expression.
"""
from __future__ import annotations

import re

import sympy
from sympy.printing.latex import greek_letters_set
from sympy.printing.mathml import MathMLPresentationPrinter
from sympy.simplify.fu import TR5, TR11, TR10i

from ..robot.model import Robot

LIMIT = 250      # operations: beyond this an expression is shown with its named intermediates
SMALL = 2        # joints: robots up to this size get their expressions trigonometrically
                 # simplified (trigsimp costs seconds an expression on larger ones)
LIMIT_SUMS = 100   # operations: larger robots' expressions up to this size get _angle_sums
LIMIT_LARGE = 100   # LIMIT for larger robots: unsimplified, their expressions nest deeper, and
                    # beyond about this they no longer fit a page of LaTeX (PUMA 560, Panda)


class Notation:
    """Display symbols for one robot, and the three printers."""

    def __init__(self, robot: Robot):
        self.robot = robot
        self.simplify = robot.dof <= SMALL
        self.limit = LIMIT if self.simplify else LIMIT_LARGE
        self.latex_names: dict[sympy.Symbol, str] = {}
        self.text_names: dict[sympy.Symbol, str] = {}
        self.parts: dict[sympy.Symbol, tuple[str, str, str]] = {}   # base, accent, index
        self._joints = set(robot.q)
        for symbol in robot.parameters:
            self.latex_names[symbol] = _parameter_latex(str(symbol))
        for link in robot.links:
            i = link.index
            if link.q is None:      # a joint of several coordinates
                self._several(link)
                continue
            base_latex, base = (r"\theta", "θ") if link.revolute else ("d", "d")
            for symbol, accent_latex, accent in ((link.q, "", ""), (link.qd, r"\dot", "\u02d9"),
                                                 (link.qdd, r"\ddot", "\u00a8")):
                core = f"{accent_latex}{{{base_latex}}}" if accent else base_latex
                self.latex_names[symbol] = f"{core}_{{{i}}}"
                combining = {"": "", "\u02d9": "\u0307", "\u00a8": "\u0308"}[accent]
                self.text_names[symbol] = f"{base}{combining}{i}"
                self.parts[symbol] = (base, accent, str(i))

    def _several(self, link):
        """A joint's names, of several coordinates: q_i,x ... q_i,w, a spherical joint's
        omega_i,x ... (its kind's letter for its velocity, JointKind.letter) and their rates."""
        i, kind = link.index, link.kind
        velocity_latex, velocity = kind.letter
        for symbols, ends, base_latex, base, accent in (
                (link.configuration, kind.coordinates, "q", "q", ""),
                (link.velocities, kind.velocity_names, velocity_latex, velocity, ""),
                (link.accelerations, kind.velocity_names, velocity_latex, velocity, "\u02d9")):
            for symbol, axis in zip(symbols, ends):
                core = rf"\dot{{{base_latex}}}" if accent else base_latex
                self.latex_names[symbol] = f"{core}_{{{i},{axis}}}"
                self.text_names[symbol] = f"{base}{chr(0x307) if accent else ''}{i}{axis}"
                self.parts[symbol] = (base, accent, f"{i}{axis}")

    # -- preparing an expression ------------------------------------------------------------
    def readable(self, expr):
        """Trigonometry simplified and s_i, c_i shorthand, for a (matrix) expression."""
        if isinstance(expr, sympy.MatrixBase):
            return expr.applyfunc(self.readable)
        return self.shorthand(self.simplified(expr))

    def simplified(self, expr):
        """Trigonometry simplified as far as the robot's size allows (trigsimp for small
        robots, sums of angles for larger ones, up to a size past which it costs seconds)."""
        expr = sympy.sympify(expr)
        if expr.has(sympy.sin, sympy.cos) and sympy.count_ops(expr) < (
                LIMIT if self.simplify else LIMIT_SUMS):
            expr = sympy.factor_terms(sympy.trigsimp(sympy.expand(expr)) if self.simplify
                                      else _angle_sums(expr))
        return expr

    def coefficient(self, expr):
        """A closed form's coefficient (of qdd_j, or of qd_i qd_j) as the books print it: a sum
        over the products of the robot's parameters, each times its trigonometry simplified
        on its own (small, so trigsimp is quick) into products of sines and cosines of sums of
        angles (m3 lc3^2 c23^2, not m3 lc3^2 (1 - c2^2 - c3^2 + 2 c2 c3 c23); s2 c2, not
        sin(2 theta_2)/2)."""
        expr = sympy.expand(expr)
        if not expr.has(sympy.sin, sympy.cos):
            return sympy.factor_terms(expr)
        parameters = sorted(expr.free_symbols - self._joints, key=str)
        groups = (sympy.Poly(expr, *parameters).as_dict(native=False) if parameters
                  else {(): expr})
        return sympy.factor_terms(sympy.Add(*(
            sympy.Mul(*(p ** e for p, e in zip(parameters, powers))) * _trigonometry(t)
            for powers, t in groups.items())))

    def shorthand(self, expr):
        """The books' shorthand, the expression's form kept: s_i, c_i, s_ij for the sines and
        cosines of joint angles, a book's fractions as fractions (1/3, 1/4, 1/12) and the
        file's decimals as decimals (0.4318, not 2159/5000)."""
        if isinstance(expr, sympy.MatrixBase):
            return expr.applyfunc(self.shorthand)
        expr = sympy.sympify(expr)
        fractions = {f: _fraction(f) for f in expr.atoms(sympy.Float)}
        expr = expr.xreplace({f: r for f, r in fractions.items() if r is not None})
        # the shorthand first: rebuilt, (1/20000) (8636 c1 c2 + ...) is 2159/5000 c1 c2 + ...
        expr = expr.xreplace(self._trig_shorthand(expr))
        decimals = {r: sympy.Float(float(r)) for r in expr.atoms(sympy.Rational)
                    if not r.is_Integer and not _book_fraction(r)}
        return expr.xreplace(decimals)

    def _trig_shorthand(self, expr):
        joints = {link.q: str(link.index) for link in self.robot.links}
        names = {}
        for f in expr.atoms(sympy.sin, sympy.cos):
            terms = sympy.Add.make_args(f.args[0])
            if all(t in joints for t in terms):
                indices = sorted((joints[t] for t in terms), key=int)
                # c_23 is cos(q2 + q3); past joint 9, c_{11,14} (c_1114 would read as 1 and 114)
                index = ("," if any(len(k) > 1 for k in indices) else "").join(indices)
                letter = "s" if isinstance(f, sympy.sin) else "c"
                names[f] = sympy.Symbol(f"{letter}_{index}")
        return names

    # -- printers -----------------------------------------------------------------------------
    def latex(self, expr) -> str:
        return sympy.latex(expr, symbol_names=self.latex_names, mat_delim="[",
                           mat_str="matrix")

    def text(self, expr) -> str:
        if isinstance(expr, sympy.MatrixBase):
            if expr.cols == 1:
                return "[" + ", ".join(self.text(e) for e in expr) + "]ᵀ"
            return "[" + "; ".join(", ".join(self.text(e) for e in expr.row(r))
                                   for r in range(expr.rows)) + "]"
        text = sympy.sstr(expr, full_prec=False)
        for symbol in sorted(self.text_names, key=lambda s: -len(str(s))):
            text = _replace_word(text, str(symbol), self.text_names[symbol])
        return text.replace("**", "^").replace("_", "")

    def mathml(self, expr) -> str:
        return _MathML(self.parts).doprint(expr)


class _MathML(MathMLPresentationPrinter):
    """Presentation MathML, which browsers render without scripts or fonts to load."""

    def __init__(self, parts):
        super().__init__({"mat_delim": "["})
        self._parts = parts

    def _print_Symbol(self, symbol, style="plain"):
        if symbol not in self._parts:
            return super()._print_Symbol(symbol, style)
        base, accent, index = self._parts[symbol]
        mi = self.dom.createElement("mi")
        mi.appendChild(self.dom.createTextNode(base))
        if accent:
            over = self.dom.createElement("mover")
            over.setAttribute("accent", "true")
            mo = self.dom.createElement("mo")
            mo.appendChild(self.dom.createTextNode(accent))
            over.appendChild(mi)
            over.appendChild(mo)
            mi = over
        msub = self.dom.createElement("msub")
        mn = self.dom.createElement("mn")
        mn.appendChild(self.dom.createTextNode(index))
        msub.appendChild(mi)
        msub.appendChild(mn)
        return msub


def _parameter_latex(name: str) -> str:
    """A parameter's name as the books set it: a letter with the rest of a short name as its
    subscript, l as Spong's ell (lc1 is ell_{c1}, not l c_1, which reads as l times the
    cosine shorthand; Ixx2 is I_{xx2}); any other name as sympy sets it (XX1, Khalil's, is
    XX_1; mass stays mass)."""
    short = re.fullmatch(r"([A-Za-z])([a-z]{0,3}[0-9]+|[a-z])", name)
    if not short or name in greek_letters_set:
        return sympy.latex(sympy.Symbol(name))
    letter = r"\ell" if short[1] == "l" else short[1]
    return f"{letter}_{{{short[2]}}}"


def _angle_sums(expr):
    """Two of Fu's rules, in bounded time where trigsimp and fu take seconds to minutes an
    expression past two joints: s^2 made 1 - c^2, then products of sines and cosines made
    those of sums of angles (c2 c3 - s2 s3 is c23, as the books write it)."""
    return TR10i(sympy.expand(TR5(sympy.expand(expr))))


def _trigonometry(expr):
    """A small sum of products of sines and cosines in its shortest form, double angles
    written as products (TR11): the shorter of its sums of angles and those of its trigsimp
    (whose cos(2 (q2 + q3))/2 + 1/2 is c23^2)."""
    forms = [_angle_sums(expr)]
    if sympy.count_ops(expr) < LIMIT_SUMS:
        forms.append(_angle_sums(TR11(sympy.trigsimp(expr))))
    shortest = min(forms, key=lambda f: (sympy.count_ops(f), sympy.default_sort_key(f)))
    return sympy.expand(TR11(shortest))


# The largest power of two a book writes as a fraction's denominator (1/2 to 1/64: halves of
# halves). Any denominator with a factor other than 2 and 5 is a fraction too (1/3, 1/12,
# 1/48: no decimal writes it); one with a factor 5 is the file's decimal (0.1, 0.4318).
BOOK_DENOMINATOR = 64


def _book_fraction(r: sympy.Rational) -> bool:
    q = int(r.q)
    while q % 2 == 0:
        q //= 2
    if q == 1:
        return r.q <= BOOK_DENOMINATOR
    while q % 5 == 0:
        q //= 5
    return q != 1


def _fraction(f: sympy.Float) -> sympy.Rational | None:
    """A float that is a book's fraction to round-off (0.333333333333333 is 1/3), or None."""
    for q in range(2, BOOK_DENOMINATOR + 1):
        p = round(float(f) * q)
        if p and abs(float(f) * q - p) < 1e-12 * q:
            r = sympy.Rational(p, q)
            return r if _book_fraction(r) else None
    return None


def _replace_word(text: str, word: str, new: str) -> str:
    return re.sub(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", new, text)
