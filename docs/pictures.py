"""The robots' pictures the documentation shows (docs/img/frames/), made by `symdyn draw` from
the robots as users get them: the shipped files, imports with the defaults. The tests make
them again and find them byte for byte the same (tests/product/test_docs.py);
`python3 docs/pictures.py` (or `python3 dev.py regenerate`) writes them anew.
"""
from __future__ import annotations

import importlib.metadata
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "img" / "frames"


def _robots_folder() -> Path:
    return Path(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots"))


# picture -> (the robot: a file of the repository, or an import of one; draw's options)
PICTURES = {
    "puma560.svg": ("robots/puma560.yaml", ["--q", "0,-0.6,0.4,0,0.8,0"]),
    "panda.svg": ("robots/panda.yaml", ["--q", "0,-0.4,0,-2,0,1.6,0.8"]),
    "space_arm.svg": ("robots/space_arm.yaml", []),
    "fourbar.svg": ("tests/derive/mechanisms/fourbar.yaml", ["--view", "top"]),
    "ur5.svg": ("import:ur_description/urdf/ur5_robot.urdf --tip tool0",
                ["--q", "0,-1,1,0,1,0"]),
    "gripper.svg": ("import:tests/robot/mjcf/gripper.xml", ["--view", "side"]),
    "delta.svg": ("tests/derive/mechanisms/delta.yaml", []),
}


def make(name: str, folder: Path) -> bytes:
    """The picture ``name`` of PICTURES, drawn (its import made) in ``folder``."""
    from symdyn.cli import main

    source, options = PICTURES[name]
    if source.startswith("import:"):
        path, *args = source.removeprefix("import:").split()
        full = ROOT / path if (ROOT / path).exists() else _robots_folder() / path
        robot = folder / f"{Path(name).stem}.yaml"
        result = CliRunner().invoke(main, ["import", str(full), "-o", str(robot), "-q", *args])
        assert result.exit_code == 0, result.output
    else:
        robot = ROOT / source
    out = folder / name
    result = CliRunner().invoke(main, ["draw", str(robot), "-o", str(out), "-q", *options])
    assert result.exit_code == 0, result.output
    return out.read_bytes()


if __name__ == "__main__":
    FOLDER.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for picture in PICTURES:
            (FOLDER / picture).write_bytes(make(picture, Path(tmp)))
            print(FOLDER / picture, file=sys.stderr)
