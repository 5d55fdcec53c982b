#!/usr/bin/python3
"""Scale-out of `fleetsim sweep` on MPI ranks (issue 15): a 64-point sweep of the default scenario
with 200 replications per point, in one plain process and under mpirun at 1, 2 and 4 ranks (one
point at a time per rank, one thread per point, so ranks = cores in use; 4 ranks oversubscribe a
2-core machine). Prints the per-point cost, the launch cost of mpirun, the MPI overhead per point,
what the dispatcher (rank 0's main thread) spends per point and so how many points/s one
dispatcher keeps up with, the parallel efficiency at 2 ranks both in wall time and in CPU time,
and the projected time of a 10,000-point study on 1,000 cores.

Wall-clock efficiency needs an idle machine (load average below the core count, printed at the
start and the end): on a shared, loaded machine the other processes take the cores the ranks
were given, and only the CPU-time figures mean anything. Even idle, this machine's speed drifts
by about 20% from one minute to the next, so the one-process run, the 2-rank run and the
machine's own 2-way ceiling (two half-grid sweeps at once, no MPI) are taken in turn three times
and their medians compared.

Usage: bench/mpi_scaleout.py BUILD_DIR [points=64] [replications=200]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
points = int(sys.argv[2]) if len(sys.argv) > 2 else 64
replications = int(sys.argv[3]) if len(sys.argv) > 3 else 200
fleetsim = os.path.join(build, "fleetsim")
mpirun = shutil.which("mpirun")
if not mpirun:
    print("bench_mpi: no mpirun on PATH (scripts/setup installs Open MPI); skipped")
    sys.exit(0)
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
launch = [mpirun, "--oversubscribe", "--bind-to", "none", "-n"]

# 64 points: 8 failure-rate scales x 8 checkpoint intervals (their cost differs with the number
# of failures simulated, as in a real study).
side = max(1, round(points ** 0.5))
scales = ",".join(f"{0.5 + 0.25 * i:g}" for i in range(side))
intervals = ",".join(f"{10 + 10 * i} min" for i in range(max(1, points // side)))
npoints = side * max(1, points // side)
sweep = ["sweep", "--vary", f"failures.rate_scale={scales}", "--vary", f"checkpoint.interval={intervals}",
         "--replications", str(replications), "--threads", "1"]


def cpu():
    t = os.times()
    return t.children_user + t.children_system


DISPATCH = re.compile(r"dispatcher \(rank 0\): (\d+) points from other ranks, (\d+) us wall and (\d+) us CPU")
dispatch = {}


def timed(cmd, keep=None, ranks=None):
    """Wall seconds, CPU seconds of every process it started, and its index.csv. With `ranks`, keeps
    the dispatcher's own per-point cost line (sim/mpi/sweep.cpp) in dispatch[ranks]."""
    out = keep or tempfile.mkdtemp(prefix="fleetsim_bench_mpi_")
    c0 = cpu()
    t0 = time.monotonic()
    r = subprocess.run(cmd + ["-o", os.path.join(out, "sweep")], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    dt = time.monotonic() - t0
    dc = cpu() - c0
    if r.returncode != 0:
        sys.exit(f"bench_mpi: {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    index = open(os.path.join(out, "sweep", "index.csv")).read()
    m = DISPATCH.search(r.stderr)
    if ranks and m:
        dispatch[ranks] = (int(m.group(1)), int(m.group(2)) * 1e-6, int(m.group(3)) * 1e-6)
    if not keep:
        shutil.rmtree(out)
    return dt, dc, index


def launch_cost():
    """mpirun's own start and stop: a 1-rank job that does nothing but list the GPU presets."""
    plain = min(timed_plain([fleetsim, "list", "gpus"]) for _ in range(3))
    mpi = min(timed_plain(launch + ["1", fleetsim, "list", "gpus"]) for _ in range(3))
    return mpi - plain


def timed_plain(cmd):
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.monotonic() - t0


def two_halves():
    """The machine's own 2-way ceiling, without MPI: two one-process sweeps of half the grid each
    (alternate failure-rate scales, so the halves cost about the same), at the same time (shared
    cores, caches and memory bandwidth slow both)."""
    halves = [",".join(scales.split(",")[0::2]), ",".join(scales.split(",")[1::2])]
    c0 = cpu()
    t0 = time.monotonic()
    dirs = [tempfile.mkdtemp(prefix="fleetsim_bench_mpi_") for _ in halves]
    procs = [subprocess.Popen([fleetsim, "sweep", "--vary", f"failures.rate_scale={h}", "--vary",
                               f"checkpoint.interval={intervals}", "--replications", str(replications), "--threads",
                               "1", "-j", "1", "-o", os.path.join(d, "sweep")], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for h, d in zip(halves, dirs)]
    for p in procs:
        p.wait()
    t, c = time.monotonic() - t0, cpu() - c0
    for d in dirs:
        shutil.rmtree(d)
    return t, c


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])


load = os.getloadavg()[0]
print(f"{npoints}-point sweep of the default scenario, {replications} replications per point, "
      f"{os.cpu_count()} cores on this machine (load average {load:.1f} at the start)")
kept = tempfile.mkdtemp(prefix="fleetsim_bench_mpi_")
t_plain, c_plain, ref = timed([fleetsim] + sweep + ["-j", "1"], keep=kept)
# What rank 0 does per point besides dispatching: read the point's headline figures back from its
# HDF5 file and log it. Measured by resuming the finished sweep (every point read back, none run).
startup = min(timed_plain([fleetsim, "list", "gpus"]) for _ in range(3))
t_resume, _, _ = timed([fleetsim] + sweep + ["-j", "1"], keep=kept)
shutil.rmtree(kept)
per_point_root = max(1e-6, (t_resume - startup) / npoints)
L = launch_cost()
# A shared machine drifts by 20% between minutes: the three figures the efficiency is made of (one
# process, 2 ranks, two halves without MPI) are taken in turn, `trials` times, and their medians used.
trials = 3
runs = {"plain": [(t_plain, c_plain)], 2: [], "halves": []}
for trial in range(trials):
    if trial > 0:
        t, c, _ = timed([fleetsim] + sweep + ["-j", "1"])
        runs["plain"].append((t, c))
    t, c, index = timed(launch + ["2", fleetsim] + sweep + ["-j", "1"], ranks=2)
    if index != ref:
        sys.exit("bench_mpi: the 2-rank index.csv DIFFERS from one process")
    runs[2].append((t, c))
    runs["halves"].append(two_halves())
t_plain, c_plain = (median([r[i] for r in runs["plain"]]) for i in (0, 1))
t_two, c_two = (median([r[i] for r in runs["halves"]]) for i in (0, 1))
times, cpus = {}, {}
times[2], cpus[2] = (median([r[i] for r in runs[2]]) for i in (0, 1))
for ranks in (1, 4):
    t, c, index = timed(launch + [str(ranks), fleetsim] + sweep + ["-j", "1"], ranks=ranks)
    if index != ref:
        sys.exit(f"bench_mpi: the {ranks}-rank index.csv DIFFERS from one process")
    times[ranks], cpus[ranks] = t, c
spread = lambda key: "/".join(f"{r[0]:.1f}" for r in runs[key])
print(f"  one process, one point at a time        {t_plain:7.1f} s wall {c_plain:7.1f} s CPU   "
      f"({t_plain / npoints:.3f} s wall, {c_plain / npoints:.3f} s CPU per point; median of {spread('plain')} s)")
print(f"  one process's own work per finished point (read back, log)  {per_point_root * 1e3:6.2f} ms "
      f"(what rank 0 did per point for every rank before the workers read their own points back)")
print(f"  mpirun start and stop (1 rank, no work) {L:7.2f} s wall")
for ranks in (1, 2, 4):
    extra = f"; median of {spread(2)} s" if ranks == 2 else ""
    print(f"  mpirun -n {ranks}                           {times[ranks]:7.1f} s wall {cpus[ranks]:7.1f} s CPU   "
          f"speed-up {t_plain / times[ranks]:4.2f}  (same index.csv{extra})")
print(f"  two one-process sweeps of half the grid at once (no MPI) {t_two:7.1f} s wall {c_two:7.1f} s CPU   "
      f"speed-up {t_plain / t_two:4.2f}: what this machine allows at 2-way (median of {spread('halves')} s)")
for ranks, (n, w, cpu_s) in sorted(dispatch.items()):
    print(f"  dispatcher at {ranks} ranks: {n} points from other ranks, {w * 1e6:.0f} us wall and {cpu_s * 1e6:.0f} us CPU "
          f"per point on rank 0's main thread: one dispatcher keeps up with about {1 / max(w, 1e-9):.0f} points/s "
          f"({1 / max(cpu_s, 1e-9):.0f} points/s on an idle core)")
overhead = (times[1] - t_plain - L) / npoints
overhead_cpu = (cpus[1] - c_plain) / npoints
c = t_plain / npoints
e2 = t_plain / (2 * times[2])
e4 = t_plain / (4 * times[4])
print(f"MPI overhead per point (1 rank vs one process): {overhead * 1e3:+.1f} ms wall with the launch excluded "
      f"({100 * overhead / c:+.1f}% of a point), {overhead_cpu * 1e3:+.1f} ms CPU with it included")
load_end = os.getloadavg()[0]
loaded = max(load, load_end) > os.cpu_count()
print(f"parallel efficiency at 2 ranks, wall clock: {e2:.2f} (target >= 0.9); at 4 ranks on {os.cpu_count()} cores: {e4:.2f}"
      + (f"  [machine loaded: load average {load:.1f} at the start, {load_end:.1f} at the end, "
         f"{os.cpu_count()} cores; rerun idle]" if loaded else ""))
print(f"  the machine's own 2-way efficiency (two halves without MPI): {t_plain / (2 * t_two):.2f}; "
      f"2 ranks relative to it: {t_two / times[2]:.2f}")
print(f"parallel efficiency at 2 ranks, CPU time: {c_plain / cpus[2]:.2f} (CPU per point {cpus[2] / npoints:.3f} s "
      f"at 2 ranks vs {c_plain / npoints:.3f} s in one process); two halves without MPI: {c_plain / c_two:.2f} "
      f"(two busy cores of this machine slow each other: that part is not MPI's)")
# Projection: a point costs its CPU seconds on a core of its own (c_plain / npoints, what it costs
# on an idle core), times the CPU efficiency measured at 2 ranks; the dispatcher caps the rate at
# one over its wall time per point (measured at the most ranks run here).
study = 10000
core_s = c_plain / npoints
e_cpu = c_plain / cpus[2]
# The dispatcher's ceiling: its measured wall time per point at the most ranks measured.
per_dispatch = dispatch[max(dispatch)][1] if dispatch else per_point_root
rate = min(1000 * e_cpu / core_s, 1 / per_dispatch)
t1000 = study / rate + L
print(f"projected: {study} points x {replications} replications on 1,000 cores: {t1000:.0f} s = {t1000 / 60:.1f} min "
      f"({core_s:.3f} core-s per point at CPU efficiency {e_cpu:.2f} -> {1000 * e_cpu / core_s:.0f} points/s; "
      f"one dispatcher allows {1 / per_dispatch:.0f} points/s)")
