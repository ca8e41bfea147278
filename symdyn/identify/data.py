"""Measurement files: CSV with a header, one sample a row.

Columns q1..qn, qd1..qn, qdd1..qn and tau1..tau<n> (rad, rad/s, rad/s^2, N m; m for a prismatic
joint), in any order, each named once, other columns (a time t) ignored. Every value must be a
decimal number (symdyn's one grammar: ASCII digits, a point, an exponent) and finite. The file is
read a block at a time, so its length is bounded only by the disk, and every problem is reported
with its line and column. Lines end in LF or CR LF.
"""
from __future__ import annotations

import csv
import io
import math
import os
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from ..errors import DataFileError
from ..robot.expr import decimal

KINDS = ("q", "qd", "qdd", "tau")
BLOCK_BYTES = 8 << 20       # read at a time: memory stays bounded whatever the file's length
MAX_LINE = 64 << 10         # a row of numbers is far shorter; a longer one is refused
_NUMBER_BYTES = b"0123456789eE+-.,\n\r \t"    # all that a block the fast path parses may hold


@dataclass(frozen=True)
class Measurements:
    q: np.ndarray        # (N, n)
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    path: str
    lines: np.ndarray | None = None   # the file's line of each sample, where known
    done: float = 1.0    # the share of the file read once this block is taken

    @property
    def samples(self) -> int:
        return len(self.q)

    def line(self, k: int) -> int | None:
        return None if self.lines is None else int(self.lines[k])


def read_measurements(path, dof: int, *, need_tau: bool = True) -> Measurements:
    """All samples of a measurement file for a robot of ``dof`` joints (see ``blocks`` for
    files too large to hold)."""
    parts = list(blocks(path, dof, need_tau=need_tau))
    return Measurements(*(np.concatenate([getattr(b, k) for b in parts])
                          for k in ("q", "qd", "qdd", "tau")), str(path),
                        np.concatenate([b.lines for b in parts]))


def blocks(path, dof: int, *, need_tau: bool = True) -> Iterator[Measurements]:
    """The samples of a measurement file, a block of rows at a time, each value checked by the
    one number grammar (``robot.expr.decimal``) and located by line and column when wrong."""
    path = Path(path)
    reader = _Reader(path, dof, KINDS if need_tau else KINDS[:3])
    with reader:
        yield from reader


