"""All-or-nothing writes of a set of files into one folder (a robot's .py, .h and .c).

A folder cannot replace several files in one atomic step, so a set is committed as a database
commits a transaction:

1. each file is staged beside its target under a name that carries this run's host and process
   (``staging``), so that two runs in one folder never take each other's files for leftovers;
2. a journal listing (staged, target) pairs is written, its last line marking it complete;
3. each target is replaced by its staged file (one atomic rename each), the old file kept under
   a second name until all are in place, and put back if one fails (a full disk);
4. the journal is removed.

A run killed before 2 leaves only staged files, which the next write into the folder removes:
the old set stands. A run killed during 3 leaves its complete journal: the next write into the
folder, or ``recover``, finishes the renames, so the new set stands. Until then the folder is
known to be half-written: the generated Python module refuses to import while a journal is
named after it (``.<robot>.<run>.symdyn-commit``), and the generated .c refuses to compile
against a .h of another run (a digest of the pair is in both).
"""
from __future__ import annotations

import errno
import os
from pathlib import Path

from ..errors import EmitError
from . import staging

TEMPORARY = ".symdyn-tmp"       # the suffix of every file a write stages
JOURNAL = ".symdyn-commit"      # the suffix of a write's journal
_STAGED = rf"\..+\.{{tag}}{TEMPORARY}"
_JOURNALS = rf"\..*\.{{tag}}{JOURNAL}"
_COMPLETE = "complete"


def write_files(files: dict[str, str | tuple[str, ...] | bytes], out_dir) -> list[Path]:
    """Write ``files`` ({name: text, its pieces (render's), or bytes: a picture}) into
    ``out_dir``, all or none: after
    a failure the folder is as it was, and after a kill it holds the old set or, once the next
    write or ``recover`` has run, the new one."""
    out = Path(out_dir)
    if out.is_symlink() and not out.exists():
        raise EmitError(f"cannot write to {out}: it is a symbolic link to nothing")
    if out.exists() and not out.is_dir():
        raise EmitError(f"cannot write to {out}: it is not a folder")
    targets = {name: out / name for name in files}
    for target in targets.values():
        if target.exists() and not target.is_file():
            raise EmitError(f"cannot write {target}: it is a folder or a device, not a file")
    created = [p for p in (out, *out.parents) if not p.exists()]
    run = staging.tag()
    staged: dict[Path, Path] = {}     # target -> its new content, staged
    kept: dict[Path, Path | None] = {}  # target -> its old content under a second name, or None
    journal = out / f".{Path(next(iter(files), 'files')).stem}.{run}{JOURNAL}"
    current = out
    try:
        out.mkdir(parents=True, exist_ok=True)
        recover(out)
        umask = os.umask(0)
        os.umask(umask)
        for name, text in files.items():
            current = targets[name]
            staged[current] = _stage(out, name, run, text, 0o666 & ~umask)
        current = journal
        _write_journal(journal, staged)
        for target, new in staged.items():
            current = target
            kept[target] = old = _keep(target, out / f".{target.name}.old.{run}{TEMPORARY}")
            os.replace(new, target)
    except OSError as exc:
        for target, old in reversed(kept.items()):     # put back what was replaced
            if old is None:
                target.unlink(missing_ok=True)
            elif os.path.samefile(old, target):         # not replaced: rename would do nothing
                old.unlink()
            else:
                os.replace(old, target)
        _remove([*staged.values(), journal], created)
        if exc.errno == errno.ENAMETOOLONG:
            raise EmitError(f"cannot write into {_short(out)}: a file name or the path is too "
                            f"long for the file system") from None
        raise EmitError(f"cannot write {_short(current)}: {exc.strerror or exc}") from None
    except BaseException:
        _remove([*staged.values(), *(old for old in kept.values() if old), journal], created)
        raise
    _remove([journal, *(old for old in kept.values() if old)], [])
    return list(targets.values())


def check_names(out_dir, names):
    """Refuse, before any work, a folder or file name longer than the file system takes (a
    staged file's name is the longest a write makes: the file's, a dot and a tag)."""
    out = Path(out_dir).absolute()
    existing = next(p for p in (out, *out.parents) if p.exists())
    try:
        limit = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    staged_extra = len(f"..{staging.tag()}{TEMPORARY}") + 8     # room for a longer pid
    for part in (*out.parts, *names):
        extra = staged_extra if part in names else 0
        if len(part) + extra > limit:
            raise EmitError(f"cannot write into {_short(out)}: the name {_short(Path(part))} is "
                            f"too long for the file system (at most {limit - extra} characters)")


def recover(folder: Path):
    """Finish or undo what killed writes left in ``folder``: a complete journal's renames are
    carried out (the new set), anything else they staged is removed (the old set stands).
    Another run's files, while it runs, are left alone."""
    try:
        found = sorted(folder.iterdir())
    except OSError:
        return
    for journal in found:
        if staging.leftover(journal, _JOURNALS):
            for new, target in _read_journal(journal):
                if new.exists():
                    os.replace(new, target)
            journal.unlink(missing_ok=True)
    for path in found:
        if path.exists() and staging.leftover(path, _STAGED):
            staging.remove(path)


def _keep(target: Path, second: Path) -> Path | None:
    """``target``'s content under the ``second`` name (a hard link), to put back if the set
    fails; None where there is no target. Another run that replaces ``target`` meanwhile drops
    the file link() was given the moment before (Linux then says ENOENT): take the new one."""
    for _ in range(100):
        try:
            os.link(target, second)
            return second
        except FileNotFoundError:
            if not target.exists():
                return None
    raise OSError(errno.EBUSY, "replaced by other runs 100 times in a row", str(target))


def _write_journal(path: Path, staged: dict[Path, Path]):
    lines = [f"{new.name}\0{target.name}" for target, new in staged.items()] + [_COMPLETE]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
        fh.flush()
        os.fsync(fh.fileno())       # on disk before the first rename it stands for


def _read_journal(path: Path) -> list[tuple[Path, Path]]:
    """The (staged, target) pairs of a complete journal; none for one cut short (its run was
    killed before renaming anything). Names only: a journal never leads out of its folder."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    if not lines or lines[-1] != _COMPLETE:
        return []
    pairs = [line.split("\0") for line in lines[:-1]]
    return [(path.parent / new, path.parent / target) for new, target in pairs
            if staging.named(new, _STAGED) and "/" not in target and os.sep not in target
            and target not in ("", ".", "..")]


def _stage(folder: Path, name: str, run: str, text, mode: int) -> Path:
    """``text`` (str, pieces of it, or bytes) in a new file beside its target, encoded a piece
    at a time."""
    path = folder / f".{name}.{run}{TEMPORARY}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)     # as an ordinary new file, not 0600
            for piece in ((text,) if isinstance(text, (str, bytes)) else text):
                fh.write(piece if isinstance(piece, bytes) else piece.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def _remove(files, folders):
    """Best effort: what a failed run made, files first, then the folders it created."""
    for path in files:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass
    for folder in folders:          # deepest first
        try:
            folder.rmdir()
        except OSError:
            break


def _short(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 200 else f"{text[:100]}...{text[-60:]} ({len(text)} characters)"
