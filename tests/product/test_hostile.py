"""Hostile and malformed robot files and command lines, as a new user and an attacker write them.

Each case must end with exit code 2 and one line that names the file (and, where the file has
one, the line and the field), nothing written, no traceback, within seconds.
"""
from __future__ import annotations

import os
import re
import time

import pytest
from click.testing import CliRunner

from symdyn.cli import main

BASE = """\
name: arm
convention: modified
parameters: {l1: 0.5}
links:
  - joint: revolute
    a: 0
    alpha: 0
    d: 0
    theta: 0
    mass: 1
    com: [0.1, 0, 0]
    inertia: [0.01, 0.02, 0.02, 0, 0, 0]
  - joint: prismatic
    a: l1
    alpha: pi/2
    d: 0.1
    theta: 0
    mass: 2
    motor_inertia: 1e-4
    gear_ratio: 50
    viscous_friction: 0.01
    coulomb_friction: [0.1, -0.1]
"""

# Entries no expression may be: each is tried in several fields.
BAD_EXPRESSIONS = [
    ("1/0", "division by zero"), ("0**-1", "not finite"), ("sqrt(-1)", "not a real number"),
    ("(-2)**0.5", "not a real number"), ("((9**8)**8)**8", "beyond the limit"),
    ("1e308*10", "beyond the limit"), ("9**9**9", "exponents"), ("2**100", "exponents"),
    ("((k+1)**8)**8", "exponents"), ("__import__('os').system('true')", "not allowed"),
    ("l1.real", "not allowed"), ("(lambda: 1)()", "not allowed"), ("[1]", "not allowed"),
    ("{}", "not allowed"), ("1 if l1 else 2", "not allowed"), ("l1 < 2", "not allowed"),
    ("l1 and 2", "not allowed"), ("not l1", "not allowed"), ("l1 // 2", "not allowed"),
    ("l1 % 2", "not allowed"), ("~l1", "not allowed"), ("abs(l1)", "not allowed"),
    ("sin()", "not allowed"), ("sin(1, 2)", "not allowed"), ("sin(x=1)", "not allowed"),
    ("'text'", "not allowed"), ("1j", "not allowed"), ("1 + 2j", "not allowed"),
    ("...", "not allowed"), ("f'{l1}'", "not allowed"), ("(1, 2)", "not allowed"),
    ("l1[0]", "not allowed"), ("print(1)", "not allowed"), ("sin", "is a function"),
    ("-l1/", "not a valid expression"), ("1:30", "not a valid expression"),
    ("\uff4c1", "non-ASCII"), ("\u03c0", "non-ASCII"), ("l1 * " * 50 + "1", "longer than"),
    ("q1", "reserved"), ("qd2", "reserved"), ("tau1", "reserved"), ("f_ext3", "reserved"),
    ("", "empty"), ("1e31", "beyond the limit"), ("1e-31", "beyond the limit"),
    ("pi**8**8", "exponents"), ("sqrt(l1 - 1)", "not a real number"),
    ("cos(1e40)", "beyond the limit"), ("0.1**-40", "exponents"),
]
# Entries YAML itself reads as something other than text.
BAD_SCALARS = [(".inf", "not a finite number"), ("-.inf", "not a finite number"),
               (".nan", "not a finite number"), ("true", "boolean"), ("false", "boolean"),
               ("1" * 40, "more than 30 digits"), ("0x" + "f" * 40, "more than 30 digits")]
FIELDS = [("    mass: 1\n", "link 1.mass", "    mass: {}\n"),
          ("    a: l1\n", "link 2.a", "    a: {}\n"),
          ("    d: 0.1\n", "link 2.d", "    d: {}\n"),
          ("    gear_ratio: 50\n", "link 2.gear_ratio", "    gear_ratio: {}\n"),
          ("    com: [0.1, 0, 0]\n", "link 1.com[1]", "    com: [0.1, {}, 0]\n")]


