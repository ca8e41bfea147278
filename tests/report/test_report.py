"""Derivation printouts: the seeds' worked example step by step, and every format."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy
from click.testing import CliRunner
from support import ROBOTS, closed_states

import symdyn
from symdyn.cli import main
from symdyn.report import printout

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SYMDYN_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def planar():
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    return robot, printout(symdyn.newton_euler(robot))


@pytest.mark.parametrize("method, fmt", [("newton-euler", "text"), ("newton-euler", "markdown"),
                                         ("lagrange", "text")])
def test_planar_printout_matches_golden_file(method, fmt):
    """tests/report/golden holds the printouts; SYMDYN_UPDATE_GOLDEN=1 rewrites them."""
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    dynamics = symdyn.newton_euler(robot) if method == "newton-euler" else symdyn.lagrange(robot)
    text = printout(dynamics).render(fmt)
    golden = GOLDEN / f"planar2_{method}.{ {'text': 'txt', 'markdown': 'md'}[fmt] }"
    if UPDATE:
        golden.write_text(text, encoding="utf-8")
    assert golden.read_text(encoding="utf-8") == text, f"{golden} differs: review, then update"


def _values(printout_, title_prefix):
    """{left-hand side: value} of the printout's blocks whose titles start with the prefix."""
    from symdyn.report.render import _lhs_text
    return {_lhs_text(e.lhs): e.value for b in printout_.blocks
            if b.title.startswith(title_prefix) for e in b.equations}


def test_printed_intermediates_are_those_of_seed_001(planar):
    """Each printed step of the worked two-link example, against the lecture's formulas."""
    robot, p = planar
    m1, m2, l1, l2, g = robot.parameters
    (q1, q2), (d1, d2), (dd1, dd2) = robot.q, robot.qd, robot.qdd
    s1, c1, s2, c2 = sympy.sin(q1), sympy.cos(q1), sympy.sin(q2), sympy.cos(q2)
    s12, c12 = sympy.sin(q1 + q2), sympy.cos(q1 + q2)
    dv2 = sympy.Matrix([l1 * dd1 * s2 - l1 * d1**2 * c2 + g * s12,
                        l1 * dd1 * c2 + l1 * d1**2 * s2 + g * c12, 0])
    dvc2 = dv2 + sympy.Matrix([-l2 * (d1 + d2)**2, l2 * (dd1 + dd2), 0])
    F2 = m2 * dvc2
    n2_z = (m2 * l1 * l2 * c2 * dd1 + m2 * l1 * l2 * s2 * d1**2 + m2 * l2 * g * c12
            + m2 * l2**2 * (dd1 + dd2))
    expected = {
        "¹ω₁": sympy.Matrix([0, 0, d1]), "¹ω̇₁": sympy.Matrix([0, 0, dd1]),
        "¹v̇₁": sympy.Matrix([g * s1, g * c1, 0]),
        "¹v̇C₁": sympy.Matrix([-l1 * d1**2 + g * s1, l1 * dd1 + g * c1, 0]),
        "¹F₁": m1 * sympy.Matrix([-l1 * d1**2 + g * s1, l1 * dd1 + g * c1, 0]),
        "¹N₁": sympy.zeros(3, 1),
        "²ω₂": sympy.Matrix([0, 0, d1 + d2]), "²ω̇₂": sympy.Matrix([0, 0, dd1 + dd2]),
        "²v̇₂": dv2, "²v̇C₂": dvc2, "²F₂": F2, "²N₂": sympy.zeros(3, 1),
        "²f₂": F2, "²n₂": sympy.Matrix([0, 0, n2_z]), "τ₂": n2_z,
    }
    printed = {**_values(p, "Outward"), **_values(p, "Inward")}
    shorthand = {sympy.Symbol("s_1"): s1, sympy.Symbol("c_1"): c1, sympy.Symbol("s_2"): s2,
                 sympy.Symbol("c_2"): c2, sympy.Symbol("s_12"): s12, sympy.Symbol("c_12"): c12}
    rng = np.random.default_rng(1)
    for name, formula in expected.items():
        value = sympy.sympify(printed[name]).xreplace(shorthand)
        for _ in range(3):
            point = {s: rng.uniform(0.3, 2.0) for s in (m1, m2, l1, l2, g, q1, q2, d1, d2, dd1,
                                                        dd2)}
            got = np.array(sympy.Matrix([value]).xreplace(point).evalf(), dtype=float)
            want = np.array(sympy.Matrix([formula]).xreplace(point).evalf(), dtype=float)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)


