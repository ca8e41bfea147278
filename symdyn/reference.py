"""Independent references: Pinocchio models built from a robot file's numbers, Pinocchio's
and MuJoCo's own readings of the URDF or MJCF file a robot was imported from.

Nothing of symdyn's own kinematics is used: the model is assembled from the DH table with
Pinocchio's SE3 algebra, so that agreement with symdyn's derivation means something. Needs the
optional package ``pin`` (installed with symdyn's test extras), and ``mujoco`` for MJCF.
"""
from __future__ import annotations

import numpy as np
import sympy

from .robot import angles
from .robot.rigid import QUARTER_TOLERANCE, rotation_wxyz
from .robot.spec import RobotSpec


def pinocchio_model(spec: RobotSpec, values=None, mimic: bool = True):
    """A ``pinocchio.Model`` of the robot, its free symbols replaced by ``values`` ({symbol: x}).
    Its mimic joints are Pinocchio's mimic joints, or, with ``mimic`` false, joints of their
    own (for the algorithms Pinocchio 4.1 refuses mimic joints in: their derivatives, the
    regressor, the energies).

    Its root joint is placed at the file's ``base`` (so gravity, given in the world, acts on a
    tilted robot as it would), or is a JointModelFreeFlyer carrying the base's body for a
    floating base (joint i + 1 is then link i); its frames "link1".."linkn" are the file's link
    frames, the named frames are the file's ``frames``, and "tool" is the frame named tool or
    the file's ``tool`` in the last link's frame.
    """
    import pinocchio as pin

    values = values or {}

    def num(expr):
        return float(sympy.sympify(expr).subs(values))

    def rx(t):
        return pin.SE3(pin.utils.rotate("x", t), np.zeros(3))

    def rz(t):
        return pin.SE3(pin.utils.rotate("z", t), np.zeros(3))

    def tx(x):
        return pin.SE3(np.eye(3), np.array([x, 0.0, 0.0]))

    def tz(z):
        return pin.SE3(np.eye(3), np.array([0.0, 0.0, z]))

    def se3(placement):
        if placement is None:
            return pin.SE3.Identity()
        rotation = pin.rpy.rpyToMatrix(*(num(v) for v in placement.rpy))
        return pin.SE3(rotation, np.array([num(v) for v in placement.xyz]))

    model = pin.Model()
    model.gravity.linear = np.array([num(g) for g in spec.gravity])
    # after[i]: where link i's children are placed from, in its joint's frame; after[0]: the
    # base. The joints are added depth first (pinocchio_order), each named joint<i> after its
    # link i, and jid[i] is link i's joint (jid[0] the root: the universe or the free-flyer).
    after = [se3(spec.base)] + [None] * len(spec.links)
    shift = int(spec.floating)
    jid = [shift] + [None] * len(spec.links)
    if spec.floating:
        root = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "root_joint")
        if spec.base_body is not None:
            body = spec.base_body
            model.appendBodyToJoint(root, pin.Inertia(
                num(body.mass), np.array([num(c) for c in body.com]),
                _matrix([num(v) for v in body.inertia])), pin.SE3.Identity())
    for i in pinocchio_order(spec):
        link = spec.links[i - 1]
        a, alpha, d, theta = (num(getattr(link, k)) for k in ("a", "alpha", "d", "theta"))
        joint = pin.JointModelRZ() if link.joint == "revolute" else pin.JointModelPZ()
        placement = after[link.parent]
        if spec.convention == "urdf":               # as Pinocchio reads a URDF
            joint_placement = placement * se3(link.origin)
            body = pin.SE3.Identity()
            axis, second = (None if v is None else np.array([num(x) for x in v])
                            for v in (link.axis, link.axis2))
            if link.joint in UNALIGNED:
                joint = UNALIGNED[link.joint](pin, axis, second, num(link.pitch))
            else:
                joint = getattr(pin, JOINT_MODELS[link.joint])()
            if link.joint == "planar":          # in the plane whose normal is the axis
                turn = pin.SE3(pin.Quaternion.FromTwoVectors(np.array([0.0, 0.0, 1.0]),
                                                             axis).matrix(), np.zeros(3))
                joint_placement, body = joint_placement * turn, turn.inverse()
        elif spec.convention == "modified":
            joint_placement = (placement * rz(num(link.gamma)) * tz(num(link.b)) * rx(alpha)
                               * tx(a) * rz(theta) * tz(d))
            body = pin.SE3.Identity()                 # the link frame is the joint frame
        else:
            joint_placement = placement               # joint i moves about z_{i-1}
            body = rz(theta) * tz(d) * tx(a) * rx(alpha)
        after[i] = body
        jid[i] = model.addJoint(jid[link.parent], joint, joint_placement, f"joint{i}")
        model.addFrame(pin.Frame(f"link{i}", jid[i], body, pin.FrameType.OP_FRAME))
        model.appendBodyToJoint(jid[i], body.act(_inertia(pin, link, num)), pin.SE3.Identity())
    parent = len(spec.links)
    # The named frames, each in its link's frame as the file places it (the base's: {0}).
    bodies = [after[0]] + [model.frames[model.getFrameId(f"link{i}")].placement
                           for i in range(1, parent + 1)]
    for frame in spec.frames:
        model.addFrame(pin.Frame(frame.name, jid[frame.parent],
                                 bodies[frame.parent] * se3(frame.placement),
                                 pin.FrameType.OP_FRAME))
    # The tool, where a tool wrench is given: the file's tool in the last body's frame (unless
    # a frame is named tool).
    if not any(frame.name == "tool" for frame in spec.frames):
        model.addFrame(pin.Frame("tool", jid[parent], after[parent] * se3(spec.tool),
                                 pin.FrameType.OP_FRAME))
    # an elastic joint's rotor is its motor's, beyond the spring: the link side has none
    armature = [0.0 if link.elastic else num(link.gear_ratio) ** 2 * num(link.motor_inertia)
                for link in spec.links]
    if spec.payload is not None:                      # in the last link's frame
        load = spec.payload
        inertia = pin.Inertia(num(load.mass), np.array([num(c) for c in load.com]),
                              _matrix([num(v) for v in load.inertia]))
        model.appendBodyToJoint(jid[parent], after[parent].act(inertia), pin.SE3.Identity())
    # Mimic joints as Pinocchio makes them of a URDF's (buildModelFromUrdf(..., mimic=True)).
    # Pinocchio's armature is the coordinates' alone: a mimic joint's rotor, which turns
    # m times as fast as the followed joint's, adds m^2 times its inertia to that one's.
    for i, link in enumerate(spec.links, start=1):
        if link.mimic is not None and mimic:
            m = num(link.multiplier)
            armature[link.mimic - 1] += m * m * armature[i - 1]
            model = pin.transformJointIntoMimic(model, jid[link.mimic], jid[i], m,
                                                num(link.offset))
    model.armature = np.array([0.0] * 6 * shift + [
        armature[i - 1] for i in pinocchio_order(spec) if spec.links[i - 1].mimic is None
        or not mimic for _ in range(JOINT_SIZES[spec.links[i - 1].joint][1])])
    return model


