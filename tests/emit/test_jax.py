"""--lang jax: jax.numpy functions of the same programs, equal to the numpy module's.

Every function of the committed JAX modules (generated/*_jax.py, which test_golden proves
current) and of random trees' modules against the numpy module in float64; in float32 within
the bounds the documentation states; under jit and vmap; and jax.jacfwd through them against
symdyn's derivative functions.
"""
from __future__ import annotations

import inspect
import sys

import numpy as np
import pytest
from support import ROBOTS, ROOT, import_file, input_arrays, numpy_and, random_tree_yaml

import symdyn

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)       # float64 unless an input is float32
jnp = jax.numpy

SHIPPED = sorted(p.stem for p in ROBOTS.glob("*.yaml"))
# float32 against float64, relative to the output's largest entry: the documented bounds
# (docs/reference/generated-code.md); forward dynamics solves with M, whose condition
# multiplies the rounding
FLOAT32 = 1e-6
FLOAT32_SOLVED = 1e-4


def functions(module):
    """The module's quantities (a function, or one with a jvp rule)."""
    return {name: f for name, f in vars(module).items()
            if (inspect.isfunction(f) or isinstance(f, jax.custom_jvp))
            and not name.startswith("_") and name != "standard_parameters"}


def assert_every_function_equal(numpy_module, jax_module, robot, states=4, seed=0):
    rng = np.random.default_rng(seed)
    arrays = input_arrays(rng, robot, states)
    arrays["params"] = rng.uniform(0.5, 1.5, (states, len(jax_module.PARAMETERS)))
    assert functions(jax_module).keys() == functions(numpy_module).keys()
    for name, function in functions(jax_module).items():
        inputs = [arrays[i] for i in inspect.signature(getattr(function, "fun", function))
                  .parameters]
        expected = getattr(numpy_module, name)(*inputs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        for dtype, bound in ((np.float64, 1e-12),
                             (np.float32, FLOAT32_SOLVED if "forward_dynamics" in name
                              else FLOAT32)):
            actual = function(*(x.astype(dtype) for x in inputs))
            actual = actual if isinstance(actual, tuple) else (actual,)
            assert len(actual) == len(expected), name
            for a, e in zip(actual, expected):
                assert a.dtype == dtype and a.shape == e.shape, name
                scale = max(1.0, float(np.abs(e).max()))
                np.testing.assert_allclose(np.asarray(a, dtype=float), e, rtol=bound,
                                           atol=bound * scale, err_msg=f"{name} {dtype}")


@pytest.mark.parametrize("name", SHIPPED)
def test_every_function_of_the_shipped_robots_equals_numpys(name):
    numpy_module, jax_module = numpy_and("jax", ROBOTS / f"{name}.yaml", None)
    assert_every_function_equal(numpy_module, jax_module,
                                symdyn.load_robot(ROBOTS / f"{name}.yaml"))


@pytest.mark.parametrize("seed, floating", [(1, False), (2, True)])
def test_every_function_of_random_trees_equals_numpys(tmp_path, seed, floating):
    rng = np.random.default_rng(seed)
    robot_file = tmp_path / "tree.yaml"
    robot_file.write_text(random_tree_yaml(rng, dof=5, mimics=1, floating=floating))
    numpy_module, jax_module = numpy_and("jax", robot_file, tmp_path)
    robot = symdyn.load_robot(robot_file)
    assert_every_function_equal(numpy_module, jax_module, robot)
    # vmapped and jit-compiled too, where a batch takes other ways (_unfused, _once, the rule
    # of _in_stacks): what reads a quaternion, a mimic joint, constant entries of a tree's M
    arrays = input_arrays(rng, robot, 6)
    for name in ("mass_matrix", "inverse_dynamics", "forward_dynamics", "link_poses",
                 "centroidal_map"):
        function = getattr(jax_module, name)
        inputs = [arrays[i] for i in inspect.signature(getattr(function, "fun", function))
                  .parameters]
        expected = getattr(numpy_module, name)(*inputs)
        np.testing.assert_allclose(jax.jit(jax.vmap(function))(*inputs), expected, rtol=1e-12,
                                   atol=1e-12 * max(1.0, float(np.abs(expected).max())),
                                   err_msg=name)


def test_jit_and_vmap_give_the_batch_and_jacfwd_symdyns_derivatives():
    numpy_module, jax_module = numpy_and("jax", ROBOTS / "panda.yaml", None)
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.uniform(-2, 2, (3, 16, 7))
    expected = numpy_module.inverse_dynamics(q, qd, qdd)
    jitted = jax.jit(jax_module.inverse_dynamics)
    np.testing.assert_allclose(jitted(q, qd, qdd), expected, rtol=1e-12, atol=1e-10)
    mapped = jax.jit(jax.vmap(jax_module.inverse_dynamics))
    np.testing.assert_allclose(mapped(q, qd, qdd), expected, rtol=1e-12, atol=1e-10)
    tau = expected[0]
    for function, derivatives, last in (
            (jax_module.inverse_dynamics, numpy_module.inverse_dynamics_derivatives, qdd[0]),
            (jax_module.forward_dynamics, numpy_module.forward_dynamics_derivatives, tau)):
        # through the jvp rule (symdyn's derivatives) and by tracing the steps (.fun), in
        # forward and reverse mode: all four the derivative functions'
        want = derivatives(q[0], qd[0], last)
        assert isinstance(function, jax.custom_jvp)
        for f in (function, function.fun):
            for jacobian in (jax.jacfwd, jax.jacrev):
                d_dq, d_dqd, d_dlast = jacobian(f, argnums=(0, 1, 2))(q[0], qd[0], last)
                np.testing.assert_allclose(d_dq, want[0], rtol=1e-9, atol=1e-9)
                np.testing.assert_allclose(d_dqd, want[1], rtol=1e-9, atol=1e-9)
                np.testing.assert_allclose(
                    d_dlast, numpy_module.mass_matrix(q[0]) if len(want) == 2 else want[2],
                    rtol=1e-9, atol=1e-9)
    # reverse mode too: the gradient of the kinetic energy is M qd in qd
    grad = jax.grad(jax_module.kinetic_energy, argnums=1)(q[0], qd[0])
    np.testing.assert_allclose(grad, numpy_module.mass_matrix(q[0]) @ qd[0], rtol=1e-12,
                               atol=1e-12)


def test_outputs_cheap_to_compute_entry_by_entry_are_fused_and_equal_under_jit_and_vmap():
    # the rule (context.FUSED_COST): the Panda's M, Jacobian and link poses (7 x 4 x 4, fourteen
    # stacks of eight) are assembled by _fused, its C and derivatives are not, nor an output
    # of eight entries or fewer
    text = (ROOT / "generated" / "panda_jax.py").read_text()
    for fused in ("M = _fused(", "J = _fused(", "T_links = _fused(", "A_g = _fused("):
        assert fused in text
    for plain in ("C = _assembled(", "dtau_dq = _assembled(", "tau = _assembled("):
        assert plain in text
    numpy_module, jax_module = numpy_and("jax", ROBOTS / "panda.yaml", None)
    q = np.random.default_rng(7).uniform(-2, 2, (16, 7))
    for name in ("mass_matrix", "jacobian", "link_poses"):
        expected = getattr(numpy_module, name)(q)
        for f in (jax.jit(jax.vmap(getattr(jax_module, name))),
                  jax.jit(getattr(jax_module, name))):
            np.testing.assert_allclose(f(q), expected, rtol=1e-12, atol=1e-12, err_msg=name)
        one = jax.jit(getattr(jax_module, name))(q[3])
        np.testing.assert_allclose(one, expected[3], rtol=1e-12, atol=1e-12, err_msg=name)
    # one state's stacks have a rule of their own under vmap (jax.custom_vmap), and a jvp:
    # vmap of jit, vmap of vmap, and both modes of differentiation through them
    mass_matrix = jax_module.mass_matrix
    np.testing.assert_allclose(jax.vmap(jax.jit(mass_matrix))(q), numpy_module.mass_matrix(q),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(jax.vmap(jax.vmap(mass_matrix))(q.reshape(4, 4, 7)),
                               numpy_module.mass_matrix(q).reshape(4, 4, 7, 7), rtol=1e-12,
                               atol=1e-12)
    step = 1e-6 * np.eye(7)
    central = np.stack([numpy_module.mass_matrix(q[3] + h) - numpy_module.mass_matrix(q[3] - h)
                        for h in step], axis=-1) / 2e-6
    for jacobian in (jax.jacfwd, jax.jacrev):
        np.testing.assert_allclose(jacobian(mass_matrix)(q[3]), central, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(jax.vmap(jacobian(mass_matrix))(q[:2]),
                                   np.stack([jacobian(mass_matrix)(x) for x in q[:2]]),
                                   rtol=1e-12, atol=1e-12)


def compiled(function, *arguments) -> str:
    """The optimized HLO XLA's CPU compiler makes of function at these arguments."""
    return jax.jit(function).lower(*arguments).compile().as_text()


def test_xla_computes_a_batchs_sines_once_and_one_states_function_in_one_loop():
    # what context.py's measurements rest on, for the Panda's inverse dynamics (six sin/cos
    # pairs, seven entries): vmapped, each sine is computed once (not again in each of the
    # loops that read it) and no loop assembles the output while it computes the entries (a
    # concatenation of the seven entries' loops, not fused); one state, one loop in all
    _, jax_module = numpy_and("jax", ROBOTS / "panda.yaml", None)
    batch = [jnp.zeros((64, 7))] * 3
    mapped = compiled(jax.vmap(jax_module.inverse_dynamics.fun), *batch)
    assert mapped.count(" sine(") == 6 and mapped.count(" cosine(") == 6
    entry = mapped[mapped.index("ENTRY"):]
    assert " concatenate(" in entry
    one = compiled(jax_module.inverse_dynamics.fun, *(b[0] for b in batch))
    entry = one[one.index("ENTRY"):]
    assert entry.count(" fusion(") == 1 and " concatenate(" not in entry


def test_xlas_older_emitters_the_reference_offers_compile_the_same_values():
    # docs/reference/generated-code.md offers one-state users XLA's older CPU emitters as a
    # compiler option of a top-level jax.jit; a JAX without the option refuses it here
    numpy_module, jax_module = numpy_and("jax", ROBOTS / "panda.yaml", None)
    q, qd, tau = np.random.default_rng(9).uniform(-2, 2, (3, 7))
    options = {"xla_cpu_use_fusion_emitters": False}
    for name, inputs in (("forward_dynamics", (q, qd, tau)), ("inverse_dynamics", (q, qd, tau)),
                         ("mass_matrix", (q,))):
        function = jax.jit(getattr(jax_module, name), compiler_options=options)
        np.testing.assert_allclose(function(*inputs), getattr(numpy_module, name)(*inputs),
                                   rtol=1e-12, atol=1e-12, err_msg=name)


def test_a_floating_base_and_free_parameters_are_traced_not_ruled():
    """The rules take q's own coordinates and no params: the space arm's (a floating base) and
    the planar arm's (symbolic) inverse dynamics are plain functions, which jacfwd traces."""
    for name in ("space_arm", "planar2"):
        _, jax_module = numpy_and("jax", ROBOTS / f"{name}.yaml", None)
        assert not isinstance(jax_module.inverse_dynamics, jax.custom_jvp)


def test_a_wrong_shape_is_refused():
    _, jax_module = numpy_and("jax", ROBOTS / "panda.yaml", None)
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 7\)"):
        jax_module.mass_matrix(np.zeros(6))


def test_without_jax_the_module_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    monkeypatch.setitem(sys.modules, "jax.numpy", None)
    with pytest.raises(ImportError, match=r"pip install 'symdyn\[jax\]'"):
        import_file(ROOT / "generated" / "planar2_jax.py", "jax_planar2_without")
