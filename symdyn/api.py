"""The public API's work, start to end: load a robot, derive its programs, optimize them, and
render and write (or compile, or import) their code.

This is the one module that knows every layer: robot/ reads robot files, derive/ makes
programs of a robot, program/ passes them, emit/ turns programs into files and modules.
"""
from __future__ import annotations

import builtins
import contextlib
import ctypes
import gc
import types
from pathlib import Path, PurePath
from time import monotonic
from typing import Callable

import sympy

from .derive.dynamics import Dynamics, frame_function
from .derive.quantities import FROM_REGRESSOR, PER_FRAME, QUANTITIES
from .derive.regressor import standard_parameters
from .derive.routes import newton_euler
from .emit import build, context
from .emit.backends import BACKENDS, WRAPPER, Backend
from .emit.render import backend, render
from .emit.write import write_files
from .errors import EmitError
from .program import optimize_all
from .program.passes import prepare_all
from .robot import load_robot, table, variant
from .robot.expr import ExpressionError, as_text, parse_expression
from .robot.identifiers import identifiers
from .robot.model import Robot
from .robot.poses import closed_configuration
from .robot.spec import CONSTRAINT_AXES, DH_COLUMNS


def generate(dynamics: Dynamics, lang="python", out_dir="generated", *,
             quantities=None, values=None, precision="double", build: bool = False,
             quick: bool = False, keep_derivations: bool = True,
             progress: Callable[[str], None] | None = None) -> list[Path]:
    """Optimize the dynamics' programs and write them as files into ``out_dir``.

    ``lang`` is a language or a list of them (the programs are optimized once for all);
    ``quantities`` names the functions to write (all of them by default); ``values``
    ({symbol or name: number}) fixes some of the robot's free parameters in the code;
    ``precision`` "single" writes the C with floats (C alone). With ``build`` (and "c" among
    the languages, in double precision), the C is also compiled into the Python extension
    ``compile`` loads (from its cache), before anything is written: its path comes last;
    ``quick`` builds it as ``compile``'s ``quick`` does. Without ``keep_derivations``, the
    dynamics forget their derived programs once they are optimized (Dynamics.
    forget_derivations), for the memory: the command line's choice, whose dynamics write once.
    All files are written, or none (a build that fails writes nothing).
    """
    progress = progress or (lambda message: None)
    backends = [backend(x, precision) for x in ([lang] if isinstance(lang, str) else lang)]
    if build and (BACKENDS["c"] not in backends):
        raise EmitError("build compiles the C: ask for lang c, in double precision")
    for chosen in backends:
        problem = chosen.name_problem(dynamics.robot.name)
        if problem:
            raise EmitError(problem)
    with _without_cycle_collection():
        values, programs = _optimized(dynamics, quantities, values, progress)
        if not keep_derivations:
            dynamics.forget_derivations()
            _return_freed_memory()
        files, c_module = {}, None
        started = monotonic()
        for k, chosen in enumerate(backends):
            progress(f"writing {chosen.lang} code" + _languages_left(
                k, len(backends), monotonic() - started))
            last = k == len(backends) - 1       # whose printing lets each program go
            module = _module(dynamics, programs, chosen, values, let_go=last)
            if last:
                _return_freed_memory()      # the programs', before the rendering's peak
            files.update(render(module, chosen, pieces=True))
            if build and chosen == BACKENDS["c"]:
                c_module = module
            del module      # each language's module freed before the next one is made
    _not_theirs(files, Path(out_dir), dynamics.robot.name)
    built = [Path(_build(c_module, progress, quick=quick).__file__)] if build else []
    return write_files(files, out_dir) + built


