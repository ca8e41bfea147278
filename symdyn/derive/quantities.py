"""The quantities a controller uses, each as its own program, from one derivation route.

A route (Newton-Euler or Lagrange) supplies the rigid-body parts: inverse dynamics for any joint
velocities, accelerations and gravity, the mass matrix and the Coriolis matrix. Everything else is
assembled here, the same way for both routes: the actuators (rotor inertia G^2 Jm on M's
diagonal, viscous and Coulomb friction on the joint side, as Robotics Toolbox reflects them),
g(q) = ID(q, 0, 0), the nonlinear effects C(q, qd) qd + g(q) = ID(q, qd, 0), and forward dynamics
as an L^T D L solve written out for the robot's n.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Protocol

import symengine
import sympy

from ..program.builder import ProgramBuilder
from ..program.derivative import derivatives
from ..program.passes import substitute
from ..program.program import Argument, Program
from ..program.symengine_form import to_sympy
from ..robot.model import Robot, joint_friction
from . import centroidal, configuration, constraints, elastic, energy, kinematics
from .algebra import define
from .factors import LDLT, LTDL, factor, solve_columns
from .regressor import regressor, standard_parameters


class Route(Protocol):
    method: str
    robot: Robot

    def inverse_dynamics(self, b: ProgramBuilder, qd, qdd, gravity, steps=None,
                         progress=None) -> list: ...

    def mass_matrix(self, b: ProgramBuilder) -> sympy.Matrix: ...

    def coriolis_matrix(self, b: ProgramBuilder, qd) -> sympy.Matrix: ...

    def tool_wrench_torques(self, b: ProgramBuilder, force, moment) -> list: ...

    def inverse_dynamics_derivatives(self, b: ProgramBuilder, qd, qdd,
                                     gravity) -> tuple[sympy.Matrix, sympy.Matrix]: ...


@dataclass(frozen=True)
class Quantity:
    """One function of the generated code: what it takes and gives, and how it is made.

    A new quantity is one entry of QUANTITIES: its builder (a function of a ``Build``) returns
    its outputs' values, and the flags say where Dynamics makes it from. Every language's
    backend prints it from its program, with ``doc`` as its documentation.
    """

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[tuple[str, tuple], ...]   # (name, shape) of each output, row-major;
    doc: str          # in a shape, "n" stands for the number of velocities (the joints, less
    # the mimic ones, and a floating base's six), "nq" for q's size, "L" for the links', "p" for
    # the parameters', "F" for the named frames', "m" for the constraints' rows, "a" for a
    # closed-loop mechanism's actuated joints', "t" for the tendons', "e" for the elastic joints'
    # The outputs' values, each a row-major list, built on Build.b; None where Dynamics makes
    # the program of others' (from_regressor, composed_of).
    builder: Callable[[Build], list[list]] | None = None
    kinematic: bool = False         # of the joint frames alone: the same by either route
    as_given: bool = False          # of the robot's parameters as the file gives them
    # What the robot must have for this quantity to exist, by name (dynamics.REQUIREMENTS)
    requires: tuple[str, ...] = ()
    from_regressor: bool = False    # chosen from the regressor's program (base_parameters.py)
    # Composed of these quantities' programs (program.compose), in this order; those, and the
    # quantities whose outputs are theirs (view_of), are its parts (program.view).
    composed_of: tuple[str, ...] = ()
    view_of: tuple[str, ...] = ()   # its outputs are those of these quantities, together
    # One function per named frame, of one frame's share of its composition's outputs
    # (Dynamics.programs); ``frame_outputs`` gives the output each of its outputs is cut from.
    per_frame: bool = False
    frame_outputs: tuple[str, ...] = ()
    frame_doc: str = ""             # each frame's function's doc, of "{frame}"

    def dims(self, robot: Robot, base: int | None = None) -> list[tuple[int, ...]]:
        """The outputs' shapes for ``robot``, of ``base`` base parameters ("b")."""
        sizes = {"n": robot.dof, "nq": robot.nq, "L": len(robot.links),
                 "p": len(standard_parameters(robot)), "b": base, "F": len(robot.frames),
                 "m": sum(c.size for c in robot.constraints), "a": len(robot.actuated),
                 "t": len(robot.tendons), "e": len(robot.elastic)}
        return [tuple(sizes.get(d, d) for d in shape) for _, shape in self.outputs]


@dataclass(frozen=True)
class Build:
    """What a quantity's builder works with: the robot and route, the builder of its program,
    and ``part``, which gives another quantity's outputs with its steps included."""

    robot: Robot
    route: Route
    b: ProgramBuilder
    part: Callable[..., list[list]]
    steps: list | None = None       # receives inverse dynamics' recorded equations
    progress: Callable[[str], None] | None = None

    # The derivations run over every link's own joint variables, after a floating base's six
    # (Robot.slots: the routes' lists); ``build`` writes a mimic joint's in the coordinates at
    # the end, and the builders give the coordinates' forces.
    @property
    def qd(self) -> list:
        return self.robot.slots(self.robot.link_qd, "velocity")

    @property
    def qdd(self) -> list:
        return self.robot.slots(self.robot.link_qdd, "acceleration")

    @property
    def zeros(self) -> list:
        return [sympy.Integer(0)] * self.robot.slot_count


# -- the builders ---------------------------------------------------------------------------------
def _inverse_dynamics(c: Build) -> list[list]:
    robot = c.robot
    rigid = c.route.inverse_dynamics(c.b, c.qd, c.qdd, robot.gravity, c.steps, c.progress)
    shift = robot.base_velocities
    joints = [c.b.define(f"tau{i + 1}_total", rigid[shift + i] + armature * qdd + f)
              for i, (armature, qdd, f) in enumerate(zip(
                  robot.per_velocity(link.armature for link in robot.links)[shift:],
                  robot.link_qdd, passive(robot)[shift:]))]
    return [forces(robot, rigid[:shift] + joints)]


def _mass_matrix(c: Build) -> list[list]:
    return [list(congruent(c.robot, with_armature(c.robot, c.route.mass_matrix(c.b))))]


