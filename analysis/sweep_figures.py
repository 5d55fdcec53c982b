"""Figures from a fleetsim sweep directory (analysis.results.Sweep): any metric against a varied
key with its p05-p95 band and, where the points carry one, its interval (issue 25: the step model's
model-form error with the Monte-Carlo spread) as a wider, lighter band; several metrics side by
side, MFU and scaling efficiency against GPUs, and the standard set the sweep report draws."""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from analysis.results import Sweep, axis_label, parse_number, value_unit
from analysis.style import CYCLE, _empty, _is_ratio, _percent_axis, key_label, metric_label, plt

def _x_values(sweep: Sweep, key: str, df: pd.DataFrame):
    """Positions and tick labels for a varied key: numbers when every value parses, else categories."""
    values = sweep.values_of(key)
    if sweep.is_numeric(key):
        return df[key + "__num"].to_numpy(float), None
    pos = {v: i for i, v in enumerate(values)}
    return np.array([pos[v] for v in df[key]], dtype=float), values


def _format_x(ax, sweep: Sweep, key: str, categories):
    values = sweep.values_of(key)
    if categories is not None:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories)
        ax.set_xlim(-0.5, len(categories) - 0.5)
        ax.grid(axis="x", visible=False)
        ax.set_xlabel(key_label(key))
        return
    nums = sorted(parse_number(v) for v in values)
    unit = value_unit(values)
    if nums and nums[0] > 0 and nums[-1] / nums[0] >= 8:
        ax.set_xscale("log", base=2)
    ticks = [parse_number(v) for v in values]
    ax.set_xticks(ticks)
    labels = values
    if key == "cluster.gpus":
        labels = [f"{int(x) // 1024}k" if x >= 1024 and int(x) % 1024 == 0 else f"{int(x):,}" for x in ticks]
    ax.set_xticklabels(labels)
    ax.minorticks_off()
    ax.set_xlabel(key_label(key) + (f" ({unit})" if unit and unit not in " ".join([key_label(key)]) else ""))


def _value_text(v: float, unit: str) -> str:
    if not np.isfinite(v):
        return ""
    if unit == "1" and abs(v) <= 1:
        return f"{100 * v:.1f}%"
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def _groups(df: pd.DataFrame, keys: List[str]) -> List[tuple]:
    """(values tuple, rows) for each combination of `keys`, in order of appearance."""
    if not keys:
        return [((), df)]
    if len(keys) == 1:
        return [((v,), sub) for v, sub in df.groupby(keys[0], sort=False)]
    return list(df.groupby(keys, sort=False))


