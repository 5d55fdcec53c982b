"""Every figure draws from a result or a sweep, and the report is one self-contained HTML file with
its PNGs beside it."""
import re
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from analysis import figures as F  # noqa: E402
from analysis import report  # noqa: E402
from analysis.results import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _check_png(path):
    data = Path(path).read_bytes()
    assert data[:8] == PNG and len(data) > 5000, path


def _axis_labels(fig):
    return [ax.get_xlabel() for ax in fig.axes] + [ax.get_ylabel() for ax in fig.axes]


def test_every_result_figure_draws_and_has_labelled_axes(synthetic_h5, tmp_path):
    figs = F.result_figures(load(synthetic_h5))
    assert set(figs) == {"waterfall", "iteration_breakdown", "run_timeline", "interruptions_by_cause",
                         "ettr_distribution", "lost_time", "facility_series"}
    for stem, fig in figs.items():
        assert any(label for label in _axis_labels(fig)), stem
        _check_png(F.save(fig, tmp_path / f"{stem}.png"))


def test_the_waterfall_ends_at_the_product_of_the_five_factors(synthetic_h5):
    r = load(synthetic_h5)
    fig = F.waterfall(r)
    last_bar = fig.axes[0].patches[-1]
    prod = 1.0
    for key, _ in F.FACTORS:
        prod *= r.value("facility.effective_utilization.factors." + key)
    assert abs(last_bar.get_height() - prod) < 1e-9


def test_throughput_is_zero_during_outages_and_one_between(synthetic_h5):
    tp = F.throughput_series(load(synthetic_h5), bins=500)
    assert tp["throughput"].max() == 1.0
    assert tp["throughput"].min() == 0.0


def test_a_sweep_curve_has_units_on_its_axes(synthetic_sweep):
    s = load(synthetic_sweep)
    fig = F.sweep_curve(s, "facility.facility_energy_mwh", "cluster.gpus")
    ax = fig.axes[0]
    assert "MWh" in ax.get_ylabel()
    assert ax.get_xlabel() == "GPUs in the job"
    assert ax.get_xscale() == "log"


def test_sweep_figures_cover_scaling_reliability_and_energy(synthetic_sweep, tmp_path):
    figs = F.sweep_figures(load(synthetic_sweep))
    assert {"scaling_vs_gpus", "reliability_vs_gpus", "energy_vs_cooling", "headlines_vs_gpus",
            "headlines_vs_cooling"} <= set(figs)
    for stem, fig in figs.items():
        _check_png(F.save(fig, tmp_path / f"{stem}.png"))


def _check_report(out):
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    # Self-contained: every image is inlined, nothing is fetched.
    assert not re.search(r'src="(?!data:)', html)
    assert 'src="data:image/png;base64,' in html
    pngs = sorted(out.glob("*.png"))
    assert pngs
    for p in pngs:
        _check_png(p)
    return html, pngs


def test_report_of_one_result(synthetic_h5, tmp_path):
    report.main([str(synthetic_h5), "-o", str(tmp_path / "rep")])
    html, pngs = _check_report(tmp_path / "rep")
    assert len(pngs) == 7
    assert "Effective utilization" in html or "effective utilization" in html


def test_report_of_a_sweep_lists_failed_points_with_their_error(synthetic_sweep, tmp_path):
    report.main([str(synthetic_sweep), "-o", str(tmp_path / "srep")])
    html, _ = _check_report(tmp_path / "srep")
    assert "does not divide" in html


def test_report_runs_as_a_script(synthetic_h5, tmp_path):
    proc = subprocess.run(["/usr/bin/python3", str(ROOT / "analysis" / "report.py"), str(synthetic_h5), "-o",
                           str(tmp_path / "cli")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "cli" / "report.html").exists()


def test_report_of_a_real_result(real_h5, tmp_path):
    report.main([str(real_h5), "-o", str(tmp_path / "real")])
    _check_report(tmp_path / "real")


def _check_breakdown_adds_up(r):
    """The stacked terms end at the iteration time; every part lies inside its whole (issue 40:
    the bar once stacked parts beside their wholes and reached 6.16 s for a 5.70 s iteration)."""
    terms, parts = F.breakdown_segments(r)
    end = terms[-1][1] + terms[-1][2]
    total = r.value("step.iteration_time_s")
    wholes = {k: (start, start + v) for k, start, v in terms}
    for k, start, v in parts:
        lo, hi = wholes[F.BREAKDOWN_PARTS[k]]
        assert lo - 1e-12 <= start and start + v <= hi + 1e-9, k
    fig = F.iteration_breakdown(r)
    drawn = [p for p in fig.axes[0].patches if p.get_gid() == "breakdown_term"]
    assert abs(sum(p.get_width() for p in drawn) - end) < 1e-9
    return end, total


def test_the_iteration_breakdown_stacks_terms_that_add_up_to_the_iteration(real_h5):
    end, total = _check_breakdown_adds_up(load(real_h5))
    assert abs(end - total) <= 1e-6 * total, (end, total)


def test_parts_of_a_term_are_drawn_inside_it(synthetic_h5):
    r = load(synthetic_h5)  # the synthetic result plus the parts a real one carries
    r.metrics.loc["step.breakdown_s.overlap_contention"] = r.metrics.loc["step.breakdown_s.compute"]
    r.metrics.loc["step.breakdown_s.overlap_contention", "value"] = 0.8
    r.metrics.loc["step.breakdown_s.prefetch_exposed"] = r.metrics.loc["step.breakdown_s.dp_comm"]
    r.metrics.loc["step.breakdown_s.prefetch_exposed", "value"] = 5.0  # more than its whole: clipped
    _check_breakdown_adds_up(r)
    _, parts = F.breakdown_segments(r)
    assert {k for k, _, _ in parts} == {"overlap_contention", "prefetch_exposed"}


def test_an_unknown_breakdown_term_is_an_error_not_a_silent_extra_bar(synthetic_h5):
    import pytest
    r = load(synthetic_h5)
    r.metrics.loc["step.breakdown_s.new_term"] = r.metrics.loc["step.breakdown_s.compute"]
    with pytest.raises(ValueError, match="new_term"):
        F.breakdown_segments(r)
