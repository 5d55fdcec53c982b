// The models never include the layers above them (DESIGN.md §2; issue 30): no file under
// sim/step, sim/run, sim/facility or sim/pool includes anything from the consumers that call the
// models -- sim/pipeline (a scenario through step, run and facility), sim/app (the CLI),
// sim/reproduce (published cases), sim/search, sim/sweep, sim/plan, sim/uncertainty (intervals). A published case that needs
// the run-level pipeline belongs in sim/reproduce, not in a model folder.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

const char* const kModelFolders[] = {"sim/step", "sim/run", "sim/facility", "sim/pool", "sim/serving"};

const char* const kLayersAbove[] = {"pipeline", "app", "reproduce", "search", "sweep", "plan", "uncertainty"};

// The path of an `#include "sim/<layer>/..."` (or <...>) for a layer above the models, or "".
// Parsed by hand rather than with std::regex: GCC 12 under -fsanitize=address reports a false
// -Wmaybe-uninitialized inside libstdc++'s regex compiler (see CMakeLists.txt, tests/main.cpp).
std::string upward_include(const std::string& line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return "";
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0) return "";
  i = line.find_first_not_of(" \t", i + 7);
  if (i == std::string::npos || (line[i] != '"' && line[i] != '<')) return "";
  const std::size_t end = line.find_first_of("\">", i + 1);
  if (end == std::string::npos) return "";
  const std::string path = line.substr(i + 1, end - i - 1);
  for (const char* layer : kLayersAbove)
    if (path.rfind("sim/" + std::string(layer) + "/", 0) == 0) return path;
  return "";
}

// Every upward include of a file: "line N: <path>".
std::vector<std::string> upward_includes(std::istream& in) {
  std::vector<std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string path = upward_include(line);
    if (!path.empty()) out.push_back("line " + std::to_string(n) + ": " + path);
  }
  return out;
}

}  // namespace

TEST_CASE("the include scanner finds an upward include and ignores the models' own", "[unit][layering]") {
  std::istringstream bad("#include \"sim/step/step_model.hpp\"\n  #  include <sim/pipeline/run_pipeline.hpp>\n"
                         "// #include \"sim/app/command.hpp\" in a comment on the next line is fine\n"
                         "#include \"sim/reproduce/case.hpp\"\n");
  const auto found = upward_includes(bad);
  REQUIRE(found.size() == 2);
  CHECK(found[0] == "line 2: sim/pipeline/run_pipeline.hpp");
  CHECK(found[1] == "line 4: sim/reproduce/case.hpp");
  std::istringstream good("#include \"sim/config/load.hpp\"\n#include \"sim/results/report.hpp\"\n");
  CHECK(upward_includes(good).empty());
}

TEST_CASE("no file under the model folders includes sim/pipeline, sim/app, sim/reproduce or another consumer",
          "[unit][layering]") {
  const fs::path root = fleetsim::testing::source_dir();
  std::vector<std::string> offending;
  for (const char* folder : kModelFolders) {
    const fs::path dir = root / folder;
    REQUIRE(fs::is_directory(dir));
    int sources = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
      ++sources;
      std::ifstream in(e.path());
      REQUIRE(in);
      for (const auto& hit : upward_includes(in))
        offending.push_back(fs::relative(e.path(), root).string() + " " + hit);
    }
    INFO(folder);
    CHECK(sources > 0);  // the scan saw the folder's sources (a moved folder must move this list too)
  }
  for (const auto& o : offending) UNSCOPED_INFO(o);
  CHECK(offending.empty());
}
