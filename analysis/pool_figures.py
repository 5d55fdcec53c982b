#!/usr/bin/python3
"""Figures of a `fleetsim pool -o out.h5` result: the pool's allocation over time by job class
(training, inference replicas the demand needs, development) with the fragmented share, and the
pool GPU-hours lost by cause.

    /usr/bin/python3 analysis/pool_figures.py out.h5 -o DIR     # DIR/pool_allocation.png, DIR/pool_losses.png
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

from analysis.style import BLUE, GREEN, GREY, ORANGE, RED  # noqa: E402


def allocation_figure(f, path: Path):
    ts = f["pool_timeseries"]
    t = ts["time_h"][:] / 24.0
    train, inf, dev = ts["training_share"][:], ts["inference_share"][:], ts["development_share"][:]
    frag = ts["fragmentation_share"][:]
    fig, ax = plt.subplots(figsize=(11, 4.2))
    ax.stackplot(t, train, inf, dev, colors=[BLUE, GREEN, ORANGE], alpha=0.85,
                 labels=["training", "inference (needed replicas)", "development"])
    total = train + inf + dev
    ax.fill_between(t, total, total + frag, color=RED, alpha=0.35, lw=0, label="free but unusable for the queue's head")
    ax.set_xlabel("day")
    ax.set_ylabel("share of the pool's GPUs")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(t[0], t[-1])
    mean = float(f["metrics/pool/allocation_share"][0])
    ax.axhline(mean, color=GREY, ls=":", lw=1, label=f"allocation share, mean over replications: {mean:.3f}")
    ax.legend(loc="lower right", fontsize=8.5)
    ax.set_title("Pool allocation over time (replication 0)")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def losses_figure(f, path: Path):
    g = f["metrics/pool/gpu_hours_lost"]
    keys = sorted(g.keys(), key=lambda k: -float(g[k][0]))
    vals = [float(g[k][0]) for k in keys]
    lo = [float(g[k][0]) - float(g[k][1]) for k in keys]
    hi = [float(g[k][2]) - float(g[k][0]) for k in keys]
    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.barh(keys, vals, xerr=[lo, hi], color=RED, alpha=0.8)
    ax.invert_yaxis()
    ax.set_xlabel("pool GPU-hours lost (mean, p05-p95 over replications)")
    ax.set_title("Where the pool's GPU-hours go, besides allocated work")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("-o", "--output", default="report")
    a = ap.parse_args(argv)
    out = Path(a.output)
    out.mkdir(parents=True, exist_ok=True)
    with h5py.File(a.result, "r") as f:
        if "pool_timeseries" not in f:
            sys.exit(f"{a.result}: no pool_timeseries table; write it with `fleetsim pool SCENARIO -o {a.result}`")
        allocation_figure(f, out / "pool_allocation.png")
        losses_figure(f, out / "pool_losses.png")
    print(f"figures: {out / 'pool_allocation.png'}, {out / 'pool_losses.png'}")


if __name__ == "__main__":
    main()