def _coriolis_matrix(c: Build) -> list[list]:
    return [list(congruent(c.robot, c.route.coriolis_matrix(c.b, c.qd)))]


def _gravity_torques(c: Build) -> list[list]:
    return [forces(c.robot, c.route.inverse_dynamics(c.b, c.zeros, c.zeros, c.robot.gravity))]


def _nonlinear_effects(c: Build) -> list[list]:
    return [forces(c.robot, c.route.inverse_dynamics(c.b, c.qd, c.zeros, c.robot.gravity))]


def _friction_torques(c: Build) -> list[list]:
    return [forces(c.robot, friction(c.robot))]


def _joint_spring_torques(c: Build) -> list[list]:
    return [forces(c.robot, springs(c.robot))]


def _tool_wrench_torques(c: Build) -> list[list]:
    wrench = _f_ext_symbols()
    return [forces(c.robot, c.route.tool_wrench_torques(c.b, wrench[:3], wrench[3:]))]


def _forward_dynamics_outputs(c: Build) -> list[list]:
    _, qdd = _forward_dynamics(c.robot, c.part, c.b, list(_tau_symbols(c.robot)))
    return [qdd]


def _inverse_dynamics_derivative_outputs(c: Build) -> list[list]:
    return [list(d) for d in _inverse_dynamics_derivatives(c.robot, c.route, c.b, c.qd, c.qdd)]


def _forward_dynamics_derivative_outputs(c: Build) -> list[list]:
    return _forward_dynamics_derivatives(c.robot, c.part, c.b, c.qd, list(_tau_symbols(c.robot)))


def _regressor(c: Build) -> list[list]:
    return [list(forces(c.robot, regressor(c.robot, c.route, c.b)))]


def _kinetic_energy(c: Build) -> list[list]:
    return [[energy.kinetic_energy(c.robot, c.route, c.b)]]


def _potential_energy(c: Build) -> list[list]:
    return [[energy.potential_energy(c.robot, c.b)]]


def _center_of_mass(c: Build) -> list[list]:
    return [energy.center_of_mass(c.robot, c.b)]


def _com_jacobian(c: Build) -> list[list]:
    """d com / dq: the centre of mass's program differentiated along each coordinate
    (program/derivative.py; in reverse mode, three adjoints, for all but the shortest
    robots: the Panda's 517 multiplications -> 168): each joint's variable moving as the
    coordinate's column of the coupling G says (its own alone, without mimic joints)."""
    robot = c.robot
    com = energy.center_of_mass(robot, c.b)
    columns = derivatives(c.b, com, tangents(robot, c.b),
                          [f"_dq{j + 1}" for j in range(robot.dof)], "_bar")
    return [[column[r] for r in range(3) for column in columns]]


def tangents(robot: Robot, b: ProgramBuilder) -> list[dict]:
    """Each velocity's direction in the configuration, {symbol: rate}: a joint coordinate moves
    its own link's variable and its mimic joints' (the coupling G's column); a spherical
    joint's and a floating base's, as kinematics.slot_tangents. The derivative of a program of
    q along one is the column of its Jacobian that maps that velocity (Pinocchio's
    tangent-space derivatives)."""
    G, shift = robot.coupling_matrix, robot.base_velocities
    own = kinematics.slot_tangents(robot, b)
    joints = []
    for k in range(G.cols):
        column = {}
        for j in range(G.rows):
            if G[j, k] != 0:
                column.update({s: G[j, k] * rate for s, rate in own[shift + j].items()})
        joints.append(column)
    return own[:shift] + joints


def velocity_tangents(robot: Robot) -> list[dict]:
    """Each velocity's direction among the velocity symbols the programs read: a joint
    coordinate's moves its own link's and its mimic joints' (the coupling G's column, as
    tangents), a floating base's its own."""
    G = robot.coupling_matrix
    base = [{v: 1} for v in robot.qd[:robot.base_velocities]]
    return base + [{qd: G[j, k] for j, qd in enumerate(robot.link_qd) if G[j, k] != 0}
                   for k in range(G.cols)]


def _centroidal_map(c: Build) -> list[list]:
    # its columns are the bodies' velocities': a coordinate's, its joints' by G (as J G)
    return [list(forces(c.robot, centroidal.centroidal_map(c.robot, c.b).T).T)]


def _centroidal_map_dot_qd(c: Build) -> list[list]:
    return [centroidal.centroidal_map_dot_qd(c.robot, c.b)]


def _integrate(c: Build) -> list[list]:
    return [configuration.integrate(c.robot, c.b, c.robot.q, c.robot.qd)]


def _difference(c: Build) -> list[list]:
    start, end = _configurations(c.robot)
    return [configuration.difference(c.robot, c.b, start, end)]


def _constraint_residual(c: Build) -> list[list]:
    return [constraints.rows(c.robot, c.b)[0]]


def _constraint_jacobian(c: Build) -> list[list]:
    return [[e for row in constraints.rows(c.robot, c.b)[1] for e in row]]


def _constraint_drift(c: Build) -> list[list]:
    return [constraints.drift(c.robot, c.b)]


def _tendon_lengths(c: Build) -> list[list]:
    return [[sympy.Add(*(k * q for q, k in t.coefficients)) for t in c.robot.tendons]]


def _tendon_jacobian(c: Build) -> list[list]:
    """dL/dt = sum k qd_link over the tendon's joints: a mimic joint's share goes to the
    coordinate it follows, times its multiplier (Robot.coupling_matrix's column)."""
    robot = c.robot
    links = {link.q: robot.offsets[link.index - 1] - robot.base_velocities
             for link in robot.links}
    G = robot.coupling_matrix
    rows = []
    for tendon in robot.tendons:
        row = [sympy.Integer(0)] * robot.dof
        for q, k in tendon.coefficients:
            for column in range(G.cols):
                row[robot.base_velocities + column] += k * G[links[q], column]
        rows.append(row)
    return [[e for row in rows for e in row]]


