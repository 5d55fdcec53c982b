#!/usr/bin/python3
"""Writes the TraceLens H100 fixture of `fleetsim calibrate --trace` (tests/data/calibrate/):
  tracelens_qwen_h100.json.gz   a scrubbed, reduced copy of AMD-AGI/TraceLens@171dd74
                                tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz (MIT License,
                                Copyright (c) 2024-2025 Advanced Micro Devices, Inc.): the top-level
                                `metadata` (it embeds the process environment, with a token field) and
                                `traceName` are dropped; events kept: GPU kernels, memsets and memcpys,
                                the CUDA runtime launches (correlation, External id only), the cpu_ops
                                that launched a kept kernel (External id, Input Dims, Input type only),
                                the ProfilerStep annotations and the stream names.
  tracelens_qwen_h100_gemm.csv  TraceLens's own reference table for the same trace
                                (..._perf_report_csvs/GEMM.csv): per GEMM shape, its count and mean TFLOP/s.
Usage: make_tracelens_fixture.py TRACE.json.gz GEMM.csv   (the two files of the TraceLens snapshot)"""
import csv
import gzip
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
trace, gemm = sys.argv[1], sys.argv[2]
d = json.load(gzip.open(trace))
ev = d["traceEvents"]
gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
runtime = [e for e in ev if e.get("cat") == "cuda_runtime"]
ext_of_corr = {e["args"]["correlation"]: e["args"].get("External id") for e in runtime if "correlation" in e.get("args", {})}
linked = set()
for e in gpu:
    a = e.get("args", {})
    x = a.get("External id", ext_of_corr.get(a.get("correlation")))
    if x is not None:
        linked.add(x)
keep = []
for e in ev:
    cat, a = e.get("cat"), e.get("args", {})
    if cat in ("kernel", "gpu_memset", "gpu_memcpy"):
        e = dict(e, args={k: a[k] for k in ("stream", "correlation", "External id", "grid", "block", "bytes") if k in a})
    elif cat == "cuda_runtime":
        e = dict(e, args={k: a[k] for k in ("correlation", "External id") if k in a})
    elif cat == "cpu_op":
        if a.get("External id") not in linked:
            continue
        e = dict(e, args={k: a[k] for k in ("External id", "Input Dims", "Input type") if k in a})
    elif cat in ("user_annotation", "gpu_user_annotation") and str(e.get("name", "")).startswith("ProfilerStep"):
        pass
    elif e.get("ph") == "M" and e.get("name") in ("thread_name", "process_name"):
        pass
    else:
        continue
    keep.append(e)
out = {k: d[k] for k in ("schemaVersion", "deviceProperties", "displayTimeUnit", "baseTimeNanoseconds",
                         "record_shapes", "cuda_runtime_version", "cupti_version") if k in d}
out["traceEvents"] = keep
assert "metadata" not in out and "HF_TOKEN" not in json.dumps(out)
with gzip.GzipFile(os.path.join(here, "tracelens_qwen_h100.json.gz"), "wb", mtime=0) as f:
    f.write(json.dumps(out, separators=(",", ":")).encode())

with open(os.path.join(here, "tracelens_qwen_h100_gemm.csv"), "w", newline="") as f:
    f.write("# TraceLens's reference GEMM table of tracelens_qwen_h100.json.gz: AMD-AGI/TraceLens@171dd74\n"
            "# tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005_perf_report_csvs/GEMM.csv (MIT License, (c) AMD);\n"
            "# columns copied: op, M, N, K, count, mean TFLOP/s over the op's GPU time, mean GPU time (us).\n")
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["op", "m", "n", "k", "count", "tflops_mean", "kernel_time_us_mean"])
    for r in csv.DictReader(open(gemm)):
        w.writerow([r["name"], r["param: M"], r["param: N"], r["param: K"], r["name_count"], r["TFLOPS/s_mean"],
                    r["Kernel Time (µs)_mean"]])
