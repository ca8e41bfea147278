"""The user's cache of compiled work (C extension modules, compiled templates), kept as data.

Both kinds of entry are code: a shared object runs its initialiser when it is loaded, and a
compiled template is a marshalled Python code object that Jinja executes. So the cache is used
only when it is the user's alone, and nothing in it is loaded before it is verified:

- the cache folder is made owner-only (0700); a folder owned by another user, or writable by
  group or others (or one of whose parents is, without the sticky bit of /tmp), is refused with
  a warning that says why, and the work is then done without a cache (as pip disables an unsafe
  cache, and ssh refuses a key others could have written);
- every entry is written with the SHA-256 of its exact bytes, by this process, into a temporary
  that is renamed into place; a reader recomputes the digest over the bytes it read and uses
  them only on a match. An entry that does not match (truncated, damaged, replaced) is removed
  with a warning and made again;
- a build that was killed leaves a staging folder named after its host and process; the next
  build removes those whose process is gone (``staging``).

The digest does not stand in for the permissions: whoever may write an entry may write its
digest too. It makes a damaged or foreign file a warning and a rebuild instead of a crash or a
load, and the permission check keeps everyone but the user (and root) from writing either.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import warnings
from pathlib import Path

from . import staging

CACHE_VARIABLE = "SYMDYN_CACHE"
STAGING = ".build-"          # the prefix of what a run stages in the cache
# The most bytes read from an entry: a compiled module of a large robot is a few MiB.
MAX_ENTRY = 256 << 20
_SEAL = b"symdyn-cache sha256 "   # a sealed entry: this, 64 hex digits, a newline, the payload


class CacheWarning(UserWarning):
    """A cache that was refused, or an entry that was damaged and is made again."""


def cache_root() -> Path:
    """$SYMDYN_CACHE, else symdyn/ in the user's cache folder ($XDG_CACHE_HOME or ~/.cache)."""
    if os.environ.get(CACHE_VARIABLE):
        return Path(os.environ[CACHE_VARIABLE])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "symdyn"


def open_folder(folder: Path) -> Path | None:
    """``folder`` made owner-only where missing and checked as safe to load code from; None,
    with a warning that says why, where it cannot be made or is not safe."""
    folder = Path(folder)
    try:
        _make_private(folder)
        reason = unsafe(folder)
    except OSError as exc:
        reason = f"cannot be made or read ({exc.strerror or exc})"
    if reason:
        warn(f"cache {folder} not used: {reason}; working without it (set {CACHE_VARIABLE} to "
             "a folder of your own)")
        return None
    return folder


def unsafe(folder: Path) -> str | None:
    """Why code loaded from ``folder`` could have been written by someone other than the user,
    or None: the folder must be the user's and not writable by others, and so must every folder
    above it unless it is root's, or has the sticky bit that keeps others' files apart."""
    if not hasattr(os, "getuid"):        # no POSIX owners to check (Windows): the user's profile
        return None
    uid = os.getuid()
    path = folder.resolve()
    info = os.stat(path)
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a folder"
    if info.st_uid != uid:
        return f"it is owned by user {info.st_uid}, not by you (user {uid})"
    if info.st_mode & 0o022:
        return (f"it is writable by group or others (mode {stat.S_IMODE(info.st_mode):04o}; "
                f"chmod 700 {path} makes it yours alone)")
    for parent in path.parents:
        info = os.stat(parent)
        if info.st_uid not in (uid, 0):
            return f"the folder above it, {parent}, is owned by another user ({info.st_uid})"
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            return (f"the folder above it, {parent}, is writable by group or others "
                    f"(mode {stat.S_IMODE(info.st_mode):04o})")
    return None


def _make_private(folder: Path):
    """Make ``folder`` and any missing folders above it, each owner-only (0700)."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:     # made meanwhile by a concurrent run
            pass


def warn(message: str):
    warnings.warn(message, CacheWarning, stacklevel=3)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def seal(payload: bytes) -> bytes:
    """``payload`` preceded by the digest it is read back against."""
    return _SEAL + digest(payload).encode() + b"\n" + payload


def unseal(blob: bytes) -> bytes | None:
    """The payload of a sealed entry, or None where the bytes are not what was sealed."""
    head = len(_SEAL) + 65
    if len(blob) < head or not blob.startswith(_SEAL) or blob[head - 1:head] != b"\n":
        return None
    payload = blob[head:]
    return payload if digest(payload).encode() == blob[len(_SEAL):head - 1] else None


def read_bytes(path: Path) -> bytes | None:
    """An entry's bytes, or None where there is none. A symbolic link, a file that is not a
    regular one, or one others can write is not read (and is warned of). It is opened without
    blocking: a FIFO in an entry's place would block the open until someone writes to it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        warn(f"cache entry {path} cannot be read ({exc.strerror or exc}); it is made again")
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if (not stat.S_ISREG(info.st_mode) or info.st_mode & 0o022 or info.st_size > MAX_ENTRY
                or (hasattr(os, "getuid") and info.st_uid != os.getuid())):
            warn(f"cache entry {path} is not a private regular file of yours; it is made again")
            return None
        return fh.read(MAX_ENTRY + 1)


def write_atomic(path: Path, data: bytes):
    """``data`` into ``path`` whole or not at all, owner-only: staged beside it and renamed."""
    tmp = path.with_name(f"{STAGING}{staging.tag()}-{path.name}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def discard(path: Path):
    """Remove a damaged entry (a file or a folder) without a reader seeing half of it."""
    grave = path.with_name(f"{STAGING}{staging.tag()}-discarded")
    try:
        os.rename(path, grave)
    except OSError:
        return          # a concurrent run removed it first, or it cannot be: made again beside
    staging.remove(grave)


def staging_folder(folder: Path) -> Path:
    """A new private folder for a build, named so that a later run can tell whether the process
    that made it is gone (``sweep``)."""
    path = folder / f"{STAGING}{staging.tag()}"
    path.mkdir(mode=0o700)
    return path


def sweep(folder: Path):
    """Remove what killed runs left in ``folder`` (see ``staging.leftover``)."""
    try:
        found = list(folder.iterdir())
    except OSError:
        return
    for path in found:
        if staging.leftover(path, rf"{re.escape(STAGING)}{{tag}}(-.*)?"):
            staging.remove(path)
