"""Trees in the robot file: links with names and parents, Khalil and Kleinfinger's gamma and b,
and a located one-line error for every tree a file cannot mean."""
from __future__ import annotations

import textwrap

import numpy as np
import pinocchio as pin
import pytest
import sympy
from click.testing import CliRunner
from support import assert_refused_in_one_line, random_tree_yaml

import symdyn
from symdyn.cli import main
from symdyn.program import optimize_all
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
     "link 3.parent", "standard DH cannot place a second child on link 1", 6),
    ("modified", [LINK + ", name: a, parent: c}", LINK + ", name: b, parent: a}",
                  LINK + ", name: c, parent: b}"],
     "link 1.parent", "circle: a -> c -> b -> a", 4),
    ("modified", [LINK + ", name: a}", LINK + ", parent: hand}"],
     "link 2.parent", "'hand' names no link", 5),
    ("modified", [LINK + ", name: a}", LINK + ", name: a}"],
     "link 2.name", "the link name 'a' is given twice", 5),
    ("modified", [LINK + ", name: a, parent: b}", LINK + ", name: b, parent: base}"],
     "link 1.parent", "listed after this link", 4),
    ("standard", [LINK + ", gamma: 0.1}"], "link 1.gamma", "modified DH", 4),
    ("urdf", ["  - {joint: revolute, axis: [0, 0, 1], b: 0.1, mass: 1}"], "link 1.b",
     "modified DH", 4),
    ("modified", [LINK + ", name: 2}"], "link 1.name", "2 is not a valid name", 4),
    ("modified", [LINK + ", name: ' hand'}"], "link 1.name", "not a valid name", 4),
    ("modified", [LINK + ", name: base}"], "link 1.name", "not a valid name", 4),
    ("modified", [LINK + ", name: a, joint_name: j}", LINK + ", joint_name: j}"],
     "link 2.joint_name", "the joint name 'j' is given twice", 5),
]


@pytest.mark.parametrize("convention, links, field, words, line", BAD,
                         ids=[b[3] for b in BAD])
def test_trees_a_file_cannot_mean_get_one_line(tmp_path, convention, links, field, words,
                                                line):
    text = "\n".join(["name: bad", f"convention: {convention}", "links:", *links]) + "\n"
    path = write(tmp_path, text, "bad.yaml")
    assert_refused_in_one_line(tmp_path, path, field, words, line)


def _breadth_first(text: str) -> tuple[str, list[int]]:
    """A random tree's file (random_tree_yaml: links l1..ln, depth first) with its links
    listed breadth first, each still after its parent; and the old place of each link, in
    the new order."""
    head, *blocks = text.split("\n  - name: ")
    parents = {}
    for block in blocks:
        name = block.split("\n")[0]
        parent = block.split("parent: ")[1].split("\n")[0]
        parents[name] = parent
    order, level = [], ["base"]
    while level:
        level = [name for name in parents if parents[name] in level]
        order += level
    by_name = {block.split("\n")[0]: block for block in blocks}
    text = head + "".join("\n  - name: " + by_name[name] for name in order)
    return text, [int(name[1:]) for name in order]


def test_links_in_any_order_after_their_parents_give_the_dynamics_in_that_order(tmp_path):
    """A tree listed breadth first (not depth first, as Pinocchio numbers joints) reads, and
    its q follows the file: M, tau and the frames' Jacobians are the depth-first file's,
    permuted; symdyn check, whose Pinocchio model is built depth first, passes."""
    from symdyn.check import check

    rng = np.random.default_rng(31)
    text = random_tree_yaml(rng, name="deep", dof=7, convention="urdf", shape="wide", mimics=1)
    shuffled, old = _breadth_first(text)
    assert old != sorted(old)
    robots = [symdyn.load_robot(write(tmp_path, t, f"{n}.yaml"))
              for t, n in ((text, "deep"), (shuffled, "wide"))]
    assert [link.name for link in robots[1].spec.links] == [f"l{k}" for k in old]
    modules = [symdyn.python_module(symdyn.newton_euler(r), quantities=[
        "inverse_dynamics", "mass_matrix", "jacobian"]) for r in robots]
    # coordinates: the links that are not mimic joints, in each file's order
    names = [[link.name for link in r.spec.links if link.mimic is None] for r in robots]
    perm = [names[0].index(name) for name in names[1]]
    q, qd, qdd = rng.uniform(-2, 2, (3, 20, len(perm)))
    for quantity, args in (("inverse_dynamics", (q, qd, qdd)), ("mass_matrix", (q,)),
                           ("jacobian", (q,))):
        deep = getattr(modules[0], quantity)(*args)
        wide = getattr(modules[1], quantity)(*(a[:, perm] for a in args))
        if quantity == "inverse_dynamics":
            np.testing.assert_allclose(wide, deep[:, perm], atol=1e-12)
        elif quantity == "mass_matrix":
            np.testing.assert_allclose(wide, deep[:, perm][:, :, perm], atol=1e-12)
        else:
            np.testing.assert_allclose(wide, deep[:, :, perm], atol=1e-12)
    rows = check(robots[1], states=10)
    assert all(row.passed for row in rows), [row for row in rows if not row.passed]
    assert any("Pinocchio rnea" in row.check and not row.skipped for row in rows)


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


