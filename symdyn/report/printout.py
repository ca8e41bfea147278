"""Textbook printouts of a derivation: the recorded steps, in the books' notation.

A printout only reads a Dynamics' record and programs; it derives nothing again. Each value is
shown in closed form while that stays small (the definitions of the named intermediates are
substituted up to ``Notation.limit`` operations) and otherwise in terms of the named
intermediates, which the printout then lists, so a 7-joint arm prints in seconds.
"""
from __future__ import annotations

import dataclasses

import sympy

from ..derive.dynamics import Dynamics
from ..robot import table
from ..robot.dh import link_transform, rot_z, trans_z
from ..robot.table import Table
from . import model
from .layout import Page
from .model import Block, Equation, Lhs
from .notation import LIMIT, Notation
from .render import render


class Printout(model.Printout):
    """A derivation, step by step, that writes itself: ``render(fmt)`` as text, markdown,
    latex or html, markdown in a notebook, text as a string."""

    def render(self, fmt: str = "text", picture: str | None = None) -> str:
        return render(self, fmt, picture)

    def _repr_markdown_(self):
        return self.render("markdown")

    def __str__(self):
        return self.render("text")


class Expander:
    """Closed forms of a program's named steps, while they stay below ``limit`` operations."""

    def __init__(self, program, limit: int):
        self.closed: dict[sympy.Symbol, sympy.Expr] = {}
        self.named: list = []          # steps kept as names, with their definitions
        for a in program.assignments:
            value = a.rhs.xreplace(self.closed)
            if sympy.count_ops(value) <= limit:
                self.closed[a.lhs] = value
            else:
                self.named.append((a.lhs, value))

    @classmethod
    def of(cls, *programs, limit: int) -> "Expander":
        """One expander for several programs of a derivation (a name means the same in all)."""
        steps = {a.lhs: a for p in programs for a in p.assignments}
        return cls(programs[0].with_body(steps.values()), limit)

    def __call__(self, expr):
        return sympy.sympify(expr).xreplace(self.closed)


def printout(dynamics: Dynamics) -> Printout:
    """The derivation of ``dynamics`` by its route, as a Printout."""
    robot = dynamics.robot
    notation = Notation(robot)
    expand = Expander(dynamics.record.program, notation.limit)

    def show(value):
        return notation.readable(expand(value))

    route = {"newton-euler": _newton_euler, "lagrange": _lagrange}[dynamics.method]
    title, intro, steps = route(dynamics, show)
    kinematics = Expander.of(dynamics.program("link_poses"), dynamics.program("jacobian"),
                             limit=notation.limit)
    constrained = (Expander.of(*(dynamics.program(q) for q in CONSTRAINED), limit=notation.limit)
                   if robot.constraints else None)
    joint_frames = [_joint_frames(robot, notation)] if robot.spec.convention == "standard" \
        else []
    blocks = (_transforms(robot, notation), *_kinematics(dynamics, notation, kinematics),
              *joint_frames, *steps,
              *_closed_form(dynamics, notation), _base_parameters(dynamics, notation),
              *(_constraints(dynamics, notation, constrained) if constrained else ()),
              *([_elastic(robot, notation)] if robot.elastic else []),
              *_named(expand, notation),
              *_named(kinematics, notation, "of the kinematics"),
              *(_named(constrained, notation, "of the constraints") if constrained else ()))
    return Printout(title, intro, _robot_tables(robot), _fitted(blocks, notation), notation)


# -- the robot ------------------------------------------------------------------------------------
def _robot_tables(robot) -> tuple[Table, ...]:
    """The robot file's tables (robot/table.py), the joint variables in the DH table."""
    spec = robot.spec
    tables = (table.geometry(spec, [robot.coupling.get(link.q, link.q) for link in robot.links]),
              table.inertial(spec), table.placements(spec), table.constraints(spec))
    return tuple(t for t in tables if t is not None)


def _transforms(robot, notation) -> Block:
    spec = robot.spec
    equations = []
    for i, (row, link) in enumerate(zip(spec.links, robot.links), start=1):
        if spec.convention == "urdf":      # link to link, through the joint frames
            joint = sympy.eye(4)
            joint[:3, :3], joint[:3, 3] = link.rotation, link.position
            parent_frame = (sympy.Matrix(robot.links[link.parent - 1].file_frame)
                            if link.parent else sympy.eye(4))
            T = (parent_frame.inv() * joint * link.file_frame).applyfunc(sympy.simplify)
        else:
            theta = row.theta + (link.q if link.revolute else 0)
            d = row.d + (0 if link.revolute else link.q)
            T = link_transform(spec.convention, a=row.a, alpha=row.alpha, d=d, theta=theta)
            if row.gamma != 0 or row.b != 0:        # Khalil and Kleinfinger's, first
                T = rot_z(row.gamma) * trans_z(row.b) * T
        equations.append(Equation(Lhs("T", "T", pre=str(link.parent), pre_sub=str(i)),
                                  notation.readable(T)))
    note = ("The file's frames: {i} on joint i + 1's axis, as the standard convention places "
            "it."
            if spec.convention == "standard" else "")
    return Block("Link transforms", (), note, tuple(equations))


