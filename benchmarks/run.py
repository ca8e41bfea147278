#!/usr/bin/env python3
"""symdyn against Pinocchio and the published symbolic generators, side by side in one run.

    python3 dev.py bench            # or: .venv/bin/python benchmarks/run.py [--quick]

Prints Markdown tables:
1. C per call: every quantity of symdyn's generated C (tau, M, C, qdd, tool pose + Jacobian, the
   derivatives of ID and FD) against the Pinocchio C++ function that computes it, both at
   -O3 -march=native, on the same model and states, in CPU time, the two harnesses taking turns
   round by round (medians and spread);
2. from Python: the compiled symdyn module against pin.rnea, one state and batches of 10,000;
3. operation counts against SymPyBotics', OpenSYMORO's and the ARM generator's published ones;
4. derivation + CSE + emission time of every quantity for chains of 2..20 joints (plotted),
   and of the Lagrange route for the Panda;
5. the commands as a user runs them (excite, check, identify on a million rows and more), each
   in its own process: CPU time and peak memory;
6. the C that CasADi generates from adam-robotics' expressions, beside symdyn's C and the C
   CasADi generates from symdyn's CasADi functions;
7. trees imported whole: import and generation times, M's zeros (and 8. per call, section 1's
   table for single robots);
9. symdyn's JAX module against adam-robotics' JAX functions, one state and vmapped;
10. constrained dynamics (contacts, closed loops) against Pinocchio's constraintDynamics,
   impulseDynamics and a numeric closed-loop inverse dynamics;
11. (--only erd) section 1's recursions and derivatives on every tree and legged robot of
   example-robot-data as imported;
12. Pinocchio's rnea, crba, aba and derivatives evaluated on casadi::SX and written as C by
   CasADi's code generator, beside symdyn's C (the Panda, the UR5, Solo-12).
Nothing here is a test: the targets are read off the tables.
"""
from __future__ import annotations

import argparse
import contextlib
import html
import importlib.metadata
import importlib.util
import io
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

# One OpenBLAS thread, as symdyn's command line runs (see symdyn/__init__.py): set before numpy
# is imported, which this script does before symdyn.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import sympy  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import symdyn  # noqa: E402
from symdyn.derive.quantities import TOOL_KINEMATICS  # noqa: E402
from symdyn.program import OpCount, optimize_all  # noqa: E402
from symdyn.reference import pinocchio_model  # noqa: E402
from symdyn.robot import import_robot, table  # noqa: E402
from symdyn.robot.model import Inertia, inertia_matrix  # noqa: E402

STATES = 1024
TAU = ["inverse_dynamics"]
# Flags of both harnesses: the same optimisation for symdyn's C and Pinocchio's C++.
FLAGS = ["-O3", "-march=native"]
# The functions all_terms holds, called one by one.
FIVE = ("mass_matrix", "nonlinear_effects", "forward_kinematics", "jacobian", "jacobian_dot_qd")
# What a controller's step asks of Pinocchio: computeAllTerms (M, nle, joint Jacobians), the
# tool's placement and Jacobian from them, and its classical acceleration (a second-order
# forward kinematics at qdd = 0).
ALL_TERMS = ("computeAllTerms(model, data, q[k], v[k]); forwardKinematics(model, data, q[k], "
             "v[k], zero); updateFramePlacement(model, data, tool); getFrameJacobian(model, "
             "data, tool, LOCAL_WORLD_ALIGNED, J); sink += data.M(n - 1, n - 1) + data.nle[0] "
             "+ data.oMf[tool].translation()[0] + J(0, 0) + getFrameClassicalAcceleration("
             "model, data, tool, LOCAL_WORLD_ALIGNED).linear()[0];")
# What each timed loop computes per state: symdyn's quantity (or quantities), its C call,
# Pinocchio's C++ call.
# ``out`` holds any quantity's outputs; the sinks keep the compilers from dropping the work.
WORK = {
    "tau (rnea)": ("inverse_dynamics", "@NAME@_inverse_dynamics(q[k], qd[k], qdd[k], out); "
                   "sink += out[N - 1];",
                   "rnea(model, data, q[k], v[k], a[k]); sink += data.tau[n - 1];"),
    "M (crba)": ("mass_matrix", "@NAME@_mass_matrix(q[k], out); sink += out[N * N - 1];",
                 "crba(model, data, q[k]); sink += data.M(n - 1, n - 1);"),
    "C (computeCoriolisMatrix)": (
        "coriolis_matrix", "@NAME@_coriolis_matrix(q[k], qd[k], out); sink += out[N * N - 1];",
        "computeCoriolisMatrix(model, data, q[k], v[k]); sink += data.C(n - 1, n - 1);"),
    "qdd (aba)": ("forward_dynamics", "@NAME@_forward_dynamics(q[k], qd[k], qdd[k], out); "
                  "sink += out[N - 1];",
                  "aba(model, data, q[k], v[k], a[k]); sink += data.ddq[n - 1];"),
    "tool pose + Jacobian": (
        "pose_and_jacobian", "@NAME@_pose_and_jacobian(q[k], out, out + 16); "
        "sink += out[3] + out[16];",
        "framesForwardKinematics(model, data, q[k]); computeFrameJacobian(model, data, q[k], "
        "tool, LOCAL_WORLD_ALIGNED, J); sink += data.oMf[tool].translation()[0] + J(0, 0);"),
    "ID derivatives (computeRNEADerivatives)": (
        "inverse_dynamics_derivatives",
        "@NAME@_inverse_dynamics_derivatives(q[k], qd[k], qdd[k], out, out + N * N); "
        "sink += out[N * N - 1] + out[2 * N * N - 1];",
        "computeRNEADerivatives(model, data, q[k], v[k], a[k]); "
        "sink += data.dtau_dq(n - 1, n - 1) + data.dtau_dv(n - 1, n - 1);"),
    "M, h, T, J, Jdot qd in one call (computeAllTerms + tool frame)": (
        "all_terms", "@NAME@_all_terms(q[k], qd[k], out, out + N * N, out + N * N + N, "
        "out + N * N + N + 16, out + N * N + 7 * N + 16); sink += out[N * N - 1] "
        "+ out[N * N + 7 * N + 21];", ALL_TERMS),
    "the same in five calls (M, h, T, J, Jdot qd)": (
        FIVE, "@NAME@_mass_matrix(q[k], out); @NAME@_nonlinear_effects(q[k], qd[k], "
        "out + N * N); @NAME@_forward_kinematics(q[k], out + N * N + N); "
        "@NAME@_jacobian(q[k], out + N * N + N + 16); @NAME@_jacobian_dot_qd(q[k], qd[k], "
        "out + N * N + 7 * N + 16); sink += out[N * N - 1] + out[N * N + 7 * N + 21];",
        ALL_TERMS),
    "centroidal map (computeCentroidalMap)": (
        "centroidal_map", "@NAME@_centroidal_map(q[k], out); sink += out[6 * N - 1];",
        "computeCentroidalMap(model, data, q[k]); sink += data.Ag(5, n - 1);"),
    "FD derivatives (computeABADerivatives)": (
        "forward_dynamics_derivatives",
        "@NAME@_forward_dynamics_derivatives(q[k], qd[k], qdd[k], out, out + N * N, "
        "out + 2 * N * N); sink += out[N * N - 1] + out[2 * N * N - 1] + out[3 * N * N - 1];",
        "computeABADerivatives(model, data, q[k], v[k], a[k]); sink += data.ddq_dq(n - 1, n - 1)"
        " + data.ddq_dv(n - 1, n - 1) + data.Minv(n - 1, n - 1);"),
}

# Pinocchio 4.1 computes rnea, crba, nonLinearEffects and frame Jacobians for a model with mimic
# joints, and refuses the rest (aba, computeAllTerms, the derivatives; its computeCoriolisMatrix
# runs but gives a C whose C qd is not h - g). For such a robot, its forward dynamics is what a
# Pinocchio user writes: crba, nonLinearEffects and Eigen's LDL^T; the others are left out.
MIMIC_WORK = {
    "qdd (aba)": "crba(model, data, q[k]); nonLinearEffects(model, data, q[k], v[k]); "
                 "data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose()"
                 ".triangularView<Eigen::StrictlyLower>(); ddq = data.M.ldlt().solve(a[k] - "
                 "data.nle); sink += ddq[n - 1];",
    "tau (rnea)": WORK["tau (rnea)"][2], "M (crba)": WORK["M (crba)"][2],
    "tool pose + Jacobian": WORK["tool pose + Jacobian"][2],
}


def robot_work(robot, kinds=None) -> dict:
    """WORK for ``robot`` (the ``kinds`` of it alone, if given): with mimic joints,
    Pinocchio's side as MIMIC_WORK says."""
    chosen = {kind: work for kind, work in WORK.items() if kinds is None or kind in kinds}
    if not robot.coupling:
        return chosen
    return {kind: (entry, ours, MIMIC_WORK[kind]) for kind, (entry, ours, _) in chosen.items()
            if kind in MIMIC_WORK}


def joints(robot) -> str:
    """"7 joints", "17 joints and 2 mimic joints", "a floating base and 12 joints"."""
    return table.joints(robot.spec)


def target(robot, kind: str) -> float:
    """The speed-up over Pinocchio each quantity is to reach: issue 13's 10x for fixed bases
    and trees, and issue 28's 8x for their derivatives (issue 13 asked 5x); issue 30's 5x on a
    floating base, 3x for a humanoid of more than 30 joints."""
    if robot.floating:
        return 3 if robot.dof > 36 else 5
    return 8 if "derivatives" in kind else 10

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

def harness(name: str) -> str:
    """A harness's source from benchmarks/harness/, its @NAME@ places left to fill."""
    return (Path(__file__).parent / "harness" / name).read_text(encoding="utf-8")


# The harnesses' C and C++ live in benchmarks/harness/, with @NAME@ where fill puts a value.
# Both harnesses: argv[1] the work's index in WORK, argv[2] the repetitions over the states,
# argv[3] "smooth" for states along a trajectory; they print nanoseconds of CPU time per call.
STATES_C = harness("states.c")
C_HARNESS = harness("harness.c")
# The floor under every function of q: the sin and cos of the joint angles, as the generated C
# computes them (its static symdyn_sincos_all, reached by including the source, on the angles
# copied into an array); a floating base's angles follow its seven numbers.
FLOOR_WORK = ("double a[@ANGLES@]; int j; for (j = 0; j < @ANGLES@; j++) "
              "a[j] = q[k][j + NQ - @ANGLES@]; "
              "symdyn_sincos_all(@ANGLES@, a, out, out + @ANGLES@); "
              "sink += out[@ANGLES@ - 1] + out[2 * @ANGLES@ - 1];")
# A unit part of q (a quaternion, a planar joint's cosine and sine), q[AT .. AT + N - 1], made
# a unit one in each state.
NORMALIZE = ("{ double s = 0; for (r = @AT@; r < @AT@ + @N@; r++) s += q[k][r] * q[k][r]; "
             "s = sqrt(s); for (r = @AT@; r < @AT@ + @N@; r++) q[k][r] /= s; }")


def normalize(robot) -> str:
    """The C that brings each joint's configuration in q[k] back to its manifold (NORMALIZE
    of each unit part its kind names: JointKind.units), as Pinocchio's normalize does."""
    return " ".join(
        fill(NORMALIZE, AT=robot.q.index(robot.joint_configuration(i)[0]) + part.start,
             N=part.stop - part.start)
        for kind, i in robot.joint_kinds for part in kind.units)
