"""Joint kinds (robot/joints.py), each against Pinocchio's own joint model of its kind; and the
derivations' kind-specific branches, counted so that they only go down (issue 66)."""
from __future__ import annotations

import ast
import io
import re
import tokenize

import numpy as np
import pinocchio as pin
import pytest
import sympy
from support import ROOT

import symdyn
from symdyn.errors import DerivationError, RobotFileError
from symdyn.robot import joints

# Pinocchio's joint model of each kind, in its own frame (z the axis)
PINOCCHIO = {"revolute": lambda kind: pin.JointModelRZ(),
             "prismatic": lambda kind: pin.JointModelPZ(),
             "helical": lambda kind: pin.JointModelHZ(float(kind.pitch)),
             "universal": lambda kind: pin.JointModelUniversal(
                 np.array([0.0, 0.0, 1.0]), np.array(kind.second, dtype=float).ravel()),
             "spherical": lambda kind: pin.JointModelSpherical(),
             "translation": lambda kind: pin.JointModelTranslation(),
             "planar": lambda kind: pin.JointModelPlanar(),
             "free_flyer": lambda kind: pin.JointModelFreeFlyer()}
KINDS = [joints.Helical(0.07) if kind.name == "helical" else
         joints.Universal((0.6, 0.8, 0)) if kind.name == "universal" else kind
         for kind in joints.KINDS.values()]


def _model(kind) -> pin.Model:
    """Pinocchio's model of one joint of ``kind``."""
    model = pin.Model()
    model.addJoint(0, PINOCCHIO[kind.name](kind), pin.SE3.Identity(), "joint")
    return model


def _same_turn(kind, moved, expected) -> None:
    """``moved`` with its quaternion's sign made ``expected``'s: q and -q are one turn
    (Pinocchio's free flyer goes through a rotation matrix, which keeps no sign)."""
    for part in kind.units:
        if part.stop - part.start == 4 and moved[part] @ expected[part] < 0:
            moved[part] *= -1


class _Unnamed:
    """A builder that names nothing: each step is its expression (numbers here)."""

    def define(self, name, expr):
        return expr

    def vector(self, name, values):
        return sympy.Matrix(values)


def _numbers(values) -> np.ndarray:
    return np.array([float(sympy.sympify(x)) for x in values])


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_each_kind_moves_as_pinocchios_joint_model_of_it(kind):
    """nq, nv, neutral, integrate and difference, at random configurations and velocities
    (large turns, and a velocity of zero, where a quaternion's formulas divide by zero)."""
    model = _model(kind)
    assert (model.nq, model.nv) == (kind.nq, kind.nv)
    np.testing.assert_array_equal(pin.neutral(model), np.array(kind.neutral, dtype=float))
    rng = np.random.default_rng(66)
    for k in range(20):
        q0, q1 = pin.randomConfiguration(model, -np.ones(kind.nq) * 3, np.ones(kind.nq) * 3), \
            pin.randomConfiguration(model, -np.ones(kind.nq) * 3, np.ones(kind.nq) * 3)
        v = rng.normal(size=kind.nv) * 2 * (k > 0)
        moved = _numbers(kind.integrate(_Unnamed(), "", [sympy.Float(x) for x in q0],
                                        [sympy.Float(x) for x in v]))
        expected = pin.integrate(model, q0, v)
        _same_turn(kind, moved, expected)
        np.testing.assert_allclose(moved, expected, atol=1e-12)
        between = _numbers(kind.difference(_Unnamed(), "", [sympy.Float(x) for x in q0],
                                           [sympy.Float(x) for x in q1]))
        np.testing.assert_allclose(between, pin.difference(model, q0, q1), atol=1e-12)


# What names a joint kind outside robot/joints.py. The derivations and emitters are to ask a
# link's kind (Link.kind) and never which kind it is: BUDGET is today's count of the lines of
# code (docstrings and comments aside: they may say what the books say of a kind) in derive/
# and emit/ that name one, and goes down to 0 as each use moves into the kinds.
KIND_WORDS = re.compile(r"\.ball\b|\bballs\b|spherical|\.floating\b|free_flyer|FreeFlyer|"
                        r"\.revolute\b|prismatic|\"revolute\"|\.root\b")
