"""The generated Python module: its interface and batching."""
from __future__ import annotations

import ast
import sys

import numpy as np
import pytest
from support import ROBOTS, ROOT, generated_python, import_file

import symdyn
from symdyn.emit.cache import CacheWarning


@pytest.fixture(scope="module")
def puma(tmp_path_factory):
    return generated_python(symdyn.load_robot(ROBOTS / "puma560.yaml"),
                            tmp_path_factory.mktemp("puma"))


def test_interface(puma):
    assert puma.DOF == 6
    assert puma.PARAMETERS == ()
    tau = puma.inverse_dynamics(np.zeros(6), np.zeros(6), np.zeros(6))
    assert tau.shape == (6,) and tau.dtype == np.float64
    assert puma.inverse_dynamics([0.1] * 6, [0.2] * 6, [0.3] * 6).shape == (6,)


def test_batch_equals_one_state_at_a_time(puma):
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.uniform(-2, 2, (7, 6)) for _ in range(3))
    batch = puma.inverse_dynamics(q, qd, qdd)
    assert batch.shape == (7, 6)
    singles = np.array([puma.inverse_dynamics(*state) for state in zip(q, qd, qdd)])
    np.testing.assert_array_equal(batch, singles)
    # one state applies to every state of a batch
    np.testing.assert_array_equal(puma.inverse_dynamics(q[0], qd, qdd[0])[3],
                                  puma.inverse_dynamics(q[0], qd[3], qdd[0]))


@pytest.mark.parametrize("args, words", [
    ((np.zeros(5), np.zeros(6), np.zeros(6)), "q must have shape (6,) or (N, 6)"),
    ((np.zeros(6), np.zeros((2, 3, 6)), np.zeros(6)), "qd must have shape"),
    ((np.zeros((2, 6)), np.zeros((3, 6)), np.zeros(6)), "different numbers of states"),
    ((np.zeros((1, 6)), np.zeros((3, 6)), np.zeros(6)), "different numbers of states"),
    (([0] * 6, [[0] * 6, [0] * 5], np.zeros(6)), "qd must have shape"),
])
def test_wrong_shapes_are_refused_clearly(puma, args, words):
    with pytest.raises(ValueError) as info:
        puma.inverse_dynamics(*args)
    assert words in str(info.value)


def test_module_needs_numpy_only_and_says_where_it_came_from():
    text = (ROOT / "generated" / "puma560.py").read_text()
    imports = {alias.name for node in ast.walk(ast.parse(text))
               if isinstance(node, (ast.Import, ast.ImportFrom))
               for alias in getattr(node, "names", [])}
    assert imports - set(sys.stdlib_module_names) == {"numpy"}
    assert "Do not edit" in text and "from puma560.yaml" in text and "symdyn 0.1.0" in text
    assert "Gravity, fixed in the code: [0, 0, -9.81]" in text and "0.4318" in text


def test_generated_module_imports_from_the_repository():
    module = import_file(ROOT / "generated" / "planar2.py", "committed_planar2")
    tau = module.inverse_dynamics([0, 0], [0, 0], [0, 0], [1, 1, 1, 1, 9.81])
    np.testing.assert_allclose(tau, [2 * 9.81 + 9.81, 9.81])


def test_templates_compiled_once_are_kept_and_a_broken_cache_is_no_cache(tmp_path, monkeypatch):
    from symdyn.api import module_code
    from symdyn.emit.render import backend
    from symdyn.emit.templating import environment

    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "planar2.yaml"))
    python = backend("python")
    module = module_code(dynamics.robot, [symdyn.optimize(dynamics.program("gravity_torques"))],
                         python)

    def rendered():         # by a new environment, which looks at the cache again
        env = environment()
        env.filters["text"] = python.text
        return env.get_template("python/module.py.j2").render(m=module)

    monkeypatch.setenv("SYMDYN_CACHE", str(tmp_path / "cache"))
    expected = rendered()
    kept = list((tmp_path / "cache" / "templates").iterdir())
    assert kept and rendered() == expected          # compiled once, then read back
    for path in kept:                               # truncated, or another program's file
        path.write_bytes(path.read_bytes()[:20])
    with pytest.warns(CacheWarning, match="does not match the digest"):
        assert rendered() == expected
    (tmp_path / "file").write_text("")              # a cache folder that cannot be made
    monkeypatch.setenv("SYMDYN_CACHE", str(tmp_path / "file"))
    with pytest.warns(CacheWarning, match="not a folder"):
        assert rendered() == expected

    def homeless():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.delenv("SYMDYN_CACHE")                # nowhere to look for one
    monkeypatch.setattr("symdyn.emit.cache.cache_root", homeless)
    assert rendered() == expected
