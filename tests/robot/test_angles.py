"""Angles as written: the double nearest to k pi/12 is that angle (robot/angles.py), a near miss
is kept with a warning, and --snap-angles takes it too."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
import sympy
from click.testing import CliRunner
from support import ROBOTS, assert_close, pin_model, pin_rnea, random_inertia, random_states

import symdyn
from symdyn.cli import main
from symdyn.robot import angles
from symdyn.robot.expr import number

PI = sympy.pi


@pytest.mark.parametrize("written, meant", [
    (math.pi / 2, PI / 2), (-math.pi / 2, -PI / 2), (math.pi, PI), (2 * math.pi, 2 * PI),
    (math.nextafter(math.pi / 2, 4), PI / 2),          # a unit in the last place off
    (math.pi / 4, PI / 4), (math.pi / 6, PI / 6), (5 * math.pi / 12, 5 * PI / 12),
    (math.pi / 3, PI / 3), (-7 * math.pi / 6, -7 * PI / 6), (1e-17, 0),
], ids=lambda v: repr(v) if isinstance(v, float) else None)
def test_the_double_nearest_to_a_multiple_of_pi_12_is_that_angle(written, meant):
    reading = angles.read(number(written), "alpha")
    assert reading is not None and reading.exact == meant


@pytest.mark.parametrize("written, meant", [
    (math.sqrt(2) / 2, sympy.sqrt(2) / 2), (math.sqrt(3) / 2, sympy.sqrt(3) / 2),
    (-0.5000000000000001, -sympy.Rational(1, 2)), (6.123233995736766e-17, 0),
])
def test_an_axis_component_nearest_to_a_special_cosine_is_that_cosine(written, meant):
    reading = angles.read(number(written), "axis", angles.COSINE)
    assert reading is not None and reading.exact == meant


@pytest.mark.parametrize("written", [1.5708, 1.57079632679, 0.7854, math.pi / 2 + 1e-12])
def test_a_near_miss_is_kept_unless_a_tolerance_takes_it(written):
    reading = angles.read(number(written), "alpha")
    assert reading.exact is None and reading.nearest == PI / 12 * round(written / (math.pi / 12))
    assert angles.read(number(written), "alpha", tolerance=1e-5).exact == reading.nearest


@pytest.mark.parametrize("written", [0, 1, 0.5, 3.0, 1.5, -2.2])
def test_other_numbers_are_no_angle_of_note(written):
    assert angles.read(number(written), "alpha") is None


def _floats(text: str) -> str:
    """A robot file's pi/2 and pi written as the Robotics Toolbox stores them."""
    return re.sub(r"(-?)pi(/2)?\b", lambda m: repr((-1 if m[1] else 1) * math.pi
                                                   / (2 if m[2] else 1)), text)


def _body(text: str) -> str:
    """A generated file without what names its robot file: the digest line, the code-set
    hash and the note on exact angles (a paragraph that ends with a full stop)."""
    lines, kept, note = text.splitlines(), [], False
    for line in lines:
        note = note or "Read as exact angles" in line
        if not note and "sha256" not in line and "CODE_SET" not in line:
            kept.append(line)
        note = note and not line.endswith(".")
    return "\n".join(kept)


@pytest.mark.parametrize("name", ["puma560", "panda"])
def test_float_angles_give_the_code_of_exact_ones(tmp_path, name):
    """The Robotics Toolbox's PUMA 560 and Panda with 1.5707963267948966 for pi/2: byte for
    byte the code of the files that say pi/2, but for the header's note of what was read so."""
    text = (ROBOTS / f"{name}.yaml").read_text()
    floats = _floats(text)
    assert "pi/2" not in floats and "1.5707963267948966" in floats
    files = {}
    for kind, content in (("exact", text), ("floats", floats)):
        (tmp_path / kind).mkdir()
        path = tmp_path / kind / f"{name}.yaml"
        path.write_text(content)
        result = CliRunner().invoke(main, ["generate", str(path), "--lang", "python", "--lang",
                                           "c", "--out", str(tmp_path / kind / "out"), "-q"])
        assert result.exit_code == 0 and "near a multiple" not in result.output, result.output
        files[kind] = {p.name: p.read_text() for p in (tmp_path / kind / "out").iterdir()}
    assert files["exact"].keys() == files["floats"].keys()
    for file, exact in files["exact"].items():
        floats = files["floats"][file]
        assert "Read as exact angles" not in exact
        assert "Read as exact angles" in floats and exact != floats
        assert _body(floats) == _body(exact), file


def _near_robot_yaml(rng, dof=5) -> str:
    """A robot whose twists and offsets are near special angles but not at them."""
    near = [math.pi / 2 + 2e-7, -math.pi / 2 - 3e-6, math.pi / 4 + 5e-8, math.pi / 3 - 1e-6,
            math.pi - 4e-7, 1.5708, 1.57079632679]
    lines = ["name: near", "convention: modified", "links:"]
    for _ in range(dof):
        inertia = ", ".join(repr(float(v)) for v in random_inertia(rng))
        lines += ["  - joint: revolute",
                  f"    a: {float(rng.uniform(-0.5, 0.5))!r}",
                  f"    alpha: {float(rng.choice(near))!r}",
                  f"    d: {float(rng.uniform(-0.5, 0.5))!r}",
                  f"    theta: {float(rng.choice(near))!r}",
                  f"    mass: {float(rng.uniform(0.5, 5))!r}",
                  f"    com: [{', '.join(repr(float(c)) for c in rng.uniform(-0.2, 0.2, 3))}]",
                  f"    inertia: [{inertia}]"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(3))
