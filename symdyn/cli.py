"""The ``symdyn`` command: a thin layer over the library API.

Problems a user can fix (a bad robot file, an unwritable folder) are reported in one line, and the
command exits with code 2, as click does for misuse.
"""
from __future__ import annotations

import contextlib
import math
import time
import warnings
from pathlib import Path

import click
import numpy as np

from .api import generate as generate_files
from .api import resolve_values
from .check import check as check_robot
from .derive import QUANTITIES, lagrange, newton_euler
from .emit.backends import BACKENDS
from .emit.cache import CacheWarning
from .emit.write import check_names, write_files
from .errors import SymdynError
from .identify import excitation
from .identify import identify as identify_parameters
from .identify.data import blocks as measurement_blocks
from .identify.data import write_trajectory
from .identify.estimate import GROUPS, POORLY_EXCITED
from .identify.update import updated_robot_file
from .program import op_count, optimize_all
from .report import FORMATS, printout
from .report.drawing import VIEWS, configuration
from .report.drawing import draw as draw_robot
from .robot import import_robot, load_robot, table, variant
from .robot.export import urdf_left_out, urdf_text
from .robot.export_mjcf import mjcf_left_out, mjcf_text
from .robot.expr import as_text
from .robot.file import NAME_RULE, name_problem
from .robot.mjcf import read_chain as mjcf_chain
from .robot.rigid import QUARTER_TOLERANCE
from .robot.spec import ROOTS
from .robot.urdf import read_chain as urdf_chain
from .robot.write import FORMS
from .version import __version__


class UserError(click.ClickException):
    exit_code = 2


