"""Robot files: what is accepted, and a clear located error for everything else."""
from __future__ import annotations

import textwrap

import pytest
import sympy
from click.testing import CliRunner

import symdyn
from symdyn.cli import main
from symdyn.robot.expr import ExpressionError, parse_expression

GOOD = """\
name: arm
convention: modified
parameters: {l1: 0.5, m2: null}
links:
  - joint: revolute
    a: 0
    alpha: 0
    d: 0
    theta: 0
    mass: 1
    com: [0.1, 0, 0]
    inertia: [0.01, 0.01, 0.01, 0, 0, 0]
  - joint: prismatic
    a: l1
    alpha: pi/2
    d: -l1/2
    theta: 0
    mass: m2
"""


def write(tmp_path, text, name="arm.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_good_file_reads(tmp_path):
    spec = symdyn.load_robot(write(tmp_path, GOOD)).spec
    assert spec.name == "arm" and spec.convention == "modified"
    assert spec.links[1].a == sympy.Rational(1, 2)           # parameter value substituted
    assert spec.links[1].d == -sympy.Rational(1, 4)
    assert spec.links[1].alpha == sympy.pi / 2
    assert spec.parameters == (sympy.Symbol("m2"),)         # declared free, kept as a symbol
    assert spec.gravity == (0, 0, -sympy.Rational(981, 100))  # the default
    assert spec.links[1].com == (0, 0, 0)


def test_a_double_s_digits_down_to_1e_30_are_taken_exactly(tmp_path):
    """CAD tools write inertias with rounding noise such as -3.469446951953614e-18 (16 digits,
    a denominator of 5e32): taken, exactly; 1e-31 is still below the bound."""
    noisy = GOOD.replace("inertia: [0.01, 0.01, 0.01, 0, 0, 0]",
                         "inertia: [0.01, 0.01, 0.01, -3.469446951953614e-18, 0, 0]")
    spec = symdyn.load_robot(write(tmp_path, noisy)).spec
    assert spec.links[0].inertia[3] == sympy.Rational("-3.469446951953614e-18")
    result = CliRunner().invoke(main, ["info", str(write(tmp_path, noisy.replace(
        "-3.469446951953614e-18", "1e-31")))])
    assert result.exit_code == 2 and "link 1.inertia[3]" in result.output
    assert "beyond the limits of 1e-30 and 1e30" in result.output


def test_free_symbols_are_ordered_by_first_appearance(tmp_path):
    text = GOOD.replace("parameters: {l1: 0.5, m2: null}", "parameters: {l1: 0.5}").replace(
        "mass: 1", "mass: zeta").replace("mass: m2", "mass: alpha1 + m2")
    assert [str(p) for p in symdyn.load_robot(write(tmp_path, text)).parameters] == [
        "zeta", "alpha1", "m2"]


BAD = [
    # (what to change, (field in message, words in message), line)
    (("name: arm", "name: Arm-1"), ("name", "not a valid robot name"), 1),
    (("name: arm", "name: class"), ("name", "not a valid robot name"), 1),
    (("name: arm\n", ""), (None, "missing required field 'name'"), 1),
    (("convention: modified", "convention: craig"), ("convention", "'craig' is not known"), 2),
    (("joint: prismatic", "joint: cylindrical"), ("link 2.joint", "'cylindrical' is not known"),
     13),
    (("joint: prismatic", "joint: spherical"),
     ("link 2.joint", "a spherical joint is placed by its origin in convention urdf"), 13),
    (("    mass: m2\n", ""), ("link 2", "missing required field 'mass'"), 13),
    (("mass: 1", "mass: [1]"), ("link 1.mass", "single value"), 10),
    (("mass: 1", "mass: true"), ("link 1.mass", "boolean"), 10),
    (("d: -l1/2", "d: -l1/"), ("link 2.d", "not a valid expression"), 16),
    (("d: -l1/2", "d: __import__('os').system('true')"), ("link 2.d", "not allowed"), 16),
    (("d: -l1/2", "d: l1.real"), ("link 2.d", "not allowed"), 16),
    (("d: -l1/2", "d: 2**100"), ("link 2.d", "exponents"), 16),
    (("d: -l1/2", "d: q1"), ("link 2.d", "reserved, a joint variable, which symdyn adds"), 16),
    (("d: -l1/2", "d: 1/0"), ("link 2.d", "division by zero"), 16),
    (("com: [0.1, 0, 0]", "com: [0.1, 0]"), ("link 1.com", "list of 3"), 11),
    (("com: [0.1, 0, 0]", "cmo: [0.1, 0, 0]"), ("link 1.cmo", "unknown key 'cmo'"), 11),
    (("    mass: m2\n", "    mass: m2\n    first_moment: [0, 0, 0]\n    com: [0, 0, 0]\n"),
     ("link 2", "not both"), 13),
    (("links:", "joints:"), ("joints", "unknown key"), 4),
    (("parameters: {l1: 0.5, m2: null}", "parameters: {lambda: 0.5}"),
     ("parameters.lambda", "reserved"), 3),
    (("parameters: {l1: 0.5, m2: null}", "parameters: [l1]"), ("parameters", "mapping"), 3),
    (("mass: 1", "mass: 1\n    mass: 2"), ("link 1.mass", "given twice"), 11),
    (("name: arm", "name: arm\n  bad: [indent"), (None, "not valid YAML"), None),
]


@pytest.mark.parametrize("change, message, line", BAD, ids=[b[1][1] for b in BAD])
def test_bad_file_gets_a_located_error(tmp_path, change, message, line):
    path = write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(symdyn.RobotFileError) as info:
        symdyn.load_robot(path)
    error = info.value
    field, words = message
    assert words in str(error)
    assert error.field == field
    assert str(path) in str(error)
    if line is not None:
        assert error.line == line, str(error)


@pytest.mark.parametrize("text", ["", "- just\n- a list\n",
                                  "links: []\nname: a\nconvention: standard\n"])
def test_degenerate_files(tmp_path, text):
    with pytest.raises(symdyn.RobotFileError):
        symdyn.load_robot(write(tmp_path, text))


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(symdyn.RobotFileError, match="cannot read"):
        symdyn.load_robot(tmp_path / "absent.yaml")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00name")
    with pytest.raises(symdyn.RobotFileError, match="not UTF-8"):
        symdyn.load_robot(binary)


@pytest.mark.parametrize("change", [c for c, _, _ in BAD[:7]] + [BAD[9][0]])
def test_cli_reports_bad_file_with_exit_2_and_writes_nothing(tmp_path, change):
    path = write(tmp_path, GOOD.replace(*change, 1))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["generate", str(path), "--out", str(out), "-q"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert str(path) in result.output
    assert not out.exists()


def test_expressions_are_never_evaluated_as_code():
    calls = []
    with pytest.raises(ExpressionError):
        parse_expression("(lambda: calls.append(1))()", lambda n: sympy.Symbol(n))
    with pytest.raises(ExpressionError):
        parse_expression("[x for x in ().__class__.__bases__]", lambda n: sympy.Symbol(n))
    assert calls == []


def test_decimals_are_exact():
    assert parse_expression(0.1, sympy.Symbol) == sympy.Rational(1, 10)
    assert parse_expression("sqrt(2)/2", sympy.Symbol) == sympy.sqrt(2) / 2


def test_parameters_may_refer_to_each_other_in_any_order(tmp_path):
    text = GOOD.replace("parameters: {l1: 0.5, m2: null}",
                        "parameters: {l1: 2*l2, l2: 0.25, m2: null}")
    spec = symdyn.load_robot(write(tmp_path, text)).spec
    assert spec.links[1].a == sympy.Rational(1, 2) and spec.parameters == (sympy.Symbol("m2"),)


def test_yaml_1_2_numbers(tmp_path):
    for text, value in (("017", 17), ("0o17", 15), ("0x1F", 31), ("1e3", 1000), (".5", 0.5)):
        spec = symdyn.load_robot(write(tmp_path, GOOD.replace("mass: 1\n", f"mass: {text}\n"))).spec
        assert spec.links[0].mass == sympy.nsimplify(value)
