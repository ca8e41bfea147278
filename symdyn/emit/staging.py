"""Names for what a run stages in a shared folder (an output folder, the cache), so that a later
run can tell a leftover of a killed run from the work of a run still going: each name carries
its host and process. Two runs in one folder never remove each other's files."""
from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import time
from pathlib import Path

STALE_AFTER = 24 * 3600      # another host's leftovers are removed after a day


def tag() -> str:
    """``<host>-<pid>-<random>``: unique to this run, and naming its process."""
    return f"{_host()}-{os.getpid()}-{secrets.token_hex(4)}"


def named(name: str, pattern: str) -> bool:
    """Whether ``name`` is one made with ``tag()`` in ``pattern`` (see ``leftover``)."""
    return _match(name, pattern) is not None


def _match(name: str, pattern: str):
    return re.fullmatch(pattern.format(tag=r"(\w+)-(\d+)-[0-9a-f]+"), name, re.DOTALL)


def leftover(path: Path, pattern: str) -> bool:
    """Whether ``path``, a name made with ``tag()`` where ``pattern`` (a regular expression)
    has ``{tag}``, was left by a run that is gone: a process of this host that no longer runs,
    or another host's, a day old."""
    match = _match(path.name, pattern)
    if match is None:
        return False
    if match[1] == _host():
        return not _alive(int(match[2]))
    try:
        return time.time() - path.lstat().st_mtime > STALE_AFTER
    except OSError:
        return False


def remove(path: Path):
    """Best effort: a leftover file or folder (a symbolic link is removed, not followed)."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _host() -> str:
    return re.sub(r"\W", "_", socket.gethostname()) or "host"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True     # a process of another user's: alive, not ours to judge
    return True