def test_printout_ends_in_the_textbook_torques(planar):
    robot, p = planar
    tau = {k: v for k, v in _values(p, "Inward").items() if k.startswith("τ")}
    dynamics_tau = symdyn.newton_euler(robot).tau
    shorthand = {sympy.Symbol(f"{f}_{i}"): fn(a) for f, fn in (("s", sympy.sin), ("c", sympy.cos))
                 for i, a in (("1", robot.q[0]), ("2", robot.q[1]), ("12", sum(robot.q)))}
    for k, name in enumerate(("τ₁", "τ₂")):
        assert sympy.simplify(tau[name].xreplace(shorthand) - dynamics_tau[k]) == 0


def test_lagrange_printout_shows_inertia_christoffel_and_gravity():
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    text = printout(symdyn.lagrange(robot)).render("text")
    for words in ("d₁₁ =", "d₁₂ =", "d₂₂ =", "c₁₂₁ = -l1*l2*m2*s2", "c₂₁₁ = -l1*l2*m2*s2",
                  "c₂₂₁ = -l1*l2*m2*s2", "c₁₁₂ = l1*l2*m2*s2", "g₁ =", "g₂ = c12*g*l2*m2",
                  "sum_j d_kj qdd_j + sum_ij c_ijk qd_i qd_j + g_k = tau_k"):
        assert words in text, words


def test_large_robot_prints_named_intermediates_quickly():
    robot = symdyn.load_robot(ROBOTS / "puma560.yaml")
    text = printout(symdyn.newton_euler(robot)).render("text")
    assert "Named intermediates" in text and "Omitted: fully expanded" in text
    assert "joint frames instead: {i'}" in text     # a standard table's, rewritten


def test_printout_shows_in_a_notebook(planar):
    _, p = planar
    assert p._repr_markdown_().startswith("# planar2: Newton-Euler")


def test_derive_command_writes_each_format(tmp_path):
    for fmt, suffix in (("text", "txt"), ("markdown", "md"), ("latex", "tex"), ("html", "html")):
        out = tmp_path / f"planar2.{suffix}"
        result = CliRunner().invoke(main, ["derive", str(ROBOTS / "planar2.yaml"), "--format",
                                           fmt, "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert out.stat().st_size > 1000
    assert CliRunner().invoke(main, ["derive", str(ROBOTS / "planar2.yaml"), "--format",
                                     "pdf"]).exit_code == 2


MECHANISMS = Path(__file__).parent.parent / "derive" / "mechanisms"


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install "
                                            "chromium); the HTML printout is not rendered")
def test_html_renders_in_headless_chromium(tmp_path):
    robot = symdyn.load_robot(ROBOTS / "planar2.yaml")
    page = tmp_path / "planar2.html"
    page.write_text(printout(symdyn.newton_euler(robot)).render("html"), encoding="utf-8")
    shot = tmp_path / "planar2.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                    f"--screenshot={shot}", "--window-size=1200,2400", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    assert shot.stat().st_size > 20_000          # a page with content, not a blank screen
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          "--disable-background-networking", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'profile2'}", "--dump-dom",
                          page.as_uri()], check=True, capture_output=True, text=True,
                         timeout=120).stdout
    assert dom.count("<math") > 20


def test_printouts_keep_the_files_decimals_show_prismatic_forms_and_cite_books(tmp_path):
    path = tmp_path / "slider.yaml"
    path.write_text(
        "name: slider\nconvention: standard\nlinks:\n"
        "  - {joint: revolute, a: 0, alpha: pi/2, d: 0.089159, theta: 0, mass: 3.7,\n"
        "     com: [0, -0.02561, 0.00193], inertia: [0.0101, 0.0101, 0.0067, 0, 0, 0]}\n"
        "  - {joint: prismatic, a: -0.425, alpha: 0, d: 0, theta: 0, mass: 8.393}\n")
    for method in ("newton-euler", "lagrange"):
        text = printout(symdyn.newton_euler(symdyn.load_robot(path)) if method == "newton-euler"
                        else symdyn.lagrange(symdyn.load_robot(path))).render("text")
        assert "0.089159" in text and "-0.02561" in text and "8.393" in text
        assert "89159/" not in text and "/1000" not in text and "seed" not in text
    assert "prismatic: dv(i+1) = R(i+1,i) (dw(i) x P(i+1)" in printout(
        symdyn.newton_euler(symdyn.load_robot(path))).render("text")
    assert "Eqs. (6.45)-(6.53)" in printout(
        symdyn.newton_euler(symdyn.load_robot(path))).render("markdown")


