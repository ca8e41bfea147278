"""A tree's forward-dynamics derivatives in C: -M^-1 dtau solved in one loop over the columns
(program.Solve, context.SolveLoop), a chain's multiplied by M^-1 in one, against Pinocchio's
computeABADerivatives one state a call and in batches (the wrapper has no lane kernel of it),
in double and single precision, as C and as C++; numpy runs the same kernel on arrays of the
columns where they are long. Fewer columns than a vector holds are solved without a loop."""
from __future__ import annotations

import ctypes
import subprocess
from dataclasses import replace

import numpy as np
import pinocchio as pin
import pytest
from support import STRICT, assert_close, compile_strictly, import_file, random_robot, random_tree

import symdyn
from symdyn.check import configurations
from symdyn.derive.factors import LOOP_COLUMNS
from symdyn.emit.backends import BACKENDS
from symdyn.reference import pinocchio_model

LOOP = "for (symdyn_c = "
NUMPY_LOOP = "each column solved in place, numpy running the steps on all at once"
FD = ["forward_dynamics_derivatives"]


def pinocchios(model, q, qd, tau):
    data = model.createData()
    out = []
    for state in zip(q, qd, tau):
        pin.computeABADerivatives(model, data, *state)
        out.append((data.ddq_dq.copy(), data.ddq_dv.copy(),
                    np.triu(data.Minv) + np.triu(data.Minv, 1).T))
    return tuple(np.array(x) for x in zip(*out))


@pytest.mark.parametrize("floating, seed", [(True, 1), (True, 2), (False, 3)])
def test_the_c_solves_in_a_loop_what_pinocchio_computes(tmp_path, monkeypatch, floating,
                                                       seed):
    rng = np.random.default_rng(seed)
    robot = random_tree(tmp_path, rng, convention="urdf", shape="wide", floating=floating,
                        dof=6 if floating else LOOP_COLUMNS + 1)
    dynamics = symdyn.newton_euler(robot)
    symdyn.generate(dynamics, "c", tmp_path / "c", quantities=FD)
    text = (tmp_path / "c" / "tree.c").read_text()
    # dq's and dqd's columns side by side, every one: a floating base's position moves no
    # torque, but only dtau/dq's first three columns are zeros
    assert text.count(LOOP) == 1 and f"{LOOP}0; symdyn_c < {robot.dof}; symdyn_c++)" in text
    module = symdyn.compile(dynamics, quantities=FD, cache=tmp_path / "cache")
    q = configurations(robot, rng, 20)
    qd, tau = rng.uniform(-3, 3, (2, 20, robot.dof))
    expected = pinocchios(pinocchio_model(robot.spec), q, qd, tau)
    assert_close(module.forward_dynamics_derivatives(q, qd, tau), expected, rtol=1e-9)
    one = [module.forward_dynamics_derivatives(*state) for state in zip(q, qd, tau)]
    assert_close(tuple(np.array(x) for x in zip(*one)), expected, rtol=1e-9)
    # numpy writes the solves out, as small as they are (NUMPY_LOOP_OPERATIONS), or runs the
    # same kernel on arrays of the columns
    for looped in (False, True):
        if looped:
            monkeypatch.setitem(BACKENDS, "python", replace(BACKENDS["python"],
                                                            loop_operations=0))
        folder = tmp_path / f"python{looped}"
        (path,) = symdyn.generate(dynamics, "python", folder, quantities=FD)
        assert (NUMPY_LOOP in path.read_text()) == looped
        python = import_file(path, f"tree_{looped}")
        assert_close(python.forward_dynamics_derivatives(q, qd, tau), expected, rtol=1e-9)
        assert_close(python.forward_dynamics_derivatives(q[0], qd[0], tau[0]),
                     tuple(x[0] for x in expected), rtol=1e-9)


def test_a_chain_multiplies_its_columns_by_the_inverse_in_a_loop(tmp_path):
    """A chain's factors are dense: its kernel is the product by M^-1, whose entries are the
    factors."""
    rng = np.random.default_rng(6)
    robot = random_robot(tmp_path, rng, dof=LOOP_COLUMNS + 2, placed=True)
    dynamics = symdyn.newton_euler(robot)
    (solve,) = dynamics.program(FD[0]).solves
    n = robot.dof
    assert len(solve.kernel.inputs[0].values) == n * (n + 1) // 2     # M^-1 is symmetric
    # each entry of a column of dqdd/dq and of one of dqdd/dqd one sum of n products
    assert [len(a.rhs.args) for a in solve.kernel.assignments] == [n] * 2 * n
    symdyn.generate(dynamics, "c", tmp_path / "c", quantities=FD)
    assert (tmp_path / "c" / "random.c").read_text().count(LOOP) == 1
    module = symdyn.compile(dynamics, quantities=FD, cache=tmp_path / "cache")
    q = configurations(robot, rng, 20)
    qd, tau = rng.uniform(-3, 3, (2, 20, n))
    expected = pinocchios(pinocchio_model(robot.spec), q, qd, tau)
    assert_close(module.forward_dynamics_derivatives(q, qd, tau), expected, rtol=1e-9)
    python = symdyn.python_module(dynamics, quantities=FD)
    assert_close(python.forward_dynamics_derivatives(q, qd, tau), expected, rtol=1e-9)


def test_the_loop_in_single_precision_as_c_and_as_cpp(tmp_path):
    rng = np.random.default_rng(4)
    robot = random_tree(tmp_path, rng, convention="urdf", shape="wide", floating=True, dof=5)
    symdyn.generate(symdyn.newton_euler(robot), "c", tmp_path, quantities=FD,
                    precision="single")
    source = tmp_path / "tree.c"
    assert LOOP in source.read_text()
    compile_strictly(source, tmp_path / "tree.o", "-Wdouble-promotion")
    library = tmp_path / "lib.so"
    subprocess.run(["gcc", *STRICT, "-shared", "-fPIC", "-o", str(library), str(source), "-lm"],
                   check=True)
    call = ctypes.CDLL(str(library)).tree_forward_dynamics_derivatives
    q = configurations(robot, rng, 10)
    qd, tau = rng.uniform(-3, 3, (2, 10, robot.dof))
    expected = pinocchios(pinocchio_model(robot.spec), q, qd, tau)
    n = robot.dof
    for k in range(10):
        ins = [np.ascontiguousarray(x[k], dtype=np.float32) for x in (q, qd, tau)]
        outs = [np.zeros(n * n, dtype=np.float32) for _ in range(3)]
        call(*(a.ctypes.data_as(ctypes.c_void_p) for a in ins + outs))
        for out, want in zip(outs, expected):
            scale = max(1.0, float(np.abs(want).max()))
            assert float(np.abs(out - want[k].ravel()).max()) / scale < 2e-3


def test_fewer_columns_than_a_vector_holds_are_solved_without_a_loop(tmp_path):
    rng = np.random.default_rng(5)
    robot = random_tree(tmp_path, rng, convention="urdf", shape="wide", dof=LOOP_COLUMNS - 1)
    dynamics = symdyn.newton_euler(robot)
    assert not dynamics.program(FD[0]).solves
    symdyn.generate(dynamics, "c", tmp_path / "c", quantities=FD)
    assert LOOP not in (tmp_path / "c" / "tree.c").read_text()
