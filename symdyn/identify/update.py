"""A robot file whose dynamics reproduce identified base parameters: ``identify --write-robot``.

The data determine the base parameters beta = B pi only: many standard parameters pi give the
same beta. Of those, the file written is the one closest to the robot file's own parameters
(pi = pi_0 + B^+ (beta - B pi_0), the smallest change in SI units), so that what the data
cannot see keeps the file's values. Each link's parameters go back into the file's own link
frame, the actuators' to the motor side (Jm = Ia / G^2, B = fv / G^2, Tc = fc / |G|), and a
payload into the last link, whose parameters the data cannot tell from its own.

The result is read back by the robot-file reader and its base parameters compared with the
estimates: a file that does not reproduce them is never written. Least squares knows nothing of
physics: where the estimates give a body no physical inertia (a negative mass, principal
moments that break the triangle inequality), the file says so and is written with
``allow_inconsistent_inertia: true``, so that it still loads and can be checked; a physically
consistent fit needs constraints this least-squares problem does not impose.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import PurePath

import numpy as np
import sympy

from ..derive.dynamics import Dynamics
from ..derive.regressor import standard_parameters
from ..errors import RobotFileError
from ..robot.expr import as_text
from ..robot.file import robot_spec_from_text
from ..robot.model import Robot, stored
from ..robot.spec import DH_COLUMNS
from ..robot.write import decimal, decimals
from ..spatial import Inertia, Placement
from .estimate import Estimate

AGREEMENT = 1e-8      # relative: the written file's base parameters against the estimates


def updated_robot_file(dynamics: Dynamics, estimate: Estimate, *, data: str, path: str,
                       values=None) -> tuple[str, tuple[str, ...]]:
    """The text of the robot file to be written at ``path``, the weighted estimates in, and
    what its reader warns of. ``values`` fixes free symbols as ``--set`` did; raises
    RobotFileError where no file can hold the estimates."""
    robot, values = dynamics.robot, values or {}
    base, beta = estimate.base, estimate.weighted.beta
    B = np.array(base.matrix.subs(values), dtype=float)
    known = [sympy.sympify(v).subs(values) for _, v in standard_parameters(robot)]
    pi0 = np.array([float(v) if v.is_number else 0.0 for v in known])
    change, *_ = np.linalg.lstsq(B, beta - B @ pi0, rcond=None)    # the least-norm one
    pi = pi0 + change
    try:
        text = _text(robot, pi, values, estimate, data, lenient=False)
        spec = robot_spec_from_text(text, path)
    except RobotFileError:      # written leniently: what stays wrong is then refused
        text = _text(robot, pi, values, estimate, data, lenient=True)
        spec = _read(text, path, robot)
    written = base.values(Robot.from_spec(spec), values)
    if written is None or not np.allclose(written, beta, rtol=AGREEMENT,
                                          atol=AGREEMENT * np.abs(beta).max()):
        raise RobotFileError(robot.spec.path, "the updated robot file does not reproduce the "
                             "estimates (a symdyn bug: please report it)")
    return text, spec.warnings


def _read(text: str, path: str, robot: Robot):
    try:
        return robot_spec_from_text(text, path)
    except RobotFileError as exc:
        raise RobotFileError(robot.spec.path, f"the estimates make no robot file: {exc}",
                             expected="estimates of a physical robot (more or richer data)")


def _text(robot: Robot, pi: np.ndarray, values: dict, estimate: Estimate, data: str, *,
          lenient: bool) -> str:
    spec = robot.spec

    def num(expr) -> str:
        """A value of the original file, as it wrote it (pi/2 stays pi/2)."""
        return as_text(sympy.sympify(expr).subs(values))

    def vec(items) -> str:
        return "[" + ", ".join(num(v) for v in items) + "]"

    free = [str(p) for p in robot.parameters if p not in values]
    lines = [f"# {spec.name}, its parameters identified by symdyn identify from "
             f"{json.dumps(data)}", f"# ({estimate.samples} samples, weighted least squares): "
             "of the parameters that reproduce the estimates, those", "# closest to "
             f"{json.dumps(PurePath(spec.path).name)}'s; what the data do not determine keeps "
             "its values there."]
    if estimate.held:
        lines += textwrap.wrap("Held at the robot file's values: " + ", ".join(estimate.held)
                               + ".", 96, initial_indent="# ", subsequent_indent="#   ")
    if spec.payload is not None:
        lines.append("# The payload of the original is part of the last link's parameters.")
    lines += [f"name: {spec.name}", f"source: {json.dumps(spec.source)}",
              f"convention: {spec.convention}"]
    if free:
        lines.append("parameters: {" + ", ".join(f"{p}: null" for p in free) + "}")
    lines.append(f"gravity: {vec(spec.gravity)}")
    if lenient:
        lines.append("allow_inconsistent_inertia: true")
    for key in ("base", "tool"):
        placement = getattr(spec, key)
        if placement is not None:
            lines.append(f"{key}: {{xyz: {vec(placement.xyz)}, rpy: {vec(placement.rpy)}}}")
    lines.append("links:")
    n = len(robot.links)
    for i, (row, link) in enumerate(zip(spec.links, robot.links)):
        body = Inertia.from_parameters([sympy.Float(x) for x in pi[10 * i:10 * i + 10]],
                                       sympy.ImmutableMatrix)
        frame = sympy.Matrix(link.file_frame)     # the file's link frame in the joint frame
        if frame != sympy.eye(4):
            body = stored(Placement.of_transform(frame).inverse().act_inertia(body))
        J = body.inertia_origin
        scale = float(np.abs(pi[10 * i:10 * i + 10]).max())   # rounding noise next to it: 0
        lines.append(f"  - joint: {row.joint}")
        if row.name is not None:
            lines.append(f"    name: {row.name}")
        if row.parent != i:           # not the link before it (i is the 0-based position)
            lines.append("    parent: " + (spec.links[row.parent - 1].name if row.parent
                                           else "base"))
        if row.mimic is not None:
            lines += [f"    mimic: {spec.links[row.mimic - 1].name or row.mimic}",
                      f"    multiplier: {num(row.multiplier)}", f"    offset: {num(row.offset)}"]
        if spec.convention == "urdf":
            lines.append(f"    origin: {{xyz: {vec(row.origin.xyz)}, "
                         f"rpy: {vec(row.origin.rpy)}}}")
            lines.append(f"    axis: {vec(row.axis)}")
        else:
            lines += [f"    {key}: {num(getattr(row, key))}" for key in DH_COLUMNS]
            lines += [f"    {key}: {num(getattr(row, key))}" for key in ("gamma", "b")
                      if getattr(row, key) != 0]
        lines += [f"    mass: {decimal(body.mass, scale)}",
                  f"    first_moment: {decimals(body.first_moment, scale)}",
                  "    inertia_origin: " + decimals((J[0, 0], J[1, 1], J[2, 2], J[0, 1],
                                                     J[1, 2], J[0, 2]), scale)]
        if len(pi) > 10 * n:
            Ia, fv, fcp, fcm = pi[10 * n + 4 * i:10 * n + 4 * i + 4]
            G = float(sympy.sympify(row.gear_ratio).subs(values))
            lines += [f"    gear_ratio: {num(row.gear_ratio)}",
                      f"    motor_inertia: {decimal(Ia / G**2)}",
                      f"    viscous_friction: {decimal(fv / G**2)}",
                      f"    coulomb_friction: {decimals((fcp / abs(G), fcm / abs(G)))}"]
        if row.limits:
            lines.append("    limits: {" + ", ".join(f"{k}: {num(v)}"
                                                    for k, v in row.limits.items()) + "}")
    return "\n".join(lines) + "\n"
