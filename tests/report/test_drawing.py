"""symdyn draw: the frames' origins drawn where the generated kinematics put them (read back
from the SVG), for a chain, a tree with a loop and a floating base, in every view; bad
configurations refused in one line; the same picture twice."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support import ROBOTS

import symdyn
from symdyn.cli import main
from symdyn.report.drawing import VIEWS, projection
from symdyn.robot.poses import normalized

pytest.importorskip("matplotlib")
MECHANISMS = Path(__file__).parent.parent / "derive" / "mechanisms"
ROBOT_FILES = [ROBOTS / "puma560.yaml", MECHANISMS / "fivebar.yaml", ROBOTS / "space_arm.yaml",
               MECHANISMS / "ball_tree.yaml"]


def _drawn(svg: str, prefix: str) -> dict[int, np.ndarray]:
    """Each marker ``<prefix>-<k>``'s place on the page, SVG's (x right, y down)."""
    out = {}
    for k, body in re.findall(rf'<g id="{prefix}-(\d+)">(.*?)</g>', svg, flags=re.S):
        x, y = re.search(r'<use [^>]*x="([-\d.e]+)" y="([-\d.e]+)"', body).groups()
        out[int(k)] = np.array([float(x), float(y)])
    return out


def _random_q(robot, rng):
    q = normalized(robot, dict(zip(robot.q, rng.uniform(-1.5, 1.5, robot.nq))))
    return np.array([q[s] for s in robot.q])


@pytest.mark.parametrize("path", ROBOT_FILES, ids=[p.stem for p in ROBOT_FILES])
@pytest.mark.parametrize("view", list(VIEWS))
def test_the_origins_are_drawn_where_the_kinematics_put_them(tmp_path, path, view):
    """The base's, each link's and each named frame's origin, as the generated link_poses and
    frame_poses place them, projected along the view: the drawn markers are their image
    under one scale and shift (the page's), to 1e-4 of the picture's size."""
    robot = symdyn.load_robot(path)
    module = symdyn.python_module(symdyn.newton_euler(robot), quantities=[
        "link_poses", "frame_poses", "forward_kinematics"] if robot.frames else [
        "link_poses", "forward_kinematics"])
    q = _random_q(robot, np.random.default_rng(len(view)))
    out = tmp_path / "robot.svg"
    text = ",".join(repr(float(x)) for x in q)
    result = CliRunner().invoke(main, ["draw", str(path), "--q", text, "--view", view, "-o",
                                       str(out), "-q"])
    assert result.exit_code == 0, result.output
    svg = out.read_text()
    base = np.eye(4)
    if robot.floating:
        base[:3, :3] = np.array(symdyn.robot.model.quaternion_rotation(q[3:7]), dtype=float)
        base[:3, 3] = q[:3]
    else:
        base = np.array(robot.base, dtype=float)
    world = [base[:3, 3]] + [T[:3, 3] for T in module.link_poses(q)]
    named = [T[:3, 3] for T in module.frame_poses(q)] if robot.frames else []
    # the tool, where the file names one or the robot is a chain (a tree's last link is no
    # tool: the label landed on a foot)
    if "tool" not in [f.name for f in robot.frames] and (robot.spec.tool is not None
                                                         or not robot.branched):
        named.append(module.forward_kinematics(q)[:3, 3])
    drawn = _drawn(svg, "origin") | {len(world) + k: v for k, v in _drawn(svg, "frame").items()}
    assert sorted(drawn) == list(range(len(world) + len(named)))
    page = np.array([drawn[k] for k in sorted(drawn)])
    u, v = projection(view) @ np.array(world + named).T
    # x = s u + a, y = -s v + b (SVG's y grows down), s, a and b fitted
    A = np.zeros((2 * len(u), 3))
    A[0::2, 0], A[0::2, 1] = u, 1
    A[1::2, 0], A[1::2, 2] = -v, 1
    fit, *_ = np.linalg.lstsq(A, page.ravel(), rcond=None)
    assert fit[0] > 0
    assert np.abs(A @ fit - page.ravel()).max() < 1e-4 * np.ptp(page)


@pytest.mark.parametrize("q, words", [
    ("0,1", "--q gives 2 numbers; puma560 takes 6"),
    ("0,1,2,3,4,nan", "holds a number that is not finite"),
    ("0,1,2,x,4,5", "is not a list of numbers"),
])
def test_a_bad_configuration_is_refused_in_one_line(tmp_path, q, words):
    out = tmp_path / "out" / "p.svg"
    result = CliRunner().invoke(main, ["draw", "puma560", "--q", q, "-o", str(out), "-q"])
    assert result.exit_code == 2 and not out.parent.exists()
    (line,) = result.output.strip().splitlines()
    assert words in line


@pytest.mark.parametrize("path, q, whose", [
    (ROBOTS / "space_arm.yaml", ["0"] * 3 + ["0", "0", "0", "2"] + ["0"] * 4, "the base's"),
    (MECHANISMS / "ball_tree.yaml", ["0.3", "0", "0", "0", "0"] + ["0"] * 6, "joint fore's"),
], ids=["floating base", "spherical joint"])
def test_a_quaternion_must_be_a_unit_one(tmp_path, path, q, whose):
    result = CliRunner().invoke(main, ["draw", str(path), "--q", ",".join(q),
                                       "-o", str(tmp_path / "p.svg"), "-q"])
    assert result.exit_code == 2 and f"{whose} quaternion" in result.output
    assert "is not a unit one" in result.output


def test_the_same_picture_twice_and_as_png(tmp_path):
    pictures = []
    for name in ("a.svg", "b.svg", "c.png"):
        result = CliRunner().invoke(main, ["draw", "puma560", "-o", str(tmp_path / name), "-q"])
        assert result.exit_code == 0, result.output
        pictures.append((tmp_path / name).read_bytes())
    assert pictures[0] == pictures[1]
    assert pictures[2][:8] == b"\x89PNG\r\n\x1a\n"
    result = CliRunner().invoke(main, ["draw", "puma560", "-o", str(tmp_path / "p.pdf")])
    assert result.exit_code == 2 and "written as .svg or .png" in result.output


def test_printouts_show_the_picture_beside_the_tables(tmp_path):
    """HTML holds the SVG itself; markdown and LaTeX name a picture written beside them (SVG,
    and PDF for pdflatex, which compiles the document with it where installed); a robot whose
    geometry has free symbols gets a note instead, and draw takes their values by --set."""
    import shutil
    import subprocess

    for fmt, name in (("html", "puma560.html"), ("markdown", "puma560.md"),
                      ("latex", "puma560.tex")):
        result = CliRunner().invoke(main, ["derive", "puma560", "--format", fmt, "-o",
                                           str(tmp_path / name), "-q"])
        assert result.exit_code == 0, result.output
    html = (tmp_path / "puma560.html").read_text()
    assert "<svg" in html and 'id="origin-6"' in html
    assert "![The frames at q = 0" in (tmp_path / "puma560.md").read_text()
    assert (tmp_path / "puma560-frames.svg").read_text().count('id="origin-') == 7
    assert "\\includegraphics[width=0.85\\linewidth]{puma560-frames.pdf}" in (
        tmp_path / "puma560.tex").read_text()
    assert (tmp_path / "puma560-frames.pdf").read_bytes()[:5] == b"%PDF-"
    if shutil.which("pdflatex"):
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                              "puma560.tex"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0, run.stdout[-2000:]
    result = CliRunner().invoke(main, ["derive", str(ROBOTS / "planar2.yaml"), "--format",
                                       "markdown", "-o", str(tmp_path / "p.md")])
    assert result.exit_code == 0 and "note: the printout has no picture" in result.output
    assert not list(tmp_path.glob("p-frames.*"))
    result = CliRunner().invoke(main, ["draw", str(ROBOTS / "planar2.yaml"), "--set", "l1=0.5",
                                       "--set", "l2=0.4", "-o", str(tmp_path / "p.svg"), "-q"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["draw", str(ROBOTS / "planar2.yaml"), "-o",
                                       str(tmp_path / "q.svg"), "-q"])
    assert result.exit_code == 2 and "has free symbols (l1)" in result.output


def test_names_are_drawn_as_text_never_as_mathtext(tmp_path):
    """A link named with matplotlib's math delimiters (a name is any text a file gives) is
    drawn as it is written: before, '$\\frac{$' ended the command in a traceback."""
    text = (MECHANISMS / "fourbar.yaml").read_text().replace("crank", '"c$\\\\frac{$k"')
    path = tmp_path / "fourbar.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["draw", str(path), "-o", str(tmp_path / "p.svg"), "-q"])
    assert result.exit_code == 0, result.output
    assert "c$\\frac{$k" in (tmp_path / "p.svg").read_text()


def test_constraints_are_drawn_and_a_tree_without_a_tool_has_none(tmp_path):
    """The five-bar: its loop is drawn (the constraint's colour, its name beside it), joined
    in the kinematic tree and said in the title; a tree whose file names no tool has no tool
    label (it landed on a foot)."""
    out = tmp_path / "fivebar.svg"
    result = CliRunner().invoke(main, ["draw", str(MECHANISMS / "fivebar.yaml"), "-o", str(out),
                                       "-q"])
    assert result.exit_code == 0, result.output
    svg = out.read_text()
    robot = symdyn.load_robot(MECHANISMS / "fivebar.yaml")
    (loop,) = robot.constraints
    assert "1 loop" in svg and f">{loop.name}</text>" in svg and "#c2188b" in svg
    assert ">tool</text>" not in svg


def test_labels_are_not_drawn_on_one_another(tmp_path):
    """The Cassie-kind biped of the MJCF tests, 20 joints and four loops, from the side,
    where its legs' frames line up: no two labels of the robot's panel overlap on the page
    (each text's box, 0.6 of its size a character wide and 1.1 high); they piled up."""
    yaml = tmp_path / "biped.yaml"
    source = Path(__file__).parents[1] / "robot" / "mjcf" / "cassie_biped.xml"
    assert CliRunner().invoke(main, ["import", str(source), "-o", str(yaml), "-q"]
                              ).exit_code == 0
    out = tmp_path / "biped.svg"
    result = CliRunner().invoke(main, ["draw", str(yaml), "--view", "side", "-o", str(out),
                                       "-q"])
    assert result.exit_code == 0, result.output
    panel = out.read_text().split('<g id="axes_2">')[0]
    boxes = []
    for size, anchor, x, y, text in re.findall(
            r'<text style="font-size: ([\d.]+)px;[^"]*?(?:text-anchor: (\w+);)?[^"]*" '
            r'x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)</text>', panel):
        width, height = 0.6 * float(size) * len(text), 1.1 * float(size)
        left = float(x) - (width if anchor == "end" else 0)
        boxes.append((left, float(y) - height, width, height, text))
    assert len(boxes) > 20
    for k, a in enumerate(boxes):
        for b in boxes[k + 1:]:
            assert not (a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3]
                        and b[1] < a[1] + a[3]), (a[4], b[4])
