"""Robot files and the robot model."""
import dataclasses
import re
import shlex
from pathlib import Path

from ..errors import RobotFileError
from . import constraints, mjcf, urdf, variant
from .file import (
    NAME_LENGTH,
    load_robot_spec,
    name_problem,
    robot_spec_from_text,
)
from .model import Robot
from .reading import read_bounded, xml_root
from .rigid import QUARTER_TOLERANCE
from .spec import CONSTRAINT_AXES, LinkSpec, RobotSpec
from .write import robot_file


def load_robot(path, *, without=(), snap_angles=0.0) -> Robot:
    """Read a robot file and build its model; raises RobotFileError for a bad file.
    ``without`` names parts to leave out, "friction" or "gravity" (see variant.py): the model
    is then named after what it lacks, ``puma560_no_friction``. A number of an angle field
    within ``snap_angles`` rad of a multiple of pi/12 is taken as that multiple (within a few
    units in the last place, always: see angles.py)."""
    robot = Robot.from_spec(variant.without(load_robot_spec(path, snap_angles), without))
    if robot.constraints:
        constraints.check(robot, robot.spec.path)
    return robot


def import_robot(path, *, base=None, tip=None, name=None, form="auto",
                 strict_inertia=False, snap_angles=QUARTER_TOLERANCE,
                 source=None, root=None, free_bodies=False) -> tuple[str, RobotSpec]:
    """The robot file for the chain ``base`` -> ``tip`` of the URDF or MJCF file at ``path``
    (told apart by their root elements, <robot> and <mujoco>; the whole tree
    below ``base`` where it branches and no ``tip`` is given), as text, and
    what it reads as (its warnings: what the import left out or took as it is, a line for
    each kind). ``form``: "auto" (modified DH where it fits, else "urdf"), "modified" or
    "urdf"; angles within ``snap_angles`` of a multiple of pi/12 are taken as that multiple
    (see rigid.py); ``source`` says where the file came from; ``root``: "fixed",
    "free_flyer" or None (read_chain); ``free_bodies`` keeps an MJCF scene's bodies on free
    joints as free_flyer joints of a tree on the fixed world (mjcf.read_chain);
    ``strict_inertia`` refuses bodies no rigid body has, which are otherwise taken as
    published. Raises RobotFileError for a file or a chain symdyn cannot take."""
    reader = description_reader(path)
    if free_bodies and reader is not mjcf:
        raise RobotFileError(path, "--free-bodies keeps an MJCF scene's free bodies; a URDF's "
                             "floating joints are free_flyer joints without it",
                             expected="an MJCF file")
    chain = reader.read_chain(path, base, tip, root=root, snap_angles=snap_angles,
                              strict_inertia=strict_inertia,
                              **({"free_bodies": True} if free_bodies else {}))
    given_name, name = name, name or default_name(chain.robot, path)
    part = (f"the tree below {chain.base_link}" if chain.whole
            else f"chain {chain.base_link} -> {chain.tip_link}")
    imported = (f"{chain.format} {Path(path).name} (robot {chain.robot!r}), {part}, "
                "imported by symdyn")
    options = {"--base": base, "--tip": tip, "--name": given_name, "--form": form,
               "--snap-angles": snap_angles, "--source": source, "--root": root}
    defaults = {"--base": None, "--tip": None, "--name": None, "--form": "auto",
                "--snap-angles": QUARTER_TOLERANCE, "--source": None, "--root": None}
    command = ["symdyn", "import", Path(path).name] + [
        word for key, value in options.items() if value != defaults[key]
        for word in (key, str(value))]
    if strict_inertia:
        command.append("--strict-inertia")
    if free_bodies:
        command.append("--free-bodies")
    source = f"{source}; {imported}" if source else imported

    def written(chain):
        try:
            text, _ = robot_file(chain, name=name, form=form, command=shlex.join(command),
                                 snap_angles=snap_angles, source=source)
        except ValueError as exc:
            raise RobotFileError(path, str(exc), expected="form auto or urdf") from None
        try:
            spec = robot_spec_from_text(text, f"{name}.yaml")
        except RobotFileError as exc:       # numbers the file allows but a robot file does not
            what = f"{exc.field}: {exc.message}" if exc.field else exc.message
            raise RobotFileError(path, f"symdyn cannot write it as a robot file ({what})",
                                 expected=exc.expected) from None
        return text, spec

    text, spec = written(chain)
    if chain.constraints:
        kept = _independent(chain, Robot.from_spec(spec), path)
        if kept != chain:
            chain = kept
            text, spec = written(chain)
        try:        # the file as load_robot will read it: its loops close where it says
            constraints.check(Robot.from_spec(spec), spec.path)
        except RobotFileError as exc:
            raise RobotFileError(path, f"symdyn cannot write it as a robot file whose "
                                 f"constraints hold at its closed_at ({exc.message})",
                                 line=exc.line) from None
    return text, dataclasses.replace(spec, warnings=chain.warnings)


