#include "moelab/noisy/noisy_studies.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "moelab/core/parallel.hpp"
#include "moelab/core/stats.hpp"
#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/model_params.hpp"
#include "moelab/noisy/risk.hpp"
#include "moelab/noisy/simulate.hpp"
#include "moelab/noisy/theorems.hpp"

namespace moelab::noisy {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- noisy.risk: sampled risk of the Bayes estimators vs Thms 2-4 ----
class RiskPoint : public PreparedPoint {
 public:
  RiskPoint(Model m, double so2, std::optional<Misroute> mr) : m_(std::move(m)), so2_(so2), mr_(mr) {}
  std::size_t work() const override { return 1; }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    RiskOptions opt;
    opt.test_noise = so2_;
    opt.misroute = mr_;
    const auto r = sample_risk(m_, bayes_dense_estimator(m_), bayes_sparse_estimator(m_), opt, b.trials, b.seed);
    double pd, ps, ed, es;
    if (mr_) {
      // Thm 4 as printed; exact = the risk functional (the paper's first line of A.4) at test noise so2.
      pd = thm4_dense_risk_printed(m_, *mr_), ps = thm4_sparse_risk_printed(m_, *mr_);
      ed = dense_risk(m_, bayes_dense_estimator(m_), opt), es = sparse_risk(m_, bayes_sparse_estimator(m_), opt);
    } else {
      pd = thm3_dense_risk(m_, so2_), ps = thm3_sparse_risk(m_, so2_);
      ed = dense_risk(m_, bayes_dense_estimator(m_), opt), es = sparse_risk(m_, bayes_sparse_estimator(m_), opt);
    }
    progress.advance();
    const double eta = mr_ ? mr_->eta : kNaN;
    return {{so2_, eta, std::string("dense"), r.dense.mean(), r.dense.standard_error(), pd, ed, b.trials},
            {so2_, eta, std::string("sparse"), r.sparse.mean(), r.sparse.standard_error(), ps, es, b.trials}};
  }

 private:
  Model m_;
  double so2_;
  std::optional<Misroute> mr_;
};

class RiskStudy : public Study {
 public:
  std::string name() const override { return "noisy.risk"; }
  std::string summary() const override {
    return "sampled risk of the Bayes estimators vs Thm 2/3 (params.sigma_o2) and Thm 4 (params.eta)";
  }
  std::vector<std::string> columns() const override {
    return {"sigma_o2", "eta", "estimator", "mc_mean", "mc_std_error", "printed", "exact", "samples"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget&) const override {
    Model m = parse_model(v);
    const double so2 = v.get_positive("params.sigma_o2", m.sigma2);
    std::optional<Misroute> mr;
    if (v.has("params.eta")) {
      Misroute r;
      r.eta = v.get_positive("params.eta");
      r.i = static_cast<int>(v.get_int_at_least("params.misroute_from", 0, 0));
      r.j = static_cast<int>(v.get_int_at_least("params.misroute_to", 0, 1));
      if (r.i >= m.k()) v.fail("params.misroute_from", fmt::format("must be < k = {}, got {}", m.k(), r.i));
      if (r.j >= m.k()) v.fail("params.misroute_to", fmt::format("must be < k = {}, got {}", m.k(), r.j));
      if (r.i == r.j) v.fail("params.misroute_to", "must differ from params.misroute_from");
      mr = r;
    }
    return std::make_unique<RiskPoint>(std::move(m), so2, mr);
  }
};

// ---- noisy.excess_risk: min-norm dense vs sparse excess risk against n (Fig. 3, Fig. 6) ----
class ExcessPoint : public PreparedPoint {
 public:
  ExcessPoint(Model m, int n, Allocation a, std::int64_t trials) : m_(std::move(m)), n_(n), a_(a), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const auto rows = parallel_map<ExcessTrial>(static_cast<std::size_t>(trials_), [&](std::size_t t) {
      // Trial streams are addressed by (seed + n, trial): each n is an independent experiment.
      auto r = excess_trial(m_, n_, a_, b.seed + static_cast<std::uint64_t>(n_), t);
      progress.advance();
      return r;
    });
    Welford dense, sparse;
    std::int64_t dense_fb = 0, sparse_fb = 0;
    for (const auto& r : rows) {
      dense.add(r.dense), sparse.add(r.sparse);
      dense_fb += r.dense_fallback, sparse_fb += r.sparse_fallbacks;
    }
    double exact = kNaN;
    if (a_ == Allocation::balanced) {
      const double e = sparse_excess_exact(m_, allocate_samples(m_, n_, a_, 0, 0));
      if (std::isfinite(e)) exact = e;
    }
    const double lead_d = dense_excess_leading_coefficient(m_) / n_;
    const double lead_s = sparse_excess_leading_coefficient(m_) / n_;
    return {{std::int64_t{n_}, std::string("dense"), trials_, dense.mean(), dense.standard_error(), kNaN, lead_d, dense_fb},
            {std::int64_t{n_}, std::string("sparse"), trials_, sparse.mean(), sparse.standard_error(), exact, lead_s, sparse_fb}};
  }

 private:
  Model m_;
  int n_;
  Allocation a_;
  std::int64_t trials_;
};

