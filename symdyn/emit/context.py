"""Programs -> the template context: a few small dataclasses of already-printed code
(SymForce's approach), which templates only lay out.

What the header says of the robot comes in as a ``Header`` of plain text and numbers, made
above (api.py), so that this package knows programs and languages, not robot files.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import ClassVar

import sympy

from ..errors import EmitError
from ..program.passes import OpCount, entry_cost, kept_values, op_count, rename, solve_operations
from ..program.program import Program, symbols_in
from ..program.schedule import order_for_machine
from ..program.solves import unrolled
from ..version import __version__
from .backends import Backend
from .names import identifiers
from .printers import literal

# The most operations an angle for which a function's sin and cos go in one loop (joint_trig).
TRIG_LOOP_OPERATIONS = 400
# A function whose C is longer than this (characters of its steps and stores) is written as
# parts of about this length, static functions called in turn that pass the values they share
# through one array on the stack: gcc's time and memory grow faster than a function's length
# (-O2: 100 kB in 0.9 s, 200 kB in 2.5 s, 340 kB in 9.7 s; TALOS's inverse-dynamics derivatives,
# 709 kB, in 25 s and 580 MB; its forward-dynamics derivatives, 2.9 MB, ran 20 minutes at -O3
# and 8 GB before they were stopped). The shipped arms' longest, the Panda's forward-dynamics
# derivatives, is 120 kB. Parts cost time too, in the values they pass: Menagerie Cassie's
# constrained forward dynamics (390 kB) in three parts 3.09 us, whole 2.93 (gcc 12 -O3
# -march=native: 3.8 s and 150 MB to compile, whole 5.5 s and 200 MB).
PART_CHARACTERS = 400_000
# A chain's C takes its steps in an order for out-of-order processors
# (schedule.order_for_machine), up to this many steps. Measured (gcc 12 -O3 -march=native, CPU
# time, alternating, the least of 11-15 rounds), the order's gains shrink with a function's
# length and turn to losses past about 1200 steps: the PUMA 560's ID derivatives (567 steps)
# -15%, the Panda's (1005) -10%, a generic 7-joint chain's C (1031) -5%; its ID derivatives
# (1371) +6%, the Panda's FD derivatives (1531) +2%. Those keep the derivation's order (the
# bound is also below the length of any function written as parts, PART_CHARACTERS, about
# 5000 steps of 80 characters). A tree's keep it too, a
# branch after another: ordered for the machine, the branches' values interleave and live
# longer, and its functions ran slower (Solo-12's ID derivatives 973 -> 1128 ns, C 610 -> 699;
# the Allegro hand's 670 -> 736 and 196 -> 209).
SCHEDULED_STEPS = 1200

# How JAX's outputs are assembled, for XLA's CPU compiler (jax.jit): it fuses a concatenation of
# at most eight operands, with all that computes them, into one loop that computes each entry
# on its own (for a batch, a loop that branches on the entry and vectorises nothing), and fuses
# none of more operands, each of which it computes in a vectorised loop of its own; and it
# computes again, in every loop that reads it, any value but a division or a root (sin and cos
# included). So a batch's output is stacked from more than eight operands (_unfused), and
# the values worth it are stacked the same way, once, as soon as they are set (_once,
# KEEP_COST); XLA folds both away for one state. But one state's output of entries cheap to
# compute one by one (at most FUSED_COST operations each, entry_cost) is stacked eight at a time
# first, which XLA fuses (under jax.vmap, a rule of their own takes the batch's way: _in_stacks):
# the Panda's M 8.8 us a call, 19 us stacked at once; not where entries cost more: its C (17,400
# operations an entry) 30 -> 36 us. Measured on the Panda, vmapped, a state, before -> after
# (the numpy module's batch): inverse dynamics 9.5 -> 0.44 us (0.45), forward dynamics 13 ->
# 0.59 (0.81), M 1.06 -> 0.28 (0.37), the Jacobian 0.36 -> 0.29 (0.32), C 6.6 -> 0.69, inverse
# dynamics derivatives 11 -> 1.2; one state a call unchanged (M 9.0 -> 8.8 us), but its link
# poses 79 -> 29 us.
FUSED_COST = 8000
FUSED_STACK = 8
# What writing a value to memory and reading it back costs a batch, in operations (and a
# stack's share): a value worth more, computed again by several loops, is kept
# (passes.kept_values, JAX's _once). Measured on the Panda vmapped, a state, at 60, 150, 400
# and 1000: M 0.37-0.46 us at each (0.75 with only the sines and cosines kept), but its
# inverse dynamics derivatives 3.4, 1.5, 1.1-1.4, 0.9-1.4 (1.3-1.7) and regressor 4.5, 3.9,
# 3.1-3.2, 3.1 (3.6): many values kept, in small stacks, cost more than they save.
KEEP_COST = 400


# Slotted, without a dictionary each: a 64-joint chain's C holds a million of them
@dataclass(frozen=True, slots=True)
class Line:
    lhs: str
    rhs: str
    kind: ClassVar[str] = "line"


@dataclass(frozen=True, slots=True)
class SinCos:
    """``sin, cos = sin(angle), cos(angle)``: one evaluation for both where the language has it."""

    angle: str
    sin: str
    cos: str
    of_inputs: bool = False      # the angle reads only the function's inputs
    kind: ClassVar[str] = "sincos"


# Inputs a caller may leave out where they come last (a robot with free symbols has params
# after them): zeros then.
ZEROS_BY_DEFAULT = ("gains", "restitution")


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

    @property
    def matrix_shape(self) -> tuple[int, int]:
        """The output as a matrix, for languages of matrices alone (CasADi): a vector a
        column, a scalar 1 x 1, an (F, a, b) array its F blocks stacked, (F a) x b."""
        if len(self.shape) < 2:
            return (self.size, 1)
        return (self.size // self.shape[-1], self.shape[-1])

    @property
    def cells(self) -> tuple[tuple[int, int, str], ...]:
        """(row, column, printed expression) of each entry in ``matrix_shape``."""
        columns = self.matrix_shape[1]
        return tuple((k // columns, k % columns, value) for k, value in self.values)


@dataclass(frozen=True)
class Body:
    steps: tuple[Line | SinCos, ...]
    outputs: tuple[Output, ...]
    # For each step and then after the last, the outputs' entries (name, flat index, printed
    # expression) whose values are ready just before it: the first reads only inputs, the last
    # needs the last step. C stores an entry there, not at the end, so that the values it reads
    # need not live to the end of the function (register pressure: the Panda's ID derivatives
    # held half their instructions in spills and reloads with every store at the end). Empty
    # for the languages that assemble their outputs at the end (Backend.c_layout).
    ready: tuple[tuple[tuple[str, int, str], ...], ...] = ()

    @property
    def size(self) -> int:
        """All outputs' entries: one state's results back to back."""
        return sum(o.size for o in self.outputs)


@dataclass(frozen=True)
class Part:
    """One of the static functions a long function is written as in C (PART_CHARACTERS), laid
    out by the templates as a function is (its steps, each output entry where it is ready)."""

    body: Body                  # its steps; ready also saves its values that later parts read
    inputs: tuple[Input, ...]   # the function's inputs, unpacking the entries this part reads
    loads: tuple[tuple[str, int], ...]   # (name, slot of the shared array) of earlier parts'
    joint_trig: ClassVar[tuple] = ()     # the angles' loop is for short functions alone

    @property
    def unwritten(self) -> tuple[str, ...]:
        """The outputs this part stores no entry of."""
        written = {name for entries in self.body.ready for name, _, _ in entries}
        return tuple(o.name for o in self.body.outputs if o.name not in written)


@dataclass(frozen=True)
class SolveLoop:
    """A Solve as the languages with loops write it (program.Solve): once every step is done,
    the columns of its outputs, which hold the right-hand sides, each solved in place by the
    kernel's steps. C loops over the columns, the factors read from the first slots of the
    array the function's parts share, where each is stored as soon as it is set; the kernel is
    straight-line code over every entry, zeros too, so that gcc vectorizes the loop. numpy
    runs the kernel's steps once, on the columns side by side (Function.factors holds the
    values). The columns run over leave out those of zeros at either end, which a solve
    leaves zero."""

    outputs: tuple[str, ...]
    columns: tuple[int, int]                    # from the first to before the last
    loads: tuple[tuple[str, int], ...]          # (name, slot) of each factor
    reads: tuple[tuple[str, str, int], ...]     # (name, output, offset): output[offset + c]
    steps: tuple[Line, ...]
    writes: tuple[tuple[str, int, str], ...]    # (output, offset, printed value)


@dataclass(frozen=True)
class Function:
    name: str
    doc: str
    inputs: tuple[Input, ...]
    body: Body
    ops: OpCount
    parts: tuple[Part, ...] = ()   # the parts C writes it as, in order; () for one function
    shared: int = 0                # the entries of the array the parts share
    # XLA's outputs (Backend.xla) of one state assembled in stacks it fuses into one
    # loop, which computes each entry on its own: only where that costs at most FUSED_COST
    fused: bool = False
    # XLA's: {step index: the names a batch keeps (JAX's _once) after that step}
    once: dict = field(default_factory=dict)
    # The steps in the derivation's order where C's are in the machine's, for the CPython
    # wrapper's lane kernels: each value there is a vector of states, and the machine's order,
    # which holds more values at once, made the Panda's batch of M and of inverse dynamics 8%
    # slower (30 -> 32.5 and 25.6 -> 27.6 ns a state). () where the orders are the same.
    lane_steps: tuple = ()
    solves: tuple[SolveLoop, ...] = ()     # after the steps (and the parts), in order
    # The factors the solves read (SolveLoop.loads' slots), for the languages that assemble
    # them as an output (C reads them from the shared array instead)
    factors: Output | None = None

    @property
    def optional(self) -> int:
        """How many of the last inputs may be left out, zeros then (ZEROS_BY_DEFAULT): Baumgarte's
        gains (the exact constraint) and an impact's restitution (a plastic one)."""
        count = 0
        for i in reversed(self.inputs):
            if i.name not in ZEROS_BY_DEFAULT:
                break
            count += 1
        return count

    @property
    def lanes(self) -> bool:
        """Whether the CPython wrapper has a lane kernel of it (several states a call): not for
        a function written in parts (its lanes would be as long again, for little gain), nor
        for one that solves outputs in a loop of its own."""
        return not (self.parts or self.solves)

    def fuses(self, output: Output) -> bool:
        """Whether ``output`` is assembled in stacks of FUSED_STACK first (JAX's _fused): one of
        more entries than that, of a fused function."""
        return self.fused and output.size > FUSED_STACK

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
        operations = self.ops.mul + self.ops.add
        if self.parts or len(trig) < 2 or operations > TRIG_LOOP_OPERATIONS * len(trig):
            return ()
        return trig