class Progress:
    """Says what long work is doing, on stderr, with the time since the command started."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.start = time.perf_counter()

    def __call__(self, message: str):
        if not self.quiet:
            click.echo(f"[{time.perf_counter() - self.start:6.2f}s] {message}", err=True)


METHODS = {"newton-euler": newton_euler, "lagrange": lagrange}


def _identifiable(robot, command: str):
    """``robot``, which ``command`` (identification) takes on a fixed base with free one-axis
    joints alone: a floating base's motion is not a joint trajectory, and its data would need
    the base's pose, velocity and the wrench the ground puts on it; a spherical joint's
    trajectory is a quaternion's, which the excitation's Fourier series of joint angles and
    the measurement files' one column per joint do not hold; an elastic joint's link moves
    apart from its motor, whose torque the files hold; constraints hold the joints to a
    manifold that free trajectories leave (a four-bar's excitation opened its loop by 0.47 m)
    and add their forces to the torques, which the tree's regressor does not hold."""
    if robot.constraints:
        names = ", ".join(c.name for c in robot.constraints)
        raise UserError(f"{robot.name}: {command} takes robots without constraints, and this "
                        f"one's ({names}) hold its joints: free joint trajectories would break "
                        "them, and the tree's regressor leaves their forces out")
    if robot.floating:
        raise UserError(f"{robot.name}: {command} takes fixed-base robots: "
                        "a floating base's data would need its pose, velocity and the contact "
                        "wrenches on it (its base parameters are in generate's output)")
    if robot.several:
        names = ", ".join(robot.joint_names(robot.several))
        raise UserError(f"{robot.name}: {command} takes revolute and prismatic joints: "
                        f"a {robot.several[0].kind.name} joint's ({names}) motion is not one "
                        "number's (its base parameters are in generate's output)")
    if robot.elastic:
        names = ", ".join(robot.joint_names(robot.elastic))
        raise UserError(f"{robot.name}: {command} takes rigid joints: an elastic joint's "
                        f"({names}) link is driven by its spring, not by the motor's torque a "
                        "measurement file holds, and its motor's rotor and friction are not in "
                        "the regressor (identify the rigid robot, its motors locked)")
    return robot


def _load(robot_file, without=(), snap_angles=0.0, quiet=False):
    """The robot, its file's warnings said on stderr unless ``quiet``."""
    try:
        robot = load_robot(robot_file, without=without, snap_angles=snap_angles)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    if quiet:
        return robot
    for warning in robot.spec.warnings:
        click.echo(f"warning: {warning}", err=True)
    misses = [reading for reading in robot.spec.angle_readings if reading.exact is None]
    if misses:
        click.echo(f"warning: {robot_file}: {_near_misses(misses)} kept as written; "
                   + _snapping_saves(robot, robot_file, without, misses), err=True)
    return robot


def _near_misses(misses) -> str:
    shown = ", ".join(reading.miss() for reading in misses[:3])
    more = f" and {len(misses) - 3} more" if len(misses) > 3 else ""
    return (f"{'an angle' if len(misses) == 1 else 'angles'} near a multiple of pi/12 "
            f"({shown}{more})")


def _snapping_saves(robot, robot_file, without, misses) -> str:
    """What --snap-angles would do: the tolerance that takes every near miss as its angle, and
    what it would make of the operations of tau, the quantity every other is built like (a
    quarter turn saves many; the exact sine of 5 pi/12, a sum of roots, may cost some)."""
    tolerance = float(f"{10 ** math.ceil(math.log10(max(r.offset for r in misses))):.0e}")
    taken = f"--snap-angles {tolerance:.0e} takes "
    taken += "it as that angle" if len(misses) == 1 else "them as those angles"
    try:        # a hint never fails the command it is given with
        snapped_robot = load_robot(robot_file, without=without, snap_angles=tolerance)
    except SymdynError as exc:
        return (f"{taken}, a different robot, which this file does not make: "
                f"{getattr(exc, 'message', exc)}")
    kept, snapped = (op_count(optimize_all([newton_euler(model).program("inverse_dynamics")])[0])
                     for model in (robot, snapped_robot))
    change = "cuts" if (snapped.mul, snapped.add) < (kept.mul, kept.add) else "changes"
    return (f"{taken}, a different robot, and {change} inverse_dynamics from {kept.mul} / "
            f"{kept.add} to {snapped.mul} / {snapped.add} multiplications / additions")


def _derive(robot_file, progress, method="newton-euler", without=(), snap_angles=0.0):
    robot = _load(robot_file, without, snap_angles)
    progress(f"{robot.name} ({table.joints(robot.spec)}) by {method}")
    return robot, _route(method, robot, progress)


def _route(method, robot, progress):
    """The robot's Dynamics by ``method``; a route that cannot take the robot (Lagrange's, a
    floating base) is the user's error."""
    try:
        return METHODS[method](robot, progress=progress)
    except SymdynError as exc:
        raise UserError(str(exc)) from None


ROBOT = click.argument("robot_file", metavar="ROBOT")   # read (and refused) by load_robot


class FiniteRange(click.FloatRange):
    """click's FloatRange, which lets NaN through every bound, without NaN (one line, exit 2,
    as every bad input)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            raise UserError(f"{param.opts[0] if param else 'a number'}: {value!r} is not a "
                            f"finite number (expected {self.min:g} to {self.max:g})")
        return number


SNAP_RANGE = FiniteRange(0, 1e-3)
SNAP = click.option(
    "--snap-angles", type=SNAP_RANGE, default=0.0,
    help="Take numbers of angle fields this close (rad) to a multiple of pi/12 as that multiple, "
         "as numbers within a few units in the last place always are (1e-5 takes 1.5708 as "
         "pi/2).")
SET = click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
                   help="Fix a free symbol of the robot to a number (repeatable).")


def _settings(settings) -> dict:
    values = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        if not sep or not name.strip():
            raise UserError(f"--set {setting!r}: expected NAME=VALUE, such as g=9.81")
        values[name.strip()] = value.strip()
    return values


WITHOUT = click.option(
    "--without", multiple=True, type=click.Choice(list(variant.PARTS)),
    help="Leave out the file's friction, gravity or joint elasticity (repeatable; elasticity: "
         "the elastic joints rigid, each motor locked to its link): a variant named "
         "<robot>_no_friction, <robot>_no_gravity, <robot>_no_elasticity, the file unchanged.")


METHOD = click.option("--method", type=click.Choice(list(METHODS)), default="newton-euler",
                      show_default=True, help="The derivation route.")


@click.group()
@click.version_option(__version__, prog_name="symdyn")
@click.pass_context
def main(ctx):
    """Symbolic equations of motion for robot arms, hands, legged robots and humanoids, from a
    DH table, a URDF or an MJCF file to Python, C, CasADi and JAX."""
    ctx.with_resource(_warnings_as_lines())


@contextlib.contextmanager
def _warnings_as_lines():
    """The library's warnings (a refused cache, a damaged entry made again) as one line each
    on stderr, as the command's own warnings are, not Python's two-line form."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", CacheWarning)
        warnings.showwarning = (lambda message, *rest, **kwargs:
                                click.echo(f"warning: {message}", err=True))
        yield


