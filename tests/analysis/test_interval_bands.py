"""Issue 25 in the figures and the report: where a result carries intervals (the `interval_lo`,
`interval_hi`, `interval_level` attributes beside a value) and provenance (on each section), the
loader reads them, the sweep curves draw a band, the waterfall error bars, the pool figures their
interval, and the HTML report shows them; without them every figure draws as before."""
import csv
import math

import h5py
import matplotlib
import pytest

matplotlib.use("Agg")

import synthetic  # noqa: E402
from analysis import figures as F  # noqa: E402
from analysis import pool_figures  # noqa: E402
from analysis import report  # noqa: E402
from analysis.results import load  # noqa: E402
from conftest import SMALL, run_fleetsim  # noqa: E402

FACTORS = "metrics/facility/effective_utilization/factors/"
WITH_INTERVALS = ["step/mfu", "step/iteration_time_s", "run/ettr", "facility/effective_utilization/value",
                  "facility/pue_mean"] + [FACTORS[len("metrics/"):] + k for k in (
                      "energy_efficiency", "single_gpu_efficiency", "parallel_scaling_efficiency", "ettr",
                      "resource_utilization")]


def _annotate(path, widen=0.1):
    """Adds intervals (the value ±widen, relative) and a provenance, as `fleetsim run` writes them."""
    with h5py.File(path, "a") as f:
        for name in WITH_INTERVALS:
            ds = f.get("metrics/" + name)
            if ds is None:
                continue
            v = float(ds[0])
            ds.attrs["interval_lo"] = v * (1 - widen)
            ds.attrs["interval_hi"] = min(v * (1 + widen), 1.0) if "factors" in name else v * (1 + widen)
            ds.attrs["interval_level"] = 0.8
        for section in ("step", "run"):
            g = f["metrics/" + section]
            g.attrs["provenance_grade"] = "calibrated"
            g.attrs["provenance_why"] = "15 judged H100 BF16 dense-mp cases"
            g.attrs["provenance_sources"] = "Llama 3 Table 4; NeMo DGX-H100"


@pytest.fixture()
def annotated_h5(tmp_path):
    p = synthetic.write_result(tmp_path / "run.h5")
    _annotate(p)
    return p


@pytest.fixture()
def annotated_sweep(tmp_path):
    d = synthetic.write_sweep(tmp_path / "sweep")
    for p in d.glob("*.h5"):
        _annotate(p)
    return d


def _gids(fig):
    """The gids the figure functions put on the artists that draw intervals; closes the figure."""
    out = []
    for ax in fig.axes:
        for a in list(ax.collections) + list(ax.lines) + list(ax.patches):
            if a.get_gid():
                out.append(a.get_gid())
    matplotlib.pyplot.close(fig)
    return out


def test_the_loader_reads_intervals_and_provenance(annotated_h5, synthetic_h5):
    r = load(annotated_h5)
    iv = r.interval("step.mfu")
    assert iv is not None and iv.level == 0.8 and iv.lo < r.value("step.mfu") < iv.hi
    assert r.provenance("step")["grade"] == "calibrated"
    assert r.provenance("run")["sources"] == ["Llama 3 Table 4", "NeMo DGX-H100"]
    plain = load(synthetic_h5)
    assert plain.interval("step.mfu") is None and plain.provenance("step") is None


def test_the_waterfall_draws_error_bars_only_where_there_are_intervals(annotated_h5, synthetic_h5):
    assert _gids(F.waterfall(load(annotated_h5))).count("waterfall_interval") == 6  # five factors and the product
    assert "waterfall_interval" not in _gids(F.waterfall(load(synthetic_h5)))
    assert "interval" in F.waterfall(load(annotated_h5)).axes[0].get_title(loc="left")


