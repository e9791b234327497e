// Runs a scenario: validates every sweep point first, then runs them in order and returns the CSV.
#pragma once

#include "moelab/core/csv.hpp"
#include <memory>
#include <utility>
#include <vector>

#include "moelab/scenario/scenario.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab {

/// The study of `scenario` with every sweep point prepared (validated, unknown keys rejected); throws
/// InputError at the first invalid point. Nothing runs.
std::pair<const Study*, std::vector<std::unique_ptr<PreparedPoint>>> prepare_scenario(const Scenario& scenario,
                                                                                      const McBudget& budget);

/// Throws InputError before any work when the study or any point is invalid.
CsvTable run_scenario(const Scenario& scenario, const McBudget& budget);

}  // namespace moelab
