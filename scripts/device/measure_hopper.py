#!/usr/bin/env python3
"""Calibration measurements for the Hopper GPU presets (H100 / H200), on a lent H200.

Why: the step model's Hopper BF16 parameters (gemm_efficiency, attention_efficiency, hbm_efficiency
in models/gpus/h100-sxm-80gb.yaml and h200-sxm-141gb.yaml) are third-party microbenchmarks, not
measurements of the shapes that matter: gemm_efficiency 0.80 is the best-shape MAMF figure, and
the public end-to-end BF16 H100 rows disagree with it by +-20% depending on the software stack
(sim/step/README.md, "Known gap"). Whether Llama 3's +5 MFU-point gap at 8K/16K H100 (issue 12)
is the hardware (the clock the 700 W limit allows on Llama 3's own GEMM shapes, sustained) or the
stack is what measurement 1 below decides. H200 and H100 SXM share the GH100 die, its clocks
and its 700 W limit, so compute-side figures measured here transfer to the H100 preset; memory-side
figures are H200's own (HBM3e at 4.8 TB/s, not H100's 3.35).

What it measures, each with CUDA events after warm-up, median of repeats, on random data:
  1. GEMM throughput for the per-GPU shapes of Llama 3 405B at TP 8 (micro-batch 1 x 8192 tokens):
     forward, input-gradient and weight-gradient products of QKV, attention output, MLP up (SwiGLU)
     and MLP down -- briefly (boost clock) and then as a sustained loop of SUSTAIN seconds cycling
     the shapes, sampling SM clock and board power through NVML every 100 ms (the clock the 700 W
     limit allows under dense math is the number the presets lack).
  2. Causal flash attention (torch SDPA) at the same shape: 16 query heads, 1 KV head (GQA 8/8),
     head dim 128, sequence 8192; forward and forward+backward, in TFLOP/s of the causal half.
  3. Memory-bound kernels: copy and add on tensors from 4 MiB to 4 GiB (HBM vs L2 residency).
  4. The unfused attention path of Megatron SC'21 (fp16 scores b x a x s x s at s = 2048, scaled
     softmax then dropout): effective bytes per second of each pass.

It only reads the card's clocks and power; it never changes settings (METHOD.md).
Output: $OUT/hopper_calibration.csv (one row per measurement) and a short table on stdout.
Run it on the device machine as:  python3 scripts/device/measure_hopper.py --out "$OUT"
"""

import argparse
import csv
import os
import statistics
import threading
import time

import torch
import torch.nn.functional as F

try:
    import pynvml  # nvidia-ml-py, present in the device image
except ImportError:  # the measurements still run; clocks and power are left empty
    pynvml = None


