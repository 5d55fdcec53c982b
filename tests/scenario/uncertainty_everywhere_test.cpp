// Issue 25, "everywhere a number is shown": the waterfall's five factors and product in `run
// --json`, `pool --json` and a sweep's index.csv carry intervals around their values and a
// provenance grade; a sweep's `--replications auto` decides each point's count as `run` would and
// says it. (The HDF5 attributes and the figures' bands: tests/analysis/test_interval_bands.py.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

fleetsim::testing::Outcome fleetsim_cmd(const std::string& args, bool merge_stderr = true) {
  return fleetsim::testing::run_shell("timeout 300 " + fleetsim::testing::fleetsim_binary() + " " + args +
                                      (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

// The number after `"name": ` at or after `from` in a JSON text.
double number_after(const std::string& s, const std::string& name, size_t from) {
  const auto at = s.find("\"" + name + "\": ", from);
  REQUIRE(at != std::string::npos);
  return std::stod(s.substr(at + name.size() + 4));
}

// KEY's value (its mean when a statistic) and KEY_interval's lo and hi, searched from `from`.
struct Checked {
  double value = 0, lo = 0, hi = 0, level = 0;
};
Checked value_and_interval(const std::string& s, const std::string& key, size_t from) {
  const auto k = s.find("\"" + key + "\": ", from);
  INFO(key);
  REQUIRE(k != std::string::npos);
  const bool stat = s.compare(k + key.size() + 4, 1, "{") == 0;
  Checked c;
  c.value = stat ? number_after(s, "mean", k) : number_after(s, key, k);
  const auto i = s.find("\"" + key + "_interval\": {", k);
  REQUIRE(i != std::string::npos);
  c.lo = number_after(s, "lo", i);
  c.hi = number_after(s, "hi", i);
  c.level = number_after(s, "level", i);
  return c;
}

void check_inside(const Checked& c, const std::string& what) {
  INFO(what << ": " << c.lo << " <= " << c.value << " <= " << c.hi);
  CHECK(c.lo <= c.value * (1 + 1e-12));
  CHECK(c.value <= c.hi * (1 + 1e-12));
}

std::string without_host(const std::string& json) { return json.substr(0, json.find("\"host\"")); }

std::vector<std::map<std::string, std::string>> read_index(const fs::path& csv) {
  std::ifstream in(csv);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::stringstream ss(l);
    std::string cell;
    while (std::getline(ss, cell, ',')) out.push_back(cell);
    if (!l.empty() && l.back() == ',') out.emplace_back();
    return out;
  };
  if (std::getline(in, line)) header = split(line);
  while (std::getline(in, line)) {
    const auto cells = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("fleetsim_unc_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(d);
  return d;
}

}  // namespace

TEST_CASE("run --json: each of the waterfall's five factors and their product carry an interval around the value",
          "[scenario][uncertainty]") {
  const auto r = fleetsim_cmd("run --json --replications 4 --set run.duration=5d --level 0.9", false);
  REQUIRE(r.code == 0);
  const auto factors = r.out.find("\"factors\": {");
  REQUIRE(factors != std::string::npos);
  for (const char* key : {"energy_efficiency", "single_gpu_efficiency", "parallel_scaling_efficiency", "ettr",
                          "resource_utilization"}) {
    const Checked c = value_and_interval(r.out, key, factors);
    check_inside(c, key);
    CHECK(c.level == 0.9);
    CHECK(c.hi <= 1.0);
  }
  const auto eu = r.out.find("\"effective_utilization\": {");
  REQUIRE(eu != std::string::npos);
  const Checked product = value_and_interval(r.out, "value", eu);
  check_inside(product, "effective utilization");
  // The product's interval holds the step model's error once: wider than the MFU factors' own
  // relative width would allow if it were missing, narrower than multiplying all five intervals.
  const Checked gpu = value_and_interval(r.out, "single_gpu_efficiency", factors);
  CHECK(product.hi / product.lo >= gpu.hi / gpu.lo * (1 - 1e-9));
  const Checked pue = value_and_interval(r.out, "pue_mean", r.out.find("\"facility\": {"));
  check_inside(pue, "PUE");
  // Deterministic for a seed.
  const auto again = fleetsim_cmd("run --json --replications 4 --set run.duration=5d --level 0.9", false);
  CHECK(without_host(again.out) == without_host(r.out));
  // The console block shows the factors.
  const auto text = fleetsim_cmd("run --replications 4 --set run.duration=5d");
  REQUIRE(text.code == 0);
  CHECK(text.out.find("= 1/PUE [") != std::string::npos);
}

TEST_CASE("pool --json: the shares and losses carry their replications' interval and the section one provenance",
          "[scenario][uncertainty][pool]") {
  const std::string pool = fleetsim::testing::source_dir() + "/tests/unit/pool_small.yaml --set pool.duration=1d ";
  const auto p = fleetsim_cmd("pool " + pool + "--replications 5 --json --level 0.9", false);
  REQUIRE(p.code == 0);
  INFO(p.out.substr(0, 3000));
  for (const char* key : {"allocation_share", "fragmentation_share", "slo_attainment", "topology_compact_share"}) {
    const Checked c = value_and_interval(p.out, key, 0);
    check_inside(c, key);
    CHECK(c.level == 0.9);
  }
  const auto lost = p.out.find("\"gpu_hours_lost\": {");
  REQUIRE(lost != std::string::npos);
  check_inside(value_and_interval(p.out, "idle", lost), "gpu_hours_lost.idle");
  CHECK(p.out.find("\"provenance\": {") != std::string::npos);
  CHECK(p.out.find("\"grade\": \"") != std::string::npos);
  CHECK(p.out.find("Helios") != std::string::npos);
  const auto again = fleetsim_cmd("pool " + pool + "--replications 5 --json --level 0.9", false);
  CHECK(without_host(again.out) == without_host(p.out));
  const auto text = fleetsim_cmd("pool " + pool + "--replications 2");
  REQUIRE(text.code == 0);
  CHECK(text.out.find("80% intervals") != std::string::npos);
  CHECK(text.out.find("provenance: ") != std::string::npos);
  for (const char* bad : {"--level 1", "--level 0"}) {
    const auto b = fleetsim_cmd("pool " + pool + "--replications 1 " + bad);
    INFO(bad << ": " << b.out);
    CHECK(b.code == 2);
    CHECK(b.out.find("--level") != std::string::npos);
  }
}

TEST_CASE("a sweep's index carries each point's intervals and grade, replications auto decides per point as run does, "
          "says how many, and is deterministic", "[scenario][uncertainty][sweep]") {
  const std::string common = "--vary failures.rate_scale=1,2 --set run.duration=5d --replications auto --precision 0.003";
  const fs::path a = fresh_dir("sweep_a"), b = fresh_dir("sweep_b");
  const auto sa = fleetsim_cmd("sweep " + common + " -j 1 -o " + a.string());
  INFO(sa.out);
  REQUIRE(sa.code == 0);
  const auto rows = read_index(a / "index.csv");
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    INFO("point " << row.at("point"));
    REQUIRE(row.at("status") == "ok");
    for (const char* col : {"mfu", "iteration_time_s", "ettr", "wall_clock_days", "effective_utilization",
                            "single_gpu_efficiency", "parallel_scaling_efficiency", "pue_mean"}) {
      INFO(col);
      REQUIRE(!row.at(std::string(col) + "_lo").empty());
      const double v = std::stod(row.at(col)), lo = std::stod(row.at(std::string(col) + "_lo")),
                   hi = std::stod(row.at(std::string(col) + "_hi"));
      CHECK(lo <= v * (1 + 1e-12));
      CHECK(v <= hi * (1 + 1e-12));
    }
    CHECK(row.at("interval_level") == "0.8");
    CHECK(!row.at("provenance_grade").empty());
    // The count auto chose equals what `run --replications auto` chooses for that point alone.
    const int used = std::stoi(row.at("replications"));
    CHECK(used >= 20);
    const auto r = fleetsim_cmd("run --json --set run.duration=5d --replications auto --precision 0.003 --set "
                                "failures.rate_scale=" + row.at("failures.rate_scale"), false);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("\"used\": " + std::to_string(used) + ",") != std::string::npos);
  }
  // Deterministic: two points at a time give the same index, byte for byte.
  const auto sb = fleetsim_cmd("sweep " + common + " -j 2 -o " + b.string());
  REQUIRE(sb.code == 0);
  CHECK(read_file(a / "index.csv") == read_file(b / "index.csv"));
  fs::remove_all(a);
  fs::remove_all(b);
  // Bad input names the flag.
  const fs::path c = fresh_dir("sweep_bad");
  for (const std::string bad : {"--replications many", "--level 1.5", "--level x"}) {
    const auto o = fleetsim_cmd("sweep --vary failures.rate_scale=1 " + bad + " -o " + c.string());
    INFO(bad << ": " << o.out);
    CHECK(o.code == 2);
    CHECK(o.out.find(bad.substr(0, bad.find(' '))) != std::string::npos);
  }
  fs::remove_all(c);
}
