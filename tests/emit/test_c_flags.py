"""The generated C as firmware builds it: under fast-math flags with gcc and clang the results
stay those of the strict build (1e-12 relative), and a C++ translation unit includes every
header and links."""
from __future__ import annotations

import concurrent.futures
import ctypes
import shutil
import subprocess

import numpy as np
import pytest
from support import ROBOTS, ROOT, assert_close, import_file, shipped_code

import symdyn
from symdyn.derive import QUANTITIES
from symdyn.derive.regressor import standard_parameters
from symdyn.emit.build import STRICT

# Every kind the shipped robots show: symbolic (planar2), motors and standard DH (puma560),
# seven joints (panda), imported from a URDF (ur5); the others build like these.
ROBOT_FILES = [ROBOTS / f"{name}.yaml" for name in ("planar2", "puma560", "panda", "ur5")]
FIRMWARE_FLAGS = [("-O3", "-ffast-math"), ("-Ofast",),
                  ("-O2", "-ffp-contract=fast", "-march=native")]
COMPILERS = ["gcc", "clang"]


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """Every shipped robot's C, with its strict build's results on random states."""
    out = tmp_path_factory.mktemp("c")
    robots = {}
    rng = np.random.default_rng(7)
    for path in ROBOT_FILES:
        robot = symdyn.load_robot(path)
        shipped_code(path, out)
        python = import_file(out / f"{robot.name}.py", f"flags_{robot.name}")
        n, p = robot.dof, len(standard_parameters(robot))
        states = {"q": rng.uniform(-3, 3, (40, n)), "qd": rng.uniform(-3, 3, (40, n)),
                  "qdd": rng.uniform(-3, 3, (40, n)), "tau": rng.uniform(-30, 30, (40, n)),
                  "f_ext": rng.uniform(-10, 10, (40, 6)), "pi": rng.uniform(-1, 1, (40, p)),
                  "params": rng.uniform(0.5, 1.5, (40, len(robot.parameters))),
                  "base": len(python.BASE_PARAMETERS)}
        states.update(q0=states["q"], q1=np.roll(states["q"], 1, axis=0))   # for difference
        robots[robot.name] = (robot, states)
    for name, (robot, states) in robots.items():
        strict = _library(out, name, "gcc", STRICT)
        robots[name] = (robot, states, _evaluate(strict, robot, states))
    return out, robots


def _library(folder, name, compiler, flags):
    library = folder / f"{name}-{compiler}-{abs(hash(flags))}.so"
    subprocess.run([compiler, "-std=c99", *flags, "-fPIC", "-shared", str(folder / f"{name}.c"),
                    "-o", str(library), "-lm"], check=True, capture_output=True)
    return ctypes.CDLL(str(library))


