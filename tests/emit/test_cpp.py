"""The C++ interface and the CMake package (--lang cpp): consumers built by cmake, through
add_subdirectory and through find_package after an install, of a chain, a tree closed by a
loop and a floating base; their results against the Python module's; the Eigen overloads
against the C bit for bit, with no allocation; the interface under gcc's and clang's warnings
as errors, with and without Eigen."""
from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import ROBOTS, assert_close

import symdyn
from symdyn.cli import main

MECHANISMS = Path(__file__).parent.parent / "derive" / "mechanisms"
ROBOT_FILES = {"puma560": ROBOTS / "puma560.yaml", "fivebar": MECHANISMS / "fivebar.yaml",
               "space_arm": ROBOTS / "space_arm.yaml"}
# What each consumer calls, every kind of output among them: a vector, a matrix, a scalar,
# several outputs, blocks of frames; a loop's constraint functions; a floating base's.
CALLS = {
    "puma560": ["inverse_dynamics", "mass_matrix", "forward_dynamics", "pose_and_jacobian",
                "kinetic_energy", "forward_dynamics_derivatives"],
    "fivebar": ["mass_matrix", "constraint_jacobian", "constrained_forward_dynamics",
                "closed_loop_inverse_dynamics", "frame_poses", "forward_dynamics_derivatives",
                "constrained_forward_dynamics_derivatives"],
    "space_arm": ["inverse_dynamics", "mass_matrix", "forward_dynamics", "centroidal_map",
                  "integrate"],
}
CMAKE = shutil.which("cmake", path=str(Path(sys.executable).parent)) or shutil.which("cmake")
EIGEN = Path(importlib.metadata.distribution("cmeel-eigen").locate_file("cmeel.prefix"))

HEAD = r"""#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
@INCLUDES@

// Every allocation of the process counted: the calls must make none.
static std::size_t allocations = 0;
void *operator new(std::size_t size) {
    ++allocations;
    if (void *p = std::malloc(size)) return p;
    throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
static bool same = true;

static const double *entries(const double &x) { return &x; }
template <typename T> static const double *entries(const T &x) { return x.data(); }
static void print(const char *name, const double *p, int size) {
    std::printf("%s", name);
    for (int k = 0; k < size; ++k) std::printf(" %.17g", p[k]);
    std::printf("\n");
}
"""


def _state(module, rng, name) -> dict:
    state = {"q": rng.uniform(-1, 1, module.NQ), "qd": rng.uniform(-1, 1, module.NV),
             "qdd": rng.uniform(-1, 1, module.NV), "tau": rng.uniform(-1, 1, module.NV),
             "gains": np.array([4.0, 3.0])}
    if module.NQ > module.NV:                                   # a unit quaternion
        state["q"][3:7] /= np.linalg.norm(state["q"][3:7])
    return state


def _caller(name: str, dynamics, state) -> str:
    """run_<name>(): CALLS[name] through the Eigen overloads, each output printed (%.17g) and
    compared with the C function's, called into a buffer, bit for bit; the allocations
    counted around each call."""
    lines = [f"static void run_{name}() {{"]
    for k, values in state.items():
        lines.append(f"    Eigen::Matrix<double, {len(values)}, 1> {k}; {k} << "
                     + ", ".join(repr(float(v)) for v in values) + ";")
    for function in CALLS[name]:
        program = dynamics.program(function)
        args = [a.name for a in program.inputs]
        sizes = [(o.name, len(o.values)) for o in program.returned]
        total = sum(size for _, size in sizes)
        offsets = np.cumsum([0] + [size for _, size in sizes])
        c_outputs = ", ".join(f"buffer + {o}" for o in offsets[:-1])
        lines += ["    {", "        const std::size_t before = allocations;",
                  f"        const auto out = symdyn::{name}::{function}({', '.join(args)});",
                  "        same = same && allocations == before;",
                  f"        double buffer[{total}];",
                  f"        {name}_{function}({''.join(f'{a}.data(), ' for a in args)}"
                  f"{c_outputs});"]
        for (output, size), offset in zip(sizes, offsets):
            member = "out" if len(sizes) == 1 else f"out.{output}"
            lines += [f'        print("{name} {function} {output}", entries({member}), {size});',
                      f"        same = same && std::memcmp(entries({member}), buffer + {offset},"
                      f" {size} * sizeof(double)) == 0;"]
        lines.append("    }")
    return "\n".join(lines + ["}"])


