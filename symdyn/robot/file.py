"""Robot files (YAML) -> RobotSpec: validated plain data, every error located in the file.

The YAML is composed into nodes first so that each value keeps its line; every problem is
reported as ``file:line: field: what is wrong (expected ...)``. Unknown keys are errors too:
a misspelt ``intertia`` must not silently become a massless link, nor a misspelt parameter a
free symbol (a parameter nobody uses is an error). Only a regular file of bounded size is read,
with YAML 1.2's rules for numbers (``1:30`` is text, not 90; ``017`` is 17), no tags, and
bounded nesting; its numeric data must be physically possible (see validity.py).
"""
from __future__ import annotations

import difflib
import hashlib
import keyword
import math
import re
from dataclasses import replace
from functools import partial
from pathlib import Path

import sympy
import yaml

from ..errors import RobotFileError
from ..resources import shipped_folder
from . import angles, constraints, joints
from .expr import CONSTANTS, DECIMAL, FUNCTIONS, ExpressionError, as_text, number, parse_expression
from .reading import read_text
from .shapes import AXES, KINDS, Solid, combined
from .spec import (
    CONVENTIONS,
    DH_COLUMNS,
    JOINTS,
    ROOTS,
    BodySpec,
    FrameSpec,
    LinkSpec,
    PlacementSpec,
    RobotSpec,
)
from .validity import (
    actuator_problem,
    body_problem,
    elastic_problem,
    numeric,
    spring_problem,
)

# A robot's name heads its file names and C identifiers: at most 64 characters, as C99 keeps
# 63 of an identifier significant and a file name may have 255.
NAME_LENGTH = 64
NAME = re.compile(rf"[a-z][a-z0-9_]{{0,{NAME_LENGTH - 1}}}\Z")
PARAMETER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
# Names a parameter cannot have: Python's keywords (an expression could not name it) and the
# expressions' own words. The generated code gives parameters identifiers of its own (p_<name>),
# so C's keywords, macros and the templates' names are free to use.
RESERVED = set(keyword.kwlist) | set(FUNCTIONS) | set(CONSTANTS)
# A robot's header is <name>.h: it must not hide a C library header from a build that puts the
# generated folder on the include path (-I).
C_HEADERS = {"assert", "complex", "ctype", "errno", "fenv", "float", "inttypes", "iso646",
             "limits", "locale", "math", "setjmp", "signal", "stdalign", "stdarg", "stdatomic",
             "stdbool", "stddef", "stdint", "stdio", "stdlib", "stdnoreturn", "string", "tgmath",
             "threads", "time", "uchar", "wchar", "wctype", "unistd", "fcntl", "pthread", "alloca",
             "malloc", "memory", "strings", "sched", "termios"}
NAME_RULE = (f"at most {NAME_LENGTH} lower-case letters, digits and _, starting with a letter, "
             "neither a Python keyword nor a C library header's name (the name is the "
             "generated module's and header's)")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a robot's name (NAME_RULE), or None: the one check of a robot
    file's name, generate's files and import's --name."""
    if NAME.match(name) and not keyword.iskeyword(name) and name not in C_HEADERS:
        return None
    shown = repr(name) if len(name) <= 80 else f"{name[:60]!r}... ({len(name)} characters)"
    return f"{shown} is not a valid robot name"


# The derivation's own symbols: the joints' variables, a floating base's (model.FreeFlyer), and
# the constrained dynamics' inputs (derive/quantities.py: GAINS, RESTITUTION; lambda_c).
JOINT_VARIABLE = re.compile(r"((q|qd|qdd|tau|f_ext)[0-9]+"
                            r"|base_(x|y|z|q[xyzw]|v[xyz]|w[xyz]|a[xyz]|dw[xyz])"
                            r"|baumgarte_k[pd]|r_restitution|lambda_c[0-9]+)\Z")
DEFAULT_GRAVITY = (0, 0, -9.81)
# An angle's unit: the file's (angle_unit, radians unless it says deg), or its own, written
# after its value ("90 deg", "-pi/4 rad").
ANGLE_UNITS = ("rad", "deg")
UNIT_WRITTEN = re.compile(r"^(?P<value>.*?\S)(?:\s+|(?<=[0-9.)]))(?P<unit>deg|rad)$")
# A value in radians past a turn, most likely degrees (90, 180, 45): said in a warning.
TURN = 2 * math.pi
# What a list field's entries are, in order, for the message of a list of the wrong length.
ORDERS = {"inertia": "[Ixx, Iyy, Izz, Ixy, Iyz, Ixz], about the centre of mass",
          "inertia_origin": "[Ixx, Iyy, Izz, Ixy, Iyz, Ixz], about the frame's origin",
          "com": "[x, y, z]", "first_moment": "[m x, m y, m z]", "xyz": "[x, y, z]",
          "rpy": "[roll, pitch, yaw]", "coulomb_friction": "[Tc+, Tc-]",
          "gravity": "[gx, gy, gz]"}
# Past these, a length is most likely in millimetres and a mass in grams (check_plausible):
# the longest industrial arms reach 3-4 m, their heaviest links weigh some hundreds of kg.
LONGEST = 10.0
HEAVIEST = 1000.0
# A standard-DH centre of mass this share of a past the link's far end (frame {i}'s origin)
# is the sign slip, not a motor overhanging the joint.
PAST_THE_END = 0.25

MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 6          # a robot file nests 3 deep (links, a link, its inertia)
MAX_LINKS = 64
MAX_INTEGER_DIGITS = 30

TOP_KEYS = {"name", "source", "convention", "angle_unit", "gravity", "parameters", "links",
            "payload",
            "allow_inconsistent_inertia", "base", "tool", "frames", "root", "base_body",
            "constraints", "closed_at", "actuated", "tendons"}
FRAME_KEYS = {"name", "parent", "xyz", "rpy"}
MAX_FRAMES = 256
PLACEMENT_KEYS = {"xyz", "rpy"}
ACTUATOR_KEYS = {"motor_inertia", "gear_ratio", "viscous_friction", "coulomb_friction"}
LINK_KEYS = {"joint", "a", "alpha", "d", "theta", "mass", "com", "inertia",
             "first_moment", "inertia_origin", "shapes", "limits", "origin",
             "axis", "name", "joint_name", "parent", "gamma", "b", "mimic", "multiplier",
             "offset", "elastic", "spring", "pitch", "axis2"} | ACTUATOR_KEYS
# What one kind of joint alone has: the key and that kind
KIND_KEYS = {"pitch": "helical", "axis2": "universal"}
ELASTIC_KEYS = {"stiffness", "damping"}
SPRING_KEYS = {"stiffness", "reference"}
# A link's, a joint's or a frame's name: the source file's own (URDF and MJCF names hold dots,
# slashes and spaces), text of at most NAME_TEXT_LENGTH printable characters; the generated
# code's identifiers are made of it (identifiers.py).
NAME_TEXT_LENGTH = 128
NAME_TEXT_RULE = (f"text of 1 to {NAME_TEXT_LENGTH} printable characters, without spaces at "
                  "either end")
