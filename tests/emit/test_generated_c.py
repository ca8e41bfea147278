"""Generated C: strict compilation, no heap or globals, the numbers of Python and Pinocchio."""
from __future__ import annotations

import concurrent.futures
import ctypes
import math
import os
import re
import shutil
import subprocess
import sys
import sysconfig

import mpmath
import numpy
import numpy as np
import pytest
import sympy
from support import (
    ROBOTS,
    ROOT,
    assert_close,
    compile_strictly,
    import_file,
    input_arrays,
    pin_model,
    pin_rnea,
    shipped_code,
)

import symdyn
from symdyn.api import module_code
from symdyn.derive import QUANTITIES
from symdyn.emit.backends import BACKENDS
from symdyn.emit.backends import WRAPPER as WRAPPER_FILES
from symdyn.emit.build import STRICT, WRAPPER, extension_name
from symdyn.emit.context import body_code
from symdyn.emit.printers import CPrinter
from symdyn.emit.render import render
from symdyn.program import Argument, Assignment, Program

ROBOT_FILES = sorted(ROBOTS.glob("*.yaml"))
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


@pytest.fixture(scope="module", params=ROBOT_FILES, ids=[p.stem for p in ROBOT_FILES])
def robot_code(request, tmp_path_factory):
    robot = symdyn.load_robot(request.param)
    return robot, shipped_code(request.param, tmp_path_factory.mktemp(robot.name))


@pytest.fixture(scope="module")
def dynamics(robot_code):
    """One derivation for the compiled module and the wrapper's source."""
    return symdyn.newton_euler(robot_code[0])


@pytest.fixture(scope="module")
def compiled(dynamics, tmp_path_factory):
    return symdyn.compile(dynamics, cache=tmp_path_factory.mktemp("cache"))


def wrapper_source(dynamics, out):
    """The CPython wrapper symdyn.compile builds for the robot, written beside its C."""
    robot, c = dynamics.robot, BACKENDS["c"]
    module = module_code(robot, [symdyn.optimize(program) for name in dynamics.available
                                 for program in dynamics.programs(name)], c)
    source = render(module, c)
    (path, text), = render(module, c, WRAPPER_FILES,
                           extension=extension_name(robot.name, source)).items()
    (out / path).write_text(text)
    return out / path


@needs_gcc
def test_compiles_warning_free_with_no_heap_and_no_globals(robot_code, dynamics):
    robot, out = robot_code
    source = out / f"{robot.name}.c"
    obj = out / f"{robot.name}.o"
    compile_strictly(source, obj)
    symbols = subprocess.run(["nm", str(obj)], check=True, capture_output=True,
                             text=True).stdout.split("\n")
    defined = {line.split()[-1]: line.split()[-2] for line in symbols if len(line.split()) == 3}
    undefined = {line.split()[-1] for line in symbols if len(line.split()) == 2}
    # One global function; no variables (data, bss, common), only the compiler's literal pool.
    assert {n: t for n, t in defined.items() if t.isupper()} == {
        f"{robot.name}_{program.name}": "T" for name in dynamics.available
        for program in dynamics.programs(name)}
    assert not [n for n, t in defined.items() if t in "dDbBCgG"]
    assert undefined <= {"sin", "cos", "sincos", "sqrt", "fabs", "atan2"}   # libm: no malloc
    header = (out / f"{robot.name}.h").read_text()
    assert f"void {robot.name}_inverse_dynamics(const double q[{robot.nq}]" in header
    assert sorted(p.name for p in out.iterdir() if p.suffix in ".c.h") == [
        f"{robot.name}.c", f"{robot.name}.h"]        # the wrapper is not for the firmware
    wrapper = subprocess.run(
        ["gcc", *WRAPPER, "-Wall", "-Wextra", "-Werror", "-fPIC",
         f"-I{sysconfig.get_paths()['include']}", f"-I{numpy.get_include()}", "-c",
         str(wrapper_source(dynamics, out)), "-o", str(out / "wrapper.o")],
        capture_output=True, text=True)
    assert wrapper.returncode == 0, wrapper.stderr