BUDGET = 21


def _code(path) -> dict[int, str]:
    """{line number: its code}, docstrings and comments left out."""
    source = path.read_text(encoding="utf-8")
    lines = dict(enumerate(source.splitlines(), 1))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for n in range(node.lineno, node.end_lineno + 1):
                lines.pop(n, None)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and token.start[0] in lines:
            row, column = token.start
            lines[row] = lines[row][:column]
    return lines


def test_the_derivations_ask_a_joints_kind_ever_less_which_it_is():
    lines = [f"{path.relative_to(ROOT)}:{n}" for folder in ("derive", "emit")
             for path in sorted((ROOT / "symdyn" / folder).glob("*.py"))
             for n, code in _code(path).items() if KIND_WORDS.search(code)]
    assert len(lines) <= BUDGET, (
        f"{len(lines)} lines of derive/ and emit/ name a joint kind, more than the {BUDGET} "
        "allowed: ask the link's kind (robot/joints.py) instead. First: " + ", ".join(lines[:5]))
    assert len(lines) == BUDGET, (
        f"{len(lines)} lines name a kind now: lower BUDGET to it, so that it stays down")


@pytest.mark.parametrize("path, what", [
    (ROOT / "robots" / "space_arm.yaml", "a floating base's q is a position and a quaternion"),
    (ROOT / "tests" / "derive" / "mechanisms" / "delta.yaml", "a spherical joint's q is a "
     "quaternion"),
    (ROOT / "tests" / "derive" / "mechanisms" / "kinds_tree.yaml", "a planar joint's q is a "
     "position in the plane")])
def test_the_lagrange_route_refuses_a_kind_whose_configuration_is_a_quaternion(path, what):
    """Lagrange's equations differentiate in q: a kind whose q + v is no configuration (nq
    differs from nv) is refused, named, before anything is derived."""
    with pytest.raises(DerivationError, match=what):
        symdyn.lagrange(symdyn.load_robot(path))


def test_a_robot_file_takes_the_kinds_registered_and_names_them(tmp_path):
    """One registration: the robot file's `joint:` takes the kinds of joints.KINDS, and a kind
    symdyn does not have yet is refused at its line, naming those it has."""
    path = tmp_path / "tube.yaml"
    path.write_text("name: tube\nconvention: urdf\nlinks:\n"
                    "  - {name: rod, joint: cylindrical, axis: [0, 0, 1], mass: 1}\n")
    with pytest.raises(RobotFileError, match=r"tube.yaml:4: link 1.joint: 'cylindrical' is not "
                       r"known \(expected " + " or ".join(joints.KINDS) + r"\)"):
        symdyn.load_robot(path)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_a_kinds_rates_in_numbers_are_its_rates_and_pinocchios_motion(kind):
    """rate_numbers (the checks' numbers) equals rates (the derivations' symbols) at
    configurations from ``random``, which Pinocchio takes as they are (unit quaternions), and
    both are how Pinocchio's integrate moves q for a short step h: (q(h) - q)/h to O(h)."""
    rng = np.random.default_rng(7)
    q, v = kind.random(rng, 5), rng.normal(size=(5, kind.nv))
    assert q.shape == (5, kind.nq)
    model = _model(kind)
    q_symbols, v_symbols = sympy.symbols(f"q0:{kind.nq}"), sympy.symbols(f"v0:{kind.nv}")
    rates = kind.rates(q_symbols, v_symbols)
    numbers = kind.rate_numbers(q, v)
    for qi, vi, rate in zip(q, v, numbers):
        np.testing.assert_allclose(pin.normalize(model, qi), qi, atol=1e-15)
        values = dict(zip(q_symbols, qi)) | dict(zip(v_symbols, vi))
        exact = [float(sympy.sympify(rates.get(s, 0)).subs(values)) for s in q_symbols]
        np.testing.assert_allclose(rate, exact, atol=1e-14)
        h = 1e-7
        moved = pin.integrate(model, qi, vi * h)
        _same_turn(kind, moved, qi)
        np.testing.assert_allclose((moved - qi) / h, rate, atol=1e-5)
