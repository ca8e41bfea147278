"""The documentation: the site builds strictly, and its tutorials and examples run as written."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import reference_pages  # docs/reference_pages.py
import tutorial_files  # docs/tutorial_files.py, which a reader runs too
from support import ROOT

TUTORIALS = ROOT / "docs" / "tutorials"
BIN = Path(sys.executable).parent          # symdyn, mkdocs and cmake beside this Python


def _environment():
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "NO_MKDOCS_2_WARNING": "1"}


def _run(command, cwd, timeout=600):
    result = subprocess.run(command, cwd=cwd, env=_environment(), capture_output=True,
                            text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_site_builds_strictly(tmp_path):
    """A broken link, a page missing from the navigation or an include that finds no file
    fails the build (mkdocs.yml: strict)."""
    _run([BIN / "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")], ROOT)
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "symdyn identify" in cli and "--write-robot" in cli     # from click itself
    tutorial = (tmp_path / "site" / "tutorials" / "optimal-control" / "index.html").read_text()
    assert "forward_dynamics_derivatives" in tutorial and "step_jacobians" in tutorial


def test_the_command_lines_reference_names_every_command_as_it_stands():
    """docs/reference/cli.md reads in the repository too: a line for every command in its
    table, and each command's --help below it."""
    from symdyn.cli import main

    text = (ROOT / "docs" / "reference" / "cli.md").read_text()
    listed = re.findall(r"^\| `symdyn ([a-z-]+)", text, flags=re.M)
    assert sorted(listed) == sorted(main.commands)
    assert sorted(re.findall(r"^## symdyn ([a-z-]+)$", text, flags=re.M)) == sorted(main.commands)


@pytest.mark.parametrize("page", sorted(reference_pages.PAGES))
def test_the_reference_pages_are_current(page):
    """cli.md's --help texts and python-api.md's signatures and docstrings are generated into
    the Markdown (docs/reference_pages.py), to read without a build: as the code now has
    them (`python3 dev.py regenerate` writes them)."""
    assert (ROOT / page).read_text(encoding="utf-8") == reference_pages.page(page), (
        f"{page} is not current: python3 docs/reference_pages.py")
    assert ":::" not in (ROOT / page).read_text(encoding="utf-8")     # no build-only directive


def _copy(name, tmp_path) -> Path:
    """The tutorial page's files (its titled code blocks), written into a folder of their
    own, as a reader does with docs/tutorial_files.py."""
    folder = tmp_path / name
    written = tutorial_files.write(TUTORIALS / f"{name.replace('_', '-')}.md", folder)
    assert written, f"{name}: the page shows no file"
    return folder


@pytest.mark.slow
def test_cpp_controller_tutorial(tmp_path):
    out = _run(["sh", "run.sh"], _copy("cpp_controller", tmp_path))
    error = float(re.search(r"tracking error over the last second: (\S+) rad", out).group(1))
    assert error < 1e-4
    assert "joints shoulder_pan_joint to wrist_3_joint" in out


@pytest.mark.slow
def test_identification_tutorial(tmp_path):
    folder = _copy("identification", tmp_path)
    out = _run([sys.executable, "identify.py"], folder)
    assert "58 base parameters from 1000 samples" in out
    assert float(re.search(r"largest error in deviations: (\S+)", out).group(1)) < 4.5
    for plot in ("excitation-and-residuals.png", "estimates.png"):
        assert (folder / "build" / plot).stat().st_size > 10_000


@pytest.mark.slow
def test_optimal_control_tutorial(tmp_path):
    out = _run([sys.executable, "shooting.py"], _copy("optimal_control", tmp_path))
    assert "finite differences" in out and "terminal cost by iteration" in out


def test_casadi_swing_up_tutorial(tmp_path):
    out = _run([sys.executable, "swing_up.py"], _copy("casadi_swing_up", tmp_path))
    assert "IPOPT: Solve_Succeeded" in out
    assert float(re.search(r"distance from upright: (\S+)", out).group(1)) < 1e-8


def test_jax_fit_tutorial(tmp_path):
    out = _run([sys.executable, "fit.py"], _copy("jax_fit", tmp_path))
    found = re.search(r"found \[(\S+), (\S+)\], true", out)
    assert abs(float(found.group(1)) - 1.2) < 1e-3 and abs(float(found.group(2)) - 0.6) < 1e-3


def test_the_pictures_of_robots_are_what_draw_makes_and_each_is_shown(tmp_path):
    """docs/img/frames/ holds what `symdyn draw` makes of each robot (docs/pictures.py), byte
    for byte, and every page that shows a robot shows one of them."""
    import pictures

    for name in pictures.PICTURES:
        assert (pictures.FOLDER / name).read_bytes() == pictures.make(name, tmp_path), (
            f"docs/img/frames/{name} is stale: run python3 dev.py regenerate")
    shown = "".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for name in pictures.PICTURES:
        assert f"img/frames/{name}" in shown, f"no page shows {name}"


