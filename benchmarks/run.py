#!/usr/bin/env python3
"""symdyn against Pinocchio and the published symbolic generators, side by side in one run.

    python3 dev.py bench            # or: .venv/bin/python benchmarks/run.py [--quick]

Prints Markdown tables:
1. C per call: symdyn's generated tau, and tool pose + Jacobian (gcc -O2), against Pinocchio's
   C++ rnea, and framesForwardKinematics + computeFrameJacobian (g++ -O3 -DNDEBUG), on the same
   model and the same states, each harness run alternately several times;
2. from Python: the compiled symdyn module against pin.rnea, one state and batches of 10,000;
3. operation counts of tau against SymPyBotics, OpenSYMORO and the ARM generator;
4. derivation + CSE + emission time for chains of 2..20 joints.
Nothing here is a test: the targets are read off the tables.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import sympy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import symdyn  # noqa: E402
from symdyn.derive.quantities import KINEMATICS  # noqa: E402
from symdyn.emit import python_module  # noqa: E402
from symdyn.reference import pinocchio_model  # noqa: E402
from symdyn.robot.model import Inertia, inertia_matrix  # noqa: E402

STATES = 1024
TAU = ["inverse_dynamics"]
# What each timed loop computes per state, in symdyn's C and in Pinocchio's C++.
WORK = {
    "tau": ("@NAME@_inverse_dynamics(q[k], qd[k], qdd[k], out); sink += out[N - 1];",
            "rnea(model, data, q[k], v[k], a[k]); sink += data.tau[n - 1];", "N", TAU),
    "pose + Jacobian": (
        "@NAME@_pose_and_jacobian(q[k], out, out + 16); sink += out[3] + out[16];",
        "framesForwardKinematics(model, data, q[k]); computeFrameJacobian(model, data, q[k], "
        "tool, LOCAL_WORLD_ALIGNED, J); sink += data.oMf[tool].translation()[0] + J(0, 0);",
        "16 + 6 * N", ["pose_and_jacobian"]),
}

# Published operation counts (mul, add) for the 60-parameter PUMA 560 of
# robots/puma560_linear.yaml, by quantity.
PUBLISHED = {
    "inverse_dynamics": [("SymPyBotics", 378, 319), ("OpenSYMORO", 390, 334),
                         ("ARM, hand-tuned", 224, 174)],
    "mass_matrix": [("SymPyBotics", 402, 320)],
    "coriolis_matrix": [("SymPyBotics", 2564, 2555)],
    "regressor": [("SymPyBotics' H", 961, 644)],
    "tau in base parameters": [("SymPyBotics", 330, 259), ("OpenSYMORO", 327, 273)],
}

C_HARNESS = r"""
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <time.h>
#include "@NAME@.h"
#define N @N@
#define STATES @STATES@
static double q[STATES][N], qd[STATES][N], qdd[STATES][N];
static double uniform(unsigned long long *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 6.0 - 3.0;
}
int main(int argc, char **argv) {
    const int smooth = argc > 1; /* states along a trajectory instead of independent ones */
    unsigned long long seed = 42; double sink = 0.0, out[@OUT@]; long k, r, reps = @REPS@;
    struct timespec t0, t1;
    for (k = 0; k < STATES; k++) for (r = 0; r < N; r++) {
        q[k][r] = uniform(&seed); qd[k][r] = uniform(&seed); qdd[k][r] = uniform(&seed);
        if (smooth) q[k][r] = 2.5 * sin(0.01 * k + r); }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (r = 0; r < reps; r++) for (k = 0; k < STATES; k++) {
        @WORK@ }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    printf("%.3f %g\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec))
           / (double)(reps * STATES), sink);
    return 0;
}
"""

CPP_HARNESS = r"""
#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <vector>
static double uniform(unsigned long long *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 6.0 - 3.0;
}
int main(int argc, char **) {
    using namespace pinocchio;
    const bool smooth = argc > 1;
    Model model;
    model.gravity.linear() << @GRAVITY@;
    JointIndex parent = 0;
    Eigen::Matrix3d R; Eigen::Vector3d p, c; Eigen::Matrix3d I;
@JOINTS@
    model.armature << @ARMATURE@;
    R << @TOOL_R@; p << @TOOL_P@;
    const FrameIndex tool = model.addFrame(Frame("tool", parent, SE3(R, p), OP_FRAME));
    Data data(model);
    Data::Matrix6x J(6, model.nv);
    J.setZero();
    const int n = model.nv, states = @STATES@; long reps = @REPS@;
    std::vector<Eigen::VectorXd> q(states, Eigen::VectorXd(n)), v = q, a = q;
    unsigned long long seed = 42; double sink = 0.0;
    for (int k = 0; k < states; k++) for (int r = 0; r < n; r++) {
        q[k][r] = uniform(&seed); v[k][r] = uniform(&seed); a[k][r] = uniform(&seed);
        if (smooth) q[k][r] = 2.5 * std::sin(0.01 * k + r); }
    timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (long r = 0; r < reps; r++) for (int k = 0; k < states; k++) {
        @WORK@ }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    std::printf("%.3f %g\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec))
                / (double)(reps * states), sink);
    return 0;
}
"""

PIN_DEFINES = ["-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
               "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12"]


def without_friction(robot):
    """The same robot with rotor inertias but no friction: the model Pinocchio's rnea computes."""
    spec = robot.spec
    links = tuple(replace(link, viscous_friction=0, coulomb_friction=(0, 0))
                  for link in spec.links)
    return symdyn.Robot.from_spec(replace(spec, links=links))