def _kinematics(dynamics: Dynamics, notation: Notation, expand: Expander) -> list[Block]:
    """The tool's pose and the Jacobian's columns, read off the programs the code is made of."""
    robot = dynamics.robot
    n, standard = robot.dof, robot.spec.convention == "standard"
    world = "w" if robot.spec.base is not None else "0"

    def show(values, rows, cols):
        return notation.readable(sympy.Matrix(rows, cols, [expand(v) for v in values]))

    tool = dynamics.program("forward_kinematics").outputs[0].values
    k = robot.tool_link
    if robot.parents == tuple(range(len(robot.links))):
        general = [(r"{}^{0}T_{n} = {}^{0}T_{1}\,{}^{1}T_{2} \cdots {}^{n-1}T_{n},\quad "
                    r"{}^{0}T_{tool} = {}^{0}T_{n}\,{}^{n}T_{tool}",
                    "0T_n = 0T_1 1T_2 ... (n-1)T_n, 0T_tool = 0T_n nT_tool")]
    else:                   # a tree: each link from its parent p(i), out from the base
        general = [(r"{}^{0}T_{i} = {}^{0}T_{p(i)}\,{}^{p(i)}T_{i},\quad "
                    rf"{{}}^{{0}}T_{{tool}} = {{}}^{{0}}T_{{{k}}}\,{{}}^{{{k}}}T_{{tool}}",
                    f"0T_i = 0T_p(i) p(i)T_i (p(i): link i's parent), 0T_tool = 0T_{k} "
                    f"{k}T_tool")]
    if world == "w":
        general.append((r"{}^{w}T_{i} = {}^{w}T_{0}\,{}^{0}T_{i}",
                        "wT_i = wT_0 0T_i: the base placed in the world"))
    # the tool's link's pose (none for a tool on the base), then the tool's
    link = (Equation(Lhs("T", "T", pre=world, pre_sub=str(k)),
                     show(dynamics.program("link_poses").outputs[0].values[16 * (k - 1):16 * k],
                          4, 4)),) if k else ()
    pose = Block("Forward kinematics", tuple(general), "", link + (
        Equation(Lhs("T", "T", pre=world, pre_sub="tool"), show(tool, 4, 4)),))
    j, p = ("i-1", "i-1") if standard else ("i", "i")
    axis = ("z_{i-1}, p_{i-1}: axis and origin of frame {i-1}" if standard
            else "z_i, p_i: axis and origin of frame {i}")
    J = dynamics.program("jacobian").outputs[0].values
    columns = tuple(Equation(Lhs("J", "J", str(i + 1)), show(J[i::n], 6, 1)) for i in range(n))
    jacobian = Block("Jacobian of the tool frame (world axes)", (
        (rf"J_i = \begin{{bmatrix}} z_{{{j}}} \times (p_{{tool}} - p_{{{p}}}) \\ z_{{{j}}}"
         rf"\end{{bmatrix}} \text{{ (revolute)}},\quad J_i = \begin{{bmatrix}} z_{{{j}}} \\ 0"
         rf"\end{{bmatrix}} \text{{ (prismatic)}}",
         f"J_i = [z({j}) x (p_tool - p({p})); z({j})] (revolute), [z({j}); 0] (prismatic); "
         f"{axis}"),), "Column i is joint i's: the tool's linear and angular velocity per unit "
        "joint velocity, in world axes." + (
            " The first six are the floating base's, for its velocity [v; w] in its own axes: "
            "[R_0; 0] and [-S(p_tool - p_0) R_0; R_0]." if dynamics.robot.floating else ""),
        columns)
    return [pose, jacobian]