def test_near_misses_keep_their_exact_dynamics_with_a_warning(tmp_path, seed):
    """Kept as written, they give Pinocchio's dynamics of the numbers as written to 1e-12; a
    command warns once, naming the fields and the tolerance that would snap them."""
    rng = np.random.default_rng(seed)
    path = tmp_path / "near.yaml"
    path.write_text(_near_robot_yaml(rng))
    robot = symdyn.load_robot(path)
    readings = robot.spec.angle_readings
    assert len(readings) == 10 and all(r.exact is None for r in readings)
    assert all(link.alpha not in (PI / 2, -PI / 2, PI / 4, PI / 3, PI) for link in robot.spec.links)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=["inverse_dynamics"])
    q, qd, qdd = random_states(rng, robot.dof)
    assert_close(module.inverse_dynamics(q, qd, qdd), pin_rnea(pin_model(robot.spec), q, qd, qdd),
                 rtol=1e-12)
    result = CliRunner().invoke(main, ["export-urdf", str(path)])     # any command that reads it
    assert result.exit_code == 0
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("warning")]
    assert readings[0].field in warning and "and 7 more" in warning
    assert "--snap-angles 1e-05 takes them as those angles" in warning
    snapped = symdyn.load_robot(path, snap_angles=1e-5)
    assert all(r.exact is not None for r in snapped.spec.angle_readings)
    result = CliRunner().invoke(main, ["export-urdf", str(path), "--snap-angles", "1e-5"])
    assert result.exit_code == 0 and "warning" not in result.stderr


def test_every_angle_field_is_read_so(tmp_path):
    """rpy of the base, the tool, a URDF-form origin and a shape; a URDF-form axis as cosines."""
    h = repr(math.pi / 2)
    path = tmp_path / "fields.yaml"
    path.write_text(f"""name: fields
convention: urdf
base: {{xyz: [0, 0, 1], rpy: [{h}, 0, 0]}}
tool: {{xyz: [0, 0, 0.1], rpy: [0, {h}, 0]}}
links:
  - joint: revolute
    origin: {{xyz: [0, 0, 0.3], rpy: [0, 0, {repr(math.pi / 4)}]}}
    axis: [{repr(math.sqrt(0.5))}, 0, {repr(math.sqrt(0.5))}]
    shapes: [{{box: [0.1, 0.1, 0.3], mass: 2, rpy: [{repr(math.pi / 6)}, 0, 0]}}]
""")
    spec = symdyn.load_robot(path).spec
    assert {r.field: r.exact for r in spec.angle_readings} == {
        "base.rpy[0]": PI / 2, "tool.rpy[1]": PI / 2, "link 1.origin.rpy[2]": PI / 4,
        "link 1.axis[0]": sympy.sqrt(2) / 2, "link 1.axis[2]": sympy.sqrt(2) / 2,
        "link 1.shapes[0].rpy[0]": PI / 6}
    assert spec.links[0].axis == (sympy.sqrt(2) / 2, 0, sympy.sqrt(2) / 2)
    assert spec.base.rpy[0] == PI / 2 and spec.tool.rpy[1] == PI / 2


def test_generic_angles_fold_into_constants(tmp_path):
    """Twists and offsets with no closed form (1.2 rad) become doubles in the model, so products
    of their sines and cosines fold into one constant: the code computes no cosine of a number,
    and a generic 7-joint chain's inverse dynamics stays within twice a special one's
    operations. Keeping each cos(6/5) a factor of its own at run time made 2027 multiplications
    against 339; folded, 774; with each offset kept in its joint's angle, sin(q + 1.2), not
    expanded into products with cos(1.2) and sin(1.2), 534."""
    rng = np.random.default_rng(7)
    ops = {}
    for kind in ("special", "generic"):
        lines = ["name: chain", "convention: modified", "links:"]
        for i in range(7):
            alpha, theta = ((repr(float(rng.uniform(-3, 3))), repr(float(rng.uniform(-3, 3))))
                            if kind == "generic" else (("0", "pi/2", "-pi/2")[i % 3], "0"))
            lines.append(f"  - {{joint: revolute, alpha: {alpha}, a: 0.2, d: 0.1, "
                         f"theta: {theta}, mass: 2, com: [0.05, 0.01, 0.02], "
                         "inertia: [0.02, 0.03, 0.025, 0.001, 0, 0.002]}")
        path = tmp_path / f"{kind}.yaml"
        path.write_text("\n".join(lines) + "\n")
        robot = symdyn.load_robot(path)
        assert not any(f.is_number for link in robot.links
                       for f in link.rotation.atoms(sympy.Function))
        (out,) = symdyn.generate(symdyn.newton_euler(robot), "python", tmp_path / kind,
                                 quantities=["inverse_dynamics"])
        text = out.read_text()
        # the sines and cosines are of inputs: q1, or an offset angle 2.38 + q1
        angles = re.findall(r"np\.(?:cos|sin)\(([^()]*)\)", text)
        assert angles and all(re.fullmatch(r"([0-9.]+ \+ )?q\d", a) for a in angles), angles
        ops[kind] = int(re.search(r"(\d+) multiplications", text).group(1))
    assert ops["generic"] < 2 * ops["special"], ops