@needs_gcc
def test_compiled_module_matches_python_and_pinocchio(robot_code, dynamics, compiled):
    """Every function, batched and one state at a time, against the generated Python."""
    robot, out = robot_code
    python = import_file(out / f"{robot.name}.py", f"c_reference_{robot.name}")
    assert compiled.DOF == python.DOF and compiled.PARAMETERS == python.PARAMETERS
    rng = np.random.default_rng(3)
    arrays = input_arrays(rng, robot, 200)
    q, qd, qdd = arrays["q"], arrays["qd"], arrays["qdd"]
    params = (rng.uniform(0.5, 2, len(robot.parameters)),) if robot.parameters else ()
    qd[:7] = 0.0                    # sign(0) of friction
    for name, function in ((name, program.name) for name in dynamics.available
                           for program in dynamics.programs(name)):
        args = [arrays[i] for i in QUANTITIES[name].inputs] + list(params)
        batch = getattr(compiled, function)(*args)
        assert_close(batch, getattr(python, function)(*args), rtol=1e-12)
        # The batch goes through the vectorised lane kernels, a single state does not.
        for k in range(len(q)):
            single = getattr(compiled, function)(*(a[k] if a.ndim == 2 else a for a in args))
            for one, many in zip(*((x,) if not isinstance(x, tuple) else x
                                   for x in (single, batch))):
                np.testing.assert_array_equal(one, many[k])
    if not robot.parameters:
        assert_close(compiled.inverse_dynamics(q, qd, qdd),
                     pin_rnea(pin_model(robot.spec), q, qd, qdd, robot.spec))


@needs_gcc
def test_batches_fall_back_to_libm_beyond_the_branch_free_range(robot_code, compiled):
    robot, out = robot_code
    python = import_file(out / f"{robot.name}.py", f"c_fallback_{robot.name}")
    q = np.random.default_rng(5).uniform(-3, 3, (9, robot.nq))
    second = robot.nq - len(robot.coordinates) + 1      # the second joint's angle
    q[2, second] = 3e5      # beyond the range of the polynomial sin/cos: libm's instead
    q[6, second] = -1e9     # (M depends on the second joint's angle in all these arms)
    q[4, second] = np.nan
    params = (np.ones(len(robot.parameters)),) if robot.parameters else ()
    batch = compiled.mass_matrix(q, *params)
    reference = python.mass_matrix(q, *params)
    assert np.isnan(batch[4]).any() and not np.isnan(np.delete(batch, 4, axis=0)).any()
    assert_close(np.delete(batch, 4, axis=0), np.delete(reference, 4, axis=0), rtol=1e-12)


def test_each_angle_has_one_sincos_at_the_top_and_a_lone_sin_keeps_libm():
    x, y, a, s, c, t = sympy.symbols("x y a s c t")
    program = Program(
        "inverse_dynamics", (Argument.vector("q", (x, y)),),
        tuple(Assignment(lhs, rhs) for lhs, rhs in [
            (a, x * y), (c, sympy.cos(x)), (t, sympy.sin(y) + a), (s, sympy.sin(x))]),
        (Argument.vector("tau", (a * s + c, t)),))
    body = body_code(program, CPrinter())
    assert [step.kind for step in body.steps] == ["line", "sincos", "line"]
    assert (body.steps[1].angle, body.steps[1].sin, body.steps[1].cos) == ("x", "s", "c")
    assert "sin(y)" in body.steps[2].rhs
    generated = (ROOT / "generated" / "puma560.c").read_text()
    tau = generated[generated.index("void puma560_inverse_dynamics"):]
    tau = tau[:tau.index("\n}\n")]
    # the five joint angles' sin and cos together, first, in the loops gcc vectorises
    assert "symdyn_angle[5] = {q2, q3, q4, q5, q6};" in tau
    assert tau.count("symdyn_sincos_all(5, ") == 1 and "symdyn_sincos(" not in tau
    assert "sin(" not in tau.replace("_sincos_all(", "")
    # seven angles, no zero lane: since the loop's check left the path to the results, an
    # eighth lane costs the Panda's pose and Jacobian more than gcc's one-angle tail
    pose = (ROOT / "generated" / "panda.c").read_text()
    pose = pose[pose.index("void panda_pose_and_jacobian"):]
    assert "symdyn_angle[7] = {q1, q2, q3, q4, q5, q6, q7};" in pose[:pose.index("\n}\n")]


