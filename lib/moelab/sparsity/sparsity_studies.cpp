#include "moelab/sparsity/sparsity_studies.hpp"

#include <cmath>
#include <string>

#include <fmt/format.h>

namespace moelab::sparsity {

namespace {

CsvRow param_cells(const TradeoffParams& p, EstimationForm f) {
  return {std::string(to_string(f)), p.N, p.m, p.d_N, p.T, p.a, p.b, p.delta};
}
const std::vector<std::string> kParamColumns{"form", "N", "m", "d_N", "T", "a", "b", "delta"};

std::vector<std::string> with_params(std::vector<std::string> tail) {
  auto c = kParamColumns;
  c.insert(c.end(), tail.begin(), tail.end());
  return c;
}

// ---- sparsity.kstar ----
class KStarPoint_ : public PreparedPoint {
 public:
  KStarPoint_(TradeoffParams p, EstimationForm f) : p_(p), f_(f) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget&, Progress& progress) override {
    progress.advance();
    return {kstar_row(p_, f_)};
  }

 private:
  TradeoffParams p_;
  EstimationForm f_;
};

class KStarStudy : public Study {
 public:
  std::string name() const override { return "sparsity.kstar"; }
  std::string summary() const override { return "optimal number of active experts k* (integer and real) of the compositional trade-off"; }
  std::vector<std::string> columns() const override { return kstar_columns(); }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget&) const override {
    const auto f = read_estimation_form(v);
    return std::make_unique<KStarPoint_>(read_tradeoff_params(v), f);
  }
};

// ---- sparsity.tradeoff ----
class TradeoffPoint : public PreparedPoint {
 public:
  TradeoffPoint(TradeoffParams p, EstimationForm f) : p_(p), f_(f) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget&, Progress& progress) override {
    progress.advance();
    return tradeoff_rows(p_, f_);
  }

 private:
  TradeoffParams p_;
  EstimationForm f_;
};

class TradeoffStudy : public Study {
 public:
  std::string name() const override { return "sparsity.tradeoff"; }
  std::string summary() const override { return "E_approx, E_est and their sum for k = 1..T (compositional Sec. 4.3)"; }
  std::vector<std::string> columns() const override { return tradeoff_columns(); }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget&) const override {
    const auto p = read_tradeoff_params(v);
    if (p.T > 1000000) v.fail("params.T", fmt::format("writes one row per k: at most 1e6, got {}", p.T));
    return std::make_unique<TradeoffPoint>(p, read_estimation_form(v));
  }
};

}  // namespace

std::vector<std::string> kstar_columns() {
  return with_params({"k_star", "error_at_k_star", "k_star_real", "error_at_k_star_real", "real_at_boundary",
                      "approximation_at_k_star", "estimation_at_k_star"});
}

CsvRow kstar_row(const TradeoffParams& p, EstimationForm f) {
  const auto i = integer_k_star(p, f);
  const auto r = real_k_star(p, f);
  auto row = param_cells(p, f);
  const double k = static_cast<double>(i.k);
  for (CsvCell c : {CsvCell{i.k}, CsvCell{i.error}, CsvCell{r.k}, CsvCell{r.error}, CsvCell{std::int64_t{r.at_boundary}},
                    CsvCell{approximation_error(k, p)}, CsvCell{estimation_error(k, p, f)}})
    row.push_back(c);
  return row;
}

std::vector<std::string> tradeoff_columns() { return with_params({"k", "approximation", "estimation", "total", "is_k_star"}); }

std::vector<CsvRow> tradeoff_rows(const TradeoffParams& p, EstimationForm f) {
  std::vector<CsvRow> rows;
  const auto best = integer_k_star(p, f).k;
  for (std::int64_t k = 1; k <= p.T; ++k) {
    const double kd = static_cast<double>(k);
    auto row = param_cells(p, f);
    for (CsvCell c : {CsvCell{k}, CsvCell{approximation_error(kd, p)}, CsvCell{estimation_error(kd, p, f)},
                      CsvCell{total_error(kd, p, f)}, CsvCell{std::int64_t{k == best}}})
      row.push_back(c);
    rows.push_back(std::move(row));
  }
  return rows;
}

const char* to_string(EstimationForm f) {
  switch (f) {
    case EstimationForm::definition5: return "definition5";
    case EstimationForm::definition5_e: return "definition5_e";
    case EstimationForm::theorem1: return "theorem1";
  }
  return "?";
}

EstimationForm read_estimation_form(const ParamView& v) {
  const auto s = v.get_choice("params.form", {"definition5", "definition5_e", "theorem1"}, "definition5");
  return s == "theorem1" ? EstimationForm::theorem1 : s == "definition5_e" ? EstimationForm::definition5_e : EstimationForm::definition5;
}

TradeoffParams read_tradeoff_params(const ParamView& v) {
  TradeoffParams p;
  p.N = v.get_positive("params.N");
  p.m = v.get_positive("params.m");
  p.d_N = v.get_positive("params.d_N", 1.0);
  p.T = v.get_int_at_least("params.T", 1);
  p.a = v.get_positive("params.a", 1.0);
  p.b = v.get_positive("params.b", 1.0);
  p.delta = v.get_positive("params.delta", 0.05);
  if (p.N < 1.0) v.fail("params.N", fmt::format("must be >= 1, got {}", p.N));
  if (p.m < 1.0) v.fail("params.m", fmt::format("must be >= 1, got {}", p.m));
  if (p.delta >= 1.0) v.fail("params.delta", fmt::format("must be in (0, 1), got {}", p.delta));
  return p;
}

void add_sparsity_studies(std::vector<std::unique_ptr<Study>>& out) {
  out.push_back(std::make_unique<KStarStudy>());
  out.push_back(std::make_unique<TradeoffStudy>());
}

}  // namespace moelab::sparsity
