"""Shared by the what-if scripts and scripts/reproduce: find the fleetsim binary, run it, read what
it writes. The scripts drive the binary only through its command line (DESIGN.md §5)."""
from __future__ import annotations

import json
import shutil
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def binary() -> str:
    """$FLEETSIM, else build/fleetsim (or $FLEETSIM_BUILD_DIR/fleetsim) in this checkout, else the
    installed binary beside an installed copy (<prefix>/share/fleetsim -> <prefix>/bin/fleetsim),
    else fleetsim on PATH."""
    for cand in (os.environ.get("FLEETSIM"),
                 os.environ.get("FLEETSIM_BUILD_DIR") and str(Path(os.environ["FLEETSIM_BUILD_DIR"]) / "fleetsim"),
                 str(ROOT / "build" / "fleetsim"),
                 str(ROOT.parent.parent / "bin" / "fleetsim"),
                 shutil.which("fleetsim")):
        if cand and os.access(cand, os.X_OK):
            return cand
    sys.exit("fleetsim binary not found: build it (scripts/setup) or set FLEETSIM=/path/to/fleetsim")


def fleetsim(*args, check=True, quiet=False) -> subprocess.CompletedProcess:
    cmd = [binary(), *map(str, args)]
    if not quiet:
        print("$ fleetsim " + " ".join(_quote(a) for a in cmd[1:]), file=sys.stderr, flush=True)
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(f"fleetsim exited with {proc.returncode}")
    if not quiet:
        print(f"  ({time.time() - t0:.1f} s)", file=sys.stderr, flush=True)
    return proc


def run_json(scenario: str, sets=(), replications=None, seed=None, output=None) -> dict:
    """`fleetsim run SCENARIO --set ... --json`: the summary as a dict."""
    args = ["run"] + ([scenario] if scenario else [])
    for s in sets:
        args += ["--set", s]
    if replications:
        args += ["--replications", replications]
    if seed is not None:
        args += ["--seed", seed]
    if output:
        args += ["-o", output]
    return json.loads(fleetsim(*args, "--json").stdout)


def sweep(scenario: str, vary, out_dir, sets=(), replications=None, zip_axes=False, jobs=None, with_=(),
          fresh=True):
    """`fleetsim sweep`: vary is a list of "key=v1,v2" strings, with_ of "LEADER:key=v1,v2" (keys
    that move with an axis); returns analysis.results.Sweep. `fresh` empties the directory first: a
    sweep resumes from whatever results it finds, and these may come from an older binary."""
    from analysis.results import Sweep
    if fresh and Path(out_dir).exists():
        shutil.rmtree(out_dir)
    args = ["sweep"] + ([scenario] if scenario else [])
    for v in vary:
        args += ["--vary", v]
    for w in with_:
        args += ["--with", w]
    if zip_axes:
        args += ["--zip"]
    for s in sets:
        args += ["--set", s]
    if replications:
        args += ["--replications", replications]
    if jobs:
        args += ["-j", jobs]
    args += ["-o", out_dir]
    proc = fleetsim(*args, check=False)
    if proc.returncode not in (0,):
        sys.stderr.write(proc.stderr[-4000:])
        sys.exit(f"fleetsim sweep exited with {proc.returncode}")
    return Sweep(out_dir)


def out_dir(name: str, given=None) -> Path:
    p = Path(given) if given else ROOT / "out" / "whatif" / name
    p.mkdir(parents=True, exist_ok=True)
    return p


def get(d: dict, dotted: str, default=float("nan")):
    """A value from a JSON summary by dotted path; a statistic gives its mean."""
    cur = d
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    if isinstance(cur, dict) and "mean" in cur:
        return cur["mean"]
    return cur


def band(d: dict, dotted: str):
    """(mean, p05, p95) of a statistic in a JSON summary (a scalar repeats)."""
    cur = d
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return (float("nan"),) * 3
        cur = cur[part]
    if isinstance(cur, dict):
        return (cur.get("mean", float("nan")), cur.get("p05", float("nan")), cur.get("p95", float("nan")))
    return (cur, cur, cur)


def _quote(a: str) -> str:
    return a if a and all(c.isalnum() or c in "-_=./:," for c in a) else "'" + a.replace("'", "'\\''") + "'"

