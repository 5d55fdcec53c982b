"""Figures from one fleetsim result. Each function draws one figure and returns the matplotlib
Figure; `save(fig, path)` writes it as PNG. Every axis carries its unit; every figure says what it shows.

    waterfall              the five factors of effective utilization, as a waterfall from 100 %
    iteration_breakdown    one iteration's critical path by component (compute, comm, bubble, ...)
    run_timeline           interruptions by cause, checkpoints and throughput over the run
    interruptions_by_cause mean interruptions per cause with p05-p95 whiskers
    ettr_distribution      ETTR over the Monte-Carlo replications
    lost_time              wall-clock lost per phase over the replications
    facility_series        PUE, power and temperatures over the run

The sweep figures (sweep_curve, sweep_panels, weak_scaling, sweep_figures) live in
analysis/sweep_figures.py and are re-exported here, as are the palette and helpers of analysis/style.py.
"""
from __future__ import annotations

import math
from typing import Dict, List, Tuple

import numpy as np
import pandas as pd
from matplotlib.ticker import PercentFormatter

from analysis.iteration_gantt import iteration_gantt
from analysis.power_figures import power_spectrum, power_window
from analysis.results import Result, axis_label
from analysis.style import (BLUE, CYCLE, GREEN, GREY, KEY_LABELS, METRIC_LABELS, ORANGE, PURPLE, RED,  # noqa: F401
                            _empty, _is_ratio, _percent_axis, key_label, metric_label, plt, save)
from analysis.sweep_figures import SWEEP_HEADLINES, sweep_curve, sweep_figures, sweep_panels, weak_scaling  # noqa: F401

__all__ = [
    # one result
    "waterfall", "iteration_breakdown", "run_timeline", "interruptions_by_cause", "ettr_distribution", "lost_time",
    "facility_series", "throughput_series", "result_figures", "FACTORS",
    # re-exported: sweeps and the shared style
    "sweep_curve", "sweep_panels", "weak_scaling", "sweep_figures", "SWEEP_HEADLINES", "save", "metric_label",
    "key_label", "METRIC_LABELS", "KEY_LABELS", "BLUE", "ORANGE", "GREEN", "RED", "PURPLE", "GREY", "CYCLE",
    "_percent_axis", "_is_ratio",
]

FACTORS = [  # (metric suffix, label on the waterfall)
    ("energy_efficiency", "energy\n(1 / PUE)"),
    ("single_gpu_efficiency", "single-GPU\nefficiency"),
    ("parallel_scaling_efficiency", "parallel\nscaling"),
    ("ettr", "ETTR"),
    ("resource_utilization", "pool\nutilization"),
]

# Human names for metrics the figures and the report use (fallback: the metric's description).


