"""The template context -> files' texts, through each backend's templates.

All files of a run are rendered in memory first (a large one in pieces); ``write`` moves them
into place.
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


def render(module: Module, backend: Backend, files=None, pieces: bool = False,
           **context) -> dict[str, str | tuple[str, ...]]:
    """File name -> text, for the backend's files (or the ``files`` given as (template,
    name pattern) pairs), with ``context`` beside the module. Where the files name their set
    (``Module.code_set``), they get the digest of all of those. With ``pieces``, each text is
    a tuple of pieces of about PIECE characters, what ``write.write_files`` writes in turn: a
    large robot's C is never one string beside the template's output it is joined from (a
    64-joint chain's is 76 MB)."""
    env = _backend_environment(backend)
    texts = {pattern.format(name=module.name): _pieces(env.get_template(template).generate(
        m=module, **context)) for template, pattern in (files or backend.files)}
    # the set is the files that name it (a .h and its .c), whatever else the backend writes
    digest = hashlib.sha256()
    for k, name in enumerate(name for name in sorted(texts) if _names_set(texts[name])):
        digest.update(b"\0" if k else b"")
        for piece in texts[name]:
            _update(digest, piece)
    code_set = f"0x{digest.hexdigest()[:15]}"
    # each piece let go as its copy is made
    out = {}
    for name in list(texts):
        done = tuple(piece.replace(Module.code_set, code_set) for piece in texts.pop(name))
        out[name] = done if pieces else "".join(done)
    return out


# Characters a piece of a rendered text holds, about: the template's output joined a piece at
# a time, never all at once
PIECE = 1 << 20


def _pieces(chunks) -> tuple[str, ...]:
    """The template's output ``chunks`` joined into pieces of about PIECE characters."""
    pieces, buffer, size = [], [], 0
    for chunk in chunks:
        buffer.append(chunk)
        size += len(chunk)
        if size >= PIECE:
            pieces.append("".join(buffer))
            buffer, size = [], 0
    pieces.append("".join(buffer))
    return tuple(pieces)


def _names_set(pieces) -> bool:
    """Whether a text names its code set (Module.code_set is one chunk of the template's
    output, never split between pieces)."""
    return any(Module.code_set in piece for piece in pieces)


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