# The machine's rate of scalar multiplications: CHAINS independent chains of fused
# multiply-adds, enough to keep every multiplier busy whatever its latency, built without
# vectorisation (the generated code is scalar). Every multiplication of the generated code,
# fused or not, takes a multiplier: operations / rate is a floor under its time.
CHAINS = 16
RATE_C = harness("rate.c")
C_WORK = harness("work.c")

CPP_HARNESS = harness("harness.cpp")
MODEL_CPP = harness("model.cpp")      # the model both C++ harnesses build
TIMED_CPP = harness("timed.cpp")      # and how both time the work argv[1] names
CPP_WORK = harness("work.cpp")

PIN_DEFINES = ["-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
               "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12"]


def users_robots(folder: Path) -> list[Path]:
    """The robots of the per-call tables, as users write them: the shipped PUMA 560 and Panda;
    the Panda with its twists as floats, as the Robotics Toolbox stores them (1.5707963267948966,
    read as pi/2: the same code); the UR5 imported from its URDF with import's defaults; a
    chain of 7 joints of generic geometry (chain_yaml); the Allegro hand imported whole, a
    tree of four fingers (16 joints); Baxter imported whole, two arms with mimic grippers
    (17 coordinates, 19 joints); and on a floating base, Solo-12, ANYmal and TALOS (32 joints;
    its grippers' mimic joints left out, which Pinocchio 4.1 cannot build on a free-flyer),
    imported with --root free_flyer."""
    shipped = [ROOT / "robots" / f"{name}.yaml" for name in ("puma560", "panda")]
    floats = folder / "panda_floats.yaml"
    floats.write_text(re.sub(r"(-?)pi/2", lambda m: repr(-math.pi / 2 if m[1] else math.pi / 2),
                             shipped[1].read_text()).replace("name: panda\n",
                                                             "name: panda_floats\n"))
    ur5 = folder / "ur5_import.yaml"
    ur5.write_text(import_robot(example_robot("ur_description/urdf/ur5_robot.urdf"),
                                tip="tool0", name="ur5_import")[0])
    chain = folder / "chain7_generic.yaml"
    chain.write_text(chain_yaml(7, "generic").replace("name: chain7\n", "name: chain7_generic\n"))
    hand = folder / "allegro_import.yaml"
    hand.write_text(import_robot(example_robot(TREE_URDFS["allegro_right_hand"]),
                                 name="allegro_import")[0])
    baxter = folder / "baxter_import.yaml"
    baxter.write_text(import_robot(example_robot(TREE_URDFS["baxter"]), name="baxter_import")[0])
    floating = []
    for name, relative in FLOATING_URDFS.items():
        floating.append(folder / f"{name}.yaml")
        floating[-1].write_text(import_robot(example_robot(relative), name=name,
                                             root="free_flyer")[0])
    return [*shipped, floats, ur5, chain, hand, baxter, *floating]


# The legged robots of the per-call tables, on a free-flyer.
FLOATING_URDFS = {"solo12_import": "solo_description/robots/solo12.urdf",
                  "anymal_import": "anymal_c_simple_description/urdf/anymal.urdf",
                  "talos_import": "talos_data/robots/talos_reduced.urdf"}


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


def cpp_joints(model, spec) -> str:
    """The C++ that builds ``model`` (every joint free) joint by joint, then makes the robot
    file's mimic joints Pinocchio's mimic joints."""
    lines = []
    for jid in range(1, model.njoints):
        placement, inertia = model.jointPlacements[jid], model.inertias[jid]
        kind = model.joints[jid].shortname()            # JointModelRZ or JointModelPZ
        lines += [
            f"    R << {numbers(placement.rotation)}; p << {numbers(placement.translation)};",
            f"    parent = model.addJoint({model.parents[jid]}, {kind}(), SE3(R, p), "
            f"\"j{jid}\");",
            f"    c << {numbers(inertia.lever)}; I << {numbers(inertia.inertia)};",
            f"    model.appendBodyToJoint(parent, Inertia({float(inertia.mass)!r}, c, I));",
        ]
    for i, link in enumerate(spec.links, start=1):
        if link.mimic is not None:
            shift = int(spec.floating)      # a free-flyer is joint 1
            lines.append(f"    {{ Model coupled; transformJointIntoMimic(model, "
                         f"{link.mimic + shift}, {i + shift}, {float(link.multiplier)!r}, "
                         f"{float(link.offset)!r}, coupled); model = coupled; }}")
    return "\n".join(lines)


def cpp_model(spec) -> str:
    """The C++ that builds Pinocchio's model of ``spec`` (MODEL_CPP: gravity, the joints,
    the rotor inertias as armature), named ``model``, its last joint ``parent``."""
    model = pinocchio_model(spec, mimic=False)
    return fill(MODEL_CPP, GRAVITY=numbers(model.gravity.linear), JOINTS=cpp_joints(model, spec),
                ARMATURE=numbers(pinocchio_model(spec).armature))


def pinocchio_prefix() -> Path:
    import pinocchio
    for parent in Path(pinocchio.__file__).resolve().parents:
        if (parent / "cmeel.prefix" / "include" / "pinocchio").is_dir():
            return parent / "cmeel.prefix"
    raise SystemExit("Pinocchio's headers were not found (pip install pin)")


def quantities_of(work) -> tuple[str, ...]:
    """The quantities a WORK entry's symdyn side calls."""
    return (work,) if isinstance(work, str) else work


def work_counts(dynamics, works: dict) -> dict:
    """{kind: its symdyn side's operations}, the optimized programs of the quantities it
    calls summed, each quantity optimized once."""
    names = list(dict.fromkeys(q for entry, _, _ in works.values()
                               for q in quantities_of(entry)))
    counts = dict(zip(names, map(symdyn.op_count, optimize_all(
        dynamics.program(name) for name in names))))
    return {kind: sum((counts[q] for q in quantities_of(entry)), OpCount(0, 0, 0))
            for kind, (entry, _, _) in works.items()}


def build_symdyn_harness(robot, work: Path, works: str, count: int, sizes: dict,
                         *flags: str) -> Path:
    """symdyn's C harness of ``count`` works (their C text), compiled with the robot's C."""
    (work / "bench_symdyn.c").write_text(fill(
        C_HARNESS, UNIFORM=STATES_C, WORKS=works, TABLE=", ".join(
            f"work{i}" for i in range(count)), INCLUDE=f'"{robot.name}.h"', **sizes))
    subprocess.run(["gcc", "-std=c99", *FLAGS, f"-I{work}", *flags, str(work / "bench_symdyn.c"),
                    str(work / f"{robot.name}.c"), "-o", str(work / "symdyn"), "-lm"], check=True)
    return work / "symdyn"


def build_pinocchio_harness(work: Path, source: str) -> Path:
    """Pinocchio's C++ harness ``source`` (its timing filled in), compiled against the pin
    wheel's headers and library."""
    (work / "bench_pin.cpp").write_text(fill(source, TIMED=TIMED_CPP))
    prefix = pinocchio_prefix()
    subprocess.run(["g++", "-std=c++17", *FLAGS, "-DNDEBUG", *PIN_DEFINES,
                    f"-I{prefix / 'include'}", f"-I{prefix / 'include' / 'eigen3'}",
                    str(work / "bench_pin.cpp"), "-o", str(work / "pinocchio"),
                    f"-L{prefix / 'lib'}", f"-Wl,-rpath,{prefix / 'lib'}", "-lpinocchio_default"],
                   check=True)
    return work / "pinocchio"


def compile_harnesses(robot, work: Path, kinds=None):
    """The C and C++ harnesses, each timing every WORK (of ``kinds``) on the same states."""
    works = robot_work(robot, kinds)
    quantities = list(dict.fromkeys(q for entry, _, _ in works.values()
                                    for q in quantities_of(entry)))
    symdyn.generate(symdyn.newton_euler(robot), "c", work, quantities=quantities)
    n, angles = robot.dof, len(robot.coordinates)
    sizes = {"N": n, "NQ": robot.nq, "STATES": STATES, "NAME": robot.name,
             "NORMALIZE": normalize(robot)}
    c_works = "".join(fill(C_WORK, I=i, WORK=ours)
                      for i, (_, ours, _) in enumerate(works.values()))
    ours = build_symdyn_harness(robot, work, c_works, len(works), sizes)
    (work / "bench_floor.c").write_text(fill(
        C_HARNESS, UNIFORM=STATES_C, WORKS=fill(C_WORK, I=0, WORK=fill(
            FLOOR_WORK, ANGLES=angles)), TABLE="work0",
        INCLUDE=f'"{robot.name}.c"', **sizes))
    subprocess.run(["gcc", "-std=c99", *FLAGS, f"-I{work}", str(work / "bench_floor.c"),
                    "-o", str(work / "floor"), "-lm"], check=True)
    model = pinocchio_model(robot.spec, mimic=False)
    tool = model.frames[model.getFrameId("tool")].placement
    cpp_works = "".join(fill(CPP_WORK, I=i, WORK=theirs)
                        for i, (_, _, theirs) in enumerate(works.values()))
    theirs = build_pinocchio_harness(work, fill(
        CPP_HARNESS, UNIFORM=STATES_C, WORKS=cpp_works, TABLE=", ".join(
            f"work{i}" for i in range(len(works))), MODEL=cpp_model(robot.spec),
        TOOL_R=numbers(tool.rotation), TOOL_P=numbers(tool.translation), STATES=STATES))
    return ours, theirs, work / "floor"


def compile_rate(work: Path) -> Path:
    """The harness of the machine's multiplication rate (RATE_C), called as the others are: it
    prints nanoseconds a multiply-add, over 1024 rounds of the chains a repetition."""
    chains = [f"x{i}" for i in range(CHAINS)]
    step = " ".join(f"{x} = fma({x}, 0.9999999, 1e-7);" for x in chains)
    (work / "rate.c").write_text(fill(
        RATE_C, N=CHAINS, DECLARE=", ".join(f"{x} = {1 + i / 64}" for i, x in enumerate(chains)),
        CHAINS=f"int k; for (k = 0; k < 1024; k++) {{ {step} }}", SUM=" + ".join(chains)))
    subprocess.run(["gcc", "-std=c99", *FLAGS, "-fno-tree-vectorize", str(work / "rate.c"),
                    "-o", str(work / "rate"), "-lm"], check=True)
    return work / "rate"


def machine_rate(work: Path, rounds: int, seconds: float) -> float:
    """The machine's multiplications a nanosecond (compile_rate's harness), said in a line."""
    (rate_ns,) = run_alternately([compile_rate(work)], 0, rounds, False, seconds)
    rate = 1 / statistics.median(rate_ns)
    print(f"The machine's rate of scalar multiplications, fused or not ({CHAINS} independent "
          f"chains of fma): {rate:.2f} a ns (+-{spread(rate_ns):.0%}); a floor is a function's "
          "multiplications at that rate.\n")
    return rate


def nanoseconds(binary: Path, work: int, reps: int, smooth: bool) -> float:
    args = [str(binary), str(work), str(reps)] + (["smooth"] if smooth else [])
    return float(subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()[0])


def run_alternately(binaries, work: int, rounds: int, smooth: bool, seconds: float):
    """Per-call times of each binary over ``rounds`` rounds, the binaries in turn and their order
    reversed every other round, so that load on a shared machine falls on both alike. Each run
    repeats the states for about ``seconds`` of CPU time."""
    reps = [max(1, round(seconds * 1e9 / (nanoseconds(b, work, 2, smooth) * STATES)))
            for b in binaries]
    times = [[] for _ in binaries]
    for r in range(rounds):
        order = list(range(len(binaries)))[::1 if r % 2 == 0 else -1]
        for i in order:
            times[i].append(nanoseconds(binaries[i], work, reps[i], smooth))
    return times


