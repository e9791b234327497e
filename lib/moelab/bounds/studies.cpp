// Scenario studies of bounds/, in the declarative form (scenario/study.hpp; `moelab describe <name>`
// prints the declarations below):
//   bounds.theorem1  every term of Theorem 1 (printed, Eq. 17, derived) and the naive-ensemble rate
//                    at one point: closed forms, deterministic;
//   bounds.patterns  distinct top-k routing patterns of random linear routers on m points against
//                    Eq. 13 and the arrangement bound: Monte-Carlo, one trial = one random router
//                    (count_routing_patterns, the function the claims call too).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "moelab/bounds/generalization.hpp"
#include "moelab/bounds/pattern_counts.hpp"
#include "moelab/core/log_binomial.hpp"
#include "moelab/scenario/study.hpp"

namespace moelab::bounds {

namespace {

bool is_integer(double x) { return std::isfinite(x) && x == std::floor(x); }

// ---- bounds.theorem1 ----

std::vector<ParamDecl> theorem1_params() {
  // Counts are reals holding integers (checked in prepare), so that m = 1e12 or a TOML float such as
  // 1e6 are accepted and C(T, k)^(2 N d_N) never overflows (docs/bounds.md, Conventions).
  return {
      real("params.m", "training points m (an integer)").at_least(1).unit("points"),
      real("params.T", "experts T (an integer)").at_least(1).unit("experts"),
      real("params.k", "active experts k (an integer, k <= T)").at_least(1).or_default(1.0).unit("experts"),
      real("params.N", "number of tasks N (an integer)").at_least(1).or_default(1.0).unit("tasks"),
      real("params.d_N", "Natarajan dimension of the mask class for N = 1 (Assumption 1; an integer)")
          .nonnegative()
          .or_default(1.0),
      real("params.C", "Lipschitz constant of the [0, 1] loss (Assumption 2)").positive().or_default(1.0),
      real("params.delta", "failure probability of the bound, in (0, 1)").positive().below(1.0).or_default(0.05),
      real("params.max_gate_weight",
           "largest gate weight an expert receives (derived form only; 1 in general, 1/k for uniform weights)")
          .positive()
          .at_most(1.0)
          .or_default(1.0),
      real("params.rademacher", "R_m(H) of the expert class, given directly (exclusive with rademacher_scale)")
          .nonnegative()
          .optional(),
      real("params.rademacher_scale",
           "R_m(H) = scale / sqrt(m), the rate of a norm-bounded class (default 1 when neither key is given)")
          .nonnegative()
          .optional(),
  };
}

std::vector<ColumnDecl> theorem1_columns() {
  return {
      {"form", "printed (Eq. 5), eq17 (exact log C(T,k)), derived (docs/bounds.md findings 1-4), ensemble_printed "
               "(T R_m(H) + ...), ensemble_averaged (Lemma 10)"},
      {"m", "training points"},
      {"T", "experts"},
      {"k", "active experts"},
      {"N", "tasks"},
      {"d_N", "Natarajan dimension of the mask class for N = 1"},
      {"C", "Lipschitz constant of the loss"},
      {"rademacher", "R_m(H) used"},
      {"delta", "failure probability"},
      {"rademacher_term", "4 C R_m(H) (printed), 4 C T w_max R_m(H) (derived), T R_m(H) or 2 C R_m(H) (ensembles)"},
      {"log_growth_routing", "routing part of log Gamma: 2 k N d_N log T (Eq. 18) or 2 N d_N log C(T, k) (Eq. 17); nan "
                             "for ensembles"},
      {"log_growth_sample", "N d_N log(2m) (Eq. 13); nan for ensembles"},
      {"log_confidence", "log(2/delta) (printed) or log(4/delta) (derived); nan for ensembles"},
      {"denominator", "2m (printed, Eq. 16) or m (derived); nan for ensembles"},
      {"deviation_term", "2 sqrt((log Gamma + log_confidence) / denominator), or the ensemble's sqrt(log(2/delta)/2m)"},
      {"total", "rademacher_term + deviation_term: the bound on the generalization gap"},
  };
}

Theorem1Params prepare_theorem1(const PointParams& v) {
  Theorem1Params p;
  p.m = v.real("params.m");
  p.T = v.real("params.T");
  p.k = v.real("params.k");
  p.N = v.real("params.N");
  p.d_N = v.real("params.d_N");
  p.C = v.real("params.C");
  p.delta = v.real("params.delta");
  p.max_gate_weight = v.real("params.max_gate_weight");
  if (v.has("params.rademacher") && v.has("params.rademacher_scale"))
    v.fail("params.rademacher_scale",
           "give either params.rademacher or params.rademacher_scale (R_m = scale / sqrt(m)), not both");
  p.rademacher = v.has("params.rademacher")
                     ? v.real("params.rademacher")
                     : (v.has("params.rademacher_scale") ? v.real("params.rademacher_scale") : 1.0) / std::sqrt(p.m);
  for (const auto& [key, x] : {std::pair{"params.m", p.m}, std::pair{"params.T", p.T}, std::pair{"params.k", p.k},
                               std::pair{"params.N", p.N}, std::pair{"params.d_N", p.d_N}})
    if (!is_integer(x)) v.fail(key, fmt::format("must be an integer, got {}", x));
  if (p.k > p.T) v.fail("params.k", fmt::format("must be at most T = {}, got {}", p.T, p.k));
  if (p.delta >= 1.0) v.fail("params.delta", fmt::format("must be in (0, 1), got {}", p.delta));
  return p;
}

void theorem1_rows(const Theorem1Params& p, const RunContext&, RowSink& rows) {
  auto add = [&](const char* form, double rademacher_term, double routing, double sample, double confidence,
                 double denominator, double deviation, double total) {
    rows.row()
        .set("form", form)
        .set("m", p.m)
        .set("T", p.T)
        .set("k", p.k)
        .set("N", p.N)
        .set("d_N", p.d_N)
        .set("C", p.C)
        .set("rademacher", p.rademacher)
        .set("delta", p.delta)
        .set("rademacher_term", rademacher_term)
        .set("log_growth_routing", routing)
        .set("log_growth_sample", sample)
        .set("log_confidence", confidence)
        .set("denominator", denominator)
        .set("deviation_term", deviation)
        .set("total", total);
  };
  for (const auto& [form, t] : {std::pair{"printed", theorem1_printed(p)}, std::pair{"eq17", theorem1_eq17(p)},
                                std::pair{"derived", theorem1_derived(p)}})
    add(form, t.rademacher_term, t.log_growth_routing, t.log_growth_sample, t.log_confidence, t.denominator,
        t.deviation_term, t.total);
  const double nan = std::nan("");
  for (const auto& [form, e] :
       {std::pair{"ensemble_printed", naive_ensemble_printed(p.T, p.rademacher, p.m, p.delta)},
        std::pair{"ensemble_averaged", naive_ensemble_derived(p.C, p.T, p.rademacher, p.m, p.delta, true)}})
    add(form, e.rademacher_term, nan, nan, nan, nan, e.deviation_term, e.total);
}

// ---- bounds.patterns ----

std::vector<ParamDecl> pattern_params() {
  return {
      integer("params.m", "fixed Gaussian points x_1..x_m the routers label").at_least(1).unit("points"),
      integer("params.d", "input dimension of the points and routers").at_least(1),
      integer("params.T", "experts (masks are 64-bit words)").in(2, 64).unit("experts"),
      integer("params.k", "active experts per point (top-k), k < T").at_least(1).unit("experts"),
      real("params.d_N", "Natarajan dimension used in the Eq. 13 bound; 0 means d T (the stated default)")
          .nonnegative()
          .or_default(0.0),
  };
}

std::vector<ColumnDecl> pattern_columns() {
  return {
      {"m", "points"},
      {"d", "input dimension"},
      {"T", "experts"},
      {"k", "active experts"},
      {"routers", "random routers drawn (the trials)"},
      {"distinct_patterns", "distinct m-tuples of top-k masks: a lower estimate of the mask class's growth function"},
      {"distinct_masks", "distinct single-point masks seen, <= C(T, k)"},
      {"log_patterns", "log distinct_patterns"},
      {"sample_limited", "distinct_patterns / routers: near 1, the count is limited by the sample, not the class"},
      {"d_N", "Natarajan dimension used for log_eq13_bound"},
      {"log_eq13_bound", "Eq. 13 / Lemma 6: d_N log m + 2 d_N log C(T, k)"},
      {"log_arrangement_bound", "log sum_{i <= d (T-1)} C(m C(T, 2), i) (hyperplane arrangements; proved)"},
      {"log_all_patterns", "m log C(T, k): every tuple of masks"},
  };
}

PatternCountParams prepare_patterns(const PointParams& v) {
  PatternCountParams p;
  p.m = v.small("params.m");
  p.d = v.small("params.d");
  p.T = v.small("params.T");
  p.k = v.small("params.k");
  if (p.k >= p.T) v.fail("params.k", fmt::format("must be below T = {}, got {}", p.T, p.k));
  p.d_N = v.real("params.d_N");
  return p;
}

void pattern_rows(PatternCountParams p, const RunContext& ctx, RowSink& rows) {
  p.routers = static_cast<std::uint64_t>(ctx.trials);
  const auto r = count_routing_patterns(p, ctx.key.seed(), [&](std::size_t n) { ctx.advance(n); });
  rows.row()
      .set("m", p.m)
      .set("d", p.d)
      .set("T", p.T)
      .set("k", p.k)
      .set("routers", static_cast<std::int64_t>(r.routers))
      .set("distinct_patterns", static_cast<std::int64_t>(r.distinct_patterns))
      .set("distinct_masks", static_cast<std::int64_t>(r.distinct_masks))
      .set("log_patterns", r.log_patterns)
      .set("sample_limited", r.sample_limited)
      .set("d_N", r.d_N)
      .set("log_eq13_bound", r.log_eq13_bound)
      .set("log_arrangement_bound", r.log_arrangement_bound)
      .set("log_all_patterns", r.log_all_patterns);
}

}  // namespace

void add_studies(std::vector<StudyDef>& out) {
  StudyDef theorem1;
  theorem1.name = "bounds.theorem1";
  theorem1.summary = "Theorem 1 of the compositional paper term by term (printed, Eq. 17, derived) and the naive-ensemble rate";
  theorem1.trial_unit = "";
  theorem1.params = theorem1_params();
  theorem1.columns = theorem1_columns();
  theorem1.figure = "compositional, Theorem 1 (Eq. 5, 17, 18; App. B) and the naive-ensemble rate of Sec. 4.2";
  StudyDef theorem1_def = define_study<Theorem1Params>(std::move(theorem1), prepare_theorem1, theorem1_rows);
  // Closed forms (generalization.cpp): five rows of a few logarithms each, whatever m, T, k.
  set_cost<Theorem1Params>(theorem1_def, [](const Theorem1Params&, std::int64_t) { return StudyCost{4096.0, 1e3}; });
  out.push_back(std::move(theorem1_def));

  StudyDef patterns;
  patterns.name = "bounds.patterns";
  patterns.summary = "distinct top-k routing patterns of random linear routers on m points vs Eq. 13 (Natarajan) and the "
                     "arrangement bound";
  patterns.trial_unit = "random routers";
  patterns.params = pattern_params();
  patterns.columns = pattern_columns();
  patterns.figure = "compositional, Eq. 13 / Lemma 6 under Assumption 1 (d_N = d T)";
  StudyDef patterns_def = define_study<PatternCountParams>(
      std::move(patterns), prepare_patterns, pattern_rows,
      [](const PatternCountParams&, std::int64_t trials) { return static_cast<std::size_t>(trials); });
  // count_routing_patterns (pattern_counts.cpp) holds the points X (d x m), one 16-byte key per router
  // (sorted in place), per thread a router W (T x d), scores S (T x m) and the chunk's masks (m new
  // ones on top of the distinct ones kept, <= min(C(T, k), 256 m)), and the chunks' distinct masks
  // twice (kept per chunk, then concatenated). A router costs the product W X (2 T d m) and m top-k
  // selections (~4 T each).
  set_cost<PatternCountParams>(patterns_def, [](const PatternCountParams& p, std::int64_t trials) {
    const double m = p.m, d = p.d, T = p.T, routers = static_cast<double>(trials);
    const double distinct = std::min(std::exp(log_binomial(T, p.k)), 256.0 * m);
    const double chunks = std::ceil(routers / 256.0);
    const double bytes = 8.0 * d * m + 16.0 * routers + num_threads() * 8.0 * (T * (d + m) + m + distinct) +
                         2.0 * 8.0 * chunks * distinct;
    return StudyCost{bytes, routers * m * T * (2.0 * d + 4.0)};
  });
  out.push_back(std::move(patterns_def));
}

}  // namespace moelab::bounds
