// The step model's metrics: names, units and descriptions for the JSON summary (DESIGN.md §5),
// the console table and the HDF5 file, and how a StepResult fills them.
#include <vector>

#include "sim/results/report.hpp"
#include "sim/step/step_model.hpp"

namespace fleetsim {

const std::vector<MetricDef>& step_metric_defs() {
  static const std::vector<MetricDef> defs = {
      {"iteration_time_s", "s", "time of one training iteration"},
      {"mfu", "1", "model FLOPs utilization: model FLOPs / (time x GPUs x dense 16-bit peak)"},
      {"hfu", "1", "hardware FLOPs utilization: incl. recomputation"},
      {"model_tflops_per_gpu", "TFLOP/s", "model FLOPs per second per GPU"},
      {"hardware_tflops_per_gpu", "TFLOP/s", "hardware FLOPs per second per GPU (incl. recomputation)"},
      {"memory_per_gpu_gib", "GiB", "memory per GPU on the fullest pipeline stage"},
      {"fits_in_memory", "", "memory per GPU <= GPU memory - usable_memory_reserve"},
      {"breakdown_s.compute", "s", "compute on the critical path (math, memory-bound kernels, launch)"},
      {"breakdown_s.tp_comm", "s", "tensor-parallel communication on the critical path"},
      {"breakdown_s.pp_comm", "s", "pipeline point-to-point time on the critical path"},
      {"breakdown_s.dp_comm", "s", "data-parallel communication not hidden behind backward"},
      {"breakdown_s.cp_comm", "s", "context-parallel K/V exchange not hidden behind attention"},
      {"breakdown_s.ep_comm", "s", "expert-parallel all-to-all"},
      {"breakdown_s.bubble", "s", "pipeline bubble: idle time of the critical stage"},
      {"breakdown_s.optimizer", "s", "optimizer step"},
      {"breakdown_s.exposed_comm", "s", "communication on the critical path (sum of the comm terms)"},
      {"breakdown_s.overlapped_comm", "s", "communication hidden behind compute"},
      {"breakdown_s.overlap_contention", "s", "of compute: slowed by overlapping DP collectives (SMs, HBM)"},
      {"breakdown_s.gather_stall", "s", "of dp_comm: first forward waiting for parameter gathers"},
      {"breakdown_s.prefetch_exposed", "s", "of dp_comm: ZeRO-3 gathers beyond the prefetch depth"},
      {"breakdown_s.ep_hidden", "s", "DualPipe: expert-parallel all-to-all hidden behind the paired chunk"},
      {"breakdown_s.ep_sm_partition", "s", "DualPipe, of compute: slowed by the SMs the all-to-all kernels hold"},
      {"tier", "", "fidelity tier of the step model"},
      {"compute_busy_fraction", "1", "share of the iteration a GPU runs math kernels"},
      {"tokens_per_iteration", "tokens", "tokens per iteration (global batch x sequence length)"},
      {"data_parallel_size", "count", "data-parallel replicas"},
      {"microbatches_per_replica", "count", "microbatches per replica per iteration"},
      {"critical_stage", "count", "pipeline rank that finishes the iteration last"},
      {"peak_memory_stage", "count", "pipeline rank with the most memory per GPU"},
      {"usable_memory_gib", "GiB", "GPU memory minus the usable_memory_reserve"},
      {"memory_gib.weights", "GiB", "weights per GPU on the fullest stage"},
      {"memory_gib.gradients", "GiB", "gradients per GPU on the fullest stage"},
      {"memory_gib.optimizer", "GiB", "optimizer states per GPU on the fullest stage"},
      {"memory_gib.activations", "GiB", "activations of the microbatches in flight"},
      {"memory_gib.logits", "GiB", "logits and loss buffers (last stage)"},
      {"memory_gib.buffers", "GiB", "pipeline communication buffers"},
      // Slowdown processes (sim/step/slowdown.hpp, issue 27).
      {"stragglers.slowdown", "1", "expected iteration time with every slowdown process / healthy"},
      {"stragglers.steady_slowdown", "1", "the same without fail-slow hosts (the run model's healthy iteration)"},
      {"stragglers.fail_slow_factor", "1", "iteration stretch while an unmitigated fail-slow host is in the job"},
      {"stragglers.fail_slow_probability", "1", "stationary probability that the job holds a fail-slow host"},
      {"stragglers.extra_s.*", "s", "expected extra time per iteration by cause"},
      {"stragglers.stage_imbalance_s", "s",
       "healthy-iteration time uneven pipeline stages cost vs a balanced split"},
      {"stragglers.stage_imbalance_slowdown", "1", "healthy iteration / the same with balanced stages (ByteDance's S)"},
  };
  return defs;
}

void add_step_metrics(const StepResult& r, Report& report) {
  const auto& b = r.breakdown;
  const auto& m = r.peak_memory;
  report.add("iteration_time_s", r.iteration_time.si());
  report.add("mfu", r.mfu);
  report.add("hfu", r.hfu);
  report.add("model_tflops_per_gpu", r.model_flops_per_gpu.si() / 1e12);
  report.add("hardware_tflops_per_gpu", r.hardware_flops_per_gpu.si() / 1e12);
  report.add("memory_per_gpu_gib", units::to_gib(r.memory_per_gpu));
  report.add("fits_in_memory", r.fits_in_memory);
  report.add("breakdown_s.compute", b.compute.si());
  report.add("breakdown_s.tp_comm", b.tp_comm.si());
  report.add("breakdown_s.pp_comm", b.pp_comm.si());
  report.add("breakdown_s.dp_comm", b.dp_comm.si());
  report.add("breakdown_s.cp_comm", b.cp_comm.si());
  report.add("breakdown_s.ep_comm", b.ep_comm.si());
  report.add("breakdown_s.bubble", b.bubble.si());
  report.add("breakdown_s.optimizer", b.optimizer.si());
  report.add("breakdown_s.exposed_comm", b.exposed_comm.si());
  report.add("breakdown_s.overlapped_comm", b.overlapped_comm.si());
  report.add("breakdown_s.overlap_contention", b.overlap_contention.si());
  report.add("breakdown_s.gather_stall", b.gather_stall.si());
  report.add("breakdown_s.prefetch_exposed", b.prefetch_exposed.si());
  report.add("breakdown_s.ep_hidden", b.ep_hidden.si());
  report.add("breakdown_s.ep_sm_partition", b.ep_sm_partition.si());
  report.add("tier", r.tier);
  report.add("compute_busy_fraction", r.compute_busy_fraction);
  report.add("tokens_per_iteration", r.tokens_per_iteration.si());
  report.add("data_parallel_size", static_cast<double>(r.data_parallel_size));
  report.add("microbatches_per_replica", static_cast<double>(r.microbatches));
  report.add("critical_stage", static_cast<double>(r.critical_stage));
  report.add("peak_memory_stage", static_cast<double>(r.peak_memory_stage));
  report.add("usable_memory_gib", units::to_gib(r.usable_memory));
  report.add("memory_gib.weights", units::to_gib(m.weights));
  report.add("memory_gib.gradients", units::to_gib(m.gradients));
  report.add("memory_gib.optimizer", units::to_gib(m.optimizer));
  report.add("memory_gib.activations", units::to_gib(m.activations));
  report.add("memory_gib.logits", units::to_gib(m.logits));
  report.add("memory_gib.buffers", units::to_gib(m.buffers));
}

}  // namespace fleetsim