def spread(times) -> float:
    """Half the range of the rounds, relative to their median."""
    return (max(times) - min(times)) / 2 / statistics.median(times)


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
    flags = " ".join(FLAGS)
    print(f"symdyn's C (gcc -std=c99 {flags}) and Pinocchio's C++ (g++ -std=c++17 {flags} "
          "-DNDEBUG, from the pin wheel's headers and library) on the same model: the robot's "
          "rotor inertias as Pinocchio's armature, no friction. Each cell is the median over "
          "rounds in which the two harnesses run in turn, with half the range of the rounds "
          "after the +-. random: 1024 independent states, q, qd, qdd (or tau) uniform in "
          "[-3, 3]; trajectory: q along a smooth path, consecutive samples as a controller "
          "calls them. floor: the function's sin and cos (the robot's first row) plus its "
          "multiplications at the machine's rate (below): about the least time the "
          "function's own work takes, in any order; "
          "target: Pinocchio's time over our speed-up target (10x, 8x for the "
          "derivatives).\n")
    rounds, seconds = (3, 0.05) if quick else (7, 0.2)
    with tempfile.TemporaryDirectory() as tmp:
        rate = machine_rate(Path(tmp), rounds, seconds)
        per_call_header()
        for robot in robots:
            time_robot(robot, Path(tmp) / robot.name, rate, rounds, seconds)
    print()


def per_call_header(counts_column: bool = False) -> None:
    """The head of time_robot's table."""
    counts = " multiplications |" if counts_column else ""
    print("| robot | quantity (Pinocchio's function) | symdyn, random | Pinocchio, random "
          f"| speed-up | speed-up, trajectory |{counts} floor | target |")
    print("|---|---|" + "---:|" * (7 if counts_column else 6))


def time_robot(robot, work: Path, rate: float, rounds: int, seconds: float, kinds=None,
               counts_column: bool = False) -> None:
    """Section 1's rows of ``robot`` (WORK, or its ``kinds``), its harnesses built in
    ``work``; with ``counts_column``, each row's multiplications too."""
    work.mkdir(parents=True)
    print(f"  compiling the harnesses for {robot.name} (Pinocchio's headers take a "
          "minute)", file=sys.stderr, flush=True)
    *binaries, floor = compile_harnesses(robot, work, kinds)
    (alone,) = run_alternately([floor], 0, rounds, False, seconds)
    label = f"{robot.name} ({joints(robot)})"
    blank = "| | | | | |" + (" |" if counts_column else "")
    print(f"| {label} | sin and cos of q alone, in every "
          f"function of q | {statistics.median(alone):.0f} ns +-{spread(alone):.0%} "
          f"{blank}", flush=True)
    works = robot_work(robot, kinds)
    multiplications = [count.mul for count in work_counts(symdyn.newton_euler(robot),
                                                          works).values()]
    if robot.coupling:
        print(f"| {label} | the rest: Pinocchio 4.1 has none "
              "for mimic joints (qdd: crba, nonLinearEffects and Eigen's LDL^T) "
              f"{blank} |", flush=True)
    for index, kind in enumerate(works):
        print(f"  timing {kind} of {robot.name}", file=sys.stderr, flush=True)
        ours, theirs = run_alternately(binaries, index, rounds, False, seconds)
        ours_smooth, theirs_smooth = run_alternately(binaries, index, rounds, True, seconds)
        ratio = statistics.median(theirs) / statistics.median(ours)
        ratio_smooth = statistics.median(theirs_smooth) / statistics.median(ours_smooth)
        least = statistics.median(alone) + multiplications[index] / rate
        count = f" {multiplications[index]} |" if counts_column else ""
        print(f"| {label} | {kind} | "
              f"{statistics.median(ours):.0f} ns +-{spread(ours):.0%} | "
              f"{statistics.median(theirs):.0f} ns +-{spread(theirs):.0%} | "
              f"{ratio:.1f}x | {ratio_smooth:.1f}x |{count} {least:.0f} ns | "
              f"{statistics.median(theirs) / target(robot, kind):.0f} ns |", flush=True)


# Every fixed-base tree and every legged robot of example-robot-data, as `symdyn import`
# takes them with its defaults (the trees whole, the legged robots with --root free_flyer):
# issue 53's measure of robots as users get them.
# (with TREE_URDFS, below)
ERD_TREES = {"allegro_left_hand": "allegro_hand_description/urdf/allegro_left_hand.urdf",
             "tiago_no_hand": "tiago_description/robots/tiago_no_hand.urdf"}
ERD_LEGGED = {
    "solo12": "solo_description/robots/solo12.urdf",
    "anymal_c": "anymal_c_simple_description/urdf/anymal.urdf",
    "anymal_b": "anymal_b_simple_description/robots/anymal.urdf",
    "go1": "go1_description/urdf/go1.urdf", "go2": "go2_description/urdf/go2.urdf",
    "a1": "a1_description/urdf/a1.urdf", "b1": "b1_description/urdf/b1.urdf",
    "laikago": "laikago_description/urdf/laikago.urdf",
    "hyq": "hyq_description/robots/hyq_no_sensors.urdf",
    "bolt": "bolt_description/robots/bolt.urdf",
    "icub_reduced": "icub_description/robots/icub_reduced.urdf",
    "talos_reduced": "talos_data/robots/talos_reduced.urdf",
    "romeo_small": "romeo_description/urdf/romeo_small.urdf",
    "g1": "g1_description/urdf/g1_29dof_rev_1_0.urdf",
    "simple_humanoid": "simple_humanoid_description/urdf/simple_humanoid.urdf",
    "alexander_lower_body": "alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf",
    "centauro": "centauro_description/urdf/centauro.urdf",
    "human": "human_description/robots/human.urdf"}
# What issue 53 measures on them: the three recursions and their derivatives.
ERD_KINDS = ("tau (rnea)", "M (crba)", "qdd (aba)", "ID derivatives (computeRNEADerivatives)",
             "FD derivatives (computeABADerivatives)")


def section_erd(quick, only=None):
    """Section 1's rnea, crba, aba and derivatives rows for every tree and legged robot of
    example-robot-data as imported with the defaults (``only``: those names alone)."""
    print("## 11. Every tree and legged robot of example-robot-data, as imported\n")
    print("Each fixed-base tree of example-robot-data imported whole with `symdyn import`'s "
          "defaults, and each legged robot with `--root free_flyer` (no --snap-angles: the "
          "URDF's angles as written), friction left out as section 1 does; the columns as "
          "section 1's, and the multiplications of symdyn's function. A robot the import or "
          "Pinocchio refuses is named with the reason. A tree's FD derivatives solve their "
          "2n columns in a loop the compiler vectorizes (several columns an instruction: eight "
          "with AVX-512), whose every multiplication is counted: their floor is a scalar "
          "code's, which the loop runs under.\n")
    rounds, seconds = (3, 0.05) if quick else (5, 0.1)
    with tempfile.TemporaryDirectory() as tmp:
        rate = machine_rate(Path(tmp), rounds, seconds)
        per_call_header(counts_column=True)
        # the legged robots first: optimal control's (issue 53's targets)
        robots = [(name, path, "free_flyer") for name, path in ERD_LEGGED.items()] + [
            (name, path, None) for name, path in {**TREE_URDFS, **ERD_TREES}.items()]
        for name, relative, root in robots:
            if only and name not in only:
                continue
            folder = Path(tmp) / name
            folder.mkdir()
            try:
                text = import_robot(example_robot(relative), name=name, root=root)[0]
                (folder / f"{name}.yaml").write_text(text)
                robot = without_friction(symdyn.load_robot(folder / f"{name}.yaml"))
                time_robot(robot, folder / "work", rate, rounds, seconds, ERD_KINDS,
                           counts_column=True)
            except (symdyn.SymdynError, subprocess.CalledProcessError, RuntimeError,
                    ValueError) as exc:
                reason = " ".join(str(exc).split())[:200]
                print(f"| {name} | not measured: {reason} | | | | | | | |", flush=True)
    print()

# Section 6: the peer's functions, each beside symdyn's that computes the same: (symdyn's C call,
# the CasADi function's name, its inputs: "q" or "q, qd").
PEER_WORK = {
    "M": ("@NAME@_mass_matrix(q[k], out); sink += out[N * N - 1];", "peer_M", "q"),
    "h = C qd + g": ("@NAME@_nonlinear_effects(q[k], qd[k], out); sink += out[N - 1];",
                     "peer_h", "q, qd"),
    "tool pose + Jacobian": ("@NAME@_pose_and_jacobian(q[k], out, out + 16); "
                             "sink += out[3] + out[16];", "peer_TJ", "q"),
}
PEER_C_WORK = harness("peer_work.c")


def peer_functions(robot, folder: Path) -> dict:
    """adam-robotics' CasADi expressions of ``robot`` (read from symdyn's URDF export of it), for
    a fixed base (the base pose the identity, its velocity zero, the joints' block of the
    floating-base quantities), as CasADi functions named as PEER_WORK says."""
    import casadi as cs
    from adam.casadi import KinDynComputations

    from symdyn.robot.export import urdf_text

    urdf = folder / f"{robot.name}.urdf"
    urdf.write_text(urdf_text(robot))
    n = robot.dof
    kd = KinDynComputations(str(urdf), [f"joint{i}" for i in range(1, n + 1)])
    s, v = cs.SX.sym("s", n), cs.SX.sym("v", n)
    H, base = cs.SX.eye(4), cs.SX.zeros(6)
    return {
        "peer_M": cs.Function("peer_M", [s], [kd.mass_matrix(H, s)[6:, 6:]]),
        "peer_h": cs.Function("peer_h", [s, v], [kd.bias_force(H, s, base, v)[6:]]),
        "peer_TJ": cs.Function("peer_TJ", [s], [kd.forward_kinematics("tool", H, s),
                                               kd.jacobian("tool", H, s)[:, 6:]]),
    }


def import_module_from(path: Path):
    """The Python module in the file at ``path`` (a generated one, under its file's name)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def symdyn_casadi_functions(robot, folder: Path) -> dict:
    """symdyn's own CasADi functions (--lang casadi) of PEER_WORK's quantities, named as
    PEER_WORK names adam's with "ours" for "peer", for CasADi to generate C of alike."""
    import casadi as cs

    symdyn.generate(symdyn.newton_euler(robot), "casadi", folder,
                    quantities=["mass_matrix", "nonlinear_effects", "pose_and_jacobian"])
    module = import_module_from(folder / f"{robot.name}_casadi.py")
    s, v = cs.SX.sym("s", robot.dof), cs.SX.sym("v", robot.dof)
    return {"ours_M": cs.Function("ours_M", [s], [module.mass_matrix()(s)]),
            "ours_h": cs.Function("ours_h", [s, v], [module.nonlinear_effects()(s, v)]),
            "ours_TJ": cs.Function("ours_TJ", [s], list(module.pose_and_jacobian()(s)))}


def casadi_c(functions: dict, folder: Path, name: str, n: int) -> Path:
    """CasADi's C of ``functions`` (its CSE on) in ``folder``/``name``.c, and a harness timing
    them as PEER_WORK says: the harness's source."""
    import casadi
    generator = casadi.CodeGenerator(f"{name}.c", {"with_header": True})
    for function in functions.values():
        generator.add(function)
    generator.generate(str(folder) + "/")
    prefix = next(iter(functions)).split("_")[0]
    works = "".join(fill(PEER_C_WORK, I=i, FUNCTION=function.replace("peer", prefix),
                         W=max(1, functions[function.replace("peer", prefix)].sz_w()),
                         IW=max(1, functions[function.replace("peer", prefix)].sz_iw()),
                         ARGS=len(inputs.split(", ")))
                    for i, (_, function, inputs) in enumerate(PEER_WORK.values()))
    harness = folder / f"{name}_harness.c"
    harness.write_text(fill(
        C_HARNESS, UNIFORM=STATES_C, WORKS=works, TABLE=", ".join(
            f"work{i}" for i in range(len(PEER_WORK))), INCLUDE=f'"{name}.h"', N=n, NQ=n,
            NORMALIZE="", STATES=STATES))
    return harness


