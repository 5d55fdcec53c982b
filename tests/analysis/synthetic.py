"""Small synthetic results in the documented HDF5 schema (sim/results/hdf5_writer.hpp) and a synthetic
sweep directory, so the analysis code is tested even where the binary is not built. The real
results from the binary are tested too (conftest.py: FLEETSIM)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import h5py
import numpy as np

STR = h5py.string_dtype()


def _metric(f, name, value, unit, description):
    path = "/metrics/" + name.replace(".", "/")
    if isinstance(value, tuple):
        ds = f.create_dataset(path, data=np.array(value, dtype=float))
        ds.attrs["fields"] = "mean,p05,p95"
    else:
        ds = f.create_dataset(path, data=np.array([value], dtype=float))
    ds.attrs["unit"] = unit
    ds.attrs["description"] = description


def _table(f, table, columns, description):
    g = f.require_group(table)
    g.attrs["description"] = description
    for name, (unit, desc, values) in columns.items():
        if values and isinstance(values[0], str):
            ds = g.create_dataset(name, data=np.array(values, dtype=object), dtype=STR)
        else:
            ds = g.create_dataset(name, data=np.array(values, dtype=float))
        ds.attrs["unit"] = unit
        ds.attrs["description"] = desc


def write_result(path, gpus=16384, cooling="air-chiller", reps=8, seed=1, scale=1.0):
    """A plausible result: the Llama 3 shape with numbers that move with `gpus` and `cooling`."""
    rng = np.random.default_rng(seed)
    liquid = "liquid" in cooling
    pue = 1.12 if liquid else 1.45
    mfu = 0.42 * (16384 / gpus) ** 0.03
    ettr = np.clip(0.93 - 0.02 * np.log2(gpus / 16384) * scale + rng.normal(0, 0.01, reps), 0.5, 1.0)
    days = np.full(reps, 5.0)
    fac_mwh = 5 * 24 * gpus * 1.3e-3 * pue * (1 + rng.normal(0, 0.01, reps))
    with h5py.File(path, "w") as f:
        m = f.create_group("meta")
        m.attrs["schema_version"] = 1.0
        m.attrs["fleetsim_version"] = "0.1.0"
        m.attrs["git_revision"] = "synthetic"
        m.attrs["scenario_file"] = "scenarios/llama3-405b-16k.yaml"
        m.attrs["seed"] = float(seed)
        m.attrs["replications"] = float(reps)
        m.attrs["command"] = "synthetic"
        m.create_dataset("resolved_scenario", data=np.array(["cluster:\n  gpus: %d\n" % gpus], dtype=object),
                         dtype=STR)
        stat = lambda v: (float(np.mean(v)), float(np.percentile(v, 5)), float(np.percentile(v, 95)))  # noqa: E731
        _metric(f, "step.iteration_time_s", 16.0 * 16384 / gpus * 0.5 + 8, "s", "time of one training iteration")
        _metric(f, "step.mfu", mfu, "1", "model FLOPs utilization")
        _metric(f, "step.memory_per_gpu_gib", 61.0, "GiB", "peak memory per GPU")
        for k, v in dict(compute=11.2, tp_comm=1.1, pp_comm=0.4, dp_comm=0.6, bubble=1.9, optimizer=0.3,
                         exposed_comm=2.1, overlapped_comm=3.5).items():
            _metric(f, f"step.breakdown_s.{k}", v, "s", f"{k} on the critical path")
        _metric(f, "run.ettr", stat(ettr), "1", "effective training time ratio")
        _metric(f, "run.wall_clock_days", stat(days), "d", "wall-clock time of the run")
        _metric(f, "run.tokens_trained", stat(days * 1e12 * ettr), "tokens", "tokens trained")
        _metric(f, "run.mtti_hours", 3.0 * 16384 / gpus, "h", "job MTTI")
        causes = {"faulty_gpu": 6.0, "hbm": 3.0, "network_switch": 1.0, "software_bug": 2.0}
        for c, v in causes.items():
            _metric(f, f"run.interruptions.by_cause.{c}", (v, v * 0.5, v * 1.6), "count", "interruptions")
        _metric(f, "run.interruptions.unexpected", (12.0, 8.0, 17.0), "count", "unexpected interruptions")
        for p, v in dict(lost_work=2.0, detection=0.3, restart=1.2, checkpoint_stalls=0.5,
                         waiting_for_spares=0.0).items():
            _metric(f, f"run.lost_hours.{p}", (v, v * 0.6, v * 1.5), "h", p)
        _metric(f, "facility.pue_mean", stat(np.full(reps, pue)), "1", "PUE")
        _metric(f, "facility.facility_energy_mwh", stat(fac_mwh), "MWh", "facility energy")
        _metric(f, "facility.throughput_factor_mean", stat(np.full(reps, 1.0 if liquid else 0.99)), "1",
                "throughput factor")
        factors = dict(energy_efficiency=1 / pue, single_gpu_efficiency=0.62, parallel_scaling_efficiency=mfu / 0.62,
                       ettr=float(np.mean(ettr)), resource_utilization=1.0)
        for k, v in factors.items():
            _metric(f, f"facility.effective_utilization.factors.{k}", (v, v, v), "1", k)
        eu = float(np.prod(list(factors.values())))
        _metric(f, "facility.effective_utilization.value", (eu, eu * 0.98, eu * 1.01), "1", "effective utilization")
        lost = {p: list(np.abs(rng.normal(v, v * 0.3 + 1e-9, reps))) for p, v in
                dict(lost_work=2.0, detection=0.3, restart=1.2, checkpoint_stalls=0.5).items()}
        cols = {"ettr": ("1", "ETTR", list(ettr)), "wall_clock_days": ("d", "wall-clock", list(days)),
                "pue_mean": ("1", "PUE", [pue] * reps),
                "facility_energy_mwh": ("MWh", "facility energy", list(fac_mwh))}
        cols.update({f"lost_hours_{p}": ("h", p, v) for p, v in lost.items()})
        _table(f, "replications", cols, "one row per Monte-Carlo replication")
        t = np.sort(rng.uniform(0, 5 * 86400, 14))
        kinds = ["failure"] * 12 + ["planned"] * 2
        cause = list(rng.choice(list(causes), 12)) + ["planned", "planned"]
        ck = list(np.arange(1800.0, 5 * 86400, 1800.0))
        _table(f, "events", {
            "time_s": ("s", "time", list(t) + ck),
            "kind": ("", "kind", kinds + ["checkpoint"] * len(ck)),
            "cause": ("", "cause", [str(c) for c in cause] + ["checkpoint"] * len(ck)),
            "duration_s": ("s", "outage", list(rng.uniform(600, 3600, 14)) + [5.0] * len(ck)),
        }, "event log of replication 0")
        hours = np.arange(0, 5 * 24, 0.25)
        outdoor = 15 + 5 * np.sin(2 * np.pi * (hours - 9) / 24)
        it = np.full_like(hours, gpus * 1.3e-3)
        _table(f, "timeseries", {
            "time": ("h", "time", list(hours)),
            "outdoor_temperature": ("degC", "outdoor", list(outdoor)),
            "gpu_inlet_temperature": ("degC", "inlet", list(np.full_like(hours, 25.0))),
            "gpu_temperature": ("degC", "GPU", list(70 + 0.2 * outdoor)),
            "it_power": ("MW", "IT power", list(it)),
            "facility_power": ("MW", "facility power", list(it * (pue + 0.01 * np.sin(hours)))),
            "pue": ("1", "PUE", list(pue + 0.01 * np.sin(hours))),
            "throughput_factor": ("1", "throughput", list(np.ones_like(hours))),
        }, "facility time series of replication 0")
    return Path(path)


def write_sweep(dir_path, gpus=(4096, 8192, 16384, 32768), coolings=("air-chiller", "liquid-dlc")):
    """A sweep directory over cluster.gpus x cluster.cooling, with one failed point."""
    d = Path(dir_path)
    d.mkdir(parents=True, exist_ok=True)
    keys = ["cluster.gpus", "cluster.cooling"]
    points, rows = [], []
    for i, (g, c) in enumerate((g, c) for g in gpus for c in coolings):
        file = f"gpus-{g}_cooling-{c}_{i:08x}.h5"
        points.append({"point": i, "file": file, "values": {"cluster.gpus": str(g), "cluster.cooling": c}})
        failed = g == gpus[-1] and c == coolings[-1]
        row = {"point": i, "file": file, "cluster.gpus": g, "cluster.cooling": c,
               "status": "failed" if failed else "ok",
               "error": "workload.parallel: the layout does not divide, 12 GPUs" if failed else ""}
        if not failed:
            write_result(d / file, gpus=g, cooling=c, seed=i + 1)
        rows.append(row)
    (d / "sweep.json").write_text(json.dumps({
        "command": "synthetic", "scenario": "", "zip": False, "sets": [], "replications": 8, "seed": 1,
        "vary": [{"key": "cluster.gpus", "values": [str(g) for g in gpus]},
                 {"key": "cluster.cooling", "values": list(coolings)}],
        "points": points}, indent=2))
    with open(d / "index.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "file"] + keys + ["status", "error", "mfu", "ettr", "ettr_p05", "ettr_p95"])
        for r in rows:
            w.writerow([r["point"], r["file"], r["cluster.gpus"], r["cluster.cooling"], r["status"], r["error"],
                        "", "", "", ""])
    return d