# -- Newton-Euler ---------------------------------------------------------------------------------
OUTWARD = (
    (r"{}^{i+1}\omega_{i+1} = {}^{i+1}_{i}R\,{}^{i}\omega_{i} + \dot\theta_{i+1}\,{}^{i+1}\hat Z_{i+1}",
     "w(i+1) = R(i+1,i) w(i) + thd(i+1) Z"),
    (r"{}^{i+1}\dot\omega_{i+1} = {}^{i+1}_{i}R\,{}^{i}\dot\omega_{i} + {}^{i+1}_{i}R\,{}^{i}\omega_{i}"
     r" \times \dot\theta_{i+1}\,{}^{i+1}\hat Z_{i+1} + \ddot\theta_{i+1}\,{}^{i+1}\hat Z_{i+1}",
     "dw(i+1) = R(i+1,i) dw(i) + R(i+1,i) w(i) x thd(i+1) Z + thdd(i+1) Z"),
    (r"{}^{i+1}\dot v_{i+1} = {}^{i+1}_{i}R\,({}^{i}\dot\omega_{i} \times {}^{i}P_{i+1} + {}^{i}\omega_{i}"
     r" \times ({}^{i}\omega_{i} \times {}^{i}P_{i+1}) + {}^{i}\dot v_{i})",
     "dv(i+1) = R(i+1,i) (dw(i) x P(i+1) + w(i) x (w(i) x P(i+1)) + dv(i))"),
    (r"{}^{i+1}\dot v_{C_{i+1}} = {}^{i+1}\dot\omega_{i+1} \times {}^{i+1}P_{C_{i+1}} + {}^{i+1}\omega_{i+1}"
     r" \times ({}^{i+1}\omega_{i+1} \times {}^{i+1}P_{C_{i+1}}) + {}^{i+1}\dot v_{i+1}",
     "dvc(i+1) = dw(i+1) x Pc(i+1) + w(i+1) x (w(i+1) x Pc(i+1)) + dv(i+1)"),
    (r"{}^{i+1}F_{i+1} = m_{i+1}\,{}^{i+1}\dot v_{C_{i+1}}", "F(i+1) = m(i+1) dvc(i+1)"),
    (r"{}^{i+1}N_{i+1} = {}^{C_{i+1}}I_{i+1}\,{}^{i+1}\dot\omega_{i+1} + {}^{i+1}\omega_{i+1} \times "
     r"{}^{C_{i+1}}I_{i+1}\,{}^{i+1}\omega_{i+1}", "N(i+1) = Ic(i+1) dw(i+1) + w(i+1) x Ic(i+1) w(i+1)"),
)
PRISMATIC = (   # the same recursion where joint i+1 slides along its axis instead of turning
    (r"\text{prismatic: } {}^{i+1}\omega_{i+1} = {}^{i+1}_{i}R\,{}^{i}\omega_{i}",
     "prismatic: w(i+1) = R(i+1,i) w(i)"),
    (r"{}^{i+1}\dot\omega_{i+1} = {}^{i+1}_{i}R\,{}^{i}\dot\omega_{i}",
     "prismatic: dw(i+1) = R(i+1,i) dw(i)"),
    (r"{}^{i+1}\dot v_{i+1} = {}^{i+1}_{i}R\,({}^{i}\dot\omega_{i} \times {}^{i}P_{i+1} + "
     r"{}^{i}\omega_{i} \times ({}^{i}\omega_{i} \times {}^{i}P_{i+1}) + {}^{i}\dot v_{i}) + "
     r"2\,{}^{i+1}\omega_{i+1} \times \dot d_{i+1}\,{}^{i+1}\hat Z_{i+1} + "
     r"\ddot d_{i+1}\,{}^{i+1}\hat Z_{i+1}",
     "prismatic: dv(i+1) = R(i+1,i) (dw(i) x P(i+1) + w(i) x (w(i) x P(i+1)) + dv(i)) "
     "+ 2 w(i+1) x dd(i+1) Z + ddd(i+1) Z"),
)
INWARD = (
    (r"{}^{i}f_{i} = {}^{i}_{i+1}R\,{}^{i+1}f_{i+1} + {}^{i}F_{i}", "f(i) = R(i,i+1) f(i+1) + F(i)"),
    (r"{}^{i}n_{i} = {}^{i}N_{i} + {}^{i}_{i+1}R\,{}^{i+1}n_{i+1} + {}^{i}P_{C_{i}} \times {}^{i}F_{i}"
     r" + {}^{i}P_{i+1} \times {}^{i}_{i+1}R\,{}^{i+1}f_{i+1}",
     "n(i) = N(i) + R(i,i+1) n(i+1) + Pc(i) x F(i) + P(i+1) x R(i,i+1) f(i+1)"),
    (r"\tau_{i} = {}^{i}n_{i}^{T}\,{}^{i}\hat Z_{i} \;\text{(revolute)},\quad \tau_{i} = "
     r"{}^{i}f_{i}^{T}\,{}^{i}\hat Z_{i} \;\text{(prismatic)}",
     "tau(i) = n(i) . Z (revolute), f(i) . Z (prismatic)"),
)

ROTOR = (       # a joint's motor, through its gear: its rotor's inertia on the joint's axis
    (r"\tau_{i} \mathrel{+}= G_i^2 J_{m,i}\,\ddot\theta_{i}\;\text{(the rotor of gear ratio }"
     r"G_i\text{ and inertia } J_{m,i}\text{; friction comes on top)}",
     "tau(i) += G(i)^2 Jm(i) thdd(i) (the rotor of gear ratio G(i), inertia Jm(i); friction "
     "comes on top)"),
)

FLOATING = (     # a floating base: body 0 of the recursion, moving with its own velocity
    (r"{}^{0}\omega_{0} = \omega_b,\quad {}^{0}\dot\omega_{0} = \dot\omega_b,\quad "
     r"{}^{0}\dot v_{0} = a_b + \omega_b \times v_b - {}^{0}_{w}R\,g",
     "w(0) = w_b, dw(0) = dw_b, dv(0) = a_b + w_b x v_b - R(0,w) g"),
)
BASE_WRENCH = (  # and its Newton-Euler equations close the inward recursion
    (r"\begin{bmatrix} f_b \\ n_b \end{bmatrix} = \begin{bmatrix} {}^{0}f_{0} \\ {}^{0}n_{0} "
     r"\end{bmatrix},\quad {}^{0}f_{0} = {}^{0}F_{0} + \sum_{c} {}^{0}_{c}R\,{}^{c}f_{c},\quad "
     r"{}^{0}n_{0} = {}^{0}N_{0} + {}^{0}P_{C_0} \times {}^{0}F_{0} + \sum_{c} \left({}^{0}_{c}R\,"
     r"{}^{c}n_{c} + {}^{0}P_{c} \times {}^{0}_{c}R\,{}^{c}f_{c}\right)",
     "[f_b; n_b] = [f(0); n(0)], f(0) = F(0) + sum_c R(0,c) f(c), n(0) = N(0) + Pc(0) x F(0) "
     "+ sum_c (R(0,c) n(c) + P(c) x R(0,c) f(c))"),
)


