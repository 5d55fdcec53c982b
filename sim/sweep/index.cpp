#include "sim/sweep/index.hpp"

#include <H5Cpp.h>

#include <charconv>
#include <cmath>
#include <mutex>
#include <iterator>
#include <stdexcept>

#include "sim/uncertainty/step_interval.hpp"

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
      {"mfu", "step.mfu", false, true},
      {"iteration_time_s", "step.iteration_time_s", false, true},
      {"memory_per_gpu_gib", "step.memory_per_gpu_gib", false},
      {"single_gpu_efficiency", "facility.effective_utilization.factors.single_gpu_efficiency", false, true},
      {"parallel_scaling_efficiency", "facility.effective_utilization.factors.parallel_scaling_efficiency", false, true},
      {"ettr", "run.ettr", true, true},
      {"mtti_hours", "run.mtti_hours", false},
      {"interruptions_unexpected", "run.interruptions.unexpected", true},
      {"wall_clock_days", "run.wall_clock_days", true, true},
      {"tokens_trained", "run.tokens_trained", true, true},
      {"pue_mean", "facility.pue_mean", true, true},
      {"facility_energy_mwh", "facility.facility_energy_mwh", true},
      {"effective_utilization", "facility.effective_utilization.value", true, true},
  };
  return h;
}

namespace {
constexpr uncertainty::Grade kGrades[] = {uncertainty::Grade::Calibrated, uncertainty::Grade::Transferred,
                                          uncertainty::Grade::Extrapolated, uncertainty::Grade::Uncalibrated};

std::optional<double> number_attribute(const H5::H5Object& o, const char* name) {
  if (!o.attrExists(name)) return std::nullopt;
  H5::Attribute a = o.openAttribute(name);
  if (a.getTypeClass() != H5T_FLOAT && a.getTypeClass() != H5T_INTEGER) return std::nullopt;
  double v = 0;
  a.read(H5::PredType::NATIVE_DOUBLE, &v);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> grade_attribute(const H5::H5Object& o) {
  if (!o.attrExists("provenance_grade")) return std::nullopt;
  H5::Attribute a = o.openAttribute("provenance_grade");
  if (a.getTypeClass() != H5T_STRING) return std::nullopt;
  std::string text;
  a.read(a.getStrType(), text);
  for (size_t i = 0; i < std::size(kGrades); ++i)
    if (text == uncertainty::grade_name(kGrades[i])) return static_cast<double>(i);
  return std::nullopt;
}
}  // namespace

std::string grade_text(const std::optional<double>& code) {
  if (!code || *code < 0 || *code >= static_cast<double>(std::size(kGrades))) return "";
  return uncertainty::grade_name(kGrades[static_cast<size_t>(*code)]);
}

std::vector<std::string> headline_columns() {
  std::vector<std::string> cols;
  for (const auto& h : headlines()) {
    cols.push_back(h.column);
    if (h.band) {
      cols.push_back(h.column + "_p05");
      cols.push_back(h.column + "_p95");
    }
    if (h.interval) {
      cols.push_back(h.column + "_lo");
      cols.push_back(h.column + "_hi");
    }
  }
  cols.insert(cols.end(), {"interval_level", "replications", "provenance_grade"});
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
      std::optional<double> lo, hi;
      if (path_exists(f, path)) {
        H5::DataSet ds = f.openDataSet(path);
        lo = number_attribute(ds, "interval_lo");
        hi = number_attribute(ds, "interval_hi");
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
      if (h.interval) {
        out.push_back(lo);
        out.push_back(hi);
      }
    }
    // The level (every interval of a point has the run's --level), the replications the run used,
    // the run section's grade.
    std::optional<double> level, replications, grade;
    if (path_exists(f, "/metrics/step/iteration_time_s"))
      level = number_attribute(f.openDataSet("/metrics/step/iteration_time_s"), "interval_level");
    if (path_exists(f, "/meta")) replications = number_attribute(f.openGroup("/meta"), "replications");
    if (path_exists(f, "/metrics/run")) grade = grade_attribute(f.openGroup("/metrics/run"));
    out.insert(out.end(), {level, replications, grade});
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
    for (size_t i = 0; i < cols.size(); ++i) {
      out << ',';
      if (i < r.values.size()) out << (cols[i] == "provenance_grade" ? grade_text(r.values[i]) : csv_number(r.values[i]));
    }
    out << '\n';
  }
}

}  // namespace fleetsim::sweep
