#!/usr/bin/python3
"""What-if 2: liquid versus air cooling at 100k GPUs.

The same Llama 3-style run on 98,304 H100 on a hot-summer site (scenarios/liquid-vs-air-100k.yaml),
once per cooling plant: PUE, throughput (thermal throttling), failures (temperature acceleration),
facility energy and effective utilization. Physics only: the vendor claims stay off (they are in
scenarios/liquid-vs-air-100k-claims.yaml, labelled).

    scripts/whatif/cooling_100k.py [-o DIR] [--replications N] [--days D] [--plants a,b,...]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from analysis import figures as F  # noqa: E402

SCENARIO = "liquid-vs-air-100k"
# 16 microbatches per pipeline (DP 768 x 16), as at 16k; the comparison is insensitive to the batch
# and the interleaved schedule needs a multiple of PP.
SETS = ["workload.training.global_batch_size=12288"]
METRICS = [
    ("facility.pue_mean", "PUE", "{:.3f}"),
    ("facility.throughput_factor_mean", "throughput (vs unthrottled)", "{:.2%}"),
    ("run.interruptions.unexpected", "unexpected interruptions", "{:.0f}"),
    ("run.ettr", "ETTR", "{:.2%}"),
    ("run.tokens_trained", "tokens trained", "{:.4g}"),
    ("facility.facility_energy_mwh", "facility energy (MWh)", "{:,.0f}"),
    ("facility.energy_per_token_j", "energy per token (J)", "{:.3g}"),
    ("facility.effective_utilization.value", "effective utilization", "{:.2%}"),
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", help="output directory (default out/whatif/cooling_100k)")
    ap.add_argument("--replications", type=int, default=4)
    ap.add_argument("--days", type=float, default=14, help="simulated days from 1 June (scenario: 54)")
    ap.add_argument("--plants", default="air-chiller,liquid-dlc", help="cooling presets to compare")
    a = ap.parse_args(argv)
    out = common.out_dir("cooling_100k", a.output)

    sw = common.sweep(SCENARIO, [f"cluster.cooling={a.plants}"], out / "sweep",
                      sets=SETS + [f"run.duration={a.days:g} d"], replications=a.replications)
    df = sw.frame([m for m, _, _ in METRICS]).set_index("cluster.cooling")
    plants = a.plants.split(",")
    print(f"\n98,304 H100 on a hot-summer site, {a.days:g} days from 1 June, {a.replications} replications "
          f"(mean [p05, p95])\n")
    print(f"{'':<30}" + "".join(f"{p:>34}" for p in plants))
    for m, label, fmt in METRICS:
        cells = []
        for p in plants:
            if p not in df.index:
                cells.append("failed")
                continue
            r = df.loc[p]
            cell = fmt.format(r[m])
            if r[m + "_p95"] > r[m + "_p05"]:
                cell += f" [{fmt.format(r[m + '_p05'])}, {fmt.format(r[m + '_p95'])}]"
            cells.append(cell)
        print(f"{label:<30}" + "".join(f"{c:>34}" for c in cells))
    if {"air-chiller", "liquid-dlc"} <= set(df.index):
        air, liq = df.loc["air-chiller"], df.loc["liquid-dlc"]
        e_save = 1 - liq["facility.facility_energy_mwh"] / air["facility.facility_energy_mwh"]
        ept = 1 - liq["facility.energy_per_token_j"] / air["facility.energy_per_token_j"]
        print(f"\nAnswer: liquid (DLC) vs air (chiller): PUE {air['facility.pue_mean']:.3f} -> "
              f"{liq['facility.pue_mean']:.3f}; throughput x{liq['facility.throughput_factor_mean'] / air['facility.throughput_factor_mean']:.3f}; "
              f"interruptions {air['run.interruptions.unexpected']:.0f} -> {liq['run.interruptions.unexpected']:.0f}; "
              f"facility energy {100 * e_save:.1f}% lower ({100 * ept:.1f}% less per token); effective "
              f"utilization {100 * air['facility.effective_utilization.value']:.1f}% -> "
              f"{100 * liq['facility.effective_utilization.value']:.1f}%.")
    fig = F.sweep_panels(sw, "cluster.cooling", [m for m, _, _ in METRICS if m != "run.tokens_trained"],
                         f"Liquid vs air cooling, 98,304 H100, hot-summer site, {a.days:g} days "
                         f"(whiskers: p05–p95 over {a.replications} replications)", ncols=4)
    print(f"\nfigure: {F.save(fig, out / 'cooling_100k.png')}")


if __name__ == "__main__":
    main()