def _constrained_forward_dynamics(c: Build) -> list[list]:
    return constraints.constrained_forward_dynamics(c.robot, c.part, c.b, GAINS)


def _constraint_derivatives(c: Build) -> list[list]:
    robot = c.robot
    m = sum(k.size for k in robot.constraints)
    return constraints.constraint_derivatives(robot, c.part, c.b, tangents(robot, c.b),
                                              velocity_tangents(robot), robot.qdd,
                                              constraints.multiplier_symbols(m))


def _constrained_forward_dynamics_derivatives(c: Build) -> list[list]:
    return constraints.constrained_forward_dynamics_derivatives(
        c.robot, c.part, c.b, GAINS,
        lambda qdd: _inverse_dynamics_derivatives_at(c.robot, c.part, qdd))


def _delassus_matrix(c: Build) -> list[list]:
    return constraints.delassus(c.robot, c.part, c.b)


def _impulse_dynamics(c: Build) -> list[list]:
    return constraints.impulse_dynamics(c.robot, c.part, c.b, RESTITUTION[0])


def _closed_loop_inverse_dynamics(c: Build) -> list[list]:
    return constraints.closed_loop_inverse_dynamics(c.robot, c.part, c.b)


def _close_loops(c: Build) -> list[list]:
    return constraints.close_loops(c.robot, c.part, c.b)


def _spring_torques(c: Build) -> list[list]:
    return elastic.spring_torques(c.robot, c.b)


def _elastic_forward_dynamics(c: Build) -> list[list]:
    return elastic.forward_dynamics(c.robot, c.part, c.b, list(_tau_symbols(c.robot)))


def _elastic_inverse_dynamics(c: Build) -> list[list]:
    return elastic.inverse_dynamics(c.robot, c.part, c.b)


def _kinematic(outputs) -> Callable[[Build], list[list]]:
    """The builder of a kinematic quantity: kinematics.py's ``outputs`` of the robot."""
    return lambda c: outputs(c.robot, c.b)


def _one(name, inputs, output, doc, shape=("n",), **how) -> Quantity:
    """A quantity with one output."""
    return Quantity(name, inputs, ((output, shape),), doc, **how)


