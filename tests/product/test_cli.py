"""The symdyn command, as a user types it."""
from __future__ import annotations

import numpy as np
from click.testing import CliRunner
from support import ROBOTS, import_file

from symdyn import api
from symdyn.cli import main


def test_generate_writes_an_importable_module_and_reports_progress(tmp_path):
    result = CliRunner().invoke(main, ["generate", str(ROBOTS / "puma560.yaml"), "--lang",
                                       "python", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert str(tmp_path / "puma560.py") in result.stdout
    assert "outward recursion, link 6/6" in result.stderr
    assert "optimizing" in result.stderr
    module = import_file(tmp_path / "puma560.py", "cli_puma")
    assert module.inverse_dynamics(np.zeros(6), np.zeros(6), np.zeros(6)).shape == (6,)


def test_generate_in_several_languages_says_which_of_them_it_writes(tmp_path, monkeypatch):
    # each language takes 10 s on the clock generate reads: after the first, the time the rest
    # will take at that rate
    clock = iter([0, 0, 10, 20])    # at the start, then at each announcement
    monkeypatch.setattr(api, "monotonic", lambda: next(clock))
    result = CliRunner().invoke(main, ["generate", str(ROBOTS / "planar2.yaml"), "--lang",
                                       "python", "--lang", "c", "--lang", "jax",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "writing python code (1 of 3 languages)\n" in result.stderr
    assert "writing c code (2 of 3 languages, about 20 s of writing left)" in result.stderr
    assert "writing jax code (3 of 3 languages, about 10 s of writing left)" in result.stderr


def test_quiet_generate_prints_only_the_files(tmp_path):
    result = CliRunner().invoke(main, ["generate", str(ROBOTS / "planar2.yaml"), "-q",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.strip() == str(tmp_path / "planar2.py")


def test_info_shows_table_symbols_and_operation_count():
    result = CliRunner().invoke(main, ["info", str(ROBOTS / "planar2.yaml")])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "planar2: 2 joints, modified DH" in out
    assert "free symbols: m1, m2, l1, l2, g" in out
    assert "inverse_dynamics" in out and "coriolis_matrix" in out and "->" in out
    puma = CliRunner().invoke(main, ["info", str(ROBOTS / "puma560.yaml")]).stdout
    assert "0.4318" in puma and "free symbols: none" in puma


def test_misuse_exits_2():
    runner = CliRunner()
    assert runner.invoke(main, ["generate"]).exit_code == 2
    assert runner.invoke(main, ["generate", str(ROBOTS / "puma560.yaml"), "--lang", "cobol"]
                         ).exit_code == 2
    result = runner.invoke(main, ["info", "no/such/robot.yaml"])
    assert result.exit_code == 2 and "cannot read the file" in result.output


def test_unwritable_output_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(main, ["generate", str(ROBOTS / "planar2.yaml"), "-q",
                                       "--out", str(blocker / "sub")])
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Traceback" not in result.output


def test_shipped_robots_load_by_name_and_every_command_takes_quiet(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                 # no file of that name here
    result = CliRunner().invoke(main, ["info", "planar2", "-q"])
    assert result.exit_code == 0 and result.stdout.startswith("planar2: 2 joints")
    unknown = CliRunner().invoke(main, ["info", "planar3"])
    assert unknown.exit_code == 2 and "neither a file nor the name of a shipped robot" in (
        unknown.output) and "puma560" in unknown.output
    for command in main.commands:
        assert "-q, --quiet" in CliRunner().invoke(main, [command, "--help"]).output, command
    imported = CliRunner().invoke(main, ["export-urdf", "planar2", "--set", "m1=1", "--set",
                                         "m2=1", "--set", "l1=1", "--set", "l2=1", "--set",
                                         "g=9.81", "-o", "p.urdf", "-q"])
    assert imported.exit_code == 0, imported.output
    quiet = CliRunner().invoke(main, ["import", "p.urdf", "-o", "p.yaml", "-q"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