@needs_gcc
def test_steps_named_as_the_templates_names_are_renamed(tmp_path):
    """The sin and cos code declares symdyn_x, symdyn_sin_r ... in the lane kernels' scope: a
    step of that name would be shadowed there (or be assigned to as a const)."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    q1, q2 = sympy.symbols("q1 q2")
    s, c, t = sympy.symbols("symdyn_x symdyn_sin_r batch")
    program = Program(
        "gravity_torques", (Argument.vector("q", (q1, q2)),),
        (Assignment(s, sympy.sin(q1)), Assignment(c, sympy.cos(q1)), Assignment(t, s * c)),
        (Argument.vector("tau", (t + s, q2)),))
    module = module_code(robot, [program], BACKENDS["c"])
    (step, *_), = (f.body.steps for f in module.functions)
    assert (step.sin, step.cos) == ("symdyn_x_", "symdyn_sin_r_")
    source = render(module, BACKENDS["c"])
    for path, text in source.items():
        (tmp_path / path).write_text(text)
    (path, text), = render(module, BACKENDS["c"], WRAPPER_FILES,
                           extension=extension_name(robot.name, source)).items()
    (tmp_path / path).write_text(text)
    for name, flags in ((path, WRAPPER), ("planar2.c", STRICT)):
        subprocess.run(["gcc", *flags, "-Wshadow", "-Werror", "-c", str(tmp_path / name), "-o",
                        str(tmp_path / "out.o"), f"-I{sysconfig.get_paths()['include']}",
                        f"-I{numpy.get_include()}"], check=True, capture_output=True)


def sincos_probe(folder, compiler="gcc", flags=STRICT, rounding="FE_TONEAREST"):
    """The generated C's sin/cos of the joint angles (all in one call, as each function takes
    them) as a Python function of an array, built with ``flags``, run in the rounding mode
    ``rounding`` (<fenv.h>)."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    symdyn.generate(symdyn.newton_euler(robot), "c", folder, quantities=["forward_kinematics"])
    (folder / "probe.c").write_text(
        '#include <fenv.h>\n#include "planar2.c"\n'
        "void probe(long n, const double *x, double *s, double *c)\n"
        f"{{ const int mode = fegetround(); fesetround({rounding});\n"
        "  symdyn_sincos_all((int)n, x, s, c); fesetround(mode); }\n")
    library = folder / "probe.so"
    subprocess.run([compiler, *flags, "-fPIC", "-shared", str(folder / "probe.c"), "-o",
                    str(library), "-lm"], check=True, capture_output=True)
    probe = ctypes.CDLL(str(library)).probe

    def sincos(x):
        x = np.ascontiguousarray(x, dtype=float)
        s, c = np.empty_like(x), np.empty_like(x)
        pointer = ctypes.POINTER(ctypes.c_double)
        probe(ctypes.c_long(len(x)), *(a.ctypes.data_as(pointer) for a in (x, s, c)))
        return s, c
    return sincos


# Where the branch-free sin/cos is tested: also next to multiples of pi/2 and of pi/4, where
# the reduction matters most, and beyond its range (libm's own there).
_MULTIPLES = np.arange(-300, 301) * (np.pi / 2)
SINCOS_POINTS = np.concatenate([
    np.random.default_rng(0).uniform(-4, 4, 4000),
    np.random.default_rng(1).uniform(-1e5, 1e5, 4000),
    _MULTIPLES, np.nextafter(_MULTIPLES, np.inf), np.nextafter(_MULTIPLES, -np.inf),
    _MULTIPLES + np.pi / 4, np.nextafter(_MULTIPLES + np.pi / 4, -np.inf),
    [1e5, -3e7, 1e300, -0.0, 0.0]])


def worst_ulp(x, s, c) -> float:
    """The largest error of sin and cos ``s``, ``c`` of ``x``, in ulp of the correctly rounded
    values (mpmath)."""
    mpmath.mp.prec = 130
    worst = 0.0
    for f, mine in ((mpmath.sin, s), (mpmath.cos, c)):
        for value, got in zip(x, mine):
            exact = f(mpmath.mpf(value))
            error = abs(mpmath.mpf(got) - exact)
            # sin 0 is exact; and in a process where a -ffast-math library set flush-to-zero,
            # spacing(0) is 0 and 0 / 0 would hide in max() as NaN
            worst = max(worst, 0.0 if error == 0 else
                        float(error) / np.spacing(abs(float(exact))))
    return worst


