#!/usr/bin/python3
"""Figures of a `fleetsim pool -o out.h5` result: the pool's allocation over time by job class
(training, inference replicas the demand needs, development) with the fragmented share, and the
pool GPU-hours lost by cause. Where the result carries intervals (issue 25: `interval_lo`,
`interval_hi`, `interval_level` beside a value, the central range over the pool replications) the
allocation share gets a band and the losses their whiskers at that level (else p05-p95).

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
from analysis.outputs import output_dir, save_figure  # noqa: E402


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
    ds = f["metrics/pool/allocation_share"]
    mean = float(ds[0])
    ax.axhline(mean, color=GREY, ls=":", lw=1, label=f"allocation share, mean over replications: {mean:.3f}")
    if "interval_lo" in ds.attrs and float(ds.attrs["interval_hi"]) > float(ds.attrs["interval_lo"]):
        lo, hi, level = (float(ds.attrs[k]) for k in ("interval_lo", "interval_hi", "interval_level"))
        band = ax.axhspan(lo, hi, color=GREY, alpha=0.15, lw=0,
                          label=f"allocation share, {100 * level:.0f}% interval: {lo:.3f}–{hi:.3f}")
        band.set_gid("interval_band")
    ax.legend(loc="lower right", fontsize=8.5)
    ax.set_title("Pool allocation over time (replication 0)")
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


def losses_figure(f, path: Path):
    g = f["metrics/pool/gpu_hours_lost"]
    keys = sorted(g.keys(), key=lambda k: -float(g[k][0]))
    vals = [float(g[k][0]) for k in keys]
    has_interval = all("interval_lo" in g[k].attrs for k in keys)
    if has_interval:
        level = float(g[keys[0]].attrs["interval_level"]) if keys else 0.8
        lo = [max(float(g[k][0]) - float(g[k].attrs["interval_lo"]), 0) for k in keys]
        hi = [max(float(g[k].attrs["interval_hi"]) - float(g[k][0]), 0) for k in keys]
        what = f"{100 * level:.0f}% interval over replications"
    else:
        lo = [float(g[k][0]) - float(g[k][1]) for k in keys]
        hi = [float(g[k][2]) - float(g[k][0]) for k in keys]
        what = "p05-p95 over replications"
    fig, ax = plt.subplots(figsize=(8, 4.2))
    ax.barh(keys, vals, xerr=[lo, hi], color=RED, alpha=0.8)
    ax.invert_yaxis()
    ax.set_xlabel(f"pool GPU-hours lost (mean, {what})")
    ax.set_title("Where the pool's GPU-hours go, besides allocated work")
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("-o", "--output", default="report")
    a = ap.parse_args(argv)
    out = Path(a.output)
    output_dir(out)
    with h5py.File(a.result, "r") as f:
        if "pool_timeseries" not in f:
            sys.exit(f"{a.result}: no pool_timeseries table; write it with `fleetsim pool SCENARIO -o {a.result}`")
        allocation_figure(f, out / "pool_allocation.png")
        losses_figure(f, out / "pool_losses.png")
    print(f"figures: {out / 'pool_allocation.png'}, {out / 'pool_losses.png'}")


if __name__ == "__main__":
    main()
