"""analysis/plan_figures.py and analysis/report.py on a small `fleetsim plan -o plan.h5` (issue 26):
the Pareto front, the cost waterfall and the HTML report."""
import subprocess
from pathlib import Path

from conftest import fleetsim_binary

ROOT = Path(__file__).resolve().parents[2]

PLAN = """
base: llama3-405b-16k
workload: {tokens: 15.6T}
constraints: {deadline: 70 d, facility_power_cap: 30 MW}
candidates:
  systems: [{gpu: h100-sxm-80gb, node: dgx-h100}]
  gpus: [8192, 16384]
"""


def test_plan_figures_and_report(tmp_path):
    (tmp_path / "plan.yaml").write_text(PLAN)
    h5 = tmp_path / "plan.h5"
    proc = subprocess.run([fleetsim_binary(), "plan", str(tmp_path / "plan.yaml"), "--threads", "2", "-o", str(h5)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "rep"
    proc = subprocess.run(["/usr/bin/python3", str(ROOT / "analysis" / "report.py"), str(h5), "-o", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (out / "plan_pareto.png").stat().st_size > 1000
    assert (out / "plan_waterfall.png").stat().st_size > 1000
    import h5py
    with h5py.File(h5, "r") as f:  # the intervals the Pareto view draws (issue 40)
        d = f["designs"]
        ran = d["days"][:] > 0
        assert ran.any()
        assert (d["days_lo"][:][ran] <= d["days"][:][ran]).all() and (d["days"][:][ran] <= d["days_hi"][:][ran]).all()
        assert (d["cost_usd_lo"][:][ran] <= d["cost_usd"][:][ran]).all()
        p = d["deadline_probability"][:][ran]
        assert ((p >= 0) & (p <= 1)).all()
    html = (out / "report.html").read_text()
    assert "fleetsim plan" in html and "Pareto" in html
    # The cost waterfall's stacked items add up to the cost of a design of the table (issue 40: every
    # stacked figure sums to its total).
    import h5py
    with h5py.File(h5, "r") as f:
        stacked = float(sum(f["waterfall"]["usd"][1:]))
        costs = [float(c) for c in f["designs"]["cost_usd"][:]]
    assert min(abs(c - stacked) for c in costs) <= 1e-9 * stacked, (stacked, costs)