def _newton_euler(dynamics: Dynamics, show):
    robot = dynamics.robot
    record = dynamics.record
    frame = _joint_frame(robot)
    blocks = []
    if robot.floating:
        motion = [sympy.Matrix(record.value(k, 0)) for k in ("omega", "domega", "dv")]
        blocks.append(Block(
            "Floating base: its motion starts the outward recursion", FLOATING,
            "The base's velocity [v_b; w_b] and acceleration [a_b; dw_b] are in its own axes "
            "(the first six of qd and qdd); its origin's acceleration carries gravity, R(0,w) g "
            "being the gravity in the base's axes.", tuple(
                Equation(Lhs(plain, latex, "0", "0", **accent), show(value))
                for (plain, latex, accent), value in zip(
                    (("ω", r"\omega", {}), ("ω", r"\omega", {"accent": "dot"}),
                     ("v", "v", {"accent": "dot"})), motion))))
    first_prismatic = next((link for link in robot.links if not link.revolute), None)
    for link in robot.links:
        i = link.index
        omega, domega, dv = (sympy.Matrix(record.value(k, i)) for k in ("omega", "domega", "dv"))
        F, N_origin = sympy.Matrix(record.value("F", i)), sympy.Matrix(record.value("N", i))
        inertia = link.inertia
        # Craig's centre-of-mass quantities, read off the origin form of the recursion
        r_c = (inertia.first_moment / inertia.mass if inertia.mass != 0
               else sympy.zeros(3, 1))
        dv_c = domega.cross(r_c) + omega.cross(omega.cross(r_c)) + dv
        N_c = N_origin - sympy.Matrix(r_c).cross(F)
        # The general equations where they are first used: the revolute ones at link 1, the
        # prismatic forms at the first prismatic link.
        general = (OUTWARD if i == 1 else ()) + (PRISMATIC if link is first_prismatic else ())
        blocks.append(Block(f"Outward recursion, link {i}", general, "", (
            Equation(Lhs("ω", r"\omega", str(i), frame(i)), show(omega)),
            Equation(Lhs("ω", r"\omega", str(i), frame(i), accent="dot"), show(domega)),
            Equation(Lhs("v", "v", str(i), frame(i), accent="dot"), show(dv)),
            Equation(Lhs("v", "v", f"C{i}", frame(i), accent="dot"), show(dv_c)),
            Equation(Lhs("F", "F", str(i), frame(i)), show(F)),
            Equation(Lhs("N", "N", str(i), frame(i)), show(N_c)),
        )))
    n = len(robot.links)
    rotors = any(link.armature != 0 for link in robot.links)
    for link in reversed(robot.links):
        i = link.index
        f, nn = sympy.Matrix(record.value("f", i)), sympy.Matrix(record.value("n", i))
        # a spherical joint's three torques, a one-axis joint's one with its rotor's
        tau = record.value("tau", i)
        tau = (sympy.Matrix(tau) if len(tau) > 1
               else tau[0] + link.armature * link.accelerations[0])
        blocks.append(Block(f"Inward recursion, link {i}",
                            (INWARD + ROTOR * rotors) if i == n else (), "", (
            Equation(Lhs("f", "f", str(i), frame(i)), show(f)),
            Equation(Lhs("n", "n", str(i), frame(i)), show(nn)),
            Equation(Lhs("τ", r"\tau", str(i)), show(tau)),
        )))
    if robot.floating:
        f, nn = sympy.Matrix(record.value("f", 0)), sympy.Matrix(record.value("n", 0))
        blocks.append(Block(
            "Floating base: its Newton-Euler equations close the inward recursion", BASE_WRENCH,
            "The wrench the base needs, force f_b and moment n_b about its origin in its own "
            "axes, are the first six entries of tau: the Newton-Euler equations of one rigid "
            "body (Kurfess (ed.), Robotics and Automation Handbook, Ch. 4) for the base with "
            "the forces its children take from it (Featherstone, Rigid Body Dynamics "
            "Algorithms, Ch. 9). Nothing actuates the base: tau's first six are zero for a "
            "motion it can make on its own.", (
                Equation(Lhs("f", "f", "0", "0"), show(f)),
                Equation(Lhs("n", "n", "0", "0"), show(nn)))))
    intro = (f"Recursive Newton-Euler derivation for {robot.name} ({table.joints(robot.spec)}), "
             "in Craig's "
             "notation: the outward recursion gives each link's velocities and accelerations, "
             "the inward one the forces and torques at each joint (J. J. Craig, Introduction to "
             "Robotics: Mechanics and Control, 3rd ed., Section 6.5, Eqs. (6.45)-(6.53)). "
             "Gravity enters as the base acceleration dv0 = -g.",)
    return f"{robot.name}: Newton-Euler", intro, blocks


