"""What a controller that ships the generated code relies on: every accepted robot file gives
Python that imports and runs and C that compiles strictly and through the wrapper; writes are
all or nothing; the output is the same from any folder; the compiled module takes exactly what
the Python module takes, and never replaces another module."""
from __future__ import annotations

import importlib
import keyword
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from support import ROBOTS, ROOT, assert_close, compile_strictly, import_file, input_arrays

import symdyn
from symdyn.derive import QUANTITIES
from symdyn.emit import staging

write_module = importlib.import_module("symdyn.emit.write")
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")

# Names that are something else in C, POSIX, Python, numpy or symdyn's own templates.
HOSTILE_NAMES = [
    "NAN", "INFINITY", "HUGE_VAL", "M_PI", "M_SQRT2", "errno", "linux", "unix", "EDOM", "ERANGE",
    "MAX_ARGS", "LANES", "Py_False", "Py_None", "PyObject", "NULL", "EOF", "BUFSIZ", "stdin",
    "P_tmpdir", "assert", "offsetof", "main", "printf", "malloc", "sin", "cos", "fabs", "copysign",
    "f_ext", "FZ_DOF", "FZ_NUM_PARAMETERS", "SYMDYN_FZ_H", "batch", "np", "numpy", "out", "lane",
    "entry", "beyond", "step", "states", "evaluate", "signature", "kernel", "lane_kernel",
    "methods", "module", "params", "q", "qd", "qdd", "tau", "M", "C", "g", "h", "int", "double",
    "const", "static", "restrict", "inline", "bool", "true", "Lanes_inverse_dynamics",
    "Method_mass_matrix", "Names_mass_matrix", "symdyn_sincos", "symdyn_sincos_bounded",
    "symdyn_fma", "fma", "FP_FAST_FMA",
    "sin_r", "cos_r", "quadrant", "swap", "shift", "k", "kd", "r", "z", "hz", "w", "y", "s", "c",
    "x", "p_x", "t0", "t1", "D1", "iD1", "L2_1", "y1", "r1", "tau1_total", "qdd1_out", "w1_x",
    "self", "print", "len", "float", "object", "sum", "type", "math", "DOF",
    "PARAMETERS", "fz_mass_matrix", "fz_inverse_dynamics",
]
# Python's keywords, YAML's words and the expressions' own cannot be written in an expression; they
# are refused with a message (test_hostile.py).
HOSTILE_NAMES = [n for n in HOSTILE_NAMES
                 if not keyword.iskeyword(n) and n not in ("sin", "cos", "true")]


def _names_robot() -> str:
    """A two-link robot named fz whose free symbols carry every hostile name, each used (in
    the inertial data, where they cost the derivation least)."""
    chunks = [HOSTILE_NAMES[i:i + 10] for i in range(0, len(HOSTILE_NAMES), 10)]
    assert len(chunks) <= 18                       # two links of nine inertial entries each
    slots = iter(["0.001*(" + " + ".join(chunk) + ")" for chunk in chunks] + ["0"] * 18)
    links = []
    for joint in ("revolute", "prismatic"):
        com = ", ".join(f"'0.1 + {next(slots)}'" for _ in range(3))
        inertia = ", ".join(f"'{base} + {next(slots)}'" for base in (0.02, 0.03, 0.04, 0, 0, 0))
        links.append(f"  - {{joint: {joint}, a: 0.3, alpha: 0.4, d: 0.1, theta: 0.2, "
                     f"mass: 1.5,\n     com: [{com}],\n     inertia: [{inertia}]}}\n")
    return "name: fz\nconvention: standard\nlinks:\n" + "".join(links)


def _point_masses() -> str:
    """Robotics Toolbox's point-mass style: the last joint turns a mass on its own axis."""
    return textwrap.dedent("""\
        name: pointy
        convention: standard
        links:
          - {joint: revolute, a: 0, alpha: pi/2, d: 0.1519, theta: 0, mass: 2}
          - {joint: revolute, a: -0.24365, alpha: 0, d: 0, theta: 0, mass: 3.42,
             com: [0.13, 0, 0.1]}
          - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: 1.26}
        """)


HOSTILE_SOURCE = 'x""";__import__("os").system("touch PWNED");"""y */ int bad(void); /* \\\\N'


def _constants(name="consts") -> str:
    return f"name: {name}\nsource: '{HOSTILE_SOURCE}'\n" + textwrap.dedent("""\
        convention: modified
        parameters: {g: null, huge: 1e29, tiny: 1e-29}
        gravity: [0, '-g', 0]
        links:
          - {joint: revolute, a: 0, alpha: 0, d: 0, theta: 0, mass: pi,
             com: ['sqrt(2)/10', 0, 0], inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
          - {joint: revolute, a: 'sqrt(2)', alpha: pi/7, d: 'cos(pi/7)', theta: 0,
             mass: '1 + tiny', com: [0.1, 0, 0], inertia: [1e-9, 1e-9, 1e-9, 0, 0, 0],
             motor_inertia: '1/huge', gear_ratio: 100}
        """)