QUANTITIES = {q.name: q for q in (
    _one("inverse_dynamics", ("q", "qd", "qdd"), "tau",
             "Joint forces and torques tau that produce the accelerations qdd at (q, qd):\n"
             "tau = M(q) qdd + C(q, qd) qd + g(q) + friction(qd) (+ the joint springs'\n"
             "torques K (q - q_ref), where the robot has them).",
             builder=_inverse_dynamics),
    _one("mass_matrix", ("q",), "M",
             "The joint-space inertia matrix M(q), rotor inertias G^2 Jm on its diagonal.",
             ("n", "n"),
             builder=_mass_matrix),
    _one("coriolis_matrix", ("q", "qd"), "C",
             "The Coriolis matrix C(q, qd) of Christoffel symbols: C qd holds the Coriolis and\n"
             "centrifugal forces, and dM/dt - 2 C is skew-symmetric (a floating base's columns\n"
             "as Pinocchio's computeCoriolisMatrix has them).", ("n", "n"),
             builder=_coriolis_matrix),
    _one("gravity_torques", ("q",), "g", "The gravity torques g(q).",
             builder=_gravity_torques),
    _one("nonlinear_effects", ("q", "qd"), "h",
             "The nonlinear effects h(q, qd) = C(q, qd) qd + g(q), friction excluded.",
             builder=_nonlinear_effects),
    _one("friction_torques", ("qd",), "tau_f",
             "Joint friction: G^2 B qd + |G| Tc, with Tc+ when qd > 0 and Tc- when qd < 0.",
             builder=_friction_torques),
    _one("joint_spring_torques", ("q",), "tau_k",
             "The joint springs' torques K (q - q_ref) (MuJoCo's joint stiffness): the\n"
             "springs pull each joint back to its reference with -tau_k, which the actuators\n"
             "add to the rigid body's torques in inverse_dynamics.",
             builder=_joint_spring_torques, requires=("joint springs",)),
    _one("tool_wrench_torques", ("q", "f_ext"), "tau_ext",
             "The joint forces that hold the wrench f_ext = [fx, fy, fz, mx, my, mz] the tool\n"
             "exerts on its environment (in the tool frame's axes, about its origin): J^T f_ext.\n"
             "Add them to inverse_dynamics for a robot in contact.",
             builder=_tool_wrench_torques),
    _one("forward_dynamics", ("q", "qd", "tau"), "qdd",
             "The accelerations qdd that the joint forces tau produce at (q, qd):\n"
             "M(q) qdd = tau - C(q, qd) qd - g(q) - friction(qd) (- the joint springs'\n"
             "torques), solved by L^T D L.",
             builder=_forward_dynamics_outputs, requires=("invertible M",)),
    _one("forward_kinematics", ("q",), "T",
             "The tool frame's pose in the world: the 4 x 4 homogeneous transform\n"
             "^world T_tool = ^world T_0 ^0 T_n ^n T_tool.", (4, 4),
             builder=_kinematic(kinematics.forward_kinematics_outputs), kinematic=True),
    _one("link_poses", ("q",), "T_links",
             "The pose of every link frame {1}..{n} (the frames of the robot file's DH\n"
             "convention) in the world: a homogeneous transform per link, L x 4 x 4 (L = n\n"
             "but for mimic joints, which have links but no coordinates).", ("L", 4, 4),
             builder=_kinematic(kinematics.link_poses_outputs), kinematic=True,
             requires=("links",)),
    _one("jacobian", ("q",), "J",
             "The geometric Jacobian of the tool frame, 6 x n: rows [linear velocity of the\n"
             "tool origin; angular velocity], in world axes (Pinocchio's LOCAL_WORLD_ALIGNED).",
             (6, "n"),
             builder=_kinematic(kinematics.jacobian_outputs), kinematic=True),
    _one("body_jacobian", ("q",), "J_body",
             "The tool frame's geometric Jacobian in the tool frame's own axes, 6 x n\n"
             "(Pinocchio's LOCAL).", (6, "n"),
             builder=_kinematic(kinematics.body_jacobian_outputs), kinematic=True),
    Quantity("pose_and_jacobian", ("q",), (("T", (4, 4)), ("J", (6, "n"))),
             "forward_kinematics and jacobian in one pass, which they share: the tool's pose\n"
             "T (4 x 4) and its geometric Jacobian J (6 x n) in world axes.",
             builder=_kinematic(kinematics.pose_and_jacobian_outputs), kinematic=True,
             view_of=("forward_kinematics", "jacobian")),
    _one("jacobian_dot_qd", ("q", "qd"), "Jdot_qd",
             "dJ/dt qd, in world axes: the tool origin's classical linear acceleration and the\n"
             "tool's angular acceleration when qdd = 0 (Pinocchio's classical acceleration,\n"
             "LOCAL_WORLD_ALIGNED).", (6,),
             builder=_kinematic(kinematics.jacobian_dot_qd_outputs), kinematic=True),
    _one("frame_poses", ("q",), "T_frames",
             "The pose of every named frame (FRAMES, in the robot file's order) in the world:\n"
             "F homogeneous transforms, F x 4 x 4.", ("F", 4, 4),
             builder=_kinematic(kinematics.frame_poses_outputs), kinematic=True,
             requires=("frames",)),
    _one("frame_jacobians", ("q",), "J_frames",
             "The geometric Jacobian of every named frame, F x 6 x n: rows [linear velocity of\n"
             "the frame's origin; angular velocity], in world axes (LOCAL_WORLD_ALIGNED), as\n"
             "jacobian is the tool's.", ("F", 6, "n"),
             builder=_kinematic(kinematics.frame_jacobians_outputs), kinematic=True,
             requires=("frames",)),
    Quantity("frame_pose_and_jacobian", ("q",), (("T", (4, 4)), ("J", (6, "n"))),
             "One named frame's pose T (4 x 4, in the world) and geometric Jacobian J (6 x n,\n"
             "world axes), one function per frame of FRAMES: pose_and_jacobian_<frame>(q)\n"
             "computes what that frame needs alone (its branch of the tree), and gives bit for\n"
             "bit that frame's entries of frame_poses and frame_jacobians.",
             kinematic=True, requires=("frames",), per_frame=True,
             composed_of=("frame_poses", "frame_jacobians"),
             frame_outputs=("T_frames", "J_frames"),
             frame_doc="The frame {frame}'s pose T (4 x 4, in the world) and geometric Jacobian J\n"
                       "(6 x n, world axes), computing what that frame needs alone: bit for bit\n"
                       "its entries of frame_poses and frame_jacobians."),
    _one("frame_jacobians_dot_qd", ("q", "qd"), "Jdot_qd_frames",
             "dJ/dt qd of every named frame, F x 6, in world axes: each frame's classical\n"
             "acceleration when qdd = 0, as jacobian_dot_qd is the tool's.", ("F", 6),
             builder=_kinematic(kinematics.frame_jacobians_dot_qd_outputs), kinematic=True,
             requires=("frames",)),
    Quantity("inverse_dynamics_derivatives", ("q", "qd", "qdd"),
             (("dtau_dq", ("n", "n")), ("dtau_dqd", ("n", "n"))),
             "The partial derivatives of inverse_dynamics, dtau/dq and dtau/dqd (n x n each;\n"
             "dtau/dqdd is M). Viscous friction is included; Coulomb friction's derivative is\n"
             "zero wherever it exists (qd != 0) and is left out. A floating base's q-columns\n"
             "are along its velocities (the tangent space, as Pinocchio's\n"
             "computeRNEADerivatives).",
             builder=_inverse_dynamics_derivative_outputs),
    Quantity("forward_dynamics_derivatives", ("q", "qd", "tau"),
             (("dqdd_dq", ("n", "n")), ("dqdd_dqd", ("n", "n")), ("Minv", ("n", "n"))),
             "The partial derivatives of forward_dynamics, dqdd/dq and dqdd/dqd, and M^-1\n"
             "(= dqdd/dtau): -M^-1 times inverse dynamics' derivatives at the accelerations\n"
             "forward dynamics gives. Coulomb friction as in inverse_dynamics_derivatives.",
             builder=_forward_dynamics_derivative_outputs, requires=("invertible M",)),
    Quantity("all_terms", ("q", "qd"), (("M", ("n", "n")), ("h", ("n",)), ("T", (4, 4)),
                                        ("J", (6, "n")), ("Jdot_qd", (6,))),
             "What a controller needs at each step, in one call (Pinocchio's computeAllTerms\n"
             "with the tool frame's quantities): M(q), h(q, qd) = C(q, qd) qd + g(q) (friction\n"
             "excluded), the tool's pose T (4 x 4) and Jacobian J (6 x n, world axes), and\n"
             "dJ/dt qd (6). Each is bit for bit what its own function returns (mass_matrix,\n"
             "nonlinear_effects, forward_kinematics, jacobian, jacobian_dot_qd); the sines,\n"
             "cosines and other steps they share are computed once.",
             composed_of=("mass_matrix", "nonlinear_effects", "forward_kinematics", "jacobian",
                          "jacobian_dot_qd")),
    _one("integrate", ("q", "qd"), "q_next",
             "q moved by the velocity qd for unit time (pass qd dt for a step dt), as\n"
             "Pinocchio's integrate: the joints' q + qd, and a floating base's exponential\n"
             "map of its twist in its own frame, its quaternion renormalized to first order.",
             ("nq",), builder=_integrate, kinematic=True),
    _one("difference", ("q0", "q1"), "dq",
             "The velocity that moves q0 to q1 in unit time (integrate's inverse), as\n"
             "Pinocchio's difference: the joints' q1 - q0, and a floating base's logarithm\n"
             "of its relative motion, the short way round (unit quaternions).",
             builder=_difference, kinematic=True),
    _one("kinetic_energy", ("q", "qd"), "K",
             "The kinetic energy K = 1/2 qd^T M(q) qd (J), the rotors' 1/2 G^2 Jm qd^2\n"
             "included. A scalar, or one per state of a batch.", (),
             builder=_kinetic_energy),
    _one("potential_energy", ("q",), "V",
             "The potential energy V = -sum_i m_i g . c_i (J) of the links' centres of mass c_i\n"
             "in the world: zero with every centre of mass at the world's origin (Pinocchio's\n"
             "computePotentialEnergy). gravity_torques is dV/dq. A scalar, or one per state.",
             (),
             builder=_potential_energy, as_given=True),
    _one("center_of_mass", ("q",), "com",
             "The robot's centre of mass in the world, [x, y, z] (m): the links' and the\n"
             "payload's, weighted by their masses (Pinocchio's centerOfMass).", (3,),
             builder=_center_of_mass, as_given=True, requires=("mass",)),
    _one("com_jacobian", ("q",), "J_com",
             "The Jacobian of the centre of mass, 3 x n, in the world (Pinocchio's\n"
             "jacobianCenterOfMass): its velocity is J_com qd.", (3, "n"),
             builder=_com_jacobian, as_given=True, requires=("mass",)),
    _one("centroidal_map", ("q",), "A_g",
             "The centroidal momentum matrix A_g(q), 6 x n: the robot's momentum about its\n"
             "centre of mass, rows [linear; angular] in world axes, is A_g qd (Orin, Goswami\n"
             "and Lee; Pinocchio's computeCentroidalMap).", (6, "n"),
             builder=_centroidal_map, as_given=True, requires=("mass",)),
    _one("centroidal_map_dot_qd", ("q", "qd"), "dA_g_qd",
             "dA_g/dt qd, 6: the rate of the centroidal momentum when qdd = 0, rows [linear;\n"
             "angular] in world axes (Pinocchio's computeCentroidalMapTimeVariation, dAg v).",
             (6,), builder=_centroidal_map_dot_qd, as_given=True, requires=("mass",)),
    _one("regressor", ("q", "qd", "qdd"), "Y",
             "The regressor Y(q, qd, qdd), n x p: tau = Y pi for the standard parameters pi\n"
             "(STANDARD_PARAMETERS names them; standard_parameters() gives the robot's values).",
             ("n", "p"),
             builder=_regressor),
    _one("base_regressor", ("q", "qd", "qdd"), "Y_b",
             "The base regressor Y_b(q, qd, qdd), n x b: tau = Y_b beta for the base parameters\n"
             "beta (BASE_PARAMETERS names them; base_parameters(pi) computes them).",
             ("n", "b"),
             from_regressor=True, requires=("base parameters",)),
    _one("base_parameters", ("pi",), "beta",
             "The base parameters beta = B pi of standard parameters pi (in\n"
             "STANDARD_PARAMETERS' order): the combinations tau depends on.", ("b",),
             from_regressor=True, requires=("base parameters",)),
    _one("constraint_residual", ("q",), "phi",
             "The constraints' residual phi(q), m (CONSTRAINTS' rows in order): p_a - p_b and,\n"
             "for a weld, the vee of the skew part of R_a R_b^T, in the axes of the link both\n"
             "of a loop's frames hang from (the world's for a contact); for a coupling, the\n"
             "sum less its value. Zero where the constraints hold.",
             ("m",),
             builder=_constraint_residual, kinematic=True, requires=("constraints",)),
    _one("constraint_jacobian", ("q",), "G",
             "The constraints' Jacobian G(q), m x n: d phi/dt = G qd (the frames' relative\n"
             "velocity, [linear; angular] rows in the residual's axes: a loop's root's, which\n"
             "turn with it, a contact's the world's as Pinocchio's LOCAL_WORLD_ALIGNED\n"
             "constraint models and MuJoCo's efc_J).", ("m", "n"),
             builder=_constraint_jacobian, kinematic=True, requires=("constraints",)),
    _one("constraint_drift", ("q", "qd"), "gamma",
             "The drift gamma(q, qd) = -dG/dt qd, m: the constraints' accelerations ask\n"
             "G qdd = gamma (minus the frames' relative classical acceleration at qdd = 0).",
             ("m",), builder=_constraint_drift, kinematic=True, requires=("constraints",)),
    _one("tendon_lengths", ("q",), "L",
             "The fixed tendons' lengths L(q), t (TENDONS' order): each the sum of its\n"
             "coefficients times its joints' variables (MuJoCo's ten_length).", ("t",),
             builder=_tendon_lengths, kinematic=True, requires=("tendons",)),
    _one("tendon_jacobian", ("q",), "J_t",
             "The tendons' Jacobian, t x n: dL/dt = J_t qd, constant for fixed tendons\n"
             "(MuJoCo's ten_J). A tendon force f acts on the joints as J_t^T f: an actuator\n"
             "that pulls a tendon is this transmission.", ("t", "n"),
             builder=_tendon_jacobian, kinematic=True, requires=("tendons",)),
    Quantity("constrained_forward_dynamics", ("q", "qd", "tau", "gains"),
             (("qdd", ("n",)), ("lambda_c", ("m",))),
             "The accelerations qdd and the constraints' forces lambda under the constraints:\n"
             "M qdd = tau - h - friction + G^T lambda, G qdd = gamma - Kd G qd - Kp phi\n"
             "(gains = [Kp, Kd], Baumgarte's: 0 for the exact constraint), solved through M's\n"
             "factors and the Delassus matrix's (Pinocchio's constraintDynamics). lambda is\n"
             "the force on each constraint's first frame, in its rows' axes.",
             builder=_constrained_forward_dynamics,
             requires=("constraints", "invertible M", "independent constraints")),
    Quantity("constraint_derivatives", ("q", "qd", "qdd", "lambda_c"),
             (("dforce_dq", ("n", "n")), ("dacc_dq", ("m", "n")), ("dacc_dqd", ("m", "n")),
              ("dvel_dq", ("m", "n"))),
             "What the constraints add to the dynamics' derivatives, at qdd and the forces\n"
             "lambda_c held: d(G^T lambda_c)/dq, the derivatives of the frames' relative\n"
             "acceleration G qdd - gamma along q and qd, and of their velocity G qd along q\n"
             "(Pinocchio's computeRNEADerivatives' share of the forces, and its\n"
             "getFrameAccelerationDerivatives); along q in the tangent space.",
             builder=_constraint_derivatives, requires=("constraints",)),
    Quantity("constrained_forward_dynamics_derivatives", ("q", "qd", "tau", "gains"),
             (("dqdd_dq", ("n", "n")), ("dqdd_dqd", ("n", "n")), ("dqdd_dtau", ("n", "n")),
              ("dlambda_dq", ("m", "n")), ("dlambda_dqd", ("m", "n")),
              ("dlambda_dtau", ("m", "n"))),
             "The derivatives of constrained_forward_dynamics' qdd and lambda_c along q (the\n"
             "tangent space), qd and tau, with the same Baumgarte gains: the KKT system\n"
             "differentiated, a solve through the factors it shares per column (Pinocchio's\n"
             "computeConstraintDynamicsDerivatives).",
             builder=_constrained_forward_dynamics_derivatives,
             requires=("constraints", "invertible M", "independent constraints")),
    Quantity("delassus_matrix", ("q",), (("D", ("m", "m")), ("D_inv", ("m", "m"))),
             "The Delassus matrix D = G M^-1 G^T, m x m (the constraints' inverse inertia),\n"
             "and its inverse.", builder=_delassus_matrix,
             requires=("constraints", "invertible M", "independent constraints")),
    Quantity("impulse_dynamics", ("q", "qd", "restitution"),
             (("qd_plus", ("n",)), ("impulses", ("m",))),
             "An impact on the constraints (a foot's touchdown): the velocity after it and the\n"
             "impulses, with G qd_plus = -r G qd and M (qd_plus - qd) = G^T impulses, r the\n"
             "restitution (0: plastic) (Pinocchio's impulseDynamics).",
             builder=_impulse_dynamics,
             requires=("constraints", "invertible M", "independent constraints")),
    Quantity("closed_loop_inverse_dynamics", ("q", "qd", "qdd"),
             (("tau_a", ("a",)), ("lambda_c", ("m",))),
             "A closed-loop mechanism's actuated joints' forces tau_a (ACTUATED's order) for a\n"
             "motion the constraints allow, and the constraints' forces: the tree's inverse\n"
             "dynamics with the passive joints' forces made zero by lambda (Khalil and\n"
             "Kleinfinger): G_p^T lambda = tau_p, tau_a = tau_a,tree - G_a^T lambda.",
             builder=_closed_loop_inverse_dynamics,
             requires=("constraints", "a closed-loop mechanism")),
    Quantity("close_loops", ("q",), (("q_closed", ("nq",)), ("residual", ()),
                                     ("converged", ())),
             "The configuration where the constraints hold nearest q's passive joints, the\n"
             "actuated ones held: Newton's method on phi with G's passive columns, a fixed\n"
             "number of steps; the residual |phi| after them, and converged = 1 where it is\n"
             "below 1e-10 (0 where not, NaN at a singular configuration).",
             builder=_close_loops, kinematic=True,
             requires=("constraints", "a closed-loop mechanism")),
    Quantity("spring_torques", ("q", "theta", "qd", "thetad"),
             (("tau_s", ("e",)), ("delta", ("e",))),
             "The elastic joints' springs: the torque each puts on its link,\n"
             "tau_s = K (theta - q) + D (thetad - qd), and its deflection delta = theta - q\n"
             "(theta: the motors' positions after their gears, in the joints' units).",
             builder=_spring_torques, requires=("elastic joints",)),
    Quantity("elastic_forward_dynamics", ("q", "theta", "qd", "thetad", "tau"),
             (("qdd", ("n",)), ("thetadd", ("e",))),
             "The accelerations of links and motors, (qdd, thetadd), of the elastic joints'\n"
             "reduced model (Spong's): M(q) qdd + h + friction = tau with the springs' torques\n"
             "tau_s at the elastic joints, and B thetadd = tau_m - tau_s - f(thetad) at each\n"
             "motor, B = G^2 Jm; tau holds the motors' torques tau_m at the elastic joints and\n"
             "the joint torques at the rigid ones.",
             builder=_elastic_forward_dynamics,
             requires=("elastic joints", "invertible M")),
    Quantity("elastic_inverse_dynamics", ("q", "qd", "qdd", "qddd", "qdddd"),
             (("theta", ("e",)), ("thetad", ("e",)), ("thetadd", ("e",)), ("tau", ("n",))),
             "The motors' motion and the torques that make the links follow q(t), given with\n"
             "its first four time derivatives (De Luca's feedforward): tau_s = M qdd + h,\n"
             "theta = q + K^-1 tau_s with its first two time derivatives (exact: inverse\n"
             "dynamics differentiated along the motion), tau_m = B thetadd + tau_s +\n"
             "f(thetad) at the elastic joints of tau, the rigid joints' torques at the rest.",
             builder=_elastic_inverse_dynamics,
             requires=("elastic joints", "undamped springs, no mimic joints")),
)}
# The registry's flags, gathered for those who ask by name.
FROM_REGRESSOR = tuple(name for name, q in QUANTITIES.items() if q.from_regressor)
COMPOSED = {name: q.composed_of for name, q in QUANTITIES.items() if q.composed_of}
PARTS = {name: q.view_of for name, q in QUANTITIES.items() if q.view_of}
PER_FRAME = tuple(name for name, q in QUANTITIES.items() if q.per_frame)


