#include "sim/core/csv.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "sim/core/error.hpp"

namespace fleetsim {
namespace {

// Published tables are a few hundred kB; anything far larger is not one of ours.
constexpr std::uintmax_t kMaxCsvBytes = 64ull << 20;

const char* kRestoreHint =
    "the published tables ship with fleetsim in data/validation/ (restore the file from the "
    "repository, or point FLEETSIM_HOME at a complete copy)";

std::string column_list(const std::vector<std::string>& header) {
  std::string out;
  for (const auto& h : header) out += (out.empty() ? "" : ", ") + h;
  return out;
}

}  // namespace

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (ch == '"') quoted = false;
      else cur += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  out.push_back(std::move(cur));
  return out;
}

CsvTable read_csv(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw ConfigError(path, "", std::string("data file is missing; ") + kRestoreHint);
  if (!fs::is_regular_file(status))
    throw ConfigError(path, "", "data file is not a regular file (a CSV file is expected)");
  if (fs::file_size(path, ec) > kMaxCsvBytes)
    throw ConfigError(path, "", "data file is larger than 64 MiB; not a published table");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path, "", std::string("cannot read data file: ") + std::strerror(errno));

  CsvTable t;
  t.path = path;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1 && line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (line.empty() || line == "\r") continue;
    auto fields = split_csv_line(line);
    if (t.header.empty()) {
      t.header = std::move(fields);
      continue;
    }
    if (fields.size() != t.header.size())
      throw ConfigError(path, "", "row has " + std::to_string(fields.size()) + " fields but the header has " +
                                      std::to_string(t.header.size()) + " (" + column_list(t.header) +
                                      "); the file is truncated or corrupt; " + kRestoreHint,
                        line_no);
    t.rows.push_back(std::move(fields));
    t.row_lines.push_back(line_no);
  }
  if (t.header.empty()) throw ConfigError(path, "", std::string("data file is empty; ") + kRestoreHint);
  if (t.rows.empty())
    throw ConfigError(path, "", std::string("data file has a header but no rows; ") + kRestoreHint);
  return t;
}

bool CsvTable::has_column(std::string_view column) const {
  for (const auto& h : header)
    if (h == column) return true;
  return false;
}

size_t CsvTable::column_index(std::string_view column) const {
  for (size_t k = 0; k < header.size(); ++k)
    if (header[k] == column) return k;
  throw ConfigError(path, std::string(column),
                    "no such column; the file's columns are: " + column_list(header), 1);
}

void CsvTable::require_columns(std::initializer_list<std::string_view> columns) const {
  for (auto c : columns) (void)column_index(c);
}

const std::string& CsvTable::at(size_t row, std::string_view column) const {
  const size_t k = column_index(column);
  if (row >= rows.size())
    throw ConfigError(path, std::string(column), "row " + std::to_string(row) + " does not exist");
  return rows[row][k];
}

double CsvTable::num(size_t row, std::string_view column) const {
  const std::string& s = at(row, column);
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  if (s.empty() || end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw ConfigError(path, std::string(column), "'" + s + "' is not a finite number", row_lines[row]);
  return v;
}

int CsvTable::integer(size_t row, std::string_view column) const {
  const double v = num(row, column);
  if (v != std::floor(v) || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw ConfigError(path, std::string(column), "'" + at(row, column) + "' is not an integer",
                      row_lines[row]);
  return static_cast<int>(v);
}

}  // namespace fleetsim
