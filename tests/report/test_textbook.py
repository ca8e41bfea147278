"""Issue 65's printouts as a course would use them: the 2-, 3- and 6-joint arms of both DH
conventions fit the LaTeX page, their equations read back equal the generated code, and a
3-joint arm's closed form is the book's."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy
from support import ROBOTS
from sympy.parsing.sympy_parser import implicit_multiplication, parse_expr, standard_transformations

import symdyn
from symdyn.report import printout

MECHANISMS = Path(__file__).parent.parent / "derive" / "mechanisms"
PLANAR_STANDARD = """\
name: planar_standard
convention: standard
parameters: {l1: null, l2: null, m1: null, m2: null, g: null}
gravity: [0, -g, 0]
links:
  - {joint: revolute, a: l1, alpha: 0, d: 0, theta: 0, mass: m1, com: [-l1/2, 0, 0]}
  - {joint: revolute, a: l2, alpha: 0, d: 0, theta: 0, mass: m2, com: [-l2/2, 0, 0]}
"""
ELBOW = """\
name: elbow
convention: standard
parameters: {l1: null, l2: null, l3: null, lc3: null, m1: null, m2: null, m3: null, g: null}
gravity: [0, 0, -g]
links:
  - {joint: revolute, a: 0, alpha: pi/2, d: l1, theta: 0, mass: m1, com: [0, 0, 0]}
  - {joint: revolute, a: l2, alpha: 0, d: 0, theta: 0, mass: m2, com: [-l2/2, 0, 0]}
  - {joint: revolute, a: l3, alpha: 0, d: 0, theta: 0, mass: m3, com: [lc3 - l3, 0, 0]}
"""
ELBOW_MODIFIED = """\
name: elbow_modified
convention: modified
parameters: {l1: null, l2: null, lc2: null, lc3: null, m1: null, m2: null, m3: null, g: null,
             Izz3: null}
gravity: [0, 0, -g]
links:
  - {joint: revolute, a: 0, alpha: 0, d: l1, theta: 0, mass: m1, com: [0, 0, 0]}
  - {joint: revolute, a: 0, alpha: pi/2, d: 0, theta: 0, mass: m2, com: [lc2, 0, 0]}
  - {joint: revolute, a: l2, alpha: 0, d: 0, theta: 0, mass: m3, com: [lc3, 0, 0],
     inertia: [0, 0, Izz3, 0, 0, 0]}