def compile_peer(robot, folder: Path):
    """Three harnesses timing PEER_WORK's functions on the same states: symdyn's C, the C
    CasADi generates of adam's expressions, and the C CasADi generates of symdyn's CasADi
    functions."""
    n = robot.dof
    symdyn.generate(symdyn.newton_euler(robot), "c", folder,
                    quantities=["mass_matrix", "nonlinear_effects", "pose_and_jacobian"])
    ours = "".join(fill(C_WORK, I=i, WORK=call) for i, (call, _, _) in enumerate(
        PEER_WORK.values()))
    (folder / "ours.c").write_text(fill(
        C_HARNESS, UNIFORM=STATES_C, WORKS=ours, TABLE=", ".join(
            f"work{i}" for i in range(len(PEER_WORK))), INCLUDE=f'"{robot.name}.h"',
        NAME=robot.name, N=n, NQ=n, NORMALIZE="", STATES=STATES))
    harnesses = [(folder / "ours.c", folder / f"{robot.name}.c"),
                 (casadi_c(peer_functions(robot, folder), folder, "peer", n), folder / "peer.c"),
                 (casadi_c(symdyn_casadi_functions(robot, folder), folder, "ours_casadi", n),
                  folder / "ours_casadi.c")]
    binaries = []
    for harness, source in harnesses:
        binary = harness.with_suffix("")
        subprocess.run(["gcc", "-std=c99", *FLAGS, f"-I{folder}", str(harness), str(source),
                        "-o", str(binary), "-lm"], check=True)
        binaries.append(binary)
    return binaries


def section_peer(robots, quick):
    import casadi
    print("## 6. Generated C against CasADi's generated C (adam-robotics)\n")
    print(f"adam-robotics builds each quantity as a CasADi expression from a URDF (symdyn's "
          f"export of the robot); CasADi {casadi.__version__} writes it as C (its CSE on). The "
          "base is fixed: the floating-base functions with the base at the identity and at "
          "rest, their joints' block. Both C files are compiled alike (gcc -std=c99 "
          f"{' '.join(FLAGS)}) and timed as in section 1, the harnesses taking turns.\n")
    print("The third column is symdyn's own CasADi functions (--lang casadi), their C generated "
          "by CasADi as adam's are: the speed-up a CasADi user gets by taking symdyn's "
          "functions.\n")
    print("| robot | quantity | symdyn | CasADi (adam) | ratio | CasADi (symdyn's) | "
          "adam / symdyn's, both CasADi |")
    print("|---|---|---:|---:|---:|---:|---:|")
    rounds, seconds = (3, 0.05) if quick else (7, 0.2)
    with tempfile.TemporaryDirectory() as tmp:
        for robot in robots:
            folder = Path(tmp) / robot.name
            folder.mkdir()
            binaries = compile_peer(robot, folder)
            for index, kind in enumerate(PEER_WORK):
                ours, theirs, via = run_alternately(binaries, index, rounds, False, seconds)
                print(f"| {robot.name} | {kind} | {statistics.median(ours):.0f} ns "
                      f"+-{spread(ours):.0%} | {statistics.median(theirs):.0f} ns "
                      f"+-{spread(theirs):.0%} | "
                      f"{statistics.median(theirs) / statistics.median(ours):.1f}x | "
                      f"{statistics.median(via):.0f} ns +-{spread(via):.0%} | "
                      f"{statistics.median(theirs) / statistics.median(via):.1f}x |",
                      flush=True)
    print()


def _adam_inverse_dynamics(kd, H, z, q, qd, qdd):
    """M qdd + h from adam's functions: it has no inverse dynamics of its own."""
    return kd.mass_matrix(H, q)[6:, 6:] @ qdd + kd.bias_force(H, q, z, qd)[6:]


def _adam_forward_dynamics(kd, H, z, q, qd, tau):
    """M^-1 (tau - h) from adam's functions: its aba() is a floating base's."""
    import jax.numpy as jnp
    return jnp.linalg.solve(kd.mass_matrix(H, q)[6:, 6:], tau - kd.bias_force(H, q, z, qd)[6:])


# XLA's older CPU code emitters, in place of its fusion emitters (the default with JAX 0.10.2):
# a compiler option a user can give jax.jit, timed beside the default in section 9.
OLDER_EMITTERS = {"xla_cpu_use_fusion_emitters": False}

JAX_WORK = {   # quantity: (symdyn's function, adam's, how many of q, qd, qdd (or tau) it takes)
    "M": ("mass_matrix", lambda kd, H, z, q: kd.mass_matrix(H, q)[6:, 6:], 1),
    "h = C qd + g": ("nonlinear_effects",
                     lambda kd, H, z, q, qd: kd.bias_force(H, q, z, qd)[6:], 2),
    "inverse dynamics": ("inverse_dynamics", _adam_inverse_dynamics, 3),
    "tool Jacobian": ("jacobian", lambda kd, H, z, q: kd.jacobian("tool", H, q)[:, 6:], 1),
    "forward dynamics": ("forward_dynamics", _adam_forward_dynamics, 3),
}


