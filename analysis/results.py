"""One loader for fleetsim results: HDF5 result files and sweep directories into pandas, with units.

The HDF5 schema (version 1) is documented in sim/results/hdf5_writer.hpp:

    /meta                attributes (schema_version, fleetsim_version, git_revision, scenario_file,
                         seed, replications, command) and dataset resolved_scenario
    /metrics/a/b/name    scalar datasets, or [mean, p05, p95] with attribute fields="mean,p05,p95";
                         attributes unit, description. The metric's name is the dotted path a.b.name.
    /<table>/<column>    1-D columns of equal length (replications, events, timeseries), each with
                         unit and description attributes

A sweep directory (`fleetsim sweep ... -o DIR`) holds sweep.json (the grid), index.csv (one row per
point: varied values, status, error, headline figures) and one result file per finished point.

    >>> from analysis.results import load
    >>> r = load("run.h5")
    >>> r.value("step.mfu"), r.unit("step.mfu")
    >>> r.stat("run.ettr")            # Stat(mean=..., p05=..., p95=...)
    >>> r.table("replications")       # DataFrame; .attrs["units"] maps column -> unit
    >>> s = load("sweep_dir")
    >>> s.frame(["run.ettr", "step.mfu"])   # varied keys + NAME, NAME_p05, NAME_p95 per metric
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Union

import numpy as np
import pandas as pd

try:
    import h5py
except ImportError as e:  # pragma: no cover - the environment check
    raise ImportError(
        "analysis/ needs Debian's python3-h5py: run it with /usr/bin/python3 "
        "(another python3 may come first on PATH)") from e

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Stat:
    """A figure over Monte-Carlo replications: mean and 5th / 95th percentiles."""
    mean: float
    p05: float
    p95: float

    @property
    def band(self) -> tuple:
        return (self.p05, self.p95)


@dataclass(frozen=True)
class Interval:
    """A headline value's interval at `level` (issue 25: the model-form error of the step model and
    the Monte-Carlo spread, sim/uncertainty/README.md), from the `interval_lo`, `interval_hi` and
    `interval_level` attributes fleetsim writes beside the value."""
    lo: float
    hi: float
    level: float


def _text(v) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray) and v.shape == ():
        return _text(v[()])
    return str(v)


def _attr(obj, name, default=""):
    if name not in obj.attrs:
        return default
    v = obj.attrs[name]
    if isinstance(v, (bytes, str)):
        return _text(v)
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(()).item()
    if isinstance(v, np.generic):
        v = v.item()
    return v


def _column(ds) -> np.ndarray:
    if h5py.check_string_dtype(ds.dtype) is not None:
        return np.array([_text(x) for x in ds[()]], dtype=object)
    return np.asarray(ds[()], dtype=float)


class Result:
    """One fleetsim HDF5 result file, read fully into memory."""

    def __init__(self, path: Union[str, os.PathLike]):
        self.path = Path(path)
        self.meta: Dict[str, object] = {}
        self.resolved_scenario = ""
        self.provenances: Dict[str, Dict[str, object]] = {}
        rows = []
        self._tables: Dict[str, pd.DataFrame] = {}
        with h5py.File(self.path, "r") as f:
            if "meta" in f:
                g = f["meta"]
                self.meta = {k: _attr(g, k) for k in g.attrs}
                if "resolved_scenario" in g:
                    v = g["resolved_scenario"][()]
                    self.resolved_scenario = _text(v[0] if np.ndim(v) else v)
            if "metrics" in f:
                def visit(name, obj):
                    if not isinstance(obj, h5py.Dataset):
                        return
                    dotted = name.replace("/", ".")
                    unit = _attr(obj, "unit")
                    desc = _attr(obj, "description")
                    if h5py.check_string_dtype(obj.dtype) is not None:
                        v = obj[()]
                        rows.append(dict(name=dotted, value=np.nan, p05=np.nan, p95=np.nan, text=_text(
                            v[0] if np.ndim(v) else v), unit=unit, description=desc, is_stat=False,
                            lo=np.nan, hi=np.nan, level=np.nan))
                        return
                    v = np.atleast_1d(np.asarray(obj[()], dtype=float))
                    is_stat = v.size == 3 or "fields" in obj.attrs
                    rows.append(dict(name=dotted, value=float(v[0]) if v.size else np.nan,
                                     p05=float(v[1]) if is_stat and v.size >= 3 else np.nan,
                                     p95=float(v[2]) if is_stat and v.size >= 3 else np.nan,
                                     text=None, unit=unit, description=desc, is_stat=bool(is_stat),
                                     lo=float(_attr(obj, "interval_lo", np.nan)),
                                     hi=float(_attr(obj, "interval_hi", np.nan)),
                                     level=float(_attr(obj, "interval_level", np.nan))))
                f["metrics"].visititems(visit)
                # One provenance per section (/metrics/step, /metrics/run, /metrics/pool).
                for section, g in f["metrics"].items():
                    if isinstance(g, h5py.Group) and "provenance_grade" in g.attrs:
                        self.provenances[section] = {
                            "grade": _attr(g, "provenance_grade"), "why": _attr(g, "provenance_why"),
                            "sources": [s for s in str(_attr(g, "provenance_sources")).split("; ") if s]}
            groups = []  # tables: groups holding columns, also nested ones ("power/steady")
            f.visititems(lambda name, obj: groups.append((name, obj)) if isinstance(obj, h5py.Group) else None)
            for name, g in groups:
                if name.split("/")[0] in ("meta", "metrics"):
                    continue
                if not any(isinstance(ds, h5py.Dataset) for ds in g.values()):
                    continue
                cols, units, descs = {}, {}, {}
                for cname, ds in g.items():
                    if isinstance(ds, h5py.Dataset):
                        cols[cname] = _column(ds)
                        units[cname] = _attr(ds, "unit")
                        descs[cname] = _attr(ds, "description")
                n = max((len(c) for c in cols.values()), default=0)
                df = pd.DataFrame({k: v for k, v in cols.items() if len(v) == n})
                df.attrs["units"] = units
                df.attrs["descriptions"] = descs
                df.attrs["description"] = _attr(g, "description")
                self._tables[name] = df
        self.metrics = pd.DataFrame(rows, columns=["name", "value", "p05", "p95", "text", "unit", "description",
                                                   "is_stat", "lo", "hi", "level"]).set_index("name")
        version = self.meta.get("schema_version")
        if version not in ("", None) and int(float(version)) > SCHEMA_VERSION:
            raise ValueError(f"{self.path}: schema version {version} is newer than this reader ({SCHEMA_VERSION})")

    # --- metrics ---------------------------------------------------------------------------
    def has(self, name: str) -> bool:
        return name in self.metrics.index

    def value(self, name: str, default: float = math.nan) -> float:
        """A metric's value (the mean of a statistic); `default` when the file lacks it."""
        if name not in self.metrics.index:
            return default
        return float(self.metrics.at[name, "value"])

    def stat(self, name: str) -> Stat:
        """A metric as a Stat; a scalar metric gives p05 = p95 = its value."""
        if name not in self.metrics.index:
            return Stat(math.nan, math.nan, math.nan)
        row = self.metrics.loc[name]
        if row["is_stat"]:
            return Stat(float(row["value"]), float(row["p05"]), float(row["p95"]))
        v = float(row["value"])
        return Stat(v, v, v)

    def interval(self, name: str) -> Optional[Interval]:
        """The metric's interval (issue 25), None when the file gives it none."""
        if name not in self.metrics.index:
            return None
        row = self.metrics.loc[name]
        if not (np.isfinite(row["lo"]) and np.isfinite(row["hi"])):
            return None
        return Interval(float(row["lo"]), float(row["hi"]), float(row["level"]))

    def provenance(self, section: str) -> Optional[Dict[str, object]]:
        """A section's provenance ("step", "run", "pool"): grade, why, sources; None when absent."""
        return self.provenances.get(section)

    def unit(self, name: str) -> str:
        return str(self.metrics.at[name, "unit"]) if name in self.metrics.index else ""

    def description(self, name: str) -> str:
        return str(self.metrics.at[name, "description"]) if name in self.metrics.index else ""

    def group(self, prefix: str) -> pd.DataFrame:
        """The metrics under a dotted prefix ("run.lost_hours."), indexed by the rest of the name."""
        sel = self.metrics[self.metrics.index.str.startswith(prefix)].copy()
        sel.index = sel.index.str[len(prefix):]
        return sel

    # --- tables ----------------------------------------------------------------------------
    @property
    def tables(self) -> List[str]:
        return sorted(self._tables)

    def table(self, name: str) -> pd.DataFrame:
        """A table (replications, events, timeseries) as a DataFrame; empty when absent.
        df.attrs["units"] and df.attrs["descriptions"] map each column to its unit / description."""
        if name not in self._tables:
            df = pd.DataFrame()
            df.attrs["units"], df.attrs["descriptions"] = {}, {}
            return df
        return self._tables[name]

    def label(self) -> str:
        return str(self.meta.get("scenario_file") or self.path.stem)

    def __repr__(self) -> str:
        return f"Result({str(self.path)!r}, {len(self.metrics)} metrics, tables={self.tables})"