def _in_own_thread(work):
    """``work()`` in a thread of its own. Loading a -ffast-math library sets flush-to-zero in the
    loading thread (crtfastmath), which is how firmware runs it, but the tests that follow in this
    process must not inherit it."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(work).result()


def _evaluate(library, robot, states):
    """Every function of the robot on every state, through the C ABI."""
    results = {}
    dynamics = symdyn.newton_euler(robot)
    for name in symdyn.Dynamics.QUANTITIES:
        if dynamics.unavailable(name):
            continue
        inputs = list(QUANTITIES[name].inputs) + (["params"] if robot.parameters else [])
        sizes = [int(np.prod(dims)) for dims in QUANTITIES[name].dims(robot, states["base"])]
        for program in dynamics.programs(name):       # one per frame of a per-frame quantity
            function = getattr(library, f"{robot.name}_{program.name}")
            rows = []
            for k in range(len(states["q"])):
                args = [np.ascontiguousarray(states[i][k]) for i in inputs]
                outs = [np.empty(size) for size in sizes]
                function(*(a.ctypes.data_as(ctypes.c_void_p) for a in [*args, *outs]))
                rows.append(np.concatenate(outs))
            results[program.name] = np.array(rows)
    return results


@pytest.mark.slow
@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("flags", FIRMWARE_FLAGS, ids=[" ".join(f) for f in FIRMWARE_FLAGS])
def test_fast_math_builds_give_the_strict_results(shipped, compiler, flags):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed (apt-get install {compiler})")
    out, robots = shipped
    for name, (robot, states, expected) in robots.items():
        results = _in_own_thread(lambda: _evaluate(_library(out, name, compiler, flags), robot,
                                                   states))
        for quantity, values in results.items():
            assert_close(values, expected[quantity], rtol=1e-12)
    assert np.spacing(0.0) > 0          # subnormals still exist in the tests' own thread


@pytest.mark.slow
def test_without_fused_multiply_adds_a_build_for_this_machine_gives_the_strict_bits(shipped):
    """-DSYMDYN_NO_FMA writes symdyn_fma as a*b + c where the target has FMA too, for results
    that do not depend on the target (gcc's straight-line vectoriser, which fuses on its own,
    off); without it the same build differs from the strict one."""
    native = ("-O2", "-march=native", "-fno-tree-slp-vectorize")
    macros = subprocess.run(["gcc", *native, "-dM", "-E", "-"], input="", capture_output=True,
                            text=True, check=True).stdout
    if "__FP_FAST_FMA " not in macros:
        pytest.skip("this machine has no fused multiply-add")
    out, robots = shipped
    differs = False
    for name in ("planar2", "puma560"):        # symbolic, and numeric with motors
        robot, states, expected = robots[name]
        fused = _evaluate(_library(out, name, "gcc", native), robot, states)
        plain = _evaluate(_library(out, name, "gcc", (*native, "-DSYMDYN_NO_FMA")), robot, states)
        for quantity, values in plain.items():
            np.testing.assert_array_equal(values, expected[quantity])
            differs |= bool((fused[quantity] != values).any())
    assert differs


def test_a_cpp_controller_includes_every_header_and_links(tmp_path):
    """Every shipped robot's header in one C++ translation unit, linked against its C (built
    with the strict warnings at -O0: linkage is what is tested here, not speed)."""
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        pytest.skip("g++ and gcc are needed (apt-get install g++)")
    out = ROOT / "generated"
    robots = [symdyn.load_robot(path) for path in sorted(ROBOTS.glob("*.yaml"))]
    calls = []
    for robot in robots:
        name, n, nq, p = robot.name, robot.dof, robot.nq, len(robot.parameters)
        params = f", p_{name}" if p else ""
        declare = f", p_{name}[{p}] = {{{', '.join(['1.0'] * p)}}}" if p else ""
        calls.append(f"    double tau_{name}[{n}], q_{name}[{nq}] = {{0}}{declare};\n"
                     f"    {name}_gravity_torques(q_{name}{params}, tau_{name});\n"
                     f"    std::printf(\"%.17g\\n\", tau_{name}[0]);\n")
    includes = "".join(f'#include "{robot.name}.h"\n' for robot in robots)
    (tmp_path / "controller.cpp").write_text(
        f"#include <cstdio>\n{includes}\nint main()\n{{\n{''.join(calls)}    return 0;\n}}\n")
    objects = []
    for robot in robots:
        objects.append(tmp_path / f"{robot.name}.o")
        flags = [flag for flag in STRICT if not flag.startswith("-O")] + ["-O0"]
        subprocess.run(["gcc", *flags, "-c", str(out / f"{robot.name}.c"), "-o",
                        str(objects[-1])], check=True, capture_output=True)
    build = subprocess.run(["g++", "-std=c++11", "-Wall", "-Wextra", "-pedantic", "-Werror",
                            f"-I{out}", str(tmp_path / "controller.cpp"), *map(str, objects),
                            "-o", str(tmp_path / "controller"), "-lm"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    printed = subprocess.run([str(tmp_path / "controller")], capture_output=True, text=True,
                             check=True).stdout.split()
    for value, robot in zip(printed, robots):
        python = symdyn.python_module(symdyn.newton_euler(robot), quantities=["gravity_torques"])
        args = [np.ones(len(robot.parameters))] if robot.parameters else []
        assert float(value) == python.gravity_torques(np.zeros(robot.nq), *args)[0]