def _program(names, dynamics, states) -> str:
    includes = "\n".join(f'#include "{name}.hpp"' for name in names)
    callers = "\n\n".join(_caller(name, dynamics[name], states[name]) for name in names)
    runs = "\n".join(f"    run_{name}();" for name in names)
    return (HEAD.replace("@INCLUDES@", includes) + "\n" + callers + "\n\nint main() {\n" + runs
            + '\n    std::printf("bit for bit, no allocation: %s\\n", same ? "yes" : "no");\n'
            "    return same ? 0 : 1;\n}\n")


def _cmake(source: Path, build: Path, *options) -> None:
    for command in ([CMAKE, "-S", str(source), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     f"-DCMAKE_PREFIX_PATH={';'.join(options) or EIGEN}"],
                    [CMAKE, "--build", str(build), "-j", "2"]):
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def _results(out: str) -> dict:
    values = {}
    for line in out.splitlines()[:-1]:
        robot, function, output, *numbers = line.split()
        values[robot, function, output] = np.array([float(x) for x in numbers])
    return values


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    """Each robot's --lang cpp output in a folder of its own, its Python module and state."""
    if CMAKE is None:
        pytest.skip("cmake is not installed")
    root = tmp_path_factory.mktemp("cpp")
    out = {}
    for name, path in ROBOT_FILES.items():
        result = CliRunner().invoke(main, ["generate", str(path), "--lang", "cpp", "--out",
                                           str(root / name), "-q",
                                           *(f"-Q{q}" for q in CALLS[name])])
        assert result.exit_code == 0, result.output
        dynamics = symdyn.newton_euler(symdyn.load_robot(path))
        module = symdyn.python_module(dynamics, quantities=CALLS[name])
        out[name] = (root / name, dynamics, module, _state(module, np.random.default_rng(3),
                                                             name))
    return root, out


def _check(output: str, out: dict) -> None:
    assert output.splitlines()[-1] == "bit for bit, no allocation: yes", output[-500:]
    results = _results(output)
    for name, (_, dynamics, module, state) in out.items():
        for function in CALLS[name]:
            program = dynamics.program(function)
            expected = getattr(module, function)(*(state[a.name] for a in program.inputs))
            expected = expected if isinstance(expected, tuple) else (expected,)
            for o, value in zip(program.returned, expected):
                assert_close(results[name, function, o.name], np.ravel(value), rtol=1e-14)


