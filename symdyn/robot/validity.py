"""Physical checks of a robot file's numeric data: what no rigid body or actuator can have.

Each check returns None for possible data, or the rule that is broken, for the file reader to
report with the field and line. Symbolic entries are not judged: their values come later.

A link's body is possible when its mass is positive and its inertia about the centre of mass is
positive semi-definite with principal moments that satisfy the triangle inequality
(I1 + I2 >= I3: no mass distribution gives less). A point mass (zero inertia) is possible; so is
a link with no body at all (mass, first moment and inertia all zero).
"""
from __future__ import annotations

import numpy as np
import sympy

# Slack for data rounded to a few digits (identified inertias often sit on the boundary).
TOLERANCE = 1e-6


def numeric(values) -> np.ndarray | None:
    """The values as floats, or None when any of them is symbolic."""
    if not all(sympy.sympify(v).is_number for v in values):
        return None
    return np.array([float(v) for v in values])


def body_problem(mass, first_moment, inertia, *, about_origin: bool) -> str | None:
    """What is impossible about a body given by ``mass`` and, about the COM
    (``about_origin=False``: ``first_moment`` is the COM then) or the frame's origin, its
    inertia (Ixx, Iyy, Izz, Ixy, Iyz, Ixz)."""
    data = numeric([mass, *first_moment, *inertia])
    if data is None:
        return None
    m, vector, six = data[0], data[1:4], data[4:]
    if m < 0:
        return f"the mass is negative ({m:g} kg)"
    if m == 0:
        if about_origin and np.any(vector) or np.any(six):
            return ("a body without mass has neither a first moment nor inertia (give the link "
                    "a positive mass, or no inertial data)")
        return None
    com = vector / m if about_origin else vector
    inertia_matrix = _matrix(six)
    if about_origin:            # back to the COM: I_c = J_O + m S(c) S(c)
        s = np.array([[0, -com[2], com[1]], [com[2], 0, -com[0]], [-com[1], com[0], 0]])
        inertia_matrix = inertia_matrix + m * s @ s
    moments = np.linalg.eigvalsh(inertia_matrix)
    slack = TOLERANCE * max(float(np.abs(moments).max()), 1e-12)
    if moments[0] < -slack:
        return (f"the inertia about the centre of mass is not positive semi-definite (principal "
                f"moments {_show(moments)} kg m^2)")
    if moments[0] + moments[1] < moments[2] - slack:
        return (f"the principal moments of inertia about the centre of mass {_show(moments)} "
                f"kg m^2 break the triangle inequality I1 + I2 >= I3")
    return None


def actuator_problem(key: str, value) -> str | None:
    """What is impossible about one actuator entry: a zero gear ratio, a negative rotor inertia
    or viscous friction; for Coulomb friction [Tc+, Tc-], Tc+ < 0 or Tc- > 0 (friction opposes
    the motion)."""
    values = value if isinstance(value, tuple) else (value,)
    data = numeric(values)
    if data is None:
        return None
    if key == "gear_ratio" and data[0] == 0:
        return "the gear ratio is zero (the motor would not move the joint)"
    if key in ("motor_inertia", "viscous_friction") and data[0] < 0:
        return f"{key.replace('_', ' ')} is negative ({data[0]:g})"
    if key == "coulomb_friction" and (data[0] < 0 or data[1] > 0):
        return (f"Coulomb friction [{data[0]:g}, {data[1]:g}] does not oppose the motion "
                "(Tc+ >= 0 for qd > 0, Tc- <= 0 for qd < 0)")
    return None


def elastic_problem(key: str, value) -> str | None:
    """What is impossible about an elastic joint's spring: a stiffness that is not positive (a
    stiff joint is a rigid one: no elastic entry), a negative damping."""
    data = numeric((value,))
    if data is None:
        return None
    if key == "stiffness" and not data[0] > 0:
        return f"the stiffness must be positive ({data[0]:g}); a rigid joint has no elastic entry"
    if key == "damping" and data[0] < 0:
        return f"the damping is negative ({data[0]:g})"
    return None


def spring_problem(stiffness) -> str | None:
    """What is impossible about a joint spring: a negative stiffness (it would push the joint
    away from its reference, without bound)."""
    data = numeric((stiffness,))
    if data is not None and data[0] < 0:
        return f"the stiffness is negative ({data[0]:g})"
    return None


def _matrix(six) -> np.ndarray:
    ixx, iyy, izz, ixy, iyz, ixz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


def _show(values) -> str:
    return "[" + ", ".join(f"{v:.6g}" for v in values) + "]"