def _joint_frame(robot):
    """The name of the frame the recursion runs in for link i: the file's {i}, but for a
    standard table Craig's joint frame {i'} (z along joint i), which is not the file's {i}
    (z along joint i + 1)."""
    return (lambda i: f"{i}'") if robot.spec.convention == "standard" else str


def _joint_frames(robot, notation: Notation) -> Block:
    """A standard table's links in the recursion's joint frames {i'}: each frame's placement
    in its parent's, the file's frame {i} in it, and the link's centre of mass and inertia
    there, the quantities the recursion uses."""
    equations = []
    for link in robot.links:
        i, parent = link.index, link.parent
        T = sympy.eye(4)
        T[:3, :3], T[:3, 3] = link.rotation, link.position
        com, inertia_com = link.inertia.com(), sympy.Matrix(link.inertia.inertia_com())
        equations += [
            Equation(Lhs("T", "T", pre=f"{parent}'" if parent else "0", pre_sub=f"{i}'"),
                     notation.readable(T)),
            Equation(Lhs("T", "T", pre=f"{i}'", pre_sub=str(i)),
                     notation.readable(sympy.Matrix(link.file_frame))),
            Equation(Lhs("P", "P", f"C{i}", f"{i}'"), notation.readable(sympy.Matrix(com))),
            Equation(Lhs("I", "I", str(i), f"C{i}"),
                     notation.readable(inertia_com.applyfunc(sympy.expand)))]
    return Block(
        "The recursion's frames", (), "A standard table's frame {i} sits on joint i + 1's axis "
        "(its z), and the recursion runs in Craig's joint frames instead: {i'}, z along joint "
        "i's axis, placed in its parent's by the first transform below (the base frame {0} is "
        "both). The table is rewritten into them exactly: the second transform places the "
        "file's {i} in {i'} (Tx(a_i) Rx(alpha_i)), and each link's centre of mass and its "
        "inertia about it (axes of {i'}) move with it. Every quantity below that names a "
        "link's frame is in these: ^{i'}omega_i is link i's angular velocity in {i'}, p_i the "
        "origin of {i'}.",
        tuple(equations))


def _closed_form(dynamics: Dynamics, notation: Notation) -> list[Block]:
    """tau_i read as inertial + Coriolis and centrifugal + gravity terms (handbook section 4)."""
    robot = dynamics.robot
    if dynamics.unavailable("coriolis_matrix"):
        return [Block("Closed form", (), "Omitted: C(q, qd) of this robot: "
                      f"{dynamics.unavailable('coriolis_matrix')}.", ())]
    programs = [dynamics.program(q) for q in ("mass_matrix", "coriolis_matrix", "gravity_torques")]
    if any(_too_large(p) for p in programs):
        return [Block("Closed form", (), "Omitted: fully expanded, M(q), C(q, qd) and g(q) of this "
                      "robot exceed the size a printout can show; the generated code holds them.",
                      ())]
    M, C, g = (p.expanded() for p in programs)
    qd, qdd = list(robot.qd), list(robot.qdd)
    equations = []
    for k in range(robot.dof):
        parts = [_collected(part, variables, notation)
                 for part, variables in (((M * sympy.Matrix(qdd))[k], qdd),
                                         ((C * sympy.Matrix(qd))[k], qd), (g[k], []))]
        equations.append(Equation(Lhs("τ", r"\tau", str(k + 1)), sympy.Matrix([parts]).T,
                                  ("inertial", "Coriolis", "gravity")))
    general = ((r"\tau = \underbrace{M(q)\,\ddot q}_{\text{inertial}} + "
                r"\underbrace{C(q,\dot q)\,\dot q}_{\text{Coriolis, centrifugal}} + "
                r"\underbrace{g(q)}_{\text{gravity}} \;(+\text{ friction})",
                "tau = M(q) qdd [inertial] + C(q, qd) qd [Coriolis and centrifugal] + g(q) "
                "[gravity] (+ friction)"),)
    return [Block("Closed form: inertial, Coriolis and centrifugal, and gravity terms", general,
                  "Each tau_k below is the column [inertial; Coriolis and centrifugal; gravity].",
                  tuple(equations))]


def _collected(expr, variables, notation: Notation):
    """expr as the books write it: a sum over the products of ``variables`` (d_kj qdd_j; the
    Coriolis and centrifugal b_kij qd_i qd_j), each coefficient simplified on its own."""
    expr = sympy.expand(expr)
    if not variables:
        return notation.shorthand(notation.coefficient(expr))
    terms = sympy.Poly(expr, *variables).as_dict(native=False)
    return notation.shorthand(sympy.Add(*(
        notation.coefficient(coefficient) * sympy.Mul(*(v ** e for v, e in zip(variables, powers)))
        for powers, coefficient in sorted(terms.items(), reverse=True))))


