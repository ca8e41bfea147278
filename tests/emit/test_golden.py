"""generated/ holds exactly what the current code makes, and making it is deterministic.

Run with SYMDYN_UPDATE_GOLDEN=1 (or `python3 dev.py regenerate`) to rewrite generated/.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support import ROBOTS, ROOT

import symdyn
from symdyn.emit.backends import BACKENDS

UPDATE = os.environ.get("SYMDYN_UPDATE_GOLDEN") == "1"
# The languages generated/ holds, as `dev.py regenerate` writes them: every robot in one folder.
# C++'s package takes a folder of its own (its CMakeLists.txt); tests/emit/test_cpp.py builds it.
GOLDEN = [lang for lang in BACKENDS if lang != "cpp"]
ROBOT_FILES = sorted(ROBOTS.glob("*.yaml"))


@pytest.mark.parametrize("robot_file", ROBOT_FILES, ids=[p.stem for p in ROBOT_FILES])
def test_generated_folder_is_up_to_date(tmp_path, monkeypatch, robot_file):
    monkeypatch.chdir(ROOT)       # headers name the robot file relative to where symdyn runs
    dynamics = symdyn.newton_euler(symdyn.load_robot(robot_file.relative_to(ROOT)))
    for path in symdyn.generate(dynamics, GOLDEN, tmp_path):
        committed = ROOT / "generated" / path.name
        if UPDATE:
            committed.write_bytes(path.read_bytes())
        assert committed.exists(), f"{committed} is missing: run `python3 dev.py regenerate`"
        assert committed.read_bytes() == path.read_bytes(), (
            f"{committed} is stale: run `python3 dev.py regenerate`")


def test_generation_is_byte_identical_across_runs_and_hash_seeds(tmp_path):
    outputs = []
    for seed in ("0", "12345"):
        out = tmp_path / seed
        langs = [arg for lang in BACKENDS for arg in ("--lang", lang)]
        subprocess.run([sys.executable, "-m", "symdyn.cli", "generate", "robots/planar2.yaml",
                        *langs, "--out", str(out), "-q"], cwd=ROOT, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True)
        outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    # Python, the C header, source and CMake file, CasADi's, JAX's, C++'s interface and CMake
    # package
    assert len(outputs[0]) == 8
    assert outputs[0] == outputs[1]
    for name, data in outputs[0].items():
        if name not in ("CMakeLists.txt", "planar2.hpp"):      # GOLDEN's languages
            assert data == (ROOT / "generated" / name).read_bytes()
