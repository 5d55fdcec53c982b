#!/usr/bin/python3
"""Figures of a `fleetsim plan PLAN -o plan.h5` result: the designs in (days, cost) with peak
facility MW as colour, the Pareto set and the constraints; and the cost waterfall of the cheapest
design that meets the deadline, from its GPU-hours to dollars.

    /usr/bin/python3 analysis/plan_figures.py plan.h5 -o DIR     # DIR/plan_pareto.png, DIR/plan_waterfall.png
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import h5py  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from analysis.style import BLUE, GREEN, GREY, ORANGE, RED  # noqa: E402
from analysis.outputs import output_dir, save_figure  # noqa: E402


def _text(ds):
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in ds[:]]


def is_plan(path) -> bool:
    with h5py.File(path, "r") as f:
        return "designs" in f and "pareto" in f


def pareto_figure(f, path: Path):
    d = f["designs"]
    days, cost, mw = d["days"][:], d["cost_usd"][:] / 1e6, d["peak_facility_mw"][:]
    feasible = d["feasible"][:] > 0
    ran = days > 0
    gpu = _text(d["gpu"])
    pareto = f["pareto"]["design"][:].astype(int)
    fig, ax = plt.subplots(figsize=(9, 5.4))
    markers = {g: m for g, m in zip(sorted(set(gpu)), "osD^vP*X")}
    sc = None
    shown = mw[feasible] if feasible.any() else mw[ran]
    lo, hi = (float(np.min(shown)), float(np.max(shown))) if len(shown) else (0.0, 1.0)
    for g, m in markers.items():
        sel = ran & np.array([x == g for x in gpu])
        ax.scatter(days[sel & ~feasible], cost[sel & ~feasible], marker=m, facecolors="none", edgecolors=GREY,
                   s=22, lw=0.7, alpha=0.6)
        sc = ax.scatter(days[sel & feasible], cost[sel & feasible], marker=m, c=mw[sel & feasible], cmap="viridis",
                        s=30, label=g, vmin=lo, vmax=hi)
    if len(pareto):
        ax.scatter(days[pareto], cost[pareto], s=90, facecolors="none", edgecolors=RED, lw=1.2,
                   label="Pareto set (days, cost, MW)")
        # 80% intervals of days and cost (files written before issue 40 have none).
        if "days_lo" in d and "cost_usd_lo" in d:
            dl, dh = d["days_lo"][:][pareto], d["days_hi"][:][pareto]
            cl, ch = d["cost_usd_lo"][:][pareto] / 1e6, d["cost_usd_hi"][:][pareto] / 1e6
            x, y = days[pareto], cost[pareto]
            ax.errorbar(x, y, xerr=[x - dl, dh - x], yerr=[y - cl, ch - y], fmt="none", ecolor=RED, alpha=0.5,
                        lw=0.8, capsize=2, label="80% interval (step model and replications)")
    if "constraints" in f:
        c = f["constraints"]
        limits = dict(zip(_text(c["constraint"]), c["limit"][:]))
        if limits.get("deadline", 0) > 0:
            ax.axvline(float(limits["deadline"]), color=ORANGE, ls=":", lw=1.2, label="deadline")
        if limits.get("budget", 0) > 0:
            ax.axhline(float(limits["budget"]) / 1e6, color=ORANGE, ls="-.", lw=1.2, label="budget")
    if sc is not None:
        fig.colorbar(sc, ax=ax, label="peak facility power (MW)")
    ax.set_xlabel("wall-clock to train the tokens (days)")
    ax.set_ylabel("cost of the run (M USD)")
    ax.set_title("Plan: every design run (grey: violates a constraint), Pareto set over days, cost and MW")
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


def waterfall_figure(f, path: Path):
    w = f["waterfall"]
    items, usd, hours = _text(w["item"]), w["usd"][:], w["gpu_hours"][:]
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    start = 0.0
    colors = [BLUE, GREEN, ORANGE, RED, GREY]
    for k, (name, v) in enumerate(zip(items[1:], usd[1:])):
        ax.bar(k, v / 1e6, bottom=start / 1e6, color=colors[k % len(colors)])
        ax.text(k, (start + v / 2) / 1e6, f"{v / 1e6:.2f}M", ha="center", va="center", fontsize=8, color="white")
        start += v
    ax.bar(len(items) - 1, start / 1e6, color="#2f4858")
    ax.text(len(items) - 1, start / 2e6, f"{start / 1e6:.2f}M", ha="center", va="center", fontsize=9, color="white")
    ax.set_xticks(range(len(items)))
    ax.set_xticklabels([n.replace(": ", ":\n") for n in items[1:]] + ["run cost"], fontsize=8)
    ax.set_ylabel("M USD")
    ax.set_title(f"Cost of the run of the cheapest design meeting the deadline: {hours[0] / 1e6:.2f}M GPU-hours "
                 f"-> {start / 1e6:.2f}M USD ({start / max(hours[0], 1):.2f} USD per GPU-hour)", fontsize=9)
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


def plan_figures(result, out: Path) -> list:
    output_dir(out)
    paths = []
    with h5py.File(result, "r") as f:
        pareto_figure(f, out / "plan_pareto.png")
        paths.append(out / "plan_pareto.png")
        if "waterfall" in f:
            waterfall_figure(f, out / "plan_waterfall.png")
            paths.append(out / "plan_waterfall.png")
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("-o", "--output", default="report")
    a = ap.parse_args(argv)
    if not is_plan(a.result):
        sys.exit(f"{a.result}: no designs table; write it with `fleetsim plan PLAN -o {a.result}`")
    paths = plan_figures(a.result, Path(a.output))
    print("figures: " + ", ".join(map(str, paths)))


if __name__ == "__main__":
    main()