def test_sweep_curves_shade_the_interval_and_bars_whisker_it(annotated_sweep, synthetic_sweep):
    s = load(annotated_sweep)
    df = s.frame(["step.mfu"])
    assert (df["step.mfu_lo"] < df["step.mfu"]).all() and (df["step.mfu"] < df["step.mfu_hi"]).all()
    assert df.attrs["levels"]["step.mfu"] == 0.8
    assert "interval_band" in _gids(F.sweep_curve(s, "step.mfu", "cluster.gpus"))
    assert "interval_whiskers" in _gids(F.sweep_curve(s, "step.mfu", "cluster.cooling"))
    plain = load(synthetic_sweep)
    assert plain.frame(["step.mfu"])["step.mfu_lo"].isna().all()
    assert "interval_band" not in _gids(F.sweep_curve(plain, "step.mfu", "cluster.gpus"))


def test_the_report_shows_intervals_and_grades(annotated_h5, annotated_sweep, tmp_path):
    (tmp_path / "run-report").mkdir()
    (tmp_path / "sweep-report").mkdir()
    html = report.result_report(load(annotated_h5), tmp_path / "run-report").read_text()
    assert "80% interval" in html
    assert "calibrated" in html and "judged by" in html
    page = report.sweep_report(load(annotated_sweep), tmp_path / "sweep-report").read_text()
    assert "lighter dashed band" in page


# --- from the binary ---------------------------------------------------------------------------

def test_a_real_run_writes_each_factor_interval_around_its_value(real_h5):
    with h5py.File(real_h5) as f:
        for k in ("energy_efficiency", "single_gpu_efficiency", "parallel_scaling_efficiency", "ettr",
                  "resource_utilization"):
            ds = f[FACTORS + k]
            assert ds.attrs["interval_lo"] <= ds[0] <= ds.attrs["interval_hi"] <= 1.0, k
        ds = f["metrics/facility/effective_utilization/value"]
        assert ds.attrs["interval_lo"] < ds[0] < ds.attrs["interval_hi"]


def test_a_real_sweep_index_has_intervals_replications_and_grades(real_sweep):
    out, _ = real_sweep
    with open(out / "index.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    assert rows
    for r in rows:
        for col in ("mfu", "ettr", "effective_utilization"):
            assert float(r[col + "_lo"]) <= float(r[col]) <= float(r[col + "_hi"]), col
        assert r["provenance_grade"] in ("calibrated", "transferred", "extrapolated", "uncalibrated")
        assert int(r["replications"]) == 3
    s = load(out)
    assert "interval_band" in _gids(F.sweep_curve(s, "step.mfu", "cluster.cooling")) or \
        "interval_whiskers" in _gids(F.sweep_curve(s, "step.mfu", "cluster.cooling"))


def test_a_real_pool_result_carries_intervals_and_its_figures_draw_them(tmp_path):
    from conftest import ROOT
    out = tmp_path / "pool.h5"
    run_fleetsim("pool", str(ROOT / "tests/unit/pool_small.yaml"), "--set", "pool.duration=1d", "--replications", "4",
                 "-o", str(out))
    with h5py.File(out) as f:
        ds = f["metrics/pool/allocation_share"]
        assert ds.attrs["interval_lo"] <= ds[0] <= ds.attrs["interval_hi"]
        assert ds.attrs["interval_level"] == 0.8
        assert f["metrics/pool"].attrs["provenance_grade"] in ("calibrated", "transferred", "extrapolated")
        assert not math.isnan(f["metrics/pool/gpu_hours_lost/idle"].attrs["interval_hi"])
        # The allocation figure stacks training, inference and development, then the unusable free
        # GPUs on top: at no time more than the pool (issue 40: every stacked figure sums to its total).
        ts = f["pool_timeseries"]
        stacked = ts["training_share"][:] + ts["inference_share"][:] + ts["development_share"][:] \
            + ts["fragmentation_share"][:]
        assert stacked.max() <= 1.0 + 1e-9, stacked.max()
    assert load(out).provenance("pool")["why"]
    pool_figures.main([str(out), "-o", str(tmp_path / "figs")])
    assert (tmp_path / "figs" / "pool_losses.png").exists()
