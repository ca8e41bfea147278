"""Programs -> files' texts: the template context and Jinja rendering.

The context is a few small dataclasses of already-printed code (SymForce's approach); templates
only lay it out, under ``StrictUndefined`` so that a missing name fails loudly. All files of a
run are rendered in memory first; ``write`` moves them into place.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import keyword
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import ClassVar

import jinja2
import sympy

from ..derive.quantities import QUANTITIES
from ..derive.regressor import standard_parameters
from ..errors import EmitError
from ..program.passes import OpCount, op_count, rename
from ..program.program import Program, symbols_in
from ..resources import PACKAGE, shipped_folder
from ..robot import variant
from ..robot.expr import as_text
from ..robot.file import DH_COLUMNS
from ..robot.model import Robot
from ..version import __version__
from . import cache
from .backends import BACKENDS, Backend

# The most operations an angle for which a function's sin and cos go in one loop (joint_trig).
TRIG_LOOP_OPERATIONS = 400


@dataclass(frozen=True)
class Line:
    lhs: str
    rhs: str
    kind: ClassVar[str] = "line"


@dataclass(frozen=True)
class SinCos:
    """``sin, cos = sin(angle), cos(angle)``: one evaluation for both where the language has it."""

    angle: str
    sin: str
    cos: str
    of_inputs: bool = False      # the angle reads only the function's inputs
    kind: ClassVar[str] = "sincos"


@dataclass(frozen=True)
class Input:
    name: str
    size: int
    unpack: tuple[tuple[int, str], ...]   # (index, variable) for the entries the body reads


@dataclass(frozen=True)
class Output:
    name: str
    size: int
    shape: tuple[int, ...]
    values: tuple[tuple[int, str], ...]   # (flat index, printed expression)
    offset: int = 0     # where it starts when a function's outputs lie back to back


@dataclass(frozen=True)
class Body:
    steps: tuple[Line | SinCos, ...]
    outputs: tuple[Output, ...]

    @property
    def size(self) -> int:
        """All outputs' entries: one state's results back to back."""
        return sum(o.size for o in self.outputs)


@dataclass(frozen=True)
class Function:
    name: str
    doc: str
    inputs: tuple[Input, ...]
    body: Body
    ops: OpCount

    @property
    def texts(self):
        """Every expression the body prints."""
        for step in self.body.steps:
            yield step.rhs if step.kind == "line" else step.angle
        for o in self.body.outputs:
            yield from (value for _, value in o.values)

    @property
    def joint_trig(self) -> tuple[SinCos, ...]:
        """The sin and cos of plain inputs (the joint angles) that C evaluates together, first,
        in one loop gcc vectorises: where there are several and they are a large share of the
        work. Measured on the Panda, the loop saved a third of M's time and a tenth of C's
        (317 operations an angle), but cost the derivatives (about 800 an angle) a sixth: the
        scalar calls overlap with the rest of a long function, the loop does not."""
        trig = tuple(step for step in self.body.steps
                     if step.kind == "sincos" and step.of_inputs)
        if len(trig) < 2 or self.ops.mul + self.ops.add > TRIG_LOOP_OPERATIONS * len(trig):
            return ()
        return trig

    @property
    def trig_padding(self) -> int:
        """Zero angles after ``joint_trig`` in the loop's arrays (see trig_padding)."""
        return trig_padding(len(self.joint_trig))


def trig_padding(angles: int) -> int:
    """Zero angles to add to a loop of sin and cos of ``angles`` angles. gcc vectorises the
    loop four angles at a time, then two, then one: for 4k + 3 angles the last two passes cost
    more than a fourth lane (the Panda's seven angles in 41 ns, not 50)."""
    return 1 if angles % 4 == 3 else 0