FRAMED = TREE + """\
frames:
  - {name: index_tip, parent: tip, xyz: [0.02, 0, 0], rpy: [0.1, 0.2, 0.3]}
  - {name: thumb_tip, parent: 4, xyz: [0.03, 0.01, 0]}
  - {name: camera, parent: base, xyz: [0.3, 0, 0.5], rpy: [0, 0.5, 0]}
  - {name: tool, parent: index, xyz: [0, 0, 0.05]}
"""


@pytest.mark.parametrize("language", ["python", "c"])
def test_named_frames_and_a_tool_on_a_branch_equal_pinocchio(tmp_path, language):
    """frame_poses, frame_jacobians and frame_jacobians_dot_qd of every named frame (on a
    link by name or number, or on the base), and the tool as the frame named tool on a middle
    link: its pose, Jacobian and the joint forces of a wrench there (J^T f)."""
    path = write(tmp_path, FRAMED)
    robot = symdyn.load_robot(path)
    quantities = ["frame_poses", "frame_jacobians", "frame_jacobians_dot_qd",
                  "forward_kinematics", "jacobian", "tool_wrench_torques",
                  "frame_pose_and_jacobian"]
    module = (symdyn.python_module(symdyn.newton_euler(robot), quantities=quantities)
              if language == "python" else
              symdyn.compile(path, quantities=quantities, cache=tmp_path / "cache"))
    assert tuple(module.FRAMES) == ("index_tip", "thumb_tip", "camera", "tool")
    model = pinocchio_model(robot.spec)
    data = model.createData()
    rng = np.random.default_rng(8)
    q, qd = rng.uniform(-2, 2, (2, 20, robot.dof))
    wrench = rng.uniform(-5, 5, (20, 6))
    T, J, a = (module.frame_poses(q), module.frame_jacobians(q),
               module.frame_jacobians_dot_qd(q, qd))
    assert T.shape == (20, 4, 4, 4) and J.shape == (20, 4, 6, 5) and a.shape == (20, 4, 6)
    world = pin.LOCAL_WORLD_ALIGNED
    for k in range(20):
        pin.forwardKinematics(model, data, q[k], qd[k], np.zeros(robot.dof))
        pin.updateFramePlacements(model, data)
        pin.computeJointJacobians(model, data, q[k])
        for f, name in enumerate(module.FRAMES):
            frame = model.getFrameId(name)
            np.testing.assert_allclose(T[k, f], data.oMf[frame].homogeneous, atol=1e-12)
            np.testing.assert_allclose(J[k, f], pin.getFrameJacobian(model, data, frame, world),
                                       atol=1e-12)
            acceleration = pin.getFrameClassicalAcceleration(model, data, frame, world)
            np.testing.assert_allclose(a[k, f], np.r_[acceleration.linear, acceleration.angular],
                                       atol=1e-10)
        tool = model.getFrameId("tool")
        np.testing.assert_allclose(module.forward_kinematics(q[k]), data.oMf[tool].homogeneous,
                                   atol=1e-12)
        J_tool = pin.getFrameJacobian(model, data, tool, world)
        np.testing.assert_allclose(module.jacobian(q[k]), J_tool, atol=1e-12)
        # the wrench in the tool's own axes, about its origin: J_body^T f
        J_body = pin.getFrameJacobian(model, data, tool, pin.LOCAL)
        np.testing.assert_allclose(module.tool_wrench_torques(q[k], wrench[k]),
                                   J_body.T @ wrench[k], atol=1e-11)
    assert not J[:, 1, :, 1:3].any() and not J[:, 0, :, 3:].any()    # other branches: zero
    for f, name in enumerate(module.FRAMES):      # one frame's function: bit for bit
        T_f, J_f = getattr(module, f"pose_and_jacobian_{name}")(q)
        assert np.array_equal(T_f, T[:, f]) and np.array_equal(J_f, J[:, f])


def test_one_frames_function_pays_for_its_branch_alone(tmp_path):
    """pose_and_jacobian_<frame>: the thumb's function computes no step of the index finger,
    and fewer multiplications than all frames' functions together."""
    robot = symdyn.load_robot(write(tmp_path, FRAMED))
    dynamics = symdyn.newton_euler(robot)
    programs = dynamics.programs("frame_pose_and_jacobian")
    assert [p.name for p in programs] == [f"pose_and_jacobian_{f.name}" for f in robot.frames]
    passed = optimize_all(programs + [dynamics.program(name) for name in (
        "frame_poses", "frame_jacobians")])
    counts = [symdyn.op_count(p).mul for p in passed]
    thumb = passed[1]
    assert {s.name for s in thumb.input_symbols if s.name in ("q2", "q3")} & {
        str(x) for a in thumb.assignments for x in a.rhs.free_symbols} == set()
    assert counts[1] < counts[0] and counts[1] * 3 < counts[-2] + counts[-1]