AWKWARD = {"hostile parameter names": _names_robot(), "point masses": _point_masses(),
           "constants and a hostile source": _constants()}
for _name in ["lanes", "call", "names", "sizes", "sig", "py", "json", "numpy", "yaml", "p",
              "symdyn", "int", "module", "evaluate", "states"]:
    AWKWARD[f"robot name {_name}"] = _constants(_name)


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("text", AWKWARD.values(), ids=AWKWARD.keys())
def test_every_accepted_file_gives_working_python_and_c(tmp_path, text):
    path = tmp_path / "robot.yaml"
    path.write_text(text)
    robot = symdyn.load_robot(path)
    dynamics = symdyn.newton_euler(robot)
    out = tmp_path / "out"
    values = {"g": "pi"} if "g: null" in text else None
    symdyn.generate(dynamics, ["python", "c"], out, values=values)
    compile_strictly(out / f"{robot.name}.c", tmp_path / "robot.o")
    python = import_file(out / f"{robot.name}.py", f"awkward_{robot.name}_{id(text)}")
    before = dict(sys.modules)
    compiled = symdyn.compile(dynamics, values=values, cache=tmp_path / "cache")
    assert all(sys.modules[k] is v for k, v in before.items())   # nothing replaced
    if robot.name in ("json", "numpy", "yaml"):
        assert importlib.import_module(robot.name) is before[robot.name]
    rng = np.random.default_rng(1)
    params = ([rng.uniform(0.5, 1.5, len(python.PARAMETERS))] if python.PARAMETERS else [])
    arrays = input_arrays(rng, robot, 6)
    functions = [name for name in QUANTITIES if hasattr(python, name)]
    assert functions == list(dynamics.available)
    for name in functions:
        args = [arrays[i] for i in QUANTITIES[name].inputs] + params
        expected = getattr(python, name)(*args)
        assert all(np.isfinite(e).all() for e in
                   (expected if isinstance(expected, tuple) else (expected,)))
        assert_close(getattr(compiled, name)(*args), expected, rtol=1e-12)
    if robot.name == "pointy":
        assert dynamics.singular and "joint 3" in dynamics.singular
        assert not hasattr(compiled, "forward_dynamics")
    if "PWNED" in text:
        assert not (tmp_path / "PWNED").exists() and not (ROOT / "PWNED").exists()
        header = (out / f"{robot.name}.h").read_text()
        assert "int bad(void)" not in header.replace("*\\/ int bad(void); /\\*", "")
    # the other outputs of the same file: single-precision C compiles as strictly, the
    # CasADi and JAX modules import and give the numpy module's numbers
    single = tmp_path / "single"
    symdyn.generate(dynamics, "c", single, values=values, precision="single")
    compile_strictly(single / f"{robot.name}.c", tmp_path / "single.o", "-Wdouble-promotion")
    symdyn.generate(dynamics, ["casadi", "jax"], out, values=values)
    casadi_module = import_file(out / f"{robot.name}_casadi.py", f"awkward_ca_{id(text)}")
    jax_module = import_file(out / f"{robot.name}_jax.py", f"awkward_jax_{id(text)}")
    args = [arrays[i][0] for i in QUANTITIES["mass_matrix"].inputs] + params
    expected = python.mass_matrix(*args)
    assert_close(np.array(casadi_module.mass_matrix()(*args)).reshape(expected.shape), expected,
                 rtol=1e-12)
    assert_close(np.asarray(jax_module.mass_matrix(*args), dtype=float), expected, rtol=1e-5)


# -- writing ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def planar_dynamics():
    return symdyn.newton_euler(symdyn.load_robot(ROBOTS / "planar2.yaml"))


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("failing_call", [1, 2, 3])
def test_a_failed_replace_puts_every_file_back(tmp_path, monkeypatch, planar_dynamics,
                                               failing_call):
    out = tmp_path / "out"
    out.mkdir()
    for name in ("planar2.h", "planar2.c", "planar2.py"):
        (out / name).write_text(f"old {name}\n")
    before = _snapshot(out)
    real, calls, failed = os.replace, [], []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == failing_call:
            failed.append(dst)
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(write_module.os, "replace", replace)
    with pytest.raises(symdyn.EmitError) as info:
        symdyn.generate(planar_dynamics, ["c", "python"], out)
    assert str(failed[0]) in str(info.value) and "No space left" in str(info.value)
    assert _snapshot(out) == before


def test_a_failed_write_leaves_no_folder_and_no_temporaries(tmp_path, monkeypatch,
                                                            planar_dynamics):
    real, count = write_module._stage, []

    def stage(folder, name, run, data, mode):
        count.append(name)
        if len(count) == 4:          # the C pair and its CMake file staged, then Python
            raise OSError(5, "Input/output error")
        return real(folder, name, run, data, mode)

    monkeypatch.setattr(write_module, "_stage", stage)
    with pytest.raises(symdyn.EmitError, match="planar2.py"):
        symdyn.generate(planar_dynamics, ["c", "python"], tmp_path / "new" / "deeper")
    assert list(tmp_path.iterdir()) == []