def parts_of(whole: str) -> tuple[str, ...]:
    """The quantities that are views of ``whole``: those it is composed of, then those made of
    their outputs."""
    made = tuple(name for name, of in PARTS.items() if set(of) <= set(COMPOSED[whole]))
    return COMPOSED[whole] + made


# The composed quantity each quantity is a part of (the composed ones, of themselves).
WHOLE_OF = {name: whole for whole in COMPOSED for name in (whole, *parts_of(whole))}
KINEMATICS = tuple(name for name, q in QUANTITIES.items() if q.kinematic)
# Those every robot has: of the tool and the links, not of named frames, constraints or
# tendons.
TOOL_KINEMATICS = tuple(name for name in KINEMATICS if not {
    "frames", "constraints", "tendons"} & set(QUANTITIES[name].requires))
# Of the robot as its file gives it, not of its regrouped parameters (dynamics.py): each
# link's mass where the file puts it, where regrouping moves or drops constant parts.
AS_GIVEN = tuple(name for name, q in QUANTITIES.items() if q.as_given)
# The same program by either route: comparing the routes on them would compare nothing.
ROUTE_FREE = KINEMATICS + AS_GIVEN


def build(name: str, robot: Robot, route: Route, steps=None, progress=None,
          parts: dict | None = None) -> Program:
    """The program of one quantity; ``steps`` receives inverse dynamics' recorded equations.

    ``parts`` keeps each quantity built for this robot and route with its builder: a quantity
    made of others (forward dynamics of M and h, its derivatives also of inverse dynamics'
    derivatives) replays their steps instead of deriving them again, and finds itself there
    when asked for a second time.
    """
    parts = {} if parts is None else parts
    if name in parts and steps is None:
        return parts[name][1]
    quantity = QUANTITIES[name]
    if quantity.builder is None:
        raise KeyError(f"{name} is made by Dynamics, of other quantities' programs")
    inputs = _inputs(robot, quantity.inputs)
    names = [output for output, _ in quantity.outputs]
    b = ProgramBuilder(reserved=set(names) | {str(s) for arg in inputs for s in arg.values})

    def part(other: str, values=None) -> list[list[sympy.Expr]]:
        """The outputs of quantity ``other``, its steps included in this program's."""
        if other not in parts:
            if progress:
                progress(f"deriving {other}, for {name}")
            build(other, robot, route, progress=progress, parts=parts)
        builder, program = parts[other]
        if program.solves:      # its outputs are the solves' operands (program.Solve)
            raise ValueError(f"{name} cannot include {other}, which solves its outputs")
        mapping = b.include(builder, values or {})
        return [[sympy.sympify(v).xreplace(mapping) for v in out.values]
                for out in program.outputs]

    outs = quantity.builder(Build(robot, route, b, part, steps, progress))
    program = b.program(name, inputs, [Argument(output, tuple(values), shape) for output, values,
                                       shape in zip(names, outs, quantity.dims(robot))])
    b.end()
    if robot.coupling:      # the mimic joints' variables, in the coordinates the inputs hold
        program = substitute(program, robot.coupling)
    if steps is None:
        parts[name] = b, program
    return program