def test_printouts_show_the_tool_pose_and_the_jacobian_in_each_convention(tmp_path):
    for convention, axis in (("standard", "z_{i-1}"), ("modified", "z_{i}")):
        path = tmp_path / f"{convention}.yaml"
        path.write_text(f"name: arm\nconvention: {convention}\n"
                        "base: {xyz: [0, 0, 0.5], rpy: [0, 0, pi/2]}\n"
                        "tool: {xyz: [0, 0, 0.1]}\nlinks:\n"
                        "  - {joint: revolute, a: 0.3, alpha: 0, d: 0, theta: 0, mass: 1}\n"
                        "  - {joint: prismatic, a: 0.2, alpha: 0, d: 0, theta: 0, mass: 1}\n")
        result = printout(symdyn.newton_euler(symdyn.load_robot(path)))
        markdown, text = result.render("markdown"), result.render("text")
        assert "Forward kinematics" in text and "Jacobian of the tool frame" in text
        assert rf"{axis} \times (p_{{tool}}" in markdown
        assert "wT_i = wT_0 0T_i" in text          # a placed base is shown as such
        assert "base: frame {0} in the world" in text and "[0, 0, 0.1]" in text
        assert "J₂ = [" in text and "J₁ = [" in text


@pytest.mark.parametrize("name", ["fourbar", "fivebar"])
def test_a_mechanisms_printout_derives_its_dynamics_on_the_constraint_manifold(name):
    """The constraints' table, phi, G and gamma in closed form, the KKT system, and for the
    mechanism the map xi from the actuated joints' velocities to the passive ones', whose
    columns G annihilates, and the reduced equation M_a qdd_a + h_a = tau_a evaluated: checked
    in numbers where the loop closes, against the generated closed-loop inverse dynamics."""
    robot = symdyn.load_robot(MECHANISMS / f"{name}.yaml")
    dynamics = symdyn.newton_euler(robot)
    result = printout(dynamics)
    text = result.render("text")
    for words in ("Constraints (rows in the world's axes; actuated:", "G(q) = J_a - J_b",
                  "Dynamics on the constraint manifold", "G^T lambda", "Kurfess (ed.)"):
        assert words in text
    (block,) = [b for b in result.blocks if b.title == "Dynamics on the constraint manifold"]
    xi, M_a, h_a = [e.value for e in block.equations]
    (G,) = [e.value for b in result.blocks if b.title == "Constraints" for e in b.equations
            if e.lhs.base == "G"]
    named = {sympy.Symbol(f"u_{e.lhs.base[1:]}"): e.value for b in result.blocks
             if b.title == "Named terms" for e in b.equations}
    module = symdyn.python_module(dynamics, quantities=[
        "closed_loop_inverse_dynamics", "constraint_drift", "friction_torques"])
    actuated, passive = list(robot.actuated), list(robot.passive)
    rng = np.random.default_rng(3)
    for q in closed_states(robot, 3):
        values = dict(zip(robot.link_q, q))
        qd_a, qdd_a = rng.uniform(-1, 1, len(actuated)), rng.uniform(-1, 1, len(actuated))
        values |= {robot.qd[j]: v for j, v in zip(actuated, qd_a)}

        def number(expr):
            """A printed expression at q: s_12 is sin(q1 + q2), c_3 cos(q3), u_k its term."""
            subs = {}
            for symbol in expr.free_symbols:
                name = str(symbol)
                if name[:2] in ("s_", "c_"):
                    angle = sum(q[int(k) - 1] for k in name[2:])
                    subs[symbol] = np.sin(angle) if name[0] == "s" else np.cos(angle)
                elif symbol in named:
                    subs[symbol] = number(named[symbol])
                else:
                    subs[symbol] = values[symbol]
            return np.array(expr.xreplace(subs).evalf(), dtype=float)

        G_q, xi_q = number(G), number(xi)
        assert G_q.shape == (2, 3 if name == "fourbar" else 4)
        assert np.abs(G_q[:, actuated] + G_q[:, passive] @ xi_q).max() < 1e-12
        qd, qdd = np.zeros(robot.dof), np.zeros(robot.dof)
        qd[actuated], qd[passive] = qd_a, xi_q @ qd_a
        qdd[actuated] = qdd_a           # the passive joints' from G qdd = gamma
        gamma = module.constraint_drift(q, qd)
        qdd[passive] = np.linalg.solve(G_q[:, passive], gamma - G_q[:, actuated] @ qdd_a)
        tau_a = (module.closed_loop_inverse_dynamics(q, qd, qdd)[0]
                 - module.friction_torques(qd)[actuated])
        np.testing.assert_allclose(number(M_a) @ qdd_a + number(h_a).ravel(), tau_a,
                                   rtol=1e-10, atol=1e-12)