def _not_theirs(files: dict, out_dir: Path, name: str) -> None:
    """Refuse to replace a CMakeLists.txt that symdyn did not write for this robot: the user's
    own project file, or another robot's package in the same folder."""
    if "CMakeLists.txt" not in files:
        return
    target = out_dir / "CMakeLists.txt"
    try:
        with open(target, "rb") as existing:
            head = existing.read(200)
    except (FileNotFoundError, NotADirectoryError):
        return
    except OSError as exc:
        raise EmitError(f"cannot read {target}: {exc.strerror}") from None
    if not head.startswith(f"# The CMake package of the robot '{name}' ".encode()):
        raise EmitError(f"{target} exists and is not symdyn's package of {name!r}: a C++ "
                        "package takes a folder of its own (--out)")


def _languages_left(written: int, languages: int, elapsed: float) -> str:
    """Which language of how many this is and, after the first, the time the rest will take at
    the rate of those written (they print the same programs: the Panda's Lagrange programs took
    1.9 s in Python, 2.5 in C), while more than a second is left."""
    if languages == 1:
        return ""
    left = elapsed / written * (languages - written) if written else 0.0
    estimate = f", about {left:.0f} s of writing left" if left >= 1 else ""
    return f" ({written + 1} of {languages} languages{estimate})"


@contextlib.contextmanager
def _without_cycle_collection():
    """Python's cycle collector paused, as it was before afterwards. Expressions hold no
    reference cycles, and a large model makes millions of them: the collector, visiting the
    live ones again and again as they pile up, took a quarter of a 20-joint chain's full model
    (25 s against 19 s, timed in one process). Reference counting still frees all of it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _return_freed_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's malloc_trim; elsewhere
    nothing). symengine's forms of the derivation's steps are half of what a large model's
    derivation holds (a 64-joint chain's 590 MB), and freed they stay in the heap, where the
    writing, whose objects Python allocates apart from it, does not reuse them (given back,
    with the derivations' memos let go, the chain's peak went from 2.03 to 1.78 GB)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):       # not glibc; Windows takes no None
        return
    trim(0)


def python_module(dynamics: Dynamics, *, quantities=None, values=None, progress=None,
                  optimized=True):
    """The generated Python module, made in memory and imported, without writing a file.

    For notebooks and checks: the same code ``generate`` writes, with the same functions.
    ``optimized=False`` leaves out the passes that only make the code faster (common
    subexpressions, trigonometry hoisting): a reference evaluated a few times, such as the
    Lagrange route in ``check``, is then ready in a fraction of the time.
    """
    progress = progress or (lambda message: None)
    chosen = backend("python")
    with _without_cycle_collection():
        values, programs = _optimized(dynamics, quantities, values, progress,
                                      optimize_all if optimized else _light)
        (text,) = render(_module(dynamics, programs, chosen, values), chosen).values()
    module = types.ModuleType(f"symdyn_{dynamics.robot.name}_{dynamics.method}")
    exec(builtins.compile(text, f"<symdyn {dynamics.robot.name}>", "exec"), module.__dict__)
    return module


def compile(robot, *, quantities=None, values=None, cache=None, progress=None, quick=False):
    """The generated C, compiled with its CPython wrapper and imported: a module with the
    Python module's functions, whose batches run through vectorised C.

    ``robot`` is a Dynamics or a robot file (derived by Newton-Euler). The C is exactly what
    ``generate(..., "c")`` writes with the same ``quantities`` and ``values``; the build is
    cached by content (see ``cache``), so a second call only loads it. ``quick`` builds it
    without the compiler's optimisation: in a fraction of the time, for slower code (a first
    try of a large tree).
    """
    progress = progress or (lambda message: None)
    dynamics = robot if isinstance(robot, Dynamics) else newton_euler(load_robot(robot))
    with _without_cycle_collection():
        values, programs = _optimized(dynamics, quantities, values, progress)
        module = _module(dynamics, programs, BACKENDS["c"], values)
    return _build(module, progress, cache, quick)


def _build(module: context.Module, progress, cache=None, quick=False):
    """The C module's extension, built (or taken from the cache) and imported."""
    chosen = BACKENDS["c"]
    source = render(module, chosen)
    extension = build.extension_name(module.name, source)
    wrapper = render(module, chosen, WRAPPER, extension=extension)
    return build.build(module.name, source, wrapper, cache=cache, quick=quick,
                       progress=progress)


