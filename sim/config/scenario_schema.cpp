// Every key of a scenario and of each catalog kind, in one place: type, unit, default, doc.
// `fleetsim describe` prints these; the resolver enforces them. Defaults cite their source where
// they are physical; the research notes live in docs/research/.
#include <map>
#include <mutex>

#include "sim/config/plan_schema.hpp"
#include "sim/config/pool_config.hpp"
#include "sim/config/schema.hpp"
#include "sim/core/limits.hpp"
#include "sim/facility/specs.hpp"

namespace fleetsim::config {
namespace {

using S = std::shared_ptr<Schema>;

S make_schema(std::string name, std::string doc, std::vector<Field> fields) {
  auto s = std::make_shared<Schema>();
  s->name = std::move(name);
  s->doc = std::move(doc);
  s->fields = std::move(fields);
  return s;
}

Field with_max(Field f, double max) {
  f.max = max;
  return f;
}

// Words an integer field accepts instead of a count (run.replications: auto).
Field with_words(Field f, std::vector<std::string> words) {
  f.choices = std::move(words);
  return f;
}

Field with_default(Field f, std::string def) {
  f.default_text = std::move(def);
  f.required = false;
  return f;
}

S gpu_schema() {
  return make_schema("gpu", "One GPU model: datasheet figures plus physical calibration.", {
      quantity("memory", dim<Bytes>(), "", "HBM capacity"),
      quantity("hbm_bandwidth", dim<BytesPerSecond>(), "", "HBM bandwidth, datasheet peak"),
      quantity("peak_bf16", dim<FlopsPerSecond>(), "", "dense BF16/FP16 tensor-core peak"),
      quantity("peak_fp8", dim<FlopsPerSecond>(), "0 TFLOP/s", "dense FP8 peak (0 when none)", 0.0, false),
      integer("sm_count", "", "streaming multiprocessors (wave quantization of GEMMs)"),
      quantity("tdp", dim<Watts>(), "", "board power limit"),
      quantity("idle_power", dim<Watts>(), "", "power while idle (restarts, waiting)"),
      real("gemm_efficiency", "0.8", "fraction of peak reached by large well-shaped GEMMs (calibrated)", 0, 1, true),
      real("gemm_efficiency_fp8", "0", "fraction of peak_fp8 reached by large well-shaped FP8 GEMMs (calibrated; 0 = none)", 0, 1),
      real("fp8_blockwise_gemm_ratio", "0",
           "throughput of an FP8 GEMM with blockwise scales (1x128 / 128x128, fp8_recipe blockwise) over the "
           "per-tensor-scaled one (calibrated; 0 = not calibrated)", 0, 1),
      quantity("gemm_half_efficiency_work", dim<Flops>(), "1 GFLOP", "GEMM work at which efficiency is half its maximum (calibrated)"),
      real("attention_efficiency", "0.6", "fused attention kernels, fraction of peak (calibrated)", 0, 1, true),
      real("hbm_efficiency", "0.8", "achievable fraction of HBM bandwidth (calibrated)", 0, 1, true),
      real("unfused_attention_hbm_efficiency", "0",
           "fraction of HBM bandwidth the unfused attention core's s x s kernels reach (calibrated; 0 = hbm_efficiency)", 0, 1),
      quantity("kernel_launch_overhead", dim<Seconds>(), "4 us", "per-kernel overhead not hidden by the stream", 0, false),
      quantity("usable_memory_reserve", dim<Bytes>(), "3 GiB", "CUDA context, allocator fragmentation, NCCL buffers", 0, false),
      quantity("thermal_resistance", dim<KelvinPerWatt>(), "0.06 K/W", "junction-to-inlet thermal resistance"),
      temperature("throttle_temperature", "85 degC", "junction temperature above which clocks drop"),
      real("throttle_slope_per_kelvin", "0.01", "relative clock loss per kelvin above the throttle temperature", 0, 1),
      real("tp_overlap_exposed_share", "0",
           "share of a GEMM-overlapped TP collective that stays exposed beyond the chunk pipeline (measured: a fused "
           "GEMM + reduce-scatter on 8 H100; sim/step/tp_overlap.hpp); 0 = only the pipeline's own exposure", 0, 1),
      text("gemm_m_curve", "",
           "measured GEMM throughput against M (a CSV under data/supplement with columns m, n, k, tflops): the "
           "efficiency of TP overlap's chunk GEMMs; empty = chunks run at the whole GEMM's rate"),
  });
}

S node_schema() {
  return make_schema("node", "One server: its NVLink domain, NICs and host power.", {
      integer("gpus_per_node", "", "GPUs per server"),
      integer("nvlink_domain_gpus", "", "GPUs sharing one NVLink/NVSwitch domain (72 for NVL72)"),
      quantity("nvlink_bandwidth", dim<BytesPerSecond>(), "", "NVLink bandwidth per GPU per direction"),
      quantity("nvlink_latency", dim<Seconds>(), "2 us", "per collective step inside the NVLink domain", 0, false),
      real("nvlink_efficiency", "0.8", "achievable bus bandwidth over link rate (nccl-tests)", 0, 1, true),
      boolean("nvlink_sharp", "false", "NVLS: all-reduce reduced inside the NVSwitch (NVSwitch gen 3, H100 and later)"),
      integer("nics_per_node", "", "compute NICs per server (one per GPU on rail-optimized nodes)"),
      quantity("nic_bandwidth", dim<BytesPerSecond>(), "", "per NIC per direction"),
      quantity("host_power_idle", dim<Watts>(), "", "non-GPU power of the server when idle", 0, false),
      quantity("host_power_max", dim<Watts>(), "", "non-GPU power of the server at full load", 0, false),
      quantity("fan_power_max", dim<Watts>(), "0 W", "server fans at full load when air-cooled", 0, false),
      boolean("liquid_cooled_only", "false", "no air-cooled variant (NVL72 racks): `fleetsim plan` pairs it with liquid plants only"),
  });
}

S fabric_schema() {
  return make_schema("fabric", "The scale-out network, described by parameters (never link by link).", {
      choice("topology", {"rail_optimized", "fat_tree"}, "", "rail_optimized: GPU i of every node on rail i"),
      integer("tiers", "3", "switch tiers of the Clos (2 or 3)", 1, 3),
      integer("switch_radix", "64", "ports per switch", 2),
      integer("gpus_per_leaf", "", "endpoints under one leaf switch"),
      real("oversubscription", "1", "leaf-to-spine downlink:uplink ratio (2 means 2:1)", 1),
      integer("pod_gpus", "0", "GPUs per pod with full bisection inside (0 = one pod)", 0),
      real("pod_oversubscription", "1", "oversubscription between pods (Llama 3: 7 for 1:7)", 1),
      quantity("link_bandwidth", dim<BytesPerSecond>(), "", "per port per direction"),
      quantity("hop_latency", dim<Seconds>(), "1 us", "per switch hop", 0, false),
      real("efficiency", "0.9", "achievable fraction of link rate for large messages", 0, 1, true),
      quantity("switch_power", dim<Watts>(), "1.5 kW", "power per switch", 0, false),
  });
}

S cooling_schema() {
  return make_schema("cooling", "A cooling plant: PUE versus IT load and outdoor temperature.", {
      choice("kind", {"air_chiller", "air_economizer", "liquid_direct", "immersion"}, "", "plant type"),
      real("fixed_loss", "0.02", "L0: distribution losses at zero load, share of design IT power"),
      real("proportional_loss", "0.03", "l1: UPS/PDU loss per W of IT"),
      real("square_loss", "0.01", "l2: I^2R loss at design load"),
      real("fan_pump_fraction", "0.06", "facility fans and pumps per W of IT"),
      real("chiller_cop_at_25c", "6", "mechanical cooling COP at 25 degC outdoor wet-bulb", 0, 1e9, true),
      real("chiller_cop_per_kelvin", "0.03", "relative COP change per kelvin of outdoor temperature"),
      temperature("economizer_threshold", "10 degC", "free cooling below this outdoor wet-bulb temperature"),
      real("economizer_cop", "25", "plant COP in free-cooling mode", 0, 1e9, true),
      temperature("gpu_inlet_temperature", "25 degC", "air inlet or coolant supply temperature at the GPU"),
      real("inlet_tracks_outdoor", "0", "inlet rise per kelvin of outdoor temperature above the threshold"),
      real("server_fan_fraction", "0.1", "server fan power per W of IT (air); ~0 for liquid"),
      real("thermal_resistance_scale", "1", "multiplies the GPU's junction thermal resistance", 0, 10, true),
      real("failure_rate_multiplier", "1", "labelled claim knob: multiplies hardware failure rates", 0, 10, true),
      quantity("economizer_partial_band", dim<Kelvin>(), "4 K", "partial free cooling over this band above the threshold", 0, false),
      real("throughput_multiplier", "1", "labelled claim knob: multiplies iteration throughput", 0, 10, true),
  });
}

S failure_component_schema() {
  return make_schema("failure component", "One failure process, counted per component of `scope`.", {
      text("name", "", "short identifier, e.g. faulty_gpu"),
      text("category", "", "Table 5 category: GPU, Network, Host, Dependency, ..."),
      choice("scope", {"gpu", "node", "nic", "leaf_switch", "spine_switch", "link", "job", "domain"}, "",
             "what the rate is counted per (domain: a correlated failure domain of domain_gpus GPUs)"),
      quantity("rate", dim<PerSecond>(), "", "interruptions per component per unit time, e.g. '0.061 /yr'", 0, false),
      real("weibull_shape", "1", "1 = exponential; < 1 infant mortality; > 1 wear-out", 0, 100, true),
      choice("mode", {"crash", "hang"}, "crash", "crash: seen in seconds; hang: only at the watchdog"),
      boolean("needs_repair", "true", "the node leaves the pool for repair (false: a reset fixes it)"),
      boolean("correlated_node_loss", "false", "takes down every node below the component (switches)"),
      integer("domain_gpus", "0", "scope domain: GPUs one failure takes down (NVL72 rack 72, power shelf, CDU)", 0),
  });
}

S lemon_retirement_schema() {
  return make_schema("lemon_retirement", "Retire a node that fails repeatedly (lemon_model per_node).", {
      integer("after_failures", "0", "retire a node at this many failures within `window`; 0 = never", 0, 64),
      quantity("window", dim<Seconds>(), "7 d", "the window the failures are counted in", 0, true),
  });
}

S failures_schema() {
  return make_schema("failures", "A failure profile: component failure processes and repair.", {
      table("components", failure_component_schema(), "failure processes"),
      real("lemon_fraction", "0", "share of nodes with a higher hazard", 0, 1),
      real("lemon_multiplier", "1", "two_point: hazard of a lemon node over a healthy one", 1),
      // Issue 27, sim/run/README.md "Lemon nodes": the per-node hazard (frailty) distribution.
      choice("lemon_distribution", {"two_point", "lognormal"}, "two_point",
             "per-node hazard multiplier Z (mean 1): two_point (lemon_fraction x lemon_multiplier) or a "
             "lognormal heavy tail (lemon_sigma; the top lemon_fraction are lemons) (Kokolis et al. HPCA'25)"),
      real("lemon_sigma", "1", "lognormal: sigma of ln Z", 0, 3, true),
      choice("lemon_model", {"fleet_average", "per_node"}, "fleet_average",
             "fleet_average: the job sees the fleet's mix; per_node: each replication draws its nodes' "
             "hazards and follows each node (needed for lemon_retirement)"),
      section("lemon_retirement", lemon_retirement_schema(), "retire a node after repeated failures"),
      quantity("planned_rate_per_job", dim<PerSecond>(), "0 /d", "planned maintenance interruptions per job-day", 0, false),
      real("rate_scale", "1", "multiplies every component rate (what-if knob)", 0, limits::kMaxRateScale),
      quantity("repair_median", dim<Seconds>(), "2 h", "median repair time of a failed node (lognormal)"),
      real("repair_sigma", "1.2", "sigma of ln(repair time)", 0),
      quantity("fleet_age", dim<Seconds>(), "0 d",
               "Weibull components only: age of the parts at the run start (0 = fresh cohort)", 0, false),
  });
}

S workload_model_schema() {
  return make_schema("model", "A transformer architecture (Megatron-LM argument names).", {
      integer("num_layers", "", "transformer layers"),
      integer("hidden_size", "", "model dimension"),
      integer("ffn_hidden_size", "", "MLP inner dimension (per expert for MoE)"),
      integer("num_attention_heads", "", "attention heads"),
      integer("num_query_groups", "0", "key/value heads for grouped-query attention (0 = heads)", 0),
      integer("seq_length", "", "sequence length in tokens"),
      integer("vocab_size", "", "vocabulary size"),
      boolean("swiglu", "false", "SwiGLU MLP (three matrices) instead of GELU (two)"),
      boolean("untie_embeddings_and_output_weights", "true", "separate input embedding and output layer"),
      boolean("dropout", "true", "hidden dropout: each layer keeps two dropout masks for the backward (Llama: none)"),
      integer("num_experts", "0", "experts per MoE layer (0 = dense)", 0),
      integer("moe_router_topk", "0", "experts each token is routed to", 0),
      real("moe_capacity_factor", "1", "expert capacity over the balanced load", 0, 100, true),
      integer("moe_layer_freq", "1", "every k-th layer is MoE"),
      integer("moe_ffn_hidden_size", "0", "routed and shared expert inner dimension (0 = ffn_hidden_size)", 0),
      integer("moe_shared_experts", "0", "shared experts every token passes (DeepSeek-V3: 1)", 0, 1024),
      integer("moe_first_dense_layers", "0", "the first k layers are dense (DeepSeek-V3: 3)", 0),
      integer("moe_router_max_nodes", "0",
              "node-limited routing: nodes one token's experts may span (DeepSeek-V3: 4; 0 = unlimited)", 0, 1 << 20),
      choice("moe_token_distribution", {"balanced", "zipf"}, "balanced",
             "routed tokens per expert: balanced (every expert the mean) or zipf (expert i ~ 1/i^s; the "
             "busiest expert-parallel rank sets the pace)"),
      real("moe_zipf_exponent", "1", "skew s of the zipf token distribution", 0, 4),
      integer("mtp_depth", "0", "multi-token prediction modules: one extra layer and output head each", 0, 8),
      integer("q_lora_rank", "0", "MLA: rank of the query compression (0 = direct Q projection)", 0),
      integer("kv_lora_rank", "0", "MLA: rank of the joint key-value compression (0 = no MLA)", 0),
      integer("qk_nope_head_dim", "0", "MLA: per-head query/key dimension without rotary embedding", 0),
      integer("qk_rope_head_dim", "0", "MLA: per-head decoupled rotary query/key dimension", 0),
      integer("v_head_dim", "0", "MLA: per-head value dimension", 0),
  });
}

S parallel_schema() {
  return make_schema("parallel", "The parallel layout (Megatron-LM argument names).", {
      // Degrees at most the GPU limit, so products of three fit in 64 bits (layout_rules.cpp).
      integer("tensor_model_parallel_size", "1", "TP", 1, limits::kMaxGpus),
      integer("pipeline_model_parallel_size", "1", "PP", 1, limits::kMaxGpus),
      integer("virtual_pipeline_model_parallel_size", "1", "model chunks per pipeline rank (interleaved schedule)", 1,
              limits::kMaxGpus),
      choice("pipeline_schedule", {"megatron", "llama3", "dualpipe"}, "megatron",
             "interleaved schedule: megatron (Megatron-core; N in [PP, M], M a multiple of PP), llama3 "
             "(arXiv:2407.21783 §3.3.2: N tunable in [1, M], any number of microbatches) or dualpipe "
             "(DeepSeek-V3 arXiv:2412.19437 §3.2.1: bidirectional, VPP 1, even PP, 2x parameters)"),
      integer("microbatch_group_size_per_vp_stage", "0",
              "N: contiguous microbatches per model chunk in the interleaved schedule (Megatron-core's "
              "argument; 0 = PP); smaller N holds fewer activations in flight", 0),
      integer("context_parallel_size", "1", "CP", 1, limits::kMaxGpus),
      integer("expert_model_parallel_size", "1", "EP", 1, limits::kMaxGpus),
      boolean("sequence_parallel", "false", "Megatron sequence parallelism inside TP"),
      choice("recompute_granularity", {"none", "selective", "full"}, "none", "activation recomputation"),
      boolean("use_distributed_optimizer", "false", "shard optimizer states over DP (ZeRO-1)"),
      integer("zero_stage", "0", "0-3; 3 = FSDP-style parameter sharding", 0, 3),
      boolean("overlap_grad_reduce", "true", "overlap DP gradient reduction with backward (bucketed)"),
      boolean("overlap_param_gather", "true", "overlap parameter all-gather with forward"),
      boolean("fsdp_reshard_after_forward", "true",
              "ZeRO-3/FSDP: free gathered weights after each forward and re-gather for the backward "
              "(false: keep them, Llama 3 §3.3.2; costs memory, saves one all-gather per microbatch)"),
      integer("dp_comm_sms", "20",
              "SMs a data-parallel NCCL collective occupies while it overlaps compute (one CTA per channel; "
              "DeepSeek-V3 §3.2.2: 20 of 132 saturate IB + NVLink)", 0, 1024),
      integer("ep_comm_sms", "20",
              "SMs the expert-parallel all-to-all kernels hold while overlapping compute under dualpipe "
              "(DeepSeek-V3 §3.2.2: 20 of 132)", 0, 1024),
      boolean("overlap_sm_contention", "true",
              "compute overlapped with DP communication runs on the SMs NCCL leaves (false: overlap is free)"),
      boolean("overlap_hbm_contention", "true",
              "memory-bound kernels overlapped with DP communication share HBM with it (false: no sharing)"),
      integer("cpu_offloading_num_layers", "0",
              "layers per pipeline chunk whose activations wait for the backward in host memory instead of "
              "HBM (Megatron-core cpu_offloading_num_layers; Megatron-Bridge's GB200/GB300 Llama 3 70B FSDP "
              "recipes: 20-40); memory only, the copies overlap compute", 0, 1000000),
      integer("fsdp_prefetch_ops", "1",
              "ZeRO-3/FSDP: ops ahead a unit's weights (a layer, the embedding, the head) may be gathered "
              "(PyTorch FSDP limit_all_gathers: 1); "
              "0 = unlimited, gathers hide behind the whole pipeline", 0, 1000000),
      boolean("tp_comm_overlap", "false",
              "overlap TP all-gathers / reduce-scatters with the adjacent GEMMs (Megatron-core --tp-comm-overlap, "
              "Transformer Engine userbuffers; needs sequence_parallel)"),
      choice("tp_comm_overlap_rs_method", {"pipeline", "ring_exchange"}, "pipeline",
             "how TE userbuffers overlaps the forward reduce-scatters (attention output, FC2) with their GEMMs: "
             "pipeline (GEMM chunks on the SMs the reduce-scatter kernel leaves; NeMo's H100 BF16 recipes) or "
             "ring_exchange (copy-engine peer-to-peer, 1 SM; NeMo's FP8 recipes since PR #13131, Blackwell)"),
      int_list("tp_comm_overlap_rs_sms",
               "SMs of the pipelined forward reduce-scatters [attention output, FC2] (NeMo num_sm; default [24, 16], "
               "Llama 3 70B TP 4; 405B TP 8: [24, 8]); the GEMM chunks run on the rest"),
      int_list("tp_comm_overlap_bulk_sms",
               "SMs of the backward bulk overlaps [QKV dgrad, QKV wgrad, FC1 dgrad, FC1 wgrad] (NeMo num_sm; default "
               "[4, 24, 2, 4]); the concurrent GEMM loses them while the collective runs"),
      boolean("tp_comm_overlap_aggregate", "false",
              "ring exchange moves two chunks per step (NeMo aggregate; the 405B TP 8 configs): TP / 2 chunk GEMMs"),
      boolean("tp_comm_overlap_rs_fp8_buf", "true",
              "under fp8 the pipelined reduce-scatter moves the GEMM's FP8 output (NeMo fp8_buf, its H100 FP8 configs)"),
      integer("tp_comm_overlap_splits", "4", "GEMM chunks of a pipelined reduce-scatter (NeMo num_splits)", 1, 64),
      boolean("overlap_p2p_comm", "false",
              "asynchronous pipeline sends: the sender does not wait for the transfer (Megatron-core "
              "overlap_p2p_comm; Llama 3 §3.3.2); false: blocking batch_isend_irecv + synchronize"),
      int_list("pipeline_layer_split",
               "layers per pipeline stage, or per model chunk in model order (PP x VPP entries, zeros allowed); empty = even"),
      choice("rank_order", {"tp-cp-dp-pp", "tp-cp-pp-dp", "tp-cp-ep-dp-pp", "tp-cp-ep-pp-dp"}, "tp-cp-dp-pp",
             "rank order innermost first: Megatron tp-cp-dp-pp; Llama 3 tp-cp-pp-dp (arXiv:2407.21783 §3.3.2)"),
  });
}

S training_schema() {
  return make_schema("training", "The batch and the training length.", {
      integer("micro_batch_size", "1", "sequences per microbatch"),
      integer("global_batch_size", "", "sequences per iteration"),
      with_max(quantity("train_tokens", dim<Tokens>(), "0T", "tokens to train (0 = until run.duration ends)", 0, false),
               limits::kMaxTrainTokens),
      boolean("use_flash_attn", "true", "fused (flash) attention; false = unfused softmax over s x s (Megatron SC'21)"),
      choice("precision", {"bf16", "fp16", "fp8"}, "bf16",
             "bf16 accumulates and reduces gradients in fp32 (Megatron, Llama 3 §3.3.2); "
             "fp16 reduces 16-bit gradients and pays loss-scaling passes in the optimizer (Megatron SC'21); "
             "fp8: Transformer Engine FP8 linear layers, BF16 elsewhere, gradients as bf16"),
      boolean("gradient_accumulation_fusion", "false",
              "the weight-gradient GEMM accumulates into the fp32 main gradient (Megatron-core / NeMo "
              "--gradient-accumulation-fusion); false: a separate memory-bound add per microbatch (Megatron 2021)"),
      choice("fp8_recipe", {"delayed", "current", "mxfp8", "blockwise"}, "delayed",
             "FP8 scaling (Transformer Engine): delayed (amax history, TE default), current (per-tensor "
             "amax of the tensor itself, an extra pass per cast), mxfp8 (one scale per 32 elements, Blackwell), "
             "blockwise (DeepSeek-V3: one scale per 1x128 activation tile and 128x128 weight block, Hopper)"),
      boolean("grad_reduce_in_fp32", "true",
              "main gradients accumulated and reduced in fp32 (Megatron-core DistributedDataParallelConfig / "
              "NeMo grad_reduce_in_fp32; Megatron-LM forces it under bf16); false: in 16 bits, 2 B per parameter "
              "(NeMo 25.02 performance recipes); fp16 always reduces 16-bit gradients"),
      boolean("fp8_param_gather", "false",
              "under precision fp8, the linear layers' weights are held only as FP8 (Transformer Engine "
              "fp8_model_init; Megatron-core --fp8-param-gather, NeMo fp8_param_gather / fp8_params): no 16-bit "
              "copy besides the fp32 main weights in the optimizer; no effect under bf16 / fp16 (as NeMo's "
              "DtypeConfig, where it defaults to true)"),
  });
}

S cluster_schema() {
  return make_schema("cluster", "The hardware: GPUs, servers, fabric and cooling.", {
      preset("gpu", "gpus", "GPU preset or YAML file"),
      integer("gpus", "", "GPUs in the job", 1, limits::kMaxGpus),
      preset("node", "nodes", "server preset or YAML file"),
      preset("fabric", "fabrics", "fabric preset or YAML file"),
      with_default(preset("cooling", "cooling", "cooling preset or YAML file"), "air-chiller"),
  });
}

S workload_schema() {
  return make_schema("workload", "What is trained and how it is laid out.", {
      preset("model", "workloads", "model preset or YAML file"),
      section("parallel", parallel_schema(), "parallel layout"),
      section("training", training_schema(), "batch and length"),
  });
}

S recovery_schema() {
  return make_schema("recovery", "What happens after an interruption (reliability_energy.md §2.5, §2.7).", {
      quantity("detect_crash", dim<Seconds>(), "30 s", "time to notice a crash (ByteRobust: 10-30 s)", 0, false),
      quantity("detect_hang", dim<Seconds>(), "10 min", "watchdog timeout for hangs (NCCL default 10-30 min)", 0, false),
      quantity("diagnosis", dim<Seconds>(), "3 min", "isolate the failed node (MegaScale < 10 min)", 0, false),
      quantity("reschedule_spare", dim<Seconds>(), "2 min", "swap in a hot spare", 0, false),
      quantity("reschedule_wait", dim<Seconds>(), "30 min",
               "full_restart: requeue time of every interruption; with no spares: time to get a node from the shared pool", 0, false),
      quantity("init_base", dim<Seconds>(), "3 min", "process launch + communicator init at the reference size", 0, false),
      integer("init_reference_gpus", "16384", "GPU count at which init takes init_base"),
      real("init_scaling_exponent", "0.5", "init time grows as (gpus / reference)^exponent", 0, 2),
      quantity("planned_downtime", dim<Seconds>(), "5 min",
               "one planned maintenance event (a synchronous checkpoint comes before it, init + load after) [U]", 0, false),
      quantity("replica_reconfigure", dim<Seconds>(), "150 s",
               "replica_restart: pause of the surviving replicas (with 30 s detection, FT-HSDP's 3 min, arXiv:2602.00277)", 0, false),
      choice("policy", {"full_restart", "warm_spares", "replica_restart"}, "warm_spares", "restart policy"),
      integer("spare_nodes", "0", "hot spare nodes in the pool", 0),
  });
}

S checkpoint_schema() {
  Field interval = quantity("interval", dim<Seconds>(), "daly",
                            "time between checkpoints, or 'daly' for Daly's (2006) optimum");
  interval.choices = {"daly"};
  return make_schema("checkpoint", "Checkpointing (reliability_energy.md §2.1-2.4).", {
      interval,
      quantity("write_time", dim<Seconds>(), "5 s",
               "fixed blocking part per checkpoint (async: snapshot to host memory; sync adds size / storage_bandwidth); "
               "PyTorch DCP async: 6.3 s for 7B", 0, false),
      boolean("async", "true", "a background persist follows the stall; durable only once persisted"),
      quantity("storage_bandwidth", dim<BytesPerSecond>(), "2 TB/s", "storage write bandwidth (Llama 3: 2 TB/s sustained)"),
      quantity("load_bandwidth", dim<BytesPerSecond>(), "2 TB/s", "storage read bandwidth on restart"),
      real("bytes_per_param", "14", "checkpoint bytes per parameter (bf16 + fp32 master + Adam)", 0, 1e3, true),
  });
}

S stragglers_schema() {
  return make_schema("stragglers", "Slow ranks (reliability_energy.md §3).", {
      real("device_speed_sigma", "0", "static per-GPU lognormal speed spread (Sinha et al. SC'22)", 0, 1),
      real("step_jitter_cv", "0", "per-iteration per-GPU jitter, coefficient of variation", 0, 1),
      quantity("fail_slow_rate_per_node", dim<PerSecond>(), "0 /d", "fail-slow events per node", 0, false),
      real("fail_slow_slowdown", "1.5", "compute slowdown of a fail-slow node (the step model turns it into an iteration time)", 1),
      real("device_speed_max_slowdown", "1.5", "cap on the slowest device (Sinha et al. SC'22: outliers up to 1.5x)", 1),
      quantity("fail_slow_detect", dim<Seconds>(), "30 min", "time until a slow node is evicted", 0, false),
      // Issue 27 (sim/step/slowdown.hpp, sim/run/README.md): causes of slow iterations.
      choice("fail_slow_kind", {"compute", "network"}, "compute", "what a fail-slow host slows (EROICA NSDI'26: both kinds)"),
      quantity("fail_slow_duration", dim<Seconds>(), "0 h", "mean fail-slow episode if left alone (exponential); 0 = until mitigated", 0, false),
      choice("fail_slow_policy", {"ignore", "rebalance", "swap", "checkpoint_restart"}, "swap",
             "after detection: ignore, re-balance microbatches, swap the host (restart), checkpoint-and-restart in place"),
      quantity("gc_pause", dim<Seconds>(), "0 ms", "one garbage-collection pause of one rank (ByteDance OSDI'25: 100s of ms)", 0, false),
      real("gc_interval_steps", "500", "iterations between two GC pauses of one rank", 1),
      boolean("gc_synchronized", "false", "every rank collects at the same iteration (planned GC)"),
      real("seq_doc_median", "0", "median document length in tokens; 0 = fixed-length samples (no imbalance)", 0),
      real("seq_doc_sigma", "1", "sigma of ln(document length)", 0, 5),
      boolean("seq_packing", "true", "documents packed into full sequences, attention per document"),
      boolean("seq_rebalance", "false", "sequences re-balanced across data-parallel ranks by cost"),
      real("degraded_link_share", "0", "share of fabric links degraded at any time", 0, 1),
      real("degraded_link_bandwidth", "0.5", "bandwidth a degraded link keeps", 0, 1, true),
  });
}

S site_schema() {
  return make_schema("site", "Where the facility is: climate, energy price, grid carbon.", {
      temperature("mean_temperature", "15 degC", "annual mean outdoor wet-bulb temperature"),
      quantity("seasonal_amplitude", dim<Kelvin>(), "8 K", "half the summer-winter swing", 0, false),
      quantity("diurnal_amplitude", dim<Kelvin>(), "5 K", "half the day-night swing", 0, false),
      text("hourly_csv", "", "optional CSV of hourly outdoor temperature (hour, degC)"),
      quantity("energy_price", dim<DollarsPerJoule>(), "0.08 USD/kWh", "electricity price", 0, false),
      quantity("carbon_intensity", dim<KilogramsPerJoule>(), "0.414 kg/kWh",
               "grid carbon intensity (Llama 3.1 model card implies 0.414)", 0, false),
      integer("warmest_day_of_year", "200", "day of the seasonal maximum (200 = 19 July; ~20 south of the equator)", 1, 366),
      integer("start_day_of_year", "1", "calendar day the run starts (1 = 1 January)", 1, 366),
  });
}

// Added (issue #29): the sub-second power timeline and its mitigations (sim/facility/README.md,
// "Power dynamics"; figures with confidence labels in data/validation/power_dynamics.csv).
S power_dynamics_schema() {
  return make_schema("power_dynamics", "Sub-second power of the job (with facility.power_timeline: on).", {
      quantity("resolution", dim<Seconds>(), "10 ms", "sample period of the power timeline"),
      quantity("window", dim<Seconds>(), "1 d", "stretch of replication 0 sampled at that resolution"),
      quantity("window_start", dim<Seconds>(), "0 d", "where that stretch begins in the run", 0, false),
      quantity("gpu_time_constant", dim<Seconds>(), "10 ms", "first-order ramp of GPU power to a new phase's level [U]", 0, false),
      quantity("cooling_time_constant", dim<Seconds>(), "60 s", "cooling plant power follows the heat load with this lag [U]", 0, false),
      integer("rack_gpus", "32", "GPUs per rack, for the rack level (4 HGX nodes) [U]"),
      quantity("ramp_window", dim<Seconds>(), "1 s", "ramp rate = largest power change over this window / window"),
      quantity("telemetry_average", dim<Seconds>(), "1 s", "averaging of published telemetry (NVML on Ampere+: 1 s)"),
      quantity("spectrum_window", dim<Seconds>(), "655.36 s", "steady training analysed for the spectrum (rounded to a power of two samples)"),
  });
}

S power_smoothing_schema() {
  return make_schema("power_smoothing", "GPU power smoothing (GB200/GB300, NVML power-smoothing profile).", {
      with_max(real("floor", "0", "minimum power floor while the job runs, share of TDP (GB200: 0.2-0.9; 0 = none)"), 1.0),
      quantity("ramp_up_rate", dim<WattsPerSecond>(), "0 W/s", "per-GPU ramp-up limit (0 = unlimited)", 0, false),
      quantity("ramp_down_rate", dim<WattsPerSecond>(), "0 W/s", "per-GPU ramp-down limit (0 = unlimited)", 0, false),
      quantity("hold_time", dim<Seconds>(), "0 s", "ramp-down hysteresis: power holds this long before it falls", 0, false),
  });
}

S energy_storage_schema() {
  return make_schema("energy_storage", "Rack (PSU capacitors, GB300) or site (batteries) energy storage.", {
      quantity("capacity", dim<Joules>(), "0 J", "usable energy of the whole facility's storage (GB300: 65 J per GPU)", 0, false),
      quantity("power", dim<Watts>(), "0 W", "charge / discharge power limit, whole facility", 0, false),
      real("efficiency", "0.9", "round-trip efficiency", 0, 1, true),
          quantity("time_constant", dim<Seconds>(), "0 s",
               "the grid follows the load's moving average over this time (0 = capacity / power: the time the store can give full power)", 0, false),
      choice("location", {"rack", "site"}, "site", "rack: behind the PDUs (before distribution losses); site: at the meter"),
  });
}

S filler_work_schema() {
  return make_schema("filler_work", "Power-hungry secondary work in the communication phases (Firefly).", {
      with_max(real("power_level", "0", "GPU power it holds in non-compute phases, share of TDP (0 = none)"), 1.0),
      with_max(real("throughput_cost", "0", "training throughput it takes (Firefly with MPS: 0.05)"), 1.0),
  });
}

S facility_schema() {
  return make_schema("facility", "The facility around the cluster.", {
      with_default(preset("site", "sites", "site preset (models/sites) or YAML file, with overrides"), "temperate"),
      real("resource_utilization", "1", "share of the pool's GPU-hours allocated to work", 0, 1, true),
      real("arrhenius_activation_ev", "0.3", "activation energy of temperature-driven failures, eV", 0, 2),
      quantity("time_step", dim<Seconds>(), "1 h", "facility time-series resolution"),
      real("gpu_activity_compute", "0.95", "GPU activity in compute-bound phases (0.9-1.0)", 0, 1),
      real("gpu_activity_communication", "0.4", "GPU activity in exposed communication and bubbles (0.3-0.5)", 0, 1),
      real("gpu_power_exponent", "1", "alpha in P = idle + (tdp - idle) * activity^alpha", 0, 5, true),
      quantity("design_it_power", dim<Watts>(), "0 W", "facility design IT load; 0 = the pool's nameplate", 0, false),
      temperature("failure_reference_inlet_temperature", "25 degC", "inlet at which the failure profile was measured (Arrhenius factor 1)"),
      real("thermally_activated_failure_share", "0.78", "share of hazards that follow Arrhenius (Llama 3: 78% hardware)", 0, 1),
      boolean("power_timeline", "off", "sub-second power timeline, swings, spectrum and mitigations (facility.power_dynamics)"),
      section("power_dynamics", power_dynamics_schema(), "power timeline resolution, window and time constants"),
      section("power_smoothing", power_smoothing_schema(), "GPU power smoothing: floor, ramp rates, hold time"),
      section("energy_storage", energy_storage_schema(), "rack or site energy storage"),
      section("filler_work", filler_work_schema(), "filler work in the troughs"),
  });
}

S run_schema() {
  return make_schema("run", "The simulated training run.", {
      with_max(quantity("duration", dim<Seconds>(), "54 d", "simulated wall-clock span"), limits::kMaxRunSeconds),
      with_words(integer("replications", "1", "independent Monte-Carlo replications; auto: doubled from 20 until the "
                         "ETTR half-width (at --level) is below run.precision (sim/uncertainty/README.md)", 1,
                         limits::kMaxReplications), {"auto"}),
      real("precision", "0.001", "ETTR half-width that replications: auto stops at (0.001 = 0.1 point)", 0, 1, true),
      integer("seed", "1", "base random seed", 0),
  });
}

S step_schema() {
  return make_schema("step", "Iteration model options.", {
      choice("tier", {"analytical", "simgrid"}, "analytical", "fidelity tier of the iteration model"),
  });
}

}  // namespace

const std::vector<std::string>& catalog_kinds() {
  static const std::vector<std::string> kinds = {"gpus", "nodes", "fabrics", "cooling", "sites", "failures", "workloads", "prices"};
  return kinds;
}

std::shared_ptr<const Schema> kind_schema(const std::string& kind) {
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<const Schema>> cache;
  std::lock_guard lock(m);
  if (auto it = cache.find(kind); it != cache.end()) return it->second;
  std::shared_ptr<const Schema> s;
  if (kind == "gpus") s = gpu_schema();
  else if (kind == "nodes") s = node_schema();
  else if (kind == "fabrics") s = fabric_schema();
  else if (kind == "cooling") s = cooling_schema();
  else if (kind == "failures") s = failures_schema();
  else if (kind == "workloads") s = workload_model_schema();
  else if (kind == "sites") s = site_schema();
  else if (kind == "prices") s = price_schema();  // sim/plan's price catalog (plan_schema.cpp)
  else return nullptr;
  cache[kind] = s;
  return s;
}

std::shared_ptr<const Schema> scenario_schema() {
  static const std::shared_ptr<const Schema> s = make_schema("scenario", "A composed scenario.", {
      text("description", "", "what the scenario shows"),
      section("cluster", cluster_schema(), "hardware"),
      section("workload", workload_schema(), "model, layout, batch"),
      with_default(preset("failures", "failures", "failure profile and overrides", "profile"), "llama3-h100"),
      section("recovery", recovery_schema(), "restart pipeline and policy"),
      section("checkpoint", checkpoint_schema(), "checkpointing"),
      section("stragglers", stragglers_schema(), "slow ranks"),
      section("facility", facility_schema(), "power, cooling, climate, prices"),
      section("run", run_schema(), "run length and seeds"),
      section("step", step_schema(), "iteration model options"),
      section("pool", pool_schema(), "the GPU pool the job shares (fleetsim pool); absent = facility.resource_utilization"),
  });
  return s;
}

}  // namespace fleetsim::config
