"""The power timeline's tables and figures (facility.power_timeline: on): the nested /power/...
tables read back, the window and spectrum figures draw with labelled axes and join the report,
and the mitigation trade-off marks points over the limit."""
from __future__ import annotations

from conftest import run_fleetsim

from analysis import figures as F
from analysis import report as R
from analysis.power_figures import mitigation_tradeoff, power_spectrum, power_window
from analysis.results import Result


def test_power_tables_figures_and_report(tmp_path):
    h5 = tmp_path / "power.h5"
    run_fleetsim("run", "--replications", "1", "--set", "run.duration=2d", "--set", "facility.power_timeline=on",
                 "--set", "facility.power_dynamics.window=2 h", "-o", str(h5))
    r = Result(h5)
    for table in ("power/steady", "power/window", "power/run", "power/spectrum"):
        assert not r.table(table).empty, table
    assert r.table("power/steady").attrs["units"]["meter"] == "MW"
    assert r.value("facility.power_dynamics.job_stop_swing_mw") > r.value("facility.power_dynamics.iteration_swing_mw") > 0
    for fig in (power_window(r), power_spectrum(r)):
        for ax in fig.axes:
            assert ax.get_xlabel() and ax.get_ylabel()
    assert "power_window" in F.result_figures(r) and "power_spectrum" in F.result_figures(r)
    (tmp_path / "report").mkdir()
    page = R.result_report(r, tmp_path / "report")
    assert "power_spectrum.png" in page.read_text()


def test_mitigation_tradeoff_marks_the_limit():
    rows = [dict(label="none", ramp=70.0, extra_energy=0.0, throughput_loss=0.0),
            dict(label="storage", ramp=6.0, extra_energy=0.005, throughput_loss=0.0)]
    fig = mitigation_tradeoff(rows, 20.0)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel()
    assert any(abs(line.get_ydata()[0] - 20.0) < 1e-9 for line in ax.get_lines())