class ExcessStudy : public Study {
 public:
  std::string name() const override { return "noisy.excess_risk"; }
  std::string summary() const override {
    return "excess risk of min-norm dense and per-expert estimators fitted on n noisy samples (Fig. 3, Fig. 6)";
  }
  std::vector<std::string> columns() const override {
    return {"n", "estimator", "trials", "excess_mean", "excess_std_error", "excess_exact", "excess_leading", "fallbacks"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    Model m = parse_model(v);
    const int n = static_cast<int>(v.get_int_at_least("params.n", 1));
    const auto a = v.get_choice("params.allocation", {"balanced", "multinomial"}, "balanced") == "balanced"
                       ? Allocation::balanced
                       : Allocation::multinomial;
    d_ = m.d();
    return std::make_unique<ExcessPoint>(std::move(m), n, a, b.trials);
  }
  // Least-squares fits of a/n^2 + b/n (weights 1/SE^2) per estimator over the over-determined points
  // n > d, as in the paper's Fig. 2 / Table 1, with standard errors.
  std::vector<std::pair<std::string, std::string>> summarize(const std::vector<CsvRow>& rows) const override {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string est : {"dense", "sparse"}) {
      std::vector<double> c2, c1, y, w;
      for (const auto& r : rows) {
        if (std::get<std::string>(r[1]) != est) continue;
        const double n = static_cast<double>(std::get<std::int64_t>(r[0]));
        const double se = std::get<double>(r[4]);
        if (n <= d_ || !(se > 0) || !std::isfinite(std::get<double>(r[3]))) continue;
        c2.push_back(1 / (n * n)), c1.push_back(1 / n), y.push_back(std::get<double>(r[3])), w.push_back(1 / (se * se));
      }
      if (y.size() < 3) continue;
      const auto f = weighted_least_squares({c2, c1}, y, w);
      out.emplace_back(fmt::format("fit_{}", est),
                       fmt::format("excess = a/n^2 + b/n over {} points with n > d = {}: a = {:.6g} +- {:.3g}, b = {:.6g} "
                                   "+- {:.3g}, chi2/dof = {:.3g}",
                                   y.size(), d_, f.coef[0], f.se[0], f.coef[1], f.se[1], f.chi2 / f.dof));
    }
    return out;
  }

 private:
  mutable int d_ = 0;
};

// ---- noisy.qda_router: Thm 1 / A.7 ----
class RouterPoint : public PreparedPoint {
 public:
  RouterPoint(Model m, int n, int tests, std::int64_t trials) : m_(std::move(m)), n_(n), tests_(tests), trials_(trials) {}
  std::size_t work() const override { return static_cast<std::size_t>(trials_); }
  std::vector<CsvRow> run(const McBudget& b, Progress& progress) override {
    const auto rows = parallel_map<RouterTrial>(static_cast<std::size_t>(trials_), [&](std::size_t t) {
      auto r = router_trial(m_, n_, tests_, b.seed + static_cast<std::uint64_t>(n_), t);
      progress.advance();
      return r;
    });
    Welford ep, ec, eb, xp, xc;
    for (const auto& r : rows) {
      ep.add(r.printed_error), ec.add(r.corrected_error), eb.add(r.bayes_error);
      xp.add(r.printed_error - r.bayes_error), xc.add(r.corrected_error - r.bayes_error);
    }
    const std::int64_t n = n_;
    return {{n, std::string("printed"), ep.mean(), ep.standard_error(), xp.mean(), xp.standard_error(), eb.mean()},
            {n, std::string("corrected"), ec.mean(), ec.standard_error(), xc.mean(), xc.standard_error(), eb.mean()},
            {n, std::string("bayes"), eb.mean(), eb.standard_error(), 0.0, 0.0, eb.mean()}};
  }

 private:
  Model m_;
  int n_, tests_;
  std::int64_t trials_;
};

class RouterStudy : public Study {
 public:
  std::string name() const override { return "noisy.qda_router"; }
  std::string summary() const override { return "QDA router of Thm 1 / A.7: routing error and excess risk against n"; }
  std::vector<std::string> columns() const override {
    return {"n", "rule", "error_mean", "error_std_error", "excess_mean", "excess_std_error", "bayes_error"};
  }
  std::unique_ptr<PreparedPoint> prepare(const ParamView& v, const McBudget& b) const override {
    Model m = parse_model(v);
    const int n = static_cast<int>(v.get_int_at_least("params.n", 1));
    const int tests = static_cast<int>(v.get_int_at_least("params.test_points", 1, 2000));
    const auto counts = allocate_samples(m, n, Allocation::balanced, 0, 0);
    for (int i = 0; i < m.k(); ++i)
      if (counts[static_cast<std::size_t>(i)] <= m.block_size(i))
        v.fail("params.n", fmt::format("QDA needs more samples than features for every expert: expert {} gets {} "
                                       "samples for {} features",
                                       i, counts[static_cast<std::size_t>(i)], m.block_size(i)));
    return std::make_unique<RouterPoint>(std::move(m), n, tests, b.trials);
  }
};

}  // namespace

void add_noisy_studies(std::vector<std::unique_ptr<Study>>& out) {
  out.push_back(std::make_unique<RiskStudy>());
  out.push_back(std::make_unique<ExcessStudy>());
  out.push_back(std::make_unique<RouterStudy>());
}

}  // namespace moelab::noisy