FRAME_ERRORS = [
    ("  - {name: a, parent: nowhere}", "frames[0].parent", "'nowhere' names no link"),
    ("  - {name: a, parent: 9}", "frames[0].parent", "9 names no link"),
    ("  - {name: a, parent: 1}\n  - {name: a, parent: 2}", "frames[1].name", "given twice"),
    ("  - {name: tool, parent: base}", "frames[0].parent", "the tool is fixed to the base"),
    ("  - {name: 1.5, parent: 1}", "frames[0].name", "1.5 is not a valid name"),
    ("  - {name: '', parent: 1}", "frames[0].name", "not a valid name"),
    ("  - {name: a, parent: 1, size: 2}", "frames[0].size", "unknown key"),
]


@pytest.mark.parametrize("frames, field, words", FRAME_ERRORS, ids=[e[2] for e in FRAME_ERRORS])
def test_bad_frames_get_one_located_line(tmp_path, frames, field, words):
    path = write(tmp_path, TREE + "frames:\n" + frames + "\n", "bad.yaml")
    with pytest.raises(symdyn.RobotFileError) as info:
        symdyn.load_robot(path)
    assert words in str(info.value) and info.value.field == field, str(info.value)


def test_a_tool_given_twice_is_refused(tmp_path):
    path = write(tmp_path, FRAMED + "tool: {xyz: [0, 0, 0.1]}\n", "bad.yaml")
    with pytest.raises(symdyn.RobotFileError, match="the tool is given twice"):
        symdyn.load_robot(path)


def test_check_compares_a_tree_and_its_frames_with_pinocchio(tmp_path):
    """symdyn check on a tree with named frames: both routes, Pinocchio's model of the same
    tree, and every named frame's pose, Jacobian and classical acceleration; all ok."""
    result = CliRunner().invoke(main, ["check", str(write(tmp_path, FRAMED)), "--states", "20"])
    assert result.exit_code == 0, result.output
    for row in ("frame_poses = Pinocchio", "frame_jacobians = Pinocchio",
                "frame_jacobians_dot_qd = Pinocchio", "mass_matrix = Pinocchio crba",
                "inverse_dynamics_derivatives = Pinocchio", "forward_dynamics = Pinocchio aba",
                "forward_dynamics_derivatives = Pinocchio computeABADerivatives"):
        line = next(line for line in result.output.splitlines() if row in line)
        assert line.rstrip().endswith("ok"), line


def test_the_derivation_printout_shows_the_tree(tmp_path):
    """Each link transform is from its parent's frame (gamma and b included), and the forward
    kinematics composes along the tree to the tool's link."""
    path = write(tmp_path, FRAMED)
    text = CliRunner().invoke(main, ["derive", str(path)]).output
    assert "¹₄T = [0, 0, -1, 0; c4, -s4, 0, 0.03; -s4, -c4, 0, 0.02; 0, 0, 0, 1]" in text
    assert "0T_i = 0T_p(i) p(i)T_i (p(i): link i's parent), 0T_tool = 0T_2 2T_tool" in text
    robot = symdyn.load_robot(path)
    thumb = robot.links[3]                       # the same transform as the model's
    assert thumb.rotation.subs(thumb.q, 0) == sympy.Matrix([[0, 0, -1], [1, 0, 0], [0, -1, 0]])


@pytest.mark.parametrize("convention", ["modified", "urdf"])
def test_a_tree_exported_and_imported_keeps_its_dynamics(tmp_path, convention):
    """import(export-urdf(tree)), the tree taken whole: the same parents and, at random
    states, the same inverse dynamics and mass matrix."""
    rng = np.random.default_rng(21)
    path = write(tmp_path, random_tree_yaml(rng, name="round", dof=6, convention=convention),
                 "round.yaml")
    urdf, back = tmp_path / "round.urdf", tmp_path / "back.yaml"
    runner = CliRunner()
    assert runner.invoke(main, ["export-urdf", str(path), "-o", str(urdf)]).exit_code == 0
    result = runner.invoke(main, ["import", str(urdf), "-o", str(back)])
    assert result.exit_code == 0, result.output
    original, imported = symdyn.load_robot(path), symdyn.load_robot(back)
    assert imported.parents == original.parents
    modules = [symdyn.python_module(symdyn.newton_euler(robot),
                                    quantities=["inverse_dynamics", "mass_matrix"])
               for robot in (original, imported)]
    q, qd, qdd = rng.uniform(-2, 2, (3, 30, original.dof))
    for name, args in (("inverse_dynamics", (q, qd, qdd)), ("mass_matrix", (q,))):
        expected = getattr(modules[0], name)(*args)
        np.testing.assert_allclose(getattr(modules[1], name)(*args), expected,
                                   rtol=1e-12, atol=1e-12 * np.abs(expected).max())