def _independent(chain, robot, path):
    """``chain`` with its constraints (the source's equalities) as the robot file takes them:
    where they do not hold at qpos0 (a weld's relpose, a joint equality's constant), closed_at
    is where they do nearest it (Loops.closed; MuJoCo pulls the model there as it starts),
    and each keeps the rows that do not repeat others (constraints.independent_rows): MuJoCo
    keeps them all, a planar loop's connect's three rows among them, and shares its forces
    among the repeats; the robot file keeps the rows that determine lambda. A constraint
    that repeats the others whole is left out. A warning line says what changed. Refuses (at
    the source's line) constraints that do not hold anywhere near qpos0, and rows that are
    zero where the constraints hold without following from the others (left_out_problem:
    a singular configuration, where leaving them out would change the motion)."""
    warnings, closed_at = [], None
    try:
        constraints.check(robot, path)
    except RobotFileError as exc:
        loops = constraints.Loops(robot)
        closed_at = loops.closed(loops.closed_at)
        if closed_at is None:
            held = next(h for h in chain.constraints if exc.message.startswith(
                f"constraint {h.name!r}"))
            raise RobotFileError(path, exc.message.replace("closed_at", "qpos0") + ", and no "
                                 "configuration near it closes them", line=held.line,
                                 expected="equalities that hold at qpos0, or near it") from None
        values = []
        for link, joint in zip(robot.links, chain.joints):
            value = tuple(closed_at[s] for s in link.configuration if s in closed_at)
            if value and value != tuple(float(x) for x in link.kind.neutral):
                values.append((joint.name, value if link.q is None else value[0]))
        chain = dataclasses.replace(chain, closed_at=tuple(values))
        warnings.append("equalities that do not hold at qpos0: closed_at is the configuration "
                        f"nearest it where they do ({exc.message.split(':')[0]}, ...)")
    rows = constraints.independent_rows(robot, closed_at)
    problem = constraints.left_out_problem(robot, rows, closed_at)
    if problem:
        k, message = problem
        held = chain.constraints[k]
        raise RobotFileError(path, f"equality {held.name!r}: {message}", line=held.line,
                             expected="equalities that hold where the mechanism is not "
                                      "singular")
    kept, dropped = [], []
    for held, constraint, keep in zip(chain.constraints, robot.constraints, rows):
        if len(keep) == constraint.size:
            kept.append(held)
        elif keep:
            axes = tuple(CONSTRAINT_AXES[k] for k in keep)
            kept.append(dataclasses.replace(held, axes=axes))
            dropped.append(f"{held.name!r} keeps {', '.join(axes)}")
        else:
            dropped.append(f"{held.name!r} is left out")
    if dropped:
        warnings.append("constraints with rows that repeat others where they hold (MuJoCo "
                        "keeps them and shares their forces; the motion is the same): "
                        + "; ".join(dropped))
    return dataclasses.replace(chain, constraints=tuple(kept),
                               warnings=chain.warnings + tuple(warnings))


# Model names that say nothing of the robot (pybullet's URDFs call r2d2 and cartpole "physics",
# laikago "plane"; MuJoCo names a model without model= "MuJoCo Model"): a robot imported from
# such a file is named after the file.
GENERIC_NAMES = {"", "physics", "robot", "model", "plane", "mujoco", "scene", "world",
                 "default", "untitled", "urdf", "mjcf", "main", "test", "mujoco model"}


def default_name(model_name: str, path) -> str:
    """The name of a robot imported from ``path`` whose file calls it ``model_name``: that,
    made a valid robot name (robot_name), unless it is generic (GENERIC_NAMES), which two
    files of different robots share; then the file's name."""
    if model_name.strip().lower() not in GENERIC_NAMES:
        return robot_name(model_name)
    return robot_name(Path(path).stem)


def description_reader(path):
    """The module that reads the robot description at ``path``: mjcf for an MJCF file (root
    element <mujoco>), urdf for anything else (which says what it expected)."""
    root = xml_root(read_bounded(path, max(urdf.MAX_URDF_BYTES, mjcf.MAX_MJCF_BYTES),
                                 "a URDF or MJCF file"))
    return mjcf if root == "mujoco" else urdf


def robot_name(text: str) -> str:
    """A valid robot name made of a URDF's robot name: lower case, _ for the rest."""
    name = re.sub(r"[^a-z0-9_]+", "_", text.lower()).strip("_") or "robot"
    if not name[0].isalpha():
        name = "robot_" + name
    name = name[:NAME_LENGTH - len("_robot")].rstrip("_")   # room for the suffix below
    if name_problem(name):
        name += "_robot"
    return name


__all__ = ["LinkSpec", "Robot", "RobotSpec", "import_robot", "load_robot", "load_robot_spec"]