def section_jax(robots):
    """symdyn's JAX module (--lang jax) against adam-robotics' JAX functions of the same robot
    (from symdyn's URDF export), both jit-compiled on the CPU in float64: one state a call, and
    10,000 states through jax.vmap; beside them the numpy module's batch."""
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from adam.jax import KinDynComputations

    from symdyn.robot.export import urdf_text
    print("## 9. JAX: symdyn's module against adam-robotics'\n")
    print(f"JAX {jax.__version__} on the CPU, float64, every function jax.jit-compiled (its "
          "first call, which compiles it, not timed); CPU time a call (JAX's threads "
          "included), median of rounds in which the contenders take turns. adam-robotics "
          "builds each quantity from symdyn's URDF export of the robot, with the base fixed "
          "(the identity, at rest, the joints' block). vmap: 10,000 states in one call of "
          "jax.jit(jax.vmap(f)), per state; numpy: the numpy module's batch of the same "
          "states, in a process of its own, glibc's allocator keeping freed memory "
          "(NUMPY_ALLOCATOR). adam has no inverse "
          "dynamics and a floating base's forward dynamics alone: its M qdd + h and "
          "M^-1 (tau - h) stand in. Older emitters: both contenders compiled again with "
          f"XLA's older CPU code emitters (jax.jit(f, compiler_options={OLDER_EMITTERS})), "
          "timed in the same rounds.\n")
    print("| robot | quantity | symdyn, 1 state | adam, 1 state | ratio | symdyn, older "
          "emitters | adam, older emitters | ratio | symdyn, vmap | adam, vmap | numpy batch |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for robot in robots:
            folder = Path(tmp)
            dynamics = symdyn.newton_euler(robot)
            symdyn.generate(dynamics, ["jax", "python"], folder,
                            quantities=[name for name, _, _ in JAX_WORK.values()])
            ours = import_module_from(folder / f"{robot.name}_jax.py")
            urdf = folder / f"{robot.name}.urdf"
            urdf.write_text(urdf_text(robot))
            with contextlib.redirect_stderr(io.StringIO()):     # adam's parser's notes
                kd = KinDynComputations(str(urdf), [f"joint{i}"
                                                    for i in range(1, robot.dof + 1)])
            H, zero = jnp.eye(4), jnp.zeros(6)
            one = [jnp.asarray(rng.uniform(-3, 3, robot.dof)) for _ in range(3)]
            batch = [jnp.asarray(rng.uniform(-3, 3, (10_000, robot.dof))) for _ in range(3)]
            for kind, (name, theirs, count) in JAX_WORK.items():
                mine = getattr(ours, name)

                def adams(*state, theirs=theirs):
                    return theirs(kd, H, zero, *state)
                contenders = [jax.jit(f, **options) for options in ({}, {
                    "compiler_options": OLDER_EMITTERS}) for f in (mine, adams)]
                mapped = [jax.jit(jax.vmap(f)) for f in (mine, adams)]
                for f in contenders:
                    jax.block_until_ready(f(*one[:count]))
                vmap_times = []
                for f in mapped:
                    try:
                        jax.block_until_ready(f(*batch[:count]))
                        vmap_times.append(per_call((lambda f=f: jax.block_until_ready(
                            f(*batch[:count])), ()), rounds=3)[0] / 10_000)
                    except Exception as exc:     # noqa: BLE001 (a peer's failure is a cell)
                        vmap_times.append(f"fails ({type(exc).__name__})")
                single = per_call(*((lambda f=f: jax.block_until_ready(f(*one[:count])), ())
                                    for f in contenders))
                inputs = folder / "states.npz"
                np.savez(inputs, *(np.asarray(x) for x in batch[:count]))
                numpy_batch = numpy_batch_seconds(folder / f"{robot.name}.py", name,
                                                  inputs) / 10_000
                cells = [f"{t * 1e6:.2f} us" if isinstance(t, float) else t
                         for t in vmap_times]
                print(f"| {robot.name} | {kind} | {single[0] * 1e6:.1f} us | "
                      f"{single[1] * 1e6:.1f} us | {single[1] / single[0]:.1f}x | "
                      f"{single[2] * 1e6:.1f} us | {single[3] * 1e6:.1f} us | "
                      f"{single[3] / single[2]:.1f}x | {cells[0]} | {cells[1]} | "
                      f"{numpy_batch * 1e6:.2f} us |", flush=True)
    print()


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
            symdyn.generate(dynamics, ["python"], Path(tmp), quantities=TAU)
            model = pinocchio_model(robot.spec)
            data = model.createData()
            q, qd, qdd = (rng.uniform(-3, 3, robot.dof) for _ in range(3))
            batch = [rng.uniform(-3, 3, (10_000, robot.dof)) for _ in range(3)]
            ours, theirs, compiled_batch = per_call(
                (compiled.inverse_dynamics, (q, qd, qdd)), (pin.rnea, (model, data, q, qd, qdd)),
                (compiled.inverse_dynamics, batch))
            np.savez(Path(tmp) / "states.npz", *batch)
            numpy_batch = numpy_batch_seconds(Path(tmp) / f"{robot.name}.py",
                                              "inverse_dynamics", Path(tmp) / "states.npz")
            compiled_batch, numpy_batch = compiled_batch / 10_000, numpy_batch / 10_000
            print(f"| {robot.name} | {ours * 1e6:.2f} us | {theirs * 1e6:.2f} us | "
                  f"{theirs / ours:.1f}x | {compiled_batch * 1e6:.3f} us/state | "
                  f"{numpy_batch * 1e6:.3f} us/state |", flush=True)
    print("\nA compiled batch goes four states at a time through kernels that gcc vectorises for "
          "this machine (-O2 -march=native); one state pays mostly for converting the Python "
          "arguments. The numpy batch runs in a process of its own (NUMPY_ALLOCATOR, as in "
          "section 9).\n")


def section_ops():
    print("## 3. Operation counts (multiplications / additions, after optimization)\n")
    print("| robot | quantity | symdyn | as derived | published |")
    print("|---|---|---:|---:|---|")
    for name in ("puma560", "panda", "puma560_linear"):
        robot = symdyn.load_robot(ROOT / "robots" / f"{name}.yaml")
        dynamics = symdyn.newton_euler(robot)
        programs = {quantity: dynamics.program(quantity) for quantity in (
            "inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
            "forward_dynamics", *TOOL_KINEMATICS, "regressor", "base_regressor",
            "inverse_dynamics_derivatives", "forward_dynamics_derivatives", "all_terms")}
        programs["tau in base parameters"] = base_parameter_tau(dynamics)
        optimized = optimize_all(programs.values())       # as generate optimizes them
        for (quantity, raw), done in zip(programs.items(), optimized):
            ops, before = symdyn.op_count(done), symdyn.op_count(raw)
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
        symdyn.generate(panda, ["python", "c"], tmp, quantities=TOOL_KINEMATICS)
        print(f"Every kinematic quantity of the Panda (7 joints), derived, optimized and written "
              f"as Python and C: {(time.process_time() - start) * 1e3:.0f} ms CPU (M and h "
              "included: the tool's pose, Jacobian and dJ/dt qd are optimized with them, as "
              "parts of all_terms).\n")
        section_ops_as_written(Path(tmp))


def section_ops_as_written(folder: Path):
    """The same robots as other tools write them (users_robots), and the UR5 imported with
    the importer's former tolerance for angles, 1e-12 rad (URDF's 1.57079632679 kept)."""
    paths = users_robots(folder)
    older = folder / "ur5_import_1e_12.yaml"
    older.write_text(import_robot(example_robot("ur_description/urdf/ur5_robot.urdf"),
                                  tip="tool0", name="ur5_import_1e_12", snap_angles=1e-12)[0])
    special = folder / "chain7_special.yaml"
    special.write_text(chain_yaml(7).replace("name: chain7\n", "name: chain7_special\n"))
    print("Robots as users write them (multiplications / additions after optimization):\n")
    print("| robot as written | inverse_dynamics | mass_matrix | forward_dynamics |")
    print("|---|---:|---:|---:|")
    for path in [*paths, older, special]:
        dynamics = symdyn.newton_euler(symdyn.load_robot(path))
        done = optimize_all(dynamics.program(q) for q in (
            "inverse_dynamics", "mass_matrix", "forward_dynamics"))
        print(f"| {path.stem} | " + " | ".join(
            f"{symdyn.op_count(p).mul}/{symdyn.op_count(p).add}" for p in done) + " |",
              flush=True)
    print("\npanda_floats is the Panda with 1.5707963267948966 for pi/2, as the Robotics Toolbox "
          "stores it; ur5_import is `symdyn import ur5_robot.urdf --tip tool0`, which now takes "
          "the URDF's 1.57079632679 as pi/2 (snapping within 1e-9 rad); chain7 is chain_yaml's "
          "7-joint chain, special or generic.\n")


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


GEOMETRIES = ("special", "generic")


def chain_yaml(n: int, geometry: str = "special") -> str:
    """An n-joint chain: twists alternating 0, pi/2, -pi/2 and no offsets (special), or twists
    and offsets anywhere in (-3, 3) rad, written as floats (generic)."""
    rng = np.random.default_rng(n)
    lines = [f"name: chain{n}", "convention: modified", "links:"]
    for i in range(n):
        alpha, theta = ((repr(float(rng.uniform(-3, 3))), repr(float(rng.uniform(-3, 3))))
                        if geometry == "generic" else (("0", "pi/2", "-pi/2")[i % 3], "0"))
        lines.append(f"  - {{joint: revolute, alpha: {alpha}, a: {rng.uniform(0, 0.4):.3f}, "
                     f"d: {rng.uniform(0, 0.3):.3f}, theta: {theta}, "
                     f"mass: {rng.uniform(1, 5):.3f}, "
                     f"com: [{rng.uniform(-0.1, 0.1):.3f}, 0.01, {rng.uniform(0, 0.1):.3f}], "
                     f"inertia: [0.02, 0.03, 0.025, 0.001, 0, 0.002]}}")
    return "\n".join(lines) + "\n"


# The columns of the scaling table: each group of quantities, generated in this order.
GROUPS = {
    "tau, g, h, friction, J^T w": ("inverse_dynamics", "gravity_torques", "nonlinear_effects",
                                   "friction_torques", "tool_wrench_torques"),
    "M": ("mass_matrix",),
    "C": ("coriolis_matrix",),
    "qdd": ("forward_dynamics",),
    "kinematics": TOOL_KINEMATICS,
    "ID derivatives": ("inverse_dynamics_derivatives",),
    "FD derivatives": ("forward_dynamics_derivatives",),
    "Y, Y_b, beta": ("regressor", "base_regressor", "base_parameters"),
    "K, V, com": ("kinetic_energy", "potential_energy", "center_of_mass"),
}


def chain_times(n: int, geometry: str) -> dict:
    """CPU seconds of each group of quantities of an n-joint chain (chain_yaml), generated one
    group after the other in this process, and the operations of all the generated functions."""
    times, operations = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"chain{n}.yaml"
        path.write_text(chain_yaml(n, geometry))
        dynamics = symdyn.newton_euler(symdyn.load_robot(path))
        for group, quantities in GROUPS.items():
            start = time.process_time()
            symdyn.generate(dynamics, ["python", "c"], Path(tmp) / "out", quantities=quantities)
            times[group] = time.process_time() - start
            for done in optimize_all(dynamics.program(quantity) for quantity in quantities):
                ops = symdyn.op_count(done)
                operations += ops.mul + ops.add
    return {"times": times, "operations": operations}


def lagrange_times() -> dict:
    """CPU seconds of `symdyn generate --method lagrange --lang python --lang c` for the Panda,
    every quantity, in this process, and how many quantities that is."""
    lagrange = symdyn.lagrange(symdyn.load_robot(ROOT / "robots" / "panda.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        symdyn.generate(lagrange, ["python", "c"], tmp)
        return {"seconds": time.process_time() - start, "quantities": len(lagrange.available)}


TREE_URDFS = {"allegro_right_hand": "allegro_hand_description/urdf/allegro_right_hand.urdf",
              "alex_nub_hands": "alex_description/urdf/alex_nub_hands.urdf",
              "tiago": "tiago_description/robots/tiago.urdf",
              "panda_fingers": "panda_description/urdf/panda.urdf",
              "baxter": "baxter_description/urdf/baxter.urdf",
              "pr2": "pr2_description/urdf/pr2.urdf",
              "tiago_pro": "tiago_pro_description/robots/tiago_pro.urdf"}
# Robots on a free-flyer, from a drone to a humanoid with mimic grippers: issue 30's growth
# with joints (TALOS: every quantity but the derivatives in under 60 s, all in under 5 min).
FLOATING_TREES = {"hector": "hector_description/robots/quadrotor_base.urdf",
                  "bolt": "bolt_description/robots/bolt.urdf",
                  "solo12": "solo_description/robots/solo12.urdf",
                  "anymal": "anymal_c_simple_description/urdf/anymal.urdf",
                  "alex_nub_hands": "alex_description/urdf/alex_nub_hands.urdf",
                  "g1": "g1_description/urdf/g1_29dof_rev_1_0.urdf",
                  "talos_full": "talos_data/robots/talos_full_v2.urdf",
                  "centauro": "centauro_description/urdf/centauro.urdf"}
DERIVATIVES = ("inverse_dynamics_derivatives", "forward_dynamics_derivatives")


# The numpy module's batch is timed in a process of its own, with glibc's allocator told to
# keep freed memory: otherwise it may give numpy's temporaries back to the system and take them
# again at every operation, which depends on what the process allocated before (the Panda's M
# batch, the same code: 0.37 us a state from a module of every quantity, 1.56 from one of two,
# 1.2 after importing sympy; 0.31-0.44 with these settings, sympy imported or not).
NUMPY_ALLOCATOR = {"MALLOC_TRIM_THRESHOLD_": "100000000", "MALLOC_TOP_PAD_": "100000000"}


def numpy_batch_seconds(module: Path, name: str, inputs: Path) -> float:
    """CPU seconds a call of the numpy module's ``name`` on the batch saved at ``inputs``
    (per_call, three rounds), in a process of its own (NUMPY_ALLOCATOR)."""
    return in_fresh_process("numpy_batch", module, name, inputs,
                            env=NUMPY_ALLOCATOR)["seconds"]


def numpy_batch(module: str, name: str, inputs: str) -> dict:
    """numpy_batch_seconds' job."""
    arrays = np.load(inputs)
    function = getattr(import_module_from(Path(module)), name)
    return {"seconds": per_call((function, [arrays[k] for k in arrays.files]), rounds=3)[0]}


def tree_times(name: str) -> dict:
    """CPU seconds of importing a tree of example-robot-data whole (TREE_URDFS, or
    FLOATING_TREES on a free-flyer) and of generating every quantity it has as Python and C
    (a floating robot's: all but the derivatives, then those), in this process."""
    floating = name in FLOATING_TREES
    relative = (FLOATING_TREES if floating else TREE_URDFS)[name]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        text, _ = import_robot(example_robot(relative), name=name,
                               root="free_flyer" if floating else None)
        path = Path(tmp) / f"{name}.yaml"
        path.write_text(text)
        imported = time.process_time() - start
        dynamics = symdyn.newton_euler(symdyn.load_robot(path))
        before = None
        if floating:
            symdyn.generate(dynamics, ["python", "c"], Path(tmp) / "first", quantities=[
                q for q in dynamics.available if q not in DERIVATIVES])
            before = time.process_time() - start - imported
        symdyn.generate(dynamics, ["python", "c"], Path(tmp) / "out")
        robot = dynamics.robot
        return {"import": imported, "generate": time.process_time() - start - imported,
                "without derivatives": before, "joints": robot.dof,
                "links": len(robot.links), "frames": len(robot.frames),
                "quantities": len(dynamics.available)}


def as_a_chain(robot):
    """The same links, each the child of the one before: the densest tree of them."""
    return replace(robot, links=tuple(replace(link, parent=link.index - 1)
                                      for link in robot.links))


def section_trees(quick):
    print("## 7. Trees: robots imported whole\n")
    names = ["allegro_right_hand"] if quick else list(TREE_URDFS)
    print("Each URDF of example-robot-data imported whole (`symdyn import` without `--tip`) and "
          "every quantity it has generated as Python and C, in a fresh process (CPU time). "
          "M of the tree against the same links chained one after the other (each link's "
          "parent the link before it, the densest tree of them): the entries of links on "
          "different branches are zeros, never computed.\n")
    print("| robot | joints | frames | quantities | import | generate | M, tree | M, as a "
          "chain | zeros of M | forward_dynamics, tree (L^T D L) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        times = in_fresh_process("tree_times", name)
        text, spec = import_robot(example_robot(TREE_URDFS[name]), name=name)
        tree = symdyn.Robot.from_spec(spec)
        counts, zeros = [], []
        for robot in (tree, as_a_chain(tree)):
            (done,) = optimize_all([symdyn.newton_euler(robot).program("mass_matrix")])
            counts.append(symdyn.op_count(done))
            zeros.append(sum(v == 0 for v in done.outputs[0].values))
        (solved,) = optimize_all([symdyn.newton_euler(tree).program("forward_dynamics")])
        fd = symdyn.op_count(solved)
        n = tree.dof
        joints = f"{n}" + (f" (+{len(tree.links) - n} mimic)" if tree.coupling else "")
        print(f"| {name} | {joints} | {times['frames']} | {times['quantities']} | "
              f"{times['import']:.1f} s | {times['generate']:.1f} s | "
              f"{counts[0].mul}/{counts[0].add} | {counts[1].mul}/{counts[1].add} | "
              f"{zeros[0]} of {n * n} | {fd.mul}/{fd.add} |", flush=True)
    print()
    print("On a free-flyer (`symdyn import --root free_flyer`), from a drone to humanoids: "
          "import, then every quantity but the derivatives generated as Python and C, then "
          "the derivatives too (the time of all), in a fresh process (CPU time).\n")
    print("| robot | velocities (nv) | links | quantities | import | all but the derivatives "
          "| all |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in ["solo12"] if quick else list(FLOATING_TREES):
        times = in_fresh_process("tree_times", name)
        print(f"| {name} | {times['joints']} | {times['links']} | {times['quantities']} | "
              f"{times['import']:.1f} s | {times['without derivatives']:.1f} s | "
              f"{times['generate']:.1f} s |", flush=True)
    print()


def in_fresh_process(job: str, *args, env: dict | None = None) -> dict:
    """``job`` (chain_times, lagrange_times, tree_times or numpy_batch) run by this script in a
    new Python process, with ``env`` added to the environment: each measurement starts from
    the same state, not from what the ones before left in memory."""
    done = subprocess.run([sys.executable, __file__, "--job", job, *map(str, args)],
                          capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})})
    return json.loads(done.stdout)


def section_scaling(quick, plot: Path | None = None):
    rounds = 1 if quick else 3
    counted = f"{rounds} round{'s' * (rounds > 1)}"
    sizes = (2, 4, 7) if quick else (2, 4, 7, 10, 14, 20)
    print("## 4. From robot file to Python and C files: CPU time against joints\n")
    print("Every quantity of a chain of n revolute joints (random lengths and inertias; "
          "special: twists alternating 0, pi/2, -pi/2, no offsets; generic: twists and offsets "
          "anywhere, written as floats), derived, optimized and written as Python and C, one "
          "group after the "
          f"other in one process (Y_b and beta reuse Y). Each chain runs in a fresh process, "
          f"{counted} over all the sizes in turn: each cell is the median of the rounds, and "
          "the spread is half the range of the totals relative to their median. The last "
          "columns are the operations of all the generated functions together and the time per "
          "operation.\n")
    runs: dict[tuple, list] = {(n, g): [] for g in GEOMETRIES for n in sizes}
    lagrange = []
    for r in range(rounds):
        for n, geometry in runs:
            print(f"  round {r + 1}/{rounds}: {n} joints, {geometry}", file=sys.stderr,
                  flush=True)
            runs[n, geometry].append(in_fresh_process("chain_times", n, geometry))
        print(f"  round {r + 1}/{rounds}: Lagrange, panda", file=sys.stderr, flush=True)
        lagrange.append(in_fresh_process("lagrange_times"))
    print("| joints | geometry | " + " | ".join(GROUPS) + " | all | spread | mul + add of all "
          "| per operation |")
    print("|---:|---|" + "---:|" * (len(GROUPS) + 4))
    points, generic = [], []
    for (n, geometry), measured in runs.items():
        times = {group: statistics.median(run["times"][group] for run in measured)
                 for group in GROUPS}
        totals = [sum(run["times"].values()) for run in measured]
        total, operations = statistics.median(totals), measured[0]["operations"]
        print(f"| {n} | {geometry} | " + " | ".join(f"{t:.2f} s" for t in times.values())
              + f" | {total:.1f} s | +-{spread(totals):.0%} | {operations} | "
              f"{total / operations * 1e3:.2f} ms |", flush=True)
        if geometry == "special":
            points.append((n, times, operations))
        else:
            generic.append(total)
    if plot is not None:
        plot.write_text(scaling_svg(points, generic))
        print(f"\n![time against joints, log-log]({plot.name})")   # beside results.md
    print()
    totals = [run["seconds"] for run in lagrange]
    print(f"The Lagrange route for the Panda (7 joints): every quantity it offers "
          f"({lagrange[0]['quantities']}) derived, optimized and written as Python and C in one "
          f"generate call, in a fresh process, median of {counted}: "
          f"{statistics.median(totals):.1f} s CPU (+-{spread(totals):.0%}).\n")


def scaling_svg(points, generic) -> str:
    """CPU time of each group against joints on log-log axes, the total of the generic chains
    beside them, with the slopes of n, n^2 and n^3 drawn through the smallest chain's total for
    comparison."""
    width, height, left, bottom, top, right = 560, 360, 60, 40, 20, 170
    ns = [n for n, _, _ in points]
    totals = [sum(times.values()) for _, times, _ in points]
    lo = min(min(t for t in times.values() if t > 0) for _, times, _ in points)
    hi = max(totals + generic)
    log_lo, log_hi = math.floor(math.log10(lo)), math.ceil(math.log10(hi))

    def x(n):
        return left + (width - left - right) * math.log(n / ns[0]) / math.log(ns[-1] / ns[0])

    def y(t):
        return height - bottom - (height - bottom - top) * (
            math.log10(max(t, lo)) - log_lo) / (log_hi - log_lo)

    def polyline(values, colour, dash=""):
        xy = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in zip(ns, values))
        return (f'<polyline points="{xy}" fill="none" stroke="{colour}" stroke-width="2"'
                f'{dash}/>')

    colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#000000", "#17becf"]
    series = [(group, [times[group] for _, times, _ in points]) for group in GROUPS]
    series += [("all", totals), ("all, generic", generic)]
    parts = []
    for k, (label, values) in enumerate(series):
        parts.append(polyline(values, colours[k]))
        parts.append(f'<text x="{width - right + 8}" y="{top + 14 * k + 10}" font-size="11" '
                     f'fill="{colours[k]}">{html.escape(label)}</text>')
    for power, dash in ((1, "2,2"), (2, "6,3"), (3, "10,4")):
        guide = [totals[0] * (n / ns[0]) ** power for n in ns]
        parts.append(polyline(guide, "#bbbbbb", f' stroke-dasharray="{dash}"'))
        parts.append(f'<text x="{width - right + 8}" y="{top + 14 * (len(series) + power) + 10}"'
                     f' font-size="11" fill="#999999">slope n^{power}</text>')
    ticks = "".join(f'<text x="{x(n):.1f}" y="{height - bottom + 16}" font-size="11" '
                    f'text-anchor="middle">{n}</text>' for n in ns)
    ticks += "".join(f'<text x="{left - 6}" y="{y(10.0 ** e) + 4:.1f}" font-size="11" '
                     f'text-anchor="end">{10.0 ** e:g} s</text>'
                     for e in range(log_lo, log_hi + 1))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif"><rect width="{width}" height="{height}" fill="white"/>'
            f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" '
            f'y2="{height - bottom}" stroke="black"/><line x1="{left}" y1="{height - bottom}" '
            f'x2="{left}" y2="{top}" stroke="black"/>{ticks}'
            f'<text x="{(width - right + left) / 2}" y="{height - 6}" font-size="12" '
            f'text-anchor="middle">joints (log scale)</text>{"".join(parts)}</svg>\n')


