#!/usr/bin/python3
"""What-if 4: how many hot spares does a 100k-GPU job need?

Llama 3 405B on 98,304 H100 with the Llama 3 failure rates and the warm-spares restart policy:
ETTR and the time spent waiting for a repaired node, against the number of hot spare nodes. The
answer is the smallest pool that keeps the wait negligible, checked against Little's law (nodes in
repair on average = node-removing failures per hour x mean repair time).

    scripts/whatif/hot_spares.py [-o DIR] [--replications N] [--days D]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402

from analysis import figures as F  # noqa: E402

SCENARIO = "llama3-405b-16k"
# 16 microbatches per pipeline (DP 768 x 16), as at 16k: the interleaved schedule needs a multiple of PP.
SETS = ["cluster.gpus=98304", "workload.training.global_batch_size=12288", "recovery.policy=warm_spares"]
SPARES = [0, 2, 4, 8, 12, 16, 24, 32, 64, 128]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", help="output directory (default out/whatif/hot_spares)")
    ap.add_argument("--replications", type=int, default=6)
    ap.add_argument("--days", type=float, default=10, help="simulated days per run")
    a = ap.parse_args(argv)
    out = common.out_dir("hot_spares", a.output)
    sw = common.sweep(SCENARIO, ["recovery.spare_nodes=" + ",".join(map(str, SPARES))], out / "sweep",
                      sets=SETS + [f"run.duration={a.days:g} d"], replications=a.replications)
    df = sw.frame(["run.ettr", "run.lost_hours.waiting_for_spares", "run.lost_hours.rescheduling",
                   "run.interruptions.unexpected", "run.mtti_hours", "run.wall_clock_days"])
    df = df.sort_values("recovery.spare_nodes__num")
    wall_h = float(df["run.wall_clock_days"].iloc[0]) * 24

    print(f"\n98,304 H100, Llama 3 failure rates, warm spares, {a.days:g} days x {a.replications} replications\n")
    print(f"{'spare nodes':>12} {'ETTR':>22} {'waiting for spares (h)':>26} {'rescheduling (h)':>17}")
    for _, r in df.iterrows():
        print(f"{int(r['recovery.spare_nodes__num']):>12} {100 * r['run.ettr']:>8.2f}% "
              f"[{100 * r['run.ettr_p05']:.2f}, {100 * r['run.ettr_p95']:.2f}] "
              f"{r['run.lost_hours.waiting_for_spares']:>10.2f} [{r['run.lost_hours.waiting_for_spares_p05']:.2f}, "
              f"{r['run.lost_hours.waiting_for_spares_p95']:.2f}] {r['run.lost_hours.rescheduling']:>12.2f}")
    best = df["run.ettr"].max()
    # Enough: ETTR within 0.1 point of the best and at most 0.1% of the wall-clock spent waiting even at p95.
    ok = df[(df["run.ettr"] >= best - 0.001) & (df["run.lost_hours.waiting_for_spares_p95"] <= 0.001 * wall_h)]
    need = int(ok["recovery.spare_nodes__num"].iloc[0]) if len(ok) else None
    mtti_h = float(df["run.mtti_hours"].iloc[0])
    repair_mean_h = _repair_mean_hours(sw)
    little = (1 / mtti_h) * repair_mean_h if repair_mean_h else float("nan")
    print(f"\nLittle's law: {1 / mtti_h:.2f} interruptions/h x {repair_mean_h:.1f} h mean repair = "
          f"{little:.1f} nodes in repair on average (an upper bound: not every interruption takes a node out)")
    if need is not None:
        gpus_share = need * 8 / 98304
        print(f"\nAnswer: {need} hot spare nodes ({need * 8} GPUs, {100 * gpus_share:.2f}% of the job) keep the wait "
              f"for repaired nodes negligible (ETTR {100 * float(ok['run.ettr'].iloc[0]):.2f}% vs "
              f"{100 * float(df['run.ettr'].iloc[0]):.2f}% with none); more spares buy nothing.")
    else:
        print("\nAnswer: even the largest pool tried leaves measurable waiting; try more spares.")

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.3))
    x = df["recovery.spare_nodes__num"].to_numpy(float)
    xp = [v if v > 0 else 1 for v in x]  # 0 spares drawn at the left edge of the log axis
    a1.plot(xp, df["run.ettr"], marker="o", color=F.BLUE)
    a1.fill_between(xp, df["run.ettr_p05"], df["run.ettr_p95"], color=F.BLUE, alpha=0.15, lw=0)
    a2.plot(xp, df["run.lost_hours.waiting_for_spares"], marker="o", color=F.RED)
    a2.fill_between(xp, df["run.lost_hours.waiting_for_spares_p05"], df["run.lost_hours.waiting_for_spares_p95"],
                    color=F.RED, alpha=0.15, lw=0)
    a2.lines[-1].set_label("waiting for a repaired node")
    a2.plot(xp, df["run.lost_hours.rescheduling"], marker="s", ms=4, ls="--", color=F.GREY,
            label="rescheduling (spare swap or requeue)")
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(xp)
        ax.set_xticklabels([str(int(v)) for v in x])
        ax.minorticks_off()
        ax.set_xlabel("hot spare nodes (8 GPUs each)")
        if need is not None:
            ax.axvline(max(need, 1), color=F.GREEN, ls="--", lw=1, label=f"enough: {need} nodes")
        if not math.isnan(little):
            ax.axvline(max(little, 1), color=F.GREY, ls=":", lw=1, label=f"Little's law: {little:.1f} in repair")
        ax.legend(fontsize=8.5)
    F._percent_axis(a1)
    a1.set_ylabel("ETTR (productive / wall-clock)")
    a1.set_title("ETTR (band p05–p95)", loc="left")
    a2.set_ylabel(f"wall-clock lost (h in {a.days:g} d)")
    a2.set_title("Time lost waiting for nodes (band p05–p95)", loc="left")
    fig.suptitle("How many hot spares does a 100k-GPU job need? (98,304 H100, Llama 3 failure rates)", x=0.01,
                 ha="left", fontsize=12)
    fig.tight_layout()
    print(f"\nfigure: {F.save(fig, out / 'hot_spares.png')}")


def _repair_mean_hours(sw):
    """Mean of the lognormal repair time, median * exp(sigma^2 / 2), from the failure preset."""
    try:
        import yaml
        from analysis.results import parse_number
        _, r = next(iter(sw.results()))
        doc = yaml.safe_load(r.resolved_scenario) or {}
        fail = doc.get("failures", {})
        preset = fail.get("profile") if isinstance(fail, dict) else None
        params = {}
        if preset:
            path = common.ROOT / "models" / "failures" / f"{preset}.yaml"
            if path.exists():
                params = yaml.safe_load(path.read_text()) or {}
        params.update({k: v for k, v in fail.items() if k != "profile"})
        unwrap = lambda v: v.get("value") if isinstance(v, dict) else v  # noqa: E731
        median = parse_number(str(unwrap(params.get("repair_median", "2 h"))))
        sigma = float(unwrap(params.get("repair_sigma", 1.2)))
        return median / 3600 * math.exp(sigma ** 2 / 2)
    except Exception:  # noqa: BLE001 - the estimate is a guide line, not the answer
        return None


if __name__ == "__main__":
    main()
