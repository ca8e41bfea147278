"""Long functions written in C as parts (emit/context.py, PART_CHARACTERS): the same numbers,
bit for bit, as the function written whole; strict compilation; batches through the scalar
function."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from support import ROBOTS, input_arrays

import symdyn
from symdyn.emit import context

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The space arm (a floating base) compiled whole and in parts of about 2,000 characters."""
    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "space_arm.yaml"))
    whole = symdyn.compile(dynamics, cache=tmp_path_factory.mktemp("whole"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(context, "PART_CHARACTERS", 2000)
        parted = symdyn.compile(dynamics, cache=tmp_path_factory.mktemp("parts"))
        module = symdyn.api.module_code(dynamics.robot, [
            symdyn.optimize(p) for name in dynamics.available for p in dynamics.programs(name)],
            symdyn.emit.backends.BACKENDS["c"])
    return dynamics, whole, parted, module


@needs_gcc
def test_long_functions_are_written_in_parts(builds):
    *_, module = builds
    split = [f for f in module.functions if f.parts]
    assert len(split) >= 10, [f.name for f in module.functions]
    for f in split:
        assert len(f.parts) >= 2
        for p in f.parts:       # a part goes beyond only with its first step
            assert len(p.body.steps) == 1 or len(_text(p.body)) <= 2000
        assert sum(len(p.body.steps) for p in f.parts) == len(f.body.steps)
        # every output entry is stored once, by the part where it is ready
        stored = [(name, k) for p in f.parts for entries in p.body.ready
                  for name, k, _ in entries if name != "symdyn_shared"]
        assert sorted(stored) == sorted((o.name, k) for o in f.body.outputs for k, _ in o.values)
        # a value an earlier part saves is what a later one loads, in a slot the array has
        saved = {(name, slot) for p in f.parts for entries in p.body.ready
                 for shared, slot, name in entries if shared == "symdyn_shared"}
        loaded = {load for p in f.parts for load in p.loads}
        assert loaded <= saved
        assert max(slot for _, slot in saved) < f.shared
        # slots are reused: fewer than the values that cross a boundary
        if len(f.parts) > 3:
            assert f.shared < len({name for name, _ in saved})


def _text(body) -> str:
    """The steps' and output stores' code (what PART_CHARACTERS counts)."""
    return "".join([*(s.rhs if s.kind == "line" else s.angle for s in body.steps),
                    *(text for entries in body.ready for name, _, text in entries
                      if name != "symdyn_shared")])


@needs_gcc
def test_parts_give_the_numbers_of_the_whole_function_bit_for_bit(builds):
    dynamics, whole, parted, module = builds
    rng = np.random.default_rng(5)
    for f in module.functions:
        name, arrays = f.name, input_arrays(rng, dynamics.robot, count=20)
        args = [arrays[i.name] for i in f.inputs]
        for state in range(20):
            one = [a[state] for a in args]
            expected, got = getattr(whole, name)(*one), getattr(parted, name)(*one)
            for e, g in zip(*(((x,) if isinstance(x, np.ndarray) else x)
                              for x in (expected, got))):
                assert np.array_equal(e, g), (name, state)
        # a batch goes through the scalar function, state by state (no lanes for parts)
        batch = getattr(parted, name)(*args)
        first = getattr(parted, name)(*[a[0] for a in args])
        for b, one_state in zip(*(((x,) if isinstance(x, np.ndarray) else x)
                                  for x in (batch, first))):
            assert np.array_equal(b[0], one_state), name


@needs_gcc
def test_parts_in_single_precision_compile_without_a_double(tmp_path, monkeypatch):
    monkeypatch.setattr(context, "PART_CHARACTERS", 3000)
    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "space_arm.yaml"))
    symdyn.generate(dynamics, "c", tmp_path, precision="single")
    source = (tmp_path / "space_arm.c").read_text()
    assert "SYMDYN_PART symdyn_" in source and "float symdyn_shared[" in source
    subprocess.run(["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror",
                    "-Wdouble-promotion", "-c", str(tmp_path / "space_arm.c"),
                    "-o", str(tmp_path / "space_arm.o")], check=True, capture_output=True)
