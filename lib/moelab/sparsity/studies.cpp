// Scenario studies of sparsity/, in the declarative form (scenario/study.hpp; `moelab describe <name>`
// prints the declarations below). All are closed forms (deterministic):
//   sparsity.kstar     k* over the integers and the reals at one point;
//   sparsity.tradeoff  E_approx, E_est and their sum for every k = 1..T;
//   sparsity.kstar_difficulty, sparsity.tradeoff_difficulty  the same with the task-difficulty model
//                      of the approximation error as parameters (uniform weights, Assumption 5, or
//                      App. A.5's power law) and its columns. They are separate studies so that the
//                      two above keep their columns, and so their outputs, byte for byte; with
//                      difficulty = "uniform" their shared columns equal the two above bit for bit.
#include <cmath>
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
  TradeoffParams p;  // the trade-off the rows tabulate (a already weighted under a power-law difficulty)
  EstimationForm form = EstimationForm::definition5;
  bool difficulty_columns = false;  // the *_difficulty studies
  DifficultySpec difficulty;
  double a_given = 1.0;             // params.a as given (p.a = a_given W / N^2 under powerlaw)
  double weight_sum = 0.0;          // W = sum_{i,i'} w_{i,i'} (N^2 for uniform)
};

// The power-law weight sum is a double loop over the N^2 ordered pairs (about 5e7 pow calls at
// N = 1e4, a second): N is capped there for a power-law difficulty.
constexpr double kMaxPowerlawN = 1e4;

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

/// The difficulty parameters of the *_difficulty studies (compositional, Assumption 5 and App. A.5).
std::vector<ParamDecl> difficulty_params() {
  return {
      choice("params.difficulty", {"uniform", "powerlaw"},
             "task-difficulty weights of E_approx: uniform (Assumption 5, a N^2 / k) or App. A.5's power law "
             "w_{i,i'} = (D_i + D_i')^-alpha (a W / k); powerlaw needs an integer N <= 1e4")
          .or_default("uniform"),
      real("params.difficulty_alpha", "power-law exponent alpha of App. A.5 (> 1; powerlaw only)").positive().or_default(2.0),
      choice("params.difficulty_profile", {"index", "power", "list"},
             "inverse difficulties D_i: index (D_i = i, App. A.5), power (D_i = i^gamma) or list (difficulty_D)")
          .or_default("index"),
      real("params.difficulty_gamma", "exponent gamma of the power profile D_i = i^gamma (> 0)").positive().or_default(1.0),
      real_list("params.difficulty_D", "explicit D_1..D_N (profile list; N entries, each > 0)").optional(),
  };
}