# --- quantities in varied values ---------------------------------------------------------------
_UNIT_SCALE = {
    # time -> seconds
    "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "min": 60.0, "h": 3600.0, "hr": 3600.0,
    "d": 86400.0, "day": 86400.0, "days": 86400.0, "wk": 604800.0, "yr": 3.1536e7,
    # bandwidth -> B/s
    "B/s": 1.0, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12, "Gb/s": 1.25e8, "Tb/s": 1.25e11,
    # bytes
    "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 1024.0, "MiB": 1024.0**2,
    "GiB": 1024.0**3, "TiB": 1024.0**4,
    # power
    "W": 1.0, "kW": 1e3, "MW": 1e6,
    # temperature
    "degC": 1.0, "K": 1.0,
}
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}
_QTY = re.compile(r"^\s*([-+]?\d*\.?\d+(?:[eE][-+]?\d+)?)\s*([A-Za-z/%]*)\s*$")


def parse_number(text: str) -> Optional[float]:
    """A varied value as a number for plotting: '16384' -> 16384, '10 min' -> 600 (seconds),
    '2 TB/s' -> 2e12, '15.6T' -> 15.6e12, '4:1' -> 4; None for names (air-chiller)."""
    t = str(text).strip()
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*:\s*1\s*$", t)
    if m:
        return float(m.group(1))
    m = _QTY.match(t)
    if not m:
        return None
    x, unit = float(m.group(1)), m.group(2)
    if unit == "":
        return x
    if unit in _UNIT_SCALE:
        return x * _UNIT_SCALE[unit]
    if unit in _SUFFIX:
        return x * _SUFFIX[unit]
    if unit == "%":
        return x / 100.0
    return None