def _module(dynamics, programs, chosen, values, let_go=False):
    """The template context; the base parameters' names where their functions are written."""
    based = any(p.name in FROM_REGRESSOR for p in programs)
    return module_code(dynamics.robot, programs, chosen, values,
                       base_names=dynamics.base.names if based else (), let_go=let_go)


def module_code(robot: Robot, programs, backend: Backend, values=None, base_names=(),
                let_go=False):
    """The template context of ``programs`` of ``robot`` (emit.context.module_code)."""
    columns = any(p.name in ("regressor", *FROM_REGRESSOR) for p in programs)
    return context.module_code(header(robot, values, columns), programs, backend, values,
                               base_names, let_go)


def header(robot: Robot, values=None, columns: bool = False) -> context.Header:
    """What the generated files say of ``robot``, as its file gives it: the DH table or joint
    placements, gravity, base and tool, limits, notes on variants and angles read exactly,
    and with ``columns`` the regressor's columns with their values (``values`` fixed)."""
    spec = robot.spec
    geometry = table.geometry(spec)
    columns_of_link = (("joint", *table.URDF_COLUMNS) if spec.convention == "urdf"
                       else ("joint", *DH_COLUMNS))
    rows = [dict(zip(geometry.header, row)) for row in geometry.rows]
    dh = tuple(tuple(table.text(row[c]) for c in columns_of_link) for row in rows)
    tree = ()
    if "parent" in geometry.header:
        extra = ("gamma", "b") if spec.convention == "modified" else ()
        tree = tuple((row["link"], row["parent"], *(table.text(getattr(link, key))
                                                   for key in extra))
                     for row, link in zip(rows, spec.links))
    coordinates = _coordinates(robot)
    return context.Header(
        name=robot.name, dof=robot.dof, nq=robot.nq, joints=table.joints(spec),
        coordinates=coordinates, floating=robot.floating,
        several=_several(robot, coordinates),
        parameters=robot.parameters,
        robot_file=PurePath(spec.path).name, source=spec.source, digest=spec.digest,
        convention=spec.convention, dh=dh, tree=tree,
        mimics=tuple((table.link_name(spec, i), table.link_name(spec, link.mimic),
                      table.text(link.multiplier), table.text(link.offset))
                     for i, link in enumerate(spec.links, start=1) if link.mimic is not None),
        frames=tuple((frame.name, frame.identifier) for frame in robot.frames),
        constraints=tuple(c.name if c.kind == "coupling" else f"{c.name} {CONSTRAINT_AXES[k]}"
                          for c in robot.constraints
                          for k in (c.rows if c.kind != "coupling" else (0,))),
        tendons=tuple(t.name for t in robot.tendons),
        actuated=tuple(next(name for name, _, _, start in reversed(coordinates) if start <= v)
                       for v in robot.actuated),
        closed_at=_closed_at(robot) if robot.constraints else (),
        gravity=tuple(as_text(g) for g in spec.gravity),
        placements=tuple((what, *(", ".join(as_text(v) for v in vector)
                                  for vector in (placement.xyz, placement.rpy)))
                         for what, placement in (("base", spec.base), ("tool", spec.tool))
                         if placement is not None),
        limits=_bounds(robot),
        standard=tuple((name, sympy.sympify(v).subs(values or {}))
                       for name, v in standard_parameters(robot)) if columns else (),
        variant=_variant(spec), angles=_exact_angles(spec),
        branched=robot.branched,
        docs={**{name: quantity.doc for name, quantity in QUANTITIES.items()},
              **{frame_function(name, frame.identifier):
                 QUANTITIES[name].frame_doc.format(frame=frame.name)
                 for name in PER_FRAME for frame in robot.frames}})


