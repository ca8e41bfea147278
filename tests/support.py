"""Helpers the tests share: random robots, Pinocchio models built independently, generated code."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import sympy

import symdyn
from symdyn.check import configurations
from symdyn.derive.quantities import KINEMATICS
from symdyn.derive.regressor import standard_parameters
from symdyn.emit.build import STRICT
from symdyn.reference import friction_torques, pinocchio_model
from symdyn.robot.constraints import Loops

ROOT = Path(__file__).resolve().parent.parent
ROBOTS = ROOT / "robots"
# The shipped robots on a fixed base: what the tests of quantities a floating base does not
# have yet (issue 30: the Coriolis matrix, the derivatives, the regressor) run on.
FIXED_BASE = [path for path in sorted(ROBOTS.glob("*.yaml"))
              if "\nroot: free_flyer" not in path.read_text()]


# -- random robots -----------------------------------------------------------------------------
def random_inertia(rng):
    """A physically consistent inertia about the COM: the triangle inequalities hold."""
    principal = rng.uniform(0.01, 0.2, 3)
    principal[2] = rng.uniform(abs(principal[0] - principal[1]) + 1e-3, principal[0] + principal[1])
    rotation = pin.rpy.rpyToMatrix(*rng.uniform(-np.pi, np.pi, 3))
    return _six(rotation @ np.diag(principal) @ rotation.T)


def random_robot_yaml(rng, name="random", dof=None, convention=None, origin_form=False,
                      placed=False):
    """A random robot file; ``placed``: with a random base (tilted) and tool."""
    dof = dof or int(rng.integers(1, 8))
    convention = convention or str(rng.choice(["standard", "modified"]))
    lines = [f"name: {name}", f"convention: {convention}",
             f"gravity: [{', '.join(repr(float(g)) for g in rng.uniform(-10, 10, 3))}]"]
    if placed:
        for key in ("base", "tool"):
            xyz, rpy = rng.uniform(-0.5, 0.5, 3), rng.uniform(-np.pi, np.pi, 3)
            lines.append(f"{key}: {{xyz: [{', '.join(repr(float(v)) for v in xyz)}], "
                         f"rpy: [{', '.join(repr(float(v)) for v in rpy)}]}}")
    lines.append("links:")
    for _ in range(dof):
        joint = "prismatic" if rng.random() < 0.3 else "revolute"
        alpha = rng.choice(["0", "pi/2", "-pi/2", repr(float(rng.uniform(-np.pi, np.pi)))])
        mass = float(rng.uniform(0.2, 5.0))
        com = [float(c) for c in rng.uniform(-0.3, 0.3, 3)]
        inertia = random_inertia(rng)
        lines += [f"  - joint: {joint}",
                  f"    a: {float(rng.uniform(-0.5, 0.5))!r}",
                  f"    alpha: {alpha}",
                  f"    d: {float(rng.uniform(-0.5, 0.5))!r}",
                  f"    theta: {float(rng.uniform(-np.pi, np.pi))!r}",
                  f"    mass: {mass!r}"]
        if origin_form:
            ms = [mass * c for c in com]
            c = np.array(com)
            Ic = inertia_matrix(inertia)
            J = Ic + mass * (c @ c * np.eye(3) - np.outer(c, c))
            lines += [f"    first_moment: [{', '.join(repr(float(v)) for v in ms)}]",
                      f"    inertia_origin: [{', '.join(repr(float(v)) for v in _six(J))}]"]
        else:
            lines += [f"    com: [{', '.join(repr(v) for v in com)}]",
                      f"    inertia: [{', '.join(repr(float(v)) for v in inertia)}]"]
    return "\n".join(lines) + "\n"


def random_tree_yaml(rng, name="tree", dof=None, convention=None, shape=None,
                     mimics=0, floating=False) -> str:
    """A random tree in the robot-file form: links named l1..ln in depth-first order, each with
    a parent on the path out to the link before it (``shape``: "deep" mostly that link, "wide"
    any), the
    last a sibling of the one before it, so that some link has two children; revolute and
    prismatic joints, gamma and b in modified DH, origins and oblique axes in convention
    urdf. Standard DH gives each link one child at most, as it must. ``mimics`` of the links
    (never the first) follow another joint of their kind, anywhere in the tree, with a
    random multiplier and offset. ``floating``: on a free-flyer root, with a base body."""
    dof = dof or int(rng.integers(2, 9))
    convention = convention or str(rng.choice(["standard", "modified", "urdf"]))
    shape = shape or str(rng.choice(["deep", "wide"]))
    lines = [f"name: {name}", f"convention: {convention}",
             f"gravity: [{', '.join(repr(float(g)) for g in rng.uniform(-10, 10, 3))}]"]
    if floating:
        com = ", ".join(repr(float(c)) for c in rng.uniform(-.2, .2, 3))
        lines += ["root: free_flyer",
                  f"base_body: {{mass: {float(rng.uniform(1, 10))!r}, com: [{com}], "
                  f"inertia: [{', '.join(repr(float(v)) for v in random_inertia(rng))}]}}"]
    lines.append("links:")
    taken, parents, path = set(), [None], [0]      # path: the base out to the last link
    joints = []

    def r(low, high):
        return repr(float(rng.uniform(low, high)))

    for k in range(1, dof + 1):
        free = [p for p in path if convention != "standard" or p not in taken]
        if convention != "standard" and k == dof > 2:
            parent = parents[k - 1]
        elif shape == "deep" and rng.random() < 0.75:
            parent = free[-1]
        else:
            parent = int(rng.choice(free))
        taken.add(parent)
        parents.append(parent)
        del path[path.index(parent) + 1:]
        path.append(k)
        joint = "prismatic" if rng.random() < 0.3 else "revolute"
        lines += [f"  - name: l{k}", f"    parent: {'base' if parent == 0 else f'l{parent}'}",
                  f"    joint: {joint}"]
        if convention == "urdf":
            axis = rng.normal(size=3)
            lines += [f"    origin: {{xyz: [{r(-.4, .4)}, {r(-.4, .4)}, {r(-.4, .4)}], "
                      f"rpy: [{r(-3, 3)}, {r(-3, 3)}, {r(-3, 3)}]}}",
                      f"    axis: [{', '.join(repr(float(a)) for a in axis)}]"]
        else:
            lines += [f"    a: {r(-.5, .5)}", f"    alpha: {r(-3, 3)}", f"    d: {r(-.5, .5)}",
                      f"    theta: {r(-3, 3)}"]
            if convention == "modified" and rng.random() < 0.7:
                lines += [f"    gamma: {r(-3, 3)}", f"    b: {r(-.5, .5)}"]
        inertia = random_inertia(rng)
        lines += [f"    mass: {r(0.2, 5)}",
                  f"    com: [{r(-.3, .3)}, {r(-.3, .3)}, {r(-.3, .3)}]",
                  f"    inertia: [{', '.join(repr(float(v)) for v in inertia)}]"]
        joints.append(joint)
    followers = [int(k) for k in rng.permutation(range(2, dof + 1))][:mimics] if mimics else []
    for k in followers:
        options = [j for j in range(1, dof + 1)
                   if j not in followers and joints[j - 1] == joints[k - 1]]
        if options:
            j = int(rng.choice(options))
            lines.insert(lines.index(f"  - name: l{k}") + 1,
                         f"    mimic: l{j}\n    multiplier: {r(-2, 2)}\n    offset: {r(-1, 1)}")
    return "\n".join(lines) + "\n"


def random_tree(folder: Path, rng, **kwargs):
    path = folder / f"{kwargs.get('name', 'tree')}.yaml"
    path.write_text(random_tree_yaml(rng, **kwargs))
    return symdyn.load_robot(path)


def random_robot(folder: Path, rng, **kwargs):
    """A random robot (see random_robot_yaml), written to ``folder`` and loaded."""
    path = folder / f"{kwargs.get('name', 'random')}.yaml"
    path.write_text(random_robot_yaml(rng, **kwargs))
    return symdyn.load_robot(path)


def inertia_matrix(six):
    ixx, iyy, izz, ixy, iyz, ixz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


def _six(J):
    return [J[0, 0], J[1, 1], J[2, 2], J[0, 1], J[1, 2], J[0, 2]]


# -- Pinocchio ---------------------------------------------------------------------------------
pin_model = pinocchio_model


def pin_rnea(model, q, qd, qdd, spec=None):
    """Pinocchio's rnea (with the model's armature), plus the robot file's friction if given."""
    data = model.createData()
    tau = np.array([pin.rnea(model, data, *state).copy() for state in zip(q, qd, qdd)])
    return tau if spec is None else tau + friction_torques(spec, qd)


