"""Variants: the model without friction or without gravity, generated without editing the file."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import ROBOTS, assert_close, import_file, random_states

import symdyn
from symdyn.cli import main


def _generated(tmp_path, *options):
    result = CliRunner().invoke(main, ["generate", "puma560", "-q", "--lang", "python",
                                       "--lang", "c", "--out", str(tmp_path), *options])
    assert result.exit_code == 0, result.output
    return {Path(line).suffix: Path(line) for line in result.stdout.splitlines()}


def test_without_friction_and_gravity_leave_out_exactly_those(tmp_path):
    full = import_file(_generated(tmp_path / "full")[".py"], "variant_full")
    paths = _generated(tmp_path / "v", "--without", "gravity", "--without", "friction")
    assert sorted(p.name for p in paths.values()) == [
        "puma560_no_friction_no_gravity.c", "puma560_no_friction_no_gravity.h",
        "puma560_no_friction_no_gravity.py", "puma560_no_friction_no_gravityConfig.cmake"]
    variant = import_file(paths[".py"], "variant_both")
    no_friction = import_file(_generated(tmp_path / "f", "--without", "friction")[".py"],
                              "variant_friction")
    q, qd, qdd = random_states(np.random.default_rng(3), 6)
    friction = full.friction_torques(qd)
    assert np.abs(friction).max() > 1e-3           # the full model has friction to leave out
    assert_close(no_friction.inverse_dynamics(q, qd, qdd),
                 full.inverse_dynamics(q, qd, qdd) - friction)
    assert_close(variant.inverse_dynamics(q, qd, qdd),
                 full.inverse_dynamics(q, qd, qdd) - friction - full.gravity_torques(q))
    assert np.all(variant.gravity_torques(q) == 0) and np.all(variant.potential_energy(q) == 0)
    assert_close(variant.mass_matrix(q), full.mass_matrix(q))
    # The headers say what the code leaves out, in every language.
    for path in paths.values():
        text = path.read_text()
        assert "A variant of the robot file (--without friction --without gravity)" in text
        assert "friction are left out (zero); gravity is left out (zero)." in " ".join(
            line.strip(" *") for line in text.splitlines())
    # The C of a variant and of the full model link into one program: their names differ.
    main_c = tmp_path / "main.c"
    main_c.write_text('#include "full/puma560.h"\n#include "v/puma560_no_friction_no_gravity.h"\n'
                      "int main(void) { double q[6] = {0}, g[6], h[6];\n"
                      "  puma560_gravity_torques(q, g);\n"
                      "  puma560_no_friction_no_gravity_gravity_torques(q, h);\n"
                      "  return !(g[1] != 0.0 && h[1] == 0.0); }\n")
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-o", str(tmp_path / "both"),
                    str(main_c), str(tmp_path / "full/puma560.c"),
                    str(tmp_path / "v/puma560_no_friction_no_gravity.c"), "-lm"],
                   check=True, cwd=tmp_path)
    assert subprocess.run([str(tmp_path / "both")]).returncode == 0


def test_a_symbol_only_gravity_used_leaves_the_parameters():
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml", without=["gravity"])
    assert robot.name == "planar2_no_gravity"
    assert [str(p) for p in robot.parameters] == ["m1", "m2", "l1", "l2"]
    assert symdyn.load_robot(ROBOTS / "planar2.yaml", without=()).name == "planar2"
    with pytest.raises(ValueError, match="cannot leave out 'inertia'"):
        symdyn.load_robot(ROBOTS / "planar2.yaml", without=["inertia"])


def test_check_and_info_take_a_variant():
    runner = CliRunner()
    result = runner.invoke(main, ["check", "planar2", "--without", "gravity", "--states", "5",
                                  "-q"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("planar2_no_gravity: 2 joints")
    result = runner.invoke(main, ["info", "planar2", "--without", "gravity"])
    assert "free symbols: m1, m2, l1, l2\n" in result.stdout
    bad = runner.invoke(main, ["info", "planar2", "--without", "inertia"])
    assert bad.exit_code == 2 and "'inertia' is not one of 'friction', 'gravity'" in bad.output