def waterfall(r: Result):
    """Effective utilization as a waterfall: from all facility energy (100 %) down through each of
    the five factors to the share that became model FLOPs. Where the result carries intervals
    (issue 25), each factor's bar gets an error bar on the level it leaves (the factor's interval
    times the level before it) and the product's bar its own interval (gid "waterfall_interval")."""
    prefix = "facility.effective_utilization.factors."
    if not r.has(prefix + "ettr"):
        return _empty("Effective utilization", "no facility factors in this result")
    factors = [(label, r.value(prefix + key)) for key, label in FACTORS]
    intervals = [r.interval(prefix + key) for key, _ in FACTORS]
    product = r.interval("facility.effective_utilization.value")
    fig, ax = plt.subplots(figsize=(8.4, 4.4))
    level = 1.0
    xs = list(range(len(factors) + 2))
    ax.bar(0, 1.0, color=BLUE, width=0.6)
    ax.text(0, 1.0 + 0.015, "100%", ha="center", va="bottom", fontsize=9)
    for i, (label, f) in enumerate(factors, start=1):
        new = level * f
        loss = level - new
        ax.bar(i, loss, bottom=new, color=RED, alpha=0.85, width=0.6)
        ax.plot([i - 1 + 0.3, i - 0.3], [level, level], color=GREY, lw=0.8, ls=":")
        iv = intervals[i - 1]
        if iv is not None and iv.hi > iv.lo:
            eb = ax.errorbar(i, new, yerr=[[max(new - level * iv.lo, 0)], [max(level * iv.hi - new, 0)]], fmt="none",
                             ecolor="black", elinewidth=0.9, capsize=3)
            for part in eb.lines[2]:
                part.set_gid("waterfall_interval")
        ax.text(i, level + 0.015, f"×{f:.3f}\n−{100 * loss:.1f} pp", ha="center", va="bottom", fontsize=8.5)
        level = new
    ax.plot([len(factors) + 0.3 - 1, len(factors) + 1 - 0.3], [level, level], color=GREY, lw=0.8, ls=":")
    ax.bar(len(factors) + 1, level, color=GREEN, width=0.6)
    top = level
    if product is not None and product.hi > product.lo:
        eb = ax.errorbar(len(factors) + 1, level, yerr=[[max(level - product.lo, 0)], [max(product.hi - level, 0)]],
                         fmt="none", ecolor="black", elinewidth=1.1, capsize=4)
        for part in eb.lines[2]:
            part.set_gid("waterfall_interval")
        top = max(level, product.hi)
    ax.text(len(factors) + 1, top + 0.015, f"{100 * level:.1f}%", ha="center", va="bottom", fontsize=9,
            fontweight="bold")
    ax.set_xticks(xs)
    ax.set_xticklabels(["facility\nenergy"] + [lbl for lbl, _ in factors] + ["effective\nutilization"])
    ax.set_ylim(0, 1.18)
    _percent_axis(ax)
    ax.set_ylabel("share of facility energy")
    ax.grid(axis="x", visible=False)
    eu = r.stat("facility.effective_utilization.value")
    band = f" (p05–p95 {100 * eu.p05:.1f}–{100 * eu.p95:.1f}%)" if eu.p95 > eu.p05 else ""
    if product is not None:
        band = f" ({100 * product.level:.0f}% interval {100 * product.lo:.1f}–{100 * product.hi:.1f}%)"
    ax.set_title(f"Effective utilization {100 * eu.mean:.1f}%{band}: where the facility's energy goes",
                 loc="left")
    return fig


