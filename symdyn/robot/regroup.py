"""The grouping rule of the base parameters, and the regrouped model it gives.

Whatever part of link j looks the same from its parent whatever q_j moves with the parent
(Khalil and Dombre, "Modeling, Identification and Control of Robots", Ch. 12). For a revolute
joint it is the mass M_j, the first moment MZ_j along the axis and YY_j on both XX_j and YY_j
(giving XXR_j = XX_j - YY_j, MR_{p(j)} = M_{p(j)} + M_j, ...); for a prismatic joint the whole
rotational inertia (about any point: a body without mass or first moment); each kind says its
own (JointKind.invariant). Moved into the
parent's frame by the joint's placement at q_j = 0, tip first so that a part carries what its
children gave it, it changes no joint force; from a child of the fixed base it vanishes, and a
floating base's body takes it as any parent does.

The move is written once, here, and used twice:

* ``regrouped``: the model with each revolute link's numeric axial part moved, which the
  recursions carry in fewer terms (the PUMA 560's M(q) drops from 252/176 to 128/84
  multiplications/additions, g(q) from 77/46 to 28/12). Only numeric parts move: a part holding
  free symbols would cost its sums at run time.
* derive/base_parameters.py: the symbolic grouped parameters, every part moved, which Gautier's
  QR then completes.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

import sympy

from ..spatial import Inertia, Placement
from .model import Link, Robot, stored


def moved_to_parents(robot: Robot, tens, part: Callable, move: Callable,
                     base=None) -> tuple[list[list], list | None]:
    """``tens`` (each link's ten parameters) with the ``part(link, ten)`` of each link (None:
    nothing) taken from it and, carried by ``move(part, link)`` into the parent's frame, added
    to the parent's: tip first, over the tree. ``base``: a floating base's ten, which its
    children's parts add to (None: a fixed base, where they vanish); returned with the links'."""
    tens = [list(ten) for ten in tens]
    root = None if base is None else list(base)
    for link in reversed(robot.links):
        piece = part(link, tens[link.index - 1])
        if piece is None:
            continue
        tens[link.index - 1] = [g - x for g, x in zip(tens[link.index - 1], piece)]
        if link.parent:
            tens[link.parent - 1] = [g + x for g, x in zip(tens[link.parent - 1],
                                                           move(piece, link))]
        elif root is not None:
            root = [g + x for g, x in zip(root, move(piece, link))]
    return tens, root


def resting(link: Link) -> Placement:
    """The joint frame in its parent's at q = 0 (a spherical joint's at the identity
    quaternion): how an invariant part is seen from there."""
    return Placement(link.rotation.subs(link.rest), link.position.subs(link.rest))


def regrouped(robot: Robot) -> Robot:
    """The same dynamics with each revolute link's numeric axial part moved to its parent."""
    def part(link, ten):
        piece = link.kind.invariant(ten)
        if not link.revolute or any(sympy.sympify(v).free_symbols for v in piece):
            return None
        return piece

    def move(piece, link):
        body = Inertia.from_parameters(piece, sympy.Matrix)
        return stored(resting(link).act_inertia(body)).parameters()

    tens, base = moved_to_parents(robot, (link.inertia.parameters() for link in robot.links),
                                  part, move,
                                  robot.root.inertia.parameters() if robot.floating else None)
    links = tuple(replace(link, inertia=stored(Inertia.from_parameters(ten, sympy.Matrix)))
                  for link, ten in zip(robot.links, tens))
    if base is None:
        return replace(robot, links=links)
    body = stored(Inertia.from_parameters(base, sympy.Matrix))
    return replace(robot, links=links, root=replace(robot.root, inertia=body))
