"""An MJCF file and every file it names, read before MuJoCo's compiler is given any of them.

MuJoCo reads what a model names (included MJCF files, attached models, meshes, textures,
heightfields, skins) itself, and its compiler has no bounds of its own: it blocks on a FIFO,
reads a device to the end, crashes on a model that attaches itself and compiles a
``<replicate>`` of a ``<replicate>`` for as long as it takes. So each file is checked first (a
regular file of a bounded size, its XML read by xmltree.py: no DTD, no entities), cycles of
includes and attachments are refused, and the bodies and joints the model will make are
counted from the XML before it is compiled.

The XML read here also says where each element MuJoCo compiled came from: MuJoCo's own record
gives a line of the top file alone, and line 0 for an element of an included file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..errors import RobotFileError
from .reading import read_bounded, regular_file
from .xmltree import Element, parse

MAX_MJCF_BYTES = 8 << 20
MAX_ASSET_BYTES = 512 << 20     # a mesh or a texture
# What the XML may make before MuJoCo is asked to compile it: a robot and the scene around it,
# far beyond symdyn's 64 links, but far below what takes MuJoCo's compiler minutes or all the
# memory (30000 bodies: "could not allocate memory").
MAX_BODIES = 4096
MAX_JOINTS = 4096
# Where MuJoCo looks for the files an element names, by the <compiler> attribute of its folder
ASSET_FOLDERS = {"mesh": "meshdir", "skin": "meshdir", "texture": "texturedir",
                 "hfield": "texturedir"}
MAKES_BODIES = {"composite", "flexcomp"}     # their count="nx ny nz" bodies, each with joints
# MuJoCo's kinds of object -> the elements that make one of them
TAGS = {"body": ("body",), "joint": ("joint", "freejoint"), "site": ("site",),
        "equality": ("connect", "weld", "joint", "tendon", "flex", "distance"),
        "tendon": ("fixed", "spatial")}
PARENT_TAG = {"equality": "equality", "tendon": "tendon"}    # the section those sit in


@dataclass(frozen=True)
class Where:
    path: Path
    line: int | None


class MjcfFiles:
    """The MJCF file at ``path``, its includes inlined, the models it attaches read too."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.folder = self.path.parent
        self.models: dict[Path, Element] = {}      # every MJCF file read, includes inlined
        self.found: dict[tuple, object] = {}   # elements() by kind and model; by name
        self.root = self.model(self.path, ())
        self.check_counts()

    # -- reading -------------------------------------------------------------------------------
    def model(self, path: Path, attaching: tuple) -> Element:
        """The model at ``path`` with its includes inlined, the models it attaches read
        (``attaching``: the files attaching this one, for cycles), its assets checked."""
        if path in attaching:
            raise RobotFileError(attaching[-1], f"attaches {path}, which attaches it in turn: "
                                 "a model cannot contain itself",
                                 expected="models that attach other models")
        if path not in self.models:
            root = self.inlined(self.read(path), (path,))
            self.models[path] = root
            self.check_assets(root)
            for element in root.iter():
                if element.tag == "model" and "file" in element.attrs:
                    target = self.folder / element.attrs["file"]
                    regular_file(target, MAX_MJCF_BYTES, "an MJCF file", element.path)
                    self.model(target, (*attaching, path))
        return self.models[path]

    def read(self, path: Path, included: bool = False) -> Element:
        """The file's root element: <mujoco> (or <robot>: MuJoCo compiles a URDF too), or for
        an included file <mujocoinclude> too, the root of older models' parts (Adroit's)."""
        root = parse(read_bounded(path, MAX_MJCF_BYTES, "an MJCF file"), path, "an MJCF file")
        roots = ("mujoco", "robot", "mujocoinclude") if included else ("mujoco", "robot")
        if root.tag not in roots:
            raise RobotFileError(path, f"the root element is <{root.tag}>", line=root.line,
                                 expected="an MJCF file, whose root element is <mujoco>" + (
                                     " or, included, <mujocoinclude>" if included else ""))
        return root

    def inlined(self, element: Element, including: tuple) -> Element:
        """``element`` with each <include> replaced by the included file's elements, as MuJoCo
        reads them (a file named relative to the top file's folder)."""
        children = []
        for child in element.children:
            if child.tag != "include":
                children.append(self.inlined(child, including))
                continue
            name = child.attrs.get("file")
            if not name:
                raise RobotFileError(child.path, "an <include> names no file", line=child.line)
            target = self.folder / name
            if target in including:
                raise RobotFileError(child.path, f"includes {target}, which includes it in "
                                     "turn", line=child.line, expected="includes without a "
                                     "cycle")
            regular_file(target, MAX_MJCF_BYTES, "an MJCF file", child.path)
            included = self.inlined(self.read(target, included=True), (*including, target))
            children.extend(included.children)
        return Element(element.tag, element.attrs, tuple(children), element.line, element.path)

    def check_assets(self, root: Element):
        """Every file an asset names, where one is there, a regular file of a bounded size:
        each attribute file, fileup, filedown ... (a cube texture's six) of every element,
        looked for where MuJoCo looks (the compiler's folders) and beside the file."""
        folders: dict[str, Path] = {}
        for compiler in root.iter():
            if compiler.tag == "compiler":
                for key in ("assetdir", "meshdir", "texturedir"):
                    if key in compiler.attrs:
                        folders.setdefault(key, self.folder / compiler.attrs[key])
        for element in root.iter():
            if element.tag in ("include", "model"):
                continue
            for key, name in element.attrs.items():
                if not key.startswith("file") or not name:
                    continue
                places = {folders.get(ASSET_FOLDERS.get(element.tag, ""), self.folder),
                          folders.get("assetdir", self.folder), self.folder,
                          element.path.parent}
                for folder in sorted(places):
                    target = folder / name
                    if target.exists() or target.is_symlink():
                        regular_file(target, MAX_ASSET_BYTES, f"a {element.tag} file",
                                     element.path)

    # -- what the model makes ------------------------------------------------------------------
    def check_counts(self):
        """Refuse a model whose XML makes more bodies or joints than MAX_BODIES and
        MAX_JOINTS (replicate's counts multiplied, attached models' bodies added)."""
        bodies, joints = self.counts(self.root)
        for count, limit, kind in ((bodies, MAX_BODIES, "bodies"), (joints, MAX_JOINTS, "joints")):
            if count > limit:
                raise RobotFileError(self.path, f"the model makes {count:.0f} {kind} (its "
                                     "<replicate> and <composite> counts multiplied), more "
                                     f"than symdyn reads ({limit}) before compiling it",
                                     expected="a robot of up to 64 links and a scene around "
                                              "it")

    def counts(self, element: Element) -> tuple[float, float]:
        """The bodies and joints ``element`` makes, its copies counted (attachments cannot
        cycle: ``model`` refused that)."""
        bodies = joints = 0.0
        for child in element.children:
            if child.tag == "default":
                continue
            b, j = self.counts(child)
            copies = 1.0
            if child.tag == "replicate":
                copies = _number(child.attrs.get("count", "1"))
            elif child.tag in MAKES_BODIES:
                copies = math.prod(_number(c) for c in child.attrs.get("count", "1").split())
                b, j = b + copies, j + copies
                copies = 1.0
            elif child.tag == "attach":
                b, j = self.attached(child)
            bodies += copies * (b + (child.tag == "body"))
            joints += copies * (j + (child.tag in TAGS["joint"]))
            if bodies > MAX_BODIES or joints > MAX_JOINTS:
                return bodies, joints       # enough to refuse: no need to count on
        return bodies, joints

    def attached(self, attach: Element) -> tuple[float, float]:
        """The bodies and joints an <attach> brings: its body's subtree in the model named."""
        name = attach.attrs.get("model")
        model = next((e for root in self.models.values() for e in root.iter()
                      if e.tag == "model" and e.attrs.get("name") == name
                      and "file" in e.attrs), None)
        root = None if model is None else self.models.get(self.folder / model.attrs["file"])
        body = next((e for e in root.iter() if e.tag == "body"
                     and e.attrs.get("name") == attach.attrs.get("body")), None) if root else None
        if body is None:
            return 0.0, 0.0         # MuJoCo says what is wrong with it
        b, j = self.counts(body)
        return b + 1, j

    # -- where an element came from -------------------------------------------------------------
    def where(self, kind: str, name: str, index: int, count: int, info: str) -> Where:
        """The file and line of MuJoCo's ``kind`` object ``index`` (of ``count``), named
        ``name`` (empty for none): found by its name, else by its place among the elements of
        its kind where the XML has as many as MuJoCo made; else the top file, at the line
        MuJoCo's ``info`` gives (its own, for elements of the top file alone)."""
        elements = self.elements(kind)
        if name:
            named = self.found.setdefault(("named", kind), {
                e.attrs["name"]: e for e in reversed(elements) if "name" in e.attrs})
            if name in named:
                return Where(named[name].path, named[name].line)
            for path, root in self.models.items():      # an attached model's, prefixed
                for element in self.elements(kind, root):
                    own = element.attrs.get("name")
                    if own and name.endswith(own) and path != self.path:
                        return Where(element.path, element.line)
        elif len(elements) == count:
            return Where(elements[index].path, elements[index].line)
        line = int(info.split()[-1]) if info.split() and info.split()[-1].isdigit() else 0
        return Where(self.path, line or None)

    def elements(self, kind: str, root: Element | None = None) -> list[Element]:
        """The elements of ``root`` (the top model) that make MuJoCo objects of ``kind``, in
        MuJoCo's order (the document's), those in defaults classes left out; the world's body
        first. Found once for each (a model of thousands of bodies asks for each one)."""
        root = self.root if root is None else root
        key = (kind, id(root))
        if key not in self.found:
            self.found[key] = self.find(kind, root)
        return self.found[key]

    def find(self, kind: str, root: Element) -> list[Element]:
        found = [root] if kind == "body" else []      # the world body, body 0
        stack = [(child, False) for child in reversed(root.children)]
        while stack:
            element, inside = stack.pop()
            if element.tag == "default":
                continue
            inside_section = inside or element.tag == PARENT_TAG.get(kind)
            if element.tag in TAGS[kind] and (kind not in PARENT_TAG or inside):
                found.append(element)
            stack.extend((child, inside_section) for child in reversed(element.children))
        return found


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return 1.0          # MuJoCo says what is wrong with it
    return value if math.isfinite(value) and value > 0 else 1.0
