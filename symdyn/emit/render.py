"""The template context -> files' texts, through each backend's templates.

All files of a run are rendered in memory first; ``write`` moves them into place.
"""
from __future__ import annotations

import functools
import hashlib

import jinja2

from ..errors import EmitError
from .backends import BACKENDS, SINGLE_C, Backend
from .context import Module
from .templating import environment


@functools.lru_cache(maxsize=None)
def _backend_environment(backend: Backend) -> jinja2.Environment:
    """A backend's templates, compiled once a process (compiling them costs more than
    rendering)."""
    env = environment()
    env.filters["text"] = backend.text
    env.filters["string"] = backend.string
    return env


def render(module: Module, backend: Backend, files=None, **context) -> dict[str, str]:
    """File name -> text, for the backend's files (or the ``files`` given as (template,
    name pattern) pairs), with ``context`` beside the module. Where the files name their set
    (``Module.code_set``), they get the digest of all of those."""
    env = _backend_environment(backend)
    texts = {pattern.format(name=module.name):
             env.get_template(template).render(m=module, **context)
             for template, pattern in (files or backend.files)}
    # the set is the files that name it (a .h and its .c), whatever else the backend writes
    digest = hashlib.sha256()
    for k, name in enumerate(k for k in sorted(texts) if Module.code_set in texts[k]):
        digest.update(b"\0" if k else b"")
        _update(digest, texts[name])
    code_set = f"0x{digest.hexdigest()[:15]}"
    # each text let go as its copy is made: a large robot's C is 100 MB
    return {name: texts.pop(name).replace(Module.code_set, code_set) for name in list(texts)}


def _update(digest, text: str, chunk: int = 1 << 20) -> None:
    """``digest`` updated with ``text``'s UTF-8, a chunk at a time rather than as a copy of
    the whole (a character's encoding never depends on its neighbours)."""
    for start in range(0, len(text), chunk):
        digest.update(text[start:start + chunk].encode())


def backend(lang: str, precision: str = "double") -> Backend:
    """The backend of ``lang``; of single-precision C with ``precision`` "single"."""
    try:
        chosen = BACKENDS[lang]
    except KeyError:
        raise EmitError(f"unknown language {lang!r}; choose from {', '.join(BACKENDS)}") from None
    if precision == "double":
        return chosen
    if precision != "single" or lang != "c":
        raise EmitError(f"precision {precision!r} is not one of {lang}'s (single is C's)")
    return SINGLE_C
