"""The record of a derivation: each equation it evaluated, for which link, and the value.

Printouts read the record; they never derive anything again. Values are in the derivation's named
intermediates; the record's ``program`` holds their definitions.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy

from ..program.program import Program


@dataclass(frozen=True)
class Step:
    quantity: str                 # e.g. "omega", "domega", "dv", "F", "N", "f", "n", "tau"
    link: int                     # the link (frame) the value belongs to, 1-based; 0 is the base
    value: sympy.ImmutableMatrix  # expressed in frame {link}


@dataclass(frozen=True)
class Record:
    steps: tuple[Step, ...]
    program: Program              # the inverse dynamics the steps were recorded from

    def value(self, quantity: str, link: int) -> sympy.ImmutableMatrix:
        return next(s.value for s in self.steps if s.quantity == quantity and s.link == link)
