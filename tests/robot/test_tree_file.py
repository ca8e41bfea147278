"""Trees in the robot file: links with names and parents, Khalil and Kleinfinger's gamma and b,
and a located one-line error for every tree a file cannot mean."""
from __future__ import annotations

import textwrap

import numpy as np
import pinocchio as pin
import pytest
import sympy
from click.testing import CliRunner
from support import random_tree_yaml

import symdyn
from symdyn.cli import main
from symdyn.reference import pinocchio_model

TREE = """\
name: hand
convention: modified
links:
  - {name: palm, joint: revolute, a: 0, alpha: 0, d: 0.1, theta: 0, mass: 1,
     inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: index, parent: palm, joint: revolute, a: 0.05, alpha: pi/2, d: 0, theta: 0,
     mass: 0.1,
     inertia: [0.001, 0.001, 0.001, 0, 0, 0]}
  - {name: tip, parent: index, joint: prismatic, a: 0.04, alpha: 0, d: 0, theta: 0, mass: 0.05,
     inertia: [0.001, 0.001, 0.001, 0, 0, 0]}
  - {name: thumb, parent: palm, gamma: pi/2, b: 0.02, joint: revolute, a: 0.03, alpha: -pi/2,
     d: 0, theta: 0, mass: 0.1,
     inertia: [0.001, 0.001, 0.001, 0, 0, 0]}
  - {name: wrist_camera, parent: base, joint: revolute, a: 0.1, alpha: 0, d: 0, theta: 0,
     mass: 0.2,
     inertia: [0.002, 0.002, 0.002, 0, 0, 0]}
"""


def write(tmp_path, text, name="hand.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_names_and_parents_make_the_tree(tmp_path):
    robot = symdyn.load_robot(write(tmp_path, TREE))
    assert robot.parents == (0, 1, 2, 1, 0)
    assert [link.name for link in robot.spec.links] == ["palm", "index", "tip", "thumb",
                                                        "wrist_camera"]
    thumb = robot.spec.links[3]
    assert (thumb.gamma, thumb.b) == (sympy.pi / 2, sympy.Rational(1, 50))


def test_without_parents_a_file_is_the_chain_it_was(tmp_path):
    chain = TREE.replace("parent: palm, ", "").replace("parent: index, ", "").replace(
        "parent: base, ", "").replace("gamma: pi/2, b: 0.02, ", "")
    robot = symdyn.load_robot(write(tmp_path, chain))
    assert robot.parents == (0, 1, 2, 3, 4)


def test_gamma_and_b_place_the_link_as_their_transforms(tmp_path):
    """^{p}T_i = Rz(gamma) Tz(b) Rx(alpha) Tx(a) Rz(theta + q) Tz(d), at q = 0."""
    robot = symdyn.load_robot(write(tmp_path, TREE))
    thumb = robot.links[3]
    c, s = 0.0, 1.0            # gamma = pi/2
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]])          # alpha = -pi/2
    expected_R, expected_p = Rz @ Rx, Rz @ np.array([0.03, 0, 0]) + [0, 0, 0.02]
    R = np.array(thumb.rotation.subs(thumb.q, 0), dtype=float)
    p = np.array(thumb.position.subs(thumb.q, 0), dtype=float).ravel()
    np.testing.assert_allclose(R, expected_R, atol=1e-15)
    np.testing.assert_allclose(p, expected_p, atol=1e-15)


@pytest.mark.parametrize("convention", ["standard", "modified", "urdf"])
def test_random_trees_read(tmp_path, convention):
    rng = np.random.default_rng(len(convention))
    for k in range(10):
        robot = symdyn.load_robot(write(tmp_path, random_tree_yaml(
            rng, name=f"t{k}", convention=convention), f"t{k}.yaml"))
        assert all(p < i for i, p in enumerate(robot.parents, start=1))
        if convention == "standard":
            assert len(set(robot.parents)) == len(robot.parents)   # one child per link


