"""A robot's files are one set: a write killed at any step leaves the old set, or a journal that
the next write finishes (and that, until then, the Python module and the C refuse); concurrent
writers into one folder leave each other's files alone; names too long for a path are refused
or shortened, never a traceback."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner
from support import ROBOTS, import_file

import symdyn
from symdyn.cli import main
from symdyn.emit import write
from symdyn.emit.build import STRICT

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")
PLANAR = ROBOTS / "planar2.yaml"
STEPS = ("_stage", "_write_journal", "_remove")   # write's own steps, besides os's renames

KILLED_WRITE = """
    import os, sys, symdyn
    from symdyn.emit import write
    target = int(sys.argv[1])
    count = [0]
    def step(function):
        def counted(*args, **kwargs):
            count[0] += 1
            if count[0] == target:
                os.kill(os.getpid(), 9)
            return function(*args, **kwargs)
        return counted
    for name in {steps!r}:
        setattr(write, name, step(getattr(write, name)))
    write.os.replace, write.os.link = step(os.replace), step(os.link)
    d = symdyn.newton_euler(symdyn.load_robot({robot!r}))
    symdyn.generate(d, ["python", "c"], {out!r}, values={{"g": 2}})
    print("finished after", count[0], "steps")
"""


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """The planar arm's files with g = 1 (the old set) and g = 2 (the new)."""
    dynamics = symdyn.newton_euler(symdyn.load_robot(PLANAR))
    folders = {}
    for g in (1, 2):
        folders[g] = tmp_path_factory.mktemp(f"g{g}")
        symdyn.generate(dynamics, ["python", "c"], folders[g], values={"g": g})
    return {g: _files(folder) for g, folder in folders.items()}


