// Scenario studies of sparsity/ (docs/scenarios.md lists their parameters and columns).
#pragma once

#include <memory>
#include <vector>

#include "moelab/scenario/study.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"

namespace moelab::sparsity {
/// sparsity.kstar (k* over integers and reals at one point) and sparsity.tradeoff (E_approx, E_est and
/// their sum for every k = 1..T).
void add_sparsity_studies(std::vector<std::unique_ptr<Study>>& out);
/// Trade-off parameters from params.{N, m, d_N, T, a, b, delta}; InputError naming the key on bad values.
TradeoffParams read_tradeoff_params(const ParamView& v);
/// params.form: "definition5" (default), "definition5_e" or "theorem1".
EstimationForm read_estimation_form(const ParamView& v);
const char* to_string(EstimationForm f);
/// Rows shared by the studies and `moelab kstar`: k* at one point (one row), and the trade-off curve
/// k = 1..T (T rows), each prefixed by the parameters.
std::vector<std::string> kstar_columns();
CsvRow kstar_row(const TradeoffParams& p, EstimationForm f);
std::vector<std::string> tradeoff_columns();
std::vector<CsvRow> tradeoff_rows(const TradeoffParams& p, EstimationForm f);
}
