#include "moelab/bounds/bounds_studies.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "moelab/bounds/generalization.hpp"
#include "moelab/bounds/pattern_counts.hpp"

namespace moelab::bounds {

namespace {

bool is_integer(double x) { return std::isfinite(x) && x == std::floor(x); }

// ---- bounds.theorem1: Theorem 1 (printed, Eq. 17, derived) and the naive ensemble, term by term ----
class Theorem1Point : public PreparedPoint {
 public:
  explicit Theorem1Point(Theorem1Params p) : p_(p) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget&, Progress& progress) override {
    progress.advance();
    return theorem1_rows(p_);
  }

 private:
  Theorem1Params p_;
};

class Theorem1Study : public Study {
 public:
  std::string name() const override { return "bounds.theorem1"; }
  std::string summary() const override {
    return "Theorem 1 of the compositional paper term by term (printed, Eq. 17, derived) and the naive-ensemble rate";
  }
  std::vector<std::string> columns() const override { return theorem1_columns(); }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget&) const override {
    return std::make_unique<Theorem1Point>(read_theorem1_params(v));
  }
};

// ---- bounds.patterns: distinct top-k patterns of random linear routers vs the bounds ----
class PatternsPoint : public PreparedPoint {
 public:
  PatternsPoint(PatternCountParams p) : p_(p) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const auto r = count_routing_patterns(p_, b.seed);
    progress.advance();
    return {pattern_row(p_, r)};
  }

 private:
  PatternCountParams p_;
};

class PatternsStudy : public Study {
 public:
  std::string name() const override { return "bounds.patterns"; }
  std::string summary() const override {
    return "distinct top-k routing patterns of random linear routers on m points vs Eq. 13 (Natarajan) and the arrangement bound";
  }
  std::vector<std::string> columns() const override { return pattern_columns(); }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    PatternCountParams p;
    p.m = static_cast<int>(v.get_int_at_least("params.m", 1));
    p.d = static_cast<int>(v.get_int_at_least("params.d", 1));
    p.T = static_cast<int>(v.get_int_at_least("params.T", 2));
    if (p.T > 64) v.fail("params.T", fmt::format("at most 64 experts (masks are 64-bit words), got {}", p.T));
    p.k = static_cast<int>(v.get_int_at_least("params.k", 1));
    if (p.k >= p.T) v.fail("params.k", fmt::format("must be below T = {}, got {}", p.T, p.k));
    p.d_N = v.get_nonnegative("params.d_N", 0.0);
    if (b.trials < 1) v.fail("monte_carlo.trials", "the number of routers must be >= 1");
    p.routers = static_cast<std::uint64_t>(b.trials);
    return std::make_unique<PatternsPoint>(p);
  }
};

}  // namespace

std::vector<std::string> theorem1_columns() {
  return {"form", "m", "T", "k", "N", "d_N", "C", "rademacher", "delta", "rademacher_term", "log_growth_routing",
          "log_growth_sample", "log_confidence", "denominator", "deviation_term", "total"};
}

std::vector<CsvRow> theorem1_rows(const Theorem1Params& p) {
  std::vector<CsvRow> rows;
  auto head = [&](const char* form) { return CsvRow{std::string(form), p.m, p.T, p.k, p.N, p.d_N, p.C, p.rademacher, p.delta}; };
  auto add = [&](const char* form, std::initializer_list<double> terms) {
    auto row = head(form);
    for (double x : terms) row.push_back(x);
    rows.push_back(std::move(row));
  };
  for (const auto& [form, t] : {std::pair{"printed", theorem1_printed(p)}, std::pair{"eq17", theorem1_eq17(p)},
                                std::pair{"derived", theorem1_derived(p)}})
    add(form, {t.rademacher_term, t.log_growth_routing, t.log_growth_sample, t.log_confidence, t.denominator, t.deviation_term, t.total});
  const double nan = std::nan("");
  for (const auto& [form, e] : {std::pair{"ensemble_printed", naive_ensemble_printed(p.T, p.rademacher, p.m, p.delta)},
                                std::pair{"ensemble_averaged", naive_ensemble_derived(p.C, p.T, p.rademacher, p.m, p.delta, true)}})
    add(form, {e.rademacher_term, nan, nan, nan, nan, e.deviation_term, e.total});
  return rows;
}

std::vector<std::string> pattern_columns() {
  return {"m", "d", "T", "k", "routers", "distinct_patterns", "distinct_masks", "log_patterns", "sample_limited", "d_N",
          "log_eq13_bound", "log_arrangement_bound", "log_all_patterns"};
}

CsvRow pattern_row(const PatternCountParams& p, const PatternCount& r) {
  return {std::int64_t{p.m}, std::int64_t{p.d}, std::int64_t{p.T}, std::int64_t{p.k}, static_cast<std::int64_t>(r.routers),
          static_cast<std::int64_t>(r.distinct_patterns), static_cast<std::int64_t>(r.distinct_masks), r.log_patterns,
          r.sample_limited, r.d_N, r.log_eq13_bound, r.log_arrangement_bound, r.log_all_patterns};
}

Theorem1Params read_theorem1_params(const ParamView& v) {
  Theorem1Params p;
  p.m = v.get_positive("params.m");
  p.T = v.get_positive("params.T");
  p.k = v.get_positive("params.k", 1.0);
  p.N = v.get_positive("params.N", 1.0);
  p.d_N = v.get_nonnegative("params.d_N", 1.0);
  p.C = v.get_positive("params.C", 1.0);
  p.delta = v.get_positive("params.delta", 0.05);
  p.max_gate_weight = v.get_positive("params.max_gate_weight", 1.0);  // derived form only; 1/k for uniform weights
  if (p.max_gate_weight > 1.0) v.fail("params.max_gate_weight", fmt::format("a gate weight is at most 1, got {}", p.max_gate_weight));
  // R_m(H): either given, or r0 / sqrt(m) (the rate of a norm-bounded class), exactly one of them.
  if (v.has("params.rademacher") && v.has("params.rademacher_scale"))
    v.fail("params.rademacher_scale", "give either params.rademacher or params.rademacher_scale (R_m = scale / sqrt(m)), not both");
  p.rademacher = v.has("params.rademacher") ? v.get_nonnegative("params.rademacher", 0.0)
                                            : v.get_nonnegative("params.rademacher_scale", 1.0) / std::sqrt(p.m);
  for (const auto& [key, x] : {std::pair{"params.m", p.m}, std::pair{"params.T", p.T}, std::pair{"params.k", p.k},
                               std::pair{"params.N", p.N}, std::pair{"params.d_N", p.d_N}})
    if (!is_integer(x)) v.fail(key, fmt::format("must be an integer, got {}", x));
  if (p.k > p.T) v.fail("params.k", fmt::format("must be at most T = {}, got {}", p.T, p.k));
  if (p.delta >= 1.0) v.fail("params.delta", fmt::format("must be in (0, 1), got {}", p.delta));
  return p;
}

void add_bounds_studies(std::vector<std::unique_ptr<Study>>& out) {
  out.push_back(std::make_unique<Theorem1Study>());
  out.push_back(std::make_unique<PatternsStudy>());
}

}  // namespace moelab::bounds
