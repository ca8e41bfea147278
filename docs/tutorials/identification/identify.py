"""Identification end to end, on a simulated PUMA 560: an excitation trajectory, measurements
with noise, the least-squares estimates, and plots of all three. Run from this folder with
symdyn installed; everything is written into build/."""
import subprocess
from pathlib import Path

import matplotlib
import numpy as np
import yaml

import symdyn

matplotlib.use("Agg")                    # files, no window
import matplotlib.pyplot as plt  # noqa: E402

out = Path("build")
out.mkdir(exist_ok=True)

# 1. An excitation trajectory: Fourier series within the joints' limits, chosen for a well
#    conditioned base regressor (columns t, q1..q6, qd1..qd6, qdd1..qdd6).
subprocess.run(["symdyn", "excite", "puma560", "-o", out / "excite.csv", "-q"], check=True)
log = np.loadtxt(out / "excite.csv", delimiter=",", skiprows=1)
t, q, qd, qdd = log[:, 0], log[:, 1:7], log[:, 7:13], log[:, 13:19]

# 2. The measurements. On a real arm: run the trajectory and log q and tau (qd and qdd from q
#    by symdyn.identify.data.periodic_derivatives). Here the robot file's own model, with
#    noise of 2% of each joint's torque spread, stands in for the arm.
puma = symdyn.compile("puma560", quantities=["inverse_dynamics"])
tau = puma.inverse_dynamics(q, qd, qdd)
rng = np.random.default_rng(0)
tau_measured = tau + rng.normal(0, 1, tau.shape) * 0.02 * tau.std(axis=0)
header = ",".join(f"{k}{i}" for k in ("q", "qd", "qdd", "tau") for i in range(1, 7))
np.savetxt(out / "data.csv", np.hstack([q, qd, qdd, tau_measured]), delimiter=",",
           header=header, comments="")

# 3. The estimates: the base parameters, by weighted least squares, with their deviations.
subprocess.run(["symdyn", "identify", "puma560", out / "data.csv", "-o",
                out / "estimates.yaml", "-q"], check=True)
estimates = yaml.safe_load((out / "estimates.yaml").read_text())
names = list(estimates["weighted"])
value = np.array([estimates["weighted"][k]["value"] for k in names])
std = np.array([estimates["weighted"][k]["std"] for k in names])

# The identified model's torques on the data, and their residuals.
model = symdyn.python_module(symdyn.newton_euler(symdyn.load_robot("puma560")),
                             quantities=["base_regressor", "base_parameters"])
residual = tau_measured - model.base_regressor(q, qd, qdd) @ value
truth = model.base_parameters(model.standard_parameters())
print(f"{len(names)} base parameters from {estimates['samples']} samples, condition number "
      f"{estimates['condition_number']:.1f}")
print(f"largest error in deviations: {np.max(np.abs(value - truth) / std):.2f}")
print("residual RMS per joint (N m):", np.sqrt((residual**2).mean(axis=0)).round(3))

# 4. Plots: the excitation, the residuals, and the estimates with their deviations.
figure, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
axes[0].plot(t, q)
axes[0].set_ylabel("q (rad)")
axes[0].legend([f"joint {i}" for i in range(1, 7)], ncol=6, fontsize=7)
axes[1].plot(t, residual)
axes[1].set_ylabel("residual torque (N m)")
axes[1].set_xlabel("t (s)")
figure.tight_layout()
figure.savefig(out / "excitation-and-residuals.png", dpi=80)

figure, axis = plt.subplots(figsize=(8, 4))
scale = np.maximum(np.abs(truth), 1e-3)
k = np.arange(len(names))
axis.errorbar(k, (value - truth) / scale, yerr=std / scale, fmt="o", markersize=3)
axis.axhline(0, color="gray", linewidth=0.5)
axis.set_xticks(k, names, rotation=90, fontsize=6)
axis.set_ylabel("(estimate - true) / |true|")
figure.tight_layout()
figure.savefig(out / "estimates.png", dpi=80)