"""
ARMS = {"planar2": ROBOTS / "planar2.yaml", "planar_standard": PLANAR_STANDARD,
        "elbow": ELBOW, "elbow_modified": ELBOW_MODIFIED, "puma560": ROBOTS / "puma560.yaml",
        "ur5": ROBOTS / "ur5.yaml", "fourbar": MECHANISMS / "fourbar.yaml"}


def _dynamics(name, method, tmp_path):
    source = ARMS[name]
    if isinstance(source, str):
        path = tmp_path / f"{name}.yaml"
        path.write_text(source)
        source = path
    robot = symdyn.load_robot(source)
    return symdyn.newton_euler(robot) if method == "newton-euler" else symdyn.lagrange(robot)


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex is not installed (apt-get install texlive-latex-base "
                           "texlive-latex-recommended, for amsmath and breqn); the LaTeX "
                           "printout is not compiled")
@pytest.mark.parametrize("name, method", [
    ("planar2", "newton-euler"), ("planar2", "lagrange"), ("planar_standard", "newton-euler"),
    ("elbow", "newton-euler"), ("elbow", "lagrange"), ("elbow_modified", "newton-euler"),
    ("puma560", "newton-euler"), ("puma560", "lagrange"), ("ur5", "newton-euler"),
    ("fourbar", "newton-euler")])
def test_latex_compiles_and_every_line_fits_the_page(tmp_path, name, method):
    """Sums break at their signs (breqn), long vectors go a row a component, and what breqn
    cannot break (a product of long sums, a sum pages long) is named (report/layout.py)."""
    tex = tmp_path / f"{name}.tex"
    tex.write_text(printout(_dynamics(name, method, tmp_path)).render("latex"), encoding="utf-8")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                             tex.name], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    assert (tmp_path / f"{name}.pdf").stat().st_size > 10_000
    log = (tmp_path / f"{name}.log").read_text(errors="replace")
    assert "Overfull \\hbox" not in log and "Overfull \\vbox" not in log, re.findall(
        r"Overfull .*", log)[:5]


# -- read back ------------------------------------------------------------------------------
def _state(robot, rng):
    """Random q, qd, qdd and parameters, as {symbol: number}."""
    values = {s: rng.uniform(0.3, 1.5) for s in robot.parameters}
    for link in robot.links:
        values |= {link.q: rng.uniform(-3, 3), link.qd: rng.uniform(-2, 2),
                   link.qdd: rng.uniform(-2, 2)}
    return values


def _angles(robot, values):
    """The books' c_ij, s_ij as numbers (joints below 10: c23 is cos(q2 + q3))."""
    q = [values[link.q] for link in robot.links]
    out = {}
    for digits in {"".join(c) for n in range(1, robot.dof + 1)
                   for c in _subsets(range(1, robot.dof + 1), n)}:
        angle = sum(q[int(k) - 1] for k in digits)
        out[f"c{digits}"], out[f"s{digits}"] = np.cos(angle), np.sin(angle)
    return out


def _subsets(items, n):
    from itertools import combinations
    return (tuple(str(i) for i in c) for c in combinations(items, n))


def _resolve(definitions: dict[str, sympy.Expr], known: dict[str, float]) -> dict[str, float]:
    """Evaluate the definitions (name -> expression of names) in whatever order they allow."""
    known, pending = dict(known), dict(definitions)
    while pending:
        ready = [name for name, expr in pending.items()
                 if all(str(s) in known for s in expr.free_symbols)]
        missing = {str(s) for e in pending.values() for s in e.free_symbols} - set(known)
        assert ready, f"not defined in the printout: {sorted(missing - set(pending))[:8]}"
        for name in ready:
            expr = pending.pop(name)
            known[name] = float(expr.xreplace({s: known[str(s)] for s in expr.free_symbols}))
    return known


def _plain(notation) -> dict[str, sympy.Symbol]:
    """Identifiers for the printout's text names of q, qd and qdd (θ̇1 is v2, say)."""
    shown = sorted(notation.text_names, key=lambda s: len(notation.text_names[s]), reverse=True)
    return {f"v{k}": symbol for k, symbol in enumerate(shown)}


def _parse_text(text: str, notation) -> sympy.Expr:
    for plain, symbol in _plain(notation).items():     # longest first: θ̇1 before θ1
        text = text.replace(notation.text_names[symbol], plain)
    return sympy.sympify(text.replace("^", "**"), locals={}, rational=False)


def _text_equations(text: str, *titles: str) -> list[tuple[str, str]]:
    """The equations of the text printout's blocks whose titles start with one of titles."""
    blocks = re.split(r"\n\n(?=\S.*\n-+\n)", text)
    return [equation for block in blocks if block.startswith(titles)
            for equation in re.findall(r"^  (\S+) = (.+)$", block, flags=re.M)]


@pytest.mark.parametrize("name", ["planar2", "planar_standard", "elbow", "elbow_modified",
                                  "puma560", "ur5"])
