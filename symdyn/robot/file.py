"""Robot files (YAML) -> RobotSpec: validated plain data, every error located in the file.

The YAML is composed into nodes first so that each value keeps its line; every problem is
reported as ``file:line: field: what is wrong (expected ...)``. Unknown keys are errors too:
a misspelt ``intertia`` must not silently become a massless link.
"""
from __future__ import annotations

import hashlib
import keyword
import re
from dataclasses import dataclass
from pathlib import Path

import sympy
import yaml

from ..errors import RobotFileError
from .expr import ExpressionError, parse_expression

NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
PARAMETER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
# Names the generated code uses for itself, in Python and C, and the joint variables.
RESERVED = (
    set(keyword.kwlist)
    | {"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
       "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
       "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
       "typedef", "union", "unsigned", "void", "volatile", "while"}
    | {"np", "numpy", "math", "q", "qd", "qdd", "tau", "params", "out", "pi", "sqrt", "sin",
       "cos", "fabs", "sign", "pow"}
    | {"step", "lane", "entry", "lanes_in", "lanes_out", "beyond", "LANES"}   # C lane kernels
)
JOINT_VARIABLE = re.compile(r"(q|qd|qdd|tau|f_ext)[0-9]+\Z")   # inputs of the generated code
CONVENTIONS = ("standard", "modified")
JOINTS = ("revolute", "prismatic")
DEFAULT_GRAVITY = (0, 0, -9.81)

TOP_KEYS = {"name", "source", "convention", "gravity", "parameters", "links", "payload"}
ACTUATOR_KEYS = {"motor_inertia", "gear_ratio", "viscous_friction", "coulomb_friction"}
LINK_KEYS = {"joint", "a", "alpha", "d", "theta", "mass", "com", "inertia",
             "first_moment", "inertia_origin"} | ACTUATOR_KEYS
PAYLOAD_KEYS = {"mass", "com", "inertia"}
LINK_REQUIRED = ("joint", "a", "alpha", "d", "theta", "mass")


@dataclass(frozen=True)
class LinkSpec:
    """One row of the DH table and the link's inertial data, exactly as the file gives them.

    Either ``com`` and ``inertia`` (about the centre of mass) are set, or ``first_moment``
    (m*r) and ``inertia_origin`` (about the frame's origin); the other pair is None.
    Inertia tuples are in the order Ixx, Iyy, Izz, Ixy, Iyz, Ixz.
    """

    joint: str
    a: sympy.Expr
    alpha: sympy.Expr
    d: sympy.Expr
    theta: sympy.Expr
    mass: sympy.Expr
    com: tuple | None = None
    inertia: tuple | None = None
    first_moment: tuple | None = None
    inertia_origin: tuple | None = None
    # The actuator, on the motor side (Robotics Toolbox's convention), reflected by the model.
    motor_inertia: sympy.Expr = sympy.Integer(0)        # Jm
    gear_ratio: sympy.Expr = sympy.Integer(1)           # G: joint velocity * G = motor velocity
    viscous_friction: sympy.Expr = sympy.Integer(0)     # B
    coulomb_friction: tuple = (sympy.Integer(0), sympy.Integer(0))  # (Tc+ if qd > 0, Tc- if < 0)


@dataclass(frozen=True)
class PayloadSpec:
    """A load rigidly fixed to the last link, given in the last link's frame (about its COM)."""

    mass: sympy.Expr
    com: tuple
    inertia: tuple


@dataclass(frozen=True)
class RobotSpec:
    """A robot file's content: validated, with expressions parsed, nothing derived yet."""

    name: str
    source: str
    convention: str
    gravity: tuple
    links: tuple[LinkSpec, ...]
    parameters: tuple[sympy.Symbol, ...]  # the free symbols, in order of first appearance
    path: str
    digest: str  # sha256 of the file's bytes: generated files say which version they came from
    payload: PayloadSpec | None = None


