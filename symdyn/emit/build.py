"""Compile generated C into a Python extension module, cached by content.

``build(files, name)`` compiles a robot's ``<name>.c`` (with the strict flags its users compile it
with, for this machine) and its CPython wrapper into one shared object, stores it under a hash
of everything that went into it with the digest of its bytes (see ``cache``: it is loaded only
when they match), and loads it under a name of its own
(``_symdyn_<robot>_<hash>``), so that it never replaces a module of the robot's name in
``sys.modules``. No ``-I`` names the build folder: a robot called ``math`` cannot hide
``<math.h>``.
"""
from __future__ import annotations

import concurrent.futures
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
import time
from dataclasses import dataclass
from pathlib import Path

import numpy

from ..errors import BuildError
from ..version import __version__
from . import cache as cache_files
from .cache import CACHE_VARIABLE, cache_root

STRICT = ("-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror")
# A quick build's optimisation level: the A1's C (38,500 lines) took gcc 3.1 s at -O0, 13.6 s at
# -O1 and 17.5 s at -O2 (and its wrapper's lane kernels 21 s at -O2).
QUICK = "-O0"
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


def compiler() -> str:
    cc = os.environ.get("CC") or next((c for c in ("gcc", "cc") if shutil.which(c)), None)
    if cc is None or shutil.which(cc.split()[0]) is None:
        raise BuildError(f"no C compiler found{f' ({cc!r} is not on PATH)' if cc else ''}: "
                         "install gcc, or set CC to a C99 compiler")
    return cc


def build(robot: str, source: dict[str, str], wrapper: dict[str, str], *, cache=None,
          quick: bool = False, progress=None):
    """Build (or reuse) and load the extension module of a robot's rendered C files.

    ``source`` holds ``<robot>.c`` and ``<robot>.h`` as ``--lang c`` writes them, ``wrapper``
    the CPython wrapper, rendered for the module name ``extension_name(robot, source)``. The
    module is kept in the cache (``cache``, else ``cache_root()``) under a hash of everything
    that went into it, beside the digest of its bytes, and loaded only when they match; with
    no usable cache it is built in a private temporary folder, loaded and removed. The two
    files are compiled side by side where the machine has two cores; ``quick`` compiles them
    without optimisation (QUICK: a large tree's C in a sixth of the time, its code slower),
    for a first try; ``progress`` is told what is being compiled and the time left.
    """
    cc = compiler()
    native = _accepts(cc, NATIVE_SCALAR)
    flags = ((*STRICT, *NATIVE_SCALAR), (*WRAPPER, *NATIVE)) if native else (STRICT, WRAPPER)
    if quick:
        flags = tuple(tuple(QUICK if f.startswith("-O") else f for f in group)
                      for group in flags)
    includes = (f"-I{sysconfig.get_paths()['include']}", f"-I{numpy.get_include()}")
    key = hashlib.sha256()
    for part in [LAYOUT, __version__, cc, sys.version, numpy.__version__, _host(), *flags,
                 *includes, *sorted({**source, **wrapper}.items())]:
        for text in (part if isinstance(part, tuple) else (part,)):
            key.update(text.encode() + b"\0")
    name = extension_name(robot, source)
    filename = name + importlib.machinery.EXTENSION_SUFFIXES[0]
    job = _Job(cc, robot, source, wrapper, includes, flags, progress or (lambda message: None))
    requested = Path(cache) if cache is not None else cache_root()
    created = [p for p in (requested, *requested.parents) if not p.exists()]
    root = cache_files.open_folder(requested)
    if root is None:
        with tempfile.TemporaryDirectory(prefix="symdyn-build-") as tmp:
            module = Path(tmp) / filename
            os.replace(job.run(Path(tmp)), module)
            return _load(name, module)
    entry = root / key.hexdigest()[:24]
    if _verified(entry, filename):
        return _load(name, entry / filename)
    cache_files.sweep(root)
    if entry.exists():
        cache_files.warn(f"cache entry {entry} does not match the digest recorded with it "
                         "(damaged or replaced); it is built again")
        cache_files.discard(entry)
    staged = None
    try:
        staged = cache_files.staging_folder(root)
        module = staged / filename
        os.replace(job.run(staged), module)         # the module and its digest alone stay
        cache_files.write_atomic(staged / DIGEST, cache_files.digest(module.read_bytes()).encode())
        try:
            os.rename(staged, entry)   # atomic: a concurrent run sees the whole entry or none
        except OSError:
            if not _verified(entry, filename):      # not another run's entry: a real failure
                raise
    except OSError as exc:
        raise BuildError(f"cannot build in the cache {root}: {exc.strerror or exc} (set "
                         f"{CACHE_VARIABLE} to a writable folder)") from None
    finally:
        if staged is not None and staged.exists():
            shutil.rmtree(staged, ignore_errors=True)
        if not entry.exists():
            for folder in created:     # the folders this build made, deepest first
                try:
                    folder.rmdir()
                except OSError:
                    break
    return _load(name, entry / filename)