def _quoted(text):
    return "'" + text.replace("'", "''") + "'"


def expression_cases():
    for k, (expression, words) in enumerate(BAD_EXPRESSIONS):
        old, field, new = FIELDS[k % len(FIELDS)]
        yield (f"expression {expression[:20]!r} in {field}",
               BASE.replace(old, new.format(_quoted(expression))), field, words)
    for old, field, new in FIELDS:        # the worst of them, and YAML's own, in every field
        for expression, words in (BAD_EXPRESSIONS[0], BAD_EXPRESSIONS[2], BAD_EXPRESSIONS[4],
                                  BAD_EXPRESSIONS[9], BAD_EXPRESSIONS[36]):
            yield (f"expression {expression[:20]!r} in {field} again",
                   BASE.replace(old, new.format(_quoted(expression))), field, words)
        for scalar, words in BAD_SCALARS:
            yield (f"scalar {scalar[:20]!r} in {field}", BASE.replace(old, new.format(scalar)),
                   field, words)


def structure_cases():
    deep = "[" * 500 + "]" * 500
    cases = [
        ("not YAML", BASE + "  bad: [indent\n", None, "not valid YAML"),
        ("tab indentation", BASE.replace("  - joint: revolute", "\t- joint: revolute"), None,
         "not valid YAML"),
        ("a list at the top", "- 1\n- 2\n", "the file", "mapping"),
        ("a number at the top", "42\n", "the file", "mapping"),
        ("empty", "", None, "empty"),
        ("only a comment", "# nothing\n", None, "empty"),
        ("two documents", BASE + "---\nname: other\n", None, "not valid YAML"),
        ("deep gravity", BASE + f"gravity: {deep}\n", None, "nest deeper"),
        ("deep mapping", BASE + "gravity: " + "{a: " * 50 + "1" + "}" * 50 + "\n", None,
         "nest deeper"),
        ("python tag", BASE + "source: !!python/object/apply:os.system [ls]\n", None,
         "tag"),
        ("local tag", BASE.replace("mass: 1\n", "mass: !meters 1\n"), None, "tag"),
        ("binary tag", BASE + "source: !!binary aGk=\n", None, "tag"),
        ("set tag", BASE + "source: !!set {a}\n", None, "tag"),
        ("NUL character", BASE.replace("name: arm", "name: a\x00rm"), None,
         "control character"),
        ("escape character", BASE.replace("source", "x") + "source: \x1b[31m\n", None,
         "control character"),
        ("bell in a key", BASE.replace("links:", "li\x07nks:"), None, "control character"),
        ("unknown top key", BASE + "joints: []\n", "joints", "unknown key"),
        ("unknown link key", BASE.replace("    mass: 1\n", "    mass: 1\n    intertia: 1\n"),
         "link 1.intertia", "unknown key"),
        ("unknown payload key", BASE + "payload: {mass: 1, colour: red}\n", "payload.colour",
         "unknown key"),
        ("odd key", BASE + "'a\\nb': 1\n", None, "unknown key"),
        ("a list as a key", BASE + "? [a, b]\n: 1\n", None, "unknown key"),
        ("duplicate key", BASE.replace("    mass: 1\n", "    mass: 1\n    mass: 2\n"),
         "link 1.mass", "given twice"),
        ("duplicate name", BASE + "name: other\n", "name", "given twice"),
        ("no name", BASE.replace("name: arm\n", ""), None, "'name'"),
        ("no convention", BASE.replace("convention: modified\n", ""), None, "'convention'"),
        ("no links", BASE[:BASE.index("links:")], None, "'links'"),
        ("empty links", BASE[:BASE.index("links:")] + "links: []\n", "links", "non-empty"),
        ("links a mapping", BASE[:BASE.index("links:")] + "links: {a: 1}\n", "links",
         "non-empty"),
        ("a link a number", BASE[:BASE.index("links:")] + "links: [1]\n", "link 1",
         "mapping"),
        ("65 links", BASE[:BASE.index("links:")] + "links:\n" + "  - {joint: revolute, a: 0, "
         "alpha: 0, d: 0, theta: 0, mass: 1}\n" * 65, "links", "more than"),
        ("no joint", BASE.replace("  - joint: revolute\n", "  - a0: 0\n"), "link 1",
         "unknown key"),
        ("no mass", BASE.replace("    mass: 2\n", ""), "link 2", "'mass'"),
        ("joint kind", BASE.replace("joint: prismatic", "joint: cylindrical"), "link 2.joint",
         "not known"),
        ("spherical in DH", BASE.replace("joint: prismatic", "joint: spherical"),
         "link 2.joint", "convention urdf"),
        ("joint a number", BASE.replace("joint: prismatic", "joint: 1"), "link 2.joint",
         "not known"),
        ("convention kind", BASE.replace("convention: modified", "convention: craig"),
         "convention", "not known"),
        ("convention yes", BASE.replace("convention: modified", "convention: yes"),
         "convention", "not known"),
        ("mass a list", BASE.replace("mass: 1\n", "mass: [1]\n"), "link 1.mass",
         "single value"),
        ("mass a mapping", BASE.replace("mass: 1\n", "mass: {a: 1}\n"), "link 1.mass",
         "single value"),
        ("mass null", BASE.replace("mass: 1\n", "mass: null\n"), "link 1.mass",
         "not a number"),
        ("com of two", BASE.replace("com: [0.1, 0, 0]", "com: [0.1, 0]"), "link 1.com",
         "list of 3"),
        ("com a number", BASE.replace("com: [0.1, 0, 0]", "com: 0.1"), "link 1.com",
         "list of 3"),
        ("inertia of three", BASE.replace("inertia: [0.01, 0.02, 0.02, 0, 0, 0]",
                                          "inertia: [0.01, 0.02, 0.02]"), "link 1.inertia",
         "list of 6"),
        ("gravity of two", BASE + "gravity: [0, 0]\n", "gravity", "list of 3"),
        ("coulomb of one", BASE.replace("coulomb_friction: [0.1, -0.1]",
                                        "coulomb_friction: [0.1]"), "link 2.coulomb_friction",
         "list of 2"),
        ("both inertia forms", BASE.replace("    com: [0.1, 0, 0]\n",
                                            "    com: [0.1, 0, 0]\n    first_moment: [0, 0, 0]\n"),
         "link 1", "not both"),
        ("name not text", BASE.replace("name: arm", "name: 12"), "name", "not text"),
        ("source not text", BASE + "source: [a]\n", "source", "single value"),
        ("flag not a flag", BASE + "allow_inconsistent_inertia: 1\n",
         "allow_inconsistent_inertia", "true or false"),
        ("base a list", BASE + "base: [0, 0, 0]\n", "base", "mapping"),
        ("base xyz of two", BASE + "base: {xyz: [0, 0]}\n", "base.xyz", "list of 3"),
        ("base rpy divided by zero", BASE + "base: {rpy: [0, 0, '1/0']}\n", "base.rpy[2]",
         "division by zero"),
        ("base orientation key", BASE + "base: {xyz: [0, 0, 0], quaternion: [1, 0, 0, 0]}\n",
         "base.quaternion", "unknown key"),
        ("tool rpy of four", BASE + "tool: {rpy: [0, 0, 0, 0]}\n", "tool.rpy", "list of 3"),
        ("tool xyz beyond the limit", BASE + "tool: {xyz: [0, 0, 1e40]}\n", "tool.xyz[2]",
         "beyond the limit"),
        ("tool twice", BASE + "tool: {}\ntool: {}\n", "tool", "given twice"),
    ]
    shaped = BASE.replace("    com: [0.1, 0, 0]\n    inertia: [0.01, 0.02, 0.02, 0, 0, 0]\n",
                          "    shapes: [{}]\n").replace("    mass: 1\n", "")
    for entry, field, words in [
            ("{box: [0.1, 0.1], mass: 1}", "link 1.shapes[0].box", "list of 3"),
            ("{box: [0.1, 0.1, -0.1], mass: 1}", "link 1.shapes[0].box", "positive"),
            ("{box: [0.1, 0.1, 0.1]}", "link 1.shapes[0]", "mass or its density"),
            ("{box: [0.1, 0.1, 0.1], mass: 1, density: 7800}", "link 1.shapes[0]",
             "mass or its density"),
            ("{box: [0.1, 0.1, 0.1], sphere: 0.1, mass: 1}", "link 1.shapes[0]",
             "exactly one kind"),
            ("{cone: [0.1, 0.2], mass: 1}", "link 1.shapes[0].cone", "unknown key"),
            ("{hollow_cylinder: [0.05, 0.03, 0.1], mass: 1}",
             "link 1.shapes[0].hollow_cylinder", "inner radius below the outer"),
            ("{sphere: 0.1, mass: -1}", "link 1.shapes[0].mass", "positive"),
            ("{sphere: 0.1, density: 0}", "link 1.shapes[0].density", "positive"),
            ("{sphere: 0.1, mass: 1, axis: x}", "link 1.shapes[0].axis", "has no axis"),
            ("{rod: 0.1, mass: 1, axis: w}", "link 1.shapes[0].axis", "not known"),
            ("{cylinder: {radius: 0.1}, mass: 1}", "link 1.shapes[0].cylinder",
             "'length'")]:
        cases.append((f"shape {entry}", shaped.replace("[{}]", f"[{entry}]"), field, words))
    cases += [("shapes and a mass", shaped.replace("[{}]", "[{sphere: 0.1, mass: 1}]").replace(
                   "    theta: 0\n", "    theta: 0\n    mass: 2\n", 1), "link 1.mass",
               "comes from the shapes"),
              ("shapes and a com", shaped.replace("[{}]", "[{sphere: 0.1, mass: 1}]\n"
                                                  "    com: [0, 0, 0]"), "link 1", "not both"),
              ("shapes empty", shaped.replace("[{}]", "[]"), "link 1.shapes", "non-empty")]
    for name in ["Arm", "arm-1", "1arm", "_arm", "class", "import", "math", "stdint", "limits",
                 "stdio", "string", "\u00e4rm", "a rm", "arm.x", ""]:
        cases.append((f"robot name {name!r}", BASE.replace("name: arm", f"name: '{name}'"),
                      "name", "not a valid robot name"))
    return cases