# The breakdown's terms (sim/step/metrics.cpp, step_metric_defs): the top-level terms add up to the
# iteration time and are stacked; a part of a term ("of compute: ...", "of dp_comm: ...") is drawn
# inside its whole, never beside it; the rest are not on the critical path (hidden communication,
# sums of other terms) and appear in the title only. A key the figure does not know is an error, so
# a new term in the C++ catalog cannot silently break the sum (tests/analysis).
_BREAKDOWN_ORDER = ["compute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "dp_comm", "bubble", "optimizer"]
BREAKDOWN_PARTS = {"overlap_contention": "compute", "ep_sm_partition": "compute",
                   "gather_stall": "dp_comm", "prefetch_exposed": "dp_comm"}
BREAKDOWN_OFF_PATH = ("exposed_comm", "overlapped_comm", "ep_hidden")
_BREAKDOWN_LABELS = {"compute": "compute", "tp_comm": "TP comm", "pp_comm": "PP comm", "dp_comm": "DP comm",
                     "cp_comm": "CP comm", "ep_comm": "EP comm", "bubble": "pipeline bubble",
                     "optimizer": "optimizer",
                     "overlap_contention": "of compute: slowed by overlapped DP collectives",
                     "ep_sm_partition": "of compute: slowed by the all-to-all's SMs",
                     "gather_stall": "of DP comm: waiting for parameter gathers",
                     "prefetch_exposed": "of DP comm: gathers beyond the prefetch depth"}


_BREAKDOWN_COLORS = {"compute": GREEN, "tp_comm": ORANGE, "cp_comm": "#d46fa6", "ep_comm": "#b5874a",
                     "pp_comm": RED, "dp_comm": PURPLE, "bubble": "#3aa6b9", "optimizer": GREY}


def breakdown_segments(r: Result):
    """The iteration breakdown as drawn: [(term, start_s, seconds)] for the stacked top-level terms
    and [(part, start_s, seconds)] for the parts drawn inside their whole (each part starts where its
    whole starts, after the parts before it). Raises ValueError on a breakdown key it does not know."""
    g = r.group("step.breakdown_s.")
    unknown = [k for k in g.index if k not in _BREAKDOWN_ORDER and k not in BREAKDOWN_PARTS
               and k not in BREAKDOWN_OFF_PATH]
    if unknown:
        raise ValueError(f"iteration breakdown: step.breakdown_s.{unknown[0]} is neither a term, a part of one "
                         f"nor off the critical path (analysis/figures.py BREAKDOWN_PARTS)")
    terms, parts, start, starts = [], [], 0.0, {}
    for k in _BREAKDOWN_ORDER:
        v = float(g.at[k, "value"]) if k in g.index else 0.0
        if v > 0:
            terms.append((k, start, v))
            starts[k] = (start, v)
            start += v
    filled = {}
    for k, whole in BREAKDOWN_PARTS.items():
        v = float(g.at[k, "value"]) if k in g.index else 0.0
        if v > 0 and whole in starts:
            w0, wv = starts[whole]
            offset = filled.get(whole, 0.0)
            v = min(v, wv - offset)  # a part never reaches past its whole
            if v > 0:
                parts.append((k, w0 + offset, v))
                filled[whole] = offset + v
    return terms, parts


def iteration_breakdown(r: Result):
    """One iteration's critical path, split by component (seconds); parts of a component hatched
    inside it."""
    if not r.group("step.breakdown_s.").shape[0]:
        return _empty("Iteration breakdown", "no step.breakdown_s metrics in this result")
    terms, parts = breakdown_segments(r)
    if not terms:
        return _empty("Iteration breakdown", "no step.breakdown_s metrics in this result")
    total = r.value("step.iteration_time_s", sum(v for _, _, v in terms))
    fig, ax = plt.subplots(figsize=(8.4, 2.8))
    left = 0.0
    for i, (k, left, v) in enumerate(terms):
        color = _BREAKDOWN_COLORS.get(k, CYCLE[(i + 5) % len(CYCLE)])
        ax.barh(0, v, left=left, color=color, height=0.6, label=f"{_BREAKDOWN_LABELS.get(k, k)} {v:.3g} s",
                gid="breakdown_term")
        if v / total > 0.07:
            ax.text(left + v / 2, 0.12, f"{100 * v / total:.0f}%", ha="center", va="center", color="white",
                    fontsize=9, fontweight="bold")
    for k, start, v in parts:
        ax.barh(-0.15, v, left=start, height=0.25, color="white", alpha=0.35, hatch="///", edgecolor="black",
                lw=0.4, label=f"{_BREAKDOWN_LABELS.get(k, k)} {v:.3g} s", gid="breakdown_part")
    end = terms[-1][1] + terms[-1][2]
    ax.set_yticks([])
    ax.set_xlim(0, max(end, total) * 1.01)
    ax.set_xlabel("time on the critical path of one iteration (s)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=min(3, len(terms) + len(parts)), fontsize=8)
    mfu = r.value("step.mfu")
    title = f"One iteration: {total:.3g} s" + (f", MFU {100 * mfu:.1f}%" if not math.isnan(mfu) else "")
    exposed = r.value("step.breakdown_s.exposed_comm")
    overlapped = r.value("step.breakdown_s.overlapped_comm")
    if not math.isnan(exposed) and not math.isnan(overlapped):
        title += f"\ncommunication: {exposed:.3g} s exposed, {overlapped:.3g} s hidden under compute"
    ax.set_title(title, loc="left")
    return fig


def _outage_intervals(events: pd.DataFrame) -> List[Tuple[float, float]]:
    """(start_s, end_s) of every outage or stall in the event log."""
    if events.empty:
        return []
    ev = events[events["duration_s"] > 0]
    return [(float(t), float(t + d)) for t, d in zip(ev["time_s"], ev["duration_s"])]


def throughput_series(r: Result, bins: int = 240) -> pd.DataFrame:
    """Training throughput relative to the healthy cluster over time, from the event log (outages
    and stalls count as zero) times the facility's thermal throughput factor; one row per bin."""
    events = r.table("events")
    end_s = float(r.value("run.wall_clock_days") * 86400.0)
    if (math.isnan(end_s) or end_s <= 0) and not events.empty:
        end_s = float(events["time_s"].max() + events["duration_s"].max())
    if math.isnan(end_s) or end_s <= 0:
        return pd.DataFrame(columns=["time_d", "throughput"])
    edges = np.linspace(0.0, end_s, bins + 1)
    down = np.zeros(bins)
    for a, b in _outage_intervals(events):
        lo = np.clip(edges[:-1], a, b)
        hi = np.clip(edges[1:], a, b)
        down += np.maximum(hi - lo, 0.0)
    width = edges[1] - edges[0]
    up = np.clip(1.0 - down / width, 0.0, 1.0)
    ts = r.table("timeseries")
    mid = 0.5 * (edges[:-1] + edges[1:])
    if not ts.empty and "time" in ts and "throughput_factor" in ts:
        up = up * np.interp(mid / 3600.0, ts["time"].to_numpy(float), ts["throughput_factor"].to_numpy(float))
    return pd.DataFrame({"time_d": mid / 86400.0, "throughput": up})


def _duration_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def run_timeline(r: Result):
    """The run of replication 0: interruptions by cause (each mark spans its outage), durable
    checkpoints, and the throughput it left (share of the healthy cluster's, per time bin)."""
    events = r.table("events")
    if events.empty:
        return _empty("Run timeline", "no event log in this result")
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(9.5, 5.6), sharex=True,
                                  gridspec_kw={"height_ratios": [2.2, 1]})
    ev = events.copy()
    ev["day"] = ev["time_s"] / 86400.0
    failures = ev[ev["kind"].isin(["failure", "planned", "fail_slow", "eviction"])]
    causes = list(failures.groupby("cause").size().sort_values().index)
    rows = causes + (["checkpoint"] if (ev["kind"] == "checkpoint").any() else [])
    ypos = {c: i for i, c in enumerate(rows)}
    for i, c in enumerate(causes):
        sel = failures[failures["cause"] == c]
        color = CYCLE[i % len(CYCLE)]
        ax.broken_barh([(d, max(dur / 86400.0, 0.0)) for d, dur in zip(sel["day"], sel["duration_s"])],
                       (i - 0.3, 0.6), color=color, alpha=0.9)
        ax.scatter(sel["day"], [i] * len(sel), marker="|", s=80, color=color, lw=1.4)
    if "checkpoint" in ypos:
        ck = ev[ev["kind"] == "checkpoint"]
        ax.scatter(ck["day"], [ypos["checkpoint"]] * len(ck), marker="|", s=40, color=GREY, lw=0.6, alpha=0.6)
    counts = failures.groupby("cause").size()
    ax.set_yticks(range(len(rows)))
    n_ck = int((ev["kind"] == "checkpoint").sum())
    ck_label = f"checkpoints ({n_ck}, every {_duration_text(float(ev['time_s'].max()) / n_ck)})" if n_ck else ""
    ax.set_yticklabels([f"{c} ({counts[c]})" if c in counts else ck_label for c in rows], fontsize=8.5)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.grid(axis="y", visible=False)
    n_unexp = int((ev["kind"] == "failure").sum())
    days = float(ev["time_s"].max() / 86400.0) if len(ev) else 0
    ax.set_title(f"Run timeline (replication 0): {n_unexp} unexpected interruptions"
                 f" in {r.value('run.wall_clock_days', days):.1f} days; marks span each outage", loc="left")
    tp = throughput_series(r)
    ax2.fill_between(tp["time_d"], tp["throughput"], step="mid", color=BLUE, alpha=0.35, lw=0)
    ax2.plot(tp["time_d"], tp["throughput"], drawstyle="steps-mid", color=BLUE, lw=0.8)
    ettr = r.value("run.ettr")
    if not math.isnan(ettr):
        ax2.axhline(ettr, color=RED, lw=1, ls="--", label=f"ETTR (mean over replications) {100 * ettr:.1f}%")
        ax2.legend(loc="lower left", fontsize=8.5)
    ax2.set_ylim(0, 1.05)
    _percent_axis(ax2)
    ax2.set_ylabel("throughput\n(share of healthy)")
    ax2.set_xlabel("time since the run started (days)")
    ax2.set_xlim(0, max(tp["time_d"].max() if len(tp) else 0, days) * 1.005 or 1)
    return fig


def interruptions_by_cause(r: Result):
    """Unexpected interruptions per failure cause over the run: mean and p05-p95 over replications."""
    g = r.group("run.interruptions.by_cause.")
    g = g[g["value"] > 0].sort_values("value")
    if g.empty:
        return _empty("Interruptions by cause", "no interruptions by cause in this result")
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.32 * len(g)))
    y = np.arange(len(g))
    lo = (g["value"] - g["p05"]).clip(lower=0).fillna(0)
    hi = (g["p95"] - g["value"]).clip(lower=0).fillna(0)
    ax.barh(y, g["value"], color=ORANGE, height=0.6)
    ax.errorbar(g["value"], y, xerr=[lo, hi], fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
    ax.set_yticks(y)
    ax.set_yticklabels([c.replace("_", " ") for c in g.index], fontsize=8.5)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("unexpected interruptions over the run (count; bars: mean, whiskers: p05–p95)")
    tot = r.stat("run.interruptions.unexpected")
    ax.set_title(f"Interruptions by cause: {tot.mean:.0f} in all [{tot.p05:.0f}, {tot.p95:.0f}], "
                 f"job MTTI {r.value('run.mtti_hours'):.2f} h", loc="left")
    return fig


def ettr_distribution(r: Result):
    """ETTR of every Monte-Carlo replication, with its mean and 5th/95th percentiles."""
    reps = r.table("replications")
    if reps.empty or "ettr" not in reps:
        return _empty("ETTR distribution", "no replications table in this result")
    x = reps["ettr"].to_numpy(float)
    s = r.stat("run.ettr")
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    if len(x) >= 20:
        bins = max(5, min(30, int(math.sqrt(len(x)) * 2)))
        ax.hist(x, bins=bins if np.ptp(x) > 0 else 1, color=BLUE, alpha=0.8, edgecolor="white")
        ax.set_ylabel("replications")
    else:  # few replications: one dot each, sorted
        xs = np.sort(x)
        ax.scatter(xs, np.arange(1, len(xs) + 1), color=BLUE, s=28, zorder=3)
        ax.set_ylim(0.3, len(xs) + 0.7)
        ax.set_ylabel("replication (sorted by ETTR)")
        ax.yaxis.get_major_locator().set_params(integer=True)
    for v, lbl, ls in ((s.mean, "mean", "-"), (s.p05, "p05", "--"), (s.p95, "p95", ":")):
        if not math.isnan(v):
            ax.axvline(v, color=RED, ls=ls, lw=1.2, label=f"{lbl} {100 * v:.2f}%")
    ax.legend(fontsize=8.5, loc="upper left")
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=1))
    ax.set_xlabel("ETTR (productive time / wall-clock)")
    ax.set_title(f"ETTR over {len(x)} replications", loc="left")
    return fig


