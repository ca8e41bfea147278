"""Compile generated C into a Python extension module, cached by content.

``build(files, name)`` compiles a robot's ``<name>.c`` (with the strict flags its users compile it
with, for this machine) and its CPython wrapper into one shared object, stores it under a hash
of everything that went into it, and loads it under a name of its own
(``_symdyn_<robot>_<hash>``), so that it never replaces a module of the robot's name in
``sys.modules``. No ``-I`` names the build folder: a robot called ``math`` cannot hide
``<math.h>``.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import numpy

from ..errors import BuildError
from ..version import __version__

STRICT = ("-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror")
# Without contraction into fused multiply-adds a batch gives the single-state function's results
# bit for bit; without trapping math the branch-free sign() of friction may be evaluated
# unconditionally, so that the lane kernels' loops vectorise (floating-point exceptions are not
# used).
WRAPPER = ("-O2", "-ffp-contract=off", "-fno-trapping-math")
# Both files are built for this machine where the compiler knows how: the lane kernels for its
# vector units, and the code's symdyn_fma as one instruction wherever it has one, in both files
# alike. The robot's own file is then built without straight-line vectorisation, which in gcc 12
# fuses pairs of lines such as a*b - c and d*e + f into one vfmaddsub despite -ffp-contract=off:
# a single state would differ from a batch in the last bit.
NATIVE = ("-march=native",)
NATIVE_SCALAR = (*NATIVE, "-fno-tree-slp-vectorize")
CACHE_VARIABLE = "SYMDYN_CACHE"


def cache_root() -> Path:
    """$SYMDYN_CACHE, else symdyn/ in the user's cache folder ($XDG_CACHE_HOME or ~/.cache)."""
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "symdyn"


def compiler() -> str:
    cc = os.environ.get("CC") or next((c for c in ("gcc", "cc") if shutil.which(c)), None)
    if cc is None or shutil.which(cc.split()[0]) is None:
        raise BuildError(f"no C compiler found{f' ({cc!r} is not on PATH)' if cc else ''}: "
                         "install gcc, or set CC to a C99 compiler")
    return cc


def build(robot: str, source: dict[str, str], wrapper: dict[str, str], *, cache=None):
    """Build (or reuse) and load the extension module of a robot's rendered C files.

    ``source`` holds ``<robot>.c`` and ``<robot>.h`` as ``--lang c`` writes them, ``wrapper``
    the CPython wrapper, rendered for the module name ``extension_name(robot, source)``.
    """
    cc = compiler()
    native = _accepts(cc, NATIVE_SCALAR)
    flags = ((*STRICT, *NATIVE_SCALAR), (*WRAPPER, *NATIVE)) if native else (STRICT, WRAPPER)
    includes = (f"-I{sysconfig.get_paths()['include']}", f"-I{numpy.get_include()}")
    digest = hashlib.sha256()
    for part in [__version__, cc, sys.version, numpy.__version__, _host(), *flags,
                 *includes, *sorted({**source, **wrapper}.items())]:
        for text in (part if isinstance(part, tuple) else (part,)):
            digest.update(text.encode() + b"\0")
    name = extension_name(robot, source)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    root = Path(cache or cache_root())
    target = root / digest.hexdigest()[:24] / f"{name}{suffix}"
    if not target.exists():
        _build(cc, robot, source, wrapper, includes, flags, root, target)
    return _load(name, target)


def extension_name(robot: str, source: dict[str, str]) -> str:
    """The module's own name: the robot's, made unique by the code it holds."""
    digest = hashlib.sha256("\0".join(source[k] for k in sorted(source)).encode())
    return f"_symdyn_{robot}_{digest.hexdigest()[:12]}"


@functools.lru_cache(maxsize=None)
def _accepts(cc: str, flags: tuple[str, ...]) -> bool:
    """Whether the compiler takes ``flags`` (some do not know -march=native)."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.c"
        probe.write_text("int main(void) { return 0; }\n")
        result = subprocess.run([cc, *flags, "-c", str(probe), "-o", str(Path(tmp) / "probe.o")],
                                capture_output=True)
    return result.returncode == 0


def _host() -> str:
    """What -march=native builds for: the machine and, on Linux, its CPU's features (a cache in
    a shared home folder must not hand one machine's build to another)."""
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        cpuinfo = []
    features = next((line for line in cpuinfo if line.startswith(("flags", "Features"))), "")
    return platform.machine() + features


def _build(cc, robot, source, wrapper, includes, flags, root: Path, target: Path):
    """Compile in a temporary folder of the cache; only a finished module is moved into place,
    so a failed build leaves the cache as it was (no empty folders)."""
    created = [p for p in (root, *root.parents) if not p.exists()]
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=root, prefix=".build-") as tmp:
            folder = Path(tmp)
            for name, text in {**source, **wrapper}.items():
                (folder / name).write_text(text, encoding="utf-8")
            (wrapper_c,) = wrapper
            robot_o, wrapper_o, library = (folder / n for n in ("robot.o", "wrapper.o", "lib.so"))
            robot_flags, wrapper_flags = flags
            _run([cc, *robot_flags, "-fPIC", "-c", str(folder / f"{robot}.c"), "-o", str(robot_o)])
            _run([cc, *wrapper_flags, "-fPIC", *includes, "-c", str(folder / wrapper_c),
                  "-o", str(wrapper_o)])
            _run([cc, "-shared", str(robot_o), str(wrapper_o), "-o", str(library), "-lm"])
            target.parent.mkdir(exist_ok=True)
            os.replace(library, target)   # atomic: a concurrent build sees all of it or nothing
    except OSError as exc:
        raise BuildError(f"cannot build in the cache {root}: {exc.strerror or exc} (set "
                         f"{CACHE_VARIABLE} to a writable folder)") from None
    finally:
        if not target.exists():
            for folder in created:     # the folders this build made, deepest first
                try:
                    folder.rmdir()
                except OSError:
                    break


def _run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise BuildError(f"compilation failed: {' '.join(command)}\n{result.stderr.strip()}")


def _load(name: str, path: Path):
    """The module at ``path``, under its own name (a single-phase module is also listed in
    sys.modules under that name, which no other module has)."""
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