# Runs a command in a child of its own and prints the child's CPU seconds and peak resident
# KiB as the kernel measured them (wait4). The command must not be started from this process
# directly: Linux carries a process's peak across exec, so a command spawned from here would
# report this process's memory (numpy, Pinocchio, ...) as its own peak. This small interpreter
# forks, and the command's peak starts from its fresh copy.
USAGE_OF_A_CHILD = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status),
      file=sys.stderr)
"""


def command_usage(argv, env) -> tuple[float, float]:
    """CPU seconds (user + system) and peak resident MiB of one command, run in its own process
    and measured by the kernel for that process alone (USAGE_OF_A_CHILD)."""
    run = subprocess.run([sys.executable, "-c", USAGE_OF_A_CHILD, *map(str, argv)], env=env,
                         cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)     # this checkout's symdyn
    *error, last = run.stderr.rstrip("\n").split("\n")
    seconds, peak_kib, code = last.split()
    if int(code) != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} failed:\n" + "\n".join(error))
    return float(seconds), int(peak_kib) / 1024


def measurement_csv(path: Path, rows: int, joints: int = 7):
    """``rows`` samples of q, qd, qdd, tau for ``joints`` joints (random numbers: identify's
    work does not depend on their values), written a block at a time."""
    rng = np.random.default_rng(rows)
    with path.open("w") as fh:
        fh.write(",".join(f"{k}{i}" for k in ("q", "qd", "qdd", "tau")
                          for i in range(1, joints + 1)) + "\n")
        for start in range(0, rows, 100_000):
            block = rng.uniform(-1, 1, (min(100_000, rows - start), 4 * joints))
            np.savetxt(fh, block, delimiter=",", fmt="%.6g")


def section_commands(quick):
    rounds = 1 if quick else 3
    print("## 5. The commands as a user runs them\n")
    print("Each command runs in its own process with an empty cache (a user's first run), "
          f"{rounds} round{'s' * (rounds > 1)} of all the commands in turn; CPU time is user + "
          "system of that process, peak memory its largest resident size, both as the kernel "
          "reports them. The identify data are random rows of a 7-joint arm's CSV (its work "
          "does not depend on the values).\n")
    urdf = example_robot("baxter_description/urdf/baxter.urdf")
    biggest = 1_000_000 if quick else 5_000_000
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cli = [sys.executable, "-m", "symdyn"]
        panda = ROOT / "robots" / "panda.yaml"
        chain = tmp / "chain10.yaml"
        chain.write_text(chain_yaml(10))
        long_chain = tmp / "chain64.yaml"
        long_chain.write_text(chain_yaml(64, "generic"))
        baxter = tmp / "baxter_left.yaml"
        subprocess.run([*cli, "import", str(urdf), "--tip", "left_wrist", "-o", str(baxter), "-q"],
                       check=True)
        biped = tmp / "cassie_biped.yaml"
        subprocess.run([*cli, "import", str(CASSIE_BIPED), "-o", str(biped), "-q"], check=True)
        print("  writing the identify data", file=sys.stderr, flush=True)
        data = {}
        for rows in sorted({1_000_000, biggest}):
            data[rows] = tmp / f"rows{rows}.csv"
            measurement_csv(data[rows], rows)
        commands = {
            "excite panda (defaults: 5 harmonics, 400 steps, 10 s at 100 Hz)":
                ([*cli, "excite", str(panda), "-o", str(tmp / "excite.csv"), "-q"], rounds),
            "check panda (100 states)": ([*cli, "check", str(panda), "-q"], rounds),
            "generate delta --lang python --lang c (every quantity; 5 loops, a spherical joint)":
                ([*cli, "generate", str(DELTA), "--lang", "python", "--lang", "c", "--out",
                  str(tmp / "delta"), "-q"], rounds),
            "generate cassie_biped --lang python --lang c (every quantity; imported from its "
            "MJCF: a floating base, 4 loops through rods on ball joints)":
                ([*cli, "generate", str(biped), "--lang", "python", "--lang", "c", "--out",
                  str(tmp / "biped"), "-q"], rounds),
            "check of a 10-joint chain (100 states)": ([*cli, "check", str(chain), "-q"], rounds),
            # issue 53's bound on generation: 60 s of CPU and 1 GB
            "generate a 64-joint chain of generic geometry --lang python --lang c (every "
            "quantity)": ([*cli, "generate", str(long_chain), "--lang", "python", "--lang", "c",
                           "--out", str(tmp / "chain64"), "-q"], 1),
            "check baxter's left arm --urdf baxter.urdf (20 states)":
                ([*cli, "check", str(baxter), "--urdf", str(urdf), "--tip", "left_wrist",
                  "--states", "20", "-q"], rounds),
        }
        for rows, path in data.items():
            commands[f"identify panda, {rows:,} rows ({path.stat().st_size / 2**20:.0f} MiB "
                     "of CSV)"] = ([*cli, "identify", str(panda), str(path), "-q"],
                                   rounds if rows == 1_000_000 else 1)
        usage: dict[str, list] = {name: [] for name in commands}
        for r in range(rounds):
            for name, (argv, times) in commands.items():
                if r < times:
                    print(f"  round {r + 1}/{rounds}: {name}", file=sys.stderr, flush=True)
                    env = {**os.environ, "SYMDYN_CACHE": str(tmp / f"cache-{r}-{len(usage)}")}
                    shutil.rmtree(env["SYMDYN_CACHE"], ignore_errors=True)
                    usage[name].append(command_usage(argv, env))
    print("| command | CPU time | spread | peak memory | rounds |")
    print("|---|---:|---:|---:|---:|")
    for name, runs in usage.items():
        cpu = [c for c, _ in runs]
        print(f"| {name} | {statistics.median(cpu):.1f} s | "
              + (f"+-{spread(cpu):.0%}" if len(cpu) > 1 else "") + " | "
              f"{max(m for _, m in runs):.0f} MiB | {len(runs)} |", flush=True)
    print()


# Section 10: constrained dynamics, each symdyn C function beside the Pinocchio C++ that
# computes the same, in the order of constrained.cpp's works: (symdyn's quantity, its C call).
CONSTRAINED_WORK = {
    "qdd, lambda (constraintDynamics)": (
        "constrained_forward_dynamics",
        "{ static const double gains[2] = {0.0, 0.0}; @NAME@_constrained_forward_dynamics("
        "q[k], qd[k], qdd[k], gains, out, out + N); } sink += out[N - 1] + out[N];"),
    "impact, plastic (impulseDynamics)": (
        "impulse_dynamics",
        "{ static const double r0[1] = {0.0}; @NAME@_impulse_dynamics(q[k], qd[k], r0, out, "
        "out + N); } sink += out[N - 1] + out[N];"),
    "qdd, lambda and their derivatives (constraintDynamics, "
    "computeConstraintDynamicsDerivatives)": (
        "constrained_forward_dynamics_derivatives",
        "{ static const double gains[2] = {0.0, 0.0}; "
        "@NAME@_constrained_forward_dynamics_derivatives(q[k], qd[k], qdd[k], gains, out, "
        "out + N * N, out + 2 * N * N, out + 3 * N * N, out + 3 * N * N + @M@ * N, "
        "out + 3 * N * N + 2 * @M@ * N); } sink += out[N * N - 1] + out[3 * N * N];"),
    "a mechanism's inverse dynamics (rnea, frame Jacobians, LU of G_p)": (
        "closed_loop_inverse_dynamics",
        "@NAME@_closed_loop_inverse_dynamics(q[k], qd[k], qdd[k], out, out + @A@); "
        "sink += out[0] + out[@A@];"),
}
CONSTRAINED_CPP = harness("constrained.cpp")
# Solo-12 standing: each foot held where it is at closed_at (the tests' robot).
SOLO_STANDING = ROOT / "tests" / "derive" / "mechanisms" / "solo12_feet.part"
# A Delta robot: three parallelograms, the platform on a spherical joint, five point loops.
DELTA = ROOT / "tests" / "derive" / "mechanisms" / "delta.yaml"
# A biped of Cassie's kind: two legs whose achilles and plantar rods hang on ball joints.
CASSIE_BIPED = ROOT / "tests" / "robot" / "mjcf" / "cassie_biped.xml"


def two_four_bars_yaml() -> str:
    """Two planar four-bars on one base, side by side: six joints, two loops, each driven at
    its crank (tests/derive/mechanisms/fourbar.yaml twice)."""
    links, frames, constraints = [], [], []
    for k, y in (("", 0.0), ("2", 0.5)):
        links += [
            f"  - {{name: crank{k}, parent: base, joint: revolute, origin: {{xyz: [0, {y}, 0]}}, "
            "axis: [0, 0, 1], mass: 1, com: [0.05, 0, 0], inertia: [0.001, 0.001, 0.001, 0, 0, "
            "0]}",
            f"  - {{name: coupler{k}, parent: crank{k}, joint: revolute, origin: {{xyz: [0.1, 0,"
            " 0]}, axis: [0, 0, 1], mass: 1, com: [0.15, 0, 0], inertia: [0.001, 0.003, 0.003, "
            "0, 0, 0]}",
            f"  - {{name: rocker{k}, parent: base, joint: revolute, origin: {{xyz: [0.3, {y}, 0]}}"
            ", axis: [0, 0, 1], mass: 1, com: [0, 0.1, 0], inertia: [0.002, 0.001, 0.002, 0, 0, "
            "0]}"]
        frames += [f"  - {{name: coupler_end{k}, parent: coupler{k}, xyz: [0.3, 0, 0]}}",
                   f"  - {{name: rocker_end{k}, parent: rocker{k}, xyz: [0, 0.2, 0]}}"]
        constraints.append(f"  - {{name: pin{k}, point: [coupler_end{k}, rocker_end{k}], "
                           "axes: [x, y]}")
    closed = ", ".join(f"{joint}{k}: {value}" for k in ("", "2") for joint, value in (
        ("crank", 1.0), ("coupler", -0.6126996463894206), ("rocker", -0.1597275662359972)))
    return "\n".join(["name: two_four_bars", "convention: urdf", "gravity: [0, -9.81, 0]",
                      "links:", *links, "frames:", *frames, "constraints:", *constraints,
                      f"closed_at: {{{closed}}}", "actuated: [crank, crank2]", ""])


def compile_constrained(robot, work: Path):
    """symdyn's C and Pinocchio's C++ harnesses of CONSTRAINED_WORK for ``robot``: Pinocchio's
    model joint by joint (cpp_joints), a RigidConstraintModel per constraint between its ends'
    joints and placements (CONTACT_3D for a point, CONTACT_6D for a weld; LOCAL for a loop and
    LOCAL_WORLD_ALIGNED for a contact: symdyn's rows), solved by its proximal solver in one
    iteration (mu 1e-12: a planar loop's third row repeats the others)."""
    from symdyn.reference import ConstraintReference

    mechanism = bool(robot.actuated)
    works = list(CONSTRAINED_WORK.values())[:4 if mechanism else 3]
    symdyn.generate(symdyn.newton_euler(robot), "c", work, quantities=[q for q, _ in works])
    sizes = {"N": robot.dof, "NQ": robot.nq, "STATES": STATES, "NAME": robot.name,
             "NORMALIZE": normalize(robot), "A": len(robot.actuated),
             "M": sum(c.size for c in robot.constraints)}
    c_works = "".join(fill(C_WORK, I=i, WORK=fill(ours, **sizes))
                      for i, (_, ours) in enumerate(works))
    ours = build_symdyn_harness(robot, work, c_works, len(works), sizes,
                                f"-DOUT_EXTRA={3 * sizes['M'] * robot.dof}")
    reference = ConstraintReference(robot)
    model = reference.model
    contacts = []
    for k, (c, ends) in enumerate(zip(robot.constraints, reference.ends)):
        placements = []
        for end in ends:
            if end is None:             # the world: joint 0, at the anchor
                placements.append((0, reference.anchor(c)))
            else:
                frame = model.frames[end]
                placements.append((frame.parentJoint, frame.placement.homogeneous))
        (joint_a, T_a), (joint_b, T_b) = placements
        kind = "CONTACT_3D" if c.kind == "point" else "CONTACT_6D"
        contacts += [
            f"    R << {numbers(T_a[:3, :3])}; p << {numbers(T_a[:3, 3])}; "
            "placement_a = SE3(R, p);",
            f"    R << {numbers(T_b[:3, :3])}; p << {numbers(T_b[:3, 3])}; "
            "placement_b = SE3(R, p);",
            f'    ends_a.push_back(model.addFrame(Frame("a{k}", {joint_a}, placement_a, '
            "OP_FRAME)));",
            f'    ends_b.push_back(model.addFrame(Frame("b{k}", {joint_b}, placement_b, '
            "OP_FRAME)));",
            f"    contacts.push_back(RigidConstraintModel({kind}, model, {joint_a}, placement_a, "
            f"{joint_b}, placement_b, {'LOCAL_WORLD_ALIGNED' if ends[1] is None else 'LOCAL'}"
            "));"]
    # symdyn's velocity k is Pinocchio's where T has its 1
    pin_index = [int(np.argmax(np.abs(reference.T[:, k]))) for k in range(robot.dof)]
    passive = [k for k in range(robot.dof) if k not in robot.actuated]
    theirs = build_pinocchio_harness(work, fill(
        CONSTRAINED_CPP, UNIFORM=STATES_C, MODEL=cpp_model(robot.spec),
        CONTACTS="\n".join(contacts),
        MU="1e-12", STATES=STATES, ROWS=sum(c.size for c in robot.constraints),
        ACTUATED=", ".join(str(pin_index[k]) for k in robot.actuated),
        PASSIVE=", ".join(str(pin_index[k]) for k in passive),
        KEPT=", ".join("{" + ", ".join(str(r) for r in c.rows) + "}"
                       for c in robot.constraints)))
    return ours, theirs, list(CONSTRAINED_WORK)[:len(works)]


def constrained_robots(folder: Path) -> list:
    """Solo-12 on its four feet (imported with --root free_flyer, SOLO_STANDING added), two
    four-bars on one base (two loops), the Delta robot (DELTA: five loops, a spherical
    joint), the Cassie-kind biped of the MJCF tests (four loops, two of them through ball
    joints, imported with the defaults) and, where SYMDYN_MENAGERIE names a checkout of MuJoCo
    Menagerie, its Cassie as published (its springs too), without friction."""
    solo = folder / "solo12_standing.yaml"
    solo.write_text(import_robot(example_robot(FLOATING_URDFS["solo12_import"]),
                                 name="solo12_standing",
                                 root="free_flyer")[0] + "\n" + SOLO_STANDING.read_text())
    bars = folder / "two_four_bars.yaml"
    bars.write_text(two_four_bars_yaml())
    paths = [solo, bars, DELTA]
    sources = [ROOT / "tests" / "robot" / "mjcf" / "cassie_biped.xml"]
    if os.environ.get("SYMDYN_MENAGERIE"):
        sources.append(Path(os.environ["SYMDYN_MENAGERIE"]) / "agility_cassie" / "cassie.xml")
    for source in sources:
        text, spec = import_robot(source)
        paths.append(folder / f"{spec.name}.yaml")
        paths[-1].write_text(text)
    return [without_friction(symdyn.load_robot(path)) for path in paths]


# Section 12: Pinocchio's algorithms evaluated on casadi::SX and written as C by CasADi: the
# generator's C++ (its model, then a block a function) and the harness's work a function.
CASADI_PINOCCHIO_CPP = harness("casadi_pinocchio.cpp")
CASADI_PINOCCHIO_MODEL = harness("casadi_pinocchio_model.cpp")
CASADI_PINOCCHIO_WORK = harness("casadi_pinocchio_work.c")
# Per kind of WORK: Pinocchio's call on the SX model, what it outputs, and its SX inputs.
CASADI_PINOCCHIO = {
    "tau (rnea)": ("rnea(ad, d, q, v, a);", ("d.tau",), "cq, cv, ca"),
    "M (crba)": ("crba(ad, d, q); mirror(d.M);", ("d.M",), "cq"),
    "qdd (aba)": ("aba(ad, d, q, v, a);", ("d.ddq",), "cq, cv, ca"),
    "ID derivatives (computeRNEADerivatives)": (
        "computeRNEADerivatives(ad, d, q, v, a);", ("d.dtau_dq", "d.dtau_dv"), "cq, cv, ca"),
    "FD derivatives (computeABADerivatives)": (
        "computeABADerivatives(ad, d, q, v, a); mirror(d.Minv);",
        ("d.ddq_dq", "d.ddq_dv", "d.Minv"), "cq, cv, ca"),
}
CASADI_PINOCCHIO_ROBOTS = ("panda", "ur5_import", "solo12_import")


def casadi_prefix() -> Path:
    import casadi
    return Path(casadi.__file__).resolve().parent


def casadi_pinocchio_flags() -> list[str]:
    """g++'s flags for Pinocchio's headers on casadi::SX (the pin wheel's, CasADi's)."""
    prefix, casadi = pinocchio_prefix(), casadi_prefix()
    return ["-std=c++17", "-O1", "-DNDEBUG", *PIN_DEFINES, f"-I{prefix / 'include'}",
            f"-I{prefix / 'include' / 'eigen3'}", f"-I{casadi / 'include'}"]


def compile_casadi_generator(folder: Path) -> Path:
    """The object of CASADI_PINOCCHIO's functions on casadi::SX, for every robot's generator
    (g++ takes about three minutes on it)."""
    blocks = "".join(
        f"    {{ {call} ::casadi::Function f(\"pin{i}\", {{{inputs}}}, {{"
        + ", ".join(f"entries({out})" for out in outs)
        + f"}}); generator.add(f); std::printf(\"%d %lld %lld %lld %lld\\n\", {i}, "
        "(long long)f.sz_w(), (long long)f.sz_iw(), operations(f, true), "
        "operations(f, false)); }\n"
        for i, (call, outs, inputs) in enumerate(CASADI_PINOCCHIO.values()))
    source = folder / "casadi_pinocchio.cpp"
    source.write_text(fill(CASADI_PINOCCHIO_CPP, FUNCTIONS=blocks))
    print("  compiling Pinocchio's algorithms on casadi::SX (a few minutes)", file=sys.stderr,
          flush=True)
    subprocess.run(["g++", *casadi_pinocchio_flags(), "-c", str(source), "-o",
                    str(folder / "casadi_pinocchio.o")], check=True)
    return folder / "casadi_pinocchio.o"


def compile_casadi_pinocchio(robot, work: Path, generator: Path) -> tuple[Path, list[str]]:
    """The harness of the C that CasADi generates from Pinocchio's algorithms on casadi::SX
    (``generator``'s object, on the model section 1's Pinocchio harness builds), each function
    timed as CASADI_PINOCCHIO says; and each function's operations ("mul/add", its SX
    instructions: products, quotients, inverses and squares; sums and differences)."""
    (work / "model.cpp").write_text(fill(CASADI_PINOCCHIO_MODEL, MODEL=cpp_model(robot.spec)))
    prefix, casadi = pinocchio_prefix(), casadi_prefix()
    subprocess.run(["g++", *casadi_pinocchio_flags(), str(work / "model.cpp"), str(generator),
                    "-o", str(work / "generator"), f"-L{prefix / 'lib'}",
                    f"-Wl,-rpath,{prefix / 'lib'}", f"-L{casadi}", f"-Wl,-rpath,{casadi}",
                    "-lcasadi", "-lpinocchio_default"], check=True)
    sizes = [line.split() for line in subprocess.run(
        [str(work / "generator"), str(work)], check=True, capture_output=True,
        text=True).stdout.split("\n") if line.strip()]
    works = "".join(fill(CASADI_PINOCCHIO_WORK, I=i, W=max(1, int(w)), IW=max(1, int(iw)))
                    for i, w, iw, *_ in sizes)
    (work / "pin_casadi_harness.c").write_text(fill(
        C_HARNESS, UNIFORM=STATES_C, WORKS=works, TABLE=", ".join(
            f"work{i}" for i in range(len(CASADI_PINOCCHIO))), INCLUDE='"pin_casadi.h"',
        N=robot.dof, NQ=robot.nq, NORMALIZE=normalize(robot), STATES=STATES))
    subprocess.run(["gcc", "-std=c99", *FLAGS, f"-I{work}", str(work / "pin_casadi_harness.c"),
                    str(work / "pin_casadi.c"), "-o", str(work / "pin_casadi"), "-lm"],
                   check=True)
    return work / "pin_casadi", [f"{mul}/{add}" for *_, mul, add in sizes]


def section_casadi_pinocchio(robots, quick):
    """symdyn's C against the C CasADi's code generator writes of Pinocchio's rnea, crba, aba
    and their derivatives evaluated on casadi::SX (Pinocchio's headers instantiated in a small
    C++ program: pinocchio.casadi is not in the pin wheel), both compiled alike."""
    import casadi
    print("## 12. Generated C against Pinocchio's algorithms written as C by CasADi\n")
    print(f"Pinocchio's own rnea, crba, aba, computeRNEADerivatives and computeABADerivatives "
          f"evaluated on casadi::SX (its headers, instantiated by a small C++ program on section "
          f"1's model), and written as C by CasADi {casadi.__version__}'s code generator (its "
          "CSE on): the code-generation route Pinocchio's users have. symdyn's C and CasADi's "
          f"are compiled alike (gcc -std=c99 {' '.join(FLAGS)}) and timed as in section 1, the "
          "harnesses taking turns. Target (issue 53): 3x.\n")
    print("| robot | quantity (Pinocchio's function) | symdyn | CasADi (Pinocchio on SX) | "
          "speed-up | symdyn's operations (mul/add) | CasADi's operations (mul/add) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    rounds, seconds = (3, 0.05) if quick else (7, 0.2)
    kinds = tuple(CASADI_PINOCCHIO)
    with tempfile.TemporaryDirectory() as tmp:
        generator = compile_casadi_generator(Path(tmp))
        for robot in robots:
            work = Path(tmp) / robot.name
            work.mkdir()
            works = robot_work(robot, kinds)
            symdyn.generate(symdyn.newton_euler(robot), "c", work,
                            quantities=[entry for entry, _, _ in works.values()])
            ours = build_symdyn_harness(
                robot, work, "".join(fill(C_WORK, I=i, WORK=call)
                                     for i, (_, call, _) in enumerate(works.values())),
                len(works), {"N": robot.dof, "NQ": robot.nq, "STATES": STATES,
                             "NAME": robot.name, "NORMALIZE": normalize(robot)})
            theirs, their_counts = compile_casadi_pinocchio(robot, work, generator)
            counts = work_counts(symdyn.newton_euler(robot), works)
            for index, kind in enumerate(kinds):
                mine, peer = run_alternately([ours, theirs], index, rounds, False, seconds)
                count = counts[kind]
                print(f"| {robot.name} ({joints(robot)}) | {kind} | "
                      f"{statistics.median(mine):.0f} ns +-{spread(mine):.0%} | "
                      f"{statistics.median(peer):.0f} ns +-{spread(peer):.0%} | "
                      f"{statistics.median(peer) / statistics.median(mine):.1f}x | "
                      f"{count.mul}/{count.add} | {their_counts[index]} |", flush=True)
    print()


def section_constrained(quick):
    print("## 10. Constrained dynamics against Pinocchio C++, per call\n")
    print("symdyn's generated C against Pinocchio's constraint algorithms on the same model and "
          "states (random, as in section 1; CPU time, the harnesses in turn, medians and "
          "spread), both at " + " ".join(FLAGS) + ": constraintDynamics and impulseDynamics "
          "with a RigidConstraintModel per constraint (CONTACT_3D, LOCAL for a loop and "
          "LOCAL_WORLD_ALIGNED for a contact; its "
          "proximal solver in one iteration), and for a closed-loop mechanism the inverse "
          "dynamics a Pinocchio user writes (rnea, the constraint ends' frame Jacobians and an "
          "LU of G_p). Pinocchio holds a planar loop's three rows, symdyn the two that are "
          "independent. Target: 5x for the constrained dynamics, 4x for their derivatives "
          "(issue 53), 10x for a mechanism's inverse dynamics (the Delta robot's).\n")
    rounds, seconds = (3, 0.05) if quick else (7, 0.2)
    with tempfile.TemporaryDirectory() as tmp:
        rate = machine_rate(Path(tmp), rounds, seconds)
        print("| robot | quantity (Pinocchio's) | symdyn | Pinocchio | speed-up | operations "
              "(mul/add) | floor |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for robot in constrained_robots(Path(tmp)):
            work = Path(tmp) / robot.name
            work.mkdir()
            print(f"  compiling the harnesses for {robot.name}", file=sys.stderr, flush=True)
            ours_binary, pin_binary, kinds = compile_constrained(robot, work)
            dynamics = symdyn.newton_euler(robot)
            label = (f"{robot.name} ({joints(robot)}, {len(robot.constraints)} "
                     f"constraints, {sum(c.size for c in robot.constraints)} rows)")
            for index, kind in enumerate(kinds):
                ours, theirs = run_alternately([ours_binary, pin_binary], index, rounds, False,
                                               seconds)
                (done,) = optimize_all([dynamics.program(CONSTRAINED_WORK[kind][0])])
                count = symdyn.op_count(done)
                ratio = statistics.median(theirs) / statistics.median(ours)
                print(f"| {label} | {kind} | {statistics.median(ours):.0f} ns "
                      f"+-{spread(ours):.0%} | {statistics.median(theirs):.0f} ns "
                      f"+-{spread(theirs):.0%} | {ratio:.1f}x | {count.mul}/{count.add} | "
                      f"{count.mul / rate:.0f} ns |", flush=True)
    print()


def example_robot(relative: str) -> Path:
    """A URDF of the example-robot-data package (installed with the test extras)."""
    return Path(importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots")) / relative

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    parser.add_argument("--only", choices=["c", "python", "ops", "scaling", "commands", "peer",
                                           "jax", "trees", "constrained", "erd",
                                           "casadi_pinocchio"],
                        action="append", help="run only these sections")
    parser.add_argument("--robot", action="append", metavar="NAME",
                        help="time only these robots of the per-call tables (users_robots' "
                             "names: puma560, panda, panda_floats, ur5_import, chain7_generic, "
                             "allegro_import, baxter_import, solo12_import, anymal_import, "
                             "talos_import; with --only erd, section 11's: ERD_LEGGED's and "
                             "the trees')")
    parser.add_argument("--job", nargs="+", help=argparse.SUPPRESS)   # see in_fresh_process
    args = parser.parse_args()
    if args.job:
        job, *values = args.job
        print(json.dumps({"chain_times": chain_times, "lagrange_times": lagrange_times,
                          "tree_times": tree_times, "numpy_batch": numpy_batch}[job](
            *(int(v) if v.isdigit() else v for v in values))))
        return
    sections = set(args.only or ["c", "python", "ops", "scaling", "commands", "peer", "trees",
                                 "jax", "constrained", "casadi_pinocchio"])
    print(f"# symdyn {symdyn.__version__} benchmarks ({os.cpu_count()} cores, "
          f"{time.strftime('%Y-%m-%d')})\n")
    with tempfile.TemporaryDirectory() as tmp:
        robots = [without_friction(symdyn.load_robot(path)) for path in users_robots(Path(tmp))
                  if not args.robot or path.stem in args.robot]
        if not robots and sections != {"erd"}:
            parser.error(f"no robot of the per-call tables is named {', '.join(args.robot)}")
        if "c" in sections:
            section_c(robots, args.quick)
        if "python" in sections:
            section_python(robots[:2])
        if "ops" in sections:
            section_ops()
        if "scaling" in sections:
            section_scaling(args.quick,
                            None if args.quick else ROOT / "benchmarks" / "scaling.svg")
        if "commands" in sections:
            section_commands(args.quick)
        if "peer" in sections:
            section_peer(robots[:2], args.quick)
        if "trees" in sections:
            section_trees(args.quick)
        if "jax" in sections:
            section_jax(robots[:2])
        if "constrained" in sections:
            section_constrained(args.quick)
        if "erd" in sections:
            section_erd(args.quick, args.robot)
        if "casadi_pinocchio" in sections:
            section_casadi_pinocchio([robot for robot in robots
                                      if robot.name in CASADI_PINOCCHIO_ROBOTS], args.quick)

if __name__ == "__main__":
    main()
