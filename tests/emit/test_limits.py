"""Joint limits: read from the robot file, exported by the Python module, the C header (as
initializers) and the compiled module, infinite where the file gives none."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from support import import_file

import symdyn
from symdyn.emit.build import STRICT

ARM = """\
name: lim
convention: standard
parameters: {reach: 2.8}
links:
  - {joint: revolute, a: 0.3, alpha: 0, d: 0, theta: 0, mass: 1,
     limits: {lower: -reach, upper: reach, velocity: 3.2, effort: 150}}
  - {joint: revolute, a: 0.2, alpha: 0, d: 0, theta: 0, mass: 1}
  - {joint: prismatic, a: 0, alpha: 0, d: 0, theta: 0, mass: 1,
     limits: {upper: 0.4, effort: 300}}
"""
EXPECTED = {"Q_MIN": [-2.8, -np.inf, -np.inf], "Q_MAX": [2.8, np.inf, 0.4],
            "QD_MAX": [3.2, np.inf, np.inf], "TAU_MAX": [150, np.inf, 300]}


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
def test_limits_reach_python_c_and_the_compiled_module(tmp_path):
    path = tmp_path / "lim.yaml"
    path.write_text(ARM)
    dynamics = symdyn.newton_euler(symdyn.load_robot(path))
    symdyn.generate(dynamics, ["python", "c"], tmp_path, quantities=["gravity_torques"])
    python = import_file(tmp_path / "lim.py", "limits_python")
    compiled = symdyn.compile(dynamics, quantities=["gravity_torques"], cache=tmp_path / "cache")
    for name, values in EXPECTED.items():
        np.testing.assert_array_equal(getattr(python, name), values)
        np.testing.assert_array_equal(getattr(compiled, name), values)
    (tmp_path / "use.c").write_text(
        '#include <math.h>\n#include <stdio.h>\n#include "lim.h"\n'
        "int main(void) { static const double q_max[LIM_DOF] = LIM_Q_MAX;\n"
        '  printf("%g %d\\n", q_max[2], q_max[1] == HUGE_VAL); return 0; }\n')
    subprocess.run(["gcc", *STRICT, str(tmp_path / "use.c"), "-o", str(tmp_path / "use")],
                   check=True)
    assert subprocess.run([str(tmp_path / "use")], capture_output=True, text=True,
                          check=True).stdout.split() == ["0.4", "1"]


def test_files_without_limits_export_none(tmp_path):
    path = tmp_path / "free.yaml"
    path.write_text(ARM.replace("limits: {lower: -reach, upper: reach, velocity: 3.2, effort: 150}",
                                "com: [0, 0, 0]").replace("limits: {upper: 0.4, effort: 300}",
                                                          "com: [0, 0, 0]")
                    .replace("parameters: {reach: 2.8}\n", ""))
    module = symdyn.python_module(symdyn.newton_euler(symdyn.load_robot(path)),
                                  quantities=["gravity_torques"])
    assert not hasattr(module, "Q_MIN")


@pytest.mark.parametrize("limits, words", [
    ("{lower: 1, upper: -1}", "above the upper"),
    ("{velocity: 0}", "must be positive"),
    ("{effort: -5}", "must be positive"),
    ("{upper: k}", "not a number"),
    ("{top: 1}", "unknown key"),
    ("[1, 2]", "mapping"),
])
def test_bad_limits_are_located(tmp_path, limits, words):
    path = tmp_path / "bad.yaml"
    path.write_text(ARM.replace("limits: {upper: 0.4, effort: 300}", f"limits: {limits}"))
    with pytest.raises(symdyn.RobotFileError, match=words) as info:
        symdyn.load_robot(path)
    assert info.value.line == 9 and info.value.field.startswith("link 3.limits")


FLOATING = """\
name: floating_lim
convention: urdf
root: free_flyer
base_body: {mass: 3, inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
links:
  - {name: shoulder, joint: spherical, origin: {xyz: [0, 0, 0.1]}, mass: 1,
     inertia: [0.01, 0.01, 0.01, 0, 0, 0]}
  - {name: elbow, joint: revolute, axis: [0, 1, 0], origin: {xyz: [0.3, 0, 0]}, mass: 1,
     limits: {lower: -2, upper: 2.5, velocity: 4, effort: 30}}
"""


def test_each_joint_kinds_limits_lead_as_pinocchios_model_has_them(tmp_path):
    """A floating base's and a spherical joint's entries by their kinds (robot/joints.py):
    the base's position unbounded, every quaternion's entries within [-1, 1], their
    velocities and torques unbounded; the revolute joint's from the file."""
    path = tmp_path / "floating_lim.yaml"
    path.write_text(FLOATING)
    dynamics = symdyn.newton_euler(symdyn.load_robot(path))
    symdyn.generate(dynamics, ["python"], tmp_path, quantities=["gravity_torques"])
    python = import_file(tmp_path / "floating_lim.py", "limits_floating")
    inf = np.inf
    np.testing.assert_array_equal(python.Q_MIN, [-inf] * 3 + [-1] * 4 + [-1] * 4 + [-2])
    np.testing.assert_array_equal(python.Q_MAX, [inf] * 3 + [1] * 4 + [1] * 4 + [2.5])
    np.testing.assert_array_equal(python.QD_MAX, [inf] * 6 + [inf] * 3 + [4])
    np.testing.assert_array_equal(python.TAU_MAX, [inf] * 6 + [inf] * 3 + [30])
