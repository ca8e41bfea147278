"""The data folders symdyn ships beside its code (templates/, robots/): inside the package in an
installed wheel, at the top of the repository in a source checkout."""
from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def shipped_folder(name: str) -> Path | None:
    """The folder ``name`` inside an installed wheel, or at the top of a checkout; None if
    neither has it."""
    for candidate in (PACKAGE / name, PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    return None
