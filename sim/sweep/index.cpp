#include "sim/sweep/index.hpp"

#include <H5Cpp.h>

#include <charconv>
#include <cmath>
#include <mutex>
#include <stdexcept>

namespace fleetsim::sweep {
namespace {

// H5Lexists needs every intermediate group to exist; walk the path one component at a time.
bool path_exists(H5::H5File& f, const std::string& path) {
  size_t pos = 1;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    std::string prefix = path.substr(0, slash);
    if (H5Lexists(f.getId(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return true;
}

}  // namespace

std::mutex& hdf5_mutex() {
  static std::mutex m;
  return m;
}

const std::vector<Headline>& headlines() {
  static const std::vector<Headline> h = {
      {"mfu", "step.mfu", false},
      {"iteration_time_s", "step.iteration_time_s", false},
      {"memory_per_gpu_gib", "step.memory_per_gpu_gib", false},
      {"single_gpu_efficiency", "facility.effective_utilization.factors.single_gpu_efficiency", false},
      {"parallel_scaling_efficiency", "facility.effective_utilization.factors.parallel_scaling_efficiency", false},
      {"ettr", "run.ettr", true},
      {"mtti_hours", "run.mtti_hours", false},
      {"interruptions_unexpected", "run.interruptions.unexpected", true},
      {"wall_clock_days", "run.wall_clock_days", true},
      {"tokens_trained", "run.tokens_trained", true},
      {"pue_mean", "facility.pue_mean", true},
      {"facility_energy_mwh", "facility.facility_energy_mwh", true},
      {"effective_utilization", "facility.effective_utilization.value", true},
  };
  return h;
}

std::vector<std::string> headline_columns() {
  std::vector<std::string> cols;
  for (const auto& h : headlines()) {
    cols.push_back(h.column);
    if (h.band) {
      cols.push_back(h.column + "_p05");
      cols.push_back(h.column + "_p95");
    }
  }
  return cols;
}

std::vector<std::optional<double>> read_headlines(const std::string& h5_path) {
  std::lock_guard lock(hdf5_mutex());
  H5::Exception::dontPrint();
  std::vector<std::optional<double>> out;
  try {
    H5::H5File f(h5_path, H5F_ACC_RDONLY);
    for (const auto& h : headlines()) {
      std::string path = "/metrics/" + h.metric;
      for (auto& c : path) if (c == '.') c = '/';
      std::vector<double> v;
      if (path_exists(f, path)) {
        H5::DataSet ds = f.openDataSet(path);
        if (ds.getTypeClass() == H5T_FLOAT) {
          H5::DataSpace space = ds.getSpace();
          hssize_t n = space.getSimpleExtentNpoints();
          if (n > 0) {
            v.resize(static_cast<size_t>(n));
            ds.read(v.data(), H5::PredType::NATIVE_DOUBLE);
          }
        }
      }
      auto cell = [&](size_t i) -> std::optional<double> {
        if (i < v.size() && std::isfinite(v[i])) return v[i];
        return std::nullopt;
      };
      out.push_back(cell(0));
      if (h.band) {
        out.push_back(v.size() >= 3 ? cell(1) : std::nullopt);
        out.push_back(v.size() >= 3 ? cell(2) : std::nullopt);
      }
    }
  } catch (const H5::Exception& e) {
    throw std::runtime_error("cannot read results file '" + h5_path + "': " + e.getDetailMsg());
  }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += "\"\"";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out + "\"";
}

std::string csv_number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "";
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, *v);
  return std::string(buf, ptr);
}

void write_index(std::ostream& out, const std::vector<std::string>& keys, const std::vector<PointRow>& rows) {
  const auto cols = headline_columns();
  out << "point,file";
  for (const auto& k : keys) out << ',' << csv_field(k);
  out << ",status,error";
  for (const auto& c : cols) out << ',' << c;
  out << '\n';
  for (const auto& r : rows) {
    out << r.point->index << ',' << csv_field(r.point->file);
    for (const auto& k : keys) {
      std::string v;
      for (const auto& [pk, pv] : r.point->values)
        if (pk == k) v = pv;
      out << ',' << csv_field(v);
    }
    out << ',' << r.status << ',' << csv_field(r.error);
    for (size_t i = 0; i < cols.size(); ++i) out << ',' << (i < r.values.size() ? csv_number(r.values[i]) : "");
    out << '\n';
  }
}

}  // namespace fleetsim::sweep
