"""Angles as their writers mean them.

A robot file may give a twist as ``pi/2`` or as ``1.5707963267948966``, the double nearest to
pi/2, as the Robotics Toolbox and most URDF writers store it. Nobody who writes the second means
6.1e-17 for its cosine; taken literally it turns every zero of a rotation into a tiny number and
doubles the generated code. So a number within ULPS units in the last place of k pi/12 (k an
integer, |k pi/12| <= 4 pi; for the angle 0, units of 1) is that angle exactly, and a unit
vector's component within ULPS of the cosine of such an angle (0, 1/2, sqrt(2)/2, ...) is that
cosine. The difference is below what a double can hold, so no physical quantity changes.

A number farther off but still close (``1.5708``, URDF's ``1.57079632679``) is kept as written,
since it may be meant; the reader notes it as a near miss, and a tolerance the user gives
(``--snap-angles``) takes it as the angle too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import sympy

from .expr import as_text

ULPS = 4
STEP = sympy.pi / 12
MOST = 48              # k pi/12 for |k| <= 48: angles up to two turns either way
NEAR = 1e-3            # closer than this to k pi/12 (and not within ULPS): a near miss
ANGLE, COSINE = "angle", "cosine"


@dataclass(frozen=True)
class Reading:
    """How one number of an angle field was read: ``exact`` is the angle or cosine taken
    (None: the number as written), ``offset`` how far the number is from the nearest one."""

    field: str
    written: sympy.Expr
    nearest: sympy.Expr
    offset: float
    exact: sympy.Expr | None

    def note(self) -> str:
        return f"{self.field} = {self.nearest}"

    def miss(self) -> str:
        return f"{self.field} {as_text(self.written)} ({self.offset:.1e} from {self.nearest})"


@lru_cache(maxsize=None)
def _specials(kind: str) -> tuple[tuple[float, sympy.Expr], ...]:
    """(double, exact value) of every special angle, or of every special angle's cosine."""
    if kind == ANGLE:
        values = [k * STEP for k in range(-MOST, MOST + 1)]
    else:
        values = sorted({sign * sympy.cos(k * STEP) for k in range(13) for sign in (1, -1)},
                        key=float)
    return tuple((float(v), v) for v in values)


def nearest(number: float, kind: str = ANGLE, tolerance: float = 0.0
            ) -> tuple[sympy.Expr, float, bool]:
    """The special angle (or cosine) nearest to ``number``, how far it is, and whether that is
    within ULPS, or within ``tolerance``, so that ``number`` means it."""
    double, exact = min(_specials(kind), key=lambda special: abs(special[0] - number))
    offset = abs(number - double)
    # Units in the last place of a unit angle at least: 1e-16 is no one's angle or cosine.
    return exact, offset, offset <= ULPS * math.ulp(max(abs(double), 1.0)) or offset <= tolerance


def read(value: sympy.Expr, field: str, kind: str = ANGLE, tolerance: float = 0.0
         ) -> Reading | None:
    """How ``value`` (a number of the field ``field``) is read: None for a value that is not a
    rational number, is a special one already, or is not near one; else a Reading, whose
    ``exact`` is set when the value means the special one (see nearest)."""
    if not (isinstance(value, sympy.Rational) and value != 0):
        return None
    exact, offset, means = nearest(float(value), kind, tolerance)
    if offset >= NEAR or value == exact:
        return None
    return Reading(field, value, exact, offset, exact if means else None)
