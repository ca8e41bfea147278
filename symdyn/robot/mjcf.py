"""MJCF -> Chain: a MuJoCo model's bodies and joints, as MuJoCo's own compiler makes them.

The file is compiled by the ``mujoco`` package (the optional extra ``symdyn[mjcf]``), so that
defaults classes, ``childclass``, ``<include>``, ``inertiafromgeom``, degrees and Euler
sequences mean what MuJoCo makes of them; the compiled model's numbers are then read into the
links and joints tree.py cuts, as the URDF importer's are. What MuJoCo is given is checked
first (mjcf_files.py), and every number read from the compiled model is bounded as the robot
file's are.

MuJoCo's picture and symdyn's:

* a body is a link, named as the body; the world body is the root link of a fixed robot;
* a hinge turns its body about an axis through the joint's ``pos`` (in the body's frame), by
  qpos - qpos0 (the joint's ``ref``): the link's frame is the joint's, placed so that symdyn's
  q is MuJoCo's qpos, and the body sits at -pos in it; a slide is a prismatic joint; every
  body's own frame is a named frame of its name, and q is in MuJoCo's qpos order;
* several joints in one body act one after the other (MuJoCo's mj_kinematics): links without
  mass between them;
* a free joint on a body of the world is the floating base (``root: free_flyer``), or, with
  ``free_bodies``, a free_flyer joint of the tree whose root, the world, is fixed: each body
  that moves freely (an object, a second robot) is then kept, its q MuJoCo's qpos (the
  quaternion's w last), its linear velocity in its own axes (MuJoCo's in the world's); a ball
  joint is a spherical joint turning its body about the joint's ``pos``;
* a site is a named frame;
* armature, damping and frictionloss are the rotor inertia and the viscous and Coulomb friction
  of a joint, stiffness and springref its spring; a joint's actuator force range, or an
  actuator's force range times its gear, its effort limit;
* a joint equality ``joint1 = poly(joint2)`` with a linear polynomial is a mimic joint;
* gravity is the option's, off where ``<flag gravity="disable"/>`` says so, and scaled by
  1 - gravcomp where every body of the robot has the same gravity compensation.

A scene is cut to its robot: the bodies ``--base`` names, or else the part of the world that
moves on joints; free objects (unless ``free_bodies`` keeps them), mocap bodies and the
equalities that hold them are left out, and said so. What changes MuJoCo's dynamics and
symdyn's model does not carry (fluid forces, a ball joint's spring, a gravity compensation that
differs between bodies, damping polynomials, plugins) is left out with a warning line for each
kind (LinkTree.note), and ``as_imported`` takes it out of a compiled model too, so that
``symdyn check --mjcf`` compares the same dynamics.

Connect and weld equalities within the robot (closed loops, a body welded to the world) are
constraints of the robot file (add_held), between frames made for them where MuJoCo's anchors
are, and closed_at is qpos0; the rows that repeat others where they hold (a planar loop's z)
are left out by import_robot, and said so. Fixed tendons are the robot file's tendons (the
transmissions actuators pull through); a tendon equality, or a joint equality with a constant
and no second joint, is a coupling. Spatial tendons and tendons' limits and passive forces are
left out with a warning. A ball joint is a spherical joint: its qpos (w, x, y, z) is the
robot file's (x, y, z, w), its qvel the same angular velocity in its body's axes; its
armature, damping, friction loss and cone range are left out with a warning. The other
equalities are refused, each in one line naming the element and the file and line it came
from.
"""
from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np

from ..errors import RobotFileError
from ..spatial import Inertia
from .file import MAX_LINKS
from .mjcf_assets import ABSENT, stand_ins
from .mjcf_files import MAX_MJCF_BYTES, MjcfFiles
from .rigid import (
    LARGEST,
    QUARTER_TOLERANCE,
    in_bounds,
    inertia_tensor,
    no_body,
    pose,
    rotation_wxyz,
    rpy,
    seen_from,
    wxyz_of_rotation,
)
from .tree import INCONSISTENT, Chain, Held, Joint, LinkTree, Tendon
from .validity import body_problem

WORLD = "world"
__all__ = ["MAX_MJCF_BYTES", "as_imported", "read_chain", "read_model"]

# Kinds of what the import leaves out of MuJoCo's dynamics (LinkTree.note), which as_imported
# takes out of a compiled model.
FLUID = "fluid forces left out (symdyn has no model of them):"
GRAVCOMP = ("gravity compensation left out (the bodies' gravcomp differ; symdyn scales "
            "gravity for all of them alike):")
DAMPING_POLYNOMIAL = "nonlinear damping (dampingpoly) left out on joints"
PLUGINS = "plugins' forces left out:"
MUJOCO_WARNED = "MuJoCo's compiler warned:"
SCENE = "left out of the robot, with the equalities that hold them:"
SPATIAL_TENDONS = ("spatial tendons left out (they wrap around sites and geometry; symdyn's "
                   "tendons are fixed ones, sums of joints):")
TENDON_LIMITS = "tendon limits left out (inequalities, which symdyn's dynamics do not hold):"
TENDON_PASSIVE = "tendons' springs, damping, friction and armature left out:"
FREE_LEFT_OUT = ("free joints' armature, damping and friction loss left out (a robot file's "
                 "free_flyer joint has none):")
BALL_LEFT_OUT = ("ball joints' armature, damping, friction loss, range and springs left out "
                 "(a spherical joint of a robot file has none):")


def read_chain(path, base: str | None = None, tip: str | None = None, *,
               strict_inertia: bool = False, snap_angles: float = QUARTER_TOLERANCE,
               root: str | None = None, free_bodies: bool = False) -> Chain:
    """As urdf.read_chain, of an MJCF file. Without ``root``, a model with a free joint is on
    a floating base; ``root`` "fixed" holds that body where the file places it.
    ``free_bodies``: the world is the fixed root, and every body on a free joint (objects,
    floating robots) a free_flyer joint of the tree."""
    model = _Model(Path(path), strict_inertia, snap_angles, root, base, free_bodies)
    return model.read(base, tip, root)


