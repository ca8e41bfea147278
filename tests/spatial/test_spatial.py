"""spatial.py against Pinocchio's SE3, Motion, Force and Inertia, on numbers and on symbols."""
from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
import symengine
import sympy

from symdyn.spatial import PARAMETERS, Force, Inertia, Motion, Placement, skew

RNG = np.random.default_rng(7)


def random_placement():
    return pin.SE3.Random()


def ours(x, kind):
    """Pinocchio's object as spatial.py's, its vectors of ``kind``."""
    def v(a):
        a = np.asarray(a, dtype=float)
        if kind == "numpy":
            return a.copy()
        matrix = sympy.Matrix if kind == "sympy" else symengine.DenseMatrix
        return matrix(a.tolist())

    if isinstance(x, pin.SE3):
        return Placement(v(x.rotation), v(x.translation))
    if isinstance(x, pin.Motion):
        return Motion(v(x.angular), v(x.linear))
    if isinstance(x, pin.Force):
        return Force(v(x.angular), v(x.linear))
    ten = x.toDynamicParameters()
    body = Inertia.from_parameters(ten)
    return Inertia(float(ten[0]), v(body.first_moment), v(body.inertia_origin))


def numbers(a):
    if isinstance(a, (sympy.MatrixBase, symengine.DenseMatrix)):
        a = [float(x) for x in a]        # row-major, as numpy's reshape
    return np.asarray(a, dtype=float).reshape(-1)


def same(a, b):
    """spatial.py's result ``a`` equals Pinocchio's ``b``."""
    if isinstance(b, (pin.Motion, pin.Force)):
        np.testing.assert_allclose(numbers(a.angular), b.angular, atol=1e-12)
        np.testing.assert_allclose(numbers(a.linear), b.linear, atol=1e-12)
    elif isinstance(b, pin.SE3):
        np.testing.assert_allclose(numbers(a.rotation), b.rotation.reshape(-1), atol=1e-12)
        np.testing.assert_allclose(numbers(a.translation), b.translation, atol=1e-12)
    elif isinstance(b, pin.Inertia):
        np.testing.assert_allclose([float(x) for x in a.parameters()], b.toDynamicParameters(),
                                   atol=1e-12)
    else:
        np.testing.assert_allclose(float(a), b, atol=1e-12)


KINDS = ["numpy", "sympy", "symengine"]


@pytest.mark.parametrize("kind", KINDS)
def test_placements_compose_invert_and_act(kind):
    for _ in range(5):
        A, B = random_placement(), random_placement()
        v, f, inertia = pin.Motion.Random(), pin.Force.Random(), pin.Inertia.Random()
        X = ours(A, kind)
        same(X * ours(B, kind), A * B)
        same(X.inverse(), A.inverse())
        same(X.act(ours(v, kind)), A.act(v))
        same(X.act_inverse(ours(v, kind)), A.actInv(v))
        same(X.act_force(ours(f, kind)), A.act(f))
        same(X.act_force_inverse(ours(f, kind)), A.actInv(f))
        same(X.act_inertia(ours(inertia, kind)), A.act(inertia))
        np.testing.assert_allclose(numbers(X.transform()), A.homogeneous.reshape(-1))


@pytest.mark.parametrize("kind", KINDS)
def test_motions_forces_and_inertias(kind):
    for _ in range(5):
        v, w, f = pin.Motion.Random(), pin.Motion.Random(), pin.Force.Random()
        I1, I2 = pin.Inertia.Random(), pin.Inertia.Random()
        same(ours(v, kind).cross(ours(w, kind)), v.cross(w))
        same(ours(v, kind).cross_force(ours(f, kind)), v.cross(f))
        same(ours(f, kind).dot(ours(v, kind)), f.dot(v))
        same(ours(v, kind) + ours(w, kind), v + w)
        same(ours(v, kind) - ours(w, kind), v - w)
        same(ours(v, kind) * 2.5, v * 2.5)
        same(ours(I1, kind).times(ours(v, kind)), I1 * v)
        same(ours(I1, kind) + ours(I2, kind), I1 + I2)
        same((ours(I1, kind) + ours(I2, kind)) - ours(I2, kind), I1)


def test_inertia_from_com_and_back():
    for _ in range(5):
        inertia = pin.Inertia.Random()
        body = Inertia.from_com(inertia.mass, inertia.lever.copy(), inertia.inertia.copy())
        same(body, inertia)
        np.testing.assert_allclose(body.com(), inertia.lever)
        np.testing.assert_allclose(body.inertia_com(), inertia.inertia)
    assert len(PARAMETERS) == 10


def test_symbols_stay_symbols():
    """On sympy's symbols the algebra is exact: a turn about z and back is the identity."""
    t = sympy.Symbol("t")
    Rz = sympy.Matrix([[sympy.cos(t), -sympy.sin(t), 0], [sympy.sin(t), sympy.cos(t), 0],
                       [0, 0, 1]])
    X = Placement(Rz, sympy.Matrix([1, 2, 3]))
    identity = (X * X.inverse()).rotation.applyfunc(sympy.simplify)
    assert identity == sympy.eye(3)
    v = sympy.Matrix(sympy.symbols("a b c"))
    assert (skew(v) * v).applyfunc(sympy.expand) == sympy.zeros(3, 1)