@dataclass(frozen=True)
class Module:
    """What the templates lay out. Text from the robot file (``robot_file``, ``source``) is
    shown only through the backend's ``text`` filter, which makes it inert in a comment."""

    name: str
    dof: int                 # nv: the size of qd, qdd and tau
    nq: int                  # the size of q (nv + 1 with a floating base's quaternion)
    joints: str              # "7 joints", "6 joints and 2 mimic joints"
    # Each joint with a coordinate, in q's order: (name, identifier, first index in q, in qd);
    # a floating base's is root_joint, 7 numbers of q and 6 of qd.
    coordinates: tuple[tuple[str, str, int, int], ...]
    floating: bool           # a floating base's 7 and 6 lead q and qd
    # Each kind of joint of several coordinates: (kind, its joints' names, its layout's lines)
    several: tuple[tuple[str, str, tuple[str, ...]], ...]
    parameters: tuple[str, ...]
    robot_file: str          # the file's base name: the output is the same from any folder
    source: str              # where the file says its numbers come from
    digest: str
    version: str
    convention: str
    dh: tuple[tuple[str, ...], ...]   # (joint, a, alpha, d, theta) of each link, as text, or
                                      # (joint, origin xyz, origin rpy, axis) in convention urdf
    tree: tuple[tuple[str, ...], ...]  # a tree's (link, parent, gamma, b) per link; () a chain's
    mimics: tuple[tuple[str, ...], ...]  # (link, followed link, multiplier, offset) of each
                                         # mimic joint
    frames: tuple[tuple[str, str], ...]   # the named frames' (name, identifier), in order
    # What each row of the constraints' quantities holds ("loop x", "tendon"), in order; the
    # tendons' names, in order
    constraints: tuple[str, ...]
    tendons: tuple[str, ...]
    # A closed-loop mechanism's actuated joints (closed_loop_inverse_dynamics' tau_a), and q
    # where the constraints hold (the file's closed_at), printed; () without constraints
    actuated: tuple[str, ...]
    closed_at: tuple[str, ...]
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
    real: str = "double"     # the C type of every number (float: --precision single)
    # Where the files of one run name their set: replaced by a digest of them all (render). No
    # text from a robot file can hold it: names have no NUL, and the texts' filters escape it.
    code_set: ClassVar[str] = "\0symdyn code set\0"

    @property
    def arrays(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The module's constant arrays by name: the limits, then CLOSED_AT."""
        return self.limits + ((("CLOSED_AT", self.closed_at),) if self.closed_at else ())

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
    def has_fused_outputs(self) -> bool:
        return any(f.fuses(o) for f in self.functions for o in f.body.outputs)

    fused_stack: ClassVar[int] = FUSED_STACK

    @property
    def keeps_values(self) -> bool:
        return any(f.once for f in self.functions)

    @property
    def has_joint_trig(self) -> bool:
        return any(f.joint_trig for f in self.functions)

    # (quantity, the function of its derivatives in q and qd, of its last input): JAX's jvp of
    # each quantity from symdyn's derivatives, where the module has them
    JVP_RULES: ClassVar[tuple] = (
        ("inverse_dynamics", "inverse_dynamics_derivatives", "mass_matrix"),
        ("forward_dynamics", "forward_dynamics_derivatives", None))

    @property
    def jvp_rules(self) -> tuple[tuple[str, str, str | None], ...]:
        """The JVP_RULES this module can take: its derivative functions written, q's own
        coordinates (no floating base, whose derivatives are along its velocities) and no free
        parameters (whose derivatives none of them gives). jax.jacfwd of inverse dynamics
        through them took a fifth of the time of tracing it (the Panda, one state)."""
        names = {f.name for f in self.functions}
        if self.nq != self.dof or self.parameters:
            return ()
        return tuple(rule for rule in self.JVP_RULES
                     if rule[0] in names and rule[1] in names and rule[2] in names | {None})


@dataclass(frozen=True)
class Header:
    """What a module's header and constants say of its robot, as the robot file gives it."""

    name: str
    dof: int
    nq: int
    joints: str                            # as Module.joints
    coordinates: tuple[tuple[str, str, int, int], ...]   # as Module.coordinates
    floating: bool                         # as Module.floating
    several: tuple                         # as Module.several
    parameters: tuple[sympy.Symbol, ...]   # the robot's free symbols, in its order
    robot_file: str          # the file's base name: the output is the same from any folder
    source: str
    digest: str
    convention: str
    dh: tuple[tuple[str, ...], ...]        # as Module.dh
    tree: tuple[tuple[str, ...], ...]      # as Module.tree
    mimics: tuple[tuple[str, ...], ...]    # as Module.mimics
    frames: tuple[tuple[str, str], ...]    # as Module.frames
    constraints: tuple[str, ...]           # as Module.constraints
    tendons: tuple[str, ...]               # as Module.tendons
    actuated: tuple[str, ...]              # as Module.actuated
    closed_at: tuple[sympy.Expr, ...]      # q where the constraints hold; () without them
    gravity: tuple[str, ...]
    placements: tuple[tuple[str, str, str], ...]
    limits: tuple                          # each joint's bounds (JointKind.bounds), in q's
                                           # order; () where the robot file gives no limits
    # The regressor's columns and their values, where the module has a regressor's function
    standard: tuple[tuple[str, sympy.Expr], ...]
    variant: str
    angles: str
    branched: bool                         # a link (or the base) with two children or more
    docs: dict                             # quantity -> the function's docstring


def function_code(program: Program, doc: str, printer, c_layout: bool = False,
                  xla: bool = False, machine_order: bool = False) -> Function:
    """A program printed; in ``c_layout``, its outputs' entries placed where they are ready
    and a long function cut into parts (PART_CHARACTERS); for ``xla``, whether its outputs
    are to be fused (Function.fused) and what it keeps (Function.once); with
    ``machine_order``, its steps in the order of schedule.order_for_machine."""
    derived = program
    if machine_order:
        program = order_for_machine(program, SCHEDULED_STEPS)
    used = program.cached(_symbols_read)
    inputs = _inputs_reading(program, {s.name for s in used})
    body = body_code(program, printer, c_layout, derived)
    body, solves, factors = _solve_loops(program, body, printer)
    first = len(program.output(program.solves[0].factors).values) if solves else 0
    parts, shared = _parts(program, body, first) if c_layout else ((), 0)
    shared = max(shared, first)
    fused = xla and entry_cost(program, FUSED_COST) <= FUSED_COST
    once = (_once_after(body, {s.name for s in kept_values(program, KEEP_COST)})
            if xla else {})
    lane_steps = () if program is derived else _in_order(body.steps, derived)
    return Function(program.name, doc, inputs, body, op_count(program), parts, shared, fused,
                    once, lane_steps, solves, factors)


def _solve_loops(program: Program, body: Body,
                 printer) -> tuple[Body, tuple[SolveLoop, ...], Output | None]:
    """``body`` with its solves' factors no output: in C's layout, stored in the shared array's
    first slots as soon as each is set; the solves' loops (SolveLoop), whose kernels read them
    there; and the factors' output, for the other languages to assemble."""
    if not program.solves:
        return body, (), None
    (factors,) = {solve.factors for solve in program.solves}
    ready = tuple(tuple(("symdyn_shared" if name == factors else name, k, text)
                        for name, k, text in entries) for entries in body.ready)
    loops = []
    for solve in program.solves:
        kernel = solve.kernel
        given, column = kernel.inputs
        names = {s: sympy.Symbol(f"symdyn_f{k}") for k, s in enumerate(given.values)}
        names.update((s, sympy.Symbol(f"symdyn_b{i}")) for i, s in enumerate(column.values))
        names.update((a.lhs, sympy.Symbol(f"symdyn_{a.lhs.name}")) for a in kernel.assignments)
        kernel = rename(kernel, names)
        outputs = [program.output(name) for name in solve.outputs]
        columns = outputs[0].shape[1]
        rows = [(out.name, i * columns) for out in outputs
                for i in range(len(out.values) // columns)]
        solved = [c for c in range(columns)
                  if any(out.values[k] != 0 for out in outputs
                         for k in range(c, len(out.values), columns))]
        # each sum's terms in the order their operands are set (printers.term_order): Solo-12
        # standing's constrained FD derivatives 10.2 -> 9.05 us (TALOS's FD derivatives, whose
        # sums are short, unchanged)
        printer.term_order = {a.lhs: k for k, a in enumerate(kernel.assignments)}
        steps = tuple(Line(a.lhs.name, printer.doprint(a.rhs)) for a in kernel.assignments)
        writes = tuple((*row, printer.doprint(v)) for row, v in zip(rows, kernel.outputs[0].values))
        printer.term_order = None
        loops.append(SolveLoop(
            solve.outputs, (solved[0], solved[-1] + 1) if solved else (0, 0),
            tuple((s.name, k) for k, s in enumerate(kernel.inputs[0].values)),
            tuple((s.name, *row) for s, row in zip(kernel.inputs[1].values, rows)),
            steps, writes))
    returned = {out.name for out in program.returned}
    outputs = tuple(o for o in body.outputs if o.name in returned)
    (values,) = (o for o in body.outputs if o.name == factors)
    return Body(body.steps, outputs, ready), tuple(loops), values


def _in_order(steps, program: Program) -> tuple:
    """``steps``, printed from another order of ``program``'s steps, in ``program``'s order."""
    position = {a.lhs.name: k for k, a in enumerate(program.assignments)}
    return tuple(sorted(steps, key=lambda step: min(position[n] for n in _names(step))))


def _once_after(body: Body, kept: set[str]) -> dict[int, tuple[str, ...]]:
    """Function.once: the kept names set so far, after the step before the first that reads
    one of them (or after the last step, if only outputs do): a few stacks, not one a name."""
    once: dict[int, tuple[str, ...]] = {}
    pending: dict[str, None] = {}       # in order
    for k, step in enumerate(body.steps):
        text = step.rhs if step.kind == "line" else step.angle
        if pending and not pending.keys().isdisjoint(_read(text)):
            once[k - 1], pending = tuple(pending), {}
        pending.update((name, None) for name in _names(step) if name in kept)
    if pending:
        once[len(body.steps) - 1] = tuple(pending)
    return once


def _symbols_read(program: Program) -> frozenset:
    return frozenset(symbols_in([a.rhs for a in program.assignments]
                                + [v for o in program.outputs for v in o.values]))


def _inputs_reading(program: Program, names) -> tuple[Input, ...]:
    """The program's inputs, each unpacking the entries of ``names``."""
    return tuple(Input(arg.name, len(arg.values),
                       tuple((k, s.name) for k, s in enumerate(arg.values) if s.name in names))
                 for arg in program.inputs)


def _parts(program: Program, body: Body, first: int = 0) -> tuple[tuple[Part, ...], int]:
    """``body`` cut into parts of about PART_CHARACTERS each (none if it is shorter), each
    saving into the shared array (at the step that sets it) what a later part reads, and
    loading at its start what it reads of earlier ones; and the array's size. A slot is free
    again for the values set in the last part that reads it (which has loaded it by then): the
    array holds about what crosses one boundary, not every value that crosses any. Its slots
    before ``first`` are the solves' (SolveLoop)."""
    steps = body.steps
    bounds = _bounds(body)
    count = len(bounds) - 1
    if count < 2:
        return (), 0
    setter, reads = {}, []              # a name -> the part that sets it; each part's reads
    for p in range(count):
        read = set()
        for step in steps[bounds[p]:bounds[p + 1]]:
            setter.update((name, p) for name in _names(step))
            read.update(_read(step.rhs if step.kind == "line" else step.angle))
        for ready in body.ready[bounds[p] + (p > 0):bounds[p + 1] + 1]:
            for *_, text in ready:
                read.update(_read(text))
        reads.append(read)
    last = {}                           # a value read by a later part -> the last such part
    for p, read in enumerate(reads):
        last.update((name, p) for name in read if setter.get(name, p) < p)
    freed: list[list[str]] = [[] for _ in range(count)]    # by the part that reads them last
    for name, reader in last.items():
        freed[reader].append(name)
    slot, free, size = {}, deque(), first      # free: the slots to reuse, oldest first
    for p in range(count):
        free.extend(sorted(slot[name] for name in freed[p]))
        for step in steps[bounds[p]:bounds[p + 1]]:
            for name in _names(step):
                if name in last and free:
                    slot[name] = free.popleft()
                elif name in last:
                    slot[name], size = size, size + 1
    parts = []
    for p in range(count):
        start, end = bounds[p], bounds[p + 1]
        ready = [list(body.ready[0]) if p == 0 else []]
        for step, stores in zip(steps[start:end], body.ready[start + 1:end + 1]):
            ready.append(list(stores) + [("symdyn_shared", slot[name], name)
                                         for name in _names(step) if name in slot])
        loads = sorted(((name, slot[name]) for name in reads[p] if setter.get(name, p) < p),
                       key=lambda load: load[1])
        parts.append(Part(Body(steps[start:end], body.outputs, tuple(map(tuple, ready))),
                          _inputs_reading(program, reads[p]), tuple(loads)))
    return tuple(parts), size


def _bounds(body: Body) -> list[int]:
    """Where the parts of ``body`` begin, and its end: a part ends before the step that would
    take its C beyond PART_CHARACTERS (each line as the template writes it, about), the output
    entries stored after a step counted with it."""
    def length(k):          # step k's line and those of the output entries stored after it
        step = body.steps[k]
        return (len(step.lhs) + len(step.rhs) + 24 if step.kind == "line"
                else 2 * len(step.angle) + len(step.sin) + len(step.cos) + 60) + stored(k + 1)

    def stored(k):
        return sum(len(name) + len(text) + 16 for name, _, text in body.ready[k])
    first = stored(0)       # before any step
    lengths = [length(k) for k in range(len(body.steps))]
    if first + sum(lengths) <= PART_CHARACTERS:
        return [0, len(body.steps)]
    bounds, filled = [0], first
    for k, size in enumerate(lengths):
        if filled and filled + size > PART_CHARACTERS:
            bounds.append(k)
            filled = 0
        filled += size
    return bounds + [len(body.steps)]


def _names(step) -> tuple[str, ...]:
    """The names a step sets."""
    return (step.lhs,) if step.kind == "line" else (step.sin, step.cos)


# A name in printed code: not a number's exponent (1e-5) or suffix (1.5f), nor a member.
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def _read(text: str) -> list[str]:
    """The names printed code reads (and the functions it calls), from its text: a tenth of
    the time of walking its expression, for the many lines of a long function."""
    return _NAME.findall(text)


def body_code(program: Program, printer, ready: bool = True,
              derived: Program | None = None) -> Body:
    """The assignments and outputs as printed code; sin and cos of one angle become one step.
    ``derived``: the program as the other languages print it, where ``program`` is its steps
    in another order."""
    partner = _sin_cos_pairs(program)
    inputs = set(program.input_symbols)
    # Most lines are arithmetic, the same text in Python and C: printed once, for both (not
    # for single-precision C, whose numbers read otherwise).
    printer.shared = (derived or program).cached(_common_text if printer._literal is literal
                                                 else _common_single_text)
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
    return Body(tuple(steps), outputs, _ready(steps, outputs) if ready else ())


def _ready(steps, outputs) -> tuple:
    """Body.ready: each output entry at the step after the last one whose value it reads."""
    after = {}          # symbol's name -> the index of the step that sets it, plus one
    for k, step in enumerate(steps, start=1):
        for name in _names(step):
            after[name] = k
    ready: list[list] = [[] for _ in range(len(steps) + 1)]
    for printed in outputs:
        for k, text in printed.values:
            at = max((after.get(name, 0) for name in _read(text)), default=0)
            ready[at].append((printed.name, k, text))
    return tuple(tuple(entries) for entries in ready)


def _common_text(program: Program) -> dict:
    """{expression: its code where it reads the same in every language}, filled as the first
    language prints the program and read by the next (printers._ArithmeticMixin.shared)."""
    return {}


def _common_single_text(program: Program) -> dict:
    """_common_text for the printers of single-precision code."""
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


def module_code(header: Header, programs: list, backend: Backend, values=None,
                base_names=(), let_go: bool = False) -> Module:
    """The context of one module: ``programs`` printed by ``backend``, under ``header``;
    ``values`` are the free symbols fixed at generation, ``base_names`` beta's names where the
    base parameters' functions are written. Each program is let go once printed, and with
    ``let_go`` the list ``programs`` is emptied, so that a caller holding no other reference
    frees them one by one (generate's last language: a 64-joint chain's programs, 700 MB, gone
    before its C is rendered)."""
    printer = backend.printer()
    ready = [p if solve_operations(p) >= backend.loop_operations else unrolled(p)
             for p in programs]
    if let_go:
        programs.clear()
    parameters = _parameters(ready)
    names = identifiers(header.parameters, ready)

    def code(program: Program) -> Function:
        program = rename(program, names)
        return _function_code(program, header.docs[program.name], printer, backend,
                              backend.c_layout and not header.branched)
    ready.reverse()
    functions = []
    while ready:        # popped, so that nothing here holds a program once it is printed
        functions.append(code(ready.pop()))
    fixed = tuple((str(s), printer.doprint(v)) for s, v in (values or {}).items())
    return Module(
        name=header.name, dof=header.dof, nq=header.nq, joints=header.joints,
        coordinates=header.coordinates, floating=header.floating,
        several=header.several, parameters=parameters,
        robot_file=header.robot_file, source=header.source, digest=header.digest,
        version=__version__, convention=header.convention, dh=header.dh, tree=header.tree,
        mimics=header.mimics, frames=header.frames, constraints=header.constraints,
        tendons=header.tendons, actuated=header.actuated,
        closed_at=tuple(printer.doprint(v) for v in header.closed_at),
        gravity=header.gravity, placements=header.placements,
        limits=_limits(header, printer, backend.infinity),
        **_standard_parameters(header.standard, printer),
        base_parameters=tuple(base_names),
        functions=tuple(functions),
        fixed=fixed, variant=header.variant, angles=header.angles,
        real=getattr(printer, "real", "double"))


LIMITS = (("Q_MIN", "lower", -1), ("Q_MAX", "upper", 1), ("QD_MAX", "velocity", 1),
          ("TAU_MAX", "effort", 1))


def _limits(header: Header, printer, infinity: str) -> tuple:
    """The joints' limits as printed arrays (Q_MIN and Q_MAX of size nq, QD_MAX and TAU_MAX of
    size nv), infinite where unbounded: each joint's kind's bounds, as Pinocchio's model has
    them (a floating base's first, its quaternion's entries within [-1, 1]); none at all for
    a robot file without limits."""
    if not header.limits:
        return ()

    def text(x):
        return ("-" if x < 0 else "") + infinity if x in (sympy.oo, -sympy.oo) else \
            printer.doprint(x)
    return tuple((name, tuple(text(x) for joint in header.limits for x in joint[key]))
                 for name, key, _ in LIMITS)


def _standard_parameters(standard, printer) -> dict:
    """The regressor's column names and, where their values are all numbers, the printed
    values."""
    numeric = all(v.is_number for _, v in standard)
    return {"standard_parameters": tuple(name for name, _ in standard),
            "standard_values": tuple(printer.doprint(v) for _, v in standard) if numeric else ()}


def _function_code(program: Program, doc: str, printer, backend: Backend,
                   machine_order: bool) -> Function:
    try:
        return function_code(program, doc, printer, backend.c_layout, backend.xla,
                             machine_order)
    except EmitError as exc:
        raise EmitError(f"{program.name}: {exc}") from None


def _parameters(programs) -> tuple[str, ...]:
    """The free symbols the code still takes (those not fixed at generation), in robot order."""
    return tuple(dict.fromkeys(str(s) for p in programs for arg in p.inputs
                               if arg.name == "params" for s in arg.values))