BASE = "base"          # the parent of a link fixed to the base
BODY_KEYS = {"mass", "com", "inertia", "shapes"}
LINK_REQUIRED = ("joint", "a", "alpha", "d", "theta")
SHAPE_KEYS = set(KINDS) | {"mass", "density", "xyz", "rpy", "axis"}
LIMIT_KEYS = ("lower", "upper", "velocity", "effort")


def load_robot_spec(path, snap_angles: float = 0.0) -> RobotSpec:
    """Read and validate a robot file; raise RobotFileError naming the file, line and field.
    A name that is no file's but a shipped robot's (``puma560``) reads that robot's file.
    Angles are read as angles.py says, numbers within ``snap_angles`` rad of a special angle
    taken as that angle too."""
    shipped = shipped_robot(path)
    if shipped is None and not Path(path).exists() and NAME.match(str(path)):
        raise RobotFileError(path, "is neither a file nor the name of a shipped robot",
                             expected="a robot file, or one of " + ", ".join(shipped_robots()))
    path = shipped or Path(path)
    raw, text = read_text(path, MAX_FILE_BYTES, "a YAML robot file")
    return _Reader(path, text, snap_angles).spec(hashlib.sha256(raw).hexdigest())


def shipped_robots() -> dict[str, Path]:
    """The robot files symdyn ships, by name (see ``resources``)."""
    folder = shipped_folder("robots")
    return {} if folder is None else {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def shipped_robot(name) -> Path | None:
    """The shipped file of the robot ``name``, where ``name`` is no existing path's."""
    text = str(name)
    if Path(text).exists() or not NAME.match(text):
        return None
    return shipped_robots().get(text)


def robot_spec_from_text(text: str, path, snap_angles: float = 0.0) -> RobotSpec:
    """Validate a robot file's ``text`` as if read from ``path`` (what an importer writes)."""
    return _Reader(Path(path), text, snap_angles).spec(hashlib.sha256(text.encode()).hexdigest())


def _disjoint(mimic: LinkSpec, followed: LinkSpec) -> bool:
    """Whether a mimic joint's position limits, taken back to the followed joint's coordinate,
    miss the followed joint's own."""
    ends, own = mimic.followed_range(), followed.limits or {}
    return ends is not None and (ends[0] > float(own.get("upper", math.inf))
                                 or ends[1] < float(own.get("lower", -math.inf)))


def _numbered(name, position: dict, count: int) -> int | None:
    """The 1-based link a reference in the file names: a link's name (``position``), or its
    number, 1 to ``count``."""
    if isinstance(name, str):
        return position.get(name)
    if isinstance(name, int) and not isinstance(name, bool) and 1 <= name <= count:
        return name
    return None


class _Loader(yaml.SafeLoader):
    """YAML 1.2's core schema for plain scalars: true/false, null, decimal, 0o and 0x integers,
    floats; everything else is text (YAML 1.1's yes/no, 1:30 and 017 are not numbers here)."""


_Loader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
        ("bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
        ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
        ("float", DECIMAL + r"|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)", "-+.0123456789"),
        ("null", r"~|null|Null|NULL|", ["~", "n", "N", ""])):
    _Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}",
                                  re.compile(f"^(?:{_pattern})$"), list(_first))
TAGS = {f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float", "null", "str", "seq", "map")}
# What YAML itself cannot read: control characters other than tab and line ends.
NOT_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD"
                           "\U00010000-\U0010FFFF]")