def fill(template: str, **values) -> str:
    for key, value in values.items():
        template = template.replace(f"@{key}@", str(value))
    return template


def numbers(values) -> str:
    return ", ".join(repr(float(v)) for v in np.ravel(values))


def cpp_joints(model) -> str:
    lines = []
    for jid in range(1, model.njoints):
        placement, inertia = model.jointPlacements[jid], model.inertias[jid]
        kind = model.joints[jid].shortname()            # JointModelRZ or JointModelPZ
        lines += [
            f"    R << {numbers(placement.rotation)}; p << {numbers(placement.translation)};",
            f"    parent = model.addJoint(parent, {kind}(), SE3(R, p), \"j{jid}\");",
            f"    c << {numbers(inertia.lever)}; I << {numbers(inertia.inertia)};",
            f"    model.appendBodyToJoint(parent, Inertia({float(inertia.mass)!r}, c, I));",
        ]
    return "\n".join(lines)


def pinocchio_prefix() -> Path:
    import pinocchio
    for parent in Path(pinocchio.__file__).resolve().parents:
        if (parent / "cmeel.prefix" / "include" / "pinocchio").is_dir():
            return parent / "cmeel.prefix"
    raise SystemExit("Pinocchio's headers were not found (pip install pin)")


def compile_harnesses(robot, work: Path, reps: int, kind: str):
    """The C and C++ harnesses timing one kind of WORK on the same states."""
    ours, theirs, size, quantities = WORK[kind]
    symdyn.generate(symdyn.newton_euler(robot), "c", work, quantities=quantities)
    n = robot.dof
    (work / "bench_symdyn.c").write_text(fill(fill(C_HARNESS, WORK=ours, OUT=size),
                                              NAME=robot.name, N=n, STATES=STATES, REPS=reps))
    subprocess.run(["gcc", "-std=c99", "-O2", f"-I{work}", str(work / "bench_symdyn.c"),
                    str(work / f"{robot.name}.c"), "-o", str(work / "symdyn"), "-lm"], check=True)
    model = pinocchio_model(robot.spec)
    tool = model.frames[model.getFrameId("tool")].placement
    (work / "bench_pin.cpp").write_text(fill(
        CPP_HARNESS, WORK=theirs, GRAVITY=numbers(model.gravity.linear),
        JOINTS=cpp_joints(model), ARMATURE=numbers(model.armature), TOOL_R=numbers(tool.rotation),
        TOOL_P=numbers(tool.translation), STATES=STATES, REPS=reps))
    prefix = pinocchio_prefix()
    subprocess.run(["g++", "-std=c++17", "-O3", "-DNDEBUG", *PIN_DEFINES,
                    f"-I{prefix / 'include'}", f"-I{prefix / 'include' / 'eigen3'}",
                    str(work / "bench_pin.cpp"), "-o", str(work / "pinocchio"),
                    f"-L{prefix / 'lib'}", f"-Wl,-rpath,{prefix / 'lib'}", "-lpinocchio_default"],
                   check=True)
    return work / "symdyn", work / "pinocchio"


