// The sweep's index: DIR/index.csv, one row per point with its varied values, status, error and
// headline figures read back from the point's HDF5 file (so points skipped on resume get the same
// row as points run now). A statistic over replications gives three columns: NAME (the mean),
// NAME_p05 and NAME_p95. A headline with an interval (issue 25: the `interval_lo`/`interval_hi`
// attributes `fleetsim run` writes beside it) gives NAME_lo and NAME_hi after those; the last
// columns are the intervals' level, the replications the point used (`replications: auto` decides
// per point) and the run's provenance grade.
#pragma once

#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/sweep/grid.hpp"

namespace fleetsim::sweep {

// One headline column: its CSV name and the metric it reads (a /metrics path in dotted form).
struct Headline {
  std::string column;
  std::string metric;
  bool band = false;   // also write COLUMN_p05 and COLUMN_p95 when the metric is a statistic
  bool interval = false;  // also write COLUMN_lo and COLUMN_hi (its interval, sim/uncertainty)
};
const std::vector<Headline>& headlines();

// Values of one point: the CSV cells of its headline columns in order (empty when missing).
struct PointRow {
  const Point* point = nullptr;
  std::string status;   // "ok" or "failed"
  std::string error;    // one line
  std::vector<std::optional<double>> values;  // headline_columns() order
};

// Every headline CSV column name in order (bands and intervals expanded, then interval_level,
// replications and provenance_grade).
std::vector<std::string> headline_columns();
// provenance_grade travels as a number (the grade's index, so the MPI wire and PointRow stay
// numeric); its text in the CSV is grade_text(that number), "" when none.
std::string grade_text(const std::optional<double>& code);

// Reads the headline figures of a finished point. Metrics missing from the file stay empty;
// throws std::runtime_error when the file cannot be opened as HDF5.
std::vector<std::optional<double>> read_headlines(const std::string& h5_path);

// Debian's HDF5 is built without thread safety: every HDF5 call made while other threads may make
// some (the sweep's workers) holds this lock.
std::mutex& hdf5_mutex();

// One CSV field, quoted when it holds a comma, quote or newline (RFC 4180).
std::string csv_field(const std::string& s);
// Shortest round-trip text of a number ("" for none).
std::string csv_number(const std::optional<double>& v);

// Writes the header and one row per point. `keys` are the varied keys, in axis order.
void write_index(std::ostream& out, const std::vector<std::string>& keys, const std::vector<PointRow>& rows);

}  // namespace fleetsim::sweep