@main.command()
@ROBOT
@SNAP
@METHOD
@click.option("--lang", "langs", type=click.Choice(sorted(BACKENDS)), multiple=True,
              help="Language of the generated code (repeatable; python by default).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=".",
              show_default=True, help="Folder the files are written to (made if missing).")
@click.option("--quantity", "-Q", "quantities", multiple=True,
              type=click.Choice(list(QUANTITIES)),
              help="Write only this function (repeatable); all of them by default.")
@SET
@WITHOUT
@click.option("--precision", type=click.Choice(["double", "single"]), default="double",
              show_default=True, help="With --lang c: single writes the C with floats "
              "throughout (an FPU without doubles: Cortex-M4F, M7), no double anywhere.")
@click.option("--build", is_flag=True,
              help="With --lang c: also compile the C into a Python extension module.")
@click.option("--quick-build", is_flag=True,
              help="With --build: compile without the compiler's optimisation (gcc -O0), in a "
                   "fraction of the time, for slower code: a large tree's first try.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the files written.")
def generate(robot_file, snap_angles, method, langs, out_dir, quantities, settings, without,
             precision, build, quick_build, quiet):
    """Derive ROBOT's dynamics and write them as code into the output folder.

    Progress goes to standard error: each quantity as it is derived, then each program as it
    is optimized and each language as it is written, with the time that optimizing and
    writing have left (from their rate so far)."""
    langs = langs or ("python",)
    if build and "c" not in langs:
        raise click.UsageError("--build goes with --lang c")
    if quick_build and not build:
        raise click.UsageError("--quick-build goes with --build")
    if precision == "single" and set(langs) != {"c"}:
        raise click.UsageError("--precision single goes with --lang c alone")
    if precision == "single" and build:
        raise click.UsageError("--build makes the double-precision Python extension; "
                               "--precision single writes C for a controller")
    values = _settings(settings)
    progress = Progress(quiet)
    robot = _load(robot_file, without, snap_angles)
    try:        # before the derivation: a folder that cannot take the files is known now
        check_names(out_dir, [pattern.format(name=robot.name) for lang in langs
                              for _, pattern in BACKENDS[lang].files])
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    progress(f"{robot.name} ({table.joints(robot.spec)}) by {method}")
    dynamics = _route(method, robot, progress)
    if robot.constraints and dynamics.constraint_problem:
        raise UserError(f"{robot.spec.path}: constraints: {dynamics.constraint_problem}")
    if robot.actuated and dynamics.mechanism_problem:     # the file asks for what cannot be
        raise UserError(f"{robot.spec.path}: actuated: {dynamics.mechanism_problem}")
    if dynamics.singular and not quantities:
        click.echo(f"warning: {dynamics.singular}; forward_dynamics and its derivatives are "
                   "left out", err=True)
    try:
        paths = generate_files(dynamics, langs, out_dir, quantities=quantities or None,
                               values=values, precision=precision, build=build,
                               quick=quick_build, keep_derivations=False, progress=progress)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    if build:
        progress(f"built the Python extension {paths[-1]}; in Python, "
                 f"{_compile_call(robot_file, method, without, snap_angles, quantities, values)}"
                 " imports it (from the cache, without building again)")
    progress("done")
    for path in paths:
        click.echo(str(path))


def _compile_call(robot_file, method, without, snap_angles, quantities, values) -> str:
    """The Python that imports what ``generate --build`` built: the same robot, route,
    variant, functions and values make the same C, which the cache then holds."""
    load = [repr(str(robot_file))] + ([f"without={list(without)!r}"] if without else []) + (
        [f"snap_angles={snap_angles!r}"] if snap_angles else [])
    route = "lagrange" if method == "lagrange" else "newton_euler"
    options = ([f"quantities={list(quantities)!r}"] if quantities else []) + (
        [f"values={dict(values)!r}"] if values else [])
    return (f"import symdyn; module = symdyn.compile(symdyn.{route}(symdyn.load_robot("
            + ", ".join(load) + "))" + "".join(f", {o}" for o in options) + ")")


QUIET = click.option("-q", "--quiet", is_flag=True,
                     help="No progress or notes on standard error (warnings stay).")


