#include "sim/import/imported.hpp"

#include <algorithm>
#include <climits>
#include <sstream>

#include "sim/core/checked.hpp"
#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"

namespace fleetsim::importer {

int padded_vocab(int vocab, int divisible_by, int tp, const std::string& source) {
  // Both factors are at most 10^9 (the importers' bound), so the product fits in 64 bits.
  const long long multiple = static_cast<long long>(std::max(1, divisible_by)) * std::max(1, tp);
  const long long padded = (vocab + multiple - 1) / multiple * multiple;
  if (padded > INT_MAX)
    throw ConfigError(source, "vocab_size", "padded to a multiple of make_vocab_size_divisible_by x TP (" +
                                                std::to_string(multiple) + ") it would be " + std::to_string(padded) +
                                                " tokens, more than 2147483647");
  return static_cast<int>(padded);
}

int default_ffn_hidden_size(int hidden, bool swiglu, const std::string& source) {
  const long long four_h = 4LL * hidden;
  if (four_h > INT_MAX)
    throw ConfigError(source, "ffn_hidden_size", "not given, and Megatron's default 4 x hidden_size = " +
                                                     std::to_string(four_h) + " is more than 2147483647");
  if (!swiglu) return static_cast<int>(four_h);
  return static_cast<int>(4.0 * hidden * 2.0 / 3.0 / 64.0) * 64;
}

namespace {

void require(const Imported& imp, int value, const std::string& name) {
  if (value <= 0)
    throw ConfigError(imp.source, name, "missing: the configuration does not say it and fleetsim has no default for it");
}

const char* yes(bool b) { return b ? "true" : "false"; }

}  // namespace

std::vector<int> pipeline_layer_split(const Imported& imp) {
  const bool uneven = imp.first_stage_layers > 0 || imp.last_stage_layers > 0;
  if (!uneven && !imp.embedding_as_layer && !imp.loss_as_layer) return {};
  // Megatron-core (transformer_block.get_num_layers_to_build): the first / last pipeline stage
  // gets the stated layers, the rest divide evenly over the middle stages; with
  // account_for_embedding/loss_in_pipeline_split the embedding / the loss counts as one layer of
  // the first / last model chunk, which then builds one transformer layer fewer.
  const int chunks = imp.pp * imp.vpp;
  if (uneven) {
    if (imp.vpp > 1)
      throw ConfigError(imp.source, "num_layers_in_first_pipeline_stage",
                        "an uneven first / last stage with virtual pipeline stages is not modelled; give VPP 1");
    const int first = imp.first_stage_layers, last = imp.last_stage_layers;
    const int middle = imp.pp - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
    const int rest = imp.num_layers - first - last;
    if (middle <= 0 || rest < 0 || rest % middle != 0)
      throw ConfigError(imp.source, "num_layers_in_first_pipeline_stage",
                        std::to_string(rest) + " layers left do not divide over " + std::to_string(middle) +
                            " middle pipeline stages");
    std::vector<int> split(static_cast<size_t>(imp.pp), rest / middle);
    if (first > 0) split.front() = first;
    if (last > 0) split.back() = last;
    return split;
  }
  const int extra = (imp.embedding_as_layer ? 1 : 0) + (imp.loss_as_layer ? 1 : 0);
  if (chunks <= 1 || (imp.num_layers + extra) % chunks != 0)
    throw ConfigError(imp.source, "account_for_embedding_in_pipeline_split",
                      std::to_string(imp.num_layers) + " layers + " + std::to_string(extra) +
                          " do not divide into " + std::to_string(chunks) + " model chunks");
  std::vector<int> split(static_cast<size_t>(chunks), (imp.num_layers + extra) / chunks);
  if (imp.embedding_as_layer) split.front() -= 1;
  if (imp.loss_as_layer) split.back() -= 1;
  return split;
}

std::string scenario_yaml(const Imported& imp) {
  require(imp, imp.num_layers, "num_layers");
  require(imp, imp.hidden_size, "hidden_size");
  require(imp, imp.num_attention_heads, "num_attention_heads");
  require(imp, imp.seq_length, "seq_length");
  require(imp, imp.vocab_size, "vocab_size");
  require(imp, imp.global_batch_size, "global_batch_size");
  std::ostringstream y;
  y << "# Imported by `fleetsim import` from " << imp.source << ".\n"
    << "# Complete the cluster (gpu, node, fabric" << (imp.gpus > 0 ? "" : ", gpus") << ") before running;\n"
    << "# the import notes (ignored, unsupported, unknown settings) went to stderr.\n"
    << "description: imported from " << imp.source << "\n"
    << "cluster:\n";
  if (imp.gpus > 0) y << "  gpus: " << imp.gpus << "\n";
  else y << "  # gpus: N                  # the launcher's world size\n";
  y << "  # gpu: h100-sxm-80gb        # `fleetsim list gpus`\n"
    << "  # node: dgx-h100            # `fleetsim list nodes`\n"
    << "  # fabric: llama3-clos       # `fleetsim list fabrics`\n"
    << "workload:\n"
    << "  model:\n"
    << "    num_layers: " << imp.num_layers << "\n"
    << "    hidden_size: " << imp.hidden_size << "\n"
    << "    ffn_hidden_size: " << (imp.ffn_hidden_size > 0 ? imp.ffn_hidden_size : default_ffn_hidden_size(imp.hidden_size, imp.swiglu, imp.source)) << "\n"
    << "    num_attention_heads: " << imp.num_attention_heads << "\n"
    << "    num_query_groups: " << (imp.num_query_groups > 0 ? imp.num_query_groups : imp.num_attention_heads) << "\n"
    << "    seq_length: " << imp.seq_length << "\n"
    << "    vocab_size: " << imp.vocab_size << "\n"
    << "    swiglu: " << yes(imp.swiglu) << "\n"
    << "    untie_embeddings_and_output_weights: " << yes(imp.untie_embeddings) << "\n"
    << "    dropout: " << yes(imp.dropout) << "\n";
  if (imp.num_experts > 1) {
    y << "    num_experts: " << imp.num_experts << "\n"
      << "    moe_router_topk: " << imp.moe_router_topk << "\n"
      << "    moe_capacity_factor: " << imp.moe_capacity_factor << "\n"
      << "    moe_layer_freq: " << imp.moe_layer_freq << "\n";
    if (imp.moe_ffn_hidden_size > 0) y << "    moe_ffn_hidden_size: " << imp.moe_ffn_hidden_size << "\n";
    if (imp.moe_shared_experts > 0) y << "    moe_shared_experts: " << imp.moe_shared_experts << "\n";
    if (imp.moe_router_max_nodes > 0) y << "    moe_router_max_nodes: " << imp.moe_router_max_nodes << "\n";
  }
  if (imp.mtp_depth > 0) y << "    mtp_depth: " << imp.mtp_depth << "\n";
  if (imp.kv_lora_rank > 0) {
    y << "    q_lora_rank: " << imp.q_lora_rank << "\n"
      << "    kv_lora_rank: " << imp.kv_lora_rank << "\n"
      << "    qk_nope_head_dim: " << imp.qk_nope_head_dim << "\n"
      << "    qk_rope_head_dim: " << imp.qk_rope_head_dim << "\n"
      << "    v_head_dim: " << imp.v_head_dim << "\n";
  }
  y << "  parallel:\n"
    << "    tensor_model_parallel_size: " << imp.tp << "\n"
    << "    pipeline_model_parallel_size: " << imp.pp << "\n"
    << "    virtual_pipeline_model_parallel_size: " << imp.vpp << "\n"
    << "    context_parallel_size: " << imp.cp << "\n"
    << "    expert_model_parallel_size: " << imp.ep << "\n"
    << "    sequence_parallel: " << yes(imp.sequence_parallel) << "\n"
    << "    recompute_granularity: " << imp.recompute << "\n"
    << "    use_distributed_optimizer: " << yes(imp.distributed_optimizer) << "\n"
    << "    zero_stage: " << imp.zero_stage << "\n"
    << "    overlap_grad_reduce: " << yes(imp.overlap_grad_reduce) << "\n"
    << "    overlap_param_gather: " << yes(imp.overlap_param_gather) << "\n"
    << "    tp_comm_overlap: " << yes(imp.tp_comm_overlap) << "\n"
    << "    overlap_p2p_comm: " << yes(imp.overlap_p2p_comm) << "\n";
  if (imp.tp_overlap_cfg) {
    auto list = [](const std::vector<int>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    };
    y << "    tp_comm_overlap_rs_method: " << imp.tp_overlap_rs_method << "\n";
    if (!imp.tp_overlap_rs_sms.empty()) y << "    tp_comm_overlap_rs_sms: " << list(imp.tp_overlap_rs_sms) << "\n";
    if (!imp.tp_overlap_bulk_sms.empty()) y << "    tp_comm_overlap_bulk_sms: " << list(imp.tp_overlap_bulk_sms) << "\n";
    y << "    tp_comm_overlap_aggregate: " << yes(imp.tp_overlap_aggregate) << "\n"
      << "    tp_comm_overlap_rs_fp8_buf: " << yes(imp.tp_overlap_rs_fp8_buf) << "\n";
  }
  if (imp.cpu_offloading_num_layers > 0) y << "    cpu_offloading_num_layers: " << imp.cpu_offloading_num_layers << "\n";
  if (imp.microbatch_group_size > 0) y << "    microbatch_group_size_per_vp_stage: " << imp.microbatch_group_size << "\n";
  if (!imp.rank_order.empty()) y << "    rank_order: " << imp.rank_order << "\n";
  const std::vector<int> split = pipeline_layer_split(imp);
  if (!split.empty()) {
    y << "    pipeline_layer_split: [";
    for (size_t i = 0; i < split.size(); ++i) y << (i ? ", " : "") << split[i];
    y << "]\n";
  }
  y << "  training:\n"
    << "    micro_batch_size: " << imp.micro_batch_size << "\n"
    << "    global_batch_size: " << imp.global_batch_size << "\n";
  if (imp.train_tokens > 0)
    y << "    train_tokens: "
      << input_integer<long long>(imp.train_tokens, imp.source, "train_tokens", "the tokens to train", 0, limits::kMaxTrainTokens)
      << " tokens\n";
  y << "    precision: " << imp.precision << "\n";
  if (!imp.fp8_recipe.empty()) y << "    fp8_recipe: " << imp.fp8_recipe << "\n";
  y << "    use_flash_attn: " << yes(imp.flash_attention) << "\n"
    << "    gradient_accumulation_fusion: " << yes(imp.gradient_accumulation_fusion) << "\n"
    << "    grad_reduce_in_fp32: " << yes(imp.grad_reduce_in_fp32) << "\n"
    << "    fp8_param_gather: " << yes(imp.fp8_param_gather) << "\n";
  return y.str();
}

std::string import_notes(const Imported& imp) {
  std::ostringstream o;
  auto list = [&](const char* what, const std::vector<std::string>& v) {
    for (const auto& s : v) o << "import: " << what << ": " << s << "\n";
  };
  list("unknown, not imported", imp.unknown);
  list("not modeled", imp.unsupported);
  list("assumed", imp.assumed);
  list("ignored (no effect on the iteration)", imp.ignored);
  return o.str();
}

}  // namespace fleetsim::importer