def test_writes_refuse_a_folder_in_the_way_and_a_dangling_link(tmp_path, planar_dynamics):
    out = tmp_path / "out"
    (out / "planar2.c").mkdir(parents=True)
    (out / "planar2.h").write_text("old\n")
    with pytest.raises(symdyn.EmitError, match=r"planar2\.c: it is a folder"):
        symdyn.generate(planar_dynamics, ["c", "python"], out)
    assert (out / "planar2.h").read_text() == "old\n" and not (out / "planar2.py").exists()
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    with pytest.raises(symdyn.EmitError, match="symbolic link to nothing"):
        symdyn.generate(planar_dynamics, "python", tmp_path / "link")


def test_leftovers_of_a_killed_run_are_removed(tmp_path, planar_dynamics):
    (tmp_path / f".planar2.c.{staging._host()}-{_dead_pid()}-1a2b.symdyn-tmp").write_text("half")
    (tmp_path / ".keep").write_text("not ours")
    symdyn.generate(planar_dynamics, "c", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".keep", "planar2.c", "planar2.h",
                                                          "planar2Config.cmake"]


def _dead_pid() -> int:
    """The number of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_output_is_the_same_from_any_folder_and_path_form(tmp_path):
    forms = [(ROOT, "robots/planar2.yaml"), (tmp_path, str(ROBOTS / "planar2.yaml")),
             (ROBOTS, "./../robots/planar2.yaml")]
    outputs = []
    for k, (cwd, path) in enumerate(forms):
        out = tmp_path / f"out{k}"
        subprocess.run([sys.executable, "-m", "symdyn", "generate", path, "--lang", "python",
                        "--lang", "c", "--out", str(out), "-q"], cwd=cwd, check=True,
                       capture_output=True)
        outputs.append(_snapshot(out))
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0]["planar2.c"] == (ROOT / "generated" / "planar2.c").read_bytes()


# -- one input contract ----------------------------------------------------------------------
CONTRACT = {
    "floats": (np.zeros(6), np.zeros(6)),
    "a list": ([0.1] * 6, [0.2] * 6),
    "integers": (np.arange(6), np.ones(6, dtype=np.uint8)),
    "float32": (np.ones(6, np.float32), np.zeros(6)),
    "longdouble": (np.ones(6, np.longdouble), np.zeros(6)),
    "one state beside a batch": (np.zeros(6), np.ones((3, 6))),
    "an empty batch": (np.zeros((0, 6)), np.zeros(6)),
    "a non-contiguous batch": (np.ones((5, 12))[:, ::2], np.zeros(6)),
    "(1, n) beside (3, n)": (np.zeros((1, 6)), np.zeros((3, 6))),
    "batches of 2 and 3": (np.zeros((2, 6)), np.zeros((3, 6))),
    "a scalar": (0.5, np.zeros(6)),
    "too short": (np.zeros(5), np.zeros(6)),
    "three dimensions": (np.zeros((2, 2, 6)), np.zeros(6)),
    "ragged": ([[0] * 6, [0] * 5], np.zeros(6)),
    "complex": (np.zeros(6, complex), np.zeros(6)),
    "booleans": (np.zeros(6, bool), np.zeros(6)),
    "objects": (np.array([None] * 6), np.zeros(6)),
    "None": (None, np.zeros(6)),
    "text": (["1"] * 6, np.zeros(6)),
    "dates": (np.zeros(6, "datetime64[s]"), np.zeros(6)),
    "structured": (np.zeros(6, dtype=[("a", float)]), np.zeros(6)),
    "a dict": ({"q": 1}, np.zeros(6)),
}


@needs_gcc
def test_python_and_compiled_modules_take_the_same_inputs(tmp_path):
    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "puma560.yaml"))
    quantities = ["coriolis_matrix"]
    compiled = symdyn.compile(dynamics, quantities=quantities, cache=tmp_path)
    python = symdyn.python_module(dynamics, quantities=quantities)
    for case, args in CONTRACT.items():
        outcomes = []
        for module in (python, compiled):
            try:
                outcomes.append(module.coriolis_matrix(*args))
            except (TypeError, ValueError) as exc:
                outcomes.append(exc)
        mine, theirs = outcomes
        if isinstance(mine, Exception):
            assert type(theirs) is type(mine) and str(theirs) == str(mine), (case, mine, theirs)
        else:
            assert not isinstance(theirs, Exception), (case, theirs)
            assert mine.shape == theirs.shape and mine.dtype == theirs.dtype == np.float64
            if mine.size:
                assert_close(theirs, mine, rtol=1e-12)