std::vector<ColumnDecl> difficulty_columns() {
  return {
      {"difficulty", "task-difficulty weights (uniform, powerlaw)"},
      {"difficulty_alpha", "power-law exponent alpha (as given; unused under uniform)"},
      {"difficulty_profile", "D_i profile (index, power, list; unused under uniform)"},
      {"difficulty_gamma", "exponent of the power profile (as given; unused unless profile = power)"},
      {"weight_sum", "W = sum over the N^2 compositions of w_{i,i'} (N^2 under uniform)"},
      {"a_effective", "a W / N^2: the constant of E_approx = a_effective N^2 / k the rows use (= a under uniform)"},
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
  t.a_given = t.p.a;
  t.weight_sum = t.p.N * t.p.N;
  return t;
}

TradeoffPoint prepare_difficulty(const PointParams& v) {
  TradeoffPoint t = prepare_tradeoff(v);
  t.difficulty_columns = true;
  DifficultySpec& d = t.difficulty;
  (void)parse_difficulty(v.text("params.difficulty"), d.kind);  // a declared choice
  (void)parse_difficulty_profile(v.text("params.difficulty_profile"), d.profile);
  d.alpha = v.real("params.difficulty_alpha");
  d.gamma = v.real("params.difficulty_gamma");
  if (d.kind == Difficulty::uniform) return t;
  if (!(d.alpha > 1.0))
    v.fail("params.difficulty_alpha", fmt::format("must be > 1 for a power-law difficulty (App. A.5), got {}", d.alpha));
  if (t.p.N != std::floor(t.p.N) || t.p.N > kMaxPowerlawN)
    v.fail("params.N", fmt::format("must be an integer <= {:g} for a power-law difficulty (one D_i per task), got {}",
                                   kMaxPowerlawN, t.p.N));
  if (d.profile == DifficultyProfile::list) {
    if (!v.has("params.difficulty_D")) v.fail("params.difficulty_profile", "profile list needs params.difficulty_D");
    d.D = v.real_list("params.difficulty_D");
    if (static_cast<double>(d.D.size()) != t.p.N)
      v.fail("params.difficulty_D", fmt::format("must have N = {} entries, got {}", t.p.N, d.D.size()));
    for (double x : d.D)
      if (!(std::isfinite(x) && x > 0.0)) v.fail("params.difficulty_D", fmt::format("every D_i must be > 0, got {}", x));
  } else if (v.has("params.difficulty_D")) {
    v.fail("params.difficulty_D", "is used only with difficulty_profile = \"list\"");
  }
  t.weight_sum = difficulty_weight_sum(d, t.p.N);
  t.p = with_difficulty(t.p, d);
  return t;
}

RowSink::Row& param_cells(RowSink::Row& row, const TradeoffPoint& t) {
  return row.set("form", form_name(t.form))
      .set("N", t.p.N)
      .set("m", t.p.m)
      .set("d_N", t.p.d_N)
      .set("T", t.p.T)
      .set("a", t.difficulty_columns ? t.a_given : t.p.a)
      .set("b", t.p.b)
      .set("delta", t.p.delta);
}

/// The columns of the *_difficulty studies; `a` stays the value given (a_effective is the one used).
void difficulty_cells(RowSink::Row& row, const TradeoffPoint& t) {
  if (!t.difficulty_columns) return;
  row.set("difficulty", to_string(t.difficulty.kind))
      .set("difficulty_alpha", t.difficulty.alpha)
      .set("difficulty_profile", to_string(t.difficulty.profile))
      .set("difficulty_gamma", t.difficulty.gamma)
      .set("weight_sum", t.weight_sum)
      .set("a_effective", t.p.a);
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
  difficulty_cells(row, t);
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
    difficulty_cells(row, t);
  }
}

}  // namespace

