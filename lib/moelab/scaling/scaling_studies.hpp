// Scenario studies of scaling/ (docs/scenarios.md lists their parameters and columns).
#pragma once

#include <memory>
#include <vector>

#include "moelab/scaling/covering_number.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::scaling {
/// scaling.compute_optimal (N_opt, D_opt, loss at a FLOP budget; closed form and direct minimisation)
/// and scaling.covering (the terms of Lemma 3.7 and the exact routing count at one resolution).
void add_scaling_studies(std::vector<std::unique_ptr<Study>>& out);
/// The covering-bound row shared by scaling.covering and `moelab bound covering`.
std::vector<std::string> covering_columns();
CsvRow covering_row(const CoveringParams& p, double delta);
}
