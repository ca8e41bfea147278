"""Measurement files: CSV with a header, one sample a row.

Columns q1..qn, qd1..qn, qdd1..qn and tau1..tau<n> (rad, rad/s, rad/s^2, N m; m for a prismatic
joint), in any order, other columns (a time t) ignored. Every value must be a finite number. The
file is read within bounds and every problem is reported with its line and column.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataFileError
from ..robot.file import read_text

MAX_DATA_BYTES = 256 << 20
KINDS = ("q", "qd", "qdd", "tau")


@dataclass(frozen=True)
class Measurements:
    q: np.ndarray        # (N, n)
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    path: str

    @property
    def samples(self) -> int:
        return len(self.q)


def read_measurements(path, dof: int, *, need_tau: bool = True) -> Measurements:
    """The samples of a measurement file for a robot of ``dof`` joints."""
    path = Path(path)
    _, text = read_text(path, MAX_DATA_BYTES, "a CSV file of measurements", DataFileError,
                        "utf-8-sig")
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    kinds = KINDS if need_tau else KINDS[:3]
    wanted = [f"{kind}{i}" for kind in kinds for i in range(1, dof + 1)]
    if not header:
        raise DataFileError(path, "the file is empty", expected="a header: " + _header(dof))
    names = [name.strip() for name in header]
    missing = [name for name in wanted if name not in names]
    if missing:
        raise DataFileError(path, f"the header lacks {', '.join(missing[:6])}"
                            + (" ..." if len(missing) > 6 else ""), line=1,
                            expected="a header with " + _header(dof, need_tau))
    index = [names.index(name) for name in wanted]
    values = []
    for line, row in enumerate(rows, start=2):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(names):
            raise DataFileError(path, f"{len(row)} values where the header has {len(names)}",
                                line=line)
        sample = []
        for k in index:
            try:
                x = float(row[k])
            except ValueError:
                x = math.nan
            if not math.isfinite(x):
                raise DataFileError(path, f"{row[k].strip()!r} is not a finite number",
                                    line=line, field=names[k])
            sample.append(x)
        values.append(sample)
    if not values:
        raise DataFileError(path, "the file has no samples", expected="one row per sample")
    data = np.array(values).reshape(len(values), len(kinds), dof)
    arrays = {kind: data[:, k] for k, kind in enumerate(kinds)}
    return Measurements(arrays["q"], arrays["qd"], arrays["qdd"],
                        arrays.get("tau", np.zeros((len(values), dof))), str(path))


def write_trajectory(t, q, qd, qdd) -> str:
    """CSV text of a trajectory: t, then q, qd and qdd of each joint."""
    n = q.shape[1]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["t"] + [f"{kind}{i}" for kind in KINDS[:3] for i in range(1, n + 1)])
    for row in np.column_stack([t, q, qd, qdd]):
        writer.writerow([repr(float(x)) for x in row])
    return out.getvalue()


def _header(dof: int, need_tau: bool = True) -> str:
    kinds = KINDS if need_tau else KINDS[:3]
    return ", ".join(f"{kind}1..{kind}{dof}" for kind in kinds)


def periodic_derivatives(q, rate: float, cutoff: float):
    """q filtered, qd and qdd of samples q (N, n) taken at ``rate`` Hz over whole periods of a
    periodic motion (as symdyn excite designs): in the frequency domain, where filtering below
    ``cutoff`` Hz and differentiating are exact and have no phase lag (Swevers et al. 1997)."""
    q = np.asarray(q, dtype=float)
    frequencies = np.fft.rfftfreq(len(q), 1 / rate)
    spectrum = np.fft.rfft(q, axis=0)
    spectrum[frequencies > cutoff] = 0
    jw = (2j * np.pi * frequencies)[:, None]
    return tuple(np.fft.irfft(jw ** k * spectrum, len(q), axis=0) for k in range(3))
