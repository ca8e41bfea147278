"""--lang casadi: CasADi functions of the same programs, equal to the numpy module's.

Each function of the committed CasADi modules (generated/*_casadi.py, which test_golden proves
current) and of random trees' modules is evaluated at random states against the numpy module
of the same robot; CasADi's own derivatives through them against symdyn's derivative functions;
and CasADi's code generation of them compiles and gives the same numbers.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from support import ROBOTS, ROOT, import_file, input_arrays, numpy_and, random_tree_yaml

import symdyn

ca = pytest.importorskip("casadi")

SHIPPED = sorted(p.stem for p in ROBOTS.glob("*.yaml"))


def casadi_values(function, *inputs) -> tuple:
    """The CasADi function's outputs at one state, as numpy arrays."""
    outputs = function(*inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return tuple(np.array(o) for o in outputs)


def assert_every_function_equal(numpy_module, casadi_module, robot, states=5, seed=0):
    rng = np.random.default_rng(seed)
    arrays = input_arrays(rng, robot, states)
    parameters = rng.uniform(0.5, 1.5, len(casadi_module.PARAMETERS))
    arrays["params"] = np.broadcast_to(parameters, (states, len(parameters)))
    functions = casadi_module.functions()
    assert set(functions) == {name for name in dir(numpy_module)
                              if callable(getattr(numpy_module, name))
                              and name in functions}
    for name, function in functions.items():
        inputs = [arrays[i] for i in function.name_in()]
        for k in range(states):
            one = [x[k] for x in inputs]
            expected = getattr(numpy_module, name)(*one)
            expected = expected if isinstance(expected, tuple) else (expected,)
            actual = casadi_values(function, *one)
            assert len(actual) == len(expected), name
            for a, e in zip(actual, expected):
                scale = max(1.0, float(np.abs(e).max()))
                np.testing.assert_allclose(a.reshape(e.shape), e, rtol=1e-12,
                                           atol=1e-12 * scale, err_msg=name)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_function_of_the_shipped_robots_equals_numpys(name, tmp_path):
    robot_file = ROBOTS / f"{name}.yaml"
    numpy_module, casadi_module = numpy_and("casadi", robot_file, tmp_path)
    robot = symdyn.load_robot(robot_file)
    assert_every_function_equal(numpy_module, casadi_module, robot)
    dynamics = symdyn.newton_euler(robot)
    assert len(casadi_module.functions()) == sum(len(dynamics.programs(name))
                                                 for name in dynamics.available)


@pytest.mark.parametrize("seed, floating", [(1, False), (2, True)])
def test_every_function_of_random_trees_equals_numpys(tmp_path, seed, floating):
    """Prismatic joints, mimic joints, several branches, a floating base."""
    rng = np.random.default_rng(seed)
    robot_file = tmp_path / "tree.yaml"
    robot_file.write_text(random_tree_yaml(rng, dof=5, mimics=1, floating=floating))
    numpy_module, casadi_module = numpy_and("casadi", robot_file, tmp_path)
    assert_every_function_equal(numpy_module, casadi_module, symdyn.load_robot(robot_file))


def test_a_trees_mass_matrix_keeps_its_zeros_structural():
    _, casadi_module = numpy_and("casadi", ROBOTS / "space_arm.yaml", None)
    M = casadi_module.mass_matrix()
    numpy_module = import_file(ROOT / "generated" / "space_arm.py", "np_space_arm_zeros")
    zero = np.all(numpy_module.mass_matrix(np.random.default_rng(0).uniform(
        -1, 1, (50, numpy_module.NQ))) == 0, axis=0)
    assert zero.any()
    assert M.sparsity_out(0).nnz() == M.size_out(0)[0] ** 2 - zero.sum()


@pytest.mark.parametrize("name", ["panda", "space_arm"])
def test_casadis_derivatives_through_them_are_symdyns_derivative_functions(name):
    """jacobian of inverse_dynamics and forward_dynamics by CasADi's AD, against
    inverse_dynamics_derivatives and forward_dynamics_derivatives (a floating base's q-columns
    are along its velocities: checked on a fixed base)."""
    numpy_module, casadi_module = numpy_and("casadi", ROBOTS / f"{name}.yaml", None)
    rng = np.random.default_rng(3)
    n = numpy_module.NV
    q = rng.uniform(-2, 2, numpy_module.NQ)
    if numpy_module.NQ != n:
        q[3:7] /= np.linalg.norm(q[3:7])
    qd, qdd = rng.uniform(-2, 2, (2, n))
    tau = numpy_module.inverse_dynamics(q, qd, qdd)
    for quantity, derivatives, last in (
            ("inverse_dynamics", "inverse_dynamics_derivatives", qdd),
            ("forward_dynamics", "forward_dynamics_derivatives", tau)):
        function = getattr(casadi_module, quantity)()
        x, v, u = (ca.SX.sym(s, k) for s, k in (("q", len(q)), ("v", n), ("u", n)))
        out = function(x, v, u)
        jacobians = ca.Function("d", [x, v, u], [ca.jacobian(out, x), ca.jacobian(out, v)])
        d_dq, d_dv = (np.array(J) for J in jacobians(q, qd, last))
        expected = getattr(numpy_module, derivatives)(q, qd, last)
        if numpy_module.NQ == n:       # joints only: q's own coordinates
            np.testing.assert_allclose(d_dq, expected[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(d_dv, expected[1], rtol=1e-9, atol=1e-9)


def test_casadis_generated_c_of_them_compiles_and_agrees(tmp_path, monkeypatch):
    numpy_module, casadi_module = numpy_and("casadi", ROBOTS / "panda.yaml", None)
    function = casadi_module.mass_matrix()
    monkeypatch.chdir(tmp_path)         # CasADi writes its C where it runs
    source = function.generate("mass_matrix_casadi.c")
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", "m.so", source], check=True)
    external = ca.external("mass_matrix", str(tmp_path / "m.so"))
    q = np.random.default_rng(4).uniform(-2, 2, 7)
    np.testing.assert_allclose(np.array(external(q)), numpy_module.mass_matrix(q), rtol=1e-12,
                               atol=1e-12)


def test_without_casadi_the_module_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "casadi", None)
    with pytest.raises(ImportError, match=r"pip install 'symdyn\[casadi\]'"):
        import_file(ROOT / "generated" / "planar2_casadi.py", "ca_planar2_without")
