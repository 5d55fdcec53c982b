#include "sim/results/hdf5_writer.hpp"

#include <H5Cpp.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "sim/core/build_info.hpp"
#include "sim/core/error.hpp"

namespace fleetsim {
namespace {

void string_attribute(H5::H5Object& obj, const std::string& name, const std::string& value) {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  H5::Attribute a = obj.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
  const char* c = value.c_str();
  a.write(type, &c);
}

void number_attribute(H5::H5Object& obj, const std::string& name, double value) {
  H5::Attribute a = obj.createAttribute(name, H5::PredType::NATIVE_DOUBLE, H5::DataSpace(H5S_SCALAR));
  a.write(H5::PredType::NATIVE_DOUBLE, &value);
}

// Object creation properties without modification times, so the same results give the same
// bytes (a sweep run on MPI ranks equals the one-process sweep file for file).
H5::DSetCreatPropList untimed() {
  H5::DSetCreatPropList p;
  H5Pset_obj_track_times(p.getId(), false);
  return p;
}

// Opens or creates each group along a slash-separated path ("/metrics/run").
H5::Group group_at(H5::H5File& file, const std::string& path) {
  std::string prefix;
  size_t start = 1;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    prefix = path.substr(0, slash);
    if (!file.nameExists(prefix)) {
      const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
      H5Pset_obj_track_times(gcpl, false);
      const hid_t g = H5Gcreate2(file.getId(), prefix.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
      H5Pclose(gcpl);
      if (g < 0) throw H5::GroupIException("group_at", "cannot create group " + prefix);
      H5Gclose(g);
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return file.openGroup(prefix.empty() ? "/" : prefix);
}

void write_doubles(H5::Group& g, const std::string& name, const std::vector<double>& v) {
  hsize_t n = v.size();
  H5::DataSpace space(1, &n);
  H5::DataSet ds = g.createDataSet(name, H5::PredType::NATIVE_DOUBLE, space, untimed());
  if (n) ds.write(v.data(), H5::PredType::NATIVE_DOUBLE);
}

void write_strings(H5::Group& g, const std::string& name, const std::vector<std::string>& v) {
  hsize_t n = v.size();
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  H5::DataSpace space(1, &n);
  H5::DataSet ds = g.createDataSet(name, type, space, untimed());
  std::vector<const char*> ptrs;
  for (const auto& s : v) ptrs.push_back(s.c_str());
  if (n) ds.write(ptrs.data(), type);
}

}  // namespace

struct ResultsFile::Impl {
  explicit Impl(const std::string& p) : file(p, H5F_ACC_TRUNC) {}
  H5::H5File file;
};

ResultsFile::ResultsFile(std::string path, std::string option)
    : file_(std::make_unique<AtomicFile>(std::move(path), std::move(option), "the results file")) {
  H5::Exception::dontPrint();
  try {
    impl_ = std::make_unique<Impl>(file_->temporary());
  } catch (const H5::Exception& e) {
    // A path the user gave that cannot be written (no such folder, no permission): bad input.
    throw ConfigError(file_->path(), "", "cannot create the results file here (" + e.getDetailMsg() +
                                             "); check that the folder exists and is writable");
  }
}

ResultsFile::~ResultsFile() {
  if (impl_) {
    try {
      impl_->file.close();  // before the AtomicFile removes an uncommitted temporary
    } catch (...) {
    }
  }
}

void ResultsFile::write_meta(const RunMeta& meta) {
  H5::Group g = group_at(impl_->file, "/meta");
  number_attribute(g, "schema_version", kSchemaVersion);
  string_attribute(g, "fleetsim_version", fleetsim_version());
  string_attribute(g, "git_revision", git_revision());
  string_attribute(g, "scenario_file", meta.scenario_file);
  number_attribute(g, "seed", static_cast<double>(meta.seed));
  number_attribute(g, "replications", meta.replications);
  string_attribute(g, "command", meta.command);
  write_strings(g, "resolved_scenario", {meta.resolved_scenario});
}

void ResultsFile::write_metrics(const Report& report) {
  for (const auto& e : report.entries()) {
    std::string path = "/metrics/" + e.name;
    for (auto& c : path) if (c == '.') c = '/';
    size_t slash = path.rfind('/');
    H5::Group g = group_at(impl_->file, path.substr(0, slash));
    std::string leaf = path.substr(slash + 1);
    if (const double* d = std::get_if<double>(&e.value)) {
      write_doubles(g, leaf, {*d});
    } else if (const Stat* s = std::get_if<Stat>(&e.value)) {
      write_doubles(g, leaf, {s->mean, s->p05, s->p95});
      H5::DataSet ds = g.openDataSet(leaf);
      string_attribute(ds, "fields", "mean,p05,p95");
    } else if (const bool* b = std::get_if<bool>(&e.value)) {
      write_doubles(g, leaf, {*b ? 1.0 : 0.0});
    } else {
      write_strings(g, leaf, {std::get<std::string>(e.value)});
    }
    H5::DataSet ds = g.openDataSet(leaf);
    string_attribute(ds, "unit", std::string(e.def->unit));
    string_attribute(ds, "description", std::string(e.def->description));
  }
}

void ResultsFile::write_table(const std::string& table, const std::vector<Column>& columns,
                              const std::string& description) {
  H5::Group g = group_at(impl_->file, "/" + table);
  string_attribute(g, "description", description);
  for (const auto& c : columns) {
    if (const auto* d = std::get_if<std::vector<double>>(&c.values)) write_doubles(g, c.name, *d);
    else write_strings(g, c.name, std::get<std::vector<std::string>>(c.values));
    H5::DataSet ds = g.openDataSet(c.name);
    string_attribute(ds, "unit", c.unit);
    string_attribute(ds, "description", c.description);
  }
}

namespace {
// The dataset or group of a metric's dotted name under /metrics.
template <class F>
void with_metric_object(H5::H5File& file, const std::string& dotted, F f) {
  std::string path = "/metrics/" + dotted;
  for (auto& c : path) if (c == '.') c = '/';
  const size_t slash = path.rfind('/');
  H5::Group parent = group_at(file, path.substr(0, slash));
  const std::string leaf = path.substr(slash + 1);
  if (parent.nameExists(leaf) && parent.childObjType(leaf) == H5O_TYPE_DATASET) {
    H5::DataSet ds = parent.openDataSet(leaf);
    f(ds);
  } else {
    H5::Group g = group_at(file, path);
    f(g);
  }
}
}  // namespace

void ResultsFile::metric_attribute(const std::string& dotted, const std::string& name, double value) {
  with_metric_object(impl_->file, dotted, [&](H5::H5Object& o) { number_attribute(o, name, value); });
}

void ResultsFile::metric_attribute(const std::string& dotted, const std::string& name, const std::string& value) {
  with_metric_object(impl_->file, dotted, [&](H5::H5Object& o) { string_attribute(o, name, value); });
}

void ResultsFile::commit() {
  impl_->file.flush(H5F_SCOPE_GLOBAL);
  impl_->file.close();
  file_->commit();
}

}  // namespace fleetsim