@main.command()
@ROBOT
@SNAP
@METHOD
@WITHOUT
@QUIET
def info(robot_file, snap_angles, method, without, quiet):
    """Show ROBOT's DH table, free symbols and the operation count of its dynamics."""
    robot, dynamics = _derive(robot_file, Progress(quiet=True), method, without, snap_angles)
    spec = robot.spec
    click.echo(f"{spec.name}: {table.joints(spec)}, "
               + ("joints placed as in URDF" if spec.convention == "urdf"
                  else f"{spec.convention} DH")
               + (f"\nsource: {spec.source}" if spec.source else ""))
    click.echo("")
    placed = table.placements(spec)
    for shown in (table.geometry(spec), table.inertial(spec), *([placed] if placed else [])):
        click.echo(f"{shown.caption}:")
        for line in table.columns([shown.header] + [[table.text(c) for c in row]
                                                    for row in shown.rows]):
            click.echo(f"  {line}")
        click.echo("")
    free = ", ".join(str(p) for p in robot.parameters) or "none (all values numeric)"
    click.echo(f"free symbols: {free}")
    click.echo(f"gravity: [{', '.join(as_text(g) for g in spec.gravity)}]"
               + (" in the world" if spec.base else ""))
    click.echo("")
    click.echo("operation counts, mul / add (function calls), as derived -> optimized:")
    programs, derived = [], []
    for name in dynamics.available:
        start = time.perf_counter()
        made = dynamics.programs(name)
        programs += made
        derived += [time.perf_counter() - start] + [0.0] * (len(made) - 1)
    width = max(len(program.name) for program in programs)
    start = time.perf_counter()
    optimized = optimize_all(programs)      # as generate optimizes them
    optimizing = time.perf_counter() - start
    for program, done, seconds in zip(programs, optimized, derived):
        before, after = op_count(program), op_count(done)
        click.echo(f"  {program.name:<{width}}  {before.mul:>5} / {before.add:<5} -> "
                   f"{after.mul:>5} / {after.add:<5} ({after.calls} calls)   derived in "
                   f"{1000 * seconds:.0f} ms")
    click.echo(f"  all optimized in {1000 * optimizing:.0f} ms")


@main.command()
@ROBOT
@SNAP
@METHOD
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text, markdown (renders on GitHub), latex (a document for pdflatex) or "
                   "html (a self-contained page).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write to this file instead of standard output.")
@WITHOUT
@QUIET
def derive(robot_file, snap_angles, method, fmt, output, without, quiet):
    """Print ROBOT's derivation step by step, in the notation of Craig's and Spong's books."""
    robot, dynamics = _derive(robot_file, Progress(quiet=quiet or output is None), method,
                              without, snap_angles)
    files = _picture(robot, fmt, output, quiet)
    name = next(iter(files), None)
    picture = files[name].decode() if fmt == "html" and name else name
    text = printout(dynamics).render(fmt, picture)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        write_files({Path(output).name: text, **({} if fmt == "html" else files)},
                    Path(output).parent)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    click.echo(output)


# The picture a printout shows beside its tables: inline in HTML, a file beside it for
# markdown (SVG) and LaTeX (PDF, which pdflatex includes).
PICTURES = {"html": "svg", "markdown": "svg", "latex": "pdf"}


def _picture(robot, fmt: str, output, quiet: bool) -> dict[str, bytes]:
    """{file name: bytes} of the printout's picture (none for text, or for markdown and
    LaTeX on standard output, which have no folder to put it in); a warning where it cannot
    be drawn."""
    if fmt not in PICTURES or (output is None and fmt != "html"):
        return {}
    stem = Path(output).stem if output else robot.name
    try:
        picture = draw_robot(robot, configuration(robot, None), "iso", PICTURES[fmt])
    except SymdynError as exc:
        if not quiet:
            click.echo(f"note: the printout has no picture: {exc}", err=True)
        return {}
    if fmt == "html":       # inline, from its <svg> on
        picture = picture[picture.index(b"<svg"):]
    return {f"{stem}-frames.{PICTURES[fmt]}": picture}


@main.command()
@ROBOT
@click.option("--snap-angles", type=SNAP_RANGE,
              help="Take numbers of angle fields this close (rad) to a multiple of pi/12 as that "
                   "multiple; with --urdf, the URDF's too, as import does (default: 0 for "
                   f"ROBOT, import's {QUARTER_TOLERANCE:g} for the URDF).")
@click.option("--states", default=100, show_default=True, type=click.IntRange(2, 100000),
              help="Random states to compare on.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**63 - 1),
              help="Seed of the random states.")
@click.option("--urdf", type=click.Path(dir_okay=False),
              help="Compare with Pinocchio's model of this URDF (the one ROBOT was imported "
                   "from), not of ROBOT itself.")