class _Reader:
    def __init__(self, path: Path, text: str, snap_angles: float = 0.0):
        self.path = path
        self.text = text
        self.snap_angles = snap_angles
        self.angles: list[angles.Reading] = []    # numbers near special angles, as read
        self.values: dict[str, sympy.Expr] = {}   # parameters given a value, once read
        self.free: dict[str, sympy.Symbol] = {}   # names used without a value, in order
        self.given: dict[str, tuple] = {}         # parameter -> (key node, value node)
        self.reading: list[str] = []              # parameters being read (a chain of references)
        self.used: set[str] = set()               # names an expression has read
        self.lenient = False                      # inconsistent inertia: a warning, not an error
        self.link_nodes: dict[int, dict] = {}     # 1-based link -> its keys' value nodes
        self.warnings: list[str] = []
        self.angle_unit = "rad"
        self.where: list[tuple] = []             # the fields being read: (node, field)
        self.first_use: dict[str, tuple] = {}    # undeclared name -> (line, field, hint)

    # -- errors ------------------------------------------------------------------------------
    def error(self, message, node=None, field=None, expected=None):
        line = None if node is None else node.start_mark.line + 1
        return RobotFileError(self.path, message, field=field, line=line, expected=expected)

    # -- YAML structure ----------------------------------------------------------------------
    def spec(self, digest) -> RobotSpec:
        root = self.compose()
        if root is None:
            raise RobotFileError(self.path, "the file is empty", expected="a robot description")
        top = self.mapping(root, "the file", TOP_KEYS)

        name = self.scalar_str(self.require(top, "name", root), "name")
        problem = name_problem(name)
        if problem:
            raise self.error(problem, top["name"], "name", NAME_RULE)
        source = self.scalar_str(top["source"], "source") if "source" in top else ""
        convention = self.choice(self.require(top, "convention", root), "convention", CONVENTIONS)
        if "angle_unit" in top:
            self.angle_unit = self.choice(top["angle_unit"], "angle_unit", ANGLE_UNITS)
        if "allow_inconsistent_inertia" in top:
            self.lenient = self.flag(top["allow_inconsistent_inertia"],
                                     "allow_inconsistent_inertia")
        if "parameters" in top:
            self.read_parameters(top["parameters"])
        gravity = (self.vector(top["gravity"], "gravity", 3) if "gravity" in top
                   else tuple(number(g) for g in DEFAULT_GRAVITY))
        floating = "root" in top and self.choice(top["root"], "root", ROOTS) == "free_flyer"
        links_node = self.require(top, "links", root)
        # a floating base moves without joints (a drone); a fixed one without joints is still
        if not isinstance(links_node, yaml.SequenceNode) or not (links_node.value or floating):
            raise self.error("must be a non-empty list of links", links_node, "links",
                             "one entry per joint, base to tip (none only on a free_flyer "
                             "root)")
        if len(links_node.value) > MAX_LINKS:
            raise self.error(f"{len(links_node.value)} links are more than symdyn derives "
                             f"({MAX_LINKS})", links_node, "links")
        links = tuple(self.link(node, i, convention) for i, node in enumerate(links_node.value))
        links = self.mimics(self.tree(links, convention))
        payload = self.body(top["payload"], "payload") if "payload" in top else None
        base, tool = (self.placement(top[key], key) if key in top else None
                      for key in ("base", "tool"))
        root = self.choice(top["root"], "root", ROOTS) if "root" in top else "fixed"
        base_body = self.body(top["base_body"], "base_body") if "base_body" in top else None
        if root == "fixed" and base_body is not None:
            raise self.error("a fixed base's body never moves, and no joint force depends on "
                             "it", top["base_body"], "base_body",
                             "root: free_flyer for a floating base, or no base_body")
        if root == "free_flyer" and base is not None:
            raise self.error("a floating base has no fixed place in the world: its pose is "
                             "the configuration's first seven numbers", top["base"], "base",
                             "no base with root: free_flyer")
        frames = self.frames(top["frames"], links) if "frames" in top else ()
        if tool is not None and any(frame.name == "tool" for frame in frames):
            raise self.error("the tool is given twice: as tool and as the frame named tool",
                             top["tool"], "tool", "one of them")
        constrained = (constraints.read(self, top["constraints"], links,
                                        [frame.name for frame in frames])
                       if "constraints" in top else ())
        for key in ("closed_at", "actuated"):
            if key in top and not constrained:
                raise self.error(f"{key} belongs to a robot with constraints, and this one has "
                                 "none", top[key], key, "constraints: beside it")
        closed_at, closed_at_root = (
            constraints.read_closed_at(self, top["closed_at"], links, root == "free_flyer")
            if "closed_at" in top else ((), None))
        actuated = (constraints.read_actuated(self, top["actuated"], links)
                    if "actuated" in top else ())
        tendons = (constraints.read_tendons(self, top["tendons"], links)
                   if "tendons" in top else ())
        self.check_all_parameters_used()
        self.check_declared()
        return RobotSpec(name=name, source=source, convention=convention, gravity=gravity,
                         links=links, parameters=tuple(self.free.values()),
                         path=str(self.path), digest=digest, payload=payload,
                         warnings=tuple(self.warnings), base=base, tool=tool, frames=frames,
                         angle_readings=tuple(self.angles), root=root, base_body=base_body,
                         constraints=constrained, closed_at=closed_at,
                         closed_at_root=closed_at_root, actuated=actuated,
                         tendons=tendons)

    def compose(self):
        """The document's root node, after checks that keep composing it cheap and its errors
        one line: printable characters, nesting at most MAX_DEPTH deep, no YAML tags."""
        bad = NOT_PRINTABLE.search(self.text)
        if bad:
            line = self.text.count("\n", 0, bad.start()) + 1
            raise RobotFileError(self.path, f"the control character U+{ord(bad.group()):04X} "
                                 "cannot stand in a robot file", line=line)
        try:
            depth = 0
            for event in yaml.parse(self.text, Loader=_Loader):
                tag = getattr(event, "tag", None)
                if tag not in (None, "!") and tag not in TAGS:
                    raise self.error(f"the YAML tag {tag!r} is not allowed", event)
                if isinstance(event, yaml.CollectionStartEvent):
                    depth += 1
                    if depth > MAX_DEPTH:
                        raise self.error(f"lists and mappings nest deeper than {MAX_DEPTH}",
                                         event, expected="a robot file's structure")
                elif isinstance(event, yaml.CollectionEndEvent):
                    depth -= 1
            loader = _Loader(self.text)
            try:
                return loader.get_single_node()
            finally:
                loader.dispose()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = None if mark is None else mark.line + 1
            problem = getattr(exc, "problem", None) or exc
            raise RobotFileError(self.path, f"not valid YAML: {problem}", line=line) from None

    def mapping(self, node, field, allowed) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.error("must be a mapping of keys to values", node, field)
        out = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            where = key if field == "the file" else f"{field}.{key}"
            if key not in allowed:
                named = key is not None and PARAMETER_NAME.match(key)
                close = difflib.get_close_matches(str(key), sorted(allowed), n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self.error(f"unknown key {key!r}{hint}", key_node,
                                 where if named else (None if field == "the file" else field),
                                 "one of " + ", ".join(sorted(allowed)))
            if key in out:
                raise self.error(f"{key!r} is given twice", key_node, where)
            out[key] = value_node
        return out

    def named_entries(self, node, field: str, maximum: int, allowed, example: str):
        """The entries of the list ``field`` (frames, constraints, tendons): a non-empty list of
        at most ``maximum`` mappings of ``allowed`` keys, each with a name of its own; yields
        (the entry's field, its node, its keys, its name)."""
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            raise self.error(f"must be a non-empty list of {field}", node, field,
                             f"entries such as {example}")
        if len(node.value) > maximum:
            raise self.error(f"{len(node.value)} {field} are more than {maximum}", node, field)
        names = set()
        for k, item in enumerate(node.value):
            entry = f"{field}[{k}]"
            keys = self.mapping(item, entry, allowed)
            name = self.name_text(self.require(keys, "name", item, entry), f"{entry}.name")
            if name in names:
                raise self.error(f"the {field[:-1]} name {name!r} is given twice",
                                 keys["name"], f"{entry}.name")
            names.add(name)
            yield entry, item, keys, name

    def require(self, mapping, key, parent, field=None):
        if key not in mapping:
            raise self.error(f"missing required field {key!r}", parent, field)
        return mapping[key]

    def scalar(self, node, field):
        """A scalar's value by YAML 1.2's core schema: bool, int, float, None or str."""
        if not isinstance(node, yaml.ScalarNode):
            raise self.error("must be a single value, not a list or mapping", node, field)
        kind, text = node.tag.rsplit(":", 1)[-1], node.value
        try:
            if kind == "int":
                if len(text) > MAX_INTEGER_DIGITS:
                    raise ValueError(f"an integer of more than {MAX_INTEGER_DIGITS} digits")
                base = {"0o": 8, "0x": 16}.get(text[:2], 10)
                return int(text[2:] if base != 10 else text, base)
            if kind == "float":     # .inf and .nan are read, to be refused as not finite
                special = {".inf": math.inf, "+.inf": math.inf, "-.inf": -math.inf,
                           ".nan": math.nan}
                return special[text.lower()] if text.lower() in special else float(text)
        except ValueError as exc:
            raise self.error(f"{text!r} is not a number: {exc}", node, field) from None
        if kind == "bool":
            return text.lower() == "true"
        if kind == "null":
            return None
        return text

    def scalar_str(self, node, field) -> str:
        value = self.scalar(node, field)
        if not isinstance(value, str):
            raise self.error(f"{value!r} is not text", node, field, "a string")
        return value

    def choice(self, node, field, options) -> str:
        value = self.scalar(node, field)
        if value not in options:
            raise self.error(f"{value!r} is not known", node, field, " or ".join(options))
        return value

    def flag(self, node, field) -> bool:
        value = self.scalar(node, field)
        if not isinstance(value, bool):
            raise self.error(f"{value!r} is not true or false", node, field, "true or false")
        return value

    def name_text(self, node, field, link: bool = False) -> str:
        """A link's, a joint's or a frame's name (NAME_TEXT_RULE); a link's is not BASE, the
        word for the base among the links' parents."""
        name = self.scalar(node, field)
        if (not isinstance(name, str) or not 0 < len(name) <= NAME_TEXT_LENGTH
                or not name.isprintable() or name.strip() != name or link and name == BASE):
            shown = repr(name) if len(str(name)) <= 80 else f"{str(name)[:60]!r}..."
            raise self.error(f"{shown} is not a valid name", node, field, NAME_TEXT_RULE
                             + (f", other than {BASE!r}" if link else "")
                             + "; quote a name YAML would read as a number or a keyword")
        return name

    # -- expressions and parameters ------------------------------------------------------------
    def resolve(self, name: str) -> sympy.Expr:
        """What a name in an expression stands for: a parameter's value (read the first time it
        is asked for, so parameters may refer to each other in any order) or a free symbol."""
        self.used.add(name)
        if name in self.values:
            return self.values[name]
        if name in self.given and name not in self.free:
            if name in self.reading:
                chain = " -> ".join(self.reading[self.reading.index(name):] + [name])
                raise ExpressionError(f"the parameters refer to each other in a circle: {chain}")
            self.reading.append(name)
            _, value_node = self.given[name]
            value = self.values[name] = self.expression(value_node, f"parameters.{name}")
            self.reading.pop()
            return value
        self.check_parameter_name(name)
        if name not in self.free:
            self.undeclared(name)
        return self.free.setdefault(name, sympy.Symbol(name))

    def undeclared(self, name: str) -> None:
        """A name that parameters: does not declare, at its first use (check_declared says
        them); Spong's "theta: theta1" (the joint variable written into the table) at once."""
        node, field = self.where[-1]
        variable = re.fullmatch(r"(theta|d)([0-9]+)", name)
        if variable and field.endswith(f".{variable[1]}"):
            self.warnings.append(str(self.error(
                f"{name!r} is a free symbol here, not the joint variable, which symdyn adds to "
                f"{variable[1]} for you (q{variable[2]}): write {variable[1]}: 0, or the "
                "joint's constant offset", node, field)))
            return
        close = difflib.get_close_matches(name, list(self.given), n=1, cutoff=0.6)
        self.first_use[name] = (node.start_mark.line + 1, field,
                                f"; did you mean {close[0]!r}?" if close else "")

    def check_declared(self) -> None:
        """One warning naming each name that parameters: does not declare, with its first
        line: a word where a number goes ("mass: two") passes silently otherwise, to fail
        much later as a params argument the caller does not know of."""
        if not self.first_use:
            return
        shown = ", ".join(f"{name} (line {line}, {field}{hint})"
                          for name, (line, field, hint) in self.first_use.items())
        declared = ", ".join(f"{name}: null" for name in self.first_use)
        self.warnings.append(str(RobotFileError(
            self.path, f"{shown} {'is' if len(self.first_use) == 1 else 'are'} not declared in "
            "parameters: left free symbols, arguments (params) of every generated function; "
            f"give each a value, or declare the free ones: parameters: {{{declared}}}")))

    def check_parameter_name(self, name):
        if not PARAMETER_NAME.match(name):
            raise ExpressionError(f"{name!r} is not a valid parameter name")
        if re.fullmatch(r"q[0-9]+", name):
            raise ExpressionError(f"{name!r} is reserved, a joint variable, which symdyn adds "
                                  "to each joint's theta (revolute) or d (prismatic) for you: "
                                  "write 0 there, or the joint's constant offset")
        if name in RESERVED or JOINT_VARIABLE.match(name):
            raise ExpressionError(f"{name!r} is reserved (a keyword, an expression's word or a "
                                  "joint variable); rename it")

    def expression(self, node, field, value=None) -> sympy.Expr:
        """The field's expression (``value``, where given: its text, the node read already)."""
        value = self.scalar(node, field) if value is None else value
        self.where.append((node, field))
        try:
            return parse_expression(value, self.resolve)
        except ExpressionError as exc:
            raise self.error(str(exc), node, field,
                             "a number or an expression such as \"pi/2\" or \"-l1/2\"") from None
        finally:
            self.where.pop()

    def vector(self, node, field, length, kind=None) -> tuple:
        """``length`` expressions; ``kind`` angles.ANGLE or angles.COSINE reads each as one."""
        if not isinstance(node, yaml.SequenceNode) or len(node.value) != length:
            order = ORDERS.get(field.rsplit(".", 1)[-1])
            raise self.error(f"must be a list of {length} numbers or expressions", node, field,
                             order)
        read = self.expression if kind is None else partial(self.angle, kind=kind)
        return tuple(read(item, f"{field}[{k}]") for k, item in enumerate(node.value))

    def radians(self, node, field, whole: bool = False) -> sympy.Expr:
        """An angle field's value in radians: given in degrees where its text ends in "deg",
        or ends in no unit in a file whose angle_unit is deg (exact: 90 deg is pi/2). A value
        taken as radians that is past a turn (``whole``: and a whole number, where a limit or
        a configuration may turn further) was most likely meant in degrees: a warning says
        what it is, and how to write degrees."""
        value, unit = self.scalar(node, field), None
        if isinstance(value, str):
            written = UNIT_WRITTEN.match(value.strip())
            if written:
                value, unit = written["value"], written["unit"]
        angle = self.expression(node, field, value)
        if (unit or self.angle_unit) == "deg":
            return angle * sympy.pi / 180
        if unit is None and angle.is_number and abs(float(angle)) > TURN and (
                not whole or float(angle).is_integer()):
            text, meant = as_text(angle), as_text(angle * sympy.pi / 180)
            self.warnings.append(str(self.error(
                f"{text} is read in radians, {math.degrees(float(angle)):.6g} degrees: more "
                f"than a turn; if it is in degrees, write \"{text} deg\" ({meant}) or "
                "angle_unit: deg", node, field)))
        return angle

    def angle(self, node, field, kind=angles.ANGLE) -> sympy.Expr:
        """An expression of an angle field, in radians (radians), or (COSINE) a unit vector's
        component: a number near a special one is read as angles.py says, and noted."""
        value = (self.radians(node, field) if kind == angles.ANGLE
                 else self.expression(node, field))
        reading = angles.read(value, field, kind, self.snap_angles)
        if reading is None:
            return value
        self.angles.append(reading)
        return value if reading.exact is None else reading.exact

    def read_parameters(self, node):
        """Takes note of the parameters; their values are read when an expression uses them."""
        if not isinstance(node, yaml.MappingNode):
            raise self.error("must be a mapping of names to values", node, "parameters",
                             "for example {l1: 0.5, m1: null}")
        for key_node, value_node in node.value:
            name = key_node.value if isinstance(key_node, yaml.ScalarNode) else ""
            field = f"parameters.{name}" if PARAMETER_NAME.match(name) else "parameters"
            try:
                self.check_parameter_name(name)
            except ExpressionError as exc:
                raise self.error(str(exc), key_node, field) from None
            if name in self.given:
                raise self.error(f"{name!r} is given twice", key_node, field)
            self.given[name] = (key_node, value_node)
            if self.scalar(value_node, field) is None:   # declared free: fixes its order
                self.free[name] = sympy.Symbol(name)

    def check_all_parameters_used(self):
        for name, (key_node, _) in self.given.items():
            if name not in self.used:
                others = sorted(self.used - set(self.given)) or sorted(self.used)
                close = difflib.get_close_matches(name, others, n=1, cutoff=0.5)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise self.error(f"the parameter {name!r} is given but never used{hint}",
                                 key_node, f"parameters.{name}")

    # -- links -------------------------------------------------------------------------------
    def link(self, node, index, convention) -> LinkSpec:
        field = f"link {index + 1}"
        keys = self.link_nodes[index + 1] = self.mapping(node, field, LINK_KEYS)
        joint = self.choice(self.require(keys, "joint", node, field), f"{field}.joint", JOINTS)
        kind = joints.KINDS[joint]
        if not kind.dh:
            self.placed_by_origin(kind, keys, convention, field)
        if convention == "urdf":
            values = self.joint_placement(keys, node, field, kind.axis)
        else:
            for key in LINK_REQUIRED:
                self.require(keys, key, node, field)
            for key in ("origin", "axis"):
                if key in keys:
                    raise self.error(f"{key} places a joint in convention urdf; this file's "
                                     f"is {convention} DH", keys[key], f"{field}.{key}")
            values = {k: (self.angle if k in ("alpha", "theta") else self.expression)(
                keys[k], f"{field}.{k}") for k in LINK_REQUIRED[1:]}
        for key in ("gamma", "b"):
            if key in keys and convention != "modified":
                raise self.error(f"{key} is one of Khalil and Kleinfinger's parameters of "
                                 f"modified DH; this file's convention is {convention}",
                                 keys[key], f"{field}.{key}", "convention modified")
            if key in keys:
                values[key] = (self.angle if key == "gamma" else self.expression)(
                    keys[key], f"{field}.{key}")
        forms = [form for form, names in (("com and inertia", ("com", "inertia")),
                                          ("first_moment and inertia_origin",
                                           ("first_moment", "inertia_origin")),
                                          ("shapes", ("shapes",)))
                 if any(name in keys for name in names)]
        if len(forms) > 1:
            raise self.error(f"give one of com and inertia, first_moment and inertia_origin, or "
                             f"shapes, not both {forms[0]} and {forms[1]}", node, field)
        if "shapes" in keys:
            if "mass" in keys:
                raise self.error("the mass comes from the shapes; give it there", keys["mass"],
                                 f"{field}.mass")
            mass, first_moment, inertia_origin = self.shapes(keys["shapes"], f"{field}.shapes")
            inertial = {"first_moment": first_moment, "inertia_origin": inertia_origin}
            origin_form = True
        else:
            mass = self.expression(self.require(keys, "mass", node, field), f"{field}.mass")
            origin_form = "first_moment" in keys or "inertia_origin" in keys
            pair = ("first_moment", "inertia_origin") if origin_form else ("com", "inertia")
            inertial = {key: (self.vector(keys[key], f"{field}.{key}", length) if key in keys
                              else (sympy.Integer(0),) * length)
                        for key, length in zip(pair, (3, 6))}
        self.check_body(mass, *inertial.values(), origin_form,
                        keys.get("shapes", keys.get("inertia", keys.get("inertia_origin",
                                                                        keys.get("mass")))),
                        field, keys.get("mass"))
        self.check_plausible(keys, field, convention, values, mass,
                             None if origin_form else inertial["com"])
        actuator = {key: self.expression(keys[key], f"{field}.{key}")
                    for key in ("motor_inertia", "gear_ratio", "viscous_friction") if key in keys}
        if "coulomb_friction" in keys:
            actuator["coulomb_friction"] = self.vector(keys["coulomb_friction"],
                                                       f"{field}.coulomb_friction", 2)
        for key, value in actuator.items():
            problem = actuator_problem(key, value)
            if problem:
                raise self.error(problem, keys[key], f"{field}.{key}")
        limits = (self.limits(keys["limits"], f"{field}.limits", kind.angular)
                  if "limits" in keys else None)
        for key, owner in KIND_KEYS.items():
            if key in keys and joint != owner:
                raise self.error(f"{key} belongs to a {owner} joint", keys[key],
                                 f"{field}.{key}", f"joint: {owner} beside it")
            if joint == owner:
                self.require(keys, key, node, field)
        if "pitch" in keys:
            values["pitch"] = self.expression(keys["pitch"], f"{field}.pitch")
        if "axis2" in keys:
            values["axis2"] = self.second_axis(keys["axis2"], f"{field}.axis2", values["axis"])
        if "elastic" in keys:
            values["elastic"] = self.elastic(keys, actuator.get("motor_inertia"),
                                             f"{field}.elastic")
        if "spring" in keys:
            values["spring"] = self.spring(keys["spring"], kind, f"{field}.spring")
        name, joint_name = (self.name_text(keys[key], f"{field}.{key}", key == "name")
                            if key in keys else None for key in ("name", "joint_name"))
        for key in ("multiplier", "offset"):
            if key in keys:
                if "mimic" not in keys:
                    raise self.error(f"{key} belongs to a mimic joint, and this one mimics "
                                     "none", keys[key], f"{field}.{key}",
                                     "mimic: <the followed joint's link name> beside it")
                read = self.angle if key == "offset" and kind.angular else self.expression
                values[key] = read(keys[key], f"{field}.{key}")
        return LinkSpec(joint=joint, **values, mass=mass, **inertial, **actuator, limits=limits,
                        name=name, joint_name=joint_name, parent=index)

    def tree(self, links, convention) -> tuple[LinkSpec, ...]:
        """Each link's parent: the link its ``parent`` names (listed before it), ``base``, or,
        without one, the link before it. Any order in which each link comes after its parent
        is taken, and q follows it (imports write Pinocchio's order, depth first, and MuJoCo's).
        Refused: a link name or a joint name given twice, a parent nobody is named, a circle,
        a parent listed after its child, and two children of one link in standard DH, which
        places a link's frame by the next row's a and alpha."""
        position, joints = {}, {}
        for k, link in enumerate(links, start=1):
            if link.name in position:
                raise self.error(f"the link name {link.name!r} is given twice (links "
                                 f"{position[link.name]} and {k})",
                                 self.link_nodes[k]["name"], f"link {k}.name")
            if link.name is not None:
                position[link.name] = k
            joint = link.joint_name or link.name
            if joint is not None and joint in joints:
                key = "joint_name" if "joint_name" in self.link_nodes[k] else "name"
                raise self.error(f"the joint name {joint!r} is given twice (links "
                                 f"{joints[joint]} and {k}): JOINTS names "
                                 "each joint once", self.link_nodes[k][key],
                                 f"link {k}.{key}")
            if joint is not None:
                joints[joint] = k
        parents = {}
        for k in range(1, len(links) + 1):
            keys = self.link_nodes[k]
            parents[k] = k - 1
            if "parent" in keys:
                name = self.scalar(keys["parent"], f"link {k}.parent")
                if name != BASE and name not in position:
                    raise self.error(f"{name!r} names no link", keys["parent"],
                                     f"link {k}.parent",
                                     f"{BASE!r} or the name of a link of this file")
                parents[k] = 0 if name == BASE else position[name]
        has_child = set()
        for k, link in enumerate(links, start=1):
            field, node = f"link {k}.parent", self.link_nodes[k].get("parent")
            if parents[k] >= k:
                raise self.error(self.circle_or_order(k, parents, links), node, field)
            if convention == "standard" and parents[k] in has_child:
                raise self.error(
                    f"standard DH cannot place a second child on link {parents[k]}: each "
                    "link's frame is placed by the next row's a and alpha, which a row gives "
                    "once", node, field, "convention modified with gamma and b (Khalil and "
                    "Kleinfinger), or convention urdf")
            has_child.add(parents[k])
        return tuple(replace(link, parent=parents[k]) for k, link in enumerate(links, start=1))

    def mimics(self, links) -> tuple[LinkSpec, ...]:
        """Each mimic joint's followed joint: another link's name or number, which mimics none
        (Pinocchio's rule: a coordinate is a joint's own or follows one that has its own)."""
        position = {link.name: k for k, link in enumerate(links, start=1) if link.name}
        out = []
        for k, link in enumerate(links, start=1):
            node = self.link_nodes[k].get("mimic")
            if node is None:
                out.append(link)
                continue
            field = f"link {k}.mimic"
            name = self.scalar(node, field)
            followed = _numbered(name, position, len(links))
            if followed is None:
                raise self.error(f"{name!r} names no link", node, field,
                                 f"the name of a link of this file, or its number, 1 to "
                                 f"{len(links)}")
            if followed == k:
                raise self.error("a joint cannot mimic itself", node, field,
                                 "another joint's link")
            kind = joints.KINDS[links[followed - 1].joint]
            if kind.nq != 1:
                raise self.error(f"{name!r} is a {kind.name} joint, whose configuration is "
                                 f"{kind.configuration_text}: a joint cannot follow it", node,
                                 field, "a revolute or prismatic joint")
            if "elastic" in self.link_nodes[followed]:
                raise self.error(f"{name!r} is an elastic joint: its link and its motor move "
                                 "apart, and which of them a mimic joint follows is "
                                 "not defined", node, field, "a rigid joint")
            if "mimic" in self.link_nodes[followed]:
                raise self.error(
                    f"{name!r} is a mimic joint itself: a mimic of a mimic is not taken", node,
                    field, "the joint it mimics, with the multipliers multiplied and the "
                    "offsets composed")
            link = replace(link, mimic=followed)
            if _disjoint(link, links[followed - 1]):
                raise self.error(
                    f"its limits leave {name!r} no position: multiplier q + offset never lies "
                    "between the lower and upper limits while q lies between those of "
                    f"{name!r}", node, field, "limits the coupled joints can keep together")
            out.append(link)
        return tuple(out)

    def frames(self, node, links) -> tuple[FrameSpec, ...]:
        """Named frames: each {name, parent: a link's name or number, or base; xyz, rpy in
        that link's frame}, names all different."""
        position = {link.name: k for k, link in enumerate(links, start=1) if link.name}
        out = []
        for field, item, keys, name in self.named_entries(
                node, "frames", MAX_FRAMES, FRAME_KEYS,
                "{name: foot, parent: shank, xyz: [0, 0, -0.3]}"):
            parent_node = self.require(keys, "parent", item, field)
            parent = self.scalar(parent_node, f"{field}.parent")
            if parent == BASE:
                parent = 0
            elif _numbered(parent, position, len(links)) is not None:
                parent = _numbered(parent, position, len(links))
            else:
                raise self.error(f"{parent!r} names no link", parent_node, f"{field}.parent",
                                 f"{BASE!r}, a link's name or its number, 1 to {len(links)}")
            if name == "tool" and parent == 0:
                raise self.error("the tool is fixed to the base", parent_node,
                                 f"{field}.parent", "the link that carries it")
            placement = self.placement(item, field, keys={k: v for k, v in keys.items()
                                                           if k in PLACEMENT_KEYS})
            out.append(FrameSpec(name, parent, placement))
        return tuple(out)

    @staticmethod
    def circle_or_order(k, parents, links) -> str:
        """Why link k's parent, listed after it, is refused: a circle, named, or the order."""
        seen, i = [k], parents[k]
        while i and i not in seen:
            seen.append(i)
            i = parents[i]
        if i:
            cycle = seen[seen.index(i):] + [i]
            names = [links[j - 1].name or f"link {j}" for j in cycle]
            return f"the links' parents form a circle: {' -> '.join(names)}"
        return (f"the parent {links[parents[k] - 1].name!r} is listed after this link: list "
                "each link after its parent")

    def limits(self, node, field, revolute: bool) -> dict:
        """{lower, upper, velocity, effort}: numbers, each optional; lower <= upper, velocity
        and effort positive; a revolute joint's position limits angles (radians)."""
        keys = self.mapping(node, field, set(LIMIT_KEYS))
        limits = {}
        for key in LIMIT_KEYS:
            if key in keys:
                value = (self.radians(keys[key], f"{field}.{key}", whole=True)
                         if revolute and key in ("lower", "upper")
                         else self.expression(keys[key], f"{field}.{key}"))
                if numeric([value]) is None:
                    raise self.error(f"{value} is not a number", keys[key], f"{field}.{key}",
                                     "a number (limits are fixed in the generated code)")
                limits[key] = value
        if "lower" in limits and "upper" in limits and limits["lower"] > limits["upper"]:
            raise self.error("the lower limit is above the upper one", node, field)
        for key in ("velocity", "effort"):
            if key in limits and not limits[key] > 0:
                raise self.error(f"the {key} limit must be positive", keys[key], f"{field}.{key}")
        return limits

    def placed_by_origin(self, kind, keys, convention, field) -> None:
        """What a joint DH does not place refuses: a DH table (which places a turn or a
        slide about one axis a row); and, for a joint of several coordinates, an axis unless
        it has one, and the fields of one number per joint (a rotor and its friction,
        limits, a mimic, a spring)."""
        joint_node = keys["joint"]
        if convention != "urdf":
            raise self.error(f"a {kind.name} joint is placed by its origin in convention urdf; "
                             f"this file's is {convention} DH, which places a turn or a slide "
                             "per row", joint_node, f"{field}.joint", "convention urdf")
        if kind.nq == 1:
            return
        refused = ("motor_inertia", "gear_ratio", "viscous_friction", "coulomb_friction",
                   "limits", "mimic", "multiplier", "offset", "elastic", "spring")
        for key in refused + (() if kind.axis else ("axis",)):
            if key in keys:
                raise self.error(f"a {kind.name} joint has no {key.replace('_', ' ')}: its "
                                 f"configuration is {kind.configuration_text}", keys[key],
                                 f"{field}.{key}", "a revolute or prismatic joint")

    def elastic(self, keys, motor_inertia, field) -> tuple:
        """An elastic joint's (stiffness, damping): a spring K > 0 (N m/rad or N/m) with
        damping D >= 0 (0 if not given) between the motor and the link, on a one-axis joint
        that follows no other and whose motor has an inertia (``motor_inertia``, as read: the
        motor side's dynamics)."""
        node = keys["elastic"]
        spring = self.mapping(node, field, ELASTIC_KEYS)
        stiffness = self.expression(self.require(spring, "stiffness", node, field),
                                    f"{field}.stiffness")
        damping = (self.expression(spring["damping"], f"{field}.damping") if "damping" in spring
                   else sympy.Integer(0))
        for key, value in (("stiffness", stiffness), ("damping", damping)):
            problem = elastic_problem(key, value)
            if problem:
                raise self.error(problem, spring[key], f"{field}.{key}")
        if "mimic" in keys:
            raise self.error("an elastic joint is a revolute or prismatic joint of its own",
                             node, field, "elastic on a joint that follows no other")
        inertia = numeric((motor_inertia,)) if motor_inertia is not None else (0,)
        if inertia is not None and not inertia[0] > 0:
            raise self.error("an elastic joint's motor needs its rotor inertia: the spring sits "
                             "between the motor and the link, and the motor side's "
                             "acceleration is its torque over G^2 Jm", node, field,
                             "motor_inertia: Jm > 0 (and gear_ratio: G) beside elastic")
        return stiffness, damping

    def spring(self, node, kind, field) -> tuple:
        """A joint spring's (stiffness, reference): K >= 0 (N m/rad or N/m) and q_ref (0 if
        not given; an angle for a revolute joint, read as angles are), on a one-axis joint."""
        spring = self.mapping(node, field, SPRING_KEYS)
        stiffness = self.expression(self.require(spring, "stiffness", node, field),
                                    f"{field}.stiffness")
        problem = spring_problem(stiffness)
        if problem:
            raise self.error(problem, spring["stiffness"], f"{field}.stiffness")
        if "reference" not in spring:
            return stiffness, sympy.Integer(0)
        read = self.angle if kind.angular else self.expression
        return stiffness, read(spring["reference"], f"{field}.reference")

    def joint_placement(self, keys, node, field, axis: bool = True) -> dict:
        """origin (optional: the parent's frame) and axis (required, made a unit vector; none
        for a joint without one, JointKind.axis)."""
        for key in DH_COLUMNS:
            if key in keys:
                raise self.error(f"{key} is a DH entry; in convention urdf a joint is placed by "
                                 "origin and axis", keys[key], f"{field}.{key}")
        zeros = (sympy.Integer(0),) * 3
        origin = (self.placement(keys["origin"], f"{field}.origin") if "origin" in keys
                  else PlacementSpec(zeros, zeros))
        if not axis:
            return {"a": zeros[0], "alpha": zeros[0], "d": zeros[0], "theta": zeros[0],
                    "origin": origin}
        axis_node = self.require(keys, "axis", node, field)
        axis = self.vector(axis_node, f"{field}.axis", 3, angles.COSINE)
        values = numeric(axis)
        if values is None:
            raise self.error("the axis must be numeric", axis_node, f"{field}.axis")
        if not values.any():
            raise self.error("the axis is zero", axis_node, f"{field}.axis", "a direction")
        norm = sympy.sqrt(sum(a**2 for a in axis))
        zero = sympy.Integer(0)
        return {"a": zero, "alpha": zero, "d": zero, "theta": zero, "origin": origin,
                "axis": tuple(a / norm for a in axis)}

    def second_axis(self, node, field, axis) -> tuple:
        """A universal joint's second axis, in the link frame as ``axis`` is: numeric, made a
        unit vector, normal to the first (their cosine within 1e-9 of 0)."""
        second = self.vector(node, field, 3, angles.COSINE)
        values = numeric(second)
        if values is None or not values.any():
            raise self.error("the second axis must be a numeric direction", node, field)
        norm = sympy.sqrt(sum(a**2 for a in second))
        second = tuple(a / norm for a in second)
        cosine = float(sum(a * b for a, b in zip(second, axis)))
        if abs(cosine) > 1e-9:
            raise self.error(f"the second axis is not normal to the first (their cosine is "
                             f"{cosine:.3g})", node, field, "a direction normal to axis")
        return second

    def shapes(self, node, field):
        """Mass, first moment and inertia about the origin of the solids a list describes."""
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            raise self.error("must be a non-empty list of solids", node, field,
                             "entries such as {box: [0.1, 0.1, 0.4], mass: 2, xyz: [0, 0, 0.2]}")
        return combined(self.solid(item, f"{field}[{k}]") for k, item in enumerate(node.value))

    def solid(self, node, field) -> Solid:
        keys = self.mapping(node, field, SHAPE_KEYS)
        kinds = [kind for kind in KINDS if kind in keys]
        if len(kinds) != 1:
            raise self.error("give exactly one kind of solid", node, field,
                             "one of " + ", ".join(KINDS))
        (kind,) = kinds
        names = KINDS[kind]
        size_node = keys[kind]
        if isinstance(size_node, yaml.MappingNode):
            given = self.mapping(size_node, f"{field}.{kind}", set(names))
            size = {name: self.expression(self.require(given, name, size_node,
                                                       f"{field}.{kind}"), f"{field}.{kind}.{name}")
                    for name in names}
        elif isinstance(size_node, yaml.ScalarNode) and len(names) == 1:
            size = {names[0]: self.expression(size_node, f"{field}.{kind}")}
        else:
            size = dict(zip(names, self.vector(size_node, f"{field}.{kind}", len(names))))
        values = numeric(size.values())
        if values is not None and (values <= 0).any() or (
                kind == "hollow_cylinder" and values is not None and values[0] >= values[1]):
            raise self.error(f"the dimensions {', '.join(names)} must be positive"
                             + (", the inner radius below the outer" if kind ==
                                "hollow_cylinder" else ""), size_node, f"{field}.{kind}")
        if ("mass" in keys) == ("density" in keys):
            raise self.error("give the solid's mass or its density", node, field,
                             "mass (kg) or density (kg/m^3; kg/m for a rod)")
        amount_key = "mass" if "mass" in keys else "density"
        amount = self.expression(keys[amount_key], f"{field}.{amount_key}")
        if numeric([amount]) is not None and not float(amount) > 0:
            raise self.error(f"the {amount_key} must be positive", keys[amount_key],
                             f"{field}.{amount_key}")
        axis = self.choice(keys["axis"], f"{field}.axis", tuple(AXES)) if "axis" in keys else "z"
        if axis != "z" and kind not in ("cylinder", "hollow_cylinder", "rod"):
            raise self.error(f"a {kind} has no axis", keys["axis"], f"{field}.axis",
                             "axis only for a cylinder, a hollow cylinder or a rod")
        zeros = (sympy.Integer(0),) * 3
        xyz, rpy = (self.vector(keys[k], f"{field}.{k}", 3, kind) if k in keys else zeros
                    for k, kind in (("xyz", None), ("rpy", angles.ANGLE)))
        if amount_key == "mass":
            return Solid(kind, size, amount, xyz, rpy, axis)
        return Solid.with_density(kind, size, amount, xyz, rpy, axis)

    def check_plausible(self, keys, field, convention, values, mass, com) -> None:
        """Warnings for the unit and sign slips a robot file's numbers most often hide, none
        of them refused (a crane's links are long, a press's heavy): a length in millimetres
        (a: 400), a mass in grams (mass: 2000), and in standard DH a centre of mass past the
        link's far end, where frame {i} sits (the link runs back along -x, so its middle is
        at -a/2, and +a/2 is the sign slip)."""
        def known(value) -> float | None:
            values = None if value is None else numeric([value])
            return None if values is None else float(values[0])
        lengths = [(key, values[key]) for key in ("a", "d") if key in keys]
        if "origin" in keys and values.get("origin") is not None:
            lengths += [(f"origin.xyz[{k}]", x) for k, x in enumerate(values["origin"].xyz)]
        for key, value in lengths:
            length = known(value)
            if length is not None and abs(length) > LONGEST:
                node = keys[key.split(".")[0]]
                self.warnings.append(str(self.error(
                    f"{as_text(value)} m is longer than a robot's link; if it is in "
                    f"millimetres, write {as_text(value / 1000)}", node, f"{field}.{key}")))
        weight = known(mass)
        if weight is not None and weight > HEAVIEST and "mass" in keys:
            self.warnings.append(str(self.error(
                f"{as_text(mass)} kg is heavier than a robot's link; if it is in grams, write "
                f"{as_text(mass / 1000)}", keys["mass"], f"{field}.mass")))
        a, x = known(values.get("a")), known(com[0]) if com is not None else None
        if convention == "standard" and a and x is not None and x > PAST_THE_END * abs(a):
            self.warnings.append(str(self.error(
                f"the centre of mass lies at x = {as_text(com[0])}, past the link's far end: "
                f"in standard DH frame {{i}} is at that end (on the next joint's axis) and the "
                f"link runs back along -x from it, a = {as_text(values['a'])} long; its middle "
                f"is at x = {as_text(-abs(values['a']) / 2)}", keys["com"], f"{field}.com")))

    def check_body(self, mass, vector, inertia, origin_form, node, field, mass_node=None):
        """A body no rigid body can be is refused at ``node`` (its inertia's line), or at
        ``mass_node`` where the mass itself is wrong."""
        problem = body_problem(mass, vector, inertia, about_origin=origin_form)
        weight = numeric([mass])
        if problem and mass_node is not None and weight is not None and weight[0] < 0:
            node, field = mass_node, f"{field}.mass"
        if problem and self.lenient:
            self.warnings.append(str(self.error(f"{problem} (allowed by "
                                                "allow_inconsistent_inertia)", node, field)))
        elif problem:
            raise self.error(problem, node, field, "a rigid body's inertial data (or, for "
                             "published data that is not, allow_inconsistent_inertia: true)")

    def placement(self, node, field, keys=None) -> PlacementSpec:
        keys = self.mapping(node, field, PLACEMENT_KEYS) if keys is None else keys
        zeros = (sympy.Integer(0),) * 3
        return PlacementSpec(*(self.vector(keys[key], f"{field}.{key}", 3, kind) if key in keys
                               else zeros for key, kind in (("xyz", None), ("rpy", angles.ANGLE))))

    def body(self, node, field) -> BodySpec:
        """A rigid body: shapes alone, or mass with com and inertia about it."""
        keys = self.mapping(node, field, BODY_KEYS)
        if "shapes" in keys:
            if keys.keys() - {"shapes"}:
                raise self.error("give shapes alone, or mass, com and inertia", node, field)
            mass, first, origin = self.shapes(keys["shapes"], f"{field}.shapes")
            self.check_body(mass, first, origin, True, keys["shapes"], field)
            com = tuple(sympy.simplify(h / mass) for h in first)
            # back to the centre of mass: I_c = J_O - m (|c|^2 E - c c^T)
            shift = [sum(c**2 for c in com)] * 3
            inertia = tuple(sympy.simplify(j - mass * s) for j, s in zip(origin, (
                shift[0] - com[0]**2, shift[1] - com[1]**2, shift[2] - com[2]**2,
                -com[0] * com[1], -com[1] * com[2], -com[0] * com[2])))
            return BodySpec(mass, com, inertia)
        mass = self.expression(self.require(keys, "mass", node, field), f"{field}.mass")
        com = (self.vector(keys["com"], f"{field}.com", 3) if "com" in keys
               else (sympy.Integer(0),) * 3)
        inertia = (self.vector(keys["inertia"], f"{field}.inertia", 6) if "inertia" in keys
                   else (sympy.Integer(0),) * 6)
        self.check_body(mass, com, inertia, False, keys.get("inertia", keys["mass"]), field,
                        keys["mass"])
        return BodySpec(mass, com, inertia)
