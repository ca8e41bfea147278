"""Compile generated C into a Python extension module, cached by content.

``compile("generated/puma560.c")`` builds ``puma560.c`` (with the strict flags its users compile
it with) and its CPython wrapper ``puma560_python.c`` into one shared object, stores it under a
hash of everything that went into it, and imports it. The module has the same functions and
signatures as the generated Python module, batched in C.
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

from .. import __version__
from ..errors import BuildError

STRICT = ("-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror")
# Without contraction into fused multiply-adds a batch gives the single-state function's results
# bit for bit; without trapping math the branch-free sign() of friction may be evaluated
# unconditionally, so that the lane kernels' loops vectorise (floating-point exceptions are not
# used). NATIVE builds them for this machine's vector units, where the compiler knows how.
WRAPPER = ("-O2", "-ffp-contract=off", "-fno-trapping-math")
NATIVE = "-march=native"


def cache_root() -> Path:
    if "SYMDYN_CACHE" in os.environ:
        return Path(os.environ["SYMDYN_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "symdyn"


def compiler() -> str:
    cc = os.environ.get("CC") or next((c for c in ("gcc", "cc") if shutil.which(c)), None)
    if cc is None or shutil.which(cc.split()[0]) is None:
        raise BuildError(f"no C compiler found{f' ({cc!r} is not on PATH)' if cc else ''}: "
                         "install gcc, or set CC to a C99 compiler")
    return cc


def compile(c_file, *, cache=None):
    """Build (or reuse) and import the extension module for a generated ``<name>.c``."""
    source = Path(c_file)
    name = source.stem
    files = [source, source.with_suffix(".h"), source.with_name(f"{name}_python.c")]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise BuildError(f"cannot build {source}: missing {', '.join(missing)} "
                         "(run `symdyn generate ROBOT --lang c` to make all three)")
    cc = compiler()
    wrapper = (*WRAPPER, NATIVE) if _accepts(cc, NATIVE) else WRAPPER
    includes = [f"-I{source.parent}", f"-I{sysconfig.get_paths()['include']}",
                f"-I{numpy.get_include()}"]
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    digest = hashlib.sha256()
    for part in [__version__, cc, sys.version, numpy.__version__, _host(), *STRICT, *wrapper,
                 *includes]:
        digest.update(part.encode() + b"\0")
    for f in files:
        digest.update(f.read_bytes() + b"\0")
    target = Path(cache or cache_root()) / digest.hexdigest()[:24] / f"{name}{suffix}"
    if not target.exists():
        _build(cc, files, includes, wrapper, target)
    return _load(name, target)


@functools.lru_cache(maxsize=None)
def _accepts(cc: str, flag: str) -> bool:
    """Whether the compiler takes ``flag`` (some do not know -march=native)."""
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.c"
        probe.write_text("int main(void) { return 0; }\n")
        result = subprocess.run([cc, flag, "-c", str(probe), "-o", str(Path(tmp) / "probe.o")],
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


def _build(cc, files, includes, wrapper, target: Path):
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        robot_o, wrapper_o, library = (Path(tmp) / n for n in ("robot.o", "wrapper.o", "lib.so"))
        _run([cc, *STRICT, "-fPIC", *includes, "-c", str(files[0]), "-o", str(robot_o)])
        _run([cc, *wrapper, "-fPIC", *includes, "-c", str(files[2]), "-o", str(wrapper_o)])
        _run([cc, "-shared", str(robot_o), str(wrapper_o), "-o", str(library), "-lm"])
        os.replace(library, target)   # atomic: a concurrent build sees all of it or nothing


def _run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise BuildError(f"compilation failed: {' '.join(command)}\n{result.stderr.strip()}")


def _load(name: str, path: Path):
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