def _inverse_dynamics_derivatives(robot: Robot, route: Route, b: ProgramBuilder, qd, qdd):
    """dtau/dq and dtau/dqd: the route's rigid-body ones, the joint springs' stiffness and the
    viscous friction's; the rotors' G^2 Jm qdd depends on neither, and Coulomb friction's
    derivative is zero where it exists."""
    dq, dqd = route.inverse_dynamics_derivatives(b, qd, qdd, robot.gravity)
    return (congruent(robot, dq + sympy.diag(*robot.per_velocity(
                link.spring[0] if link.spring else 0 for link in robot.links))),
            congruent(robot, dqd + sympy.diag(*robot.per_velocity(link.viscous
                                                                  for link in robot.links))))


def _forward_dynamics_derivatives(robot: Robot, part, b: ProgramBuilder, qd, tau):
    """dqdd/dq = -M^-1 dtau/dq and dqdd/dqd = -M^-1 dtau/dqd, the derivatives of inverse
    dynamics (taken in their own program, qdd held fixed) evaluated at the accelerations
    qdd = FD(q, qd, tau); M^-1 from the same factors (inverse). A chain's M is dense, and so are
    its factors: products by M^-1, n multiplications an entry, cost what 2n solves would, and
    each entry is one short sum instead of a chain of substitutions. A tree's factors keep M's
    zeros: a solve per column then costs 2 nnz(L) + n where a product costs n^2 (TALOS on a
    floating base, n = 38: 640 against 1444, and live values a column's, not all of M^-1 and
    dtau at once). Either way the outputs solve their columns after the steps (solve_columns),
    in loops where the language has them; a chain's kernel is the product by M^-1, whose
    entries are its factors (a 64-joint chain's 2 n^3 products, held as expressions, took 520
    MB to derive). ``part`` gives another quantity's outputs (build)."""
    n = robot.dof
    factors, qdd = _forward_dynamics(robot, part, b, tau)
    inverse = factors.inverse(b)
    products = factors.solve_cost >= n * n
    rhs = {}
    for wrt, d in zip(("q", "qd"), _inverse_dynamics_derivatives_at(robot, part, qdd)):
        # named, so that each product or solve reads symbols alone
        rhs[f"dqdd_d{wrt}"] = [-define(b, f"dtau_d{wrt}{k // n + 1}_{k % n + 1}", v)
                               for k, v in enumerate(d)]

    def solve(kb, f, column, suffix):
        # a column of each: two solves side by side, which the machine overlaps
        out = []
        for wrt, half in zip(("q", "qd"), (column[:n], column[n:])):
            if products:
                # each product pairs an entry of M^-1 with one of dtau: none recurs
                out += [define(kb, f"dqdd_d{wrt}{i + 1}{suffix}", symengine.Add(*(
                    f[i][k] * half[k] for k in range(n))), irreducible=True) for i in range(n)]
            else:
                out += f.solve(kb, half, f"dqdd_d{wrt}{{}}{suffix}", f"z{wrt}{{}}{suffix}")
        return out
    outs = solve_columns(b, rhs, n, inverse if products else factors, solve, "solve")
    outs.append([to_sympy(inverse[i][j]) for i in range(n) for j in range(n)])
    return outs