def value_unit(values: Sequence[str]) -> str:
    """The unit shared by a list of varied values ('10 min', '30 min' -> 'min'), else ''."""
    units = set()
    for v in values:
        m = _QTY.match(str(v))
        units.add(m.group(2) if m else None)
    return units.pop() if len(units) == 1 and None not in units else ""


class Sweep:
    """A sweep directory: its grid (sweep.json), its index (index.csv) and the point results."""

    def __init__(self, path: Union[str, os.PathLike]):
        self.path = Path(path)
        idx = self.path / "index.csv"
        if not idx.exists():
            raise FileNotFoundError(f"{self.path}: no index.csv (is this a sweep directory?)")
        spec_path = self.path / "sweep.json"
        self.spec = json.loads(spec_path.read_text()) if spec_path.exists() else {}
        with open(idx, newline="") as f:
            header = next(csv.reader(f), [])
        # The independent axes; keys that move with an axis (--with, --zip) are its companions.
        self.keys: List[str] = [v["key"] for v in self.spec.get("vary", [])] or _guess_keys(header)
        self.companions: Dict[str, List[str]] = {
            v["key"]: [w["key"] for w in v.get("with", [])] for v in self.spec.get("vary", [])}
        text = set(self.keys) | {k for ks in self.companions.values() for k in ks} | {"file", "status", "error"}
        self.index = pd.read_csv(idx, dtype={c: str for c in text if c in header}, keep_default_na=False,
                                 na_values={c: [""] for c in header if c not in text})
        self._results: Dict[str, Result] = {}

    @property
    def ok(self) -> pd.DataFrame:
        return self.index[self.index["status"] == "ok"]

    @property
    def failed(self) -> pd.DataFrame:
        return self.index[self.index["status"] == "failed"]

    def result(self, file: str) -> Result:
        if file not in self._results:
            self._results[file] = Result(self.path / file)
        return self._results[file]

    def results(self) -> Iterable[tuple]:
        """(index row, Result) for every finished point, in grid order."""
        for _, row in self.ok.iterrows():
            p = self.path / row["file"]
            if p.exists():
                yield row, self.result(row["file"])

    def values_of(self, key: str) -> List[str]:
        for v in self.spec.get("vary", []):
            if v["key"] == key:
                return list(v["values"])
        return list(dict.fromkeys(self.index[key]))

    def is_numeric(self, key: str) -> bool:
        return all(parse_number(v) is not None for v in self.values_of(key))

    def frame(self, metrics: Sequence[str]) -> pd.DataFrame:
        """One row per finished point: point, file, the varied keys (text), KEY__num (the value as
        a number, when every value parses), and for each metric NAME, NAME_p05, NAME_p95 (bands
        equal the mean for scalar metrics) and NAME_lo, NAME_hi (its interval, NaN when the point
        has none; df.attrs["levels"] maps each metric to its level). df.attrs["units"] maps each
        metric to its unit."""
        rows, units, levels = [], {}, {}
        for row, r in self.results():
            d = {"point": row["point"], "file": row["file"]}
            for k in self.keys:
                d[k] = row[k]
                for c in self.companions.get(k, []):
                    d[c] = row[c]
            for m in metrics:
                s = r.stat(m)
                d[m], d[m + "_p05"], d[m + "_p95"] = s.mean, s.p05, s.p95
                iv = r.interval(m)
                d[m + "_lo"], d[m + "_hi"] = (iv.lo, iv.hi) if iv else (math.nan, math.nan)
                if iv:
                    levels[m] = iv.level
                if r.has(m):
                    units[m] = r.unit(m)
            rows.append(d)
        df = pd.DataFrame(rows)
        for k in self.keys:
            if self.is_numeric(k) and k in df:
                df[k + "__num"] = [parse_number(v) for v in df[k]]
        df.attrs["units"] = units
        df.attrs["levels"] = levels
        return df

    def __repr__(self) -> str:
        return f"Sweep({str(self.path)!r}, keys={self.keys}, {len(self.ok)} ok, {len(self.failed)} failed)"


def _guess_keys(header: List[str]) -> List[str]:
    """The varied keys of an index without sweep.json: the columns between file and status."""
    if "status" in header and "file" in header:
        return header[header.index("file") + 1:header.index("status")]
    return []


def load(path: Union[str, os.PathLike]) -> Union[Result, Sweep]:
    """A Result for an .h5 file, a Sweep for a sweep directory."""
    p = Path(path)
    if p.is_dir():
        return Sweep(p)
    return Result(p)


# --- display helpers ----------------------------------------------------------------------------
_UNIT_TEXT = {"1": "", "degC": "°C", "count": "", "tokens": "tokens"}


def unit_text(unit: str) -> str:
    """How a unit from the file is written on an axis ('' for ratios)."""
    return _UNIT_TEXT.get(unit, unit)


def axis_label(text: str, unit: str) -> str:
    u = unit_text(unit)
    return f"{text} ({u})" if u else text