def test_four_bar_tutorial(tmp_path):
    out = _run([sys.executable, "fourbar.py"], _copy("four_bar", tmp_path))
    assert "actuated ('crank',)" in out and out.count("pin force") == 5
    found = re.search(r"follows its motion to (\S+) rad, the loop stays closed to (\S+) m", out)
    assert float(found.group(1)) < 1e-9 and float(found.group(2)) < 1e-10


def test_delta_tutorial(tmp_path):
    """The Delta's arms swung: the loops close at every step (close_loops asserts it), the
    platform goes round level, and the page's robot file is the tests' own."""
    folder = _copy("delta", tmp_path)
    assert (folder / "delta.yaml").read_text() == (
        ROOT / "tests" / "derive" / "mechanisms" / "delta.yaml").read_text()
    out = _run([sys.executable, "delta.py"], folder)
    assert "actuated ('arm1', 'arm2', 'arm3')" in out and out.count("arm torques") == 5
    assert float(re.search(r"level to (\S+)", out).group(1)) < 1e-12


def test_elastic_joints_tutorial(tmp_path):
    """The rigid model's torques leave the elastic arm ringing; the feedforward's keep it on
    the motion; the page's robot file is the tests' own."""
    folder = _copy("elastic_joints", tmp_path)
    assert (folder / "elastic_arm.yaml").read_text() == (
        ROOT / "tests" / "derive" / "mechanisms" / "elastic_arm.yaml").read_text()
    out = _run([sys.executable, "elastic.py"], folder)
    errors = dict(re.findall(r"(rigid model|elastic feedforward)\s*: the links within (\S+) rad",
                             out))
    assert float(errors["rigid model"]) > 1e-3 and float(errors["elastic feedforward"]) < 1e-9


@pytest.mark.slow
def test_first_dh_arm_tutorial(tmp_path):
    """The course's first hour, as the page shows it: the table read, drawn, derived and
    generated, the code called with its symbols' numbers by name, and the page's quoted lines
    (a torque's closed form, a mistake's warning) what symdyn prints."""
    page = (TUTORIALS / "first-dh-arm.md").read_text()
    folder = _copy("first_dh_arm", tmp_path)
    result = subprocess.run(["sh", "run.sh"], cwd=folder, env=_environment(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "holding the arm at q takes" in result.stdout and "the swing takes" in result.stdout
    assert (folder / "elbow.svg").stat().st_size > 1000 and (folder / "elbow.md").exists()
    quoted = re.search(r"```text\n(τ₃ = \[.*?), \.\.\.\]\n```", page)[1]
    assert f"  {quoted}, " in (folder / "elbow.txt").read_text()
    warning = re.search(r"```text\n(warning: typo\.yaml.*)\n```", page)[1]
    assert warning in result.stderr


def test_symbolic_equations_guide(tmp_path):
    """The guide's script, run as written: the book's closed forms hold, and it writes the
    LaTeX of the derivation."""
    written = tutorial_files.write(ROOT / "docs" / "guide" / "symbolic.md", tmp_path)
    assert [p.name for p in written] == ["equations.py"]
    out = _run([sys.executable, "equations.py"], tmp_path)
    assert "(m1, m2, l1, l2, g)" in out and (tmp_path / "planar2.tex").stat().st_size > 5000


def test_getting_started_examples_run(tmp_path):
    """The Python on the getting-started page, run as one script from an empty folder."""
    text = (ROOT / "docs" / "getting-started.md").read_text()
    code = "\n".join(re.findall(r"```python\n(.*?)```", text, flags=re.S))
    assert "symdyn.compile" in code
    script = tmp_path / "example.py"
    script.write_text(code)
    _run([sys.executable, str(script)], tmp_path)


@pytest.mark.slow
def test_the_readmes_tour_runs_as_written(tmp_path):
    """Each line of the README's five-minute tour, from the repository's folder, its build/
    a folder of the test's: every file it names is in the repository or made by a line
    before it, and every command exits 0."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## A five-minute tour", 1)[1].split("```sh\n", 1)[1].split("```")[0]
    symdyn = Path(sys.executable).parent / "symdyn"
    for line in block.splitlines():
        command = line.split("#")[0].replace("build/", f"{tmp_path}/").split()
        assert command[0] == "symdyn", line
        result = subprocess.run([str(symdyn), *command[1:], "-q"], cwd=ROOT,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, line + "\n" + result.stdout[-2000:] + result.stderr