# Pinocchio's joint models of the kinds (JointModel<name>), and their sizes (nq, nv): written
# here apart from symdyn's joints.py, the reference it checks.
JOINT_MODELS = {"spherical": "JointModelSpherical", "translation": "JointModelTranslation",
                "planar": "JointModelPlanar", "free_flyer": "JointModelFreeFlyer"}
UNALIGNED = {       # of (pin, axis, second axis, pitch)
    "revolute": lambda pin, axis, second, pitch: pin.JointModelRevoluteUnaligned(axis),
    "prismatic": lambda pin, axis, second, pitch: pin.JointModelPrismaticUnaligned(axis),
    "helical": lambda pin, axis, second, pitch: pin.JointModelHelicalUnaligned(axis, pitch),
    "universal": lambda pin, axis, second, pitch: pin.JointModelUniversal(axis, second)}
JOINT_SIZES = {"revolute": (1, 1), "prismatic": (1, 1), "helical": (1, 1), "universal": (2, 2),
               "spherical": (4, 3), "translation": (3, 3), "planar": (4, 3),
               "free_flyer": (7, 6)}


def pinocchio_order(spec: RobotSpec) -> list[int]:
    """The file's links (1-based) in the order pinocchio_model adds their joints: depth first,
    children in the file's order, as Pinocchio's algorithms need (a joint's subtree is a run
    of joints after it). The file's own order where it is depth first already."""
    children = [[] for _ in range(len(spec.links) + 1)]
    for i, link in enumerate(spec.links, start=1):
        children[link.parent].append(i)
    order, stack = [], list(reversed(children[0]))
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(children[i]))
    return order


def pinocchio_permutation(spec: RobotSpec, coordinates: bool = False,
                          entries: str = "link") -> np.ndarray:
    """P with P x = the file's per-link values x (or, with ``coordinates``, per coordinate: the
    links that are no mimic joints) in pinocchio_order; with ``entries`` "q" or "v", each
    spherical joint's four or three entries of q or v kept together."""
    kept = [i for i in range(1, len(spec.links) + 1)
            if not coordinates or spec.links[i - 1].mimic is None]
    sizes = {i: 1 if entries == "link" else
             JOINT_SIZES[spec.links[i - 1].joint][entries == "v"] for i in kept}
    start = dict(zip(kept, np.cumsum([0] + [sizes[i] for i in kept])))
    order = [i for i in pinocchio_order(spec) if i in kept]
    n = sum(sizes.values())
    P = np.zeros((n, n))
    row = 0
    for i in order:
        for k in range(sizes[i]):
            P[row, start[i] + k] = 1.0
            row += 1
    return P


def urdf_model(path, base=None, tip=None, snap_angles=0.0, root="fixed"):
    """Pinocchio's own model of a URDF (``buildModelFromUrdf``), cut to the chain that symdyn's
    importer takes from ``base`` to ``tip`` (its defaults alike): every joint off the chain
    locked at zero, as the importer holds them, and a frame "tool" at the tip link. Angles
    within ``snap_angles`` of a multiple of pi/12 are first made that multiple in the URDF's
    text, as ``symdyn import --snap-angles`` takes them. Returns the model and a function from
    symdyn's joint angles (N, n) to Pinocchio's configurations (a continuous joint's is its
    cosine and sine). ``root`` "free_flyer": the model on Pinocchio's JointModelFreeFlyer, whose
    configuration leads symdyn's q too."""
    import pinocchio as pin

    from .robot.urdf import read_chain

    chain = read_chain(path, base, tip, snap_angles=0.0,
                       root=root)
    full = _urdf(path, snap_angles, root)
    keep = ["root_joint"] * (root == "free_flyer") + [j.name for j in chain.joints]
    locked = [full.getJointId(name) for name in full.names[1:] if name not in keep]
    model = pin.buildReducedModel(full, locked, pin.neutral(full)) if locked else full
    frame = model.frames[model.getFrameId(chain.tip_link)]
    model.addFrame(pin.Frame("tool", frame.parentJoint, frame.placement, pin.FrameType.OP_FRAME))
    joints = [model.joints[model.getJointId(name)] for name in keep]
    configuration = _configuration(joints, model.nq)
    if [j.idx_v for j in joints] != [sum(j.nv for j in joints[:k]) for k in range(len(joints))]:
        raise ValueError(f"{path}: Pinocchio orders the chain's joints otherwise")
    return model, configuration


def urdf_mimic_model(path, snap_angles=0.0, root="fixed"):
    """Pinocchio's own model of a whole URDF with its mimic joints
    (``buildModelFromUrdf(path, mimic=True)``), the angles snapped as urdf_model snaps them,
    with a frame "tool" at symdyn's tool (the last joint's child link). Returns the model and a
    function from symdyn's coordinates (N, n) to its configurations, as urdf_model's."""
    import pinocchio as pin

    from .robot.urdf import read_chain

    chain = read_chain(path, snap_angles=0.0, root=root)
    model = _urdf(path, snap_angles, root, mimic=True)
    frame = model.frames[model.getFrameId(chain.tip_link)]
    model.addFrame(pin.Frame("tool", frame.parentJoint, frame.placement, pin.FrameType.OP_FRAME))
    return model, _configuration([model.joints[i] for i in range(1, model.njoints)
                                  if model.joints[i].nv], model.nq)