def _bounds(robot: Robot) -> tuple[dict, ...]:
    """Each joint's limits in q's order, a floating base's first (its kind's bounds: the
    file's where given, unbounded elsewhere); none for a robot file that gives no limits."""
    spec = robot.spec
    if all(spec.links[i - 1].limits is None for i in robot.coordinates):
        return ()
    return tuple(kind.bounds(spec.links[i - 1].limits if i else None)
                 for kind, i in robot.joint_kinds)


def _closed_at(robot: Robot) -> tuple[sympy.Expr, ...]:
    """q where the constraints hold (poses.closed_configuration), as Floats, so that an array
    of them is one of doubles."""
    return tuple(sympy.Float(v, 30) for v in closed_configuration(robot))


def _coordinates(robot: Robot) -> tuple[tuple[str, str, int, int], ...]:
    """(name, identifier, index in q, index in qd) of each joint with a coordinate, a floating
    base's root_joint first (Pinocchio's name for it); a joint is named as the file names it
    (joint_name), else after its link, else joint<i>."""
    joints = robot.spec.joint_names()
    names = ["root_joint"] * robot.floating + [joints[i - 1] for i in robot.coordinates]
    starts = [robot.q.index(robot.links[i - 1].configuration[0]) for i in robot.coordinates]
    places = [(0, 0)] * robot.floating + [
        (start, robot.velocity_columns[i][0]) for start, i in zip(starts, robot.coordinates)]
    return tuple((name, identifier, q, v) for name, identifier, (q, v)
                 in zip(names, identifiers(names), places))


def _several(robot: Robot, coordinates) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(kind, its joints' names, what its entries of q and qd are: JointKind.layout) of each
    kind of joint of several coordinates the robot has, in q's order."""
    kinds = {}
    for (name, *_), i in zip(coordinates[robot.floating:], robot.coordinates):
        kind = robot.links[i - 1].kind
        if kind.layout:
            kinds.setdefault(kind.name, (kind.layout, []))[1].append(name)
    return tuple((kind, ", ".join(names), layout) for kind, (layout, names) in kinds.items())


def _variant(spec) -> str:
    if not spec.omitted:
        return ""
    options = " ".join(f"--without {part}" for part in spec.omitted)
    return (f"A variant of the robot file ({options}): "
            + "; ".join(variant.PARTS[part] for part in spec.omitted) + ".")


def _exact_angles(spec) -> str:
    exact = [reading.note() for reading in spec.angle_readings if reading.exact is not None]
    if not exact:
        return ""
    return ("Read as exact angles (each number the double nearest to it, or within "
            "--snap-angles): " + ", ".join(exact) + ".")


def _light(programs, values, progress):
    """The passes a program needs to be printed, none that only make it faster."""
    return prepare_all(programs, values)


def _optimized(dynamics, quantities, values, progress, passes=optimize_all):
    """The fixed values, resolved, and the chosen quantities' optimized programs: by default
    every one the robot has."""
    values = resolve_values(dynamics.robot, values or {})
    for name in quantities or ():
        why = dynamics.unavailable(name)
        if why:
            raise EmitError(f"no {name} for {dynamics.robot.name}: {why}")
    programs = [program for name in quantities or dynamics.available
                for program in dynamics.programs(name)]
    return values, passes(programs, values, progress)


def resolve_values(robot, values) -> dict:
    """{symbol: exact number} for values given by symbol or by name; unknown names are errors."""
    free = {str(p): p for p in robot.parameters}
    resolved = {}
    for key, value in values.items():
        name = str(key)
        if name not in free:
            known = ", ".join(free) or "none"
            raise EmitError(f"{name!r} is not a free symbol of {robot.name} (its free symbols: "
                            f"{known})")
        try:
            resolved[free[name]] = (value if isinstance(value, sympy.Expr)
                                    else parse_expression(value, _no_names))
        except ExpressionError as exc:
            raise EmitError(f"value of {name}: {exc}") from None
    return resolved


def _no_names(name):
    raise ExpressionError(f"{name!r}: a value must be a number (or pi)")


__all__ = ["compile", "generate", "header", "module_code", "python_module", "resolve_values"]