@needs_gcc
def test_sin_and_cos_within_the_ulp_the_code_states(tmp_path):
    stated = float(re.search(r"within ([0-9.]+) ulp", (ROOT / "generated" / "puma560.c")
                             .read_text()).group(1))
    sincos = sincos_probe(tmp_path)
    x = SINCOS_POINTS
    s, c = sincos(x)
    worst = worst_ulp(x, s, c)
    assert 1.5 < worst <= stated           # measured, not guessed: the bound is near the truth
    assert math.copysign(1, s[-2]) == -1 and math.copysign(1, s[-1]) == 1   # sin(-0) = -0
    s, c = sincos([np.nan, np.inf])
    assert np.isnan(s).all() and np.isnan(c).all()


@needs_gcc
@pytest.mark.parametrize("rounding", ["FE_UPWARD", "FE_DOWNWARD", "FE_TOWARDZERO"])
def test_sin_and_cos_hold_in_every_rounding_mode(tmp_path, rounding):
    """A directed rounding mode rounds the quadrant k = rint(x / (pi/2)) a whole step off (r
    up to pi/2, where the polynomials are wrong by 1e-9): those angles take libm's sin and cos,
    and elsewhere only the arithmetic's own roundings remain (4.3 ulp at worst, measured, as
    docs/reference/generated-code.md says)."""
    sincos = sincos_probe(tmp_path, rounding=rounding)
    x = SINCOS_POINTS
    s, c = sincos(x)
    assert worst_ulp(x, s, c) < 4.5


@needs_gcc
@pytest.mark.parametrize("flags", [("-O3", "-ffast-math"), ("-Ofast", "-march=native")])
def test_angles_beyond_the_range_take_libm_under_fast_math(tmp_path, flags):
    """The lanes libm must take are marked by comparisons with numbers, which -ffast-math keeps
    (a NaN test it would fold away): a wheel's angle far beyond 1e5 rad, and a directed rounding
    mode, still get libm's sin and cos. (In a thread of its own: a -ffast-math library may set
    flush-to-zero in the thread that loads it.)"""
    x = np.array([0.5, 1e5, -3e7, 2.5e8, 1e300, -2.0])

    def run(rounding):
        return sincos_probe(tmp_path / rounding, flags=flags, rounding=rounding)(x)
    for rounding in ("FE_TONEAREST", "FE_UPWARD"):
        (tmp_path / rounding).mkdir()
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            s, c = thread.submit(run, rounding).result()
        np.testing.assert_allclose(s, [math.sin(v) for v in x], rtol=1e-14, atol=1e-16)
        np.testing.assert_allclose(c, [math.cos(v) for v in x], rtol=1e-14, atol=1e-16)


@needs_gcc
def test_builds_are_cached_by_content(tmp_path):
    dynamics = symdyn.newton_euler(symdyn.load_robot(ROBOTS / "planar2.yaml"))
    first = symdyn.compile(dynamics, cache=tmp_path / "cache")
    again = symdyn.compile(ROBOTS / "planar2.yaml", cache=tmp_path / "cache")
    assert first.__file__ == again.__file__
    assert len(list((tmp_path / "cache").iterdir())) == 1
    changed = symdyn.compile(dynamics, values={"g": 9.81}, cache=tmp_path / "cache")
    assert changed.__file__ != first.__file__ and changed.__name__ != first.__name__
    assert changed.PARAMETERS == ("m1", "m2", "l1", "l2")


def test_missing_compiler_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-compiler")
    with pytest.raises(symdyn.BuildError, match="no C compiler found"):
        symdyn.compile(ROBOTS / "planar2.yaml", cache=tmp_path / "cache")


@needs_gcc
def test_builds_where_the_compiler_does_not_know_march_native(tmp_path, monkeypatch):
    picky = tmp_path / "picky-cc"
    picky.write_text('#!/bin/sh\nfor a in "$@"; do [ "$a" = -march=native ] && '
                     '{ echo "unsupported option $a" >&2; exit 1; }; done\nexec gcc "$@"\n')
    picky.chmod(0o755)
    monkeypatch.setenv("CC", str(picky))
    compiled = symdyn.compile(ROBOTS / "planar2.yaml", cache=tmp_path / "cache")
    q = np.random.default_rng(2).uniform(-1, 1, (9, 2))
    assert compiled.gravity_torques(q, np.ones(5)).shape == (9, 2)