def _urdf(path, snap_angles, root, mimic=False):
    """buildModelFromUrdf of the URDF, its angles snapped (snapped_urdf), on a free-flyer for
    ``root`` "free_flyer"."""
    import pinocchio as pin

    floating = [pin.JointModelFreeFlyer()] if root == "free_flyer" else []
    if snap_angles:
        return pin.buildModelFromXML(snapped_urdf(path, snap_angles), *floating, mimic=mimic)
    return pin.buildModelFromUrdf(str(path), *floating, mimic=mimic)


def _configuration(joints, nq):
    """The function from symdyn's q (N, nq'), the coordinates of ``joints`` in order, to
    Pinocchio's configurations: a continuous joint's is its cosine and sine, a free-flyer's its
    seven numbers as they are."""
    def configuration(q):
        q = np.atleast_2d(q)
        out = np.zeros((len(q), nq))
        k = 0
        for joint in joints:
            if joint.nq == 2:
                out[:, joint.idx_q], out[:, joint.idx_q + 1] = np.cos(q[:, k]), np.sin(q[:, k])
            else:
                out[:, joint.idx_q:joint.idx_q + joint.nq] = q[:, k:k + joint.nq]
            k += 1 if joint.nq == 2 else joint.nq
        return out
    return configuration


def snapped_urdf(path, tolerance: float) -> str:
    """The URDF's text with every origin's rpy angle within ``tolerance`` of a multiple of
    pi/12 replaced by the double nearest to that multiple."""
    from xml.etree.ElementTree import tostring

    from defusedxml.ElementTree import parse

    root = parse(str(path)).getroot()
    for origin in root.iter("origin"):
        if "rpy" in origin.attrib:
            values = [float(v) for v in origin.attrib["rpy"].split()]
            origin.attrib["rpy"] = " ".join(
                repr(float(exact)) if means else repr(v)
                for v, (exact, _, means) in ((v, angles.nearest(v, angles.ANGLE, tolerance))
                                             for v in values))
    return tostring(root, encoding="unicode")


def spring_torques(spec: RobotSpec, q, values=None) -> np.ndarray:
    """The joint springs' torques K (q - q_ref) (MuJoCo's joint stiffness) for states q (the
    links' joint variables in the file's order, a spherical joint's four), one entry per
    velocity (a spherical joint's three, zero)."""
    values = values or {}
    q = np.asarray(q, dtype=float)
    out, i = [], 0
    for link in spec.links:
        nq, nv = JOINT_SIZES[link.joint]
        if nq != 1:
            out += [np.zeros(q.shape[:-1])] * nv
            i += nq
            continue
        stiffness, reference = ((float(sympy.sympify(x).subs(values)) for x in link.spring)
                                if link.spring else (0.0, 0.0))
        out.append(stiffness * (q[..., i] - reference))
        i += 1
    return np.stack(out, axis=-1) if out else np.zeros(q.shape[:-1] + (0,))


def friction_torques(spec: RobotSpec, qd, values=None) -> np.ndarray:
    """Joint friction of Robotics Toolbox's model, G^2 B qd + |G| Tc(sign qd), for states qd
    (the links' velocities in the file's order; none at a spherical joint's three, nor at an
    elastic joint, whose friction acts on its motor)."""
    values = values or {}
    qd = np.asarray(qd, dtype=float)
    out = np.zeros_like(qd)
    i = 0
    for link in spec.links:
        if JOINT_SIZES[link.joint][0] != 1:
            i += JOINT_SIZES[link.joint][1]
            continue
        if link.elastic:            # its friction is its motor's
            i += 1
            continue
        G, B = (float(sympy.sympify(x).subs(values)) for x in (link.gear_ratio,
                                                               link.viscous_friction))
        plus, minus = (float(sympy.sympify(x).subs(values)) for x in link.coulomb_friction)
        out[..., i] = joint_friction(G**2 * B, abs(G) * plus, abs(G) * minus, qd[..., i])
        i += 1
    return out


def joint_friction(viscous, plus, minus, v) -> np.ndarray:
    """Viscous friction and Coulomb's, plus where v > 0 and minus where v < 0, none at rest,
    at the velocities ``v`` (a joint's, or an elastic joint's motor's), numbers reflected to
    the joint already."""
    return viscous * v + np.where(v > 0, plus, np.where(v < 0, minus, 0.0))


def _inertia(pin, link, num):
    mass = num(link.mass)
    if link.com is not None:
        com = np.array([num(c) for c in link.com])
        return pin.Inertia(mass, com, _matrix([num(v) for v in link.inertia]))
    com = np.array([num(c) for c in link.first_moment]) / mass
    J = _matrix([num(v) for v in link.inertia_origin])
    return pin.Inertia(mass, com, J - mass * (com @ com * np.eye(3) - np.outer(com, com)))


def _matrix(six):
    ixx, iyy, izz, ixy, iyz, ixz = six
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


