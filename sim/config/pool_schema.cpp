// Keys of the `pool:` section: the pool simulator's job streams and scheduler (sim/pool/README.md).
// Defaults are neutral where no source sets them; the benchmark and validation scenarios give
// every figure with its source.
#include "sim/config/pool_config.hpp"
#include "sim/config/serving_config.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::config {
namespace {

std::shared_ptr<Schema> make(std::string name, std::string doc, std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->name = std::move(name);
  s->doc = std::move(doc);
  s->fields = std::move(fields);
  return s;
}

std::shared_ptr<const Schema> scheduler_schema() {
  return make("scheduler", "Queue policy and preemption.", {
      choice("policy", {"fifo", "backfill", "priority"}, "backfill",
             "fifo: strict submission order; backfill: EASY backfill (Lifka 1995); priority: high before low"),
      boolean("preemption", "false", "priority: a blocked high-priority job preempts low-priority training"),
      quantity("min_runtime_before_preemption", dim<Seconds>(), "0 s",
               "a job is preemptible only after running this long (Meta RSC: 2 h)", 0, false),
      integer("backfill_depth", "100", "queued jobs examined per backfill pass (Slurm bf_max_job_test)"),
      quantity("backfill_interval", dim<Seconds>(), "60 s", "time between backfill passes (Slurm bf_interval: 30 s)"),
  });
}

// A table that may be left out (an empty list), unlike the catalog's required tables.
Field optional_table(std::string name, std::shared_ptr<const Schema> row, std::string doc) {
  Field f = table(std::move(name), std::move(row), std::move(doc));
  f.required = false;
  return f;
}

std::shared_ptr<const Schema> size_class_schema() {
  return make("size_class", "Jobs of one size and their run-time distribution.", {
      integer("gpus", "1", "GPUs per job of this class"),
      real("share", "1", "weight of the class among the classes (normalized)", 0, 1e9),
      quantity("duration_median", dim<Seconds>(), "1 h", "run time of this class, median"),
      real("duration_sigma", "1", "sigma of ln(run time) of this class", 0, 10),
  });
}

std::shared_ptr<const Schema> training_stream_schema() {
  return make("training", "Gang-scheduled training jobs.", {
      quantity("arrival_rate", dim<PerSecond>(), "0 /h", "jobs submitted per unit time, daily mean", 0, false),
      real("diurnal_peak_to_trough", "1", "submission rate at the daily peak / trough (Helios Venus: 7.5)", 1, 1e3),
      real("peak_hour", "12", "hour of day of the submission peak", 0, 24),
      real("size_median_gpus", "1", "median GPUs per job", 1, 1e7),
      real("size_sigma_log2", "0", "sigma of log2(GPUs per job); sizes are powers of two", 0, 20),
      integer("max_gpus", "8", "largest job; must fit in the pool"),
      quantity("duration_median", dim<Seconds>(), "1 h", "run time at the requested size, median"),
      real("duration_sigma", "1", "sigma of ln(run time)", 0, 10),
      quantity("max_duration", dim<Seconds>(), "30 d", "longest run time"),
      real("high_priority_share", "0", "share of jobs at high priority", 0, 1),
      real("elastic_share", "0", "share of jobs that start on fewer GPUs when the pool is short", 0, 1),
      real("elastic_min_fraction", "0.5", "smallest size of an elastic job, share of its request", 0, 1, true),
      boolean("elastic_resize", "false",
              "elastic jobs grow into GPUs while nothing queues and shrink to their minimum instead of stopping when preempted "
              "(grown jobs do not give GPUs back to jobs queued later)"),
      quantity("elastic_resize_time", dim<Seconds>(), "1 min",
               "pause of an elastic job at a resize (coordinated checkpoint and re-rendezvous; work kept)", 0, false),
      quantity("checkpoint_interval", dim<Seconds>(), "1 h", "work since the last checkpoint is lost on a failure or preemption"),
      quantity("restart_time", dim<Seconds>(), "10 min", "requeue, init and checkpoint load after an interruption", 0, false),
      text("trace", "", "CSV with columns submit_s,gpus,duration_s[,priority] instead of the distribution"),
      optional_table("size_classes", size_class_schema(),
                     "joint size / run-time classes replacing size_* and duration_median/sigma (Helios: large jobs run longer)"),
  });
}

std::shared_ptr<const Schema> dev_stream_schema() {
  return make("development", "Development and evaluation jobs: small, short, fractional GPUs.", {
      quantity("arrival_rate", dim<PerSecond>(), "0 /h", "jobs submitted per unit time", 0, false),
      real("gpu_fraction", "0.5", "GPUs per job: below 1 shares one GPU (rounded up to eighths)", 0, 8, true),
      quantity("duration_median", dim<Seconds>(), "30 min", "run time, median"),
      real("duration_sigma", "1", "sigma of ln(run time)", 0, 10),
  });
}

std::shared_ptr<const Schema> inference_schema() {
  return make("inference", "A group of identical inference services.", {
      text("name", "service", "label"),
      integer("services", "1", "services in the group", 1, limits::kMaxPoolServices),
      integer("replica_gpus", "8", "GPUs per replica"),
      integer("peak_replicas", "1", "replicas that hold the SLO at the daily peak", 0),
      real("trough_ratio", "0.3", "demand at the daily trough / peak (Azure LLM 2024: code ~0.1, conversation ~0.4)", 0, 1),
      real("peak_hour", "14", "hour of day of the demand peak", 0, 24),
      real("weekend_ratio", "1", "weekend demand / weekday demand", 0, 1),
      text("demand_trace", "", "CSV of demand over time instead of the curve (relative paths: to the scenario's folder); "
                               "repeats after its last step; peak_replicas becomes its maximum"),
      text("demand_time_column", "time_s", "demand_trace: column of seconds since the trace start, increasing"),
      text("demand_column", "replicas", "demand_trace: column of replicas (or GPUs, see demand_in) needed, >= 0"),
      choice("demand_in", {"replicas", "gpus", "requests"}, "replicas",
             "demand_trace: the column counts replicas, GPUs or requests per second (requests: needs model)"),
      real("demand_scale", "1", "demand_trace: values multiplied by this (e.g. a fleet's trace onto one service)", 0, 1e9, true),
      // Issue 39: sized from requests with the serving model (sim/serving/README.md).
      text("model", "", "served model (workload preset): replica_gpus and peak_replicas come from requests_per_s at the slo"),
      section("layout", serving_layout_schema(), "with model: one replica's TP / PP / EP and precision"),
      real("requests_per_s", "0", "with model: requests per second of one service at the daily peak (the curve's peak)", 0),
      integer("input_tokens", "0", "with model: prompt tokens per request", 0, 1 << 24),
      integer("output_tokens", "0", "with model: generated tokens per request", 0, 1 << 24),
      section("slo", serving_slo_schema(), "with model: p99 TTFT / TPOT each replica holds (absent: the saturation rate)"),
  });
}

// Stragglers (issue 27): the job mix behind each training job's slowdown (sim/pool/stragglers.hpp).
std::shared_ptr<const Schema> pool_stragglers_schema() {
  return make("stragglers", "Per-job straggler slowdown drawn from its causes (sim/pool/stragglers.hpp).", {
      boolean("enabled", "false", "draw a slowdown for every training job"),
      integer("min_job_gpus", "128", "jobs counted in the straggler shares (ByteDance OSDI'25: >= 128 GPUs)"),
      real("straggling_threshold", "1.1", "slowdown T / T_ideal at or above which a job straggles", 1, 1e3),
      integer("tensor_parallel", "8", "tensor-parallel size of every job"),
      real("pipeline_share", "0", "share of jobs with a pipeline (ByteDance: 78.9%)", 0, 1),
      integer("pipeline_stages_max", "8", "most pipeline stages (uniform in log2 from 2)", 2, 1024),
      integer("layers_per_stage_min", "4", "fewest transformer layers per stage"),
      integer("layers_per_stage_max", "16", "most transformer layers per stage"),
      real("loss_layer_forward", "0", "loss layer forward, in transformer-layer forwards", 0, 1e3),
      real("loss_layer_backward", "0", "loss layer backward, in transformer-layer forwards", 0, 1e3),
      real("stage_balanced_share", "0", "share of pipelines partitioned around the loss layer", 0, 1),
      real("loss_layer_size_exponent", "0", "loss layer cost x (gpus / min_job_gpus)^-exponent (wider models in larger jobs)", 0, 2),
      integer("microbatches_per_stage", "4", "microbatches per replica per pipeline stage"),
      real("compute_share", "0.75", "compute on the critical path / iteration", 0, 1),
      real("sequence_imbalance_share", "0", "share of jobs packing variable-length documents without re-balancing", 0, 1),
      real("seq_length", "32768", "sequence length of those jobs, tokens", 1, 1e8),
      real("seq_doc_median", "2000", "median document length, tokens", 1, 1e8),
      real("seq_doc_sigma", "1.5", "sigma of ln(document length)", 0, 5),
      boolean("seq_packing", "true", "documents packed into full sequences, attention per document"),
      real("attention_share", "0.4", "attention share of a full-length sample's compute", 0, 1),
      real("gc_unsynchronized_share", "0", "share of jobs whose ranks collect garbage on their own", 0, 1),
      quantity("gc_pause", dim<Seconds>(), "300 ms", "one GC pause", 0, false),
      real("gc_interval_steps", "500", "iterations between two pauses of one rank", 1),
      quantity("step_time_median", dim<Seconds>(), "3 s", "iteration time of a job, median (lognormal)"),
      real("step_time_sigma", "0.5", "sigma of ln(iteration time)", 0, 5),
      real("slow_host_node_probability", "0", "probability that a node is in a fail-slow episode", 0, 1),
      real("slow_host_slowdown_median", "2.5", "slowdown of a job holding a slow host, median (lognormal)", 1, 1e3),
      real("slow_host_slowdown_sigma", "0.4", "sigma of ln(that slowdown)", 0, 5),
      quantity("slow_host_episode_min", dim<Seconds>(), "0 s",
               "shortest run with a slow host before it is found and swapped out (log-uniform to the max)", 0, false),
      quantity("slow_host_episode_max", dim<Seconds>(), "0 s",
               "longest run with a slow host before it is found and swapped out; 0 = it stays to the end", 0, false),
      real("device_speed_sigma", "0", "per-GPU lognormal speed spread", 0, 1),
  });
}

}  // namespace