def parameter_cases():
    p = "parameters: {l1: 0.5}"
    cases = [
        ("a parameter not used", BASE.replace(p, "parameters: {l1: 0.5, m_3: 2.33}"),
         "parameters.m_3", "never used"),
        ("a misspelt parameter", BASE.replace(p, "parameters: {l_1: 0.5}").replace(
            "a: l1", "a: l1 + 0"), "parameters.l_1", "did you mean 'l1'"),
        ("a free parameter not used", BASE.replace(p, "parameters: {l1: 0.5, k: null}"),
         "parameters.k", "never used"),
        ("parameters in a circle", BASE.replace(p, "parameters: {l1: 2*l2, l2: l1}"),
         "parameters.l2", "circle"),
        ("a parameter of itself", BASE.replace(p, "parameters: {l1: l1 + 1}"),
         "parameters.l1", "circle"),
        ("a parameter twice", BASE.replace(p, "parameters: {l1: 0.5, l1: 0.6}"),
         "parameters.l1", "given twice"),
        ("parameters a list", BASE.replace(p, "parameters: [l1]"), "parameters", "mapping"),
        ("a parameter's bad value", BASE.replace(p, "parameters: {l1: sqrt(-4)}"),
         "parameters.l1", "not a real number"),
    ]
    for name in ["lambda", "None", "True", "pi", "sin", "sqrt", "q1", "qdd7", "tau2", "f_ext1"]:
        cases.append((f"parameter name {name!r}", BASE.replace(p, f"parameters: {{'{name}': 1}}"),
                      f"parameters.{name}", "reserved"))
    for name in ["1abc", "a-b", "a b", "\u00e4", "l\uff11", ""]:
        cases.append((f"parameter name {name!r}", BASE.replace(p, f"parameters: {{'{name}': 1}}"),
                      "parameters", "not a valid parameter name"))
    return cases


