"""Variants of a robot: the same file with some of its effects left out, no file edited.

A controller often wants the rigid-body model without the friction it compensates separately,
or without gravity (a robot in orbit, a test rig that lies flat, a gravity-compensated arm), or
with its elastic joints rigid (the model of a controller that ignores them). A
variant keeps everything else of the file as it is and takes a name of its own, so that its
generated files and C symbols sit beside the full model's without clashing.
"""
from __future__ import annotations

import dataclasses

import sympy

from .spec import RobotSpec

ZERO = sympy.Integer(0)
# What a variant can leave out, with what that means in the generated files' headers.
PARTS = {
    "friction": "the file's viscous and Coulomb friction are left out (zero)",
    "gravity": "gravity is left out (zero)",
    "elasticity": "the elastic joints are rigid, each motor locked to its link (its rotor and "
                  "friction the joint's)",
}


def without(spec: RobotSpec, parts) -> RobotSpec:
    """``spec`` with each of ``parts`` (keys of PARTS) left out, named ``<name>_no_<part>...``.
    Free symbols that only the left-out parts used are no longer parameters."""
    unknown = set(parts) - PARTS.keys()
    if unknown:
        raise ValueError(f"cannot leave out {sorted(unknown)[0]!r}: expected one of "
                         f"{', '.join(PARTS)}")
    parts = tuple(part for part in PARTS if part in set(parts))
    if not parts:
        return spec
    links = spec.links
    if "friction" in parts:
        links = tuple(dataclasses.replace(link, viscous_friction=ZERO,
                                          coulomb_friction=(ZERO, ZERO)) for link in links)
    if "elasticity" in parts:     # the stiff limit: what a controller that ignores it models
        links = tuple(dataclasses.replace(link, elastic=None) for link in links)
    gravity = (ZERO, ZERO, ZERO) if "gravity" in parts else spec.gravity
    used = _free_symbols((gravity, links, spec.payload, spec.base, spec.tool))
    return dataclasses.replace(
        spec, name="_".join([spec.name, *(f"no_{part}" for part in parts)]), gravity=gravity,
        links=links, parameters=tuple(p for p in spec.parameters if p in used),
        omitted=spec.omitted + parts)


def _free_symbols(value) -> set:
    """The free symbols of every expression in ``value``: specs, tuples and dicts of them."""
    if isinstance(value, sympy.Basic):
        return value.free_symbols
    if dataclasses.is_dataclass(value):
        value = [getattr(value, field.name) for field in dataclasses.fields(value)]
    elif isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, (tuple, list)):
        return set()
    return set().union(*(_free_symbols(v) for v in value))


__all__ = ["PARTS", "without"]