def test_a_failed_build_reports_the_compiler_and_leaves_no_folders(tmp_path, monkeypatch):
    failing = tmp_path / "failing-cc"
    failing.write_text('#!/bin/sh\necho "error: out of coffee" >&2\nexit 1\n')
    failing.chmod(0o755)
    monkeypatch.setenv("CC", str(failing))
    with pytest.raises(symdyn.BuildError, match="compilation failed(.|\n)*out of coffee"):
        symdyn.compile(ROBOTS / "planar2.yaml", cache=tmp_path / "cache" / "deep")
    assert not (tmp_path / "cache").exists()
    (tmp_path / "kept").mkdir()
    with pytest.raises(symdyn.BuildError):
        symdyn.compile(ROBOTS / "planar2.yaml", cache=tmp_path / "kept")
    assert list((tmp_path / "kept").iterdir()) == []


@needs_gcc
def test_cli_builds(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from symdyn.cli import main
    monkeypatch.setenv("SYMDYN_CACHE", str(tmp_path / "cache"))
    result = CliRunner().invoke(main, ["generate", str(ROBOTS / "planar2.yaml"), "--lang", "c",
                                       "--build", "--out", str(tmp_path / "out"), "--method",
                                       "lagrange", "--set", "g=9.81", "-Q", "mass_matrix",
                                       "-Q", "gravity_torques", "--without", "friction"])
    assert result.exit_code == 0, result.output
    built = [line for line in result.stdout.splitlines() if line.endswith(".so")]
    assert len(built) == 1 and built[0].startswith(str(tmp_path / "cache"))
    # the line it prints imports that very build from the cache (other C would be another
    # extension, another file)
    (call,) = re.findall(r"in Python, (import symdyn; .*) imports it", result.stderr)
    script = call + ("; print(module.__file__); print(module.gravity_torques([0.3, 0.2], "
                     "dict(m1=1, m2=2, l1=0.5, l2=0.4)))")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == built[0]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "planar2_no_friction.c", "planar2_no_friction.h", "planar2_no_frictionConfig.cmake"]
    assert CliRunner().invoke(main, ["generate", str(ROBOTS / "planar2.yaml"), "--build"]
                              ).exit_code == 2


@needs_gcc
def test_a_build_that_fails_writes_nothing(tmp_path, monkeypatch):
    """generate --build whose compilation fails (a full disk, a broken compiler) exits 2, and
    leaves --out as it was: no .c, no .h, no .py."""
    from click.testing import CliRunner

    from symdyn.cli import main
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("SYMDYN_CACHE", str(cache))
    monkeypatch.setenv("CC", "false")           # a compiler that fails every time
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["generate", str(ROBOTS / "planar2.yaml"), "--lang", "c",
                                       "--lang", "python", "--build", "--out", str(out)])
    assert result.exit_code == 2 and "compilation failed" in result.output, result.output
    assert not out.exists() or list(out.iterdir()) == []


def test_the_header_lists_each_comment_on_lines_of_its_own():
    """The regressor's column list ends its line; the initializer's note begins the next."""
    for name in ("puma560", "puma560_linear", "panda"):
        header = (ROOT / "generated" / f"{name}.h").read_text()
        for line in header.splitlines():
            if "The robot's values" in line:
                assert line == " * The robot's values, an initializer:"
            if "fcm6" in line or "ZZ7" in line:
                assert "The robot's" not in line


@needs_gcc
def test_a_quick_build_gives_the_same_numbers_and_says_what_it_compiles(tmp_path):
    """compile(quick=True) builds without optimisation (a large tree's first try in a fraction
    of the time): the same functions and numbers as the optimised build, which the cache keeps
    apart; both say each file they compile, side by side on two cores, and the time left."""
    said = []
    quick = symdyn.compile(ROBOTS / "panda.yaml", cache=tmp_path / "cache", quick=True,
                           progress=said.append)
    full = symdyn.compile(ROBOTS / "panda.yaml", cache=tmp_path / "cache")
    assert quick.__file__ != full.__file__
    assert any(line.startswith("compiling panda.c (") for line in said), said
    if (os.cpu_count() or 1) > 1:
        assert any("2 files at once" in line for line in said)
        assert any("of compiling left" in line for line in said), said
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.uniform(-2, 2, (3, 50, 7))
    for name, args in (("inverse_dynamics", (q, qd, qdd)), ("mass_matrix", (q,)),
                       ("forward_dynamics", (q, qd, qdd)), ("all_terms", (q, qd))):
        outputs = [getattr(module, name)(*args) for module in (quick, full)]
        for a, b in zip(*(out if isinstance(out, tuple) else (out,) for out in outputs)):
            np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)
