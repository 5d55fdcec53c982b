#!/usr/bin/python3
"""What-if 8: what does one GPU failure cost when tensor parallelism spans an NVL72 rack?

Llama 3 405B (the default scenario's workload and recovery) on GB200 NVL72 racks (4-GPU compute
trays, 72-GPU NVLink domains, liquid-cooled) with the `gb200-nvl72` failure profile: Llama 3's
Table 5 processes per GPU, tray and link plus the rack's correlated domains (NVLink switch trays,
power shelves, CDU; models/failures/gb200-nvl72.yaml says where each rate comes from). Two blast
radii for the same failures:

  tray   a failed GPU, tray or NIC takes its 4-GPU tray out (TP within the tray or re-mapped);
  rack   TP spans the rack: every such failure takes its whole 72-GPU NVLink domain out
         (the components become scope `domain`, domain_gpus 72, at the same rate per GPU).

For each: interruptions, nodes swapped per failure, waits for spares, ETTR and GPU-hours, from
`fleetsim run --json`; and the steady-state share of capacity out of service, from the profile's
rates and the mean repair time, against Arfeen et al. (arXiv:2504.06095, stragglers_failslow.csv
F39): "with as few as 0.1% of GPUs in a failed state, a high TP-degree job can experience nearly
10% reduction in training throughput". At a failed share p a job that must drop every domain with a
failed GPU loses 1 - (1 - p)^72 of its capacity, and one that drops a data-parallel replica of r
racks loses 1 - (1 - p)^(72 r).

    scripts/whatif/nvl72_domain.py [-o DIR] [--replications N] [--days D] [--gpus G] [--spares S]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import yaml  # noqa: E402

from analysis import figures as F  # noqa: E402

DOMAIN = 72
TRAY = 4
PER_TRAY = {"gpu": TRAY, "nic": TRAY, "node": 1}  # components of a scope in one tray


def profile():
    return yaml.safe_load((common.ROOT / "models/failures/gb200-nvl72.yaml").read_text())


def per_year(rate: str) -> float:
    value, unit = rate.split()
    assert unit == "/yr", rate
    return float(value)


def rack_components(comps):
    """TP spans the rack: repairable GPU, tray and NIC failures take the 72-GPU domain out, at the
    same rate per GPU (a domain holds 72/4 = 18 trays, 72 GPUs and 72 NICs)."""
    out = []
    for c in comps:
        c = dict(c)
        if c["scope"] in PER_TRAY and c.get("needs_repair", True):
            n = PER_TRAY[c["scope"]] * DOMAIN // TRAY
            c["rate"] = f"{per_year(c['rate']) * n:.6g} /yr"
            c["scope"] = "domain"
            c["domain_gpus"] = DOMAIN
        out.append(c)
    return out


def failed_share(comps, gpus, mttr_h, blast):
    """Steady-state share of GPUs out of service: sum over components of failures per hour x GPUs
    each takes out x mean repair time, over the GPUs (Little's law)."""
    per_h = 0.0
    for c in comps:
        if not c.get("needs_repair", True):
            continue
        count = {"gpu": gpus, "nic": gpus, "node": gpus / TRAY, "link": gpus, "leaf_switch": gpus / 32,
                 "domain": gpus / c.get("domain_gpus", DOMAIN)}.get(c["scope"], 0)
        gpus_out = blast(c)
        per_h += per_year(c["rate"]) / 8760.0 * count * gpus_out
    return per_h * mttr_h / gpus


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", help="output directory (default out/whatif/nvl72_domain)")
    ap.add_argument("--replications", type=int, default=10)
    ap.add_argument("--days", type=float, default=30, help="simulated days per run")
    ap.add_argument("--gpus", type=int, default=16384, help="GPUs (227.6 racks: the last partial one counts pro rata)")
    ap.add_argument("--spares", type=int, default=72, help="spare trays (72 = 4 racks)")
    a = ap.parse_args(argv)
    out = common.out_dir("nvl72_domain", a.output)
    prof = profile()
    comps = prof["components"]
    variants = {"tray": comps, "rack": rack_components(comps)}
    mttr_h = 2.0 * math.exp(1.2 ** 2 / 2)  # lognormal repair, median 2 h, sigma 1.2 (the profile)
    rows = []
    for name, cs in variants.items():
        scen = {"extends": str(common.ROOT / "scenarios/llama3-405b-16k.yaml"),
                "description": f"Llama 3 405B on GB200 NVL72, {name} blast radius",
                "cluster": {"gpu": "gb200", "gpus": a.gpus, "node": "gb200-nvl72", "cooling": "liquid-dlc"},
                "failures": {"profile": "gb200-nvl72", "components": cs},
                "recovery": {"spare_nodes": a.spares}}
        path = out / f"nvl72_{name}.yaml"
        path.write_text(yaml.safe_dump(scen, sort_keys=False))
        j = common.run_json(str(path), [f"run.duration={a.days:g} d"], replications=a.replications)
        r = j["run"]
        lost = r["lost_hours"]
        wait = lost["waiting_for_spares"]["mean"]
        blast = (lambda c: c.get("domain_gpus", DOMAIN) if c["scope"] == "domain" else
                 (TRAY if c["scope"] in PER_TRAY else (32 if c.get("correlated_node_loss") else TRAY)))
        share = failed_share(cs, a.gpus, mttr_h, blast)
        wall_h = a.days * 24
        rows.append({"name": name, "failures": r["interruptions"]["unexpected"]["mean"], "ettr": r["ettr"]["mean"],
                     "wait_h": wait, "outage_gpuh": (1 - r["ettr"]["mean"]) * wall_h * a.gpus,
                     "out_share": share})
    print(f"\nLlama 3 405B on {a.gpus:,} GB200 ({a.gpus / DOMAIN:.1f} NVL72 racks), {a.days:g} days x {a.replications} "
          f"replications, {a.spares} spare trays, mean repair {mttr_h:.1f} h\n")
    print(f"{'blast radius':>12} {'failures':>9} {'ETTR':>7} {'spare wait (h)':>15} {'GPU-h not productive':>21} "
          f"{'GPUs out (share)':>17}")
    for r in rows:
        print(f"{r['name']:>12} {r['failures']:>9.1f} {100 * r['ettr']:>6.2f}% {r['wait_h']:>15.1f} "
              f"{r['outage_gpuh']:>21.4g} {100 * r['out_share']:>16.3f}%")
    tray, rack = rows
    print("\nF39 (Arfeen et al.): ~10% of throughput lost with 0.1% of GPUs failed, TP across the domain.")
    print(f"{'failed GPUs':>12} {'tray lost':>10} {'rack lost':>10} {'2-rack replica':>15} {'4-rack replica':>15}")
    # The last row: this profile's own failed share (GPUs out under the tray radius, per GPU of a tray).
    for p, label in ((0.0005, ""), (0.001, "  <- F39"), (0.002, ""), (tray["out_share"] / TRAY, "  <- gb200-nvl72 profile")):
        lost = [1 - (1 - p) ** n for n in (TRAY, DOMAIN, 2 * DOMAIN, 4 * DOMAIN)]
        print(f"{100 * p:>11.3f}% " + " ".join(f"{100 * x:>{w}.2f}%" for x, w in zip(lost, (9, 9, 14, 14))) + label)
    at = 1 - (1 - 0.001) ** DOMAIN
    print(f"\nAnswer: at 0.1% failed GPUs a rack-wide TP group loses {100 * at:.1f}% of the capacity (a tray "
          f"{100 * (1 - 0.999 ** TRAY):.1f}%), {100 * (1 - 0.999 ** (2 * DOMAIN)):.1f}% when a replica spans two racks: F39's "
          f"~10% lies between. In the run model the rack blast radius costs {100 * (tray['ettr'] - rack['ettr']):.2f} "
          f"ETTR points ({rack['outage_gpuh'] - tray['outage_gpuh']:.4g} GPU-hours) over {a.days:g} days and keeps "
          f"{100 * rack['out_share']:.2f}% of the GPUs out of service instead of {100 * tray['out_share']:.2f}%.")

    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    ps = [i * 1e-4 for i in range(0, 31)]
    for n, label, color in ((TRAY, "tray (4 GPUs)", F.BLUE), (DOMAIN, "rack (TP spans 72)", F.RED),
                            (2 * DOMAIN, "replica of 2 racks", F.GREY)):
        ax.plot([100 * p for p in ps], [100 * (1 - (1 - p) ** n) for p in ps], label=label, color=color)
    ax.scatter([0.1], [10], color="black", zorder=3, label="F39: ~10% at 0.1%")
    ax.set_xlabel("GPUs in a failed state (%)")
    ax.set_ylabel("capacity lost (%)")
    ax.set_title("NVL72: the blast radius of one failed GPU")
    ax.legend(frameon=False)
    fig.tight_layout()
    path = out / "nvl72_domain.png"
    fig.savefig(path, dpi=130)
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