@dataclass(frozen=True)
class Module:
    """What the templates lay out. Text from the robot file (``robot_file``, ``source``) is
    shown only through the backend's ``text`` filter, which makes it inert in a comment."""

    name: str
    dof: int
    parameters: tuple[str, ...]
    robot_file: str          # the file's base name: the output is the same from any folder
    source: str              # where the file says its numbers come from
    digest: str
    version: str
    convention: str
    dh: tuple[tuple[str, ...], ...]   # (joint, a, alpha, d, theta) of each link, as text, or
                                      # (joint, origin xyz, origin rpy, axis) in convention urdf
    gravity: tuple[str, ...]
    placements: tuple[tuple[str, str, str], ...]   # (what, xyz, rpy) of the base and the tool
    limits: tuple[tuple[str, tuple[str, ...]], ...]   # (Q_MIN, values) ...; () without limits
    # The regressor's columns: names, and the robot's values where they are all numbers; both
    # () when the regressor is not generated.
    standard_parameters: tuple[str, ...]
    standard_values: tuple[str, ...]
    base_parameters: tuple[str, ...]   # names of beta, where its functions are written
    functions: tuple[Function, ...]
    fixed: tuple[tuple[str, str], ...]   # (name, value) of free symbols fixed at generation
    variant: str             # what a variant of the file leaves out (robot/variant.py), or ""
    angles: str              # the file's numbers read as exact angles (robot/angles.py), or ""
    # Where the files of one run name their set: replaced by a digest of them all (render). No
    # text from a robot file can hold it: names have no NUL, and the texts' filters escape it.
    code_set: ClassVar[str] = "\0symdyn code set\0"

    @property
    def has_sincos(self) -> bool:
        return any(step.kind == "sincos" for f in self.functions for step in f.body.steps)

    @property
    def has_single_sincos(self) -> bool:
        """Whether some sin and cos stays a step of its own (not in a function's joint_trig)."""
        return any(step.kind == "sincos" and step not in f.joint_trig
                   for f in self.functions for step in f.body.steps)

    @property
    def has_fma(self) -> bool:
        """Whether the C needs symdyn_fma: some line fuses a product into a sum (CPrinter), or
        it takes sin and cos, whose polynomials are fused."""
        return self.has_sincos or any("symdyn_fma(" in text
                                      for f in self.functions for text in f.texts)

    @property
    def has_joint_trig(self) -> bool:
        return any(f.joint_trig for f in self.functions)


def function_code(program: Program, printer) -> Function:
    used = program.cached(_symbols_read)
    inputs = tuple(
        Input(arg.name, len(arg.values),
              tuple((k, s.name) for k, s in enumerate(arg.values) if s in used))
        for arg in program.inputs)
    return Function(program.name, QUANTITIES[program.name].doc, inputs,
                    body_code(program, printer), op_count(program))


def _symbols_read(program: Program) -> frozenset:
    return frozenset(symbols_in([a.rhs for a in program.assignments]
                                + [v for o in program.outputs for v in o.values]))


def body_code(program: Program, printer) -> Body:
    """The assignments and outputs as printed code; sin and cos of one angle become one step."""
    partner = _sin_cos_pairs(program)
    inputs = set(program.input_symbols)
    # Most lines are arithmetic, the same text in Python and C: printed once, for both.
    printer.shared = program.cached(_common_text)
    text = printer.doprint
    steps: list[Line | SinCos] = []
    seen = set()
    for a in program.assignments:
        other = partner.get(a.lhs)
        if other is None:
            steps.append(Line(a.lhs.name, text(a.rhs)))
        elif other not in seen:     # the pair is one step, placed at its first half
            sin, cos = (a.lhs, other) if a.rhs.func is sympy.sin else (other, a.lhs)
            angle = a.rhs.args[0]
            steps.append(SinCos(text(angle), sin.name, cos.name,
                                angle.free_symbols <= inputs))
        seen.add(a.lhs)
    offsets = [sum(len(o.values) for o in program.outputs[:k])
               for k in range(len(program.outputs))]
    outputs = tuple(
        Output(out.name, len(out.values), out.shape,
               tuple((k, text(sympy.sympify(v))) for k, v in enumerate(out.values)), offset)
        for out, offset in zip(program.outputs, offsets))
    return Body(tuple(steps), outputs)


def _common_text(program: Program) -> dict:
    """{expression: its code where it reads the same in every language}, filled as the first
    language prints the program and read by the next (printers._ArithmeticMixin.shared)."""
    return {}


def _sin_cos_pairs(program: Program) -> dict[sympy.Symbol, sympy.Symbol]:
    """{lhs of sin(x): lhs of cos(x)} and the reverse, for each x with both assigned."""
    found: dict[tuple[type, sympy.Expr], sympy.Symbol] = {}
    for a in program.assignments:
        if a.rhs.func in (sympy.sin, sympy.cos):
            found.setdefault((a.rhs.func, a.rhs.args[0]), a.lhs)
    partner = {}
    for (func, angle), lhs in found.items():
        if func is sympy.sin and (sympy.cos, angle) in found:
            other = found[(sympy.cos, angle)]
            partner[lhs], partner[other] = other, lhs
    return partner