namespace {

StudyDef kstar_study(bool difficulty) {
  StudyDef kstar;
  kstar.name = difficulty ? "sparsity.kstar_difficulty" : "sparsity.kstar";
  kstar.summary = difficulty ? "k* of the compositional trade-off under uniform or power-law task difficulty (App. A.5)"
                             : "optimal number of active experts k* (integer and real) of the compositional trade-off";
  kstar.trial_unit = "";
  kstar.params = tradeoff_params(1e9);  // k* scans k = 1..T: T = 1e9 takes ~35 s
  std::vector<ColumnDecl> tail{
      {"k_star", "integer minimiser of E_total over k = 1..T (ties: the smallest k)"},
      {"error_at_k_star", "E_total(k_star)"},
      {"k_star_real", "minimiser of E_total over real k in [1, T]"},
      {"error_at_k_star_real", "E_total(k_star_real)"},
      {"real_at_boundary", "1 when k_star_real is 1 or T (no interior stationary point is better)"},
      {"approximation_at_k_star", "E_approx(k_star) = a N^2 / k_star"},
      {"estimation_at_k_star", "E_est(k_star) in the chosen form"},
  };
  if (difficulty) {
    const auto p = difficulty_params();
    kstar.params.insert(kstar.params.end(), p.begin(), p.end());
    tail[5].doc = "E_approx(k_star) = a_effective N^2 / k_star = a W / k_star";
    const auto c = difficulty_columns();
    tail.insert(tail.end(), c.begin(), c.end());
  }
  kstar.columns = with_param_columns(std::move(tail));
  kstar.figure = difficulty ? "compositional, Sec. 4.3.3 with App. A.5's power-law weights (Assumption 5 relaxed)"
                            : "compositional, Sec. 4.3.3 (optimal sparsity k*) and regimes (a)-(d)";
  StudyDef kstar_def =
      define_study<TradeoffPoint>(std::move(kstar), difficulty ? prepare_difficulty : prepare_tradeoff, kstar_rows);
  // integer_k_star evaluates E_total at every k = 1..T (a few logs and a square root, ~50 operations);
  // real_k_star a 512-point grid and TOMS 748 refinements. One row; no storage beyond it. The power-law
  // weight sum (prepare) adds ~30 operations per ordered pair.
  set_cost<TradeoffPoint>(kstar_def, [](const TradeoffPoint& t, std::int64_t) {
    const double pairs = t.difficulty.kind == Difficulty::powerlaw ? 30.0 * t.p.N * t.p.N : 0.0;
    return StudyCost{4096.0, 50.0 * static_cast<double>(t.p.T) + 512.0 * 100.0 + pairs};
  });
  return kstar_def;
}

StudyDef tradeoff_study(bool difficulty) {
  StudyDef tradeoff;
  tradeoff.name = difficulty ? "sparsity.tradeoff_difficulty" : "sparsity.tradeoff";
  tradeoff.summary = difficulty ? "E_approx, E_est and their sum for k = 1..T under uniform or power-law task difficulty"
                                : "E_approx, E_est and their sum for k = 1..T (compositional Sec. 4.3)";
  tradeoff.trial_unit = "";
  tradeoff.params = tradeoff_params(1e6);  // one row per k
  std::vector<ColumnDecl> tail{
      {"k", "active experts"},
      {"approximation", "E_approx(k) = a N^2 / k (Definition 4, Eq. 6)"},
      {"estimation", "E_est(k) in the chosen form"},
      {"total", "E_approx(k) + E_est(k)"},
      {"is_k_star", "1 at the integer minimiser k*"},
  };
  if (difficulty) {
    const auto p = difficulty_params();
    tradeoff.params.insert(tradeoff.params.end(), p.begin(), p.end());
    tail[1].doc = "E_approx(k) = a_effective N^2 / k = a W / k (Eq. 6; App. A.5 under powerlaw)";
    const auto c = difficulty_columns();
    tail.insert(tail.end(), c.begin(), c.end());
  }
  tradeoff.columns = with_param_columns(std::move(tail));
  tradeoff.figure = difficulty ? "compositional, Sec. 4.3 with App. A.5's power-law weights"
                               : "compositional, Sec. 4.3 (the approximation/estimation trade-off in k)";
  StudyDef tradeoff_def =
      define_study<TradeoffPoint>(std::move(tradeoff), difficulty ? prepare_difficulty : prepare_tradeoff, tradeoff_rows);
  // One row per k = 1..T, 13 cells: the RowSink row and the table's row (CsvCell variants, a heap
  // string for `form`), the row's set-flags, and the CSV text written at the end (~260 bytes). Measured
  // 2.2 kB per row (T = 5e5: 1.10 GB peak RSS above the process's 12 MB), so 13 x 180 bytes a cell.
  // E_total at every k twice (integer_k_star, then the rows). The difficulty studies have 19 cells.
  const double cells = difficulty ? 19.0 : 13.0;
  set_cost<TradeoffPoint>(tradeoff_def, [cells](const TradeoffPoint& t, std::int64_t) {
    const double T = static_cast<double>(t.p.T);
    const double pairs = t.difficulty.kind == Difficulty::powerlaw ? 30.0 * t.p.N * t.p.N : 0.0;
    return StudyCost{T * cells * 180.0, 3.0 * 50.0 * T + pairs};
  });
  return tradeoff_def;
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  out.push_back(kstar_study(false));
  out.push_back(tradeoff_study(false));
  out.push_back(kstar_study(true));
  out.push_back(tradeoff_study(true));
}

}  // namespace moelab::sparsity