def sweep_curve(sweep: Sweep, metric: str, key: str, ax=None, by: Optional[str] = None, color=None,
                label: Optional[str] = None, df: Optional[pd.DataFrame] = None, legend: bool = True):
    """`metric` against the varied `key`: a line with its p05-p95 band (numeric keys) or bars with
    p05-p95 whiskers (named values). Where the points carry an interval (NAME_lo, NAME_hi), a
    lighter band with a dashed edge (gid "interval_band") spans it; on bars the whiskers span it
    instead (gid "interval_whiskers"). Other keys than `key` give one line per combination."""
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(6.8, 4))
    df = sweep.frame([metric]) if df is None else df
    unit = df.attrs.get("units", {}).get(metric, "")
    others = [k for k in sweep.keys if k != key]
    groups = _groups(df, others)
    ncat = len(groups)
    for gi, (gval, sub) in enumerate(groups):
        gval = gval if isinstance(gval, tuple) else (gval,)
        x, cats = _x_values(sweep, key, sub)
        order = np.argsort(x)
        x = x[order]
        y = sub[metric].to_numpy(float)[order]
        lo = sub[metric + "_p05"].to_numpy(float)[order]
        hi = sub[metric + "_p95"].to_numpy(float)[order]
        nan = np.full(len(y), np.nan)
        ilo = sub[metric + "_lo"].to_numpy(float)[order] if metric + "_lo" in sub else nan
        ihi = sub[metric + "_hi"].to_numpy(float)[order] if metric + "_hi" in sub else nan
        has_interval = bool(np.isfinite(ilo).any() and np.isfinite(ihi).any() and np.any(ihi > ilo))
        c = color or CYCLE[gi % len(CYCLE)]
        lbl = label if label is not None else (", ".join(str(v) for v in gval) or None)
        if cats is None:
            ax.plot(x, y, marker="o", ms=4, color=c, label=lbl)
            if has_interval:
                band = ax.fill_between(x, ilo, ihi, facecolor=c, alpha=0.10, edgecolor=c, lw=0.8, ls="--")
                band.set_gid("interval_band")
            if np.any(hi > lo):
                ax.fill_between(x, lo, hi, color=c, alpha=0.18, lw=0)
        else:
            w = 0.8 / ncat
            off = (gi - (ncat - 1) / 2) * w
            # One series: each named value gets its own colour; several: one colour per series.
            colors = [CYCLE[int(v) % len(CYCLE)] for v in x] if ncat == 1 and color is None else c
            ax.bar(x + off, y, width=w * 0.92, color=colors, alpha=0.85, label=lbl)
            if has_interval:
                eb = ax.errorbar(x + off, y, yerr=[np.clip(y - ilo, 0, None), np.clip(ihi - y, 0, None)], fmt="none",
                                 ecolor="black", elinewidth=0.8, capsize=3)
                for part in eb.lines[2]:
                    part.set_gid("interval_whiskers")
                lo, hi = ilo, ihi  # the labels sit above the whiskers drawn
            elif np.any(hi > lo):
                ax.errorbar(x + off, y, yerr=[np.clip(y - lo, 0, None), np.clip(hi - y, 0, None)], fmt="none",
                            ecolor="black", elinewidth=0.8, capsize=3)
            ax.margins(y=0.1)
            if ncat <= 2:
                for xi, yi, top in zip(x + off, y, np.fmax(hi, y)):
                    ax.annotate(_value_text(yi, unit), (xi, top), xytext=(0, 2), textcoords="offset points",
                                ha="center", va="bottom", fontsize=8)
        last_cats = cats
    _format_x(ax, sweep, key, last_cats if groups else None)
    ax.set_ylabel(axis_label(metric_label(metric), unit))
    if _is_ratio(unit):
        tops = [df[c].to_numpy(float) for c in (metric + "_p95", metric + "_hi") if c in df]
        ymax = np.nanmax(np.concatenate(tops)) if len(df) else 1
        if ymax <= 1.0 + 1e-9:
            _percent_axis(ax)
    if legend and ax.get_legend_handles_labels()[0] and (len(groups) > 1 or label):
        ax.legend(fontsize=8.5, title=", ".join(key_label(k) for k in others) or None, title_fontsize=8.5)
    if own:
        level = df.attrs.get("levels", {}).get(metric)
        extra = f"; light band: {100 * level:.0f}% interval" if level else ""
        ax.set_title(f"{metric_label(metric)} vs {key_label(key)} (band: p05–p95 over replications{extra})", loc="left")
        return ax.figure
    return ax


def sweep_panels(sweep: Sweep, key: str, metrics: Sequence[str], title: str, ncols: int = 2):
    """Several metrics against one varied key, one panel each, sharing the x axis."""
    df = sweep.frame(list(metrics))
    metrics = [m for m in metrics if m in df and df[m].notna().any()]
    if df.empty or not metrics:
        return _empty(title, "no finished points with these metrics")
    ncols = min(ncols, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.3 * nrows + 0.4), squeeze=False)
    for ax, m in zip(axes.flat, metrics):
        sweep_curve(sweep, m, key, ax=ax, df=df, legend=False)
        ax.set_title(metric_label(m), loc="left", fontsize=10)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    fig.suptitle(title, x=0.01, ha="left", fontsize=11.5)
    fig.tight_layout()
    handles, labels = axes.flat[0].get_legend_handles_labels()
    others = [k for k in sweep.keys if k != key]
    if others and len(handles) > 1:
        fig.legend(handles, labels, loc="upper right", ncol=min(len(handles), 6), fontsize=9,
                   title=", ".join(key_label(k) for k in others), title_fontsize=9)
        fig.subplots_adjust(top=1 - 0.75 / fig.get_figheight())
    return fig


