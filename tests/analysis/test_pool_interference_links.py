"""Issue 28's link outputs end to end: `fleetsim pool ... -o out.h5` with fabric interference on
writes /pool_link_load (load over time) and /pool_worst_links, and analysis/pool_interference_links.py
draws both figures from that file (and exits 2 naming the missing table on a run without it)."""
from __future__ import annotations

from conftest import ROOT, run_fleetsim

import h5py

from analysis import pool_interference_links as L

SCENARIO = str(ROOT / "scenarios" / "pool-interference.yaml")


def test_link_load_and_worst_links_from_fleetsim_pool(tmp_path):
    h5 = tmp_path / "pool.h5"
    run_fleetsim("pool", SCENARIO, "--set", "cluster.fabric.oversubscription=3", "--set", "pool.duration=2 d",
                 "--set", "pool.warmup=1 d", "--set", "pool.replications=1", "-o", str(h5))
    with h5py.File(h5, "r") as f:
        load = f["pool_link_load"]
        assert len(load["time_h"][:]) > 100 and max(load["max_load"][:]) > 0
        worst = f["pool_worst_links"]
        assert 0 < len(worst["mean_load"][:]) <= 20
        assert list(worst["mean_load"][:]) == sorted(worst["mean_load"][:], reverse=True)
    out = tmp_path / "fig"
    assert L.main([str(h5), "-o", str(out)]) == 0
    for name in ("pool_link_load.png", "pool_worst_links.png"):
        assert (out / name).stat().st_size > 10_000, name


def test_without_interference_the_script_says_why(tmp_path, capsys):
    h5 = tmp_path / "plain.h5"
    run_fleetsim("pool", SCENARIO, "--set", "pool.interference.enabled=false", "--set", "pool.duration=1 d",
                 "--set", "pool.warmup=0 s", "--set", "pool.replications=1", "-o", str(h5))
    assert L.main([str(h5), "-o", str(tmp_path / "fig")]) == 2
    assert "pool_link_load" in capsys.readouterr().err
