// Kineto traces: GEMMs by shape, NCCL and unmatched GPU time (kineto.hpp).
#include "sim/calibrate/kineto.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>

#include "sim/calibrate/json_reader.hpp"
#include "sim/core/cli_guards.hpp"
#include "sim/core/error.hpp"

namespace fleetsim::calibrate {
namespace {

constexpr size_t kMaxTraceBytes = size_t{2} << 30;  // inflated

// The whole file, inflated when gzip (zlib's gzread reads plain files as they are).
std::string read_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw ConfigError(path, "", "cannot open the trace");
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxTraceBytes) {
      gzclose(f);
      throw ConfigError(path, "", "the trace inflates to more than 2 GiB");
    }
  }
  int err = 0;
  const char* msg = gzerror(f, &err);
  const bool bad = n < 0 || (err != Z_OK && err != Z_STREAM_END);
  const std::string why = bad ? std::string(msg ? msg : "read error") : "";
  gzclose(f);
  if (bad) throw ConfigError(path, "", "the gzip stream is corrupt or truncated (" + why + ")");
  return out;
}

double num(const JsonNode* n, double fallback = -1) { return n && n->is_number() ? n->number : fallback; }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The GPU model named in a device or preset name ("NVIDIA H100 80GB HBM3" -> "h100").
std::string gpu_model(const std::string& name) {
  const std::string s = lower(name);
  for (const char* m : {"gb300", "gb200", "b300", "b200", "h800", "h200", "h100", "a100", "v100", "mi300", "mi250"})
    if (s.find(m) != std::string::npos) return m;
  return "";
}

// (B, M, N, K) of a GEMM op from its Input Dims, or false.
bool gemm_shape(const std::string& op, const JsonNode& dims, TraceGemm& g) {
  auto dim = [&](size_t i, size_t j) -> long long {
    if (i >= dims.items.size() || j >= dims.items[i].items.size() || !dims.items[i].items[j].is_number()) return -1;
    return static_cast<long long>(dims.items[i].items[j].number);
  };
  auto rank = [&](size_t i) { return i < dims.items.size() ? dims.items[i].items.size() : 0; };
  if (op == "aten::mm" && rank(0) == 2 && rank(1) == 2) g.m = dim(0, 0), g.k = dim(0, 1), g.n = dim(1, 1);
  else if (op == "aten::addmm" && rank(1) == 2 && rank(2) == 2) g.m = dim(1, 0), g.k = dim(1, 1), g.n = dim(2, 1);
  else if (op == "aten::bmm" && rank(0) == 3 && rank(1) == 3) g.b = dim(0, 0), g.m = dim(0, 1), g.k = dim(0, 2), g.n = dim(1, 2);
  else return false;
  g.op = op;
  return g.b > 0 && g.m > 0 && g.n > 0 && g.k > 0;
}

}  // namespace