LAYOUT = "module and digest"   # in the key: entries of an older layout are never taken for these
DIGEST = "SHA256"              # the file beside a cached module holding its bytes' digest


def _verified(entry: Path, filename: str) -> bool:
    """Whether ``entry`` holds the module with the digest this code recorded for it."""
    recorded = cache_files.read_bytes(entry / DIGEST)
    if recorded is None:
        return False
    module = cache_files.read_bytes(entry / filename)
    return module is not None and cache_files.digest(module).encode() == recorded


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


@dataclass(frozen=True)
class _Job:
    """What one compilation of a robot's module needs."""
    cc: str
    robot: str
    source: dict
    wrapper: dict
    includes: tuple
    flags: tuple
    progress: object

    def run(self, folder: Path) -> Path:
        """Compile in ``folder``; the shared object's path, the only file left there."""
        for name, text in {**self.source, **self.wrapper}.items():
            (folder / name).write_text(text, encoding="utf-8")
        (wrapper_c,) = self.wrapper
        robot_o, wrapper_o, library = (folder / n for n in ("robot.o", "wrapper.o", "lib.so"))
        robot_flags, wrapper_flags = self.flags
        _run_all([([self.cc, *robot_flags, "-fPIC", "-c", str(folder / f"{self.robot}.c"),
                    "-o", str(robot_o)], self.source[f"{self.robot}.c"].count("\n")),
                  ([self.cc, *wrapper_flags, "-fPIC", *self.includes, "-c",
                    str(folder / wrapper_c), "-o", str(wrapper_o)],
                   self.wrapper[wrapper_c].count("\n"))], self.progress)
        _run([self.cc, "-shared", str(robot_o), str(wrapper_o), "-o", str(library), "-lm"])
        for made in (robot_o, wrapper_o, *(folder / name for name in {**self.source,
                                                                       **self.wrapper})):
            made.unlink()
        return library


def _run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        raise BuildError(f"compilation failed: {' '.join(command)}\n{result.stderr.strip()}")


def _run_all(jobs, progress):
    """Compile ``jobs`` ((command, lines of its file)), as many at once as the machine has
    cores, saying each one's start and, as each ends, the time the others have left at the
    rate of lines a second so far. The first failure is the error (the others are let end)."""
    cores = max(1, min(len(jobs), os.cpu_count() or 1))
    names = [Path(command[command.index("-c") + 1]).name for command, _ in jobs]
    starts: dict[int, float] = {}

    def run(k):
        starts[k] = time.monotonic()
        _run(jobs[k][0])
        return k

    with concurrent.futures.ThreadPoolExecutor(cores) as pool:
        for k, (_, lines) in enumerate(jobs):
            progress(f"compiling {names[k]} ({lines} lines)"
                     + (f", {cores} files at once" if cores > 1 else ""))
        futures = [pool.submit(run, k) for k in range(len(jobs))]
        done_lines = done_seconds = 0.0
        remaining = set(range(len(jobs)))
        for future in concurrent.futures.as_completed(futures):
            k = future.result()
            now = time.monotonic()
            remaining.discard(k)
            done_lines += jobs[k][1]
            done_seconds += now - starts[k]
            rate = done_lines / max(done_seconds, 1e-9)       # lines a second, one core
            left = max([jobs[j][1] / rate - (now - starts[j]) for j in remaining
                        if j in starts] + [0.0]) + sum(
                jobs[j][1] for j in remaining if j not in starts) / rate / cores
            if remaining:
                progress(f"compiled {names[k]} in {now - starts[k]:.0f} s; about "
                         f"{max(left, 1):.0f} s of compiling left")


def _load(name: str, path: Path):
    """The module at ``path``, under its own name (a single-phase module is also listed in
    sys.modules under that name, which no other module has)."""
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
