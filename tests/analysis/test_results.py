"""The loader reads the documented schema: metrics with units and bands, tables with units, sweeps."""
import math

import pytest

from analysis.results import Result, Stat, Sweep, load, parse_number, value_unit


def test_a_result_gives_metrics_with_units_and_bands(synthetic_h5):
    r = load(synthetic_h5)
    assert isinstance(r, Result)
    assert r.unit("step.iteration_time_s") == "s"
    assert 0 < r.value("step.mfu") < 1
    s = r.stat("run.ettr")
    assert isinstance(s, Stat) and s.p05 <= s.mean <= s.p95
    assert r.stat("step.mfu").p05 == r.stat("step.mfu").mean  # a scalar has no band
    assert math.isnan(r.value("no.such.metric"))


def test_a_metric_group_is_indexed_by_the_rest_of_its_name(synthetic_h5):
    g = load(synthetic_h5).group("run.interruptions.by_cause.")
    assert "faulty_gpu" in g.index and (g["unit"] == "count").all()


def test_tables_carry_their_units(synthetic_h5):
    r = load(synthetic_h5)
    reps = r.table("replications")
    assert len(reps) == int(r.meta["replications"])
    assert reps.attrs["units"]["ettr"] == "1"
    ev = r.table("events")
    assert set(ev.columns) >= {"time_s", "kind", "cause", "duration_s"}
    assert ev.attrs["units"]["time_s"] == "s"
    assert r.table("timeseries").attrs["units"]["it_power"] == "MW"
    assert r.table("missing").empty


def test_provenance_is_read(synthetic_h5):
    r = load(synthetic_h5)
    assert r.meta["schema_version"] == 1
    assert "gpus" in r.resolved_scenario


def test_a_sweep_directory_lists_its_keys_and_failed_points(synthetic_sweep):
    s = load(synthetic_sweep)
    assert isinstance(s, Sweep)
    assert s.keys == ["cluster.gpus", "cluster.cooling"]
    assert len(s.failed) == 1 and "does not divide" in s.failed["error"].iloc[0]
    assert s.is_numeric("cluster.gpus") and not s.is_numeric("cluster.cooling")
    df = s.frame(["run.ettr", "step.mfu"])
    assert len(df) == len(s.ok)
    assert (df["run.ettr_p05"] <= df["run.ettr"]).all() and (df["run.ettr"] <= df["run.ettr_p95"]).all()
    assert df.attrs["units"]["run.ettr"] == "1"
    assert sorted(df["cluster.gpus__num"].unique()) == [4096, 8192, 16384, 32768]


@pytest.mark.parametrize("text,expected", [
    ("16384", 16384), ("10 min", 600), ("1 h", 3600), ("2 TB/s", 2e12), ("15.6T", 15.6e12), ("4:1", 4),
    ("0.5", 0.5), ("air-chiller", None), ("true", None),
])
def test_varied_values_parse_as_numbers_with_units(text, expected):
    assert parse_number(text) == (pytest.approx(expected) if expected is not None else None)


def test_the_common_unit_of_varied_values():
    assert value_unit(["10 min", "30 min"]) == "min"
    assert value_unit(["10 min", "1 h"]) == ""
    assert value_unit(["1024", "2048"]) == ""


def test_real_result_has_the_documented_schema(real_h5):
    r = load(real_h5)
    assert r.meta["schema_version"] == 1
    for name in ("run.ettr", "facility.pue_mean", "facility.effective_utilization.value"):
        assert r.has(name), name
        s = r.stat(name)
        assert s.p05 <= s.mean + 1e-12 and s.mean <= s.p95 + 1e-12
    assert r.unit("run.wall_clock_days") == "d"
    assert len(r.table("replications")) == 3
    assert {"time_s", "kind", "cause", "duration_s"} <= set(r.table("events").columns)
    assert "pue" in r.table("timeseries")
