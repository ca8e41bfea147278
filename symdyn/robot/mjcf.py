"""MJCF -> Chain: a MuJoCo model's bodies and joints, as MuJoCo's own compiler makes them.

The file is compiled by the ``mujoco`` package (the optional extra ``symdyn[mjcf]``), so that
defaults classes, ``childclass``, ``<include>``, ``inertiafromgeom``, degrees and Euler
sequences mean what MuJoCo makes of them; the compiled model's numbers are then read into the
links and joints tree.py cuts, as the URDF importer's are.

MuJoCo's picture and symdyn's:

* a body is a link; the world body is the root link of a fixed robot;
* a hinge turns its body about an axis through the joint's ``pos`` (in the body's frame), by
  qpos - qpos0 (the joint's ``ref``): the link's frame is the joint's, placed so that symdyn's
  q is MuJoCo's qpos, and the body sits at -pos in it; a slide is a prismatic joint;
* several joints in one body act one after the other (MuJoCo's mj_kinematics): links without
  mass between them;
* a free joint on a body below the world is the floating base (``root: free_flyer``);
* a site is a named frame, a link without mass on a fixed joint;
* armature, damping and frictionloss are the rotor inertia and the viscous and Coulomb friction
  of a joint; a joint's actuator force range, or an actuator's force range times its gear, its
  effort limit;
* a joint equality ``joint1 = poly(joint2)`` with a linear polynomial is a mimic joint.

Ball joints, tendons and other equality constraints (loops, welds) are refused, each in one
line naming the element and the line MuJoCo read it from.
"""
from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import defusedxml
import defusedxml.ElementTree
import numpy as np

from ..errors import RobotFileError
from ..spatial import Inertia
from .reading import read_bounded, regular_file
from .rigid import (
    QUARTER_TOLERANCE,
    inertia_tensor,
    no_body,
    pose,
    rotation_wxyz,
    rpy,
    seen_from,
)
from .tree import Chain, Joint, LinkTree
from .validity import body_problem

MAX_MJCF_BYTES = 8 << 20
MAX_ASSET_BYTES = 512 << 20     # a mesh or a texture
WORLD = "world"


def read_chain(path, base: str | None = None, tip: str | None = None, *,
               allow_inconsistent_inertia: bool = False,
               snap_angles: float = QUARTER_TOLERANCE, root: str | None = None) -> Chain:
    """As urdf.read_chain, of an MJCF file. Without ``root``, a model with a free joint is on
    a floating base; ``root`` "fixed" holds that body where the file places it."""
    return read_model(path, base, tip, allow_inconsistent_inertia=allow_inconsistent_inertia,
                      snap_angles=snap_angles, root=root)[0]


def read_model(path, base: str | None = None, tip: str | None = None, *,
               allow_inconsistent_inertia: bool = False,
               snap_angles: float = QUARTER_TOLERANCE, root: str | None = None):
    """read_chain's chain, and the MjModel MuJoCo compiled it from (compiled once for both)."""
    model = _Model(Path(path), allow_inconsistent_inertia, snap_angles, root)
    return model.read(base, tip, root), model.model


def mujoco_package():
    """The ``mujoco`` module, or a RobotFileError that says how to install it."""
    try:
        import mujoco
    except ImportError:
        raise RobotFileError("mujoco", "MJCF files are read by MuJoCo's compiler, and the "
                             "'mujoco' package is not installed",
                             expected="pip install 'symdyn[mjcf]'") from None
    return mujoco


def compiled(path: Path):
    """MuJoCo's spec and compiled model of the MJCF file at ``path`` (RobotFileError with the
    line MuJoCo names where it cannot compile it)."""
    mujoco = mujoco_package()
    check_files(Path(path))
    try:
        spec = mujoco.MjSpec.from_file(str(path))
        return spec, spec.compile()
    except ValueError as exc:
        message = " ".join(str(exc).split())
        found = re.search(r"line (\d+)", message)
        raise RobotFileError(path, f"MuJoCo cannot compile it: {message}",
                             line=int(found.group(1)) if found else None) from None