@click.option("--mjcf", type=click.Path(dir_okay=False),
              help="Compare with MuJoCo's model of this MJCF file (the one ROBOT was imported "
                   "from) as well: M, h, g, tau and the sites' poses and Jacobians.")
@click.option("--base", help="With --urdf or --mjcf: the chain's first link, as given to import.")
@click.option("--tip", help="With --urdf or --mjcf: the chain's last link, as given to import.")
@WITHOUT
@click.option("-q", "--quiet", is_flag=True, help="Print only the table: no progress, no "
              "warnings of the robot file's.")
def check(robot_file, snap_angles, states, seed, urdf, mjcf, base, tip, without, quiet):
    """Derive ROBOT by Newton-Euler and by Lagrange and check one against the other, against
    the structure of rigid-body dynamics, against Pinocchio, and with --mjcf against MuJoCo;
    exit 1 on any disagreement."""
    if (base or tip) and urdf is None and mjcf is None:
        raise click.UsageError("--base and --tip go with --urdf or --mjcf")
    robot = _load(robot_file, without, snap_angles or 0.0, quiet)
    for path, reader, options in ((urdf, urdf_chain, {}),
                                  (mjcf, mjcf_chain, {"free_bodies": robot.free_bodies})):
        if path is None:
            continue
        try:    # the chain is read as the importer reads it: a bad file is refused the same way
            reader(path, base, tip, root=robot.spec.root, **options)
        except SymdynError as exc:
            raise UserError(str(exc)) from None
    rows = check_robot(robot, states=states, seed=seed, progress=Progress(quiet), urdf=urdf,
                       base=base, tip=tip, snap_angles=QUARTER_TOLERANCE if snap_angles is None
                       else snap_angles, mjcf=mjcf)
    width = max(len(row.check) for row in rows)
    click.echo(f"{robot.name}: {table.joints(robot.spec)}, {states} random states; each row: the "
               "largest "
               "relative difference and the tolerance it must keep")
    for row in rows:
        error = "" if row.error is None else f"{row.error:9.1e} <= {row.tolerance:g}"
        status = (f"skipped ({row.skipped})" if row.skipped else "ok" if row.passed
                  else "FAILED")
        note = f"  ({row.note})" if row.note else ""
        click.echo(f"  {row.check:<{width}}  {error:>17}  {status}{note}")
    failed = [row for row in rows if not row.passed]
    if failed:
        click.echo(f"{len(failed)} check(s) failed", err=True)
        raise SystemExit(1)


@main.command("base-parameters")
@ROBOT
@SNAP
@QUIET
def base_parameters(robot_file, snap_angles, quiet):
    """Print ROBOT's base parameters as combinations of its standard parameters."""
    robot = _load(robot_file, snap_angles=snap_angles)
    dynamics = newton_euler(robot)
    try:
        base = dynamics.base
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    appear = set().union(*(c.free_symbols for c in base.combinations))
    own = {base.standard[k] for k in base.columns}
    click.echo(f"{robot.name}: {len(base.standard)} standard parameters, {len(base.names)} base "
               f"parameters (grouping rules, then Gautier's QR: rank of the stacked regressor: "
               f"{len(base.names)})")
    click.echo("Standard parameters per link: m, mx, my, mz (m times the COM) and the inertia "
               "XX, XY, YY, XZ, YZ, ZZ about the joint frame's origin"
               + (" (0: the floating base's body, in {0})" if robot.floating else "")
               + "; R marks a regrouped one.")
    width = max(len(name) for name in base.names)
    for name, combination in zip(base.names, base.combinations):
        click.echo(f"  {name:<{width}} = {_combination(combination, base.standard)}")
    for title, names in (("grouped into those above", [s for s in base.standard
                                                       if s in appear and s not in own]),
                         ("not identifiable (no joint force depends on them)",
                          [s for s in base.standard if s not in appear])):
        if names:
            click.echo(f"{title}: {', '.join(str(s) for s in names)}")


def _combination(expr, symbols) -> str:
    """beta_k as a sum of coefficients times standard parameters, in their order."""
    text = ""
    for symbol in symbols:
        c = expr.coeff(symbol)
        if c == 0:
            continue
        sign = "-" if c.could_extract_minus_sign() else "+"
        magnitude = -c if sign == "-" else c
        term = str(symbol) if magnitude == 1 else f"{as_text(magnitude)}*{symbol}"
        text += (f" {sign} " if text else ("-" if sign == "-" else "")) + term
    return text or "0"


