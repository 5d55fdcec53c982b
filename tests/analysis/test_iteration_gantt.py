"""The results file's iteration_schedule table (the step model's own schedule, sim/step/trace.hpp)
and the report's Gantt chart drawn from it; runs without a browser."""
import matplotlib

matplotlib.use("Agg")

from analysis import figures as F  # noqa: E402
from analysis.iteration_gantt import iteration_gantt  # noqa: E402
from analysis.results import load  # noqa: E402

TOP = {"forward", "backward", "bubble", "overlap_contention", "dp_exposed", "optimizer", "idle"}


def test_the_schedule_covers_each_stage_for_the_iteration_time_and_draws(real_h5, tmp_path):
    r = load(real_h5)
    t = r.table("iteration_schedule")
    assert set(t.columns) >= {"rank", "stream", "depth", "name", "category", "start_s", "duration_s"}
    iteration = r.value("step.iteration_time_s")
    top = t[(t["stream"] == "compute") & (t["depth"] == 0)]
    assert set(top["category"]) <= TOP
    per_rank = top.groupby("rank")["duration_s"].sum()
    assert len(per_rank) == 16  # the default scenario's pipeline stages
    # Each stage's compute track tiles the iteration: the step model's iteration time.
    assert all(abs(v - iteration) <= 1e-9 * iteration for v in per_rank)
    fig = iteration_gantt(r)
    assert fig is not None and fig.axes[0].get_xlabel()
    assert "iteration_timeline" in F.result_figures(r)
    F.save(fig, tmp_path / "gantt.png")


def test_a_result_without_the_table_has_no_gantt(synthetic_h5):
    assert iteration_gantt(load(synthetic_h5)) is None