LINK = "  - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1"
BAD = [
    ("standard", [LINK + ", name: a}", LINK + ", parent: a}", LINK + ", parent: a}"],
     "links[2].parent", "standard DH cannot place a second child on link 1", 6),
    ("modified", [LINK + ", name: a, parent: c}", LINK + ", name: b, parent: a}",
                  LINK + ", name: c, parent: b}"],
     "links[0].parent", "circle: a -> c -> b -> a", 4),
    ("modified", [LINK + ", name: a}", LINK + ", parent: hand}"],
     "links[1].parent", "'hand' names no link", 5),
    ("modified", [LINK + ", name: a}", LINK + ", name: a}"],
     "links[1].name", "the link name 'a' is given twice", 5),
    ("modified", [LINK + ", name: a, parent: b}", LINK + ", name: b, parent: base}"],
     "links[0].parent", "listed after this link", 4),
    ("modified", [LINK + ", name: a}", LINK + ", parent: a}", LINK + ", parent: base}",
                  LINK + ", parent: a}"],
     "links[3].parent", "'a''s subtree was left before this link: list the links depth first",
     7),
    ("standard", [LINK + ", gamma: 0.1}"], "links[0].gamma", "modified DH", 4),
    ("urdf", ["  - {joint: revolute, axis: [0, 0, 1], b: 0.1, mass: 1}"], "links[0].b",
     "modified DH", 4),
    ("modified", [LINK + ", name: 2nd}"], "links[0].name", "not a valid link name", 4),
    ("modified", [LINK + ", name: base}"], "links[0].name", "not a valid link name", 4),
]


@pytest.mark.parametrize("convention, links, field, words, line", BAD,
                         ids=[b[3] for b in BAD])
def test_trees_a_file_cannot_mean_get_one_line(tmp_path, convention, links, field, words,
                                                line):
    text = "\n".join(["name: bad", f"convention: {convention}", "links:", *links]) + "\n"
    path = write(tmp_path, text, "bad.yaml")
    with pytest.raises(symdyn.RobotFileError) as info:
        symdyn.load_robot(path)
    error = info.value
    assert words in str(error) and error.field == field and error.line == line, str(error)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["generate", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output and not out.exists()


@pytest.mark.parametrize("convention", ["modified", "urdf"])
def test_a_tree_exports_as_the_urdf_tree_pinocchio_reads(tmp_path, convention):
    """export-urdf writes each joint under its parent's link: Pinocchio's own model of the
    export has the file's dynamics (its joints numbered depth first, as the file's links)."""
    rng = np.random.default_rng(12)
    path = write(tmp_path, random_tree_yaml(rng, name="exported", dof=6, convention=convention),
                 "exported.yaml")
    robot = symdyn.load_robot(path)
    urdf = tmp_path / "exported.urdf"
    result = CliRunner().invoke(main, ["export-urdf", str(path), "-o", str(urdf)])
    assert result.exit_code == 0, result.output
    model = pin.buildModelFromUrdf(str(urdf))
    model.gravity.linear = np.array([float(g) for g in robot.gravity])
    assert tuple(model.parents)[1:] == robot.parents
    reference = pinocchio_model(robot.spec)
    data, expected = model.createData(), reference.createData()
    widths = [model.joints[i].nq for i in range(1, model.njoints)]   # continuous: cos, sin
    for q, qd, qdd in rng.uniform(-2, 2, (10, 3, robot.dof)):
        angles = np.concatenate([[np.cos(x), np.sin(x)] if w == 2 else [x]
                                 for x, w in zip(q, widths)])
        np.testing.assert_allclose(pin.rnea(model, data, angles, qd, qdd),
                                   pin.rnea(reference, expected, q, qd, qdd), atol=1e-10)


def test_a_tree_in_c_equals_pinocchio(tmp_path):
    """The C of a tree, compiled strictly with its wrapper: inverse dynamics, M (its zeros
    where neither link supports the other), forward dynamics and the tool's Jacobian."""
    path = write(tmp_path, TREE)
    robot = symdyn.load_robot(path)
    compiled = symdyn.compile(path, quantities=["inverse_dynamics", "mass_matrix",
                                                "forward_dynamics", "jacobian"],
                              cache=tmp_path / "cache")
    model = pinocchio_model(robot.spec)
    data = model.createData()
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.uniform(-2, 2, (3, 30, robot.dof))
    M = compiled.mass_matrix(q)
    for k in range(len(q)):
        np.testing.assert_allclose(compiled.inverse_dynamics(q[k], qd[k], qdd[k]),
                                   pin.rnea(model, data, q[k], qd[k], qdd[k]), atol=1e-10)
        np.testing.assert_allclose(M[k], pin.crba(model, data, q[k]), atol=1e-10)
        np.testing.assert_allclose(compiled.forward_dynamics(q[k], qd[k], qdd[k]),
                                   pin.aba(model, data, q[k], qd[k], qdd[k]), atol=1e-9)
        frame = model.getFrameId("tool")
        np.testing.assert_allclose(compiled.jacobian(q[k]), pin.computeFrameJacobian(
            model, data, q[k], frame, pin.LOCAL_WORLD_ALIGNED), atol=1e-10)
    assert not M[:, 4, :4].any() and not M[:, 1:3, 3].any()     # other branches: exact zeros