def test_the_printed_equations_read_back_equal_the_generated_code(tmp_path, name):
    """The text printout's Newton-Euler torques, with the named steps and terms they use, and
    (where the robot is small enough to have one) its closed form from the LaTeX, read back and
    evaluated, equal the generated code's M qdd + C qd + g to 1e-12 at random states."""
    dynamics = _dynamics(name, "newton-euler", tmp_path)
    robot, result = dynamics.robot, printout(dynamics)
    notation = result.notation
    module = symdyn.python_module(dynamics, quantities=["mass_matrix", "nonlinear_effects"])
    text = result.render("text")
    taus = {lhs: rhs for lhs, rhs in _text_equations(text, "Inward recursion")
            if lhs.startswith("τ")}
    closed = dict(_text_equations(text, "Closed form"))
    definitions = {lhs: _parse_text(rhs, notation)
                   for lhs, rhs in _text_equations(text, "Named intermediates", "Named terms")}
    assert len(taus) == robot.dof
    latex = result.render("latex")
    rng = np.random.default_rng(7)
    for _ in range(3):
        values = _state(robot, rng)
        known = {plain: values[symbol] for plain, symbol in _plain(notation).items()}
        known |= {str(s): values[s] for s in robot.parameters}
        known |= _angles(robot, values)
        known = _resolve(definitions, known)
        q, qd, qdd = (np.array([values[getattr(link, a)] for link in robot.links])
                      for a in ("q", "qd", "qdd"))
        params = [np.array([known[name_] for name_ in module.PARAMETERS])] * bool(
            module.PARAMETERS)
        expected = (module.mass_matrix(q, *params) @ qdd
                    + module.nonlinear_effects(q, qd, *params))
        printed = [_resolve({"t": _parse_text(taus[f"τ{str(k).translate(SUB)}"], notation)},
                            known)["t"] for k in range(1, robot.dof + 1)]
        np.testing.assert_allclose(printed, expected, rtol=1e-12, atol=1e-12)
        if closed:
            parts = [sum(_resolve({f"p{j}": p for j, p in enumerate(
                _parse_text(closed[f"τ{str(k).translate(SUB)}"].rstrip("ᵀ"), notation))},
                known)[f"p{j}"] for j in range(3)) for k in range(1, robot.dof + 1)]
            np.testing.assert_allclose(parts, expected, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(_latex_closed_form(latex, notation, values, known),
                                       expected, rtol=1e-12, atol=1e-12)
    assert closed or robot.dof > 3


SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _latex_closed_form(latex: str, notation, values, known) -> list[float]:
    """tau_k of the LaTeX's closed-form section read back (the names with a backslash, such
    as dot-theta_1 and ell_c3, made x_k first), then evaluated."""
    section = latex.split(r"\section*{Closed form")[1].split(r"\section*")[0]
    placeholders = {shown: f"x_{{{k}}}" for k, shown in enumerate(sorted(
        notation.latex_names.values(), key=len, reverse=True)) if "\\" in shown}
    numbers = {placeholders[shown].replace("{", "").replace("}", ""): values[symbol]
               for symbol, shown in notation.latex_names.items() if shown in placeholders}
    taus = [0.0] * notation.robot.dof
    for lhs, rhs in re.findall(r"\\begin\{dmath\*\}\n(.+?) = (.+?)\n\\end\{dmath\*\}", section,
                               flags=re.S):
        k = int(re.search(r"\\tau_\{(\d+)\}", lhs)[1])
        rows = (re.findall(r"(?:\\begin\{matrix\}|\\\\)(.+?)(?=\\\\|\\end\{matrix\})", rhs)
                if r"\begin{matrix}" in rhs else [rhs])
        for row in rows:
            for shown, placeholder in placeholders.items():
                row = row.replace(shown, placeholder)
            expr = _latex_expression(row)
            taus[k - 1] += float(expr.xreplace({
                s: numbers[str(s)] if str(s) in numbers else known[str(s).replace("_", "")]
                for s in expr.free_symbols}))
    return taus


def _latex_expression(tex: str) -> sympy.Expr:
    """The LaTeX sympy prints for a scalar (sums, products, \\frac, powers, subscripted
    names, \\sin and \\cos) as an expression; anything else fails the test."""
    tex = tex.replace(r"\left(", "(").replace(r"\right)", ")")
    tex = re.sub(r"\\(sin|cos)\{", r"\1{", tex)
    before = None
    while before != tex:               # innermost first
        before = tex
        tex = re.sub(r"([A-Za-z]+)_\{([A-Za-z0-9 ]+)\}",
                     lambda m: m[1] + "_" + m[2].replace(" ", ""), tex)
        tex = re.sub(r"\^\{([^{}]*)\}", r"**(\1)", tex)
        tex = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", tex)
        tex = re.sub(r"(sin|cos)\{([^{}]*)\}", r"\1(\2)", tex)
    assert "\\" not in tex and "{" not in tex, f"not read: {tex}"
    return parse_expr(tex, transformations=standard_transformations + (implicit_multiplication,))


def test_a_three_joint_arms_closed_form_is_the_books(tmp_path):
    """Spong's elbow manipulator's closed form, collected as the book prints it: each tau_k's
    inertial part a sum of d_kj qdd_j, its Coriolis and centrifugal part one of b_kij qd_i qd_j,
    each coefficient in sums of angles (d_11 with m3 (l2 c2 + lc3 c23)^2 multiplied out, not
    1 - c2^2 - c3^2 + 2 c2 c3 c23)."""
    text = printout(_dynamics("elbow", "newton-euler", tmp_path)).render("text")
    closed = dict(_text_equations(text, "Closed form"))
    assert closed["τ₁"] == (
        "[θ̈1*(c2^2*l2^2*m2/4 + c2^2*l2^2*m3 + 2*c2*c23*l2*lc3*m3 + c23^2*lc3^2*m3), "
        "-2*lc3*m3*θ̇1*θ̇3*s23*(c2*l2 + c23*lc3) - θ̇1*θ̇2*(c2*l2^2*m2*s2/2 + 2*c2*l2^2*m3*s2 + "
        "2*c23*lc3^2*m3*s23 + 2*l2*lc3*m3*sin(2*θ2 + θ3)), 0]ᵀ")
    assert closed["τ₂"] == (
        "[lc3*m3*θ̈3*(c3*l2 + lc3) + θ̈2*(2*c3*l2*lc3*m3 + l2^2*m2/4 + l2^2*m3 + lc3^2*m3), "
        "-2*l2*lc3*m3*θ̇2*θ̇3*s3 - l2*lc3*m3*θ̇3^2*s3 + θ̇1^2*(c2*l2^2*m2*s2/4 + c2*l2^2*m3*s2 + "
        "c23*lc3^2*m3*s23 + l2*lc3*m3*sin(2*θ2 + θ3)), g*(c2*l2*m2/2 + c2*l2*m3 + c23*lc3*m3)]ᵀ")
    assert closed["τ₃"] == (
        "[lc3^2*m3*θ̈3 + lc3*m3*θ̈2*(c3*l2 + lc3), "
        "l2*lc3*m3*θ̇2^2*s3 + lc3*m3*θ̇1^2*s23*(c2*l2 + c23*lc3), c23*g*lc3*m3]ᵀ")


def test_a_three_joint_arms_closed_form_is_labelled_and_written_as_the_books_write_it(
        tmp_path):
    """Issue 65: tau_k's three parts labelled as what they are, not as x, y and z ("(tau_1)_z
    = 0"); a book's fractions as fractions (l3^2 m3/4, not 0.25); sums of angles collected
    (c23) past two joints too; a parameter's name set as Spong's (lc3 as ell_{c3}, not as l
    times the cosine shorthand c_3)."""
    result = printout(_dynamics("elbow", "newton-euler", tmp_path))
    latex, text = result.render("latex"), result.render("text")
    for part in ("inertial", "Coriolis", "gravity"):
        assert rf"\left(\tau_{{1}}\right)_{{\text{{{part}}}}}" in latex
    assert r"\left(\tau_{1}\right)_{z}" not in latex and "0.25" not in text
    assert "c23*g*lc3*m3]ᵀ" in text and "l2^2*m2/4" in text
    assert r"\ell_{c3}" in latex and "lc_{3}" not in latex


def test_a_long_pose_is_set_as_a_matrix_and_the_files_decimals_stay_decimals(tmp_path):
    """The PUMA's 0T6 as the books set it, a matrix of r_ij with each long entry below it (not
    sixteen rows of entries alone), and its 0.4318 as 0.4318, not 2159/5000 (the shorthand's
    rebuilding multiplied a factored-out 1/20000 back in after the decimals were chosen)."""
    latex = printout(_dynamics("puma560", "newton-euler", tmp_path)).render("latex")
    pose = r"{}^{0}_{6}T = \left[\begin{matrix}\left({}^{0}_{6}T\right)_{11} & "
    assert pose in latex and r"\left({}^{0}_{6}T\right)_{14} = 0.4318 c_{1} c_{2}" in latex
    assert r"\frac{2159" not in latex and "0.4318 m_{3}" in latex     # base parameters too


@pytest.mark.parametrize("name", ["elbow", "puma560"])
def test_a_standard_tables_recursion_names_its_own_frames(tmp_path, name):
    """A standard table's frame {i} is on joint i + 1; the recursion runs in Craig's joint
    frames, printed as {i'} with their placements, the file's {i} in each, and the moved
    centres of mass: composed, the printed transforms are the file's (0T_i' i'T_i = 0T_i), and
    a centre of mass is where the file puts it."""
    dynamics = _dynamics(name, "newton-euler", tmp_path)
    robot, result = dynamics.robot, printout(dynamics)
    (frames,) = [b for b in result.blocks if b.title == "The recursion's frames"]
    (file,) = [b for b in result.blocks if b.title == "Link transforms"]
    values = {s: v for s, v in _state(robot, np.random.default_rng(1)).items()
              if s in robot.parameters or s in robot.q}

    def number(expr):
        """A printed matrix at the state: s_23 is sin(q2 + q3)."""
        subs = {s: values[s] for s in expr.free_symbols if s in values}
        q = [values[link.q] for link in robot.links]
        for symbol in expr.free_symbols - set(subs):
            letter, digits = str(symbol).split("_")
            angle = sum(q[int(k) - 1] for k in digits)
            subs[symbol] = np.sin(angle) if letter == "s" else np.cos(angle)
        return np.array(sympy.Matrix(expr).xreplace(subs).evalf(), dtype=float)

    placed = {e.lhs.pre + e.lhs.pre_sub: number(e.value) for e in frames.equations
              if e.lhs.base == "T"}
    joint, world = np.eye(4), np.eye(4)
    for link, step in zip(robot.links, file.equations):
        i = link.index
        joint = joint @ placed[f"{i - 1}'{i}'" if i > 1 else f"0{i}'"]
        world = world @ number(step.value)
        np.testing.assert_allclose(joint @ placed[f"{i}'{i}"], world, atol=1e-12)
    assert "¹'ω₁ = " in result.render("text") and r"{}^{1'}\omega_{1}" in result.render("latex")
    if name == "elbow":           # the file's centre at -l2/2 in {2} is at +l2/2 in {2'}
        (com,) = [e.value for e in frames.equations if e.lhs.base == "P" and e.lhs.sub == "C2"]
        assert list(com) == [sympy.Symbol("l2") / 2, 0, 0]


def test_sums_of_angles_past_joint_nine_keep_their_joints_apart():
    """cos(q11 + q14) is c_{11,14}, not c_{1114} (which reads as joints 1 and 114, or 11 and
    14, or 111 and 4)."""
    robot = symdyn.load_robot(MECHANISMS / "delta.yaml")
    latex = printout(symdyn.newton_euler(robot)).render("latex")
    assert "c_{11,14}" in latex and "c_{1114}" not in latex
