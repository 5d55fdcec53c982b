#!/usr/bin/python3
"""Writes tests/data/calibrate/vtrain_a100.csv, the vTrain measurements as a `fleetsim calibrate`
measurements CSV, from the project's copy of vTrain's tables (data/validation/vtrain_*.csv, see
vtrain_SOURCE.md): single-node rows (2-8 GPUs) are role calibration, multi-node rows (64-512 GPUs)
role judged -- the split of sim/reproduce/vtrain.cpp, decided before fitting. Each row is what
sim/reproduce/vtrain.cpp sets on top of tests/data/calibrate/vtrain-a100-base.yaml.
Run: /usr/bin/python3 tests/data/calibrate/make_vtrain_csv.py"""
import csv
import os

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
cols = ["role", "cluster.gpus", "cluster.node.gpus_per_node", "cluster.node.nvlink_domain_gpus",
        "cluster.node.nics_per_node", "workload.model.num_layers", "workload.model.hidden_size",
        "workload.model.ffn_hidden_size", "workload.model.num_attention_heads", "workload.model.num_query_groups",
        "workload.model.seq_length", "workload.parallel.tensor_model_parallel_size",
        "workload.parallel.pipeline_model_parallel_size", "workload.training.micro_batch_size",
        "workload.training.global_batch_size", "step_time_s"]

out_path = os.path.join(root, "tests", "data", "calibrate", "vtrain_a100.csv")
with open(out_path, "w", newline="") as out:
    out.write("# vTrain (Bang et al., MICRO'24, arXiv:2312.12391) measured Megatron-DeepSpeed iteration times on A100,\n"
              "# VIA-Research/vTrain@f8dda84 data/ground_truth_single.csv (calibration) and ground_truth_multi.csv\n"
              "# (judged); MIT License, Copyright (c) 2024 VIA Research Group at KAIST. Generated from the project's\n"
              "# copy (data/validation/vtrain_*.csv, vtrain_SOURCE.md) by make_vtrain_csv.py; base scenario\n"
              "# vtrain-a100-base.yaml. Split (decided before fitting): single-node = calibration, multi-node = judged.\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    for name, role in (("vtrain_singlenode.csv", "calibration"), ("vtrain_multinode.csv", "judged")):
        with open(os.path.join(root, "data", "validation", name)) as f:
            for r in csv.DictReader(f):
                gpus = int(r["num_gpus"])
                per_node = min(gpus, int(r["gpus_per_node"]))
                h = int(r["hidden_size"])
                heads = r["num_attention_heads"]
                w.writerow([role, gpus, per_node, per_node, max(1, 4 * per_node // 8), r["num_layers"], h, 4 * h,
                            heads, heads, r["seq_len_tokens"], r["tensor_parallel"], r["pipeline_parallel"],
                            r["micro_batch_size_seqs"], r["global_batch_size_seqs"],
                            repr(float(r["iteration_time_ms"]) / 1000.0)])