# Identifiers an intermediate must not take: the languages' keywords, the names the templates
# declare in a function's scope, and the C library's names that the code calls or could meet;
# and any name that begins with TEMPLATE_PREFIX, which the templates' own names (symdyn_fma, the
# sin and cos code's symdyn_x ...) begin with.
RESERVED = (
    set(keyword.kwlist)
    | {"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
       "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
       "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
       "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex",
       "_Imaginary"}
    | {"np", "batch", "in", "out", "step", "lane", "entry", "lanes_in", "lanes_out", "beyond",
       "LANES", "MAX_ARGS", "MAX_DIMS"}
    | {"sin", "cos", "sqrt", "fabs", "copysign", "rint", "fma", "pow", "errno", "NAN", "INFINITY",
       "HUGE_VAL"}
)
TEMPLATE_PREFIX = "symdyn_"
PARAMETER_PREFIX = "p_"


def reserved(name: str) -> bool:
    return name in RESERVED or name.startswith(TEMPLATE_PREFIX)


def identifiers(robot: Robot, programs) -> dict[sympy.Symbol, sympy.Symbol]:
    """The names the code gives symbols whose own names it cannot use.

    A free parameter is ``p_<name>``, so a user's name never meets an identifier of C, Python,
    their libraries or the templates (``NAN``, ``errno``, ``batch`` ...); an intermediate that
    happens to be reserved gets a trailing ``_`` (which no template's name has). Names stay
    unique within the module.
    """
    taken = RESERVED | {s.name for p in programs for s in p.input_symbols} | {
        a.lhs.name for p in programs for a in p.assignments}
    names = {}

    def fresh(name):
        while name in taken:
            name += "_"
        taken.add(name)
        return sympy.Symbol(name)

    for symbol in robot.parameters:
        names[symbol] = fresh(PARAMETER_PREFIX + str(symbol))
    for program in programs:
        for a in program.assignments:
            if reserved(a.lhs.name) and a.lhs not in names:
                names[a.lhs] = fresh(a.lhs.name)
    return names


def module_code(robot: Robot, programs, backend: Backend, values=None,
                base_names=()) -> Module:
    printer = backend.printer()
    parameters = _parameters(programs)
    names = identifiers(robot, programs)
    programs = [rename(p, names) for p in programs]
    spec = robot.spec
    fixed = tuple((str(s), printer.doprint(v)) for s, v in (values or {}).items())
    dh = tuple((link.joint, *(as_text(getattr(link, key)) for key in DH_COLUMNS))
               if spec.convention != "urdf" else
               (link.joint, *("[" + ", ".join(as_text(v) for v in values) + "]"
                              for values in (link.origin.xyz, link.origin.rpy, link.axis)))
               for link in spec.links)
    return Module(
        name=robot.name, dof=robot.dof, parameters=parameters,
        robot_file=PurePath(spec.path).name, source=spec.source, digest=spec.digest,
        version=__version__, convention=spec.convention, dh=dh,
        gravity=tuple(as_text(g) for g in spec.gravity),
        placements=tuple((what, *(", ".join(as_text(v) for v in values)
                                  for values in (placement.xyz, placement.rpy)))
                         for what, placement in (("base", spec.base), ("tool", spec.tool))
                         if placement is not None),
        limits=_limits(spec, printer, backend.infinity),
        **_standard_parameters(robot, programs, printer, values),
        base_parameters=tuple(base_names),
        functions=tuple(_function_code(p, printer) for p in programs), fixed=fixed,
        variant=_variant(spec), angles=_exact_angles(spec))


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


LIMITS = (("Q_MIN", "lower", -1), ("Q_MAX", "upper", 1), ("QD_MAX", "velocity", 1),
          ("TAU_MAX", "effort", 1))


def _limits(spec, printer, infinity: str) -> tuple:
    """The joints' limits as printed arrays, infinite where a link gives none; none at all for
    a robot file without limits."""
    if all(link.limits is None for link in spec.links):
        return ()
    return tuple((name, tuple(printer.doprint(link.limits[key]) if key in (link.limits or {})
                              else ("-" if sign < 0 else "") + infinity for link in spec.links))
                 for name, key, sign in LIMITS)