def load_robot_spec(path) -> RobotSpec:
    """Read and validate a robot file; raise RobotFileError naming the file, line and field."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RobotFileError(path, f"cannot read the file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RobotFileError(path, "the file is not UTF-8 text") from None
    return _Reader(path, text).spec(hashlib.sha256(raw).hexdigest())


def _display_path(path: Path) -> str:
    """The path relative to the working folder where it lies below it, so that generated headers
    read ``robots/puma560.yaml`` however the file was named on the command line."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


class _Reader:
    def __init__(self, path: Path, text: str):
        self.path = path
        self.text = text
        self.values: dict[str, sympy.Expr] = {}   # parameters given a value
        self.free: dict[str, sympy.Symbol] = {}   # names used without a value, in order

    # -- errors ------------------------------------------------------------------------------
    def error(self, message, node=None, field=None, expected=None):
        line = None if node is None else node.start_mark.line + 1
        return RobotFileError(self.path, message, field=field, line=line, expected=expected)

    # -- YAML structure ----------------------------------------------------------------------
    def spec(self, digest) -> RobotSpec:
        try:
            loader = yaml.SafeLoader(self.text)
            try:
                root = loader.get_single_node()
            finally:
                loader.dispose()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = None if mark is None else mark.line + 1
            problem = getattr(exc, "problem", None) or str(exc)
            raise RobotFileError(self.path, f"not valid YAML: {problem}", line=line) from None
        if root is None:
            raise RobotFileError(self.path, "the file is empty", expected="a robot description")
        top = self.mapping(root, "the file", TOP_KEYS)

        name = self.scalar_str(self.require(top, "name", root), "name")
        if not NAME.match(name) or keyword.iskeyword(name):
            raise self.error(f"{name!r} is not a valid robot name", top["name"], "name",
                             "lower-case letters, digits and _, starting with a letter, and not "
                             "a Python keyword (the name is the generated module's)")
        source = self.scalar_str(top["source"], "source") if "source" in top else ""
        convention = self.choice(self.require(top, "convention", root), "convention", CONVENTIONS)
        if "parameters" in top:
            self.read_parameters(top["parameters"])
        gravity = (self.vector(top["gravity"], "gravity", 3) if "gravity" in top
                   else tuple(parse_expression(g, self.resolve) for g in DEFAULT_GRAVITY))
        links_node = self.require(top, "links", root)
        if not isinstance(links_node, yaml.SequenceNode) or not links_node.value:
            raise self.error("must be a non-empty list of links", links_node, "links",
                             "one entry per joint, base to tip")
        links = tuple(self.link(node, i) for i, node in enumerate(links_node.value))
        payload = self.payload(top["payload"]) if "payload" in top else None
        return RobotSpec(name=name, source=source, convention=convention, gravity=gravity,
                         links=links, parameters=tuple(self.free.values()),
                         path=_display_path(self.path), digest=digest, payload=payload)

    def mapping(self, node, field, allowed) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.error("must be a mapping of keys to values", node, field)
        out = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            where = key if field == "the file" else f"{field}.{key}"
            if key not in allowed:
                raise self.error(f"unknown key {key!r}", key_node, where if key else field,
                                 "one of " + ", ".join(sorted(allowed)))
            if key in out:
                raise self.error(f"{key!r} is given twice", key_node, where)
            out[key] = value_node
        return out

    def require(self, mapping, key, parent, field=None):
        if key not in mapping:
            raise self.error(f"missing required field {key!r}", parent, field)
        return mapping[key]

    def scalar(self, node, field):
        if not isinstance(node, yaml.ScalarNode):
            raise self.error("must be a single value, not a list or mapping", node, field)
        loader = yaml.SafeLoader("")
        try:
            return loader.construct_object(node)
        except yaml.YAMLError as exc:
            raise self.error(f"unreadable value: {exc}", node, field) from None
        finally:
            loader.dispose()

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

    # -- expressions -------------------------------------------------------------------------
    def resolve(self, name: str) -> sympy.Expr:
        if name in self.values:
            return self.values[name]
        self.check_parameter_name(name)
        return self.free.setdefault(name, sympy.Symbol(name))

    def check_parameter_name(self, name, node=None, field=None):
        if not PARAMETER_NAME.match(name):
            raise ExpressionError(f"{name!r} is not a valid parameter name")
        if name in RESERVED or JOINT_VARIABLE.match(name):
            raise ExpressionError(f"{name!r} is reserved for the generated code; rename it")

    def expression(self, node, field) -> sympy.Expr:
        value = self.scalar(node, field)
        try:
            return parse_expression(value, self.resolve)
        except ExpressionError as exc:
            raise self.error(str(exc), node, field,
                             "a number or an expression such as \"pi/2\" or \"-l1/2\"") from None

    def vector(self, node, field, length) -> tuple:
        if not isinstance(node, yaml.SequenceNode) or len(node.value) != length:
            raise self.error(f"must be a list of {length} numbers or expressions", node, field)
        return tuple(self.expression(item, f"{field}[{k}]") for k, item in enumerate(node.value))

    def read_parameters(self, node):
        if not isinstance(node, yaml.MappingNode):
            raise self.error("must be a mapping of names to values", node, "parameters",
                             "for example {l1: 0.5, m1: null}")
        for key_node, value_node in node.value:
            name = key_node.value if isinstance(key_node, yaml.ScalarNode) else ""
            field = f"parameters.{name}"
            try:
                self.check_parameter_name(name)
            except ExpressionError as exc:
                raise self.error(str(exc), key_node, field) from None
            if name in self.values or name in self.free:
                raise self.error(f"{name!r} is given twice", key_node, field)
            if self.scalar(value_node, field) is None:   # declared free: fixes its order
                self.free[name] = sympy.Symbol(name)
            else:
                self.values[name] = self.expression(value_node, field)

    # -- links -------------------------------------------------------------------------------
    def link(self, node, index) -> LinkSpec:
        field = f"links[{index}]"
        keys = self.mapping(node, field, LINK_KEYS)
        for key in LINK_REQUIRED:
            self.require(keys, key, node, field)
        joint = self.choice(keys["joint"], f"{field}.joint", JOINTS)
        values = {k: self.expression(keys[k], f"{field}.{k}") for k in LINK_REQUIRED[1:]}
        com_form = "com" in keys or "inertia" in keys
        origin_form = "first_moment" in keys or "inertia_origin" in keys
        if com_form and origin_form:
            raise self.error("give either com and inertia, or first_moment and inertia_origin, "
                             "not both", node, field)
        inertial = {}
        for key, length in (("com", 3), ("inertia", 6)) if not origin_form else \
                (("first_moment", 3), ("inertia_origin", 6)):
            inertial[key] = (self.vector(keys[key], f"{field}.{key}", length) if key in keys
                             else (sympy.Integer(0),) * length)
        actuator = {key: self.expression(keys[key], f"{field}.{key}")
                    for key in ("motor_inertia", "gear_ratio", "viscous_friction") if key in keys}
        if "coulomb_friction" in keys:
            actuator["coulomb_friction"] = self.vector(keys["coulomb_friction"],
                                                       f"{field}.coulomb_friction", 2)
        return LinkSpec(joint=joint, **values, **inertial, **actuator)

    def payload(self, node) -> PayloadSpec:
        keys = self.mapping(node, "payload", PAYLOAD_KEYS)
        mass = self.expression(self.require(keys, "mass", node, "payload"), "payload.mass")
        com = (self.vector(keys["com"], "payload.com", 3) if "com" in keys
               else (sympy.Integer(0),) * 3)
        inertia = (self.vector(keys["inertia"], "payload.inertia", 6) if "inertia" in keys
                   else (sympy.Integer(0),) * 6)
        return PayloadSpec(mass, com, inertia)