def _inverse_dynamics_derivatives_at(robot: Robot, part, qdd) -> list[list]:
    """(dtau/dq, dtau/dqd) of inverse dynamics at the accelerations ``qdd`` (coordinates'):
    its program with the links' accelerations (a floating base's six, then G qdd) put in."""
    shift = robot.base_velocities
    links = robot.coupling_matrix * sympy.Matrix(qdd[shift:])
    return part("inverse_dynamics_derivatives", dict(zip(
        robot.slots(robot.link_qdd, "acceleration"), [*qdd[:shift], *links])))


def _square(values: list) -> sympy.Matrix:
    """An n x n matrix from its n^2 entries, row-major."""
    n = math.isqrt(len(values))
    return sympy.Matrix(n, n, values)


def _forward_dynamics(robot: Robot, part, b: ProgramBuilder, tau) -> tuple[LDLT | LTDL, list]:
    """M's factors and qdd = M^-1 (tau - h - friction), of the included programs of M and h.
    Featherstone's L^T D L: a tree's M has zeros where neither link supports the other, which
    it keeps (LDL^T would fill them in); and on a chain too, its pivots come from the tip in,
    in the order the composite bodies give M's entries, so that the factorization's chain of
    divisions starts while the rest of M is computed, not after M_11, the last entry made
    (LDL^T's first pivot). LDL^T where mimic joints across branches fill M in."""
    factors = factor(robot, b, _square(part("mass_matrix")[0]))
    h = part("nonlinear_effects")[0]
    residual = [b.define(f"r{i + 1}", tau[i] - h[i] - f)
                for i, f in enumerate(forces(robot, passive(robot)))]
    return factors, factors.solve(b, residual)


