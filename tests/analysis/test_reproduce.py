"""scripts/reproduce: a published-vs-predicted table and a parity plot per source."""
import json
import os
import subprocess
from pathlib import Path

from conftest import fleetsim_binary

ROOT = Path(__file__).resolve().parents[2]

CASES = {"cases": [
    {"source": "Megatron-LM SC'21 Table 1", "case": "145.6B, TP8 PP8, 1536 GPUs", "metric": "TFLOP/s per GPU",
     "published": 148, "predicted": 152, "error": 0.027, "error_kind": "relative", "tolerance": 0.15, "pass": True},
    {"source": "Megatron-LM SC'21 Table 1", "case": "1T, 3072 GPUs", "metric": "TFLOP/s per GPU",
     "published": 163, "predicted": 120, "error": -0.26, "error_kind": "relative", "tolerance": 0.15, "pass": False},
    {"source": "Llama 3 Table 4", "case": "16k GPUs", "metric": "MFU", "published": 0.38, "predicted": 0.40,
     "error": 0.02, "error_kind": "absolute", "tolerance": 0.05, "pass": True},
], "passed": 2, "failed": 1}


def _run(args, env=None):
    return subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / "reproduce"), *args], capture_output=True,
                          text=True, env=env, timeout=900)


def test_reproduce_writes_a_table_and_a_parity_plot_per_source(tmp_path):
    src = tmp_path / "validate.json"
    src.write_text(json.dumps(CASES))
    proc = _run(["--from", str(src), "-o", str(tmp_path / "rep")])
    assert proc.returncode == 1, proc.stderr  # one case is out of tolerance
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "1T, 3072 GPUs" in html and "FAIL" in html
    assert len(list((tmp_path / "rep").glob("parity_*.png"))) == 2


def test_reproduce_runs_the_binary(tmp_path):
    env = dict(os.environ, FLEETSIM=fleetsim_binary())
    proc = _run(["-o", str(tmp_path / "real")], env=env)
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads((tmp_path / "real" / "validate.json").read_text())
    sources = {c["source"] for c in data["cases"]}
    assert len(list((tmp_path / "real").glob("parity_*.png"))) == len(sources)