def _base_parameters(dynamics: Dynamics, notation: Notation) -> Block:
    """beta = B pi, as symdyn base-parameters prints it (derive/base_parameters.py)."""
    general = ((r"\tau = Y(q, \dot q, \ddot q)\,\pi = Y_b(q, \dot q, \ddot q)\,\beta, \quad "
                r"\beta = B\,\pi",
                "tau = Y(q, qd, qdd) pi = Y_b(q, qd, qdd) beta, beta = B pi"),)
    if dynamics.base_problem:
        return Block("Base parameters", general, f"Not found: {dynamics.base_problem}.", ())
    base = dynamics.base
    equations = []
    for name, combination in zip(base.names, base.combinations):
        stem = name.rstrip("0123456789")
        equations.append(Equation(Lhs(stem, rf"\mathrm{{{stem}}}", name[len(stem):]),
                                  notation.shorthand(combination)))
    appear = set().union(*(c.free_symbols for c in base.combinations))
    missing = [str(s) for s in base.standard if s not in appear]
    return Block(
        "Base parameters", general,
        "Per link, pi holds m, mx, my, mz (m times the centre of mass) and XX, XY, YY, XZ, "
        "YZ, ZZ (the inertia about the origin of joint frame {i}); R marks a regrouped "
        "parameter. Grouping rules of Khalil and Dombre (Modeling, Identification and Control "
        "of Robots, 2002, Ch. 12), then the QR decomposition of the regressor stacked over "
        "random states (Gautier, 1990) for what they leave"
        + (f"; no joint force depends on {', '.join(missing)}." if missing else "."),
        tuple(equations))


# -- constraints ----------------------------------------------------------------------------------
CONSTRAINED = ("constraint_residual", "constraint_jacobian", "constraint_drift")
HANDBOOK = ("the Handbook's chapter on systems of interacting rigid bodies: T. R. Kurfess (ed.), "
            "Robotics and Automation Handbook, 2005, Ch. 7")


def _constraints(dynamics: Dynamics, notation: Notation, expand: Expander) -> list[Block]:
    """The constraints' residual, Jacobian and drift, then the dynamics on the constraint
    manifold: the reaction forces as multipliers, and for a closed-loop mechanism eliminated
    by the map from the actuated joints' velocities to all (the Handbook's xi)."""
    robot = dynamics.robot
    m, n = sum(c.size for c in robot.constraints), robot.dof
    phi, G, gamma = (dynamics.program(q).outputs[0].values for q in CONSTRAINED)

    def show(values, rows, cols):
        return notation.readable(sympy.Matrix(rows, cols, [expand(v) for v in values]))

    kinematics = Block("Constraints", (
        (r"\phi(q) = \begin{bmatrix} p_a - p_b \\ (R_a R_b^T - R_b R_a^T)^\vee / 2 \end{bmatrix}"
         r"\;\text{(point: the first rows; weld: all)},\quad \phi(q) = \textstyle\sum_i c_i q_i"
         r" - c_0 \;\text{(coupling)}",
         "phi(q) = [p_a - p_b; vee(R_a R_b^T - R_b R_a^T) / 2] (point: the first rows; weld: "
         "all), phi(q) = sum c_i q_i - c_0 (coupling)"),
        (r"G(q) = J_a - J_b,\quad \dot\phi = G\,\dot q,\quad G\,\ddot q = \gamma = -\dot G\,"
         r"\dot q", "G(q) = J_a - J_b, dphi/dt = G qd, G qdd = gamma = -dG/dt qd")),
        "Each row of phi is held at 0, in the world's axes: frame a's origin (and axes) on "
        "frame b's, or on its anchor in the world for a contact. G is the frames' relative "
        "velocity per joint velocity, gamma minus their relative acceleration at qdd = 0.",
        (Equation(Lhs("φ", r"\phi"), show(phi, m, 1)), Equation(Lhs("G", "G"), show(G, m, n)),
         Equation(Lhs("γ", r"\gamma"), show(gamma, m, 1))))
    general = [(r"M(q)\,\ddot q + h(q, \dot q) = \tau + G^T \lambda,\quad G\,\ddot q = \gamma",
                "M(q) qdd + h(q, qd) = tau + G^T lambda, G qdd = gamma"),
               (r"\lambda = D^{-1}\left(\gamma - G M^{-1} (\tau - h)\right),\quad "
                r"D = G M^{-1} G^T",
                "lambda = D^-1 (gamma - G M^-1 (tau - h)), D = G M^-1 G^T (the Delassus "
                "matrix)")]
    note = ("The constraints' reaction forces are the multipliers lambda: the forces on frame "
            "a, in the world's axes. On the constraint manifold they drop out (" + HANDBOOK +
            "): along the velocities the constraints allow, qd = xi qd_a with G xi = 0, the "
            "reaction forces G^T lambda do no work, and xi^T times the equations of motion "
            "holds no lambda.")
    equations = ()
    if robot.actuated and not dynamics.mechanism_problem:
        general += [
            (r"\dot q = \xi\,\dot q_a,\quad \xi = \begin{bmatrix} I \\ -G_p^{-1} G_a "
             r"\end{bmatrix}\;\text{(rows: the actuated joints, then the passive ones)}",
             "qd = xi qd_a, xi = [I; -G_p^-1 G_a] (rows: the actuated joints, then the passive "
             "ones)"),
            (r"M_a \ddot q_a + h_a = \tau_a\;(+\text{ friction}),\quad M_a = \xi^T M \xi,"
             r"\quad h_a = \xi^T (M \dot\xi\,\dot q_a + h)",
             "M_a qdd_a + h_a = tau_a (+ friction), M_a = xi^T M xi, h_a = xi^T (M dxi/dt qd_a "
             "+ h)"),
            (r"G_p^T \lambda = \tau_p^{tree},\quad \tau_a = \tau_a^{tree} - G_a^T \lambda",
             "G_p^T lambda = tau_p(tree), tau_a = tau_a(tree) - G_a^T lambda")]
        note += (" This mechanism's actuated joints fix the passive ones: xi gives the passive "
                 "joints' velocities, and its inverse dynamics is the tree's with the passive "
                 "joints' forces made zero by lambda (W. Khalil and E. Dombre, Modeling, "
                 "Identification and Control of Robots, 2002, Ch. 10).")
        if len(robot.passive) == m <= 3:        # G_p^-1 in closed form stays small
            Gq = sympy.Matrix(m, n, [expand(v) for v in G])
            xi = -Gq[:, list(robot.passive)].inv() * Gq[:, list(robot.actuated)]
            xi = xi.applyfunc(sympy.simplify)
            equations = (Equation(Lhs("ξ", r"\xi", "p"), notation.readable(xi)),
                         *_reduced(dynamics, xi, notation))
    return [kinematics, Block("Dynamics on the constraint manifold", tuple(general), note,
                              equations)]