def _standard_parameters(robot, programs, printer, values) -> dict:
    """The regressor's column names and, for a robot whose values are all numbers once the
    ``values`` fixed at generation are in, the printed values."""
    if not any(p.name in ("regressor", "base_regressor", "base_parameters") for p in programs):
        return {"standard_parameters": (), "standard_values": ()}
    pairs = [(name, sympy.sympify(v).subs(values or {})) for name, v in
             standard_parameters(robot)]
    numeric = all(v.is_number for _, v in pairs)
    return {"standard_parameters": tuple(name for name, _ in pairs),
            "standard_values": tuple(printer.doprint(v) for _, v in pairs) if numeric else ()}


def _function_code(program: Program, printer) -> Function:
    try:
        return function_code(program, printer)
    except EmitError as exc:
        raise EmitError(f"{program.name}: {exc}") from None


def _parameters(programs) -> tuple[str, ...]:
    """The free symbols the code still takes (those not fixed at generation), in robot order."""
    return tuple(dict.fromkeys(str(s) for p in programs for arg in p.inputs
                               if arg.name == "params" for s in arg.values))


def template_root() -> Path:
    """templates/ inside an installed wheel, or at the top of a source checkout."""
    folder = shipped_folder("templates")
    if folder is None:
        raise EmitError(f"symdyn's templates are missing (looked in {PACKAGE}/templates)")
    return folder


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_root())),
        bytecode_cache=_template_cache(),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _template_cache() -> jinja2.BytecodeCache | None:
    try:
        root = cache.cache_root()
    except RuntimeError:        # no home folder to find the user's cache in: no cache
        return None
    folder = cache.open_folder(root)
    if folder is None:
        return None
    cache.sweep(folder / "templates")       # what killed runs were writing there
    return _TemplateCache(folder / "templates")


class _TemplateCache(jinja2.BytecodeCache):
    """The templates compiled by an earlier run, beside the compiled C in the user's cache:
    compiling them took a quarter of a second of every run, as long as generating a small
    robot's code. A compiled template is a marshalled code object that Jinja runs, so each is
    sealed with the digest of its bytes and unmarshalled only when they match (see ``cache``);
    Jinja then checks it against its template's source. An entry that cannot be read or does
    not match is compiled afresh and written again; a folder that cannot be written is no
    cache."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, bucket) -> Path:
        return self.folder / f"{bucket.key}.sealed"

    def load_bytecode(self, bucket):
        path = self._path(bucket)
        blob = cache.read_bytes(path)
        if blob is None:
            return
        payload = cache.unseal(blob)
        if payload is None:
            cache.warn(f"cache entry {path} does not match the digest recorded with it "
                       "(damaged or replaced); the template is compiled again")
            cache.discard(path)
            return
        bucket.bytecode_from_string(payload)

    def dump_bytecode(self, bucket):
        with contextlib.suppress(OSError):
            self.folder.mkdir(mode=0o700, exist_ok=True)
            cache.write_atomic(self._path(bucket), cache.seal(bucket.bytecode_to_string()))


@functools.lru_cache(maxsize=None)
def _backend_environment(backend: Backend) -> jinja2.Environment:
    """A backend's templates, compiled once a process (compiling them costs more than
    rendering)."""
    env = environment()
    env.filters["text"] = backend.text
    return env


def render(module: Module, backend: Backend, files=None, **context) -> dict[str, str]:
    """File name -> text, for the backend's files (or the ``files`` given as (template,
    name pattern) pairs), with ``context`` beside the module. Where the files name their set
    (``Module.code_set``), they get the digest of all of them."""
    env = _backend_environment(backend)
    texts = {pattern.format(name=module.name):
             env.get_template(template).render(m=module, **context)
             for template, pattern in (files or backend.files)}
    digest = hashlib.sha256("\0".join(texts[k] for k in sorted(texts)).encode()).hexdigest()
    return {name: text.replace(Module.code_set, f"0x{digest[:15]}") for name, text in
            texts.items()}


def backend(lang: str) -> Backend:
    try:
        return BACKENDS[lang]
    except KeyError:
        raise EmitError(f"unknown language {lang!r}; choose from {', '.join(BACKENDS)}") from None
