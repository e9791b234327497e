// Runs a scenario: validates every sweep point first, then runs them in order and returns the CSV.
#pragma once

#include "moelab/core/csv.hpp"
#include "moelab/scenario/scenario.hpp"

namespace moelab {

/// Throws InputError before any work when the study or any point is invalid.
CsvTable run_scenario(const Scenario& scenario, const McBudget& budget);

}  // namespace moelab