@needs_gcc
@pytest.mark.slow
def test_a_write_killed_at_any_step_leaves_one_set_or_a_journal_that_finishes(tmp_path, sets):
    script = textwrap.dedent(KILLED_WRITE).format(steps=STEPS, robot=str(PLANAR),
                                                  out=str(tmp_path / "out"))
    out = tmp_path / "out"

    def old_set():
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        for name, data in sets[1].items():
            (out / name).write_bytes(data)

    old_set()
    done = subprocess.run([sys.executable, "-c", script, "0"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    total = int(done.stdout.split()[2])
    assert total >= 11    # three files staged, a journal, three old files kept and replaced, ...
    seen = set()
    for target in range(1, total + 1):
        old_set()
        killed = subprocess.run([sys.executable, "-c", script, str(target)], capture_output=True,
                                text=True)
        assert killed.returncode == -9, (target, killed.stderr)
        visible = {k: v for k, v in _files(out).items() if not k.startswith(".")}
        journal = list(out.glob(f".*{write.JOURNAL}"))
        if journal:
            seen.add("journal")
            if visible != sets[2]:
                seen.add("mixed")
                with pytest.raises(ImportError, match="cut short"):
                    import_file(out / "planar2.py", f"killed_{target}")
                old_h, old_c = (visible[f] == sets[1][f] for f in ("planar2.h", "planar2.c"))
                if old_h != old_c:
                    compiled = subprocess.run(["gcc", *STRICT, "-c", str(out / "planar2.c"),
                                               "-o", str(tmp_path / "x.o")],
                                              capture_output=True, text=True)
                    assert compiled.returncode and "generate them again" in compiled.stderr
                    seen.add("mixed C refused")
        else:
            assert visible in (sets[1], sets[2]), target
            seen.add("old" if visible == sets[1] else "new")
        write.recover(out)           # as the next write into the folder does first
        after = _files(out)
        assert after in (sets[1], sets[2]), target
        if journal:
            assert after == sets[2]
        import_file(out / "planar2.py", f"recovered_{target}")
    assert {"old", "journal", "mixed", "mixed C refused"} <= seen


def test_concurrent_writers_leave_each_other_alone(tmp_path):
    """Two processes writing sets into one folder at once, many times: neither fails, and the
    folder ends with one whole set."""
    script = textwrap.dedent("""
        import sys
        from symdyn.emit.write import write_files
        me = sys.argv[1]
        for i in range(150):
            write_files({f"r.{ext}": f"{me} {i}\\n" * 1000 for ext in ("py", "h", "c")},
                        sys.argv[2])
    """)
    writers = [subprocess.Popen([sys.executable, "-c", script, who, str(tmp_path)],
                                stderr=subprocess.PIPE, text=True) for who in ("a", "b")]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    files = _files(tmp_path)
    assert sorted(files) == ["r.c", "r.h", "r.py"]
    assert len(set(files.values())) == 1


def test_a_file_replaced_by_another_run_while_it_is_kept_is_kept_again(tmp_path, monkeypatch):
    """link() of a file that another run renames over at that moment fails with ENOENT on
    Linux though the name still stands (the rare failure of the test above): the write keeps
    the file that now stands, and goes on."""
    write.write_files({"r.py": "old\n"}, tmp_path)
    link, calls = os.link, []

    def replaced_meanwhile(source, destination):
        calls.append(source)
        if len(calls) == 1:
            raise FileNotFoundError(2, "No such file or directory", str(source))
        return link(source, destination)

    monkeypatch.setattr(write.os, "link", replaced_meanwhile)
    write.write_files({"r.py": "new\n"}, tmp_path)
    assert len(calls) == 2 and _files(tmp_path) == {"r.py": b"new\n"}


def test_a_journal_from_a_run_still_going_is_left_alone(tmp_path):
    live = tmp_path / f".planar2.{write.staging.tag()}{write.JOURNAL}"
    live.write_text("complete\n")
    write.write_files({"x.txt": "x"}, tmp_path)
    assert live.exists()
    symdyn.generate(symdyn.newton_euler(symdyn.load_robot(PLANAR)),
                    ["python", "casadi", "jax"], tmp_path, quantities=["gravity_torques"])
    for name in ("planar2.py", "planar2_casadi.py", "planar2_jax.py"):    # every Python module
        with pytest.raises(ImportError, match="cut short"):
            import_file(tmp_path / name, f"live_journal_{name[:-3]}")


@needs_gcc
def test_c_files_of_two_runs_refuse_to_compile(tmp_path, sets):
    for name, data in sets[2].items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "planar2.h").write_bytes(sets[1]["planar2.h"])
    mixed = subprocess.run(["gcc", *STRICT, "-c", str(tmp_path / "planar2.c"), "-o",
                            str(tmp_path / "x.o")], capture_output=True, text=True)
    assert mixed.returncode and "planar2.h is not the header symdyn wrote" in mixed.stderr
    (tmp_path / "planar2.h").write_bytes(sets[2]["planar2.h"])
    subprocess.run(["gcc", *STRICT, "-c", str(tmp_path / "planar2.c"), "-o",
                    str(tmp_path / "x.o")], check=True)


def test_a_name_too_long_is_refused_or_shortened(tmp_path):
    long = "r" * 10_000
    robot = tmp_path / "long.yaml"
    robot.write_text(PLANAR.read_text().replace("name: planar2", f"name: {long}"))
    result = CliRunner().invoke(main, ["generate", str(robot), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "at most 64" in result.output and "10000 characters" in result.output
    assert not (tmp_path / "o").exists()
    urdf = tmp_path / "long.urdf"
    urdf.write_text(f'<robot name="{long}"><link name="a"><inertial><mass value="1"/>'
                    '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
                    '</link><link name="b"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>'
                    '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
                    '</link><joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
                    '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                    '</joint></robot>')
    imported = CliRunner().invoke(main, ["import", str(urdf), "-o", str(tmp_path / "r.yaml")])
    assert imported.exit_code == 0, imported.output
    generated = CliRunner().invoke(main, ["generate", str(tmp_path / "r.yaml"), "-q",
                                          "--out", str(tmp_path / "gen")])
    assert generated.exit_code == 0, generated.output
    (name,) = os.listdir(tmp_path / "gen")
    assert len(name) <= 64 + 3
    deep = tmp_path / ("d" * 250) / ("e" * 250)
    result = CliRunner().invoke(main, ["generate", str(PLANAR), "--out", str(deep / ("f" * 300))])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "too long" in result.output


def test_generate_may_forget_its_derivations_and_derive_them_again(tmp_path):
    """The command line's generate lets the dynamics forget what they derived once it is
    optimized (the memory a large robot's derivations hold); asked again, they derive the same
    programs, and the files are the same bytes."""
    dynamics = symdyn.newton_euler(symdyn.load_robot(PLANAR))
    before = dynamics.program("inverse_dynamics")
    kept = symdyn.generate(dynamics, "python", tmp_path / "kept")
    forgotten = symdyn.generate(dynamics, "python", tmp_path / "forgotten",
                                keep_derivations=False)
    again = dynamics.program("inverse_dynamics")
    assert again is not before and again.assignments == before.assignments
    assert [p.read_bytes() for p in kept] == [p.read_bytes() for p in forgotten]


def test_a_text_rendered_in_pieces_is_written_as_the_whole_text(tmp_path, monkeypatch):
    from symdyn import api
    from symdyn.emit import render
    monkeypatch.setattr(render, "PIECE", 2000)      # the planar arm's C in many pieces
    dynamics = symdyn.newton_euler(symdyn.load_robot(PLANAR))
    values, programs = api._optimized(dynamics, None, None, lambda m: None)
    module = api._module(dynamics, programs, render.backend("c"), values)
    whole = render.render(module, render.backend("c"))
    pieces = render.render(module, render.backend("c"), pieces=True)
    assert whole.keys() == pieces.keys()
    source = pieces["planar2.c"]
    assert len(source) > 3 and all(len(p) < 2000 + 10_000 for p in source)
    # the code set's digest, over the pieces as over the whole, put in where the header and
    # the source name it
    digest = re.search(r"PLANAR2_CODE_SET (0x[0-9a-f]{15})", whole["planar2.h"])[1]
    assert f"PLANAR2_CODE_SET != {digest}" in "".join(source)
    write.write_files(pieces, tmp_path)
    for name, text in whole.items():
        assert (tmp_path / name).read_text() == text
