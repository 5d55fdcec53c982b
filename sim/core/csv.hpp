// The one CSV reader for the published data in data/validation/ (header row, comma-separated,
// double quotes around fields with commas, "" for a quote inside them, CRLF or LF).
//
// A data file is input like a scenario: a missing file, a renamed column, a truncated row or a
// non-number in a number column is a ConfigError (exit 2) naming the file, the line and the column,
// and saying what would be valid. Never std::stod's "stod", never an internal error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

class CsvTable {
 public:
  std::string path;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> row_lines;  // the file line of each row (1-based), for messages

  [[nodiscard]] size_t size() const { return rows.size(); }
  [[nodiscard]] bool has_column(std::string_view column) const;
  // The text of a cell; throws ConfigError when the column is missing (listing the columns).
  [[nodiscard]] const std::string& at(size_t row, std::string_view column) const;
  // A finite number (the whole cell must parse); throws ConfigError naming line and column.
  [[nodiscard]] double num(size_t row, std::string_view column) const;
  // An integer that fits in int; throws ConfigError otherwise.
  [[nodiscard]] int integer(size_t row, std::string_view column) const;
  // Throws ConfigError unless every named column is present (checked once after reading, so a
  // renamed column is reported before any row is used).
  void require_columns(std::initializer_list<std::string_view> columns) const;

 private:
  [[nodiscard]] size_t column_index(std::string_view column) const;
};

// Reads the whole file; throws ConfigError when it is missing, not a regular file, empty, has no
// data rows, or has a row whose field count differs from the header's (a truncated file).
CsvTable read_csv(const std::string& path);

// Splits one CSV line into fields (quotes removed, "" unescaped, a trailing \r dropped).
std::vector<std::string> split_csv_line(std::string_view line);

}  // namespace fleetsim