def physics_cases():
    inertia = "inertia: [0.01, 0.02, 0.02, 0, 0, 0]"
    cases = [
        ("negative mass", BASE.replace("mass: 1\n", "mass: -1\n"), "link 1", "negative"),
        ("inertia without mass", BASE.replace("mass: 1\n", "mass: 0\n"), "link 1",
         "without mass"),
        ("inertia not definite", BASE.replace(inertia, "inertia: [0.01, -0.02, 0.02, 0, 0, 0]"),
         "link 1", "semi-definite"),
        ("triangle inequality", BASE.replace(inertia, "inertia: [0.01, 0.01, 0.05, 0, 0, 0]"),
         "link 1", "triangle"),
        ("off-diagonal too large", BASE.replace(inertia, "inertia: [0.01, 0.02, 0.02, 0.1, 0, "
                                                         "0]"), "link 1", "semi-definite"),
        ("first moment without mass", BASE.replace(
            "    com: [0.1, 0, 0]\n    " + inertia, "    first_moment: [0.1, 0, 0]\n"
            "    inertia_origin: [0.01, 0.01, 0.01, 0, 0, 0]").replace("mass: 1\n", "mass: 0\n"),
         "link 1", "without mass"),
        ("inertia about the origin too small", BASE.replace(
            "    com: [0.1, 0, 0]\n    " + inertia, "    first_moment: [0.5, 0, 0]\n"
            "    inertia_origin: [0.01, 0.01, 0.01, 0, 0, 0]"), "link 1", "semi-definite"),
        ("gear ratio zero", BASE.replace("gear_ratio: 50", "gear_ratio: 0"),
         "link 2.gear_ratio", "zero"),
        ("rotor inertia negative", BASE.replace("motor_inertia: 1e-4", "motor_inertia: -1e-4"),
         "link 2.motor_inertia", "negative"),
        ("viscous friction negative", BASE.replace("viscous_friction: 0.01",
                                                   "viscous_friction: -0.01"),
         "link 2.viscous_friction", "negative"),
        ("Coulomb friction helping", BASE.replace("[0.1, -0.1]", "[-0.1, 0.1]"),
         "link 2.coulomb_friction", "oppose"),
        ("Coulomb friction one-sided", BASE.replace("[0.1, -0.1]", "[0.1, 0.1]"),
         "link 2.coulomb_friction", "oppose"),
        ("payload negative mass", BASE + "payload: {mass: -1}\n", "payload", "negative"),
        ("payload triangle", BASE + "payload: {mass: 1, inertia: [1, 1, 3, 0, 0, 0]}\n",
         "payload", "triangle"),
        ("payload inertia without mass", BASE + "payload: {mass: 0, inertia: [1, 1, 1, 0, 0, "
                                                "0]}\n", "payload", "without mass"),
    ]
    return cases


