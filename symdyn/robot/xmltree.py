"""XML files as trees of Elements that remember the file and line they come from.

Both importers read their XML here: URDF for its numbers, MJCF to check what MuJoCo will be
given and to say where an element MuJoCo compiled came from. The parser is defusedxml's SAX
parser with DTDs, entities and external references refused (a billion-laughs file fails at its
first declaration).
"""
from __future__ import annotations

import io
import xml.sax
from dataclasses import dataclass
from pathlib import Path

import defusedxml
import defusedxml.sax

from ..errors import RobotFileError


@dataclass(frozen=True)
class Element:
    tag: str
    attrs: dict
    children: tuple
    line: int
    path: Path | None = None      # the file it was read from

    def all(self, tag):
        return [child for child in self.children if child.tag == tag]

    def iter(self):
        """This element and every one below it, in document order (depth first)."""
        stack = [self]
        while stack:
            element = stack.pop()
            yield element
            stack.extend(reversed(element.children))


class _Builder(xml.sax.ContentHandler):
    """SAX events -> Elements, each with the line it starts on."""

    def __init__(self, path):
        super().__init__()
        self.path = path
        self.stack = [("", {}, [], 0)]

    def startElement(self, name, attrs):
        self.stack.append((name, dict(attrs), [], self._locator.getLineNumber()))

    def endElement(self, name):
        tag, attrs, children, line = self.stack.pop()
        self.stack[-1][2].append(Element(tag, attrs, tuple(children), line, self.path))


def parse(raw: bytes, path, what: str) -> Element:
    """The root Element of the XML document ``raw`` read from ``path``; RobotFileError with
    the line for a document that is not well-formed or declares a DTD or an entity (``what``
    the file should be)."""
    builder = _Builder(Path(path))
    parser = defusedxml.sax.make_parser()
    parser.forbid_dtd = True          # neither URDF nor MJCF has a DTD: refusing it refuses
    parser.forbid_entities = True     # every entity
    parser.forbid_external = True
    parser.setContentHandler(builder)
    try:
        parser.parse(io.BytesIO(raw))
    except xml.sax.SAXParseException as exc:
        raise RobotFileError(path, f"not well-formed XML: {exc.getMessage()}",
                             line=exc.getLineNumber(), expected=what) from None
    except defusedxml.DefusedXmlException as exc:
        locator = getattr(builder, "_locator", None)
        line = locator.getLineNumber() if locator else None
        raise RobotFileError(path, "a DTD or an entity declaration is not read "
                             f"({type(exc).__name__})", line=line,
                             expected=f"{what} without <!DOCTYPE> or <!ENTITY>") from None
    (root,) = builder.stack[0][2]
    return root