def read_model(path, base: str | None = None, tip: str | None = None, *,
               strict_inertia: bool = False, snap_angles: float = QUARTER_TOLERANCE,
               root: str | None = None, free_bodies: bool = False):
    """read_chain's chain; the MjModel MuJoCo compiled it from (compiled once for both),
    with what the import leaves out taken out of it (as_imported); and what that was."""
    model = _Model(Path(path), strict_inertia, snap_angles, root, base, free_bodies)
    chain = model.read(base, tip, root)
    return chain, model.model, as_imported(model.model, model.noted, snap_angles)


def mujoco_package():
    """The ``mujoco`` module, or a RobotFileError that says how to install it. MuJoCo's own
    warnings become Python warnings: its default handler appends them to MUJOCO_LOG.TXT in
    the working directory, a file the user never asked for."""
    try:
        import mujoco
    except ImportError:
        raise RobotFileError("mujoco", "MJCF files are read by MuJoCo's compiler, and the "
                             "'mujoco' package is not installed",
                             expected="pip install 'symdyn[mjcf]'") from None
    mujoco.set_mju_user_warning(_mujoco_warning)
    return mujoco


def _mujoco_warning(message: str):
    warnings.warn(f"MuJoCo: {message}", stacklevel=2)


def compiled(path: Path):
    """The MJCF file at ``path`` read (MjcfFiles: checked, cycles and sizes refused) and
    compiled by MuJoCo: (files, spec, model, what MuJoCo warned of, kept to be said with the
    import's warnings: a file refused says one line; the assets whose files are not there,
    given stand-ins: mjcf_assets); RobotFileError with the line MuJoCo names where it cannot
    compile it."""
    mujoco = mujoco_package()
    files = MjcfFiles(Path(path))
    absent = []
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            spec = mujoco.MjSpec.from_file(str(path))
            model = spec.compile()
        except ValueError as exc:
            if "Error opening file" not in str(exc):
                raise _not_compiled(path, exc) from None
            spec = mujoco.MjSpec.from_file(str(path))    # its absent assets given stand-ins
            absent = stand_ins(mujoco, spec, path)
            try:
                model = spec.compile()
            except ValueError:
                raise _not_compiled(path, exc) from None
    return (files, spec, model, [str(w.message).removeprefix("MuJoCo: ") for w in said],
            absent)


def _not_compiled(path, exc: ValueError) -> RobotFileError:
    message = " ".join(str(exc).split())
    found = re.search(r"line (\d+)", message)
    line = int(found.group(1)) if found else 0
    return RobotFileError(path, f"MuJoCo cannot compile it: {message}", line=line or None)


# What as_imported takes out of MuJoCo's dynamics, by the kind of note that asks for it
TAKEN_OUT = {FLUID: "fluid forces", GRAVCOMP: "gravity compensation",
             DAMPING_POLYNOMIAL: "damping polynomials",
             TENDON_PASSIVE: "tendons' springs, damping, friction and armature",
             BALL_LEFT_OUT: "ball joints' armature and springs",
             FREE_LEFT_OUT: "free joints' armature"}


def as_imported(model, noted, snap_angles: float = 0.0) -> list[str]:
    """Take out of the compiled ``model`` what the import left out (``noted``, LinkTree.note's
    kinds), so that MuJoCo computes the dynamics the robot file has (``check --mjcf``); what
    was taken out, in words. The bodies' and sites' rotations are made those the import takes
    (their angles within ``snap_angles`` of multiples of pi/12 made those multiples)."""
    for quaternions in (model.body_quat, model.site_quat):
        for k, quaternion in enumerate(quaternions):
            R = pose((0, 0, 0), rpy(rotation_wxyz(quaternion)), snap_angles)[:3, :3]
            quaternions[k] = wxyz_of_rotation(R)
    if FLUID in noted:
        model.opt.density, model.opt.viscosity = 0.0, 0.0
        model.opt.wind[:] = 0
    if GRAVCOMP in noted:
        model.body_gravcomp[:] = 0
    if DAMPING_POLYNOMIAL in noted:
        model.dof_dampingpoly[:] = 0
    kinds = mujoco_package().mjtJoint
    for note, kind, count in ((BALL_LEFT_OUT, kinds.mjJNT_BALL, 3),
                              (FREE_LEFT_OUT, kinds.mjJNT_FREE, 6)):
        if note in noted:           # (damping and friction are off in check's model already)
            for j in range(model.njnt):
                if model.jnt_type[j] == kind:
                    model.dof_armature[model.jnt_dofadr[j]:][:count] = 0
                    model.jnt_stiffness[j] = 0
    if TENDON_PASSIVE in noted:
        for key in ("stiffness", "damping", "frictionloss", "armature"):
            getattr(model, f"tendon_{key}")[:] = 0
    return [words for kind, words in TAKEN_OUT.items() if kind in noted]


def _translation(xyz) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = xyz
    return T


