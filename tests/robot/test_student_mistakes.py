"""The mistakes a student's DH table makes most, each said in one warning line at its field
(issue 65): angles in degrees, a word where a number goes, the joint variable written into
the table, millimetres and grams, and standard DH's centre of mass on the wrong side. None is
refused: each may be meant, and the file still loads. And a file that says its angles are in
degrees is read exactly."""
from __future__ import annotations

import sympy
from click.testing import CliRunner

import symdyn
from symdyn.cli import main

BODY = "com: [{com}, 0, 0], inertia: [0.01, 0.01, 0.01, 0, 0, 0]"
ELBOW = """\
name: elbow
convention: standard
{top}links:
  - {{joint: revolute, a: 0, alpha: {alpha}, d: 0.3, theta: 0, mass: 2, %s}}
  - {{joint: revolute, a: 0.4, alpha: 0, d: 0, theta: {theta}, mass: {mass}, %s,
     limits: {{lower: {lower}, upper: 2.5}}}}
""" % (BODY.replace("{com}", "0"), BODY)
RIGHT = {"top": "", "alpha": "pi/2", "theta": "0", "mass": "1.5", "com": "-0.2",
         "lower": "-2.5"}


def warnings(tmp_path, **changes) -> list[str]:
    """The warning lines `symdyn info` prints for the elbow arm with ``changes``."""
    path = tmp_path / "elbow.yaml"
    path.write_text(ELBOW.format(**{**RIGHT, **changes}))
    result = CliRunner().invoke(main, ["info", str(path)])
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if line.startswith("warning:")]


def test_the_right_table_gets_no_warning(tmp_path):
    assert warnings(tmp_path) == []


def test_an_angle_in_degrees_is_said_with_what_it_would_be(tmp_path):
    (line,) = warnings(tmp_path, alpha="90")
    assert line.endswith("elbow.yaml:4: link 1.alpha: 90 is read in radians, 5156.62 degrees: "
                         "more than a turn; if it is in degrees, write \"90 deg\" (pi/2) or "
                         "angle_unit: deg")
    (line,) = warnings(tmp_path, lower="-170")
    assert "link 2.limits.lower: -170 is read in radians" in line and "(-17*pi/18)" in line
    assert warnings(tmp_path, lower="-6.2") == []       # a limit within a turn is radians


def test_degrees_said_are_read_exactly(tmp_path):
    for changes in ({"alpha": "90 deg", "theta": "-22.5 deg", "lower": "-143.2394 deg"},
                    {"top": "angle_unit: deg\n", "alpha": "90", "theta": "-22.5",
                     "lower": "-143.2394"}):
        path = tmp_path / "elbow.yaml"
        path.write_text(ELBOW.format(**{**RIGHT, **changes}))
        spec = symdyn.load_robot(path).spec
        assert spec.links[0].alpha == sympy.pi / 2
        assert spec.links[1].theta == -sympy.pi / 8
        assert abs(float(spec.links[1].limits["lower"]) + 2.5) < 1e-6
    path.write_text(ELBOW.format(**{**RIGHT, "top": "angle_unit: deg\n", "alpha": "pi/2 rad",
                                    "theta": "0", "lower": "-143.2394"}))
    assert symdyn.load_robot(path).spec.links[0].alpha == sympy.pi / 2


def test_a_word_where_a_number_goes_is_named_with_its_line(tmp_path):
    (line,) = warnings(tmp_path, mass="two")
    assert line.endswith("elbow.yaml: two (line 5, link 2.mass) is not declared in parameters: "
                         "left free symbols, arguments (params) of every generated function; "
                         "give each a value, or declare the free ones: parameters: {two: null}")


def test_the_joint_variable_written_into_the_table_gets_the_advice_that_q_is_added(tmp_path):
    (line,) = warnings(tmp_path, theta="theta2")
    assert line.endswith("elbow.yaml:5: link 2.theta: 'theta2' is a free symbol here, not the "
                         "joint variable, which symdyn adds to theta for you (q2): write "
                         "theta: 0, or the joint's constant offset")
    path = tmp_path / "elbow.yaml"
    path.write_text(ELBOW.format(**{**RIGHT, "theta": "q2"}))
    result = CliRunner().invoke(main, ["info", str(path)])
    assert result.exit_code == 2
    assert ("elbow.yaml:5: link 2.theta: 'q2' is reserved, a joint variable, which symdyn adds "
            "to each joint's theta (revolute) or d (prismatic) for you: write 0 there"
            ) in result.output


def test_millimetres_grams_and_the_centre_of_mass_past_the_link_are_warned(tmp_path):
    path = tmp_path / "elbow.yaml"
    path.write_text(ELBOW.format(**RIGHT).replace("a: 0.4,", "a: 400,"))
    result = CliRunner().invoke(main, ["info", str(path)])
    assert "elbow.yaml:5: link 2.a: 400 m is longer than a robot's link; if it is in " \
           "millimetres, write 0.4" in result.output
    (line,) = warnings(tmp_path, mass="1500")
    assert line.endswith("link 2.mass: 1500 kg is heavier than a robot's link; if it is in "
                         "grams, write 1.5")
    (line,) = warnings(tmp_path, com="0.2")
    assert line.endswith("elbow.yaml:5: link 2.com: the centre of mass lies at x = 0.2, past "
                         "the link's far end: in standard DH frame {i} is at that end (on the "
                         "next joint's axis) and the link runs back along -x from it, a = 0.4 "
                         "long; its middle is at x = -0.2")


def refusal(tmp_path, text: str) -> str:
    path = tmp_path / "arm.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["info", str(path)])
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    return line


ONE = ("name: arm\nconvention: standard\nlinks:\n  - joint: revolute\n    a: 0\n    alpha: 0\n"
       "    d: 0\n    theta: 0\n    mass: 1\n    inertia: [1, 1, 1, 0, 0, 0]\n")


def test_a_misspelt_key_a_short_inertia_and_a_negative_mass_are_refused_where_they_are(
        tmp_path):
    assert "arm.yaml:6: link 1.alpah: unknown key 'alpah'; did you mean 'alpha'?" in refusal(
        tmp_path, ONE.replace("alpha", "alpah"))
    assert refusal(tmp_path, ONE.replace("[1, 1, 1, 0, 0, 0]", "[1, 1, 1]")).endswith(
        "arm.yaml:10: link 1.inertia: must be a list of 6 numbers or expressions (expected "
        "[Ixx, Iyy, Izz, Ixy, Iyz, Ixz], about the centre of mass)")
    assert "arm.yaml:9: link 1.mass: the mass is negative (-1 kg)" in refusal(
        tmp_path, ONE.replace("mass: 1", "mass: -1"))