@main.command()
@ROBOT
@SNAP
@click.argument("data_file", metavar="DATA.csv")
@SET
@click.option("--fit", "groups", multiple=True, type=click.Choice(list(GROUPS)),
              help="Estimate this group of parameters (repeatable; all by default); the "
                   "others are held at the robot file's values.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the estimates (YAML) here.")
@click.option("--write-robot", type=click.Path(dir_okay=False),
              help="Also write a robot file whose dynamics reproduce the weighted estimates.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the table.")
def identify(robot_file, snap_angles, data_file, settings, groups, output, write_robot, quiet):
    """Estimate ROBOT's base parameters from measured motion and torques (ordinary and weighted
    least squares), with their standard deviations."""
    progress = Progress(quiet)
    robot = _identifiable(_load(robot_file, snap_angles=snap_angles), "identify")
    dynamics = newton_euler(robot, progress=progress)
    try:
        values = resolve_values(robot, _settings(settings))
        progress(f"reading {data_file} a block at a time")
        estimate = identify_parameters(dynamics, measurement_blocks(data_file, robot.dof),
                                       values=values, fit=groups or None, progress=progress)
        files, notes = {}, ()
        if output is not None:
            files[output] = estimate.as_yaml(robot.name, Path(data_file).name)
        if write_robot is not None:
            files[write_robot], notes = updated_robot_file(
                dynamics, estimate, values=values, data=Path(data_file).name, path=write_robot)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    known = dynamics.base.values(dynamics.robot, values)
    click.echo(f"{robot.name}: {len(estimate.names)} base parameters from {estimate.samples} "
               f"samples; condition number of the stacked base regressor "
               f"{estimate.condition:.4g}")
    click.echo("joint residual standard deviations (ordinary fit): "
               + ", ".join(f"{s:.4g}" for s in estimate.joint_sigma))
    width = max(len(name) for name in estimate.names)
    click.echo(f"  {'':<{width}}  {'ordinary':>12} {'rel. std':>9}  {'weighted':>12} "
               f"{'rel. std':>9}" + (f"  {'robot file':>12}" if known is not None else ""))
    for k, name in enumerate(estimate.names):
        ordinary, weighted = estimate.ordinary, estimate.weighted
        line = (f"  {name:<{width}}  {ordinary.beta[k]:12.5g} "
                f"{_percent(ordinary.relative_std[k]):>9}  "
                f"{weighted.beta[k]:12.5g} {_percent(weighted.relative_std[k]):>9}")
        if known is not None:
            line += f"  {known[k]:12.5g}"
        click.echo(line + ("  *" if name in estimate.poorly_excited else ""))
    if estimate.poorly_excited:
        click.echo(f"warning: {len(estimate.poorly_excited)} parameters (*) have a relative "
                   f"standard deviation above {POORLY_EXCITED:.0%}: poorly excited by this "
                   "motion, or close to zero", err=True)
    for note in notes:
        click.echo(f"warning: {note}", err=True)
    folders = {}        # the files of one folder are one set: written together, or neither
    for path, text in files.items():
        folders.setdefault(Path(path).parent, {})[Path(path).name] = text
    try:
        for folder, texts in folders.items():
            write_files(texts, folder)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    for path in files:
        click.echo(path)


def _percent(r) -> str:
    return "inf" if not np.isfinite(r) else f"{100 * r:.2f}%"


@main.command()
@ROBOT
@SNAP
@SET
@click.option("--harmonics", default=5, show_default=True, type=click.IntRange(1, 20),
              help="Harmonics of each joint's Fourier series.")
@click.option("--period", default=10.0, show_default=True, type=FiniteRange(0.1, 1e4),
              help="Seconds of one period.")
@click.option("--rate", default=100.0, show_default=True, type=FiniteRange(1, 1e5),
              help="Samples per second written.")
