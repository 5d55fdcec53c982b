// The grid of a sweep (`fleetsim sweep --vary key=v1,v2 ...`): parsing the axes, expanding them
// into points (cartesian product, or zipped), and naming each point's result file
// deterministically, so a rerun finds the points it already finished.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fleetsim::sweep {

// One dimension of the grid: a varied key and its values, in the order given, and any keys that
// move together with it (`--with LEADER:KEY=...`, or every other axis under `--zip`): the i-th
// value of a companion goes with the i-th value of its leader.
struct Axis {
  std::string key;                  // dotted scenario key, as for --set
  std::vector<std::string> values;  // raw text, parsed like a --set value ("10 min", "liquid-dlc")
  std::vector<Axis> with;           // companions: same number of values, no companions of their own
};

// Splits "v1,v2,..." on top-level commas: commas inside [..], {..} or quotes do not split, so
// YAML lists survive ("[7,8,8,7],[8,8,8,8]"). Each value is trimmed; empty values are an error.
std::vector<std::string> split_values(const std::string& text);

// Parses "key=v1,v2,...". Throws ConfigError on a missing '=', an empty key or no values.
Axis parse_axis(const std::string& text);

// Parses "LEADER:KEY=v1,v2,..." and adds KEY as a companion of the axis whose key is LEADER.
// Throws ConfigError when there is no such axis or the value counts differ.
void attach_companion(std::vector<Axis>& axes, const std::string& text);

// `--zip`: the first axis leads and every other axis becomes its companion (same value counts).
std::vector<Axis> zip_axes(std::vector<Axis> axes);

// Every varied key: each axis's key followed by its companions' keys (index.csv columns).
std::vector<std::string> all_keys(const std::vector<Axis>& axes);

struct Point {
  int index = 0;                                        // position in the grid
  std::vector<std::pair<std::string, std::string>> values;  // (key, value) for every key, all_keys() order
  std::string file;                                     // result file name inside the sweep directory

  // "key=value" strings, ready to append to the base --set list.
  [[nodiscard]] std::vector<std::string> sets() const;
  // "gpus=16384 cooling=liquid-dlc": a short label for progress lines.
  [[nodiscard]] std::string label() const;
};

// What identifies a point's result besides its varied values: a change to any of these gives
// every point a new file name, so results of a different base are never reused.
struct GridBase {
  std::string scenario;
  std::vector<std::string> sets;
  int replications = 0;             // 0 = the scenario's own
  long long seed = -1;              // -1 = the scenario's own
  // --level of the intervals each point's run writes beside its headline numbers (issue 25);
  // "" = run's default (0.8). Part of the identity only when given: the files of a sweep without
  // it keep their names.
  std::string level;
};

// The points of the grid: the cartesian product of the axes (last axis fastest), each axis
// carrying its companions; with `zip`, zip_axes(axes) first. Throws ConfigError on a duplicated
// key, companions of a different length, or two identical points.
std::vector<Point> expand_grid(const std::vector<Axis>& axes, bool zip, const GridBase& base);

// "<slug>_<hash>.h5": the slug is readable (last key component and value of each axis, unsafe
// characters replaced), the 8-hex-digit FNV-1a hash covers the base and the exact values.
std::string point_file_name(const std::vector<std::pair<std::string, std::string>>& values,
                            const GridBase& base);

}  // namespace fleetsim::sweep