def run_alternately(binaries, rounds, args=()):
    times = {b: [] for b in binaries}
    for _ in range(rounds):
        for b in binaries:
            out = subprocess.run([str(b), *args], check=True, capture_output=True,
                                 text=True).stdout
            times[b].append(float(out.split()[0]))
    return [statistics.median(times[b]) for b in binaries]


def per_call(*contenders, rounds=7):
    """Median CPU seconds per call of each ``(fn, args)``, the contenders timed in turn in each
    round, so that a shared machine's load falls on all of them alike."""
    counts = []
    for fn, args in contenders:      # enough calls for about 50 ms a batch
        count, start = 0, time.process_time()
        while time.process_time() - start < 0.05:
            fn(*args)
            count += 1
        counts.append(count)
    samples = [[] for _ in contenders]
    for _ in range(rounds):
        for (fn, args), count, times in zip(contenders, counts, samples):
            t0 = time.process_time()
            for _ in range(count):
                fn(*args)
            times.append((time.process_time() - t0) / count)
    return [statistics.median(times) for times in samples]


def section_c(robots, quick):
    print("## 1. Generated C against Pinocchio C++, per call\n")
    print("tau(q, qd, qdd): symdyn's inverse_dynamics against rnea, both with the robot's rotor "
          "inertias (Pinocchio's armature), neither with friction. pose + Jacobian: symdyn's "
          "pose_and_jacobian against framesForwardKinematics and computeFrameJacobian "
          "(LOCAL_WORLD_ALIGNED) of the tool frame.\n")
    print("| robot | work | states | symdyn C (gcc -O2) | Pinocchio (g++ -O3) | speed-up |")
    print("|---|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for robot in robots:
            for kind in WORK:
                work = Path(tmp) / robot.name / kind.replace(" ", "")
                work.mkdir(parents=True)
                print(f"  compiling the {kind} harnesses for {robot.name} (Pinocchio's headers "
                      "take a while)", file=sys.stderr, flush=True)
                binaries = compile_harnesses(robot, work, 200 if quick else 1000, kind)
                for states, args in (("random", ()), ("trajectory", ("smooth",))):
                    ours, theirs = run_alternately(binaries, 3 if quick else 7, args)
                    print(f"| {robot.name} ({robot.dof} joints) | {kind} | {states} | "
                          f"{ours:.0f} ns | {theirs:.0f} ns | {theirs / ours:.1f}x |", flush=True)
    print("\nCPU time of the process, the two harnesses run in turn, medians of the rounds. "
          "random: 1024 independent states, q, qd, qdd uniform in [-3, 3]; trajectory: q along "
          "a smooth path (consecutive samples, as a controller or an identification run calls "
          "it). symdyn's C computes sin and cos without branches (a polynomial, in the same time "
          "for every angle); Pinocchio calls libm's sincos.\n")


def section_python(robots):
    import pinocchio as pin
    print("## 2. From Python\n")
    print("| robot | compiled symdyn, 1 state | pin.rnea, 1 state | ratio | "
          "compiled symdyn, batch of 10,000 | generated numpy, batch of 10,000 |")
    print("|---|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for robot in robots:
            dynamics = symdyn.newton_euler(robot)
            compiled = symdyn.compile(dynamics, quantities=TAU, cache=Path(tmp) / "cache")
            numpy_module = python_module(dynamics, quantities=TAU)
            model = pinocchio_model(robot.spec)
            data = model.createData()
            q, qd, qdd = (rng.uniform(-3, 3, robot.dof) for _ in range(3))
            batch = [rng.uniform(-3, 3, (10_000, robot.dof)) for _ in range(3)]
            ours, theirs, compiled_batch, numpy_batch = per_call(
                (compiled.inverse_dynamics, (q, qd, qdd)), (pin.rnea, (model, data, q, qd, qdd)),
                (compiled.inverse_dynamics, batch), (numpy_module.inverse_dynamics, batch))
            compiled_batch, numpy_batch = compiled_batch / 10_000, numpy_batch / 10_000
            print(f"| {robot.name} | {ours * 1e6:.2f} us | {theirs * 1e6:.2f} us | "
                  f"{theirs / ours:.1f}x | {compiled_batch * 1e6:.3f} us/state | "
                  f"{numpy_batch * 1e6:.3f} us/state |", flush=True)
    print("\nA compiled batch goes four states at a time through kernels that gcc vectorises for "
          "this machine (-O2 -march=native); one state pays mostly for converting the Python "
          "arguments.\n")


def section_ops():
    print("## 3. Operation counts (multiplications / additions, after optimization)\n")
    print("| robot | quantity | symdyn | as derived | published |")
    print("|---|---|---:|---:|---|")
    for name in ("puma560", "panda", "puma560_linear"):
        robot = symdyn.load_robot(ROOT / "robots" / f"{name}.yaml")
        dynamics = symdyn.newton_euler(robot)
        programs = {quantity: dynamics.program(quantity) for quantity in (
            "inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
            "forward_dynamics", *KINEMATICS, "regressor", "base_regressor",
            "inverse_dynamics_derivatives", "forward_dynamics_derivatives")}
        programs["tau in base parameters"] = base_parameter_tau(dynamics)
        for quantity, raw in programs.items():
            ops, before = symdyn.op_count(symdyn.optimize(raw)), symdyn.op_count(raw)
            others = ("; ".join(f"{who} {m}/{a}" for who, m, a in PUBLISHED.get(quantity, []))
                      if name == "puma560_linear" else "")
            print(f"| {name} ({len(robot.parameters)} symbols) | {quantity} | "
                  f"{ops.mul}/{ops.add} | {before.mul}/{before.add} | {others} |", flush=True)
    print("\nCounted over every assignment as the printed code computes: a constant factor is a "
          "multiplication, a factor -1 is not (it becomes a subtraction), x**2 is one; "
          "sin and cos are not counted.\n")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        panda = symdyn.newton_euler(symdyn.load_robot(ROOT / "robots" / "panda.yaml"))
        symdyn.generate(panda, ["python", "c"], tmp, quantities=KINEMATICS)
        print(f"Every kinematic quantity of the Panda (7 joints), derived, optimized and written "
              f"as Python and C: {(time.process_time() - start) * 1e3:.0f} ms CPU.\n")


def base_parameter_tau(dynamics):
    """tau as a function of the base parameters (the published generators' "base-parameter
    tau"): Newton-Euler for the robot whose standard parameters are beta at the base columns
    and zero elsewhere, since tau = Y_b beta; rotor and friction columns left out."""
    robot, base = dynamics.robot, dynamics.base
    pi = [sympy.Integer(0)] * len(base.standard)
    for column, name in zip(base.columns, base.names):
        pi[column] = sympy.Symbol(name)
    links = []
    for link in robot.links:
        m, mx, my, mz, xx, xy, yy, xz, yz, zz = pi[10 * (link.index - 1):10 * link.index]
        inertia = Inertia(m, sympy.ImmutableMatrix([mx, my, mz]),
                          sympy.ImmutableMatrix(inertia_matrix(xx, yy, zz, xy, yz, xz)))
        links.append(replace(link, inertia=inertia, armature=0, viscous=0, coulomb=(0, 0)))
    return symdyn.newton_euler(replace(robot, links=tuple(links))).program("inverse_dynamics")


def chain_yaml(n: int) -> str:
    rng = np.random.default_rng(n)
    lines = [f"name: chain{n}", "convention: modified", "links:"]
    for i in range(n):
        alpha = ("0", "pi/2", "-pi/2")[i % 3]
        lines.append(f"  - {{joint: revolute, alpha: {alpha}, a: {rng.uniform(0, 0.4):.3f}, "
                     f"d: {rng.uniform(0, 0.3):.3f}, theta: 0, mass: {rng.uniform(1, 5):.3f}, "
                     f"com: [{rng.uniform(-0.1, 0.1):.3f}, 0.01, {rng.uniform(0, 0.1):.3f}], "
                     f"inertia: [0.02, 0.03, 0.025, 0.001, 0, 0.002]}}")
    return "\n".join(lines) + "\n"


def section_scaling(quick, plot: Path | None = None):
    print("## 4. From robot file to Python and C files: time against joints\n")
    print("| joints | derive tau | optimize + emit (Python and C) | total | per joint | "
          "mul/add of tau |")
    print("|---:|---:|---:|---:|---:|---:|")
    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in ((2, 7, 14) if quick else (2, 4, 6, 7, 8, 10, 12, 14, 16, 18, 20)):
            path = Path(tmp) / f"chain{n}.yaml"
            path.write_text(chain_yaml(n))
            t0 = time.process_time()
            dynamics = symdyn.newton_euler(symdyn.load_robot(path))
            dynamics.program("inverse_dynamics")
            t1 = time.process_time()
            symdyn.generate(dynamics, ["python", "c"], Path(tmp) / "out", quantities=TAU)
            t2 = time.process_time()
            ops = symdyn.op_count(symdyn.optimize(dynamics.program()))
            print(f"| {n} | {(t1 - t0) * 1e3:.0f} ms | {(t2 - t1) * 1e3:.0f} ms | "
                  f"{(t2 - t0) * 1e3:.0f} ms | {(t2 - t0) * 1e3 / n:.0f} ms | "
                  f"{ops.mul}/{ops.add} |", flush=True)
            points.append((n, (t2 - t0) * 1e3, ops.mul + ops.add))
    if plot is not None:
        plot.write_text(scaling_svg(points))
        print(f"\n![time and operations against joints]({plot.name})")   # beside results.md
    print()


def scaling_svg(points) -> str:
    """Total time and operation count against joints, each scaled to its own maximum: two
    straight lines through the origin mean linear growth."""
    width, height, left, bottom = 480, 300, 50, 40
    top_n = max(n for n, _, _ in points)

    def x(n):
        return left + (width - left - 20) * n / top_n

    def line(values, colour):
        top = max(values)
        xy = [(x(n), height - bottom - (height - bottom - 20) * v / top)
              for (n, _, _), v in zip(points, values)]
        polyline = " ".join(f"{px:.1f},{py:.1f}" for px, py in xy)
        return (f'<polyline points="{polyline}" fill="none" stroke="{colour}" stroke-width="2"/>'
                + "".join(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>'
                          for px, py in xy))

    times, ops = [t for _, t, _ in points], [o for _, _, o in points]
    ticks = "".join(f'<text x="{x(n):.1f}" y="{height - bottom + 16}" font-size="11" '
                    f'text-anchor="middle">{n}</text>' for n, _, _ in points)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif">'
            f'<rect width="{width}" height="{height}" fill="white"/>'
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" '
            f'stroke="black"/><line x1="{left}" y1="{height - bottom}" x2="{left}" y2="10" '
            f'stroke="black"/>{ticks}'
            f'<text x="{(width + left) / 2}" y="{height - 6}" font-size="12" '
            f'text-anchor="middle">joints</text>'
            f'{line(times, "#1f77b4")}{line(ops, "#d62728")}'
            f'<text x="{left + 10}" y="24" font-size="12" fill="#1f77b4">file to code, '
            f'{max(times):.0f} ms at {top_n} joints</text>'
            f'<text x="{left + 10}" y="40" font-size="12" fill="#d62728">mul + add of tau, '
            f'{max(ops)} at {top_n} joints</text></svg>\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    parser.add_argument("--only", choices=["c", "python", "ops", "scaling"], action="append",
                        help="run only these sections")
    args = parser.parse_args()
    sections = set(args.only or ["c", "python", "ops", "scaling"])
    robots = [without_friction(symdyn.load_robot(ROOT / "robots" / f"{n}.yaml"))
              for n in ("puma560", "panda")]
    print(f"# symdyn {symdyn.__version__} benchmarks ({os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d')})\n")
    if "c" in sections:
        section_c(robots, args.quick)
    if "python" in sections:
        section_python(robots)
    if "ops" in sections:
        section_ops()
    if "scaling" in sections:
        section_scaling(args.quick, None if args.quick else ROOT / "benchmarks" / "scaling.svg")


if __name__ == "__main__":
    main()
