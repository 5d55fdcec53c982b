#!/usr/bin/python3
"""What-if 7: what does fail-slow cost a 16k-GPU run, and which mitigation pays?

Llama 3 405B on 16,384 H100 (the default scenario, 54 days) with fail-slow hosts: onsets per node
at `--rate` per node-day (default 0.002: Minder, NSDI'25, reports ~2 faults a day for a task of
about a thousand machines; stragglers_failslow.csv F48), each host 2x slower while it lasts
(compute kind), episodes of 12 h if left alone, detected after 30 min. Four policies
(sim/run/README.md, "Fail-slow episodes"): ignore, re-balance microbatches, swap the host
(checkpoint + spare + restart), checkpoint-and-restart in place. For each: GPU-hours lost while
running slow (the waterfall's stragglers loss, inside parallel scaling), GPU-hours of mitigation
outages (in ETTR), and the effective utilization; the answer is the policy that loses least.

    scripts/whatif/fail_slow_16k.py [-o DIR] [--replications N] [--days D] [--rate R]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402

from analysis import figures as F  # noqa: E402

POLICIES = ["ignore", "rebalance", "swap", "checkpoint_restart"]
GPUS = 16384


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", help="output directory (default out/whatif/fail_slow_16k)")
    ap.add_argument("--replications", type=int, default=10)
    ap.add_argument("--days", type=float, default=54, help="simulated days per run")
    ap.add_argument("--rate", type=float, default=0.002, help="fail-slow onsets per node-day")
    a = ap.parse_args(argv)
    out = common.out_dir("fail_slow_16k", a.output)
    base = [f"run.duration={a.days:g} d", f"stragglers.fail_slow_rate_per_node={a.rate:g} /d",
            "stragglers.fail_slow_slowdown=2", "stragglers.fail_slow_duration=12 h", "stragglers.fail_slow_detect=30 min"]
    rows = []
    healthy = common.run_json("", [f"run.duration={a.days:g} d"], replications=a.replications)
    for pol in POLICIES:
        j = common.run_json("", base + [f"stragglers.fail_slow_policy={pol}"], replications=a.replications)
        eu = j["facility"]["effective_utilization"]
        slow_gpuh = eu["loss_gpu_hours"]["stragglers"]["mean"]
        outage_gpuh = j["run"]["fail_slow_outage_hours"]["mean"] * GPUS
        rows.append((pol, j["run"]["interruptions"]["fail_slow"]["mean"], slow_gpuh, outage_gpuh, slow_gpuh + outage_gpuh,
                     j["run"]["ettr"]["mean"], eu["value"]["mean"]))
    h_eu = healthy["facility"]["effective_utilization"]["value"]["mean"]
    print(f"\n16,384 H100, {a.days:g} days x {a.replications} replications; fail-slow {a.rate:g} per node-day, 2x, 12 h episodes,"
          f" detected after 30 min\n")
    print(f"{'policy':>20} {'episodes':>9} {'slow (GPU-h)':>13} {'outages (GPU-h)':>16} {'total (GPU-h)':>14} {'ETTR':>7} {'eff. util.':>10}")
    for r in rows:
        print(f"{r[0]:>20} {r[1]:>9.1f} {r[2]:>13.4g} {r[3]:>16.4g} {r[4]:>14.4g} {100 * r[5]:>6.2f}% {100 * r[6]:>9.2f}%")
    best = min(rows, key=lambda r: r[4])
    worst = max(rows, key=lambda r: r[4])
    print(f"\nWithout fail-slow hosts the effective utilization is {100 * h_eu:.2f}%.")
    print(f"Answer: '{best[0]}' pays: it loses {best[4]:.4g} GPU-hours to fail-slow hosts ({100 * best[4] / (GPUS * 24 * a.days):.2f}% "
          f"of the run's GPU-hours) against {worst[4]:.4g} for '{worst[0]}'.")

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    x = range(len(rows))
    ax.bar(x, [r[2] for r in rows], color=F.BLUE, label="running slow (stragglers, in parallel scaling)")
    ax.bar(x, [r[3] for r in rows], bottom=[r[2] for r in rows], color=F.RED, label="mitigation outages (in ETTR)")
    ax.set_xticks(list(x), [r[0] for r in rows])
    ax.set_ylabel("GPU-hours lost to fail-slow hosts")
    ax.set_title(f"Fail-slow at 16,384 GPUs: which mitigation pays ({a.days:g} d)")
    ax.legend(frameon=False)
    fig.tight_layout()
    path = out / "fail_slow_16k.png"
    fig.savefig(path, dpi=130)
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