# Where MuJoCo looks for the files an element names, by the <compiler> attribute of its folder
ASSET_FOLDERS = {"mesh": "meshdir", "skin": "meshdir", "texture": "texturedir",
                 "hfield": "texturedir"}
XML_FILES = ("include", "model")        # MJCF files themselves: what they name is read too


def check_files(path: Path):
    """Every file the MJCF at ``path`` names (includes, attached models, meshes, textures,
    heightfields, skins), through its includes, a regular file of a bounded size before MuJoCo
    reads any: it would block on a FIFO, and read a device or a huge file to the end. The XML
    is read by defusedxml (no DTD, no entities); a file that does not exist is left to MuJoCo,
    which says so."""
    folder = path.parent
    dirs: dict[str, Path] = {}
    stack, seen = [path], set()
    while stack:
        xml = stack.pop()
        raw = read_bounded(xml, MAX_MJCF_BYTES, "an MJCF file")
        try:
            root = defusedxml.ElementTree.fromstring(raw)
        except (ElementTree.ParseError, defusedxml.DefusedXmlException) as exc:
            raise RobotFileError(xml, f"not an XML file MuJoCo could read: {exc}") from None
        for compiler in root.iter("compiler"):
            for key in ("assetdir", "meshdir", "texturedir"):
                if compiler.get(key) is not None:
                    dirs.setdefault(key, folder / compiler.get(key))
        for element in root.iter():
            name = element.get("file")
            if name is None:
                continue
            if element.tag in XML_FILES:
                target = folder / name      # MuJoCo's: relative to the main file's folder
                if target not in seen:
                    regular_file(target, MAX_MJCF_BYTES, "an MJCF file", xml)
                    seen.add(target)
                    stack.append(target)
                continue
            base = dirs.get(ASSET_FOLDERS.get(element.tag, ""), dirs.get("assetdir", folder))
            target = base / name
            if target.exists() or target.is_symlink():
                regular_file(target, MAX_ASSET_BYTES, f"a {element.tag} file", xml)


def _line(element) -> int | None:
    found = re.search(r"line (\d+)", getattr(element, "info", "") or "")
    return int(found.group(1)) if found else None


def _translation(xyz) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = xyz
    return T


