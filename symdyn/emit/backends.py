"""One backend per language: its printer and the templates that make its files."""
from __future__ import annotations

from dataclasses import dataclass

from .printers import CPrinter, PythonPrinter


@dataclass(frozen=True)
class Backend:
    lang: str
    printer: type
    files: tuple[tuple[str, str], ...]   # (template, output file name with {name})


BACKENDS = {
    "python": Backend("python", PythonPrinter, (("python/module.py.j2", "{name}.py"),)),
    "c": Backend("c", CPrinter, (("c/header.h.j2", "{name}.h"), ("c/source.c.j2", "{name}.c"),
                                 ("c/python.c.j2", "{name}_python.c"))),
}