def friction(robot: Robot) -> list[sympy.Expr]:
    """Viscous and Coulomb friction at each joint (model.joint_friction), none at rest (a
    Robot.slots list: none on a floating base, nor at an elastic joint, whose friction is its
    motor's)."""
    out = []
    for link in robot.links:
        if link.nv != 1:    # a joint of several axes: no rotor, no friction (robot file)
            out += [sympy.Integer(0)] * link.nv
            continue
        out.append(joint_friction(link.viscous, link.coulomb, link.qd))
    return robot.slots(out)


def springs(robot: Robot) -> list[sympy.Expr]:
    """The joint springs' torques K (q - q_ref) at each joint (a Robot.slots list, as
    friction's): what the actuators must add to hold the joint against its spring."""
    out = []
    for link in robot.links:
        if link.spring:
            stiffness, reference = link.spring
            out.append(stiffness * (link.q - reference))
        else:
            out += [sympy.Integer(0)] * link.nv
    return robot.slots(out)


def passive(robot: Robot) -> list[sympy.Expr]:
    """What a joint's actuator adds to the rigid body's torques besides its rotor: friction
    and the joint springs (inverse dynamics' terms, forward dynamics' subtrahends)."""
    return [f + k for f, k in zip(friction(robot), springs(robot))]


def with_armature(robot: Robot, M: sympy.Matrix) -> sympy.Matrix:
    return M + sympy.diag(*robot.per_velocity(link.armature for link in robot.links))


def forces(robot: Robot, tau):
    """G^T tau: the generalized forces on the coordinates of the links' joint forces ``tau``
    (a Robot.slots list, or a matrix with a row per entry of one), the virtual work of each
    coordinate's motion (robot.coupling_matrix); a floating base's wrench is its velocities'
    own. ``tau`` itself without mimic joints."""
    if not robot.coupling:
        return tau
    moved, shift = robot.coordinate_links, robot.base_velocities
    if isinstance(tau, list):
        return tau[:shift] + [sympy.Add(*(m * tau[shift + j] for j, m in links))
                              for links in moved]
    return sympy.Matrix([[tau[r, c] for c in range(tau.cols)] for r in range(shift)]
                        + [[sympy.Add(*(m * tau[shift + j, c] for j, m in links))
                            for c in range(tau.cols)] for links in moved])


def congruent(robot: Robot, A: sympy.Matrix) -> sympy.Matrix:
    """G^T A G: a links x links matrix (M, C, a derivative of the joint forces by the joint
    variables) in the coordinates."""
    if not robot.coupling:
        return A
    return forces(robot, forces(robot, A).T).T


# Baumgarte's gains [Kp, Kd] and an impact's restitution, inputs of their quantities.
GAINS = sympy.symbols("baumgarte_kp baumgarte_kd")
RESTITUTION = (sympy.Symbol("r_restitution"),)


def _tau_symbols(robot: Robot):
    return sympy.symbols(f"tau1:{robot.dof + 1}") if robot.dof > 1 else (sympy.Symbol("tau1"),)


def _f_ext_symbols():
    return sympy.symbols("f_ext1:7")


def inputs(robot: Robot, name: str) -> list[Argument]:
    """The inputs of quantity ``name`` for ``robot``, free parameters last."""
    return _inputs(robot, QUANTITIES[name].inputs)


def _configurations(robot: Robot) -> tuple[tuple, tuple]:
    """Symbols of two configurations, difference's q0 and q1."""
    return tuple(tuple(sympy.Symbol(f"{s.name}_{end}") for s in robot.q) for end in "ab")


def _inputs(robot: Robot, names) -> list[Argument]:
    start, end = _configurations(robot)
    values = {"q": robot.q, "qd": robot.qd, "qdd": robot.qdd, "tau": _tau_symbols(robot),
              "f_ext": _f_ext_symbols(), "q0": start, "q1": end, "gains": GAINS,
              "restitution": RESTITUTION, "lambda_c": constraints.multiplier_symbols(
                  sum(c.size for c in robot.constraints)),
              "theta": tuple(link.elastic.theta for link in robot.elastic),
              "thetad": tuple(link.elastic.thetad for link in robot.elastic),
              "qddd": elastic.jerk_symbols(robot, 3), "qdddd": elastic.jerk_symbols(robot, 4)}
    inputs = [Argument.vector(name, values[name]) for name in names]
    if robot.parameters:
        inputs.append(Argument.vector("params", robot.parameters))
    return inputs
