// Scenario studies of bounds/ (docs/scenarios.md lists their parameters and columns).
#pragma once

#include <memory>
#include <vector>

#include "moelab/bounds/generalization.hpp"
#include "moelab/bounds/pattern_counts.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::bounds {
/// bounds.theorem1 (every term of Theorem 1 and the naive-ensemble rate at one point),
/// bounds.patterns (routing-pattern counts of random linear routers against Eq. 13 and arrangements).
void add_bounds_studies(std::vector<std::unique_ptr<Study>>& out);
/// Theorem 1's parameters from params.{m, T, k, N, d_N, C, delta} and params.rademacher or
/// params.rademacher_scale (R_m(H) = scale / sqrt(m)); InputError naming the key on bad values.
Theorem1Params read_theorem1_params(const ParamView& v);
/// Rows shared by the studies and `moelab bound`: the five forms of Theorem 1 / the ensemble rate
/// (printed, eq17, derived, ensemble_printed, ensemble_averaged) at one point, and one pattern count.
std::vector<std::string> theorem1_columns();
std::vector<CsvRow> theorem1_rows(const Theorem1Params& p);
std::vector<std::string> pattern_columns();
CsvRow pattern_row(const PatternCountParams& p, const PatternCount& r);
}