class _Reader:
    def __init__(self, path: Path, dof: int, kinds):
        self.path, self.dof, self.kinds = path, dof, kinds
        self.wanted = [f"{kind}{i}" for kind in kinds for i in range(1, dof + 1)]

    def __enter__(self):
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise DataFileError(self.path, f"cannot read the file: {exc.strerror}") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise DataFileError(self.path, "is not a regular file", expected="a CSV file of "
                                "measurements")
        self.size = max(info.st_size, 1)
        self.file = os.fdopen(fd, "rb")
        return self

    def __exit__(self, *exc):
        self.file.close()

    def error(self, message, line=None, column=None, expected=None):
        return DataFileError(self.path, message, line=line, field=column, expected=expected)

    def __iter__(self):
        header, rest = self._header()
        names = self._names(header)
        index = np.array([names.index(name) for name in self.wanted])
        width = len(names)
        line, read, pending = 2, len(header), rest
        samples = 0
        while True:
            chunk = self.file.read(BLOCK_BYTES)
            read += len(chunk)
            data = pending + chunk
            if chunk:
                cut = data.rfind(b"\n") + 1
                data, pending = data[:cut], data[cut:]
                if not data:
                    if len(pending) > MAX_LINE:
                        raise self.error(f"a line of more than {MAX_LINE} characters", line,
                                         expected="one row of numbers a line")
                    continue
            elif not data:
                break
            else:
                pending = b""
            values, lines = self._parse(data, line, names, width)
            line += data.count(b"\n") + (not data.endswith(b"\n"))
            if len(values):
                samples += len(values)
                picked = values[:, index].reshape(len(values), len(self.kinds), self.dof)
                arrays = {kind: picked[:, k] for k, kind in enumerate(self.kinds)}
                yield Measurements(arrays["q"], arrays["qd"], arrays["qdd"],
                                   arrays.get("tau", np.zeros((len(values), self.dof))),
                                   str(self.path), lines, min(read / self.size, 1.0))
            if not chunk:
                break
        if not samples:
            raise self.error("the file has no samples", expected="one row per sample")

    def _header(self) -> tuple[bytes, bytes]:
        first = self.file.read(MAX_LINE)
        end = first.find(b"\n")
        if end < 0 and b"\r" in first:
            raise self.error("its lines end with a carriage return alone", 1,
                             expected="lines ending in LF or CR LF")
        if end < 0 and len(first) == MAX_LINE:
            raise self.error(f"the header is longer than {MAX_LINE} characters", 1)
        if end < 0:
            end = len(first)
        header, rest = first[:end + 1], first[end + 1:]
        if b"\r" in header.rstrip(b"\r\n"):
            raise self.error("its lines end with a carriage return alone", 1,
                             expected="lines ending in LF or CR LF")
        return header, rest

    def _names(self, header: bytes) -> list[str]:
        try:
            text = header.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise self.error("the header is not UTF-8 text", 1) from None
        if not text.strip():
            raise self.error("the file is empty", expected="a header: " + _header(
                self.dof, len(self.kinds) == 4))
        names = [name.strip() for name in next(csv.reader([text.rstrip("\r\n")]))]
        seen: dict[str, int] = {}
        for k, name in enumerate(names, start=1):
            if name and name in seen:
                raise self.error(f"column {name!r} is given twice (columns {seen[name]} and "
                                 f"{k})", 1, expected="each column named once")
            seen[name] = k
        missing = [name for name in self.wanted if name not in names]
        if missing:
            raise self.error(f"the header lacks {', '.join(missing[:6])}"
                             + (" ..." if len(missing) > 6 else ""), 1,
                             expected="a header with " + _header(self.dof,
                                                                 len(self.kinds) == 4))
        return names

    def _parse(self, data: bytes, line: int, names, width) -> tuple[np.ndarray, int]:
        """The rows of whole lines ``data`` starting at ``line``, and their lines: numpy's
        parser where every byte can only be part of a number and no line is blank, else line
        by line (which says where and what is wrong)."""
        if not data.translate(None, _NUMBER_BYTES):
            lines = data.count(b"\n") + (not data.endswith(b"\n"))
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    values = np.loadtxt(io.BytesIO(data), delimiter=",", comments=None,
                                        ndmin=2, dtype=float)
                # no blank line skipped (each sample's line is known), all finite
                if values.shape == (lines, width) and np.isfinite(values).all():
                    return values, np.arange(line, line + len(values))
            except (ValueError, Warning):
                pass        # the slow path below says where and what
        return self._slow(data, line, names, width)

    def _slow(self, data: bytes, line: int, names, width) -> tuple[np.ndarray, np.ndarray]:
        rows, lines = [], []
        for number, raw in enumerate(data.split(b"\n"), start=line):
            if len(raw) > MAX_LINE:
                raise self.error(f"a line of {len(raw)} characters", number,
                                 expected="one row of numbers a line")
            try:
                text = raw.decode("utf-8").rstrip("\r")
            except UnicodeDecodeError:
                raise self.error("the line is not UTF-8 text", number) from None
            if "\r" in text:
                raise self.error("a carriage return inside a line", number,
                                 expected="lines ending in LF or CR LF")
            if not text.strip():
                continue
            try:
                row = next(csv.reader([text]))
            except csv.Error as exc:
                raise self.error(f"not a row of CSV: {exc}", number) from None
            if len(row) != width:
                raise self.error(f"{len(row)} values where the header has {width}", number)
            sample = []
            for k, cell in enumerate(row):
                if names[k] not in self.wanted:
                    sample.append(0.0)          # an ignored column (a time, a label)
                    continue
                if cell.strip().lstrip("+-").lower() in ("nan", "inf", "infinity"):
                    raise self.error(f"{cell.strip()!r} is not a finite number", number,
                                     names[k])
                try:
                    x = decimal(cell)
                except ValueError:
                    shown = cell.strip() if len(cell) <= 40 else (f"{cell.strip()[:30]}... "
                                                                  f"({len(cell)} characters)")
                    raise self.error(f"{shown!r} is not a decimal number", number, names[k],
                                     "digits 0-9, a point, an exponent") from None
                if not math.isfinite(x):
                    raise self.error(f"{cell.strip()!r} is not a finite number", number,
                                     names[k])
                sample.append(x)
            rows.append(sample)
            lines.append(number)
        return np.array(rows, dtype=float).reshape(len(rows), width), np.array(lines)


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
