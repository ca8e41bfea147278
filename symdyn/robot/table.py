"""The tables of a robot file: its geometry (the DH table, or the joints' placements in the
urdf form), its inertial data and its placements. Every view of a robot shows these:
``symdyn info``, the printouts and the generated files' headers, each in its own notation.
"""
from __future__ import annotations

from dataclasses import dataclass

from .expr import as_text
from .spec import DH_COLUMNS, RobotSpec

CONVENTIONS = {
    "standard": "standard (Denavit-Hartenberg, Spong): T = Rz(theta) Tz(d) Tx(a) Rx(alpha)",
    "modified": "modified (Craig): T = Rx(alpha(i-1)) Tx(a(i-1)) Rz(theta(i)) Tz(d(i))",
}
URDF_COLUMNS = ("origin xyz", "origin rpy", "axis")


@dataclass(frozen=True)
class Table:
    """A caption, a header and rows. A cell is text (a string), a number or an expression, or
    a vector (a tuple of them)."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple, ...]


def geometry(spec: RobotSpec, joint_variables=()) -> Table:
    """The DH table (a, alpha, d, theta) or, in the urdf form, each joint's origin and axis.
    With ``joint_variables`` (the q_i), theta of a revolute joint and d of a prismatic one
    show theirs added. A tree's table names each link and its parent, and a modified table
    with Khalil and Kleinfinger's gamma and b shows them."""
    tree = _Tree(spec)
    if spec.convention == "urdf":
        return Table("Joints, placed as URDF places them: the origin in the parent link's frame "
                     "(xyz, then R = Rz(yaw) Ry(pitch) Rx(roll)) and the unit axis there (a "
                     "spherical joint's: any)",
                     ("i", *tree.header, "joint", *URDF_COLUMNS),
                     tuple((str(i), *tree.cells(i), link.joint, tuple(link.origin.xyz),
                            tuple(link.origin.rpy),
                            tuple(link.axis) if link.axis is not None else "any")
                           for i, link in enumerate(spec.links, start=1)))
    prime = "" if spec.convention == "standard" else \
        " (a and alpha of row i are a(i-1), alpha(i-1))"
    extra = ("gamma", "b") if any(link.gamma != 0 or link.b != 0 for link in spec.links) else ()
    if extra:
        prime += "; a tree's link is first turned by gamma about, and moved by b along, its " \
                 "parent's z"
    q = tuple(joint_variables) or (0,) * len(spec.links)
    return Table(f"Denavit-Hartenberg table, {CONVENTIONS[spec.convention]}{prime}",
                 ("i", *tree.header, "joint", *extra, *DH_COLUMNS),
                 tuple((str(i), *tree.cells(i), link.joint,
                        *(getattr(link, key) for key in extra), link.a, link.alpha,
                        link.d + (q_i if link.joint == "prismatic" else 0),
                        link.theta + (q_i if link.joint == "revolute" else 0))
                       for i, (link, q_i) in enumerate(zip(spec.links, q), start=1)))


@dataclass(frozen=True)
class _Tree:
    """The name and parent columns of a tree's table (none for a chain without names)."""

    spec: RobotSpec

    @property
    def shown(self) -> bool:
        return any(link.name is not None or link.parent != i
                   for i, link in enumerate(self.spec.links))

    @property
    def mimics(self) -> bool:
        return any(link.mimic is not None for link in self.spec.links)

    @property
    def header(self) -> tuple[str, ...]:
        return (("link", "parent") if self.shown else ()) + (("mimics",) if self.mimics else ())

    def cells(self, i: int) -> tuple[str, ...]:
        link = self.spec.links[i - 1]
        out = ()
        if self.shown:
            out = (link_name(self.spec, i),
                   "base" if link.parent == 0 else link_name(self.spec, link.parent))
        if self.mimics:
            out += ("" if link.mimic is None else
                    f"{link_name(self.spec, link.mimic)} (q = {text(link.multiplier)} q_"
                    f"{link_name(self.spec, link.mimic)} + {text(link.offset)})",)
        return out


def joints(spec: RobotSpec) -> str:
    """"7 joints", or "6 joints and 2 mimic joints": the coordinates', then the others'; "a
    floating base and 12 joints" on a free-flyer."""
    mimics = sum(link.mimic is not None for link in spec.links)
    own = f"{len(spec.links) - mimics} joint{'s' if len(spec.links) - mimics != 1 else ''}"
    return (("a floating base and " if spec.floating else "") + own
            + (f" and {mimics} mimic joint{'s' if mimics > 1 else ''}" if mimics else ""))


def link_name(spec: RobotSpec, i: int) -> str:
    """Link i's name, or its number where the file gives none."""
    return spec.links[i - 1].name or str(i)



def inertial(spec: RobotSpec) -> Table:
    """Each link's mass, centre of mass (or first moment) and inertia, as the file gives them;
    a floating base's body first, as link 0."""
    body = spec.base_body
    base = (("0 (floating base)", body.mass, tuple(body.com), tuple(body.inertia)),) \
        if spec.floating and body is not None else ()
    return Table("Inertial parameters (link frame {i})",
                 ("i", "mass", "centre of mass / first moment", "inertia"),
                 base + tuple((str(i), link.mass,
                               tuple(link.com if link.com is not None else link.first_moment),
                               tuple(link.inertia if link.inertia is not None
                                     else link.inertia_origin))
                              for i, link in enumerate(spec.links, start=1)))


def placements(spec: RobotSpec) -> Table | None:
    """The base's, the tool's and the named frames' placements, or None where the file gives
    none."""
    def link(i):
        return "the base frame {0}" if i == 0 else \
            f"link {spec.links[i - 1].name or i}'s frame"

    rows = tuple((what, tuple(p.xyz), tuple(p.rpy))
                 for what, p in (("base: frame {0} in the world", spec.base),
                                 ("tool: in the last link's frame {n}", spec.tool))
                 if p is not None) + tuple(
        (f"{frame.name}: in {link(frame.parent)}", tuple(frame.placement.xyz),
         tuple(frame.placement.rpy)) for frame in spec.frames)
    return Table("Placements (xyz, then R = Rz(yaw) Ry(pitch) Rx(roll))", ("frame", "xyz", "rpy"),
                 rows) if rows else None


def constraints(spec: RobotSpec) -> Table | None:
    """The constraints as the file gives them, and the actuated joints; None without
    constraints."""
    if not spec.constraints:
        return None
    rows = []
    for c in spec.constraints:
        if c.kind == "coupling":
            held = " + ".join(f"{as_text(k)} {name}" for name, k in c.terms) + \
                f" = {as_text(c.value)}"
        else:
            held = " to ".join(c.frames) + ("" if len(c.frames) == 2 else " to the world")
        rows.append((c.name, c.kind, held, ", ".join(c.axes) or "all"))
    actuated = f"; actuated: {', '.join(spec.actuated)}" if spec.actuated else ""
    return Table(f"Constraints (rows in the world's axes{actuated})",
                 ("name", "kind", "holds", "rows"), tuple(rows))


def text(cell) -> str:
    """A cell as plain text: a vector in brackets, a number as the file would write it."""
    if isinstance(cell, str):
        return cell
    if isinstance(cell, tuple):
        return "[" + ", ".join(as_text(v) for v in cell) + "]"
    return as_text(cell)


def columns(rows) -> tuple[str, ...]:
    """Rows of text laid out in columns two spaces apart, each line without trailing spaces."""
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    return tuple("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
                 for row in rows)