# -- generated code ----------------------------------------------------------------------------
def import_file(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shipped_code(robot_file: Path, folder: Path) -> Path:
    """A shipped robot's committed C, header and Python, copied into ``folder``: test_golden
    proves they are what generation makes now, so the other tests need not make them again."""
    for suffix in (".c", ".h", ".py"):
        name = robot_file.stem + suffix
        shutil.copyfile(ROOT / "generated" / name, folder / name)
    return folder


def generated_python(robot, out_dir: Path, quantities=None):
    (path,) = symdyn.generate(symdyn.newton_euler(robot), "python", out_dir,
                              quantities=quantities)
    return import_file(path, f"gen_{robot.name}_{abs(hash(str(out_dir)))}")


def numpy_and(lang: str, robot_file: Path, folder: Path | None):
    """The numpy module of a robot and its module in ``lang`` (casadi, jax): the committed ones
    of a shipped robot (test_golden proves them current), else generated into ``folder``."""
    name = robot_file.stem
    if robot_file.parent == ROBOTS:
        folder = ROOT / "generated"
    else:
        symdyn.generate(symdyn.newton_euler(symdyn.load_robot(robot_file)), ["python", lang],
                        folder)
    return (import_file(folder / f"{name}.py", f"np_{name}_{id(folder)}"),
            import_file(folder / f"{name}_{lang}.py", f"{lang}_{name}_{id(folder)}"))


def constrained_states(robot, module, rng, states=20):
    """Each of ``states`` random consistent states (q, v, qdd) of ``robot``
    (reference.ConstraintReference's: q closed, v in G's null space), after checking there
    the constraints' functions of ``module`` against the reference's: phi, G and gamma of
    Pinocchio's frames, the constrained forward dynamics with and without Baumgarte's gains
    against the KKT of Pinocchio's M, h and G, the Delassus matrix and its inverse, and an
    impact's velocity and impulses (1e-9)."""
    from symdyn.reference import ConstraintReference

    reference = ConstraintReference(robot)
    for _ in range(states):
        q, v, qdd = reference.state(rng)
        phi, G, gamma = reference.terms(q, v)
        assert_close(module.constraint_residual(q), phi)
        assert_close(module.constraint_jacobian(q), G)
        assert_close(module.constraint_drift(q, v), gamma)
        tau = rng.uniform(-2, 2, robot.dof)
        for gains in (np.zeros(2), rng.uniform(0, 50, 2)):
            for ours, theirs in zip(module.constrained_forward_dynamics(q, v, tau, gains),
                                    reference.kkt(q, v, tau, gains)):
                assert_close(ours, theirs, rtol=1e-9)
        M = pin.crba(reference.model, reference.data, reference.pinocchio_q(q))
        M = reference.T.T @ (np.triu(M) + np.triu(M, 1).T) @ reference.T
        D = G @ np.linalg.solve(M, G.T)
        D_ours, D_inv = module.delassus_matrix(q)
        assert_close(D_ours, D)
        assert_close(D_inv, np.linalg.inv(D), rtol=1e-9)
        r = rng.uniform(0, 1)
        before = v + rng.uniform(-1, 1, robot.dof)      # a velocity the impact changes
        after, impulses = module.impulse_dynamics(q, before, [r])
        expected = -np.linalg.solve(D, (1 + r) * G @ before)
        assert_close(impulses, expected, rtol=1e-9)
        assert_close(after, before + np.linalg.solve(M, G.T @ expected), rtol=1e-9)
        assert_close(G @ after, -r * G @ before, rtol=1e-9)
        yield reference, q, v, qdd


def rk4(f, x, dt: float, steps: int, watch=lambda x: 0.0) -> tuple:
    """x after ``steps`` classical Runge-Kutta steps of dt for dx/dt = f(x), and the largest
    of ``watch`` (a constraint's residual, say) at the steps' ends."""
    worst = 0.0
    for _ in range(steps):
        k1 = f(x)
        k2 = f(x + dt / 2 * k1)
        k3 = f(x + dt / 2 * k2)
        k4 = f(x + dt * k3)
        x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        worst = max(worst, watch(x))
    return x, worst


def in_rows_axes(robot, q, rows) -> np.ndarray:
    """World-aligned rows of each constraint at q ({name: rows}, MuJoCo's equality rows as
    MujocoReference gives them), turned into the robot file's rows' axes (Loops.axes: a
    loop's root's) and stacked in the constraints' order, the rows the file keeps."""
    loops = Loops(robot)
    head = robot.base_configuration
    base = None
    if robot.floating:
        base = np.eye(4)
        base[:3, :3] = np.array(symdyn.robot.model.quaternion_rotation(q[3:7]), dtype=float)
        base[:3, 3] = q[:3]
    out = []
    for c, axes in zip(robot.constraints, loops.axes(dict(zip(loops.symbols, q[head:])), base)):
        mine = rows[c.name]
        if c.kind != "coupling":
            mine = np.kron(np.eye(len(mine) // 3), axes.T) @ mine
        out.append(mine[list(c.rows) if c.kind != "coupling" else [0]])
    return np.vstack(out)


def closed_states(robot, count, seed=0):
    """``count`` configurations where the robot's constraints hold: closed_at moved up to 0.3
    rad and closed again (the robot file's own kinematics, Loops)."""
    loops = Loops(robot)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        q = loops.closed({s: v + rng.uniform(-0.3, 0.3) for s, v in loops.closed_at.items()})
        if q is not None:
            out.append(np.array([q[s] for s in loops.symbols]))
    return out


def random_states(rng, n, count=100):
    return (rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-3, 3, (count, n)),
            rng.uniform(-5, 5, (count, n)))


def input_arrays(rng, robot, count=100):
    """Random values of every input a quantity takes (q, qd, qdd, tau, f_ext, pi, and
    difference's q0 and q1), a batch of ``count`` states; a floating base's q with unit
    quaternions (check.configurations)."""
    q, qd, qdd = random_states(rng, robot.dof, count)
    if robot.floating:
        q = configurations(robot, rng, count)
    return {"q": q, "qd": qd, "qdd": qdd, "tau": 10 * qdd, "q0": q, "q1": np.roll(q, 1, axis=0),
            "f_ext": rng.uniform(-10, 10, (count, 6)),
            "pi": rng.uniform(-1, 1, (count, len(standard_parameters(robot))))}



def pin_kinematics(robot, q, qd):
    """Pinocchio's tool pose, link poses, Jacobians, tool velocity and classical acceleration."""
    model = pin_model(robot.spec, {p: 1.0 for p in robot.parameters})
    data = model.createData()
    tool = model.getFrameId("tool")
    links = [model.getFrameId(f"link{i}") for i in range(1, robot.dof + 1)]
    out = {k: [] for k in (*KINEMATICS, "velocity")}
    for qi, vi in zip(q, qd):
        pin.forwardKinematics(model, data, qi, vi, np.zeros(robot.dof))
        pin.updateFramePlacements(model, data)
        out["forward_kinematics"].append(data.oMf[tool].homogeneous)
        out["link_poses"].append([data.oMf[f].homogeneous for f in links])
        acceleration = pin.getFrameClassicalAcceleration(model, data, tool,
                                                         pin.LOCAL_WORLD_ALIGNED)
        out["jacobian_dot_qd"].append(np.r_[acceleration.linear, acceleration.angular])
        velocity = pin.getFrameVelocity(model, data, tool, pin.LOCAL_WORLD_ALIGNED)
        out["velocity"].append(velocity.vector)
        for name, frame in (("jacobian", pin.LOCAL_WORLD_ALIGNED), ("body_jacobian", pin.LOCAL)):
            J = pin.computeFrameJacobian(model, data, qi, tool, frame)
            out[name].append(np.reshape(J, (6, robot.dof)))     # eigenpy gives 6 x 1 as (6,)
    return {k: np.array(v) for k, v in out.items()}


def exact_values(program, values) -> list[float]:
    """The program's first output at ``values`` ({symbol: number}) by sympy in 30 digits, step
    by step: the tests' oracle for programs, independent of symdyn's evaluator (double
    precision, symengine's form, numpy)."""
    env = {s: sympy.Float(v, 30) for s, v in values.items()}
    for a in program.assignments:
        env[a.lhs] = a.rhs.xreplace(env).evalf(30)
    return [float(sympy.sympify(v).xreplace(env).evalf(30)) for v in program.outputs[0].values]


def assert_close(actual, expected, rtol=1e-10):
    """Relative agreement, scaled by the largest magnitude in the expected batch; outputs of a
    function with several (tuples) one by one."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol)
        return
    scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * scale)


def assert_compiled_is_python(robot, tmp_path, seed: int = 3):
    """The generated C of ``robot``, compiled, gives the Python's numbers (1e-12) on five
    random states: its dynamics, kinematics, configuration moves and ID derivatives."""
    from symdyn.check import configurations

    dynamics = symdyn.newton_euler(robot)
    names = ["inverse_dynamics", "mass_matrix", "forward_dynamics", "frame_jacobians",
             "integrate", "difference", "inverse_dynamics_derivatives"]
    python = symdyn.python_module(dynamics, quantities=names)
    compiled = symdyn.compile(dynamics, quantities=names, cache=tmp_path / "cache")
    rng = np.random.default_rng(seed)
    q, q1 = (configurations(robot, rng, 5) for _ in range(2))
    v, a = rng.uniform(-2, 2, (2, 5, robot.dof))
    for name, args in [("inverse_dynamics", (q, v, a)), ("mass_matrix", (q,)),
                       ("forward_dynamics", (q, v, a)), ("frame_jacobians", (q,)),
                       ("integrate", (q, v)), ("difference", (q, q1)),
                       ("inverse_dynamics_derivatives", (q, v, a))]:
        assert_close(getattr(compiled, name)(*args), getattr(python, name)(*args),
                     rtol=1e-12)


def assert_refused_in_one_line(tmp_path, path, field, words, line):
    """The robot file at ``path`` raises RobotFileError at ``field`` and ``line`` saying
    ``words``; ``symdyn generate`` of it exits 2 with one line and writes nothing."""
    from click.testing import CliRunner

    from symdyn.cli import main

    with pytest.raises(symdyn.RobotFileError) as info:
        symdyn.load_robot(path)
    error = info.value
    assert words in str(error) and error.field == field and error.line == line, str(error)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["generate", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output and not out.exists()


# example-robot-data's URDFs the tests import whole (paths below its robots/ folder).
# Fixed-base trees without mimic joints: imported whole (no --tip), their joints numbered as
# Pinocchio numbers them, every dynamic quantity against Pinocchio's model of the URDF.
TREES = ["allegro_hand_description/urdf/allegro_right_hand.urdf",
         "allegro_hand_description/urdf/allegro_left_hand.urdf",
         "alex_description/urdf/alex_nub_hands.urdf",
         "tiago_description/robots/tiago_no_hand.urdf",
         "tiago_description/robots/tiago.urdf"]      # 48 joints: the arm, torso, head, hand

# Fixed-base trees with mimic joints (buildModelFromUrdf(path, mimic=True)).
MIMIC_TREES = ["panda_description/urdf/panda.urdf",      # the fingers: one follows the other
               "baxter_description/urdf/baxter.urdf",    # two arms, mimic grippers
               "pr2_description/urdf/pr2.urdf",
               "tiago_pro_description/robots/tiago_pro.urdf"]

# The legged robots of example-robot-data on a free-flyer, as Pinocchio loads them
# (buildModelFromUrdf(path, JointModelFreeFlyer(), mimic=True)); TALOS: 32 joints, and in full
# 12 mimic joints in its grippers.
# Every legged robot, humanoid and aerial robot of example-robot-data (one URDF of each, the
# whole robot where it comes with and without sensors, hands or arms)
FLOATING = [
    "solo_description/robots/solo12.urdf", "anymal_c_simple_description/urdf/anymal.urdf",
    "anymal_b_simple_description/robots/anymal.urdf", "go1_description/urdf/go1.urdf",
    "go2_description/urdf/go2.urdf", "a1_description/urdf/a1.urdf", "b1_description/urdf/b1.urdf",
    "laikago_description/urdf/laikago.urdf", "quadruped_description/urdf/quadruped.urdf",
    "bolt_description/robots/bolt.urdf", "hyq_description/robots/hyq_no_sensors.urdf",
    "icub_description/robots/icub_reduced.urdf", "talos_data/robots/talos_reduced.urdf",
    "talos_data/robots/talos_full_v2.urdf", "romeo_description/urdf/romeo_small.urdf",
    "g1_description/urdf/g1_29dof_rev_1_0.urdf",
    "simple_humanoid_description/urdf/simple_humanoid.urdf",
    "alex_description/urdf/alex_nub_hands.urdf",
    "alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf",
    "centauro_description/urdf/centauro.urdf", "human_description/robots/human.urdf",
    "iris_description/robots/iris.urdf", "hextilt_description/urdf/hextilt_flying_arm_5.urdf",
    "borinot_description/urdf/borinot_flying_arm_2.urdf"]


# -- generated C, as C and as C++ ------------------------------------------------------------
CXX_STRICT = ("-x", "c++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror")


def compile_strictly(source: Path, obj: Path, *extra: str) -> Path:
    """The generated C file ``source`` compiled by gcc with the flags its users build it with
    (STRICT, and ``extra``) into ``obj``, and by g++ as C++17 with every warning an error: a
    C++ controller includes and builds the same file. Fails the test with the compiler's
    message."""
    for command in (["gcc", *STRICT, *extra, "-c", str(source), "-o", str(obj)],
                    ["g++", *CXX_STRICT, *(f for f in extra if f != "-Wdouble-promotion"),
                     "-c", str(source), "-o", str(obj.with_suffix(".cpp.o"))]):
        if shutil.which(command[0]) is None:
            pytest.skip(f"{command[0]} is not installed")
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, f"{' '.join(command)}\n{result.stderr}"
    return obj


def mujoco_kkt(reference, q, tau) -> np.ndarray:
    """qdd at rest (v = 0: no drift) from MuJoCo's M, bias forces and joint springs
    (``reference``, a MujocoReference) and every row of its equalities' Jacobian (efc_J), the
    KKT system solved by least squares: unique in qdd however many rows repeat others."""
    zero = np.zeros(len(tau))
    M = reference.mass_matrix(q)
    h = reference.inverse_dynamics(q, zero, zero) + reference.spring_torques(q)
    G = np.vstack(list(reference.equality_jacobians(q).values()))
    m = len(G)
    K = np.block([[M, -G.T], [G, np.zeros((m, m))]])
    return np.linalg.lstsq(K, np.r_[tau - h, np.zeros(m)], rcond=None)[0][:len(tau)]


def turned(robot, q, angle, axis=2, joint=None) -> np.ndarray:
    """q with the floating base turned by ``angle`` about the world's ``axis``, or q's entry
    ``joint`` set to ``angle``."""
    q = q.copy()
    if joint is None:
        q[3 + axis], q[6] = np.sin(angle / 2), np.cos(angle / 2)
    else:
        q[joint] = angle
    return q


def conditioning(G) -> float:
    s = np.linalg.svd(G, compute_uv=False)
    return s[-1] / s[0]


def through_the_turns(robot, source, poses, pinocchio: bool):
    """At each pose: G's conditioning the same as unturned's (the rows do not lose rank), qdd
    equal to MuJoCo's KKT to 1e-9, lambda bounded and equal to Pinocchio's constraintDynamics
    (``pinocchio``) or the KKT of Pinocchio's M, h and G, all at rest and under random
    torques."""
    from symdyn.reference import ConstraintReference, MujocoReference

    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "constraint_jacobian", "constrained_forward_dynamics"])
    mujoco = MujocoReference(source)
    reference = ConstraintReference(robot)
    models = reference.constraint_models() if pinocchio else None
    rng = np.random.default_rng(64)
    unturned = conditioning(module.constraint_jacobian(poses[0]))
    assert unturned > 1e-4
    zero = np.zeros(robot.dof)
    for q in poses:
        assert conditioning(module.constraint_jacobian(q)) == pytest.approx(unturned,
                                                                              rel=1e-9)
        tau = rng.uniform(-1, 1, robot.dof)
        if robot.floating:
            tau[:6] = 0
        qdd, lam = module.constrained_forward_dynamics(q, zero, tau, np.zeros(2))
        assert_close(qdd, mujoco_kkt(mujoco, q, tau), rtol=1e-9)
        assert np.abs(lam).max() < 1e3
        expected = (reference.constraint_dynamics(q, zero, tau, *models, iterations=200)
                    if pinocchio else reference.kkt(q, zero, tau))
        assert_close((qdd, lam), expected, rtol=1e-9)
