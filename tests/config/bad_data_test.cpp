// A published data file that is missing or corrupt is bad input like a bad scenario: `fleetsim
// validate` exits 2 and names the file, the line and the column (tests/config/bad_data/cases.csv,
// one mutation of a copy of data/ per row). Runs the binary against a scratch FLEETSIM_HOME whose
// models/, scenarios/ and sim/ link to the checkout and whose data/ is a copy.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/csv.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

using fleetsim::testing::Outcome;

Outcome run_validate(const fs::path& home, const std::string& only) {
  const std::string cmd = "FLEETSIM_HOME='" + home.string() + "' '" + fleetsim::testing::fleetsim_binary() +
                          "' validate --only " + only + " 2>&1";
  return fleetsim::testing::run_shell(cmd);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// Applies one corpus mutation to the file at `target` (a copy).
void mutate(const fs::path& target, const std::string& mutation, const std::string& argument) {
  if (mutation == "delete") {
    fs::remove(target);
  } else if (mutation == "empty") {
    write_file(target, "");
  } else if (mutation == "truncate") {
    write_file(target, read_file(target).substr(0, std::stoul(argument)));
  } else if (mutation == "directory") {
    fs::remove(target);
    fs::create_directory(target);
  } else if (mutation == "rename_column") {  // OLD:NEW in the header line
    const auto colon = argument.find(':');
    std::string text = read_file(target);
    const auto eol = text.find('\n');
    std::string header = text.substr(0, eol);
    const auto at = header.find(argument.substr(0, colon));
    REQUIRE(at != std::string::npos);
    header.replace(at, colon, argument.substr(colon + 1));
    write_file(target, header + text.substr(eol));
  } else if (mutation == "set_cell") {  // ROW:COLUMN:VALUE, ROW counted from the first data row (1)
    const auto c1 = argument.find(':'), c2 = argument.find(':', c1 + 1);
    const size_t row = std::stoul(argument.substr(0, c1));
    const std::string column = argument.substr(c1 + 1, c2 - c1 - 1), value = argument.substr(c2 + 1);
    const fleetsim::CsvTable t = fleetsim::read_csv(target.string());
    std::istringstream in(read_file(target));
    std::string line, out;
    for (size_t i = 0; std::getline(in, line); ++i) {
      if (i == row) {
        auto fields = fleetsim::split_csv_line(line);
        for (size_t k = 0; k < t.header.size(); ++k)
          if (t.header[k] == column) fields[k] = value;
        line.clear();
        for (size_t k = 0; k < fields.size(); ++k) line += (k ? "," : "") + ("\"" + fields[k] + "\"");
      }
      out += line + "\n";
    }
    write_file(target, out);
  } else {
    FAIL("unknown mutation '" << mutation << "' in the bad-data corpus");
  }
}

}  // namespace

TEST_CASE("every corrupt data file in the corpus is refused with exit 2, naming file, line and column", "[config]") {
  const fs::path src = fleetsim::testing::source_dir();
  const fleetsim::CsvTable corpus = fleetsim::read_csv((src / "tests/config/bad_data/cases.csv").string());
  const fs::path home = fs::temp_directory_path() / ("fleetsim-bad-data-" + std::to_string(getpid()));
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string name = corpus.at(i, "name");
    fs::remove_all(home);
    fs::create_directories(home);
    for (const char* linked : {"models", "scenarios", "sim"}) fs::create_directory_symlink(src / linked, home / linked);
    fs::copy(src / "data", home / "data", fs::copy_options::recursive);
    mutate(home / "data" / corpus.at(i, "file"), corpus.at(i, "mutation"), corpus.at(i, "argument"));

    const Outcome o = run_validate(home, corpus.at(i, "validate_only"));
    INFO("case '" << name << "': exit " << o.code << "\n" << o.out);
    CHECK(o.code == 2);
    CHECK(o.out.find(corpus.at(i, "expect")) != std::string::npos);
    CHECK(o.out.find("internal error") == std::string::npos);
  }
  fs::remove_all(home);
  CHECK(corpus.size() >= 10);
}
