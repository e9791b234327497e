// A study is a named simulator family that maps one parameter point to CSV rows (DESIGN.md, Data
// flow). Studies validate all sweep points before anything runs (prepare), so bad input never
// leaves partial output.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "moelab/core/csv.hpp"
#include "moelab/core/progress.hpp"
#include "moelab/scenario/params.hpp"
#include "moelab/scenario/scenario.hpp"

namespace moelab {

using CsvRow = std::vector<CsvCell>;

/// One validated sweep point, ready to run.
class PreparedPoint {
 public:
  virtual ~PreparedPoint() = default;
  /// Units of work for the progress bar (e.g. trials).
  virtual std::size_t work() const = 0;
  /// Runs the point; rows follow Study::columns().
  virtual std::vector<CsvRow> run(const McBudget& budget, Progress& progress) = 0;
};

class Study {
 public:
  virtual ~Study() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual std::vector<std::string> columns() const = 0;
  /// Reads and validates the point's parameters (throws InputError); must read every key it uses.
  virtual std::unique_ptr<PreparedPoint> prepare(const ParamView& params, const McBudget& budget) const = 0;
  /// Whether the study's points can run on the CUDA backend (kernels/), and whether that path has been
  /// validated against the CPU on a device (core/backend.hpp: `auto` uses validated paths only).
  virtual CudaPath cuda_path() const { return CudaPath::none; }
  /// Metadata computed over all rows once the sweep is done (e.g. fitted rates).
  virtual std::vector<std::pair<std::string, std::string>> summarize(const std::vector<CsvRow>& rows) const {
    (void)rows;
    return {};
  }
};

/// All registered studies, in `moelab list` order.
const std::vector<std::unique_ptr<Study>>& studies();
const Study* find_study(const std::string& name);

}  // namespace moelab
