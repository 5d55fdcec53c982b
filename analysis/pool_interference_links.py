#!/usr/bin/python3
"""Figures of fabric interference in a `fleetsim pool -o out.h5` result run with
pool.interference.enabled (issue 28): the fabric's switch-bundle load over time (mean, most loaded,
bundles offered more than their capacity) and the worst links (time-mean and peak offered load /
capacity, hours shared by more than one job).

    /usr/bin/python3 analysis/pool_interference_links.py out.h5 -o DIR   # DIR/pool_link_load.png, DIR/pool_worst_links.png
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

from analysis.style import BLUE, GREY, ORANGE, RED  # noqa: E402
from analysis.outputs import output_dir, save_figure  # noqa: E402


def load_figure(f, path: Path):
    ts = f["pool_link_load"]
    t = ts["time_h"][:] / 24.0
    fig, ax = plt.subplots(figsize=(11, 4.2))
    ax.plot(t, ts["mean_load"][:], color=BLUE, lw=1.2, label="mean over bundles")
    ax.plot(t, ts["max_load"][:], color=RED, lw=0.8, label="most loaded bundle")
    ax.axhline(1.0, color=GREY, ls=":", lw=1, label="capacity")
    ax.set_xlabel("day")
    ax.set_ylabel("offered load / capacity")
    ax2 = ax.twinx()
    ax2.plot(t, ts["hot_links"][:], color=ORANGE, lw=0.8, alpha=0.7, label="bundles above capacity")
    ax2.set_ylabel("bundles above capacity")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + lines2[0], lines[1] + lines2[1], loc="upper right", fontsize=8.5)
    ax.set_title("Fabric switch-bundle load over time (replication 0; others weighted by their communication share)")
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


def worst_figure(f, path: Path):
    ds = f["pool_worst_links"]
    desc = ds.attrs.get("description", "")
    if isinstance(desc, bytes):
        desc = desc.decode()
    names = desc.split(": ")[-1].split(",") if ": " in desc else []
    mean, peak, shared = ds["mean_load"][:], ds["peak_load"][:], ds["shared_hours"][:]
    if len(names) != len(mean):
        names = [f"link {i}" for i in range(len(mean))]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 0.3 * len(mean) + 1.8), sharey=True)
    ax.barh(names, peak, color=RED, alpha=0.35, label="peak")
    ax.barh(names, mean, color=RED, alpha=0.85, label="time mean")
    ax.axvline(1.0, color=GREY, ls=":", lw=1)
    ax.invert_yaxis()
    ax.set_xlabel("offered load / capacity")
    ax.legend(fontsize=8.5, loc="lower right")
    ax2.barh(names, shared, color=BLUE, alpha=0.8)
    ax2.set_xlabel("hours shared by more than one job")
    fig.suptitle("The most loaded fabric links (replication 0)")
    fig.tight_layout()
    save_figure(fig, path, dpi=130)
    plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("-o", "--out", default=".")
    a = ap.parse_args(argv)
    out = Path(a.out)
    output_dir(out)
    with h5py.File(a.results, "r") as f:
        if "pool_link_load" not in f:
            print(f"{a.results}: no /pool_link_load table: run fleetsim pool with pool.interference.enabled: true",
                  file=sys.stderr)
            return 2
        load_figure(f, out / "pool_link_load.png")
        worst_figure(f, out / "pool_worst_links.png")
    print(f"wrote {out / 'pool_link_load.png'} and {out / 'pool_worst_links.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