def weak_scaling(sweep: Sweep, key: str = "cluster.gpus"):
    """MFU against GPU count, with the scaling efficiency relative to the smallest point and the
    model's own parallel-scaling factor (MFU at scale / single-GPU MFU)."""
    df = sweep.frame(["step.mfu", "facility.effective_utilization.factors.parallel_scaling_efficiency"])
    if df.empty or not sweep.is_numeric(key):
        return _empty("Scaling", "needs finished points over a numeric key")
    df = df.sort_values(key + "__num")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    sweep_curve(sweep, "step.mfu", key, ax=a1, df=df)
    a1.set_title("MFU", loc="left", fontsize=10)
    others = [k for k in sweep.keys if k != key]
    groups = _groups(df, others)
    for gi, (gval, sub) in enumerate(groups):
        sub = sub.sort_values(key + "__num")
        x = sub[key + "__num"].to_numpy(float)
        rel = sub["step.mfu"].to_numpy(float) / float(sub["step.mfu"].iloc[0])
        c = CYCLE[gi % len(CYCLE)]
        a2.plot(x, rel, marker="o", ms=4, color=c, label="MFU / MFU at the smallest size")
        pse = sub["facility.effective_utilization.factors.parallel_scaling_efficiency"].to_numpy(float)
        if np.isfinite(pse).any():
            a2.plot(x, pse, marker="s", ms=4, ls="--", color=c, alpha=0.7,
                    label="parallel scaling factor (MFU / single-GPU MFU)")
        if gi == 0:
            a2.legend(fontsize=8.5, loc="best")
    _format_x(a2, sweep, key, None)
    a2.set_ylabel("scaling efficiency")
    _percent_axis(a2)
    a2.set_title("Scaling efficiency", loc="left", fontsize=10)
    fig.suptitle(f"MFU and scaling efficiency vs {key_label(key)}", x=0.01, ha="left", fontsize=11.5)
    fig.tight_layout()
    return fig


SWEEP_HEADLINES = [
    "step.mfu",
    "facility.effective_utilization.factors.parallel_scaling_efficiency",
    "run.ettr",
    "run.mtti_hours",
    "facility.pue_mean",
    "facility.facility_energy_mwh",
    "facility.effective_utilization.value",
    "run.wall_clock_days",
]


def sweep_figures(sweep: Sweep) -> Dict[str, object]:
    """The standard sweep figures by file stem: per varied key, the headline panels, and the
    topic figures that fit the key (scaling for cluster.gpus, energy for cooling)."""
    figs = {}
    for key in sweep.keys:
        stem = key.split(".")[-1]
        figs[f"headlines_vs_{stem}"] = sweep_panels(
            sweep, key, SWEEP_HEADLINES,
            f"Headline figures vs {key_label(key)} (bands: p05–p95; light dashed: the interval where given)", ncols=4)
        if key == "cluster.gpus":
            figs["scaling_vs_gpus"] = weak_scaling(sweep, key)
            figs["reliability_vs_gpus"] = sweep_panels(
                sweep, key, ["run.ettr", "run.mtti_hours", "run.interruptions.unexpected"],
                "ETTR and MTTI vs GPUs", ncols=3)
        if "cooling" in key:
            figs[f"energy_vs_{stem}"] = sweep_panels(
                sweep, key, ["facility.pue_mean", "facility.facility_energy_mwh",
                             "facility.effective_utilization.value", "facility.throughput_factor_mean"],
                f"Energy vs {key_label(key)}", ncols=4)
    return figs