KinetoTrace read_kineto(const std::string& path) {
  guards::input_file(path, "--trace", "a PyTorch profiler (Kineto) trace, .json or .json.gz", std::uintmax_t{1} << 31);
  const std::string text = read_all(path);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(path, "", "the trace is empty; expected a PyTorch profiler (Kineto) JSON trace");
  const JsonNode root = parse_json(text, path);
  KinetoTrace t;
  t.file = path;
  const JsonNode* events = root.find("traceEvents");
  if (!events || events->type != JsonNode::Type::Array)
    throw ConfigError(path, "traceEvents", "missing; not a PyTorch profiler (Kineto) trace");
  if (const JsonNode* dev = root.find("deviceProperties"); dev && !dev->items.empty())
    if (const JsonNode* name = dev->items.front().find("name"); name && name->type == JsonNode::Type::String)
      t.device = name->text;

  // Launch correlation -> External id (CUDA runtime events), and External id -> shaped GEMM op.
  std::unordered_map<long long, long long> ext_of_corr;
  std::unordered_map<long long, TraceGemm> op_of_ext;
  for (const auto& e : events->items) {
    const JsonNode* cat = e.find("cat");
    const JsonNode* args = e.find("args");
    if (!cat || cat->type != JsonNode::Type::String || !args) continue;
    if (cat->text == "cuda_runtime") {
      const double c = num(args->find("correlation")), x = num(args->find("External id"));
      if (c >= 0 && x >= 0) ext_of_corr[static_cast<long long>(c)] = static_cast<long long>(x);
    } else if (cat->text == "cpu_op") {
      const JsonNode* name = e.find("name");
      const JsonNode* dims = args->find("Input Dims");
      const double x = num(args->find("External id"));
      TraceGemm g;
      if (name && dims && x >= 0 && gemm_shape(name->text, *dims, g)) {
        if (const JsonNode* types = args->find("Input type"); types && types->type == JsonNode::Type::Array) {
          const size_t a = name->text == "aten::addmm" ? 1 : 0;
          if (a < types->items.size()) g.dtype = types->items[a].text;
        }
        op_of_ext[static_cast<long long>(x)] = g;
      }
    }
  }
  // GPU time per GEMM op instance (its kernels and memsets), NCCL, and the total.
  std::unordered_map<long long, double> time_of_ext;
  for (const auto& e : events->items) {
    const JsonNode* cat = e.find("cat");
    if (!cat || cat->type != JsonNode::Type::String) continue;
    if (cat->text != "kernel" && cat->text != "gpu_memset" && cat->text != "gpu_memcpy") continue;
    const double dur = num(e.find("dur"));
    if (dur < 0) throw ConfigError(path, "traceEvents", "a GPU event without a duration (dur)");
    ++t.kernels;
    t.gpu_time_us += dur;
    const JsonNode* name = e.find("name");
    if (name && name->text.find("nccl") != std::string::npos) t.nccl_time_us += dur;
    const JsonNode* args = e.find("args");
    double x = args ? num(args->find("External id")) : -1;
    if (x < 0 && args)
      if (const double c = num(args->find("correlation")); c >= 0)
        if (auto it = ext_of_corr.find(static_cast<long long>(c)); it != ext_of_corr.end()) x = static_cast<double>(it->second);
    if (x >= 0 && op_of_ext.count(static_cast<long long>(x))) time_of_ext[static_cast<long long>(x)] += dur;
  }
  if (t.kernels == 0)
    throw ConfigError(path, "traceEvents", "no GPU kernel in the trace (profile with activities CPU and CUDA)");
  // Group the instances by shape.
  std::map<std::tuple<std::string, long long, long long, long long, long long>, TraceGemm> by_shape;
  for (const auto& [x, us] : time_of_ext) {
    const TraceGemm& g = op_of_ext.at(x);
    TraceGemm& s = by_shape[{g.op, g.b, g.m, g.n, g.k}];
    if (s.count == 0) s = g;
    s.count += 1;
    s.gpu_time_us_sum += us;
    s.tflops_mean += 2.0 * static_cast<double>(g.b) * g.m * g.n * g.k / (us * 1e-6) / 1e12;
    t.gemm_time_us += us;
  }
  for (auto& [key, g] : by_shape) {
    g.tflops_mean /= g.count;
    g.gpu_time_us_mean = g.gpu_time_us_sum / g.count;
    t.gemms.push_back(g);
  }
  std::stable_sort(t.gemms.begin(), t.gemms.end(),
                   [](const TraceGemm& a, const TraceGemm& b) { return a.gpu_time_us_sum > b.gpu_time_us_sum; });
  return t;
}

void check_trace_gpu(const KinetoTrace& t, const GpuSpec& gpu) {
  const std::string traced = gpu_model(t.device), base = gpu_model(gpu.name);
  if (t.device.empty())
    throw ConfigError(t.file, "deviceProperties", "the trace names no GPU (deviceProperties[0].name); cannot check it is a " +
                                                      gpu.name);
  if (traced != base)
    throw ConfigError(t.file, "deviceProperties", "the trace ran on '" + t.device + "' but the base scenario's GPU is " +
                                                      gpu.name + "; give a trace of the same GPU type or --base a scenario with its GPU");
}

}  // namespace fleetsim::calibrate
