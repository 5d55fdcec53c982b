#!/usr/bin/python3
"""What-if 7: what does it take to keep a 100k-GPU training job within a utility's 20 MW/s ramp limit?

scenarios/liquid-vs-air-100k.yaml (98,304 H100, Llama 3-style 405B training) with the power
timeline on (facility.power_timeline: on, 10 ms, one sampled day of replication 0): the worst
rise and fall of the meter's power over 1 s (the ramp rate a utility limits, F15 in
data/validation/power_dynamics.csv), the iteration swing and band energy that remain, and what
each mitigation costs in energy, money and throughput:
  - GPU power smoothing (GB200-style, F16/F20): a 90% floor, then per-GPU ramp-rate limits;
  - site energy storage (batteries, F52) sized as the job-stop step times an averaging time;
  - both together.
The answer: the cheapest configuration whose ramps stay within the limit both ways.

    scripts/whatif/ramp_20mw_100k.py [-o DIR] [--days D] [--limit MW_PER_S] [--quick]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

from analysis import figures as F  # noqa: E402
from analysis.power_figures import mitigation_tradeoff  # noqa: E402

SCENARIO = str(common.ROOT / "scenarios" / "liquid-vs-air-100k.yaml")
PD = "facility.power_dynamics"


def configs(stop_mw: float, quick: bool):
    """(label, --set list). Storage power = the job-stop step (+10%); capacity = 2.5 x that power x the
    averaging time: the store runs half full and gives about power x tau to spread one step over tau."""
    smooth = ["facility.power_smoothing.floor=0.9", "facility.power_smoothing.hold_time=2 s"]
    rates = [1000, 100] if quick else [1000, 300, 150, 100, 50]
    taus = [10, 30] if quick else [5, 10, 30, 60]
    out = [("none", []), ("floor 90%", smooth)]
    for r in rates:
        out.append((f"floor 90% + {r} W/s", smooth + [f"facility.power_smoothing.ramp_up_rate={r} W/s",
                                                      f"facility.power_smoothing.ramp_down_rate={r} W/s"]))
    power = max(1.0, round(stop_mw * 1.1))
    for tau in taus:
        mwh = 2.5 * power * tau / 3600.0
        out.append((f"storage {power:.0f} MW x {tau} s ({mwh:.2g} MWh)",
                    [f"facility.energy_storage.power={power:g} MW", f"facility.energy_storage.capacity={mwh:.6g} MWh",
                     f"facility.energy_storage.time_constant={tau} s"]))
    tau = taus[0]
    out.append((f"floor 90% + {rates[0]} W/s + storage x {tau} s",
                smooth + [f"facility.power_smoothing.ramp_up_rate={rates[0]} W/s",
                          f"facility.power_smoothing.ramp_down_rate={rates[0]} W/s",
                          f"facility.energy_storage.power={power:g} MW",
                          f"facility.energy_storage.capacity={2.5 * power * tau / 3600.0:.6g} MWh",
                          f"facility.energy_storage.time_constant={tau} s"]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", help="output directory (default out/whatif/ramp_20mw_100k)")
    ap.add_argument("--days", type=float, default=3, help="simulated days (one sampled at 10 ms)")
    ap.add_argument("--limit", type=float, default=20.0, help="utility ramp limit, MW/s")
    ap.add_argument("--replications", type=int, default=1, help="(the power timeline reads replication 0)")
    ap.add_argument("--quick", action="store_true", help="fewer configurations")
    a = ap.parse_args(argv)
    out = common.out_dir("ramp_20mw_100k", a.output)
    base = ["facility.power_timeline=on", f"run.duration={a.days:g} d", "workload.training.global_batch_size=12288"]

    def run(sets):
        return common.run_json(SCENARIO, base + sets, replications=a.replications)

    first = run([])
    stop = common.get(first, f"{PD}.job_stop_swing_mw")
    rows = []
    print(f"\n98,304 H100, {a.days:g} days, one day at 10 ms; ramp = largest change of the meter's power over 1 s\n")
    head = (f"{'mitigation':<44}{'ramp up':>9}{'down':>7}{'iter swing':>11}{'0.1-1Hz':>9}{'1-3Hz':>7}"
            f"{'stop':>7}{'+energy':>9}{'+cost':>11}{'thrput':>8}")
    print(head + "\n" + f"{'':<44}{'MW/s':>9}{'MW/s':>7}{'MW':>11}{'MW rms':>9}{'MW rms':>7}{'MW':>7}{'%':>9}{'USD':>11}{'loss %':>8}")
    for label, sets in configs(stop, a.quick):
        d = first if not sets else run(sets)
        g = lambda k: common.get(d, f"{PD}.{k}")  # noqa: E731
        row = dict(label=label, up=g("ramp_up_mw_per_s"), down=g("ramp_down_mw_per_s"),
                   swing=g("iteration_swing_mw"), b1=g("band_rms_mw.0p1_1hz"), b2=g("band_rms_mw.1_3hz"),
                   stop=g("job_stop_swing_mw"), extra_energy=g("mitigation.extra_energy_share"),
                   cost=g("mitigation.extra_cost_usd"), throughput_loss=g("mitigation.throughput_loss"))
        row["ramp"] = max(row["up"], row["down"])
        rows.append(row)
        print(f"{label:<44}{row['up']:>9.2f}{row['down']:>7.2f}{row['swing']:>11.2f}{row['b1']:>9.3f}{row['b2']:>7.3f}"
              f"{row['stop']:>7.1f}{100 * row['extra_energy']:>9.2f}{row['cost']:>11,.0f}{100 * row['throughput_loss']:>8.2f}")
    ok = [r for r in rows if r["ramp"] <= a.limit]
    print()
    if not ok:
        print(f"Answer: none of these keeps the ramps within {a.limit:g} MW/s; the worst stays at "
              f"{min(r['ramp'] for r in rows):.1f} MW/s.")
    else:
        best = min(ok, key=lambda r: (r["throughput_loss"] > 0.01, r["extra_energy"]))
        print(f"Answer: without mitigation the meter ramps {rows[0]['ramp']:.1f} MW/s (job stops and restarts "
              f"move it by {stop:.1f} MW in one step). Within {a.limit:g} MW/s: {', '.join(r['label'] for r in ok)}. "
              f"Cheapest: {best['label']} — {100 * best['extra_energy']:.2f}% more energy "
              f"({best['cost']:,.0f} USD of energy over the run; the store's capital cost is not modelled), {100 * best['throughput_loss']:.2f}% throughput, ramps "
              f"{best['up']:.1f} up / {best['down']:.1f} down MW/s, iteration swing {best['swing']:.2f} MW left.")
    (out / "ramp_20mw_100k.json").write_text(json.dumps(rows, indent=1))
    fig = mitigation_tradeoff(rows, a.limit, f"98,304 H100: worst 1 s ramp at the meter vs extra energy "
                                             f"(limit {a.limit:g} MW/s; marker size: throughput lost)")
    print(f"\nfigure: {F.save(fig, out / 'ramp_20mw_100k.png')}")


if __name__ == "__main__":
    main()
