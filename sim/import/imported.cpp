#include "sim/import/imported.hpp"

#include <algorithm>
#include <climits>
#include <sstream>

#include "sim/core/error.hpp"

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
    << "    untie_embeddings_and_output_weights: " << yes(imp.untie_embeddings) << "\n";
  if (imp.num_experts > 1) {
    y << "    num_experts: " << imp.num_experts << "\n"
      << "    moe_router_topk: " << imp.moe_router_topk << "\n"
      << "    moe_capacity_factor: " << imp.moe_capacity_factor << "\n"
      << "    moe_layer_freq: " << imp.moe_layer_freq << "\n";
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
    << "  training:\n"
    << "    micro_batch_size: " << imp.micro_batch_size << "\n"
    << "    global_batch_size: " << imp.global_batch_size << "\n"
    << "    precision: " << imp.precision << "\n"
    << "    use_flash_attn: " << yes(imp.flash_attention) << "\n";
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
