// A scenario file: which study to run, over which sweep grid, with which Monte-Carlo budget, and
// where to write the CSV (and which gnuplot script renders it). See docs/scenarios.md.
//
//   study = "noisy.excess_risk"          # a registered study (moelab list)
//   title = "..."                        # optional, copied into the CSV metadata
//   [model] ... [params] ...             # study parameters (the study says which)
//   [sweep]                              # optional grid: cartesian product of the axes, in order
//   "params.n" = [100, 200, 400]         #   an explicit list, or
//   "model.sigma2" = { from = 0.5, to = 4, steps = 8, spacing = "log" }   # a generated axis
//   [monte_carlo]  trials = 1000, seed = 1, threads = 0 (0 = OMP default)
//   [output] csv = "results/x.csv", plot = "plots/x.gp"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "moelab/core/backend.hpp"
#include "moelab/scenario/params.hpp"

namespace moelab {

struct McBudget {
  std::int64_t trials = 1000;
  std::uint64_t seed = 1;
  int threads = 0;
  BackendRequest backend = BackendRequest::automatic;  // [monte_carlo] backend / --backend
  double max_memory = 0.0;  // bytes a run may hold (--max-memory); 0 = the machine's memory (runner.hpp)
};

struct SweepAxis {
  std::string key;                    // dotted key it overrides, e.g. "params.n"
  std::vector<toml_node_ptr> values;  // listed values keep their own source position; generated ones
                                      // ({from, to, steps}) have none and take `line`/`column`
  int line = 0;                       // where the axis is written in [sweep]
  int column = 0;
};

/// One point of the sweep: the scenario's base table overlaid with one value per axis. Nothing is
/// copied: `base` and the override values are borrowed from the Scenario, which must outlive the
/// point (and must not be moved while points are in use).
struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> coordinates;  // (key, value as written)
  const toml::table* base = nullptr;
  std::vector<ParamOverride> overrides;  // one per axis, in axis order

  /// The point's parameters; lines are those of the sweep values for swept keys.
  ParamView view(std::string file) const { return ParamView(*base, overrides, std::move(file)); }
};

struct Scenario {
  std::string path;
  std::string name;   // file stem
  std::string study;
  std::string title;
  McBudget budget;
  std::string output_csv;   // default results/<name>.csv
  std::string output_plot;  // default plots/<name>.gp when that file exists, else empty
  toml::table base;         // the study's own tables: everything except study/title/sweep/monte_carlo/output
  std::vector<SweepAxis> axes;

  /// Expands the cartesian grid (first axis slowest); one point with no coordinates when no sweep.
  /// The points borrow `base` and the axis values from this scenario (no table is copied).
  std::vector<SweepPoint> points() const;
};

/// Parses and validates a scenario file; throws InputError (file, line, key, reason) on malformed
/// TOML, unknown top-level keys, wrong types, trials < 1, malformed sweeps.
Scenario load_scenario(const std::string& path);
/// Same from text (tests); `path` is used in messages.
Scenario parse_scenario(const std::string& text, const std::string& path);

}  // namespace moelab
