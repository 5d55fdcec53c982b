#!/usr/bin/python3
"""What-if 5: what does a 2:1 or 4:1 oversubscribed fabric cost in MFU against what it saves in switches?

Llama 3 405B on its RoCE Clos (TP 8, PP 16), leaf-to-spine oversubscription 1:1, 2:1 and 4:1, at
16k and 98k GPUs: MFU and iteration time from the step model, and the switches of the fabric
(leaves, spines, core, counted as sim/facility/power_model.cpp switch_count does) and their power.
The trade is put in one currency: the GPUs' worth of throughput the slower iteration loses against
the switches it saves.

    scripts/whatif/oversubscription.py [-o DIR] [--replications N] [--days D]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from analysis import figures as F  # noqa: E402
from analysis.results import parse_number  # noqa: E402

SCENARIO = "llama3-405b-16k"
SIZES = [16384, 98304]
BATCH = [2048, 12288]         # 16 microbatches per pipeline at both sizes
RATIOS = [1, 2, 4]


def fabric_params(result) -> dict:
    """The fabric's fields: the preset from models/fabrics with the scenario's overrides."""
    import yaml
    doc = yaml.safe_load(result.resolved_scenario) or {}
    fab = doc.get("cluster", {}).get("fabric", {})
    name, over = (fab, {}) if isinstance(fab, str) else (fab.get("preset"), {k: v for k, v in fab.items()
                                                                              if k != "preset"})
    params = {}
    if name:
        params = yaml.safe_load((common.ROOT / "models" / "fabrics" / f"{name}.yaml").read_text()) or {}
    params.update(over)
    return {k: (v.get("value") if isinstance(v, dict) else v) for k, v in params.items()}


def switch_count(p: dict, gpus: int) -> int:
    """Mirrors switch_count() in sim/facility/power_model.cpp (folded Clos, approximate)."""
    per_leaf, radix = int(p["gpus_per_leaf"]), int(p.get("switch_radix", 64))
    tiers, over = int(p.get("tiers", 3)), max(1.0, float(p.get("oversubscription", 1)))
    pod_over = max(1.0, float(p.get("pod_oversubscription", 1)))
    cdiv = lambda a, b: int(math.ceil(a / b - 1e-9))  # noqa: E731
    leaves = cdiv(gpus, per_leaf)
    if tiers <= 1:
        return leaves
    uplinks = leaves * (per_leaf / over)
    if tiers == 2:
        return leaves + cdiv(uplinks, radix)
    middle = cdiv(uplinks, radix / 2.0)
    return leaves + middle + cdiv(middle * (radix / 2.0) / pod_over, radix)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", help="output directory (default out/whatif/oversubscription)")
    ap.add_argument("--replications", type=int, default=2)
    ap.add_argument("--days", type=float, default=2, help="simulated days per run (the MFU does not depend on it)")
    ap.add_argument("--tier", choices=["simgrid", "analytical"], default="simgrid",
                    help="step-model tier: simgrid shares bandwidth among contending flows (default)")
    a = ap.parse_args(argv)
    out = common.out_dir("oversubscription", a.output)
    sw = common.sweep(SCENARIO, ["cluster.gpus=" + ",".join(map(str, SIZES)),
                                 "cluster.fabric.oversubscription=" + ",".join(map(str, RATIOS))],
                      out / "sweep", sets=[f"run.duration={a.days:g} d", f"step.tier={a.tier}"],
                      replications=a.replications,
                      with_=["cluster.gpus:workload.training.global_batch_size=" + ",".join(map(str, BATCH))])
    df = sw.frame(["step.mfu", "step.iteration_time_s", "step.breakdown_s.dp_comm", "facility.it_power_mean_mw"])
    rows = {}
    for _, r in df.iterrows():
        p = fabric_params(sw.result(r["file"]))
        g, o = int(r["cluster.gpus"]), float(r["cluster.fabric.oversubscription"])
        rows[(g, o)] = dict(mfu=r["step.mfu"], it=r["step.iteration_time_s"], dp=r["step.breakdown_s.dp_comm"],
                            switches=switch_count({**p, "oversubscription": o}, g),
                            switch_w=parse_number(str(p.get("switch_power", "1.5 kW"))) or 1500.0)

    print(f"\nLlama 3 405B on its RoCE Clos; leaf oversubscription 1:1 vs 2:1 vs 4:1 ({a.tier} tier)\n")
    print(f"{'GPUs':>7} {'ratio':>6} {'MFU':>7} {'iter (s)':>9} {'DP comm (s)':>12} {'switches':>9} "
          f"{'saved':>7} {'MW saved':>9} {'GPUs of throughput lost':>24}")
    answers = []
    for g in SIZES:
        if (g, 1.0) not in rows:
            continue
        b = rows[(g, 1.0)]
        for o in RATIOS:
            r = rows.get((g, float(o)))
            if r is None:
                print(f"{g:>7} {o:>5}:1   failed")
                continue
            saved = b["switches"] - r["switches"]
            lost_gpus = g * (1 - r["mfu"] / b["mfu"])
            mw = saved * r["switch_w"] / 1e6
            print(f"{g:>7} {o:>5}:1 {100 * r['mfu']:>6.2f}% {r['it']:>9.3f} {r['dp']:>12.3f} {r['switches']:>9,} "
                  f"{saved:>7,} {mw:>9.2f} {lost_gpus:>24,.0f}")
            if o != 1:
                answers.append(f"{o}:1 at {g:,} GPUs costs {100 * (b['mfu'] - r['mfu']):.2f} MFU points "
                               f"({lost_gpus:,.0f} GPUs' worth of throughput) and saves {saved:,} of "
                               f"{b['switches']:,} switches: {lost_gpus / max(saved, 1):.2f} GPUs lost per switch saved")
    print("\nAnswer: " + "; ".join(answers) + ". Oversubscription pays only where a switch (with its optics) "
          "costs more than that many GPUs.")

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.3))
    w = 0.38
    x = np.arange(len(RATIOS))
    for i, g in enumerate(SIZES):
        mfu = [rows.get((g, float(o)), {}).get("mfu", np.nan) for o in RATIOS]
        sw_ = [rows.get((g, float(o)), {}).get("switches", np.nan) for o in RATIOS]
        c = F.CYCLE[i]
        a1.bar(x + (i - 0.5) * w, mfu, width=w * 0.92, color=c, label=f"{g:,} GPUs")
        for xi, v in zip(x, mfu):
            a1.text(xi + (i - 0.5) * w, v + 0.004, f"{100 * v:.1f}%", ha="center", fontsize=8.5)
        a2.bar(x + (i - 0.5) * w, sw_, width=w * 0.92, color=c, label=f"{g:,} GPUs")
        for xi, v in zip(x, sw_):
            a2.text(xi + (i - 0.5) * w, v, f"{v:,.0f}", ha="center", va="bottom", fontsize=8.5)
    for ax in (a1, a2):
        ax.set_xticks(x)
        ax.set_xticklabels([f"{o}:1" for o in RATIOS])
        ax.set_xlabel("leaf-to-spine oversubscription")
        ax.grid(axis="x", visible=False)
        ax.set_ylim(top=ax.get_ylim()[1] * 1.15)
        ax.legend(fontsize=8.5, ncol=2, loc="upper right")
    F._percent_axis(a1)
    a1.set_ylabel("MFU")
    a1.set_title("What it costs: MFU", loc="left")
    a2.set_ylabel("switches in the fabric (count)")
    a2.set_title("What it saves: switches", loc="left")
    fig.suptitle(f"Oversubscribed fabric: MFU lost vs switches saved (Llama 3 405B, RoCE Clos, {a.tier} tier)",
                 x=0.01, ha="left", fontsize=12)
    fig.tight_layout()
    print(f"\nfigure: {F.save(fig, out / 'oversubscription.png')}")


if __name__ == "__main__":
    main()
