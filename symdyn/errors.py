"""The one exception hierarchy symdyn raises for problems a user can fix.

Anything else escaping the library is a bug in symdyn, not in the user's input.
"""
from __future__ import annotations


class SymdynError(Exception):
    """Base of every error symdyn reports to a user."""


class RobotFileError(SymdynError):
    """A robot file that cannot be read: where (file, line, field), what, and what is expected."""

    def __init__(self, path, message, *, field=None, line=None, expected=None):
        self.path = str(path)
        self.message = message
        self.field = field
        self.line = line
        self.expected = expected
        super().__init__(str(self))

    def __str__(self):
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        what = self.message if self.field is None else f"{self.field}: {self.message}"
        tail = "" if self.expected is None else f" (expected {self.expected})"
        return _one_line(f"{where}: {what}{tail}")


def _one_line(text: str) -> str:
    """A message on one line whatever a file or its path holds: control characters escaped."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


class DataFileError(RobotFileError):
    """A measurement file that cannot be used: where (file, line, column), what, and what is
    expected."""


class DerivationError(SymdynError):
    """A quantity that cannot be derived for this robot as it is given."""


class EmitError(SymdynError):
    """Generated code that cannot be written."""


class BuildError(SymdynError):
    """Generated C that cannot be compiled or loaded."""
