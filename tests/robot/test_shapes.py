"""Link inertia from shapes: each solid against the Handbook's closed form, a composite link
against a hand computation, symbolic dimensions, and the dynamics of a shaped robot against
Pinocchio."""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

import symdyn
from symdyn.check import check

LINK = "name: shaped\nconvention: modified\n{parameters}links:\n" \
       "  - {{joint: revolute, a: 0.1, alpha: 0.3, d: 0, theta: 0,\n     shapes: [{shapes}]}}\n"


def shaped(tmp_path, shapes, parameters=""):
    path = tmp_path / "shaped.yaml"
    path.write_text(LINK.format(shapes=shapes, parameters=parameters))
    return symdyn.load_robot(path).spec.links[0]


def inertia(link):
    ixx, iyy, izz, ixy, iyz, ixz = (float(v) for v in link.inertia_origin)
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


m, r, h, ri = 2.0, 0.05, 0.3, 0.03
CLOSED_FORMS = {     # solid at the origin, axis along z: (entry, mass, inertia about the COM)
    "box": ("{box: [0.1, 0.2, 0.3], mass: 2}", m,
            np.diag([m * (0.04 + 0.09), m * (0.01 + 0.09), m * (0.01 + 0.04)]) / 12),
    "solid cylinder": ("{cylinder: [0.05, 0.3], mass: 2}", m,
                       np.diag([m * (3 * r**2 + h**2) / 12] * 2 + [m * r**2 / 2])),
    "hollow cylinder": ("{hollow_cylinder: [0.03, 0.05, 0.3], mass: 2}", m,
                        np.diag([m * (3 * (ri**2 + r**2) + h**2) / 12] * 2
                                + [m * (ri**2 + r**2) / 2])),
    "sphere": ("{sphere: 0.05, mass: 2}", m, np.eye(3) * 2 * m * r**2 / 5),
    "thin rod": ("{rod: 0.3, mass: 2}", m, np.diag([m * h**2 / 12] * 2 + [0])),
    "cylinder along x": ("{cylinder: {radius: 0.05, length: 0.3}, mass: 2, axis: x}", m,
                         np.diag([m * r**2 / 2] + [m * (3 * r**2 + h**2) / 12] * 2)),
    "box by density": ("{box: [0.1, 0.2, 0.3], density: 1000}", 6.0,
                       np.diag([6 * (0.04 + 0.09), 6 * (0.01 + 0.09), 6 * (0.01 + 0.04)]) / 12),
    "cylinder by density": ("{cylinder: [0.05, 0.3], density: 2700}", 2700 * math.pi * r**2 * h,
                            np.diag([2700 * math.pi * r**2 * h * (3 * r**2 + h**2) / 12] * 2
                                    + [2700 * math.pi * r**2 * h * r**2 / 2])),
}


@pytest.mark.parametrize("entry, mass, expected", CLOSED_FORMS.values(), ids=CLOSED_FORMS.keys())
def test_each_solid_has_the_handbooks_inertia(tmp_path, entry, mass, expected):
    link = shaped(tmp_path, entry)
    assert math.isclose(float(link.mass), mass, rel_tol=1e-12)
    assert all(v == 0 for v in link.first_moment)
    np.testing.assert_allclose(inertia(link), expected, rtol=1e-12, atol=1e-15)


def test_a_composite_link_equals_the_hand_computation(tmp_path):
    # a 2 kg box 0.1 x 0.2 x 0.3 centred 0.15 up z, a 1 kg ball of radius 0.05 at x = 0.2, and a
    # 0.5 kg rod of length 0.4 along y, turned by rpy (0, 0, pi/2) so that it lies along -x
    link = shaped(tmp_path, "{box: [0.1, 0.2, 0.3], mass: 2, xyz: [0, 0, 0.15]}, "
                            "{sphere: 0.05, mass: 1, xyz: [0.2, 0, 0]}, "
                            "{rod: 0.4, mass: 0.5, axis: y, rpy: [0, 0, pi/2]}")
    assert float(link.mass) == 3.5
    np.testing.assert_allclose([float(v) for v in link.first_moment], [0.2, 0, 0.3])
    box = np.diag([2 * 0.13, 2 * 0.10, 2 * 0.05]) / 12 + 2 * np.diag([0.0225, 0.0225, 0])
    ball = np.eye(3) * 0.001 + np.diag([0, 0.04, 0.04])
    rod = np.diag([0, 0.5 * 0.16 / 12, 0.5 * 0.16 / 12])     # now along x: no moment about x
    np.testing.assert_allclose(inertia(link), box + ball + rod, rtol=1e-12, atol=1e-15)


def test_symbolic_dimensions_stay_symbolic(tmp_path):
    link = shaped(tmp_path, "{box: [length, 0.1, 0.1], mass: m, xyz: ['length/2', 0, 0]}")
    length, mass = sympy.symbols("length m")
    assert link.mass == mass and link.first_moment[0] == mass * length / 2
    assert sympy.simplify(link.inertia_origin[1] - (
        mass * (length**2 + sympy.Rational(1, 100)) / 12 + mass * length**2 / 4)) == 0


def test_a_shaped_robot_matches_pinocchio(tmp_path):
    path = tmp_path / "arm.yaml"
    path.write_text("name: arm\nconvention: standard\nlinks:\n"
                    "  - {joint: revolute, a: 0.3, alpha: pi/2, d: 0.2, theta: 0, shapes: [\n"
                    "     {cylinder: [0.04, 0.3], density: 2700, axis: x, xyz: [-0.15, 0, 0]},\n"
                    "     {sphere: 0.06, mass: 0.8}]}\n"
                    "  - {joint: prismatic, a: 0.2, alpha: 0, d: 0, theta: 0.4, shapes: [\n"
                    "     {box: [0.2, 0.05, 0.05], mass: 1, xyz: [-0.1, 0, 0],\n"
                    "      rpy: [0.3, 0, 0]}]}\n"
                    "payload: {shapes: [{sphere: 0.03, mass: 0.4, xyz: [0.05, 0, 0]}]}\n")
    rows = check(symdyn.load_robot(path), states=30)
    assert all(row.passed for row in rows), [row for row in rows if not row.passed]
    assert any("Pinocchio rnea" in row.check for row in rows)