CASES = [*expression_cases(), *structure_cases(), *parameter_cases(), *physics_cases()]


def test_there_are_enough_cases():
    assert len(CASES) + len(FILE_CASES) + len(CLI_CASES) >= 200


@pytest.mark.parametrize("text, field, words", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_robot_file(tmp_path, text, field, words):
    path = tmp_path / "robot.yaml"
    path.write_text(text, encoding="utf-8")
    message = refused(tmp_path, [str(path)])
    assert str(path) in message
    assert words in message, message
    if field is not None:
        assert re.search(rf"robot\.yaml:\d+: {re.escape(field)}", message), message


def refused(tmp_path, arguments, extra=()):
    """Run `symdyn generate` as a user would; return its one-line message."""
    out = tmp_path / "out"
    start = time.perf_counter()
    result = CliRunner().invoke(main, ["generate", *arguments, "--lang", "python", "--lang",
                                       "c", "--out", str(out), "-q", *extra])
    assert time.perf_counter() - start < 10
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert not out.exists()
    return lines[0]


def _fifo(tmp_path):
    os.mkfifo(tmp_path / "fifo.yaml")
    return tmp_path / "fifo.yaml"


def _dangling(tmp_path):
    (tmp_path / "link.yaml").symlink_to(tmp_path / "nowhere.yaml")
    return tmp_path / "link.yaml"


def _big(tmp_path):
    (tmp_path / "big.yaml").write_text(BASE + "# padding\n" * 200_000)
    return tmp_path / "big.yaml"


def _binary(tmp_path):
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00name")
    return tmp_path / "binary.yaml"


FILE_CASES = {
    "missing": (lambda tmp: tmp / "absent.yaml", "cannot read"),
    "a folder": (lambda tmp: tmp, "Error"),
    "a FIFO": (_fifo, "not a regular file"),
    "/dev/zero": (lambda tmp: "/dev/zero", "not a regular file"),
    "/dev/null": (lambda tmp: "/dev/null", "not a regular file"),
    "a dangling link": (_dangling, "cannot read"),
    "over 1 MiB": (_big, "larger than"),
    "not UTF-8": (_binary, "not UTF-8"),
}


@pytest.mark.parametrize("make, words", FILE_CASES.values(), ids=FILE_CASES.keys())
def test_bad_robot_path(tmp_path, make, words):
    path = make(tmp_path)
    assert words in refused(tmp_path, [str(path)])


CLI_CASES = {
    "--set of no symbol": (["--set", "l9=1"], "not a free symbol"),
    "--set of a word": (["--set", "k=abc"], "a value must be a number"),
    "--set of 1/0": (["--set", "k=1/0"], "division by zero"),
    "--set of sqrt(-1)": (["--set", "k=sqrt(-1)"], "not a real number"),
    "--set beyond the limit": (["--set", "k=1e300*1e300"], "beyond the limit"),
    "--set without =": (["--set", "k"], "NAME=VALUE"),
    "forward dynamics of a singular arm": (["-Q", "forward_dynamics"], "singular"),
    "--snap-angles nan": (["--snap-angles", "nan"], "--snap-angles: 'nan' is not a finite"),
}


@pytest.mark.parametrize("extra, words", CLI_CASES.values(), ids=CLI_CASES.keys())
def test_bad_command_line(tmp_path, extra, words):
    text = BASE.replace("mass: 1\n", "mass: k\n").replace("{l1: 0.5}", "{l1: 0.5, k: null}")
    if "forward_dynamics" in extra:     # joint 2 turns a point mass on its axis, and no rotor
        text = BASE.replace("joint: prismatic", "joint: revolute").replace(
            "    motor_inertia: 1e-4\n", "")
    path = tmp_path / "robot.yaml"
    path.write_text(text)
    assert words in refused(tmp_path, [str(path)], extra)


@pytest.mark.parametrize("command", [["check"], ["info"], ["derive"], ["base-parameters"],
                                     ["export-urdf"]])
def test_a_nan_option_is_refused_by_every_command_in_one_line(tmp_path, command):
    """click's ranges let NaN through: every command's --snap-angles is checked once, alike
    (it was written into the robot file's header by import, and passed to check)."""
    path = tmp_path / "robot.yaml"
    path.write_text(BASE)
    result = CliRunner().invoke(main, [*command, str(path), "--snap-angles", "nan"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'nan' is not a finite number" in lines[0], result.stderr
