"""The Jinja environment of symdyn's templates, which the code (emit/) and the printouts
(report/) share, and its cache of compiled templates.

Templates are found in the installed wheel or the source checkout (resources.shipped_folder);
undefined names fail loudly (StrictUndefined), as the templates hold layout, not logic.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

import jinja2

from ..errors import EmitError
from ..resources import PACKAGE, shipped_folder
from . import cache


def template_root() -> Path:
    """templates/ inside an installed wheel, or at the top of a source checkout."""
    folder = shipped_folder("templates")
    if folder is None:
        raise EmitError(f"symdyn's templates are missing (looked in {PACKAGE}/templates)")
    return folder


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_root())),
        bytecode_cache=_template_cache(),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _template_cache() -> jinja2.BytecodeCache | None:
    try:
        root = cache.cache_root()
    except RuntimeError:        # no home folder to find the user's cache in: no cache
        return None
    folder = cache.open_folder(root)
    if folder is None:
        return None
    cache.sweep(folder / "templates")       # what killed runs were writing there
    return _TemplateCache(folder / "templates")


class _TemplateCache(jinja2.BytecodeCache):
    """The templates compiled by an earlier run, beside the compiled C in the user's cache:
    compiling them took a quarter of a second of every run, as long as generating a small
    robot's code. A compiled template is a marshalled code object that Jinja runs, so each is
    sealed with the digest of its bytes and unmarshalled only when they match (see ``cache``);
    Jinja then checks it against its template's source. An entry that cannot be read or does
    not match is compiled afresh and written again; a folder that cannot be written is no
    cache."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, bucket) -> Path:
        return self.folder / f"{bucket.key}.sealed"

    def load_bytecode(self, bucket):
        path = self._path(bucket)
        blob = cache.read_bytes(path)
        if blob is None:
            return
        payload = cache.unseal(blob)
        if payload is None:
            cache.warn(f"cache entry {path} does not match the digest recorded with it "
                       "(damaged or replaced); the template is compiled again")
            cache.discard(path)
            return
        bucket.bytecode_from_string(payload)

    def dump_bytecode(self, bucket):
        with contextlib.suppress(OSError):
            self.folder.mkdir(mode=0o700, exist_ok=True)
            cache.write_atomic(self._path(bucket), cache.seal(bucket.bytecode_to_string()))
