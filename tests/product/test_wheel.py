"""An installed wheel carries its templates: generation works away from the source tree."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest
from support import ROBOTS, ROOT


@pytest.mark.slow
def test_wheel_generates_without_the_source_tree(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                    "--disable-pip-version-check", "-w", str(tmp_path / "dist"), str(ROOT)],
                   check=True)
    (wheel,) = (tmp_path / "dist").glob("symdyn-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert "symdyn/templates/python/module.py.j2" in archive.namelist()
        assert "symdyn/robots/puma560.yaml" in archive.namelist()
        archive.extractall(site)
    work = tmp_path / "elsewhere"
    work.mkdir()
    code = ("import symdyn, sys; d = symdyn.newton_euler(symdyn.load_robot(sys.argv[1])); "
            "print(symdyn.generate(d, 'python', 'out')[0])")
    result = subprocess.run([sys.executable, "-c", code, str(ROBOTS / "planar2.yaml")],
                            cwd=work, env={**os.environ, "PYTHONPATH": str(site)},
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (work / "out" / "planar2.py").exists()
    by_name = subprocess.run([sys.executable, "-m", "symdyn", "info", "planar2"], cwd=work,
                             env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True,
                             text=True)
    assert by_name.returncode == 0 and by_name.stdout.startswith("planar2: 2 joints")
    assert str(site) in subprocess.run(
        [sys.executable, "-c", "import symdyn; print(symdyn.__file__)"], cwd=work,
        env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True).stdout