class _Model(LinkTree):
    format = "MJCF"

    def __init__(self, path: Path, lenient: bool, snap_angles: float, root: str | None):
        super().__init__(path)
        mujoco = mujoco_package()
        self.lenient = lenient
        self.snap_angles = snap_angles
        spec, model = compiled(path)
        self.mj, self.model = mujoco, model
        self.robot = spec.modelname
        self.gravity = tuple(float(g) for g in model.opt.gravity)
        self.refuse_constraints(spec, model)
        self.names = {kind: self.object_names(kind, count) for kind, count in (
            ("body", model.nbody), ("joint", model.njnt), ("site", model.nsite))}
        self.lines = {kind: {e.id: _line(e) for e in elements} for kind, elements in (
            ("body", spec.bodies), ("joint", spec.joints), ("site", spec.sites))}
        free = [j for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
        self.root = "free_flyer" if free else "fixed"
        self.floating = (root or self.root) == "free_flyer"
        self.free = free
        self.bodies: dict[str, Inertia] = {}
        self.anchors: dict[str, np.ndarray] = {}    # a link's last hinge anchor, in its body
        self.order: dict[str, int] = {}       # each joint's place in the file (siblings' order)
        top = self.floating_body() if self.floating else None
        if top is None:
            self.add_link(WORLD, no_body())
        for b in range(1, model.nbody):
            if top is not None and not self.below_body(b, top):
                continue
            self.add_body(b, top)
        for s in range(model.nsite):
            b = int(model.site_bodyid[s])
            if self.link_of(b) in self.links:     # not on the world of a floating base
                self.add_site(s)
        self.index()

    # -- what symdyn does not take -------------------------------------------------------------
    def refuse(self, message, tag, element_line, expected=None):
        raise RobotFileError(self.path, message, field=f"<{tag}>", line=element_line,
                             expected=expected)

    def refuse_constraints(self, spec, model):
        mj = self.mj
        for tendon in spec.tendons:
            self.refuse(f"tendon {tendon.name or tendon.id!r} couples joints", "tendon",
                        _line(tendon), expected="a model without tendons (symdyn takes trees "
                        "of joints, mimic joints as <equality><joint>)")
        for joint in spec.joints:
            if model.jnt_type[joint.id] == mj.mjtJoint.mjJNT_BALL:
                self.refuse(f"joint {joint.name or joint.id!r} is a ball joint", "joint",
                            _line(joint), expected="hinge, slide or free joints")
        kinds = {int(mj.mjtEq.mjEQ_CONNECT): "connect", int(mj.mjtEq.mjEQ_WELD): "weld",
                 int(mj.mjtEq.mjEQ_JOINT): "joint", int(mj.mjtEq.mjEQ_TENDON): "tendon"}
        for equality in spec.equalities:
            e = equality.id
            kind = kinds.get(int(model.eq_type[e]), "flex")
            if kind != "joint":
                self.refuse(f"equality {equality.name or e!r} ({kind}) constrains the motion: a "
                            "closed loop or a weld", kind, _line(equality),
                            expected="open trees, and joint equalities for mimic joints")
            if model.eq_obj2id[e] < 0 or np.any(model.eq_data[e, 2:5]):
                self.refuse(f"equality {equality.name or e!r} holds joint "
                            f"{self.object_name('joint', model.eq_obj1id[e])!r} to a "
                            "polynomial or a constant", "joint", _line(equality),
                            expected="joint1 = a0 + a1 joint2 (polycoef with a2 = a3 = a4 = 0)")

    def object_names(self, kind: str, count: int) -> list[str]:
        return [self.object_name(kind, k) for k in range(count)]

    def object_name(self, kind: str, k: int) -> str:
        obj = getattr(self.mj.mjtObj, f"mjOBJ_{kind.upper()}")
        return self.mj.mj_id2name(self.model, obj, int(k)) or f"{kind}{k}"

    # -- the tree ----------------------------------------------------------------------------
    def floating_body(self) -> int:
        """The body whose free joint the floating base is (or, asked to float a model without
        one, the world's only child body, which has no joint)."""
        model = self.model
        children = [b for b in range(1, model.nbody) if model.body_parentid[b] == 0]
        free = [int(model.jnt_bodyid[j]) for j in self.free]
        if len(free) > 1 or free and (model.body_parentid[free[0]] != 0
                                      or model.body_jntnum[free[0]] != 1):
            b = free[-1] if len(free) > 1 else free[0]
            self.refuse(f"body {self.names['body'][b]!r} has a free joint, but symdyn takes one "
                        "floating base: a body of the world with no other joint", "joint",
                        self.lines["joint"].get(int(model.body_jntadr[b])),
                        expected="one free joint")
        top = free[0] if free else (children[0] if len(children) == 1
                                    and model.body_jntnum[children[0]] == 0 else None)
        if top is None:
            raise RobotFileError(self.path, "--root free_flyer floats the world's one body, but "
                                 f"the world holds {len(children)} bodies or its body has a "
                                 "joint", expected="a model with a free joint, or one body "
                                 "of the world without joints")
        for b in children:
            moving = any(self.below_body(k, b) and model.body_jntnum[k]
                         for k in range(1, model.nbody))
            if b != top and moving:
                self.refuse(f"body {self.names['body'][b]!r} moves, but is not on the floating "
                            f"base {self.names['body'][top]!r}", "body", self.lines["body"][b],
                            expected="one robot in the model")
        return top

    def below_body(self, b: int, top: int) -> bool:
        while b > 0:
            if b == top:
                return True
            b = int(self.model.body_parentid[b])
        return False

    def add_link(self, name: str, body: Inertia):
        self.links[name] = name
        self.bodies[name] = body

    def link_of(self, b: int) -> str:
        return WORLD if b == 0 else self.names["body"][b]

    def add_body(self, b: int, top: int | None):
        """Body ``b`` as a link, after massless links for all but its last joint; its frame
        is MuJoCo's body frame moved to its last hinge's anchor (``offset``)."""
        model, mj = self.model, self.mj
        name = self.link_of(b)
        if b == top:        # the floating base: its frame is the body's
            self.add_link(name, self.inertia(b))
            return
        parent = self.link_of(int(model.body_parentid[b]))
        placement = self.offset(parent) @ self.pose(model.body_pos[b], model.body_quat[b])
        first, count = int(model.body_jntadr[b]), int(model.body_jntnum[b])
        joints = [j for j in range(first, first + count)
                  if model.jnt_type[j] != mj.mjtJoint.mjJNT_FREE]
        if not joints:      # welded to its parent (or a free joint on a fixed root)
            self.add_link(name, self.inertia(b))
            self.joints[name] = Joint(f"{name} (weld)", "fixed", parent, name, placement,
                                      np.array([1.0, 0.0, 0.0]), {}, 0.0, 0.0, None, None,
                                      self.lines["body"][b])
            return
        anchor = np.zeros(3)
        for k, j in enumerate(joints):
            child = name if k == len(joints) - 1 else f"{name} {self.names['joint'][j]}"
            hinge = model.jnt_type[j] == mj.mjtJoint.mjJNT_HINGE
            axis = np.array(model.jnt_axis[j], dtype=float)
            ref = float(model.qpos0[model.jnt_qposadr[j]])
            if hinge:
                # turned by qpos - ref about the axis through the anchor
                placement = placement @ _translation(np.asarray(model.jnt_pos[j]) - anchor) \
                    @ self.turn(axis, -ref)
                anchor = np.array(model.jnt_pos[j], dtype=float)
            else:
                placement = placement @ _translation(-ref * axis)
            self.joints[child] = self.joint(j, parent, child, placement, axis, hinge)
            self.add_link(child, no_body())
            self.order[self.joints[child].name] = j
            parent, placement = child, np.eye(4)
        self.anchors[name] = anchor
        self.bodies[name] = seen_from(_translation(-anchor), self.inertia(b))

    def offset(self, link: str) -> np.ndarray:
        """MuJoCo's body frame in the frame of the link (its last hinge's anchor)."""
        return _translation(-self.anchors.get(link, np.zeros(3)))

    def joint(self, j: int, parent: str, child: str, placement, axis, hinge: bool) -> Joint:
        model = self.model
        dof = int(model.jnt_dofadr[j])
        limits = {}
        if model.jnt_limited[j]:
            limits = {"lower": float(model.jnt_range[j, 0]), "upper": float(model.jnt_range[j, 1])}
        effort = self.effort(j)
        if effort is not None:
            limits["effort"] = effort
        if model.jnt_stiffness[j]:
            self.warnings.append(f"{self.path}: joint {self.names['joint'][j]!r} has a spring "
                                 "(stiffness), which symdyn leaves out, as MuJoCo's passive "
                                 "forces")
        armature = float(model.dof_armature[dof])
        damping, friction = float(model.dof_damping[dof]), float(model.dof_frictionloss[dof])
        actuator = None if not armature else {
            "motor_inertia": armature, "gear_ratio": 1.0, "viscous_friction": damping,
            "coulomb_friction": (friction, -friction)}
        return Joint(self.names["joint"][j], "revolute" if hinge else "prismatic", parent, child,
                     placement, axis / np.linalg.norm(axis), limits, damping, friction,
                     actuator, self.mimic(j), self.lines["joint"].get(j))

    def effort(self, j: int) -> float | None:
        """The joint's actuator force range, else its force-limited actuators' gear times
        force range, summed; None where neither bounds it."""
        model, mj = self.model, self.mj
        if model.jnt_actfrclimited[j]:
            return float(np.abs(model.jnt_actfrcrange[j]).max())
        bounds = [abs(float(model.actuator_gear[a, 0])) * float(np.abs(
            model.actuator_forcerange[a]).max()) for a in range(model.nu)
            if model.actuator_trntype[a] == mj.mjtTrn.mjTRN_JOINT
            and model.actuator_trnid[a, 0] == j and model.actuator_forcelimited[a]]
        return sum(bounds) if bounds else None

    def mimic(self, j: int) -> tuple | None:
        """(followed joint's name, multiplier, offset) of an active joint equality on ``j``:
        MuJoCo's q1 - q1_0 = a0 + a1 (q2 - q2_0) is q1 = a1 q2 + a0 + q1_0 - a1 q2_0."""
        model = self.model
        for e in range(model.neq):
            if (model.eq_type[e] == self.mj.mjtEq.mjEQ_JOINT and model.eq_obj1id[e] == j
                    and model.eq_active0[e]):
                k = int(model.eq_obj2id[e])
                a0, a1 = (float(c) for c in model.eq_data[e, :2])
                q0 = {i: float(model.qpos0[model.jnt_qposadr[i]]) for i in (j, k)}
                return self.names["joint"][k], a1, a0 + q0[j] - a1 * q0[k]
        return None

    def add_site(self, s: int):
        """A site: a massless link fixed to its body, which tree.py makes a named frame."""
        model = self.model
        b = int(model.site_bodyid[s])
        body = self.link_of(b)
        name = self.names["site"][s]
        if name in self.links:
            name = f"{name} (site)"
        self.add_link(name, no_body())
        self.joints[name] = Joint(f"{name} (site)", "fixed", body, name,
                                  self.offset(body) @ self.pose(model.site_pos[s],
                                                                model.site_quat[s]),
                                  np.array([1.0, 0.0, 0.0]), {}, 0.0, 0.0, None, None,
                                  self.lines["site"].get(s))

    # -- numbers -----------------------------------------------------------------------------
    def pose(self, xyz, quaternion) -> np.ndarray:
        """A placement, its rotation's angles within the tolerance of a multiple of pi/12 made
        that multiple (as URDF's rpy are): MuJoCo's quaternions of round angles are rounded."""
        return pose(np.asarray(xyz, dtype=float), rpy(rotation_wxyz(quaternion)),
                    self.snap_angles)

    def turn(self, axis, angle: float) -> np.ndarray:
        """A rotation by ``angle`` about ``axis`` (a joint's reference turned back)."""
        if angle == 0:
            return np.eye(4)
        half = angle / 2
        axis = axis / np.linalg.norm(axis)
        return self.pose((0, 0, 0), (np.cos(half), *(np.sin(half) * axis)))

    def inertia(self, b: int) -> Inertia:
        """The body's inertia about its frame's origin, MuJoCo's principal axes turned back."""
        model = self.model
        mass, moments = float(model.body_mass[b]), np.array(model.body_inertia[b], dtype=float)
        problem = body_problem(mass, (0, 0, 0), [*moments, 0, 0, 0], about_origin=False)
        if problem:
            message = f"body {self.names['body'][b]!r}: {problem}"
            if not self.lenient:
                raise RobotFileError(self.path, message, field="<body>",
                                     line=self.lines["body"][b],
                                     expected="a rigid body's inertial data, or "
                                              "--allow-inconsistent-inertia for published data")
            self.warnings.append(f"{self.path}: {message} (allowed by "
                                 "--allow-inconsistent-inertia)")
        principal = _translation(model.body_ipos[b])
        principal[:3, :3] = rotation_wxyz(model.body_iquat[b])
        return seen_from(principal, Inertia(mass, np.zeros(3), inertia_tensor(
            [*moments, 0, 0, 0])))

    def body(self, link: str) -> Inertia:
        return self.bodies[link]

    def sibling_key(self, joint: Joint):
        """MuJoCo's own order of the joints (qpos's), welds and sites after them."""
        return self.order.get(joint.name, len(self.order)), joint.name