class MujocoReference:
    """MuJoCo's own model of an MJCF file (its compiler's reading, not symdyn's), computing in
    the coordinates of symdyn's import of it (mjcf.read_chain with the same options).

    The coordinates are mapped as the import maps them: a joint's q is its qpos (a ball's
    quaternion (x, y, z, w) its qpos (w, x, y, z), its velocity its qvel); a mimic joint's
    qpos is multiplier q + offset of the joint it follows, so that the robot file's quantities
    are MuJoCo's seen through qvel = G v (M_symdyn = G^T M G, tau = G^T tau_MuJoCo); joints the
    import leaves out are held at qpos 0, and a free joint on a fixed root at its qpos0.

    A floating base's q = [p, (x, y, z, w)] is MuJoCo's free joint's [p, (w, x, y, z)]; its
    velocity [v, omega] in the base's axes is MuJoCo's [R v, omega] (the free joint's linear
    velocity is in the world's axes, its angular one in the body's), and its acceleration's
    linear part R (dv/dt + omega x v); so is a free_flyer joint's of a free body kept with
    ``free_bodies`` (mjcf.read_chain).

    MuJoCo computes the rigid-body dynamics alone here, with the joints' armature (the robot
    file's rotor inertias) and gravity as the import takes it (a gravity compensation all
    bodies share): contacts and every constraint disabled, joint springs, damping and dry
    friction off (the robot file's friction_torques are compared apart), and what the import
    leaves out taken out (mjcf.as_imported; ``taken_out`` says what that was), and its bodies'
    and sites' angles within ``snap_angles`` of multiples of pi/12 made those multiples, as the
    import (with that --snap-angles) takes them.
    """

    def __init__(self, path, base=None, tip=None, root=None, snap_angles=QUARTER_TOLERANCE,
                 free_bodies=False):
        from .robot import mjcf
        from .robot.reading import read_bounded, xml_root

        self.mj = mujoco = mjcf.mujoco_package()
        if xml_root(read_bounded(path, mjcf.MAX_MJCF_BYTES, "an MJCF file")) == "robot":
            snap_angles = 0.0       # MuJoCo's reading of a URDF: the URDF's own angles
        chain, model, self.taken_out = mjcf.read_model(path, base, tip,
                                                       snap_angles=snap_angles, root=root,
                                                       free_bodies=free_bodies)
        model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
        model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
        self.stiffness = model.jnt_stiffness.copy()       # the springs, compared apart
        model.jnt_stiffness[:] = 0
        model.dof_damping[:] = 0
        model.dof_frictionloss[:] = 0
        self.model, self.data = model, mujoco.MjData(model)
        self.floating = chain.root_body is not None
        self.free = next((j for j in range(model.njnt)
                          if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE), None)
        names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint{j}"
                 for j in range(model.njnt)]
        joints = [names.index(joint.name) for joint in chain.joints]
        # each coordinate's first place in symdyn's q and v: a spherical joint's 4 and 3
        places, at_q, at_v = {}, 7 if self.floating else 0, 6 if self.floating else 0
        for k, joint in enumerate(chain.joints):
            if joint.mimic is None:
                places[k + 1] = at_q, at_v
                nq, nv = JOINT_SIZES[joint.kind]
                at_q, at_v = at_q + nq, at_v + nv
        shift = 6 if self.floating else 0
        # qvel = G v + (base rotation, set per state); qpos = the joints' values
        self.G = np.zeros((model.nv, at_v))
        self.G[:shift, :shift] = np.eye(shift)
        # (qpos address, place in q, multiplier, offset) of each one-axis joint; (qpos
        # address, place in q) of each ball, whose qpos (w, x, y, z) is q's (x, y, z, w); (qpos
        # address, qvel address, place in q, place in v) of each free joint: a floating base's,
        # then the tree's
        self.coordinates, self.balls = [], []
        self.frees = [(int(model.jnt_qposadr[self.free]), int(model.jnt_dofadr[self.free]), 0,
                       0)] if self.floating else []
        for k, (joint, j) in enumerate(zip(chain.joints, joints)):
            followed, multiplier, offset = joint.mimic or (k + 1, 1.0, 0.0)
            at_q, column = places[followed]
            if joint.kind in ("spherical", "free_flyer"):
                nv = JOINT_SIZES[joint.kind][1]
                self.G[model.jnt_dofadr[j]:][:nv, column:column + nv] = np.eye(nv)
                if joint.kind == "spherical":
                    self.balls.append((int(model.jnt_qposadr[j]), at_q))
                else:
                    self.frees.append((int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j]), at_q,
                                       column))
                continue
            self.G[model.jnt_dofadr[j], column] = multiplier
            self.coordinates.append((int(model.jnt_qposadr[j]), at_q, multiplier, offset))
        self.sites = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_SITE, s) or f"site{s}": s
                      for s in range(model.nsite)}
        self.bodies = {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or f"body{b}": b
                       for b in range(model.nbody)}
        # the site the chain ends at, the robot file's tool (None where the tip is a body)
        # where no --tip is given, a frame named tool is the robot file's tool (write.py)
        self.tool = ("tool" if tip is None and self.frame("tool") else chain.tip_link
                     if self.frame(chain.tip_link) and not chain.whole else None)
        # the equalities the import takes as constraints: {name: MuJoCo's equality id}
        self.equalities = {held.name: held.source_id for held in chain.constraints}
        names = [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_TENDON, t) or f"tendon{t}"
                 for t in range(model.ntendon)]
        self.tendons = [names.index(tendon.name) for tendon in chain.tendons]

    def _set(self, q, v=None):
        """MuJoCo's qpos (and qvel) for symdyn's q (and v); the map G of velocities."""
        model, data = self.model, self.data
        q = np.asarray(q, dtype=float)
        data.qpos[:] = 0
        G = self.G.copy()
        for qpos, dof, at, column in self.frees:
            data.qpos[qpos:qpos + 3] = q[at:at + 3]
            data.qpos[qpos + 3:qpos + 7] = q[[at + 6, at + 3, at + 4, at + 5]] / np.linalg.norm(
                q[at + 3:at + 7])
            G[dof:dof + 3, column:column + 3] = rotation_wxyz(data.qpos[qpos + 3:qpos + 7])
        if not self.frees and self.free is not None:  # held where the file puts it (fixed root)
            qpos = model.jnt_qposadr[self.free]
            data.qpos[qpos:qpos + 7] = model.qpos0[qpos:qpos + 7]
        for address, at, multiplier, offset in self.coordinates:
            data.qpos[address] = multiplier * q[at] + offset
        for address, at in self.balls:
            data.qpos[address:address + 4] = q[[at + 3, at, at + 1, at + 2]]
        data.qvel[:] = 0 if v is None else G @ v
        return G

    def mass_matrix(self, q) -> np.ndarray:
        G = self._set(q)
        self.mj.mj_forward(self.model, self.data)
        # column by column with mj_mulM, whose signature MuJoCo 3 and 4 share (mj_fullM's
        # changed)
        MG = np.zeros_like(G)
        for k in range(G.shape[1]):
            column = np.zeros(self.model.nv)
            self.mj.mj_mulM(self.model, self.data, column, np.ascontiguousarray(G[:, k]))
            MG[:, k] = column
        return G.T @ MG

    def inverse_dynamics(self, q, v, a) -> np.ndarray:
        """tau for q, v and dv/dt without friction (mj_inverse's qfrc_inverse)."""
        G = self._set(q, v)
        qacc = G @ a
        for _, dof, _, at in self.frees:      # d/dt (R v) = R (dv/dt + omega x v)
            qacc[dof:dof + 3] += G[dof:dof + 3, at:at + 3] @ np.cross(v[at + 3:at + 6],
                                                                    v[at:at + 3])
        self.data.qacc[:] = qacc
        self.mj.mj_inverse(self.model, self.data)
        return G.T @ self.data.qfrc_inverse

    def frame(self, name: str) -> tuple[str, int] | None:
        """What the import's frame ``name`` is in MuJoCo's model: ("site", id), ("body", id)
        (a site named as a body is the import's "<name> (site)"), or None."""
        if name.endswith(" (site)") and name[:-7] in self.sites:
            return "site", self.sites[name[:-7]]
        if name in self.bodies:
            return "body", self.bodies[name]
        if name in self.sites:
            return "site", self.sites[name]
        return None

    def site_pose(self, q, site: str) -> np.ndarray:
        """The site's pose in the world (4 x 4)."""
        return self.pose(q, "site", self.sites[site])

    def frame_pose(self, q, name: str) -> np.ndarray:
        """The pose in the world (4 x 4) of the import's frame ``name`` (see frame)."""
        return self.pose(q, *self.frame(name))

    def pose(self, q, kind: str, k: int) -> np.ndarray:
        self._set(q)
        self.mj.mj_kinematics(self.model, self.data)
        prefix = "site_" if kind == "site" else ""
        T = np.eye(4)
        T[:3, :3] = getattr(self.data, f"{prefix}xmat")[k].reshape(3, 3)
        T[:3, 3] = getattr(self.data, f"{prefix}xpos")[k]
        return T

    def site_jacobian(self, q, site: str) -> np.ndarray:
        """The site's Jacobian, rows [linear; angular] in the world's axes, of symdyn's v."""
        return self.jacobian(q, "site", self.sites[site])

    def frame_jacobian(self, q, name: str) -> np.ndarray:
        """The Jacobian of the import's frame ``name`` (see frame), as site_jacobian's."""
        return self.jacobian(q, *self.frame(name))

    def jacobian(self, q, kind: str, k: int) -> np.ndarray:
        G = self._set(q)
        self.mj.mj_kinematics(self.model, self.data)
        self.mj.mj_comPos(self.model, self.data)
        linear, angular = np.zeros((3, self.model.nv)), np.zeros((3, self.model.nv))
        (self.mj.mj_jacSite if kind == "site" else self.mj.mj_jacBody)(
            self.model, self.data, linear, angular, k)
        return np.vstack([linear, angular]) @ G


    def tendon_lengths(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(ten_length, ten_J of symdyn's v) of the tendons the import takes, in its order."""
        G = self._set(q)
        self.mj.mj_kinematics(self.model, self.data)
        self.mj.mj_comPos(self.model, self.data)
        self.mj.mj_tendon(self.model, self.data)
        model, data = self.model, self.data
        J = np.zeros((model.ntendon, model.nv))
        if hasattr(model, "ten_J_rownnz"):      # MuJoCo 4: sparse, its pattern in the model
            for t in range(model.ntendon):
                start, count = model.ten_J_rowadr[t], model.ten_J_rownnz[t]
                J[t, model.ten_J_colind[start:start + count]] = data.ten_J[start:start + count]
        else:
            J[:] = np.reshape(data.ten_J, (model.ntendon, model.nv))
        return data.ten_length[self.tendons].copy(), J[self.tendons] @ G

    def spring_torques(self, q) -> np.ndarray:
        """What the actuators add against MuJoCo's joint springs at q, in symdyn's forces:
        -G^T qfrc_spring (its passive forces' stiffness part)."""
        model, data = self.model, self.data
        model.jnt_stiffness[:] = self.stiffness
        try:
            G = self._set(q)
            self.mj.mj_forward(model, data)
            return -G.T @ data.qfrc_spring
        finally:
            model.jnt_stiffness[:] = 0

    def _second_axes(self, e: int) -> np.ndarray:
        """The world's rotation of equality ``e``'s second body (or site: the world's axes for
        none), whose axes MuJoCo's weld rotation rows are in, at the state set."""
        model, data, mj = self.model, self.data, self.mj
        second = int(model.eq_obj2id[e])
        if int(model.eq_objtype[e]) == int(mj.mjtObj.mjOBJ_SITE):
            return data.site_xmat[second].reshape(3, 3) if second >= 0 else np.eye(3)
        return data.xmat[second].reshape(3, 3)

    def equality_jacobians(self, q) -> dict[str, np.ndarray]:
        """The rows of MuJoCo's constraint Jacobian (efc_J, dense) of each equality the import
        takes (by its name: connect's 3, weld's 6), of symdyn's v, in the world's axes:
        MuJoCo's own, the other constraints and contacts off. A weld's rotation rows are
        MuJoCo's turned from its second body's axes, times 2 / torquescale (its error is the
        quaternion's vector part, half the angle, scaled), and equal the robot file's where
        the weld holds (their derivatives differ elsewhere). The robot file's rows are a loop's
        root's (robot.constraints.Loops.axes turns these into them)."""
        return {name: jacobian for name, (_, jacobian) in self.equality_rows(q).items()}

    def equality_rows(self, q) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """(MuJoCo's residual (efc_pos), its Jacobian rows) of each equality the import takes,
        as equality_jacobians; the residual's rotation rows (a weld's) as MuJoCo's, scaled,
        which are the robot file's to first order only."""
        mj, model, data = self.mj, self.model, self.data
        flags, jacobian, active = (model.opt.disableflags, model.opt.jacobian,
                                   model.eq_active0.copy())
        model.opt.disableflags = flags & ~int(mj.mjtDisableBit.mjDSBL_CONSTRAINT) | int(
            mj.mjtDisableBit.mjDSBL_CONTACT) | int(mj.mjtDisableBit.mjDSBL_LIMIT) | int(
            mj.mjtDisableBit.mjDSBL_FRICTIONLOSS)
        model.opt.jacobian = int(mj.mjtJacobian.mjJAC_DENSE)
        model.eq_active0[:] = 0
        model.eq_active0[list(self.equalities.values())] = 1
        try:
            G = self._set(q)
            mj.mj_resetData(model, data)
            self._set(q)
            mj.mj_forward(model, data)
            J = data.efc_J[:data.nefc * model.nv].reshape(data.nefc, model.nv)
            equality = data.efc_type[:data.nefc] == mj.mjtConstraint.mjCNSTR_EQUALITY
            out = {}
            for name, e in self.equalities.items():
                mine = equality & (data.efc_id[:data.nefc] == e)
                rows = np.column_stack([data.efc_pos[:data.nefc][mine], J[mine] @ G])
                if int(model.eq_type[e]) == int(mj.mjtEq.mjEQ_WELD):
                    # MuJoCo's rotation error is its quaternion's vector part (half the
                    # angle) times torquescale, in the second body's axes; the robot file's
                    # the angle
                    rows[3:] = self._second_axes(e) @ rows[3:] * (2 / model.eq_data[e, 10])
                out[name] = rows[:, 0], rows[:, 1:]
            return out
        finally:
            model.opt.disableflags, model.opt.jacobian = flags, jacobian
            model.eq_active0[:] = active


def _in_root_frame(A, B, velocities, accelerations, root, residual, jacobian):
    """A loop's (phi, G, gamma) in its root's axes (Robot.constraint_root), from the frames'
    poses A and B, their velocities and classical accelerations at qdd = 0 (each [linear;
    angular], world-aligned), the root's (R, omega, alpha, J_omega: its angular velocity's
    Jacobian) and the world-aligned residual and G (J_a - J_b at the frames' own origins).
    With d = p_a - p_b, u = [v_a - v_b - omega_r x d; omega_a - omega_b] = G v (the joints
    that carry the root carry the loop whole: in G their columns cancel), and gamma =
    -R_r^T (du/dt - omega_r x u), R_r^T's time derivative included."""
    (va, vb), (aa, ab) = velocities, accelerations
    R, omega, alpha, J_omega = root
    d = A[:3, 3] - B[:3, 3]
    shifted = jacobian.copy()
    shifted[:3] += np.cross(d, J_omega.T).T            # - omega_r x d = d x omega_r
    u = np.r_[va[:3] - vb[:3] - np.cross(omega, d), va[3:] - vb[3:]]
    rate = np.r_[aa[:3] - ab[:3] - np.cross(alpha, d) - np.cross(omega, va[:3] - vb[:3]),
                 aa[3:] - ab[3:]]
    local = np.kron(np.eye(2), R.T)
    return (local @ residual, local @ shifted,
            -local @ (rate - np.r_[np.cross(omega, u[:3]), np.cross(omega, u[3:])]))


class ConstraintReference:
    """A robot file's constraints computed from Pinocchio's model of it (pinocchio_model, its
    joints all independent), nothing of symdyn's derivation used: each end a frame of that
    model (a named frame by its name, a link by link<i>, the tool by tool), the rows as
    symdyn keeps them (a loop's in its root's axes, a contact's in the world's), the
    constrained dynamics from the KKT matrix of Pinocchio's crba, nonLinearEffects and frame
    Jacobians, solved densely, or by its constraintDynamics (constraint_models); and
    consistent random states, positions closed by Newton on this residual, velocities in G's
    null space.

    Everything is in symdyn's coordinates: Pinocchio's velocities are T v (T: a floating
    base's six, then the links' in Pinocchio's order, each a coordinate's or a mimic joint's
    multiplier times the one it follows), so that M = T^T M_pin T, h = T^T h_pin, G = G_pin T
    (T is constant: no drift of its own), whatever the order of mimic joints Pinocchio's own
    mimic model would refuse."""

    def __init__(self, robot, values=None):
        self.robot = robot
        self.model = pinocchio_model(robot.spec, values, mimic=False)
        self.values = values
        self.data = self.model.createData()
        self.ends = [None if c.kind == "coupling" else
                     [self.frame(end) if end is not None else None for end in c.ends]
                     for c in robot.constraints]
        coupling = np.array(robot.coupling_matrix, dtype=float)       # links x coordinates
        self.permutation = pinocchio_permutation(robot.spec, entries="v")
        self.q_permutation = pinocchio_permutation(robot.spec, entries="q")
        k = robot.base_velocities
        self.T = np.block([[np.eye(k), np.zeros((k, coupling.shape[1]))],
                           [np.zeros((len(coupling), k)), self.permutation @ coupling]])
        self.coupling = coupling
        self.configuration, self.offsets = configuration_map(robot, values)

    def pinocchio_q(self, q) -> np.ndarray:
        """Pinocchio's configuration of symdyn's q (mimic joints' values from theirs)."""
        head = self.robot.base_configuration
        links = self.configuration @ np.asarray(q[head:], dtype=float) + self.offsets
        return np.r_[q[:head], self.q_permutation @ links]

    def integrate(self, q, v) -> np.ndarray:
        """q moved by v (symdyn's), through Pinocchio's integrate."""
        import pinocchio as pin

        robot = self.robot
        head = robot.base_configuration
        moved = pin.integrate(self.model, self.pinocchio_q(q), self.T @ v)
        links = dict(zip(robot.link_q, self.q_permutation.T @ moved[head:]))
        return np.r_[moved[:head], [links[s] for s in robot.q[head:]]]

    def anchor(self, constraint):
        """A frame held to the world: where the file puts it, or where it is at closed_at
        (computed in data of its own: self.data holds the state being compared)."""
        import pinocchio as pin

        if constraint.anchor is not None:
            return np.array(constraint.anchor, dtype=float)
        data = self.model.createData()
        pin.framesForwardKinematics(self.model, data, self.pinocchio_q(self.closed_at()))
        return data.oMf[self.frame(constraint.ends[0])].homogeneous.copy()

    def frame(self, end):
        """Pinocchio's frame of a constraint's end: a named frame by its name, a link's by
        pinocchio_model's link<i>."""
        named = {frame.name for frame in self.robot.frames} | {"tool"}
        return self.model.getFrameId(end.name if end.name in named else f"link{end.link}")

    def closed_at(self):
        """closed_at as symdyn's configuration (poses.closed_configuration)."""
        from .robot.poses import closed_configuration

        return np.array(closed_configuration(self.robot))

    def root_frame(self, constraint):
        """(R, omega, alpha, J_omega) of a loop's root (Robot.constraint_root) at the state
        Pinocchio's data hold: its link's frame (link<i>), or the base frame {0} (the
        free-flyer's, or the file's base, fixed), world-aligned."""
        import pinocchio as pin

        model, data, world = self.model, self.data, pin.LOCAL_WORLD_ALIGNED
        root = self.robot.constraint_root(constraint)
        if root:
            frame = model.getFrameId(f"link{root}")
            return (data.oMf[frame].rotation.copy(),
                    pin.getFrameVelocity(model, data, frame, world).angular.copy(),
                    pin.getFrameClassicalAcceleration(model, data, frame, world).angular.copy(),
                    pin.getFrameJacobian(model, data, frame, world)[3:].copy())
        if self.robot.floating:
            return (data.oMi[1].rotation.copy(), pin.getVelocity(model, data, 1, world).angular,
                    pin.getClassicalAcceleration(model, data, 1, world).angular,
                    pin.getJointJacobian(model, data, 1, world)[3:].copy())
        base = np.array(self.robot.base, dtype=float)[:3, :3]
        return base, np.zeros(3), np.zeros(3), np.zeros((3, self.model.nv))

    def terms(self, q, v):
        """(phi, G, gamma) at (q, v), by Pinocchio."""
        import pinocchio as pin

        model, data, robot = self.model, self.data, self.robot
        pin.forwardKinematics(model, data, self.pinocchio_q(q), self.T @ v,
                              np.zeros(model.nv))
        pin.updateFramePlacements(model, data)
        pin.computeJointJacobians(model, data, self.pinocchio_q(q))
        world = pin.LOCAL_WORLD_ALIGNED
        phi, G, gamma = [], [], []
        for c, ids in zip(robot.constraints, self.ends):
            if c.kind == "coupling":
                row = np.zeros(robot.dof)
                columns = {robot.links[i - 1].q: k[0]
                           for i, k in robot.velocity_columns.items()}
                for symbol, coefficient in c.coefficients:
                    row[columns[symbol]] = float(coefficient)
                at = dict(zip(robot.q, np.asarray(q, dtype=float)))
                phi.append([sum(float(coefficient) * at[symbol]
                                for symbol, coefficient in c.coefficients) - float(c.value)])
                G.append([row])
                gamma.append([0.0])
                continue
            poses, jacobians, accelerations, velocities = [], [], [], []
            for frame in ids:
                if frame is None:
                    poses.append(self.anchor(c))
                    jacobians.append(np.zeros((6, model.nv)))
                    accelerations.append(np.zeros(6))
                    velocities.append(np.zeros(6))
                    continue
                poses.append(data.oMf[frame].homogeneous.copy())
                jacobians.append(pin.getFrameJacobian(model, data, frame, world).copy())
                a = pin.getFrameClassicalAcceleration(model, data, frame, world)
                accelerations.append(np.r_[a.linear, a.angular])
                velocity = pin.getFrameVelocity(model, data, frame, world)
                velocities.append(np.r_[velocity.linear, velocity.angular])
            (A, B), (Ja, Jb), (aa, ab), (va, vb) = (poses, jacobians, accelerations,
                                                    velocities)
            turn = A[:3, :3] @ B[:3, :3].T
            residual = np.r_[A[:3, 3] - B[:3, 3], 0.5 * np.array(
                [turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1]])]
            jacobian, drift = Ja - Jb, -(aa - ab)
            if ids[1] is not None:
                residual, jacobian, drift = _in_root_frame(
                    A, B, (va, vb), (aa, ab), self.root_frame(c), residual, jacobian)
            rows = list(c.rows)
            phi.append(residual[rows])
            G.append((jacobian @ self.T)[rows])
            gamma.append(drift[rows])
        return np.concatenate(phi), np.vstack(G), np.concatenate(gamma)

    def close(self, q, steps=50):
        """q moved (its passive joints, or every velocity where none is actuated) to where the
        constraints hold: Newton on Pinocchio's residual, in the tangent space."""
        nv = self.robot.dof
        moving = list(self.robot.passive) if self.robot.actuated else list(range(nv))
        for _ in range(steps):
            phi, G, _ = self.terms(q, np.zeros(nv))
            if np.abs(phi).max() < 1e-14:
                return q
            step = np.zeros(nv)
            step[moving] = -np.linalg.lstsq(G[:, moving], phi, rcond=None)[0]
            q = self.integrate(q, step)
        raise ValueError("the reference's Newton did not close the constraints")

    def state(self, rng, spread=0.3):
        """A random consistent (q, v, qdd): q near closed_at (each velocity's direction within
        ``spread``, halved where Newton does not close from there: a Stewart platform's legs
        leave it a smaller basin), v in G's null space, qdd with G qdd = gamma."""
        nv = self.robot.dof
        for _ in range(5):      # nearer closed_at where Newton does not close from there
            try:
                q = self.close(self.integrate(self.closed_at(), rng.uniform(-spread, spread,
                                                                            nv)))
                break
            except ValueError:
                spread /= 2
        else:
            q = self.close(self.closed_at())
        _, G, _ = self.terms(q, np.zeros(nv))
        null = null_space(G)
        v = null @ rng.uniform(-2, 2, null.shape[1])
        _, _, gamma = self.terms(q, v)
        qdd = np.linalg.lstsq(G, gamma, rcond=None)[0] + null @ rng.uniform(-3, 3, null.shape[1])
        return q, v, qdd

    def constraint_models(self):
        """Pinocchio's own constraint models of the robot's point and weld constraints
        (RigidConstraintModel CONTACT_3D and CONTACT_6D between its frames' joints, LOCAL for
        a loop and LOCAL_WORLD_ALIGNED for a frame held to the world, as symdyn's rows are),
        and their data, initialised for constraintDynamics; ValueError for a robot with a
        coupling, which Pinocchio's models do not hold."""
        import pinocchio as pin

        model = self.model
        models = pin.StdVec_RigidConstraintModel()
        for c, ends in zip(self.robot.constraints, self.ends):
            if c.kind == "coupling":
                raise ValueError(f"Pinocchio has no constraint model of a coupling ({c.name})")
            kind = pin.ContactType.CONTACT_3D if c.kind == "point" else (
                pin.ContactType.CONTACT_6D)
            first = model.frames[ends[0]]
            if ends[1] is None:
                models.append(pin.RigidConstraintModel(
                    kind, model, first.parentJoint, first.placement, 0,
                    pin.SE3(self.anchor(c)), pin.LOCAL_WORLD_ALIGNED))
            else:
                second = model.frames[ends[1]]
                models.append(pin.RigidConstraintModel(
                    kind, model, first.parentJoint, first.placement, second.parentJoint,
                    second.placement, pin.LOCAL))
        datas = pin.StdVec_RigidConstraintData()
        for constraint_model in models:
            datas.append(constraint_model.createData())
        pin.initConstraintDynamics(model, self.data, models, datas)
        return models, datas

    def constraint_dynamics(self, q, v, tau, models, datas, iterations=1):
        """(qdd, lambda) by Pinocchio's constraintDynamics on ``models`` (constraint_models),
        in symdyn's coordinates, lambda's rows those symdyn keeps (a loop's turned from its
        first frame's axes, Pinocchio's LOCAL, to its root's). Exact (mu = 0) where every
        row is independent; where a loop's rows repeat others (a planar loop's third),
        ``iterations`` proximal steps (mu = 1e-8 relative) find the least-norm forces, whose
        repeated rows are 0 and whose others are then symdyn's."""
        import pinocchio as pin

        if self.T.shape[0] != self.T.shape[1]:
            raise ValueError("mimic joints: Pinocchio's velocities are not symdyn's")
        settings = pin.ProximalSettings(1e-13, 0.0 if iterations == 1 else 1e-8, iterations)
        # T permutes the velocities: Pinocchio's torques are T tau too (T^-T = T)
        qdd = pin.constraintDynamics(self.model, self.data, self.pinocchio_q(q), self.T @ v,
                                     self.T @ (tau - self.passive(q, v)), models, datas,
                                     settings)
        forces, start = [], 0
        pin.framesForwardKinematics(self.model, self.data, self.pinocchio_q(q))
        pin.computeJointJacobians(self.model, self.data, self.pinocchio_q(q))
        for c, ends in zip(self.robot.constraints, self.ends):
            size = 3 if c.kind == "point" else 6
            force = self.data.lambda_c[start:start + size].copy()
            if ends[1] is not None:     # LOCAL: the first frame's axes, turned to the root's
                turn = self.root_frame(c)[0].T @ self.data.oMf[ends[0]].rotation
                force = np.kron(np.eye(size // 3), turn) @ force
            forces.append(force[list(c.rows)])
            start += size
        return self.T.T @ qdd, np.concatenate(forces)

    def passive(self, q, v) -> np.ndarray:
        """Friction and the joint springs at (q, v) (reference.friction_torques and
        spring_torques of the file), in symdyn's coordinates: what the actuators add to the
        rigid body's torques."""
        robot = self.robot
        links = self.coupling @ v[robot.base_velocities:]
        at = self.configuration @ np.asarray(q[robot.base_configuration:], dtype=float)
        return np.r_[np.zeros(robot.base_velocities), self.coupling.T @ (
            friction_torques(robot.spec, links, self.values)
            + spring_torques(robot.spec, at + self.offsets, self.values))]

    def kkt(self, q, v, tau, gains=(0.0, 0.0)):
        """(qdd, lambda) of M qdd = tau - h - f + G^T lambda, G qdd = gamma - Kd G v - Kp phi
        (f: friction and the joint springs): the KKT matrix solved densely."""
        import pinocchio as pin

        model, data, T = self.model, self.data, self.T
        qp = self.pinocchio_q(q)
        M = pin.crba(model, data, qp)
        M = T.T @ (np.triu(M) + np.triu(M, 1).T) @ T
        h = T.T @ pin.nonLinearEffects(model, data, qp, T @ v)
        phi, G, gamma = self.terms(q, v)
        m, n = G.shape
        K = np.block([[M, -G.T], [G, np.zeros((m, m))]])
        rhs = np.r_[tau - h - self.passive(q, v), gamma - gains[1] * G @ v - gains[0] * phi]
        x = np.linalg.solve(K, rhs)
        return x[:n], x[n:]


def configuration_map(robot, values=None) -> tuple[np.ndarray, np.ndarray]:
    """(A, c) with the links' joint variables (Robot.link_q) A q_joints + c for the joints'
    part of q: each its coordinate's, a mimic joint's its multiplier times the one it follows
    plus its offset, a spherical joint's quaternion its own. ``values``: numbers for free
    symbols."""
    values = values or {}
    coordinates = robot.q[robot.base_configuration:]
    variables = [sympy.sympify(robot.coupling.get(s, s)).subs(values) for s in robot.link_q]
    A = np.array([[float(v.diff(c)) for c in coordinates] for v in variables]).reshape(
        len(variables), len(coordinates))
    c = np.array([float(v.subs({x: 0 for x in coordinates})) for v in variables])
    return A, c


def null_space(G):
    _, s, vt = np.linalg.svd(G)
    rank = int((s > 1e-10 * max(1.0, s.max())).sum())
    return vt[rank:].T
