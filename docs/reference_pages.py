"""The reference pages' generated halves, written into their Markdown so that they read in the
repository as on the site: docs/reference/cli.md gets each command's --help, and
docs/reference/python-api.md each function's signature and docstring, below the line
``MARKER``. `python3 dev.py regenerate` rewrites them; the tests fail where they are not
current (tests/product/test_docs.py).

    python3 docs/reference_pages.py          # rewrite both
"""
from __future__ import annotations

import functools
import importlib
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = "<!-- Generated below by docs/reference_pages.py from the code: do not edit by hand. -->"
WIDTH = 96      # columns of the --help text: a page's code block without a scroll bar

# The Python API's page: what a notebook or a program calls, in the order a user meets it.
API = ("symdyn.load_robot", "symdyn.newton_euler", "symdyn.lagrange", "symdyn.Dynamics",
       "symdyn.Dynamics.tau", "symdyn.Dynamics.M", "symdyn.Dynamics.C", "symdyn.Dynamics.g",
       "symdyn.Dynamics.program", "symdyn.Dynamics.available", "symdyn.Dynamics.unavailable",
       "symdyn.Dynamics.singular", "symdyn.Dynamics.base", "symdyn.Dynamics.record",
       "symdyn.generate", "symdyn.python_module", "symdyn.compile", "symdyn.optimize",
       "symdyn.op_count", "symdyn.report.printout", "symdyn.identify.identify",
       "symdyn.identify.excitation")


def cli() -> str:
    """Each command's --help, as `symdyn COMMAND --help` prints it in a terminal WIDTH wide."""
    import click

    from symdyn.cli import main
    parts = []
    for name in main.list_commands(None):
        command = main.get_command(None, name)
        context = click.Context(command, info_name=f"symdyn {name}", terminal_width=WIDTH,
                                max_content_width=WIDTH)
        parts.append(f"## symdyn {name}\n\n```text\n{command.get_help(context)}\n```\n")
    return "\n".join(parts)


def api() -> str:
    """Each of API's signature and docstring: a class's and an attribute's without one."""
    parts = []
    for path in API:
        thing, shown = _find(path)
        attribute = isinstance(thing, (property, functools.cached_property))
        target = (thing.fget if isinstance(thing, property) else thing.func) if attribute \
            else thing
        signature = "" if attribute or inspect.isclass(target) else _signature(target)
        parts.append(f"### `{shown}{signature}`\n\n{inspect.getdoc(target) or ''}\n")
    return "\n".join(parts)


def _find(path: str):
    """The object a dotted path names, and the name it is shown by."""
    module_name, _, rest = path.partition(".")
    thing = importlib.import_module(module_name)
    shown = module_name
    for part in rest.split("."):
        try:
            thing = inspect.getattr_static(thing, part) if inspect.isclass(thing) else getattr(
                thing, part)
        except AttributeError:
            thing = importlib.import_module(f"{shown}.{part}")
        shown = f"{shown}.{part}"
    return thing, shown


def _signature(function) -> str:
    """Its parameters as written, without the annotations (long, and on the page already)."""
    signature = inspect.signature(function)
    parameters = [p.replace(annotation=inspect.Parameter.empty)
                  for p in signature.parameters.values() if p.name != "self"]
    return str(signature.replace(parameters=parameters,
                                 return_annotation=inspect.Signature.empty))


PAGES = {"docs/reference/cli.md": cli, "docs/reference/python-api.md": api}


def page(path: str) -> str:
    """The page as it should read: its hand-written half, the marker, the generated half."""
    text = (ROOT / path).read_text(encoding="utf-8")
    if MARKER not in text:
        raise ValueError(f"{path}: no line {MARKER!r} to write below")
    return text.split(MARKER)[0] + MARKER + "\n\n" + PAGES[path]()


def write() -> list[Path]:
    written = []
    for path in PAGES:
        text = page(path)
        if (ROOT / path).read_text(encoding="utf-8") != text:
            (ROOT / path).write_text(text, encoding="utf-8")
            written.append(ROOT / path)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 1:
        sys.exit(__doc__)
    for path in write():
        print(path)
