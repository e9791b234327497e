// Scenario studies of sparsity/, in the declarative form (scenario/study.hpp; `moelab describe <name>`
// prints the declarations below). Both are closed forms (deterministic):
//   sparsity.kstar     k* over the integers and the reals at one point;
//   sparsity.tradeoff  E_approx, E_est and their sum for every k = 1..T.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/scenario/study.hpp"
#include "moelab/sparsity/optimal_sparsity.hpp"

namespace moelab::sparsity {

namespace {

struct TradeoffPoint {
  TradeoffParams p;
  EstimationForm form = EstimationForm::definition5;
};

const char* form_name(EstimationForm f) {
  switch (f) {
    case EstimationForm::definition5: return "definition5";
    case EstimationForm::definition5_e: return "definition5_e";
    case EstimationForm::theorem1: return "theorem1";
  }
  return "?";
}

/// The trade-off's parameters (Sec. 4.1 and 4.3); `max_T` bounds T (the curve writes one row per k).
std::vector<ParamDecl> tradeoff_params(double max_T) {
  return {
      real("params.N", "number of tasks N").at_least(1).unit("tasks"),
      real("params.m", "training samples m").at_least(1).unit("samples"),
      real("params.d_N", "router base Natarajan dimension d_N (Assumption 1)").positive().or_default(1.0),
      integer("params.T", "total experts T").at_least(1).at_most(max_T).unit("experts"),
      real("params.a", "constant of E_approx = a N^2 / k (Definition 4, Eq. 6)").positive().or_default(1.0),
      real("params.b", "constant of E_est (Definition 5)").positive().or_default(1.0),
      real("params.delta", "confidence of Theorem 1, in (0, 1) (form theorem1 only)").positive().below(1.0).or_default(0.05),
      choice("params.form", {"definition5", "definition5_e", "theorem1"},
             "estimation error: Definition 5 as printed, with log(e T/k), or the k-term of Theorem 1 (Eq. 5)")
          .or_default("definition5"),
  };
}

std::vector<ColumnDecl> with_param_columns(std::vector<ColumnDecl> tail) {
  std::vector<ColumnDecl> c{
      {"form", "estimation-error form (definition5, definition5_e, theorem1)"},
      {"N", "tasks"},
      {"m", "training samples"},
      {"d_N", "router base Natarajan dimension"},
      {"T", "total experts"},
      {"a", "constant of E_approx"},
      {"b", "constant of E_est"},
      {"delta", "confidence of Theorem 1"},
  };
  c.insert(c.end(), tail.begin(), tail.end());
  return c;
}

TradeoffPoint prepare_tradeoff(const PointParams& v) {
  TradeoffPoint t;
  t.p.N = v.real("params.N");
  t.p.m = v.real("params.m");
  t.p.d_N = v.real("params.d_N");
  t.p.T = v.integer("params.T");
  t.p.a = v.real("params.a");
  t.p.b = v.real("params.b");
  t.p.delta = v.real("params.delta");
  if (t.p.delta >= 1.0) v.fail("params.delta", fmt::format("must be in (0, 1), got {}", t.p.delta));
  const auto f = v.text("params.form");
  t.form = f == "theorem1" ? EstimationForm::theorem1
           : f == "definition5_e" ? EstimationForm::definition5_e
                                  : EstimationForm::definition5;
  return t;
}

RowSink::Row& param_cells(RowSink::Row& row, const TradeoffPoint& t) {
  return row.set("form", form_name(t.form))
      .set("N", t.p.N)
      .set("m", t.p.m)
      .set("d_N", t.p.d_N)
      .set("T", t.p.T)
      .set("a", t.p.a)
      .set("b", t.p.b)
      .set("delta", t.p.delta);
}

void kstar_rows(const TradeoffPoint& t, const RunContext&, RowSink& rows) {
  const auto i = integer_k_star(t.p, t.form);
  const auto r = real_k_star(t.p, t.form);
  const double k = static_cast<double>(i.k);
  auto row = rows.row();
  param_cells(row, t)
      .set("k_star", i.k)
      .set("error_at_k_star", i.error)
      .set("k_star_real", r.k)
      .set("error_at_k_star_real", r.error)
      .set("real_at_boundary", std::int64_t{r.at_boundary})
      .set("approximation_at_k_star", approximation_error(k, t.p))
      .set("estimation_at_k_star", estimation_error(k, t.p, t.form));
}

void tradeoff_rows(const TradeoffPoint& t, const RunContext&, RowSink& rows) {
  const auto best = integer_k_star(t.p, t.form).k;
  for (std::int64_t k = 1; k <= t.p.T; ++k) {
    const double kd = static_cast<double>(k);
    auto row = rows.row();
    param_cells(row, t)
        .set("k", k)
        .set("approximation", approximation_error(kd, t.p))
        .set("estimation", estimation_error(kd, t.p, t.form))
        .set("total", total_error(kd, t.p, t.form))
        .set("is_k_star", std::int64_t{k == best});
  }
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  StudyDef kstar;
  kstar.name = "sparsity.kstar";
  kstar.summary = "optimal number of active experts k* (integer and real) of the compositional trade-off";
  kstar.trial_unit = "";
  kstar.params = tradeoff_params(1e9);  // k* scans k = 1..T: T = 1e9 takes ~35 s
  kstar.columns = with_param_columns({
      {"k_star", "integer minimiser of E_total over k = 1..T (ties: the smallest k)"},
      {"error_at_k_star", "E_total(k_star)"},
      {"k_star_real", "minimiser of E_total over real k in [1, T]"},
      {"error_at_k_star_real", "E_total(k_star_real)"},
      {"real_at_boundary", "1 when k_star_real is 1 or T (no interior stationary point is better)"},
      {"approximation_at_k_star", "E_approx(k_star) = a N^2 / k_star"},
      {"estimation_at_k_star", "E_est(k_star) in the chosen form"},
  });
  kstar.figure = "compositional, Sec. 4.3.3 (optimal sparsity k*) and regimes (a)-(d)";
  StudyDef kstar_def = define_study<TradeoffPoint>(std::move(kstar), prepare_tradeoff, kstar_rows);
  // integer_k_star evaluates E_total at every k = 1..T (a few logs and a square root, ~50 operations);
  // real_k_star a 512-point grid and TOMS 748 refinements. One row; no storage beyond it.
  set_cost<TradeoffPoint>(kstar_def, [](const TradeoffPoint& t, std::int64_t) {
    return StudyCost{4096.0, 50.0 * static_cast<double>(t.p.T) + 512.0 * 100.0};
  });
  out.push_back(std::move(kstar_def));

  StudyDef tradeoff;
  tradeoff.name = "sparsity.tradeoff";
  tradeoff.summary = "E_approx, E_est and their sum for k = 1..T (compositional Sec. 4.3)";
  tradeoff.trial_unit = "";
  tradeoff.params = tradeoff_params(1e6);  // one row per k
  tradeoff.columns = with_param_columns({
      {"k", "active experts"},
      {"approximation", "E_approx(k) = a N^2 / k (Definition 4, Eq. 6)"},
      {"estimation", "E_est(k) in the chosen form"},
      {"total", "E_approx(k) + E_est(k)"},
      {"is_k_star", "1 at the integer minimiser k*"},
  });
  tradeoff.figure = "compositional, Sec. 4.3 (the approximation/estimation trade-off in k)";
  StudyDef tradeoff_def = define_study<TradeoffPoint>(std::move(tradeoff), prepare_tradeoff, tradeoff_rows);
  // One row per k = 1..T, 13 cells: the RowSink row and the table's row (CsvCell variants, a heap
  // string for `form`), the row's set-flags, and the CSV text written at the end (~260 bytes). Measured
  // 2.2 kB per row (T = 5e5: 1.10 GB peak RSS above the process's 12 MB), so 13 x 180 bytes a cell.
  // E_total at every k twice (integer_k_star, then the rows).
  set_cost<TradeoffPoint>(tradeoff_def, [](const TradeoffPoint& t, std::int64_t) {
    const double T = static_cast<double>(t.p.T);
    return StudyCost{T * 13.0 * 180.0, 3.0 * 50.0 * T};
  });
  out.push_back(std::move(tradeoff_def));
}

}  // namespace moelab::sparsity
