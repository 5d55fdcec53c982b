"""`fleetsim sweep` end to end on small real runs: one result per point, index.csv, failures recorded
with their error, resume skips finished points, and the sweep report draws."""
import csv
import json
import os

from conftest import SMALL, run_fleetsim

from analysis import report
from analysis.results import load


def _index(path):
    with open(path / "index.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_a_sweep_writes_one_result_per_point_and_records_failures(real_sweep):
    out, proc = real_sweep
    rows = _index(out)
    assert len(rows) == 4
    spec = json.loads((out / "sweep.json").read_text())
    assert [v["key"] for v in spec["vary"]] == ["cluster.gpus", "cluster.cooling"]
    ok = [r for r in rows if r["status"] == "ok"]
    failed = [r for r in rows if r["status"] == "failed"]
    assert {r["cluster.gpus"] for r in ok} == {"16384"}
    assert {r["cluster.gpus"] for r in failed} == {"12345"}
    for r in failed:
        assert r["error"], "a failed point carries its error"
        assert not (out / r["file"]).exists()
    for r in ok:
        assert (out / r["file"]).exists()
        assert 0 < float(r["ettr"]) <= 1
        assert float(r["ettr_p05"]) <= float(r["ettr"]) <= float(r["ettr_p95"])
        assert float(r["pue_mean"]) >= 1
    # Liquid cooling's PUE is below the air chiller's.
    pue = {r["cluster.cooling"]: float(r["pue_mean"]) for r in ok}
    assert pue["liquid-dlc"] < pue["air-chiller"]


def test_a_rerun_skips_finished_points(real_sweep):
    out, _ = real_sweep
    before = {r["file"]: os.stat(out / r["file"]).st_mtime_ns for r in _index(out) if r["status"] == "ok"}
    proc = run_fleetsim("sweep", "--vary", "cluster.gpus=16384,12345", "--vary",
                        "cluster.cooling=air-chiller,liquid-dlc", "-o", str(out), "-j", "2", *SMALL)
    assert proc.stderr.count("skipped") == 2
    after = {r["file"]: os.stat(out / r["file"]).st_mtime_ns for r in _index(out) if r["status"] == "ok"}
    assert before == after


def test_values_with_spaces_and_units_work(tmp_path):
    out = tmp_path / "ckpt"
    run_fleetsim("sweep", "--vary", "checkpoint.interval=10 min,30 min", "-o", str(out), *SMALL)
    rows = _index(out)
    assert [r["checkpoint.interval"] for r in rows] == ["10 min", "30 min"]
    assert all(r["status"] == "ok" for r in rows), rows


def test_a_sweep_where_every_point_fails_exits_with_an_error(tmp_path):
    proc = run_fleetsim("sweep", "--vary", "cluster.gpus=12345,12347", "-o", str(tmp_path / "bad"), *SMALL,
                        check=False)
    assert proc.returncode == 2
    assert all(r["status"] == "failed" for r in _index(tmp_path / "bad"))


def test_report_of_a_real_sweep(real_sweep, tmp_path):
    out, _ = real_sweep
    report.main([str(out), "-o", str(tmp_path / "rep")])
    assert (tmp_path / "rep" / "report.html").exists()
    s = load(out)
    assert len(s.ok) == 2 and len(s.failed) == 2