def events_time(fn, warmup=3, repeats=10):
    """Median seconds of fn() over `repeats` runs timed with CUDA events, after `warmup` runs."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


class NvmlSampler:
    """SM clock (MHz) and board power (W) sampled every `period` seconds in a thread."""

    def __init__(self, period=0.1):
        self.period, self.clocks, self.power, self._stop = period, [], [], threading.Event()
        self.handle = None
        if pynvml is not None:
            pynvml.nvmlInit()
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())

    def _run(self):
        while not self._stop.is_set():
            self.clocks.append(pynvml.nvmlDeviceGetClockInfo(self.handle, pynvml.NVML_CLOCK_SM))
            self.power.append(pynvml.nvmlDeviceGetPowerUsage(self.handle) / 1e3)
            time.sleep(self.period)

    def __enter__(self):
        if self.handle is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.handle is not None:
            self._stop.set()
            self._thread.join()

    def summary(self):
        if not self.clocks:
            return "", "", ""
        # The first second is the ramp from idle; report the steady part.
        skip = min(len(self.clocks) // 4, int(1.0 / self.period))
        c, p = self.clocks[skip:], self.power[skip:]
        return f"{statistics.mean(c):.0f}", f"{min(c):.0f}", f"{statistics.mean(p):.0f}"


def llama3_tp8_gemms(tokens=8192, hidden=16384, heads=128, groups=8, ffn=53248, tp=8):
    """(name, M, N, K) of every product of one layer's forward and backward on one TP rank."""
    head_dim = hidden // heads
    qkv = (heads // tp + 2 * max(1, groups // tp)) * head_dim
    out = []
    for name, n, k in (("qkv", qkv, hidden), ("attn_out", hidden, heads // tp * head_dim),
                       ("mlp_up", 2 * ffn // tp, hidden), ("mlp_down", hidden, ffn // tp)):
        out.append((f"{name}.fwd", tokens, n, k))
        out.append((f"{name}.dgrad", tokens, k, n))
        out.append((f"{name}.wgrad", k, n, tokens))
    return out


def measure_gemms(rows, sustain_s):
    shapes = llama3_tp8_gemms()
    operands = {}
    for name, m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        operands[name] = (a, b, torch.empty(m, n, device="cuda", dtype=torch.bfloat16))
    for name, m, n, k in shapes:
        a, b, c = operands[name]
        with NvmlSampler() as s:
            t = events_time(lambda: torch.matmul(a, b, out=c), warmup=5, repeats=20)
        clock, clock_min, power = s.summary()
        rows.append(dict(kind="gemm_burst", case=name, shape=f"{m}x{n}x{k}", seconds=t,
                         rate=2.0 * m * n * k / t / 1e12, unit="TFLOP/s", sm_clock_mhz=clock,
                         sm_clock_min_mhz=clock_min, power_w=power))
    # Sustained: cycle the layer's products for sustain_s seconds; the rate of the last half.
    flops_per_cycle = sum(2.0 * m * n * k for _, m, n, k in shapes)
    cycle = lambda: [torch.matmul(operands[nm][0], operands[nm][1], out=operands[nm][2]) for nm, *_ in shapes]
    per_cycle = events_time(cycle, warmup=2, repeats=3)
    cycles = max(4, int(sustain_s / per_cycle))
    with NvmlSampler() as s:
        marks = []
        for i in range(cycles):
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
            marks.append(ev)
            cycle()
        end = torch.cuda.Event(enable_timing=True)
        end.record()
        end.synchronize()
    half = cycles // 2
    seconds = marks[half].elapsed_time(end) / 1e3
    clock, clock_min, power = s.summary()
    rows.append(dict(kind="gemm_sustained", case=f"llama3-405b TP8 layer, {cycles} cycles",
                     shape="all", seconds=seconds / (cycles - half),
                     rate=flops_per_cycle * (cycles - half) / seconds / 1e12, unit="TFLOP/s",
                     sm_clock_mhz=clock, sm_clock_min_mhz=clock_min, power_w=power))
    del operands
    torch.cuda.empty_cache()


def measure_attention(rows, seq=8192, q_heads=16, kv_heads=1, head_dim=128):
    q = torch.randn(1, q_heads, seq, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(1, kv_heads, seq, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(1, kv_heads, seq, head_dim, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn(1, q_heads, seq, head_dim, device="cuda", dtype=torch.bfloat16)
    attend = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    causal_fwd_flops = 4.0 * seq * seq * head_dim * q_heads / 2  # QK^T and AV, causal half
    with torch.no_grad():
        t_fwd = events_time(attend)
    t_both = events_time(lambda: attend().backward(grad))
    for case, t, flops in (("forward", t_fwd, causal_fwd_flops),
                           ("forward+backward", t_both, 3.5 * causal_fwd_flops)):
        rows.append(dict(kind="flash_attention", case=case,
                         shape=f"s{seq} hq{q_heads} hkv{kv_heads} d{head_dim}", seconds=t,
                         rate=flops / t / 1e12, unit="TFLOP/s"))


def measure_memory(rows):
    for mib in (4, 16, 32, 64, 256, 1024, 4096):
        n = mib * 2**20 // 2
        x = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        z = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        reps = 50 if mib <= 64 else 10
        t_copy = events_time(lambda: y.copy_(x), repeats=reps)
        t_add = events_time(lambda: torch.add(x, z, out=y), repeats=reps)
        for case, t, moved in (("copy", t_copy, 2 * x.numel() * 2), ("add", t_add, 3 * x.numel() * 2)):
            rows.append(dict(kind="memory_bound", case=case, shape=f"{mib} MiB", seconds=t,
                             rate=moved / t / 1e9, unit="GB/s"))
        del x, y, z
    torch.cuda.empty_cache()


def measure_unfused_attention(rows, batch=16, heads=24, seq=2048):
    """Megatron SC'21's 1.7B row: b 16, 24 heads, s 2048 (3.2 GB of fp16 scores per layer)."""
    scores = torch.randn(batch, heads, seq, seq, device="cuda", dtype=torch.float16)
    mask = torch.ones(seq, seq, device="cuda", dtype=torch.bool).triu_(1)
    probs = torch.softmax(scores, dim=-1)  # real probabilities for dropout to read
    elems = scores.numel()
    t_softmax = events_time(lambda: torch.softmax(scores.masked_fill(mask, -10000.0) * 0.1, dim=-1))
    t_dropout = events_time(lambda: F.dropout(probs, p=0.1, training=True))
    # Bytes the step model counts (stage_costs.cpp): fused scale-mask-softmax 4 B per score,
    # dropout 5 B; the unfused torch ops here move more, so report both.
    for case, t, counted in (("masked scaled softmax (torch ops)", t_softmax, 4.0),
                             ("dropout p=0.1", t_dropout, 5.0)):
        rows.append(dict(kind="unfused_attention", case=case, shape=f"b{batch} a{heads} s{seq}",
                         seconds=t, rate=counted * elems / t / 1e9, unit="GB/s (model's bytes)"))
    del scores, probs, mask
    torch.cuda.empty_cache()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for the CSV")
    parser.add_argument("--sustain", type=float, default=60.0, help="seconds of the sustained GEMM loop")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("measure_hopper: no CUDA device")
    torch.manual_seed(1)
    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, {props.total_memory / 2**30:.0f} GiB, "
          f"torch {torch.__version__}", flush=True)
    rows = []
    for step in (lambda: measure_gemms(rows, args.sustain), lambda: measure_attention(rows),
                 lambda: measure_memory(rows), lambda: measure_unfused_attention(rows)):
        step()
        print(f"  {rows[-1]['kind']}: done", flush=True)
    fields = ["kind", "case", "shape", "seconds", "rate", "unit", "sm_clock_mhz", "sm_clock_min_mhz", "power_w"]
    path = os.path.join(args.out, "hopper_calibration.csv")
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})
    os.replace(tmp, path)
    print(f"\n{'kind':<18} {'case':<38} {'shape':<22} {'rate':>10}  unit            clock  power")
    for r in rows:
        print(f"{r['kind']:<18} {r['case']:<38} {r['shape']:<22} {r['rate']:>10.1f}  {r['unit']:<15} "
              f"{r.get('sm_clock_mhz', ''):>5}  {r.get('power_w', '')}")
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