def _reduced(dynamics: Dynamics, xi_p, notation: Notation) -> tuple[Equation, ...]:
    """The reduced equation's M_a = xi^T M xi and h_a = xi^T (M dxi/dt qd_a + h), evaluated
    where M and h are small enough to print (a four-bar's, a five-bar's)."""
    robot = dynamics.robot
    programs = [dynamics.program(q) for q in ("mass_matrix", "nonlinear_effects")]
    if any(_too_large(p) for p in programs):
        return ()
    M, h = (p.expanded() for p in programs)
    actuated, passive = list(robot.actuated), list(robot.passive)
    xi = sympy.zeros(robot.dof, len(actuated))
    for k, j in enumerate(actuated):
        xi[j, k] = 1
    for k, j in enumerate(passive):
        xi[j, :] = xi_p[k, :]
    qd_a = sympy.Matrix([robot.qd[j] for j in actuated])
    qd = xi * qd_a                     # on the manifold, every joint's velocity from qd_a's
    xi_dot = sum((xi.diff(q) * v for q, v in zip(robot.q, qd)), sympy.zeros(*xi.shape))
    h_a = xi.T * (M * xi_dot * qd_a + h.xreplace(dict(zip(robot.qd, qd))))
    return (Equation(Lhs("M", "M", "a"), notation.readable(xi.T * M * xi)),
            Equation(Lhs("h", "h", "a"), notation.readable(h_a)))


def _elastic(robot, notation: Notation) -> Block:
    """The elastic joints' reduced model and the feedforward along a link motion (the note
    cites them), with the springs' stiffness K, damping D and the motors' inertias B."""
    springs = [link.elastic for link in robot.elastic]
    general = (
        (r"M(q)\,\ddot q + h(q, \dot q) = K (\theta - q) + D (\dot\theta - \dot q)",
         "M(q) qdd + h(q, qd) = K (theta - q) + D (thetad - qd)   (links)"),
        (r"B\,\ddot\theta + K (\theta - q) + D (\dot\theta - \dot q) + f(\dot\theta) = "
         r"\tau_m", "B thetadd + K (theta - q) + D (thetad - qd) + f(thetad) = tau_m   (motors)"),
        (r"\theta = q + K^{-1} \tau_s,\quad \tau_s = M(q)\,\ddot q + h(q, \dot q)\;"
         r"(D = 0)", "theta = q + K^-1 tau_s, tau_s = M(q) qdd + h(q, qd)   (D = 0)"),
        (r"\tau_m = B\,(\ddot q + K^{-1} \ddot\tau_s) + \tau_s + f(\dot q + K^{-1} "
         r"\dot\tau_s)", "tau_m = B (qdd + K^-1 d2tau_s/dt2) + tau_s + f(qd + K^-1 "
         "dtau_s/dt)"))
    note = ("Spong's reduced model of elastic joints (M. W. Spong, Modeling and control of "
            "elastic joint robots, ASME J. Dyn. Syst. Meas. Control 109(4), 1987): a spring "
            "between each motor, after its gear, and its link; theta is the motor's position "
            "in the joint's units, and the rotor's kinetic energy is its own spin's alone. "
            "Along a link motion q(t) the motors' motion follows (A. De Luca, 2000): tau_s is "
            "differentiated twice in time, so q is needed to its fourth derivative. The rows of "
            "the rigid joints keep their torques.")
    diagonal = [(Lhs("K", "K"), [e.stiffness for e in springs]),
                (Lhs("D", "D"), [e.damping for e in springs]),
                (Lhs("B", "B"), [e.armature for e in springs])]
    return Block("Elastic joints", general, note, tuple(
        Equation(lhs, notation.readable(sympy.diag(*values))) for lhs, values in diagonal))


