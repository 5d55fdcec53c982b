"""Fixtures: synthetic results (always) and small real results from the binary (when $FLEETSIM names
it, as the CMake tests `analysis_test_*` (one per file) do; otherwise those tests are skipped with the reason)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic  # noqa: E402

# Small enough for the test suite: 5 simulated days, 3 replications.
SMALL = ["--replications", "3", "--set", "run.duration=5d"]


def fleetsim_binary():
    path = os.environ.get("FLEETSIM", "")
    if not path:
        pytest.skip("FLEETSIM is not set: real-result tests need the binary (ctest sets it; or "
                    "FLEETSIM=build/fleetsim /usr/bin/python3 -m pytest tests/analysis)")
    if not os.access(path, os.X_OK):
        pytest.skip(f"FLEETSIM={path} is not an executable")
    return path


def run_fleetsim(*args, check=True, timeout=600):
    proc = subprocess.run([fleetsim_binary(), *args], capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"fleetsim {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="session")
def synthetic_h5(tmp_path_factory):
    return synthetic.write_result(tmp_path_factory.mktemp("synthetic") / "run.h5")


@pytest.fixture(scope="session")
def synthetic_sweep(tmp_path_factory):
    return synthetic.write_sweep(tmp_path_factory.mktemp("synthetic_sweep"))


@pytest.fixture(scope="session")
def real_h5(tmp_path_factory):
    out = tmp_path_factory.mktemp("real") / "run.h5"
    run_fleetsim("run", "-o", str(out), *SMALL)
    return out


@pytest.fixture(scope="session")
def real_sweep(tmp_path_factory):
    """A 3-point sweep over cooling with one point that cannot run (a GPU count the layout does not divide)."""
    out = tmp_path_factory.mktemp("real_sweep") / "sweep"
    proc = run_fleetsim("sweep", "--vary", "cluster.gpus=16384,12345", "--vary",
                        "cluster.cooling=air-chiller,liquid-dlc", "-o", str(out), "-j", "2", *SMALL)
    return out, proc
