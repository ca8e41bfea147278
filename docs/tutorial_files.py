"""The files a tutorial's page shows, written into a folder to run them.

Each tutorial (docs/tutorials/*.md) is its own source: every code block with a title
(```python title="fit.py") is a file of it, shown in full where the page explains it. The
tests run the tutorials from these files, and so can a reader:

    python3 docs/tutorial_files.py docs/tutorials/cpp-controller.md build/tutorial
    cd build/tutorial && sh run.sh
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

BLOCK = re.compile(r'^```\w*\s+title="([^"/\\]+)"\n(.*?)^```$', re.S | re.M)


def tutorial_files(page: Path) -> dict[str, str]:
    """File name -> text of each titled code block of ``page``; a name given twice is an
    error."""
    files: dict[str, str] = {}
    for name, text in BLOCK.findall(Path(page).read_text(encoding="utf-8")):
        if name in files:
            raise ValueError(f"{page}: the file {name} is shown twice")
        files[name] = text
    return files


def write(page: Path, folder: Path) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in tutorial_files(page).items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(folder / name)
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for path in write(Path(sys.argv[1]), Path(sys.argv[2])):
        print(path)