def _consumer(folder: Path, out: dict, packages: str, *prefixes) -> None:
    """A CMake project in ``folder`` that takes the packages by ``packages`` (one line per
    robot, of {name} and {path}), links symdyn::<robot> and runs _program: checked."""
    folder.mkdir(exist_ok=True)
    states = {name: entry[3] for name, entry in out.items()}
    dynamics = {name: entry[1] for name, entry in out.items()}
    (folder / "app.cpp").write_text(_program(list(out), dynamics, states))
    (folder / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(app CXX C)\n"
        + "".join(packages.format(name=name, path=entry[0]) + "\n"
                  for name, entry in out.items())
        + "add_executable(app app.cpp)\ntarget_link_libraries(app PRIVATE "
        + " ".join(f"symdyn::{name}" for name in out) + ")\n")
    _cmake(folder, folder / "build", *prefixes)
    run = subprocess.run([str(folder / "build" / "app")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr
    _check(run.stdout, out)


@pytest.mark.slow
def test_a_consumer_links_the_packages_by_add_subdirectory(packages, tmp_path):
    """One CMake project that adds each robot's folder and links symdyn::<robot>: the calls
    give the Python module's results (1e-14), the C's bit for bit, without allocating."""
    _, out = packages
    _consumer(tmp_path / "app", out, "add_subdirectory({path} {name})")


@pytest.mark.slow
def test_a_consumer_finds_the_installed_packages(packages, tmp_path):
    """cmake --install of each package, then find_package(<robot>) in a consumer: the same
    results; the installed tree holds the headers, the library and the package's files."""
    root, out = packages
    prefix = tmp_path / "prefix"
    for name in out:
        _cmake(root / name, tmp_path / f"build-{name}")
        result = subprocess.run([CMAKE, "--install", str(tmp_path / f"build-{name}"),
                                 "--prefix", str(prefix)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert (prefix / "include" / f"{name}.hpp").is_file()
        assert list(prefix.glob(f"lib*/cmake/{name}/{name}Config.cmake"))
    _consumer(tmp_path / "app", out, "find_package({name} REQUIRED)", str(prefix), str(EIGEN))


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_the_interface_compiles_under_every_warning(packages, tmp_path, compiler):
    """Every robot's header, with Eigen and without (std::array alone), under -Wall -Wextra
    -Wpedantic -Werror; frames found by name at compile time."""
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    root, out = packages
    source = tmp_path / "all.cpp"
    source.write_text("".join(f'#include "{name}.hpp"\n' for name in out)
                      + 'static_assert(symdyn::fivebar::find_frame("right_tip") == '
                        'symdyn::fivebar::FRAME_right_tip);\n'
                      + 'static_assert(symdyn::fivebar::find_frame("none") == -1);\n'
                      + "int main() { std::array<double, symdyn::puma560::NQ> q{}; "
                        "return symdyn::puma560::mass_matrix(q)[0] > 0 ? 0 : 1; }\n")
    for eigen in ([], ["-DSYMDYN_EIGEN", f"-I{EIGEN / 'include' / 'eigen3'}"]):
        command = [compiler, "-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                   *(f"-I{root / name}" for name in out), *eigen, "-fsyntax-only", str(source)]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.parametrize("name", ["template", "linux", "math_errhandling", "std"])
def test_a_robot_named_by_a_word_of_cpp_is_refused(tmp_path, name):
    """A keyword, a macro of GNU mode (CMake builds gnu++17), a macro of the standard headers,
    std (which `using namespace symdyn;` would make ambiguous): each would break the
    namespace, so none is taken."""
    text = (ROBOTS / "planar2.yaml").read_text().replace("name: planar2", f"name: {name}")
    (tmp_path / f"{name}.yaml").write_text(text)
    result = CliRunner().invoke(main, ["generate", str(tmp_path / f"{name}.yaml"), "--lang",
                                       "cpp", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    assert f"the robot's name {name!r} is a word of C++ or a macro of its compilers" in \
        result.output


# Names the C and C++ libraries declare at global scope, which --lang cpp took and whose
# headers did not compile when the namespace was the robot's name there.
GLOBAL_NAMES = ["sinf", "y0", "j1", "time_t", "uint32_t", "tm", "select", "random", "sin",
                "stdin", "main", "abs", "size_t", "printf"]


def test_a_robot_named_as_the_c_library_names_things_compiles(tmp_path):
    """The interface is in namespace symdyn::<robot> and writes ::std and ::Eigen in full:
    robots named as the C library's functions, types and objects compile together, with Eigen
    and without, under every warning, beside the C library's own headers."""
    for name in GLOBAL_NAMES:
        text = (ROBOTS / "planar2.yaml").read_text().replace("name: planar2", f"name: {name}")
        (tmp_path / f"{name}.yaml").write_text(text)
        result = CliRunner().invoke(main, ["generate", str(tmp_path / f"{name}.yaml"), "--lang",
                                           "cpp", "--out", str(tmp_path / name), "-q",
                                           "-Q", "mass_matrix", "--set", "m1=1", "--set",
                                           "m2=1", "--set", "l1=1", "--set", "l2=1", "--set",
                                           "g=9.81"])
        assert result.exit_code == 0, result.output
    source = tmp_path / "all.cpp"
    source.write_text("#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n"
                      "#include <ctime>\n#include <cstdint>\n#include <sys/select.h>\n"
                      + "".join(f'#include "{name}.hpp"\n' for name in GLOBAL_NAMES)
                      + "int main() { double sum = 0;\n"
                      + "".join(f"    sum += symdyn::{name}::mass_matrix("
                                f"std::array<double, symdyn::{name}::NQ>{{}})[0];\n"
                                for name in GLOBAL_NAMES)
                      + "    return sum > 0 ? 0 : 1; }\n")
    for eigen in ([], ["-DSYMDYN_EIGEN", f"-I{EIGEN / 'include' / 'eigen3'}"]):
        command = ["g++", "-std=gnu++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                   *(f"-I{tmp_path / name}" for name in GLOBAL_NAMES), *eigen, "-fsyntax-only",
                   str(source)]
        result = subprocess.run(command, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.slow
def test_robots_named_as_cmakes_or_a_consumers_targets_build(tmp_path):
    """The package's target is symdyn_<robot>: robots named all, install and app (the
    consumer's own executable) are added to one project, which builds and runs. A target
    named after the robot broke CMake for each."""
    names = ["all", "install", "app"]
    for name in names:
        text = (ROBOTS / "planar2.yaml").read_text().replace("name: planar2", f"name: {name}")
        (tmp_path / f"{name}.yaml").write_text(text)
        result = CliRunner().invoke(main, [
            "generate", str(tmp_path / f"{name}.yaml"), "--lang", "cpp", "--out",
            str(tmp_path / name), "-q", "-Q", "mass_matrix", "--set", "m1=1", "--set", "m2=1",
            "--set", "l1=1", "--set", "l2=1", "--set", "g=9.81"])
        assert result.exit_code == 0, result.output
    folder = tmp_path / "consumer"
    folder.mkdir()
    (folder / "app.cpp").write_text(
        '#include "all.hpp"\n#include "install.hpp"\n#include "app.hpp"\nint main() {\n'
        + "".join(f"    if (symdyn::{name}::mass_matrix(std::array<double, 2>{{}})[0] <= 0) "
                  "return 1;\n" for name in names) + "    return 0;\n}\n")
    (folder / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(app CXX C)\n"
        + "".join(f"add_subdirectory({tmp_path / name} package_{name})\n" for name in names)
        + "add_executable(app app.cpp)\ntarget_link_libraries(app PRIVATE "
        + " ".join(f"symdyn::{name}" for name in names) + ")\n")
    _cmake(folder, folder / "build")
    assert subprocess.run([str(folder / "build" / "app")]).returncode == 0


def test_a_cmake_file_symdyn_did_not_write_is_never_replaced(tmp_path):
    """The user's own CMakeLists.txt, or another robot's package, in --out: refused in one
    line, nothing written; the robot's own package is written again."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "CMakeLists.txt").write_text("project(mine)\n")
    args = ["generate", str(ROBOTS / "planar2.yaml"), "--lang", "cpp", "--out", str(out),
            "-Q", "mass_matrix", "-q"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "is not symdyn's package of 'planar2'" in result.output
    assert (out / "CMakeLists.txt").read_text() == "project(mine)\n"
    assert sorted(p.name for p in out.iterdir()) == ["CMakeLists.txt"]
    (out / "CMakeLists.txt").unlink()
    for _ in range(2):
        assert CliRunner().invoke(main, args).exit_code == 0
    other = ["generate", str(ROBOTS / "puma560.yaml"), "--lang", "cpp", "--out", str(out), "-q",
             "-Q", "mass_matrix"]
    assert CliRunner().invoke(main, other).exit_code == 2


@pytest.mark.slow
def test_two_robots_c_in_one_folder_are_found_by_find_package(tmp_path):
    """--lang c writes <robot>Config.cmake beside the C: two robots' share a folder, and a
    consumer finds each by find_package(<robot> PATHS <folder>) and links symdyn::<robot>;
    M and tau called through the C equal the Python module's (1e-14)."""
    if CMAKE is None:
        pytest.skip("cmake is not installed")
    out = tmp_path / "generated"
    robots = {"puma560": ROBOTS / "puma560.yaml", "ur5": ROBOTS / "ur5.yaml"}
    for path in robots.values():
        result = CliRunner().invoke(main, ["generate", str(path), "--lang", "c", "--out",
                                           str(out), "-q", "-Q", "mass_matrix"])
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "puma560.c", "puma560.h", "puma560Config.cmake", "ur5.c", "ur5.h", "ur5Config.cmake"]
    q = np.random.default_rng(8).uniform(-2, 2, 6)
    state = ", ".join(repr(float(x)) for x in q)
    app = tmp_path / "app"
    app.mkdir()
    (app / "app.c").write_text(
        "#include <stdio.h>\n#include \"puma560.h\"\n#include \"ur5.h\"\n"
        f"int main(void) {{ const double q[6] = {{{state}}}; double a[36], b[36]; int k;\n"
        "  puma560_mass_matrix(q, a); ur5_mass_matrix(q, b);\n"
        "  for (k = 0; k < 36; k++) printf(\"%.17g %.17g\\n\", a[k], b[k]);\n  return 0; }\n")
    (app / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\nproject(app C)\n"
        + "".join(f"find_package({name} REQUIRED PATHS {out} NO_DEFAULT_PATH)\n"
                  for name in robots)
        + "add_executable(app app.c)\ntarget_link_libraries(app PRIVATE symdyn::puma560 "
          "symdyn::ur5)\n")
    _cmake(app, app / "build")
    run = subprocess.run([str(app / "build" / "app")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    values = np.array([[float(x) for x in line.split()] for line in run.stdout.splitlines()])
    for column, path in enumerate(robots.values()):
        module = symdyn.python_module(symdyn.newton_euler(symdyn.load_robot(path)),
                                      quantities=["mass_matrix"])
        assert_close(values[:, column], module.mass_matrix(q).ravel(), rtol=1e-14)