def _too_large(program) -> bool:
    return sum(sympy.count_ops(a.rhs) for a in program.assignments) > 4 * LIMIT


def _fitted(blocks, notation: Notation) -> tuple[Block, ...]:
    """The blocks with each line fitting the page (layout.py), and the sums named for it."""
    values = [e.value for b in blocks for e in b.equations]
    taken = {str(s) for v in values if isinstance(v, sympy.Basic) for s in v.free_symbols}
    page = Page(notation, taken | {str(s) for s in notation.robot.parameters})
    blocks = tuple(dataclasses.replace(b, equations=tuple(
        dataclasses.replace(e, value=page.fit(e.value)) for e in b.equations)) for b in blocks)
    if not page.terms:
        return blocks
    return blocks + (Block("Named terms", (), "Sums too long for a line above, in terms of "
                           "these, each defined before it is used.", tuple(
                               Equation(Lhs(notation.text(s), notation.latex(s)), v)
                               for s, v in page.terms)),)


def _named(expand: Expander, notation: Notation, of: str = "") -> list[Block]:
    if not expand.named:
        return []
    return [Block(f"Named intermediates {of}".rstrip(), (), "Expressions above this size are "
                  "shown in terms of these named steps, in the order they are computed.",
                  tuple(Equation(Lhs(notation.text(s), notation.latex(s)),
                                 notation.readable(v)) for s, v in expand.named))]


# -- Lagrange -------------------------------------------------------------------------------------
def _lagrange(dynamics: Dynamics, show):
    robot = dynamics.robot
    record = dynamics.record
    blocks = []
    jacobians = []
    for link in robot.links:
        i = link.index
        jacobians += [Equation(Lhs("J", "J", f"v{i}"), show(record.value("Jv", i))),
                      Equation(Lhs("J", "J", f"ω{i}", sub_latex=rf"\omega_{{{i}}}"),
                               show(record.value("Jw", i)))]
    blocks.append(Block("Link Jacobians (frame origins, base frame)", (
        (r"J_{v_i} = [\,z_{j} \times (p_i - p_j)\,]_{j \le i},\quad J_{\omega_i} = [\,z_j\,]_{j\le i}"
         r"\;\text{(revolute; } z_j,\ 0 \text{ for a prismatic joint)}",
         "Jv(i) = [z(j) x (p(i) - p(j))], Jw(i) = [z(j)] for j <= i"),), "", tuple(jacobians)))
    M = sympy.Matrix(record.value("d", 0))
    n = len(robot.links)
    blocks.append(Block("Kinetic energy and the inertia matrix", (
        (r"K = \tfrac12 \dot q^T D(q)\,\dot q,\quad D(q) = \sum_i m_i J_{v_{C_i}}^T J_{v_{C_i}} + "
         r"J_{\omega_i}^T R_i I_i R_i^T J_{\omega_i}",
         "K = 1/2 qd^T D(q) qd, D = sum m Jv^T Jv + Jw^T R I R^T Jw"),), "",
        tuple(Equation(Lhs("d", "d", f"{k + 1}{j + 1}"), show(M[k, j]))
              for k in range(n) for j in range(k, n))))
    christoffel = [step for step in record.steps if step.quantity.startswith("c")]
    blocks.append(Block("Christoffel symbols (the non-zero ones)", (
        (r"c_{ijk} = \tfrac12\left(\frac{\partial d_{kj}}{\partial q_i} + \frac{\partial d_{ki}}"
         r"{\partial q_j} - \frac{\partial d_{ij}}{\partial q_k}\right)",
         "c_ijk = 1/2 (d d_kj/dq_i + d d_ki/dq_j - d d_ij/dq_k)"),), "",
        tuple(Equation(Lhs("c", "c", s.quantity[1:]), show(s.value[0]))
              for s in christoffel if show(s.value[0]) != 0)))
    V, g = record.value("V", 0)[0], sympy.Matrix(record.value("g", 0))
    blocks.append(Block("Potential energy and gravity", (
        (r"V = -\sum_i m_i\, g^T p_{C_i},\quad g_k = \frac{\partial V}{\partial q_k}",
         "V = -sum m g . pc, g_k = dV/dq_k"),), "",
        (Equation(Lhs("V", "V"), show(V)),) + tuple(
            Equation(Lhs("g", "g", str(k + 1)), show(g[k])) for k in range(n))))
    blocks.append(Block("Equations of motion", (
        (r"\sum_j d_{kj}\,\ddot q_j + \sum_{i,j} c_{ijk}\,\dot q_i \dot q_j + g_k = \tau_k",
         "sum_j d_kj qdd_j + sum_ij c_ijk qd_i qd_j + g_k = tau_k"),), "", ()))
    intro = (f"Euler-Lagrange derivation for {robot.name} ({n} joints), in Spong's notation "
             "(M. W. Spong, S. Hutchinson and M. Vidyasagar, Robot Modeling and Control, 2006, "
             "Chapter 7): the link Jacobians give the kinetic energy and the inertia matrix "
             "D(q) = [d_kj], its derivatives the Christoffel symbols c_ijk, the potential energy "
             "the gravity terms g_k.",)
    return f"{robot.name}: Euler-Lagrange", intro, blocks