_PHASE_LABELS = {"lost_work": "lost work (rollback)", "detection": "detection", "diagnosis": "diagnosis",
                 "rescheduling": "rescheduling", "waiting_for_spares": "waiting for spares",
                 "restart": "restart (init + load)", "checkpoint_stalls": "checkpoint stalls",
                 "planned_maintenance": "planned maintenance", "degraded": "degraded replicas"}


def lost_time(r: Result):
    """Wall-clock hours lost per phase; box over the replications (whiskers p05-p95), dot at the mean."""
    reps = r.table("replications")
    cols = [c for c in reps.columns if c.startswith("lost_hours_")] if not reps.empty else []
    data = {c[len("lost_hours_"):]: reps[c].to_numpy(float) for c in cols}
    if not data:  # fall back on the summary statistics
        g = r.group("run.lost_hours.")
        data = {k: np.array([row["p05"], row["value"], row["p95"]]) for k, row in g.iterrows()}
    data = {k: v for k, v in data.items() if np.nanmax(v) > 0}
    if not data:
        return _empty("Lost time by phase", "no lost time in this result")
    order = sorted(data, key=lambda k: np.nanmean(data[k]))
    fig, ax = plt.subplots(figsize=(8, 0.8 + 0.42 * len(order)))
    ax.boxplot([data[k] for k in order], vert=False, whis=(5, 95), widths=0.55, showfliers=False,
               patch_artist=True, boxprops=dict(facecolor="#f3d3b3", edgecolor=ORANGE),
               medianprops=dict(color=ORANGE), whiskerprops=dict(color=GREY), capprops=dict(color=GREY))
    ax.scatter([np.nanmean(data[k]) for k in order], range(1, len(order) + 1), color=RED, zorder=3, s=16,
               label="mean")
    ax.set_yticks(range(1, len(order) + 1))
    ax.set_yticklabels([_PHASE_LABELS.get(k, k) for k in order], fontsize=8.5)
    ax.set_xlim(left=0)
    ax.set_xlabel("wall-clock lost over the run (h)")
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower right", fontsize=8.5)
    total = sum(np.nanmean(v) for v in data.values())
    wall_h = r.value("run.wall_clock_days") * 24.0
    share = f" ({100 * total / wall_h:.1f}% of {wall_h:.0f} h)" if wall_h > 0 else ""
    ax.set_title(f"Lost time by phase: {total:.1f} h on average{share}", loc="left")
    return fig