@click.option("--iterations", default=400, show_default=True, type=click.IntRange(0, 100000),
              help="Steps of the optimisation.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**63 - 1),
              help="Seed of the random search (a non-negative integer).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="The trajectory (CSV: t, q, qd, qdd).")
@click.option("-q", "--quiet", is_flag=True, help="Print only the file written.")
def excite(robot_file, snap_angles, settings, harmonics, period, rate, iterations, seed,
           output, quiet):
    """Design an excitation trajectory for identifying ROBOT: Fourier series within its joint
    limits, with the smallest condition number of the base regressor found."""
    progress = Progress(quiet)
    robot = _identifiable(_load(robot_file, snap_angles=snap_angles), "excite")
    _check_sampling(harmonics, period, rate, robot.dof)
    try:
        values = resolve_values(robot, _settings(settings))
        trajectory = excitation(newton_euler(robot, progress=progress), harmonics=harmonics,
                                period=period, rate=rate, iterations=iterations, seed=seed,
                                values=values, progress=progress)
        write_files({Path(output).name: write_trajectory(trajectory.t, trajectory.q,
                                                         trajectory.qd, trajectory.qdd)},
                    Path(output).parent)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    progress(f"condition number {trajectory.condition:.4g} over one period of {period:g} s")
    click.echo(output)


# The most bytes of trajectory excite writes into memory (t, q, qd and qdd as doubles).
MAX_TRAJECTORY_BYTES = 1 << 30


def _check_sampling(harmonics: int, period: float, rate: float, dof: int):
    """The options of excite, taken together, before any work: enough samples a period for
    the highest harmonic (Nyquist), and a trajectory that fits in memory."""
    samples = round(period * rate)
    needed = 2 * harmonics + 1
    if samples < needed:
        raise UserError(f"--period {period:g} at --rate {rate:g} gives {samples} samples a "
                        f"period; {harmonics} harmonics need at least {needed} (raise --rate "
                        "or --period)")
    size = samples * (3 * dof + 1) * 8
    if size > MAX_TRAJECTORY_BYTES:
        raise UserError(f"--period {period:g} at --rate {rate:g} gives {samples} samples of "
                        f"{dof} joints, {size / 2**30:.1f} GiB of trajectory; expected at most "
                        f"{MAX_TRAJECTORY_BYTES >> 30} GiB (lower --rate or --period)")


@main.command("import")
@click.argument("urdf_file", metavar="FILE")
@click.option("--base", help="The chain's first link, fixed to the world (default: the root).")
@click.option("--tip", help="The chain's last link, the tool frame (default: the only end).")
@click.option("--name", help="The robot's name (default: from the file's).")
@click.option("--form", type=click.Choice(FORMS), default="auto", show_default=True,
              help="modified: Craig's DH table; urdf: the file's joint placements; auto: DH "
                   "where a table reproduces the file's joints within 1e-12.")
@click.option("--strict-inertia", is_flag=True,
              help="Refuse inertias no rigid body has, which are otherwise taken as the file "
                   "gives them with a warning (published files hold them: round-off, links "
                   "without mass but with inertia).")
# The flag before --strict-inertia, whose behaviour is now the default: users' scripts that
# give it go on working, with a warning.
@click.option("--allow-inconsistent-inertia", "allow_inconsistent", is_flag=True, hidden=True)
@click.option("--snap-angles", type=SNAP_RANGE, default=QUARTER_TOLERANCE,
              show_default=True, help="Take angles this close (rad) to a multiple of pi/12 as "
              "that multiple (the default takes the 1.57079632679 of many URDFs as pi/2; 1e-5 "
              "takes 1.5708 too).")
@click.option("--source", help="Where the file comes from, for the robot file's source field.")
@click.option("--root", type=click.Choice(ROOTS),
              help="free_flyer: the root link floats, a free-flyer's six degrees of "
                   "freedom ahead of the joints (Pinocchio's JointModelFreeFlyer); fixed: it is "
                   "fixed to the world. Default: what the file says (a URDF's <symdyn:root>, "
                   "an MJCF file's free joint), else fixed.")
@click.option("--free-bodies", is_flag=True,
              help="MJCF: keep the scene's bodies on free joints (objects, other floating "
                   "robots), each a free_flyer joint of a tree whose root, the world, is fixed "
                   "(its q MuJoCo's qpos, the quaternion's w last). Default: the robot alone.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the robot file here instead of to standard output.")
@QUIET
def import_(urdf_file, base, tip, name, form, strict_inertia, allow_inconsistent, snap_angles,
            source, root, free_bodies, output, quiet):
    """Write a robot file for a URDF or an MJCF file (MuJoCo's; needs symdyn[mjcf]): the whole
    tree below --base (its mimic joints kept, its links on fixed joints and its sites as named
    frames), or the chain to --tip; joints, inertias (lumped over fixed joints), limits,
    friction, base and tool."""
    if name is not None and name_problem(name):
        raise UserError(f"--name: {name_problem(name)} (expected {NAME_RULE})")
    if allow_inconsistent:
        if strict_inertia:
            raise UserError("--allow-inconsistent-inertia and --strict-inertia ask opposite "
                            "things: give one")
        click.echo("warning: --allow-inconsistent-inertia is what import does by default now "
                   "(inertias no rigid body has are taken, with a warning; --strict-inertia "
                   "refuses them): leave it out", err=True)
    try:
        text, spec = import_robot(urdf_file, base=base, tip=tip, name=name, form=form,
                                  strict_inertia=strict_inertia, snap_angles=snap_angles,
                                  source=source, root=root, free_bodies=free_bodies)
        if output is not None:
            write_files({Path(output).name: text}, Path(output).parent)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    for warning in spec.warnings:
        click.echo(f"warning: {warning}", err=True)
    form_used = "modified DH" if spec.convention == "modified" else "URDF joint placements"
    if not quiet:
        click.echo(f"{spec.name}: {table.joints(spec)}, written in {form_used}"
                   + (f" to {output}" if output else ""), err=True)
    if output is None:
        click.echo(text, nl=False)


@main.command()
@ROBOT
@SNAP
@click.option("--q", "q_text", metavar="NUMBERS",
              help="The configuration: q's nq numbers, separated by commas (a floating base's "
                   "position and unit quaternion x, y, z, w first). Default: zeros, or the "
                   "file's closed_at where it gives constraints.")
@click.option("--view", type=click.Choice(list(VIEWS)), default="iso", show_default=True,
              help="The direction the robot is seen from (front: x right, z up; side: y "
                   "right; top: x right, y up).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="The picture: .svg or .png.")
@SET
@QUIET
def draw(robot_file, snap_angles, q_text, view, output, settings, quiet):
    """Draw ROBOT at a configuration: each link's frame (x, y, z in red, green, blue), the
    links between them, the named frames and the tool; a DH table's parameters beside each
    link; a tree's kinematic graph beside it. Needs matplotlib (symdyn[draw])."""
    fmt = Path(output).suffix.lower().lstrip(".")
    if fmt not in ("svg", "png"):
        raise UserError(f"{output}: the picture is written as .svg or .png")
    robot = _load(robot_file, snap_angles=snap_angles, quiet=quiet)
    try:
        picture = draw_robot(robot, configuration(robot, q_text), view, fmt,
                             resolve_values(robot, _settings(settings)))
        write_files({Path(output).name: picture}, Path(output).parent)
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    click.echo(output)


@main.command("export-urdf")
@ROBOT
@SNAP
@SET
@click.option("--visual", is_flag=True, help="Draw each joint and link as a cylinder.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the URDF here instead of to standard output.")
@QUIET
def export_urdf(robot_file, snap_angles, settings, visual, output, quiet):
    """Write ROBOT as a URDF (for RViz, MuJoCo, Pinocchio, PyBullet); free symbols need --set."""
    _export(robot_file, snap_angles, settings, output,
            lambda robot, values, notes: urdf_text(robot, values, visual=visual, notes=notes),
            urdf_left_out)


@main.command("export-mjcf")
@ROBOT
@SNAP
@SET
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the MJCF file here instead of to standard output.")
@QUIET
def export_mjcf(robot_file, snap_angles, settings, output, quiet):
    """Write ROBOT as a MuJoCo model (MJCF): bodies, joints with their ranges, inertias,
    armature, damping, a motor per joint and capsules to see it by; free symbols need --set."""
    _export(robot_file, snap_angles, settings, output, mjcf_text, mjcf_left_out)


def _export(robot_file, snap_angles, settings, output, text_of, left_out):
    """ROBOT's model as ``text_of`` (robot, values, notes) writes it, to ``output`` (then its
    name is printed) or standard output; a warning for each thing ``left_out`` (robot) says
    the format cannot hold, the notes the file says it in."""
    robot = _load(robot_file, snap_angles=snap_angles)
    notes = left_out(robot)
    for line in notes:
        click.echo(f"warning: {robot_file}: {line}", err=True)
    try:
        text = text_of(robot, resolve_values(robot, _settings(settings)), notes)
        if output is not None:
            write_files({Path(output).name: text}, Path(output).parent)
    except ValueError as exc:
        raise UserError(f"{robot_file}: {exc}") from None
    except SymdynError as exc:
        raise UserError(str(exc)) from None
    if output is None:
        click.echo(text, nl=False)
    else:
        click.echo(output)


def _list(values) -> str:
    return ", ".join(as_text(v) for v in values)


if __name__ == "__main__":
    main()
