"""Bounded reads of the files a user names: regular files only, of a bounded size, opened so
that a FIFO or a device is refused instead of read forever."""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from ..errors import RobotFileError


def read_text(path: Path, limit: int, what: str, error=RobotFileError,
              encoding="utf-8") -> tuple[bytes, str]:
    """The bytes of a bounded regular file (see read_bounded) and their text; ``error`` is the
    exception a file that is not text raises."""
    raw = read_bounded(path, limit, what)
    try:
        return raw, raw.decode(encoding)
    except UnicodeDecodeError:
        raise error(path, "the file is not UTF-8 text") from None


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (``what`` it should be, for the
    errors). Opened without blocking, so that a FIFO or a device is refused instead of read
    forever."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise RobotFileError(path, f"cannot read the file: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RobotFileError(path, "is not a regular file", expected=what)
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = fh.read(limit + 1)
        except OSError as exc:
            raise RobotFileError(path, f"cannot read the file: {exc.strerror}") from None
    if len(raw) > limit:
        raise RobotFileError(path, f"the file is larger than {limit >> 10} KiB", expected=what)
    return raw


def xml_root(raw: bytes) -> str | None:
    """The name of an XML document's root element (``robot`` for a URDF, ``mujoco`` for an
    MJCF file), read past the declaration, comments and a DOCTYPE without parsing the rest."""
    text = re.sub(r"<!--.*?-->|<\?.*?\?>", "", raw[:1 << 16].decode("utf-8", "replace"),
                  flags=re.S)
    found = re.search(r"<([A-Za-z_][\w:.-]*)", text)
    return found.group(1) if found else None


def regular_file(path: Path, limit: int, what: str, named_by: Path):
    """That ``path``, which the file ``named_by`` names, is a regular file of at most ``limit``
    bytes, before another program (MuJoCo) reads it; the errors are ``named_by``'s."""
    try:
        info = path.stat()
    except OSError as exc:
        raise RobotFileError(named_by, f"{path}: {exc.strerror}", expected=what) from None
    if not stat.S_ISREG(info.st_mode):
        raise RobotFileError(named_by, f"names {path}, which is not a regular file",
                             expected=what)
    if info.st_size > limit:
        raise RobotFileError(named_by, f"names {path}, larger than {limit >> 20} MiB",
                             expected=what)
