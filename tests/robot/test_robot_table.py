"""robot/table.py: the one place a robot file's tables are made, for info, printouts and headers."""
from __future__ import annotations

import sympy
from support import ROBOTS

import symdyn
from symdyn.robot import table


def test_the_dh_table_shows_the_file_or_its_joint_variables():
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    plain = table.geometry(robot.spec)
    assert plain.header == ("i", "joint", "a", "alpha", "d", "theta")
    assert [table.text(c) for c in plain.rows[0]] == ["1", "revolute", "0", "pi/2", "0.672", "0"]
    moving = table.geometry(robot.spec, robot.q)
    assert moving.rows[1][5] == sympy.Symbol("q2")     # theta of a revolute joint: + q


def test_cells_as_text_and_columns():
    assert table.text((sympy.Rational(1, 2), sympy.pi / 2, 0)) == "[0.5, pi/2, 0]"
    assert table.columns([("i", "joint"), ("10", "revolute")]) == ("i   joint", "10  revolute")


def test_every_view_shows_the_same_table(tmp_path):
    """The generated header's DH rows are the table's, as text."""
    robot = symdyn.load_robot(ROBOTS / "panda.yaml")
    (c_header,) = [p for p in symdyn.generate(symdyn.newton_euler(robot), "c", tmp_path,
                                              quantities=["gravity_torques"])
                   if p.suffix == ".h"]
    text = c_header.read_text()
    for row in table.geometry(robot.spec).rows:
        assert " ".join(table.text(c) for c in row[1:]) in " ".join(text.split()), row