def facility_series(r: Result):
    """Facility time series of replication 0: PUE, IT and facility power, temperatures, throttling."""
    ts = r.table("timeseries")
    if ts.empty or "time" not in ts:
        return _empty("Facility", "no facility time series in this result")
    units = ts.attrs.get("units", {})
    t = ts["time"].to_numpy(float) / (24.0 if units.get("time", "h") == "h" else 86400.0)
    throttled = "throughput_factor" in ts and float(ts["throughput_factor"].min()) < 0.999
    n = 4 if throttled else 3
    fig, axes = plt.subplots(n, 1, figsize=(9.5, 1.9 * n + 0.6), sharex=True)
    ax = axes[0]
    if "pue" in ts:
        ax.plot(t, ts["pue"], color=PURPLE, lw=1)
        pm = r.value("facility.pue_mean")
        if not math.isnan(pm):
            ax.axhline(pm, color=PURPLE, ls="--", lw=0.8, label=f"energy-weighted mean {pm:.3f}")
            ax.legend(loc="upper right", fontsize=8.5)
    ax.set_ylabel("PUE")
    ax = axes[1]
    for col, color, lbl in (("facility_power", RED, "facility"), ("it_power", BLUE, "IT")):
        if col in ts:
            ax.plot(t, ts[col], color=color, lw=1, label=lbl)
    ax.set_ylim(bottom=0, top=ax.get_ylim()[1] * 1.12)
    ax.set_ylabel(axis_label("power", units.get("it_power", "MW")))
    ax.legend(loc="best", fontsize=8.5, ncol=2)
    ax = axes[2]
    for col, color, lbl in (("gpu_temperature", RED, "GPU junction"), ("gpu_inlet_temperature", ORANGE, "GPU inlet"),
                            ("outdoor_temperature", BLUE, "outdoor wet-bulb")):
        if col in ts:
            ax.plot(t, ts[col], color=color, lw=1, label=lbl)
    ax.set_ylabel(axis_label("temperature", units.get("gpu_temperature", "degC")))
    ax.legend(loc="best", fontsize=8.5, ncol=3)
    if throttled:
        ax = axes[3]
        ax.plot(t, ts["throughput_factor"], color=GREEN, lw=1)
        _percent_axis(ax)
        ax.set_ylabel("throughput\n(vs unthrottled)")
    axes[-1].set_xlabel("time since the run started (days)")
    axes[0].set_title(f"Facility over the run: PUE {r.value('facility.pue_mean'):.3f}, "
                      f"{r.value('facility.facility_energy_mwh'):,.0f} MWh", loc="left")
    return fig


def result_figures(r: Result) -> Dict[str, object]:
    """Every single-result figure by file stem, in report order."""
    figs = {
        "waterfall": waterfall(r),
        "iteration_breakdown": iteration_breakdown(r),
        "iteration_timeline": iteration_gantt(r),
        "run_timeline": run_timeline(r),
        "interruptions_by_cause": interruptions_by_cause(r),
        "ettr_distribution": ettr_distribution(r),
        "lost_time": lost_time(r),
        "facility_series": facility_series(r),
        "power_window": power_window(r),      # facility.power_timeline: on
        "power_spectrum": power_spectrum(r),
    }
    return {k: f for k, f in figs.items() if f is not None}  # the Gantt needs an iteration_schedule table