std::shared_ptr<const Schema> pool_schema() {
  static const std::shared_ptr<const Schema> s = make("pool", "A GPU pool shared by many jobs (sim/pool).", {
      integer("gpus", "0", "GPUs in the pool (0 = cluster.gpus); the run's job is one of its jobs", 0, limits::kMaxGpus),
      integer("spare_nodes", "0", "nodes held out as hot spares for failed nodes", 0),
      boolean("run_job", "true", "the scenario's own job (cluster.gpus GPUs) is one of the pool's jobs, held throughout"),
      quantity("duration", dim<Seconds>(), "30 d", "measured span (after the warm-up)"),
      quantity("warmup", dim<Seconds>(), "0 d", "simulated before measuring: the pool starts empty", 0, false),
      integer("replications", "3", "independent replications", 1, limits::kMaxReplications),
      boolean("failures", "true", "the scenario's failure profile takes nodes out for repair"),
      quantity("reset_time", dim<Seconds>(), "10 min", "a failure needing no repair takes its node out this long", 0, false),
      section("scheduler", scheduler_schema(), "queue policy and preemption"),
      choice("placement", {"first-fit", "best-fit", "topology", "fragmentation-aware", "network-aware", "same-switch"},
             "best-fit",
             "where a job goes: lowest node, fullest node that fits, fewest pods/leaves/NVLink domains, FGD (Weng et al. ATC'23), "
             "network-aware (topology, or the lowest free nodes when those load the fabric's links less; pool.interference), "
             "same-switch (the fullest host that fits, else GPUs on the first leaf with room, else the lowest free hosts: "
             "Alibaba's scheduler as Crux SIGCOMM'24 describes it)"),
      choice("colocation", {"none", "tidal"}, "none",
             "tidal: inference holds what its demand needs and lends the rest to training (Lyra, EuroSys'23)"),
      quantity("reclaim_time", dim<Seconds>(), "5 min", "tidal: notice a borrowing training job gets to checkpoint and leave", 0, false),
      quantity("inference_interval", dim<Seconds>(), "10 min", "inference demand and SLO evaluated this often; pool time-series step"),
      section("training", training_stream_schema(), "training job stream"),
      section("development", dev_stream_schema(), "development job stream"),
      optional_table("inference", inference_schema(), "inference service groups (none by default)"),
      section("stragglers", pool_stragglers_schema(), "per-job straggler slowdown (issue 27)"),
      section("interference", pool_interference_schema(), "jobs slowing each other on the shared fabric (issue 28)"),
  });
  return s;
}

}  // namespace fleetsim::config