class _Model(LinkTree):
    format = "MJCF"

    def __init__(self, path: Path, strict: bool, snap_angles: float, root: str | None,
                 base: str | None, free_bodies: bool = False):
        super().__init__(path)
        mujoco = mujoco_package()
        if free_bodies and root == "free_flyer":
            raise RobotFileError(path, "--free-bodies keeps the world as the fixed root, "
                                 "and --root free_flyer floats one body", expected="one of them")
        self.free_bodies = free_bodies
        self.strict = strict
        self.snap_angles = snap_angles
        self.files, spec, model, said, absent = compiled(path)
        for message in said:
            self.note(MUJOCO_WARNED, repr(message))
        for asset in absent:
            self.note(ABSENT, asset)
        self.mj, self.model = mujoco, model
        self.robot = spec.modelname
        self.names = {kind: self.object_names(kind, count) for kind, count in (
            ("body", model.nbody), ("joint", model.njnt), ("site", model.nsite),
            ("equality", model.neq), ("tendon", model.ntendon))}
        self.infos = {kind: {e.id: getattr(e, "info", "") or "" for e in elements}
                      for kind, elements in (("body", spec.bodies), ("joint", spec.joints),
                                             ("site", spec.sites), ("equality", spec.equalities),
                                             ("tendon", spec.tendons))}
        top, floating = self.robot_part(base, root)
        self.keep(top)
        self.check_size()
        self.refuse_constraints()
        if root == "free_flyer" and not floating:
            top, floating = self.floated(), True
            self.keep(top)
        self.floating = floating
        self.root = "free_flyer" if floating else "fixed"
        self.options()
        self.bodies: dict[str, Inertia] = {}
        self.anchors: dict[str, np.ndarray] = {}    # a link's last hinge anchor, in its body
        self.order: dict[str, int] = {}       # each link's body (qpos's order, siblings')
        self.made: set[str] = set()           # links between a body's joints: not MuJoCo's
        if not floating:
            self.add_link(WORLD, no_body())
        for b in sorted(self.kept):
            self.add_body(b, top if floating else None)
        for s in range(model.nsite):
            if int(model.site_bodyid[s]) in self.kept or (
                    not floating and model.site_bodyid[s] == 0):
                self.add_site(s)
        self.add_held()
        self.add_tendons()
        self.closed_at = []
        for j in range(model.njnt):
            kind, qpos = model.jnt_type[j], model.qpos0[model.jnt_qposadr[j]:]
            if not self.kept_joint(j) or kind == mujoco.mjtJoint.mjJNT_FREE and not (
                    self.free_bodies):
                continue
            if kind == mujoco.mjtJoint.mjJNT_FREE:      # (p, w, x, y, z) -> (p, x, y, z, w)
                self.closed_at.append((self.names["joint"][j],
                                       tuple(float(x) for x in qpos[[0, 1, 2, 4, 5, 6, 3]])))
            elif kind == mujoco.mjtJoint.mjJNT_BALL:      # (w, x, y, z) -> (x, y, z, w)
                if tuple(qpos[:4]) != (1, 0, 0, 0):
                    self.closed_at.append((self.names["joint"][j],
                                           tuple(float(x) for x in qpos[[1, 2, 3, 0]])))
            elif qpos[0] != 0:
                self.closed_at.append((self.names["joint"][j], float(qpos[0])))
        if floating:        # where MuJoCo holds a frame held to the world: at qpos0
            self.closed_at_root = self.root_pose(top)
        self.index()

    # -- where things are ---------------------------------------------------------------------
    def where(self, kind: str, k: int):
        """The file and line MuJoCo's ``kind`` object ``k`` came from."""
        names = self.names[kind]
        own = self.mj.mj_id2name(self.model, getattr(self.mj.mjtObj, f"mjOBJ_{kind.upper()}"),
                                 int(k)) or ""
        return self.files.where(kind, own, int(k), len(names), self.infos[kind].get(int(k), ""))

    def refuse(self, message, kind, k, field=None, expected=None):
        found = self.where(kind, k)
        raise RobotFileError(found.path, message, field=field or f"<{kind}>", line=found.line,
                             expected=expected)

    def object_names(self, kind: str, count: int) -> list[str]:
        obj = getattr(self.mj.mjtObj, f"mjOBJ_{kind.upper()}")
        return [self.mj.mj_id2name(self.model, obj, k) or f"{kind}{k}" for k in range(count)]

    # -- the robot in the scene ----------------------------------------------------------------

    def free_joint(self, b: int) -> bool:
        """Whether body ``b`` has a free joint (its only one, or the file is refused later)."""
        model = self.model
        first, count = int(model.body_jntadr[b]), int(model.body_jntnum[b])
        return any(model.jnt_type[j] == self.mj.mjtJoint.mjJNT_FREE
                   for j in range(first, first + count))

    def robot_part(self, base: str | None, root: str | None) -> tuple[int | None, bool]:
        """Which of the world's bodies make the robot: (the floating base's body, or None
        for a fixed robot, which is the world's moving bodies; whether it floats). The others
        (free objects, mocap bodies, other robots ``base`` does not name) are noted as left
        out (SCENE), and ``left_out_body`` tells them."""
        model = self.model
        children = [b for b in range(1, model.nbody) if model.body_parentid[b] == 0]
        joints_below = {b: [] for b in children}      # by the world's body each hangs from
        for j in range(model.njnt):
            joints_below[int(model.body_rootid[model.jnt_bodyid[j]])].append(j)
        kinds = {}
        for b in children:
            joints = joints_below[b]
            free = self.free_joint(b)
            if model.body_mocapid[b] >= 0:
                kinds[b] = "mocap body"
            elif free and len(joints) == 1:
                kinds[b] = "free object"
            elif free:
                kinds[b] = "floating robot"
            elif joints:
                kinds[b] = "robot"
            else:
                kinds[b] = "static"
        self.left_out: set[int] = set()
        if self.free_bodies:        # the world fixed, and every body that moves freely
            chosen = [b for b in children if kinds[b] in ("free object", "floating robot")]
            chosen += ([int(model.body_rootid[self.names["body"].index(base)])]
                       if base is not None and base in self.names["body"][1:] else
                       [b for b in children if kinds[b] == "robot"])
        elif base is not None and base in self.names["body"][1:]:
            chosen = [int(model.body_rootid[self.names["body"].index(base)])]
        else:
            floating = [b for b in children if kinds[b] == "floating robot"]
            fixed = [b for b in children if kinds[b] == "robot"]
            free = [b for b in children if kinds[b] == "free object"]
            chosen = floating if floating else fixed if fixed else free
            if len(chosen) > 1 and (floating or not fixed):
                self.refuse(f"the model holds {len(chosen)} bodies that move freely: "
                            + ", ".join(repr(self.names["body"][b]) for b in chosen)
                            + "; symdyn imports one robot", "body", chosen[1],
                            expected="--base naming a body of the robot to import, or "
                                     "--free-bodies to keep them all")
            if floating and fixed:
                self.refuse(f"body {self.names['body'][floating[0]]!r} floats and "
                            f"{self.names['body'][fixed[0]]!r} is fixed to the world: the "
                            "model holds two robots", "body", fixed[0],
                            expected="--base naming a body of the robot to import, or "
                                     "--free-bodies to keep them all")
        floats = len(chosen) == 1 and kinds[chosen[0]] in ("floating robot", "free object")
        if root == "fixed" or self.free_bodies:
            floats = False
        for b in children:
            moving = kinds[b] in ("free object", "floating robot", "mocap body", "robot")
            if b not in chosen and (floats or moving):
                self.left_out.add(b)
                if moving:
                    self.note(SCENE, f"{kinds[b]} {self.names['body'][b]!r}")
        return (chosen[0] if floats else None), floats

    def root_pose(self, top: int) -> np.ndarray:
        """The floating base's pose at qpos0: its free joint's qpos0 (MuJoCo's body pos and
        quat, for a body of the world), or the body's own where --root free_flyer floats a
        body without a free joint."""
        model = self.model
        free = [j for j in range(model.body_jntadr[top],
                                 model.body_jntadr[top] + model.body_jntnum[top])
                if model.jnt_type[j] == self.mj.mjtJoint.mjJNT_FREE]
        if free:
            qpos = model.qpos0[model.jnt_qposadr[free[0]]:][:7]
        else:
            qpos = np.r_[model.body_pos[top], model.body_quat[top]]
        self.bounded("body", top, "pose at qpos0", qpos)
        return self.pose(qpos[:3], qpos[3:7])

    def keep(self, top: int | None):
        """The robot's bodies: those below the floating base's ``top``, or, fixed, those not
        left out."""
        bodies = range(1, self.model.nbody)
        self.kept = ({b for b in bodies if self.below_body(b, top)} if top is not None
                     else {b for b in bodies if not self.left_out_body(b)})

    def floated(self) -> int:
        """The body ``--root free_flyer`` floats in a model without a free joint: the world's
        only body, which has no joint."""
        model = self.model
        children = [b for b in range(1, model.nbody) if model.body_parentid[b] == 0]
        moving = [b for b in children if b not in self.left_out]
        if len(moving) != 1 or self.model.body_jntnum[moving[0]]:
            raise RobotFileError(self.path, "--root free_flyer floats the world's one body, but "
                                 f"the world holds {len(moving)} bodies or its body has a "
                                 "joint", expected="a model with a free joint, or one body "
                                 "of the world without joints")
        self.left_out.update(b for b in children if b != moving[0])
        return moving[0]

    def left_out_body(self, b: int) -> bool:
        return int(self.model.body_rootid[b]) in self.left_out

    def below_body(self, b: int, top: int) -> bool:
        while b > 0:
            if b == top:
                return True
            b = int(self.model.body_parentid[b])
        return False

    def check_size(self):
        """Refuse, before any work on it, a robot of more joints than a robot file holds."""
        model, mj = self.model, self.mj
        movable = {int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE),
                   int(mj.mjtJoint.mjJNT_BALL)}
        joints = [j for j in range(model.njnt) if int(model.jnt_bodyid[j]) in self.kept
                  and int(model.jnt_type[j]) in movable]
        if len(joints) > MAX_LINKS:
            self.refuse(f"the robot has {len(joints)} hinge, slide and ball joints, more than "
                        f"symdyn derives ({MAX_LINKS})", "joint", joints[MAX_LINKS],
                        expected=f"a robot of up to {MAX_LINKS} joints (--base and --tip cut "
                                 "a part of it)")

    # -- what symdyn does not take, and what it leaves out -------------------------------------
    def refuse_constraints(self):
        model, mj = self.model, self.mj
        kinds = {int(mj.mjtEq.mjEQ_CONNECT): "connect", int(mj.mjtEq.mjEQ_WELD): "weld",
                 int(mj.mjtEq.mjEQ_JOINT): "joint", int(mj.mjtEq.mjEQ_TENDON): "tendon"}
        for e in range(model.neq):
            kind = kinds.get(int(model.eq_type[e]), "flex")
            holds = self.equality_holds(e, kind)
            if holds == "scene":
                self.note(SCENE, f"{kind} equality {self.names['equality'][e]!r}")
            if holds != "robot":
                continue
            if kind in ("connect", "weld"):
                continue            # a constraint of the robot file (held)
            name = self.names["equality"][e]
            if kind not in ("joint", "tendon"):
                self.refuse(f"equality {name!r} ({kind}) constrains the motion", "equality", e,
                            field=f"<{kind}>", expected="connect, weld, and linear joint and "
                                                       "fixed tendon equalities")
            objects = [int(k) for k in (model.eq_obj1id[e], model.eq_obj2id[e]) if k >= 0]
            if kind == "tendon":
                for t in objects:
                    if not self.fixed_tendon(t):
                        self.refuse(f"equality {name!r} holds tendon "
                                    f"{self.names['tendon'][t]!r}, which wraps around sites "
                                    "or geometry", "equality", e, field="<tendon>",
                                    expected="equalities of fixed tendons (joint sums)")
            if np.any(model.eq_data[e, 2:5]):
                what = self.names[kind][objects[0]]
                self.refuse(f"equality {name!r} holds {kind} {what!r} to a polynomial",
                            "equality", e, field=f"<{kind}>",
                            expected=f"{kind}1 = a0 + a1 {kind}2 (polycoef with a2 = a3 = a4 = 0)")
            self.bounded("equality", e, "polycoef", model.eq_data[e, :2])

    def kept_joint(self, j: int) -> bool:
        return int(self.model.jnt_bodyid[j]) in self.kept

    def fixed_tendon(self, t: int) -> bool:
        """Whether tendon ``t`` is a fixed one: a sum of joints (MuJoCo's wraps of joints)."""
        model = self.model
        return all(model.wrap_type[w] == self.mj.mjtWrap.mjWRAP_JOINT for w in
                   range(model.tendon_adr[t], model.tendon_adr[t] + model.tendon_num[t]))

    def tendon_terms(self, t: int) -> list[tuple[str, float]]:
        """A fixed tendon's (joint name, coefficient) pairs."""
        model = self.model
        wraps = range(model.tendon_adr[t], model.tendon_adr[t] + model.tendon_num[t])
        coefficients = self.bounded("tendon", t, "coef", model.wrap_prm[list(wraps)])
        return [(self.names["joint"][int(model.wrap_objid[w])], float(c))
                for w, c in zip(wraps, coefficients)]

    def equality_holds(self, e: int, kind: str) -> str:
        """What equality ``e`` holds: "robot", "scene" (what the import leaves out: a mocap
        weld, a free object) or "nothing" (inactive in the file, or off by the options)."""
        model, mj = self.model, self.mj
        if not model.eq_active0[e] or model.opt.disableflags & (
                mj.mjtDisableBit.mjDSBL_EQUALITY | mj.mjtDisableBit.mjDSBL_CONSTRAINT):
            return "nothing"
        objects = [int(model.eq_obj1id[e]), int(model.eq_obj2id[e])]
        if kind == "joint":
            return "robot" if self.kept_joint(objects[0]) else "scene"
        if kind == "tendon":        # of the robot's joints, or through sites on its bodies
            wraps = [w for t in objects if t >= 0
                     for w in range(model.tendon_adr[t], model.tendon_adr[t] + model.tendon_num[t])]
            joints = [int(model.wrap_objid[w]) for w in wraps
                      if model.wrap_type[w] == mj.mjtWrap.mjWRAP_JOINT]
            bodies = {int(model.site_bodyid[model.wrap_objid[w]]) for w in wraps
                      if model.wrap_type[w] == mj.mjtWrap.mjWRAP_SITE}
            return "robot" if any(self.kept_joint(j) for j in joints) or (
                bodies & self.kept) else "scene"
        if kind in ("connect", "weld"):
            if model.eq_objtype[e] == mj.mjtObj.mjOBJ_SITE:
                objects = [int(model.site_bodyid[s]) if s >= 0 else 0 for s in objects]
            if any(b > 0 and self.left_out_body(b) for b in objects):
                return "scene"
        return "robot"

    def options(self):
        """Gravity as the model's options and its bodies' gravity compensation give it, and
        notes of the passive forces symdyn does not model."""
        model, mj = self.model, self.mj
        self.bounded("option", 0, "gravity", model.opt.gravity)
        disabled = model.opt.disableflags
        self.gravity = (0.0, 0.0, 0.0) if disabled & mj.mjtDisableBit.mjDSBL_GRAVITY else tuple(
            float(g) for g in model.opt.gravity)
        if model.opt.density or model.opt.viscosity:
            self.note(FLUID, f"density {model.opt.density:g}, viscosity "
                             f"{model.opt.viscosity:g}, wind "
                             f"[{' '.join(f'{w:g}' for w in model.opt.wind)}]")
        if model.nplugin:
            self.note(PLUGINS, f"{model.nplugin} plugin instance(s)")
        self.springs = not disabled & mj.mjtDisableBit.mjDSBL_SPRING
        self.damping = not disabled & mj.mjtDisableBit.mjDSBL_DAMPER
        self.friction = not disabled & (mj.mjtDisableBit.mjDSBL_FRICTIONLOSS
                                        | mj.mjtDisableBit.mjDSBL_CONSTRAINT)
        self.limited = not disabled & (mj.mjtDisableBit.mjDSBL_LIMIT
                                       | mj.mjtDisableBit.mjDSBL_CONSTRAINT)
        # MuJoCo's gravcomp: a force -gravcomp m g on each body (a passive force, or the
        # actuators' where the joints say actuatorgravcomp): with one value c for every body
        # with mass, gravity acts as (1 - c) g on all of them, which the robot file carries
        weighed = [b for b in self.kept if model.body_mass[b] > 0 and self.moves(b)]
        factors = {float(model.body_gravcomp[b]) for b in weighed}
        by_actuators = any(model.jnt_actgravcomp[j] for j in range(model.njnt)
                           if self.kept_joint(j))
        if not factors - {0.0} or by_actuators:
            return
        if len(factors) == 1:
            (c,) = factors
            self.gravity = tuple((1 - c) * g for g in self.gravity)
            return
        for b in weighed:
            if model.body_gravcomp[b]:
                self.note(GRAVCOMP, f"{self.names['body'][b]!r} "
                                    f"({float(model.body_gravcomp[b]):g})")

    def moves(self, b: int) -> bool:
        """Whether body ``b`` moves with the robot: a joint on it or a body it hangs from (a
        free joint: the floating base)."""
        while b > 0:
            if self.model.body_jntnum[b]:
                return True
            b = int(self.model.body_parentid[b])
        return False

    # -- the tree ----------------------------------------------------------------------------
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
        self.order[name] = b
        self.bounded("body", b, "pos", model.body_pos[b])
        self.bounded("body", b, "quat", model.body_quat[b])
        if b == top:        # the floating base: its frame is the body's
            self.add_link(name, self.inertia(b))
            return
        parent = self.link_of(int(model.body_parentid[b]))
        placement = self.offset(parent) @ self.pose(model.body_pos[b], model.body_quat[b])
        first, count = int(model.body_jntadr[b]), int(model.body_jntnum[b])
        joints = [j for j in range(first, first + count)
                  if model.jnt_type[j] != mj.mjtJoint.mjJNT_FREE]
        if self.free_bodies and len(joints) < count:    # a free joint (a body's only joint)
            self.add_link(name, self.inertia(b))
            self.joints[name] = self.free(first, parent, name)
            self.anchors[name] = np.zeros(3)
            return
        if not joints:      # welded to its parent (or a free joint on a fixed root)
            self.add_link(name, self.inertia(b))
            self.joints[name] = Joint(f"{name} (weld)", "fixed", parent, name, placement,
                                      np.array([1.0, 0.0, 0.0]), {}, 0.0, 0.0, None, None,
                                      self.where("body", b).line)
            return
        anchor = np.zeros(3)
        for k, j in enumerate(joints):
            child = name if k == len(joints) - 1 else f"{name} {self.names['joint'][j]}"
            hinge = model.jnt_type[j] == mj.mjtJoint.mjJNT_HINGE
            axis = self.bounded("joint", j, "axis", model.jnt_axis[j])
            position = self.bounded("joint", j, "pos", model.jnt_pos[j])
            ref = float(self.bounded("joint", j, "ref",
                                     model.qpos0[model.jnt_qposadr[j]:][:1])[0])
            if model.jnt_type[j] == mj.mjtJoint.mjJNT_BALL:
                # turned by its quaternion about its anchor, at qpos0's (1, 0, 0, 0)
                placement = placement @ _translation(position - anchor)
                anchor = np.array(position, dtype=float)
                self.joints[child] = self.ball(j, parent, child, placement)
            elif hinge:
                # turned by qpos - ref about the axis through the anchor
                placement = placement @ _translation(position - anchor) \
                    @ self.turn(axis, -ref)
                anchor = np.array(position, dtype=float)
            else:
                placement = placement @ _translation(-ref * axis)
            if model.jnt_type[j] != mj.mjtJoint.mjJNT_BALL:
                self.joints[child] = self.joint(j, parent, child, placement, axis, hinge)
            if child != name:
                self.made.add(child)
                self.order[child] = b
            self.add_link(child, no_body())
            parent, placement = child, np.eye(4)
        self.anchors[name] = anchor
        self.bodies[name] = seen_from(_translation(-anchor), self.inertia(b))

    def offset(self, link: str) -> np.ndarray:
        """MuJoCo's body frame in the frame of the link (its last hinge's anchor)."""
        return _translation(-self.anchors.get(link, np.zeros(3)))

    def link_frame(self, link: str) -> np.ndarray:
        return self.offset(link)

    def own(self, link: str) -> bool:
        return link not in self.made

    def joint(self, j: int, parent: str, child: str, placement, axis, hinge: bool) -> Joint:
        model = self.model
        dof = int(model.jnt_dofadr[j])
        limits = {}
        if model.jnt_limited[j] and self.limited:
            low, high = self.bounded("joint", j, "range", model.jnt_range[j])
            limits = {"lower": float(low), "upper": float(high)}
        effort = self.effort(j)
        if effort is not None:
            limits["effort"] = effort
        spring = None
        if model.jnt_stiffness[j] and self.springs:     # -K (qpos - qpos_spring), MuJoCo's
            stiffness, reference = (float(self.bounded("joint", j, key, [value])[0])
                                    for key, value in (("stiffness", model.jnt_stiffness[j]), (
                                        "springref",
                                        model.qpos_spring[model.jnt_qposadr[j]])))
            spring = (stiffness, reference)
        if np.any(model.dof_dampingpoly[dof]) and self.damping:
            self.note(DAMPING_POLYNOMIAL, repr(self.names["joint"][j]))
        armature, damping, friction = (float(self.bounded("joint", j, key, [value])[0]) for
                                       key, value in (("armature", model.dof_armature[dof]),
                                                      ("damping", model.dof_damping[dof]),
                                                      ("frictionloss",
                                                       model.dof_frictionloss[dof])))
        damping, friction = damping * self.damping, friction * self.friction
        actuator = None if not armature else {
            "motor_inertia": armature, "gear_ratio": 1.0, "viscous_friction": damping,
            "coulomb_friction": (friction, -friction)}
        return Joint(self.names["joint"][j], "revolute" if hinge else "prismatic", parent, child,
                     placement, axis / np.linalg.norm(axis), limits, damping, friction,
                     actuator, self.mimic(j), self.where("joint", j).line, spring)

    def left_out_of(self, j: int, count: int, note: str, more=()) -> None:
        """Note (``note``) what joint ``j`` of ``count`` velocities has that a robot file's
        joint of its kind does not: armature, damping and friction loss, and ``more`` (what,
        values, whether it acts)."""
        model, name = self.model, self.names["joint"][j]
        dofs = slice(int(model.jnt_dofadr[j]), int(model.jnt_dofadr[j]) + count)
        for what, values, on in (("armature", model.dof_armature[dofs], True),
                                 ("damping", model.dof_damping[dofs], self.damping),
                                 ("frictionloss", model.dof_frictionloss[dofs], self.friction),
                                 *more):
            if on and np.any(values):
                self.note(note, f"{name!r} {what}")

    def free(self, j: int, parent: str, child: str) -> Joint:
        """A free joint of a body of the world, with ``free_bodies``: a free_flyer joint at the
        world's origin, so that its q is MuJoCo's qpos (which places the body in the world);
        its armature and damping are left out and said, as a ball joint's."""
        name = self.names["joint"][j]
        self.left_out_of(j, 6, FREE_LEFT_OUT)
        return Joint(name, "free_flyer", parent, child, np.eye(4), np.array([0.0, 0.0, 1.0]),
                     {}, 0.0, 0.0, None, None, self.where("joint", j).line)

    def ball(self, j: int, parent: str, child: str, placement) -> Joint:
        """A ball joint: a spherical joint, which has no rotor, friction or limits in a robot
        file (its armature, damping, friction loss and cone range are left out and said)."""
        model, name = self.model, self.names["joint"][j]
        self.left_out_of(j, 3, BALL_LEFT_OUT, (
            ("range", model.jnt_range[j], model.jnt_limited[j] and self.limited),
            ("stiffness", [model.jnt_stiffness[j]], self.springs)))
        return Joint(name, "spherical", parent, child, placement, np.array([0.0, 0.0, 1.0]),
                     {}, 0.0, 0.0, None, None, self.where("joint", j).line)

    def effort(self, j: int) -> float | None:
        """The joint's actuator force range, else its force-limited actuators' gear times
        force range, summed; None where neither bounds it."""
        model, mj = self.model, self.mj
        if model.jnt_actfrclimited[j]:
            return float(np.abs(self.bounded("joint", j, "actuatorfrcrange",
                                             model.jnt_actfrcrange[j])).max())
        bounds = [abs(float(model.actuator_gear[a, 0])) * float(np.abs(
            model.actuator_forcerange[a]).max()) for a in range(model.nu)
            if model.actuator_trntype[a] == mj.mjtTrn.mjTRN_JOINT
            and model.actuator_trnid[a, 0] == j and model.actuator_forcelimited[a]]
        total = sum(bounds) if bounds else None
        if total is not None and not (math.isfinite(total) and total <= LARGEST):
            self.refuse(f"the actuators of joint {self.names['joint'][j]!r} have a force range "
                        f"times gear of {total:g}", "joint", j,
                        expected=f"finite numbers of at most {LARGEST:g}")
        return total

    def mimic(self, j: int) -> tuple | None:
        """(followed joint's name, multiplier, offset) of an active joint equality on ``j``:
        MuJoCo's q1 - q1_0 = a0 + a1 (q2 - q2_0) is q1 = a1 q2 + a0 + q1_0 - a1 q2_0."""
        model = self.model
        for e in range(model.neq):
            if (model.eq_type[e] == self.mj.mjtEq.mjEQ_JOINT and model.eq_obj1id[e] == j
                    and model.eq_obj2id[e] >= 0 and self.equality_holds(e, "joint") == "robot"):
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
        name = self.site_name(s)
        self.bounded("site", s, "pos", model.site_pos[s])
        self.bounded("site", s, "quat", model.site_quat[s])
        self.add_link(name, no_body())
        self.order[name] = model.nbody + s
        self.joints[name] = Joint(f"{name} (site)", "fixed", body, name,
                                  self.offset(body) @ self.pose(model.site_pos[s],
                                                                model.site_quat[s]),
                                  np.array([1.0, 0.0, 0.0]), {}, 0.0, 0.0, None, None,
                                  self.where("site", s).line)

    def add_held(self):
        """Each connect and weld equality that holds the robot, as a constraint of the robot
        file between two frames made for it, ``<name> (a)`` and ``<name> (b)``, which coincide
        at qpos0 (closed_at): a connect's anchor on body1 and the same point on body2
        (MuJoCo's eq_data), a weld's anchor on body2 and body2's pose relative to body1 placed
        on body1 (its relpose). A site-defined one holds the two sites; the world as body2
        (or site2) holds the frame to the world where it is at qpos0: a contact. A joint
        equality without joint2 and a fixed tendons' equality are couplings (coupling)."""
        model, mj = self.model, self.mj
        for e in range(model.neq):
            kind = {int(mj.mjtEq.mjEQ_CONNECT): "point", int(mj.mjtEq.mjEQ_WELD): "weld",
                    int(mj.mjtEq.mjEQ_TENDON): "tendon", int(mj.mjtEq.mjEQ_JOINT): "joint"}.get(
                int(model.eq_type[e]))
            if kind is None or self.equality_holds(e, kind) != "robot" or (
                    kind == "joint" and model.eq_obj2id[e] >= 0):     # a mimic joint's
                continue
            name = self.names["equality"][e]
            line = self.where("equality", e).line
            if kind in ("tendon", "joint"):
                self.held.append(self.coupling(e, kind, name, line))
                continue
            data = self.bounded("equality", e, "anchor and relpose", model.eq_data[e, :11])
            if kind == "weld" and data[10] == 0:
                kind = "point"      # torquescale 0: MuJoCo holds the anchors, not the turn
            at = None
            bodies = [int(model.site_bodyid[k]) if model.eq_objtype[e] == mj.mjtObj.mjOBJ_SITE
                      else k for k in (int(model.eq_obj1id[e]), int(model.eq_obj2id[e]))
                      if k >= 0]
            cut = [b for b in bodies if b > 0 and b not in self.kept]
            if cut:         # (--tip's cut is refused by LinkTree.constrained, in the same words)
                self.refuse(f"constraint {name!r} holds {self.names['body'][cut[0]]!r}, which "
                            "the imported chain leaves out", "equality", e,
                            expected="the whole tree (no --base) or a --base above the bodies "
                                     "it holds")
            if model.eq_objtype[e] == mj.mjtObj.mjOBJ_SITE:
                ends = [self.site_name(int(s)) if s >= 0 else None
                        for s in (model.eq_obj1id[e], model.eq_obj2id[e])]
                world = int(model.eq_obj2id[e])
                if self.floating and world >= 0 and model.site_bodyid[world] == 0:
                    # a site of the world, which a floating robot has no frame of: the
                    # frame is held where that site is (symdyn's export-mjcf writes these)
                    ends[1] = None
                    at = self.pose(model.site_pos[world], model.site_quat[world])
            else:
                bodies = [int(model.eq_obj1id[e]), int(model.eq_obj2id[e])]
                if model.eq_type[e] == mj.mjtEq.mjEQ_CONNECT:
                    placements = [_translation(data[0:3]), _translation(data[3:6])]
                else:
                    relative = self.pose(data[3:6], data[6:10])
                    placements = [relative @ _translation(data[0:3]), _translation(data[0:3])]
                ends = [self.add_frame(f"{name} ({side})", b, T, line) if b > 0 else None
                        for side, b, T in zip("ab", bodies, placements)]
            ends = [end for end in ends if end is not None]
            if not ends:
                continue
            self.held.append(Held(name, kind, tuple(ends), line, source_id=e, at=at))

    def coupling(self, e: int, kind: str, name: str, line) -> Held:
        """Equality ``e`` of a joint or of fixed tendons as a coupling of joints: MuJoCo's
        x1 - x1_0 = a0 + a1 (x2 - x2_0) (x a joint's qpos or a tendon's length, x_0 at qpos0),
        a joint without joint2 held at x1_0 + a0."""
        model = self.model
        a0, a1 = (float(c) for c in model.eq_data[e, :2])
        objects = [int(k) for k in (model.eq_obj1id[e], model.eq_obj2id[e]) if k >= 0]
        if kind == "joint":
            sums = [[(self.names["joint"][j], 1.0)] for j in objects]
            rest = [float(model.qpos0[model.jnt_qposadr[j]]) for j in objects]
        else:
            sums = [self.tendon_terms(t) for t in objects]
            rest = [float(model.tendon_length0[t]) for t in objects]
        terms, value = dict(sums[0]), rest[0] + a0
        if len(sums) == 2:
            for joint, c in sums[1]:
                terms[joint] = terms.get(joint, 0.0) - a1 * c
            value -= a1 * rest[1]
        return Held(name, "coupling", (), line, source_id=e,
                    terms=tuple((j, c) for j, c in terms.items() if c != 0), value=value)

    def add_tendons(self):
        """The fixed tendons of the robot's joints (Chain.tendons); spatial ones, and what the
        robot file does not carry of a tendon (its limits, springs, damping, friction and
        armature) left out, a warning line each."""
        model = self.model
        for t in range(model.ntendon):
            name = repr(self.names["tendon"][t])
            wraps = range(model.tendon_adr[t], model.tendon_adr[t] + model.tendon_num[t])
            joints = [int(model.wrap_objid[w]) for w in wraps
                      if model.wrap_type[w] == self.mj.mjtWrap.mjWRAP_JOINT]
            bodies = {int(model.site_bodyid[model.wrap_objid[w]]) for w in wraps
                      if model.wrap_type[w] == self.mj.mjtWrap.mjWRAP_SITE}
            if not (any(self.kept_joint(j) for j in joints) or bodies & self.kept):
                continue                                    # the scene's
            if any(np.any(getattr(model, f"tendon_{k}")[t]) for k in (
                    "stiffness", "damping", "frictionloss", "armature")):
                self.note(TENDON_PASSIVE, name)
            if not self.fixed_tendon(t):
                self.note(SPATIAL_TENDONS, name)
                continue
            if model.tendon_limited[t]:
                self.note(TENDON_LIMITS, name)
            self.tendons.append(Tendon(self.names["tendon"][t], tuple(self.tendon_terms(t)),
                                       self.where("tendon", t).line))

    def add_frame(self, name: str, b: int, placement, line) -> str:
        """A massless link fixed to body ``b`` at ``placement`` in MuJoCo's body frame (a
        frame a constraint holds), named ``name`` ("<equality> (a)"), or, where a body or
        site is named so, "<equality> (a 2)", ...: a name of the file's own stays its."""
        taken, k = name, 2
        while name in self.links:
            name, k = f"{taken[:-1]} {k})", k + 1
        body = self.link_of(b)
        self.add_link(name, no_body())
        self.order[name] = self.model.nbody + self.model.nsite + len(self.held)
        self.joints[name] = Joint(f"{name} (frame)", "fixed", body, name,
                                  self.offset(body) @ placement, np.array([1.0, 0.0, 0.0]),
                                  {}, 0.0, 0.0, None, None, line)
        return name

    def site_name(self, s: int) -> str:
        name = self.names["site"][s]
        return f"{name} (site)" if name in self.names["body"] else name

    # -- numbers -----------------------------------------------------------------------------
    def bounded(self, kind: str, k: int, attribute: str, values) -> np.ndarray:
        """``values``, read from the compiled model for ``attribute`` of ``kind`` object ``k``,
        as the robot file holds them (rigid.in_bounds); refused unless each is finite and at
        most LARGEST in size."""
        bounded = in_bounds(values)
        if bounded is not None:
            return bounded
        values = np.asarray(values, dtype=float)
        what = "the option" if kind == "option" else f"{kind} {self.names[kind][k]!r}"
        shown = " ".join(f"{v:g}" for v in np.ravel(values))
        message = f"{what}: {attribute} is {shown}"
        if kind == "option":
            raise RobotFileError(self.path, message, field="<option>",
                                 expected=f"finite numbers of at most {LARGEST:g}")
        self.refuse(message, kind, k, field=f"<{kind}> {attribute}",
                    expected=f"finite numbers of at most {LARGEST:g}")

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
        mass = float(self.bounded("body", b, "mass", [model.body_mass[b]])[0])
        moments = self.bounded("body", b, "inertia (given, or of its geoms)",
                               model.body_inertia[b])
        self.bounded("body", b, "inertial pos", model.body_ipos[b])
        problem = body_problem(mass, (0, 0, 0), [*moments, 0, 0, 0], about_origin=False)
        if problem:
            if self.strict or mass < 0:     # a negative mass is no published round-off
                self.refuse(f"body {self.names['body'][b]!r}: {problem}", "body", b,
                            expected="a rigid body's inertial data (without --strict-inertia, "
                                     "published data is taken as it is)")
            self.note(INCONSISTENT, f"{self.names['body'][b]!r} (line "
                                    f"{self.where('body', b).line})")
        principal = _translation(model.body_ipos[b])
        principal[:3, :3] = rotation_wxyz(model.body_iquat[b])
        return seen_from(principal, Inertia(mass, np.zeros(3), inertia_tensor(
            [*moments, 0, 0, 0])))

    def body(self, link: str) -> Inertia:
        return self.bodies[link]

    def sibling_key(self, joint: Joint):
        """MuJoCo's own order: its bodies' (qpos follows them), a body's sites after them."""
        return self.order.get(joint.child, len(self.order)), joint.child
