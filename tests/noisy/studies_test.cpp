// The noisy studies in the declarative form: declarations, validation by key, rows by name, and the
// claims' shared experiment (simulate_excess) giving the study's numbers.
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/keys.hpp"
#include "moelab/noisy/excess_fit.hpp"
#include "moelab/noisy/model_params.hpp"
#include "moelab/noisy/simulate.hpp"
#include "moelab/noisy/theorems.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "scenario/input_error_helpers.hpp"

namespace moelab::noisy {
void add_studies(std::vector<StudyDef>& out);
}

using namespace moelab;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

const StudyDef& study(const std::string& name) {
  static const std::vector<StudyDef> all = [] {
    std::vector<StudyDef> s;
    noisy::add_studies(s);
    return s;
  }();
  for (const auto& s : all)
    if (s.name == name) return s;
  FAIL("no study " << name);
  throw std::logic_error("unreachable");
}

const std::string kModel =
    "[model]\nk = 2\nblock_size = 3\nsigma2 = 0.5\n[model.covariance]\nkind = \"toeplitz\"\nrho = 0.3\n"
    "[model.beta]\nkind = \"random\"\nseed = 5\n";

McBudget budget(std::int64_t trials, std::uint64_t seed = 3) {
  McBudget b;
  b.trials = trials;
  b.seed = seed;
  return b;
}

std::string error_of(const std::string& name, const std::string& text) {
  return test::expect_input_error([&] { (void)run_study_text(study(name), text, budget(2)); }).what();
}

noisy::Model model_of(const std::string& text) {
  const toml::table t = toml::parse(text, std::string_view("m.toml"));
  return noisy::parse_model(ParamView(t, "m.toml"));
}

}  // namespace

TEST_CASE("the noisy studies declare documented params, unique documented columns and a trial unit",
          "[noisy][studies]") {
  std::vector<StudyDef> all;
  noisy::add_studies(all);
  std::set<std::string> names;
  for (const auto& s : all) {
    INFO(s.name);
    names.insert(s.name);
    CHECK_FALSE(s.summary.empty());
    CHECK_FALSE(s.figure.empty());
    CHECK_FALSE(s.trial_unit.empty());  // all three are Monte-Carlo
    std::set<std::string> cols;
    for (const auto& c : s.columns) {
      CHECK(cols.insert(c.name).second);
      CHECK_FALSE(c.doc.empty());
    }
    for (const auto& p : s.params) CHECK_FALSE(p.doc.empty());
    CHECK_FALSE(describe_study(s).empty());
  }
  CHECK(names == std::set<std::string>{"noisy.risk", "noisy.excess_risk", "noisy.qda_router"});
  // The column names the plots and the golden CSV select (plots/noisy_*.gp).
  CHECK(study("noisy.excess_risk").column_names() ==
        std::vector<std::string>{"n", "estimator", "trials", "excess_mean", "excess_std_error", "excess_exact",
                                 "excess_leading", "fallbacks", "d"});
  CHECK(study("noisy.risk").column_names() ==
        std::vector<std::string>{"sigma_o2", "eta", "estimator", "mc_mean", "mc_std_error", "printed", "exact", "samples"});
  CHECK(study("noisy.qda_router").column_names() ==
        std::vector<std::string>{"n", "rule", "error_mean", "error_std_error", "excess_mean", "excess_std_error",
                                 "bayes_error"});
}

TEST_CASE("bad noisy study parameters are rejected before running, naming the key", "[noisy][studies][errors]") {
  CHECK_THAT(error_of("noisy.excess_risk", kModel + "[params]\nn = 0\n"), Contains("params.n") && Contains("got 0"));
  CHECK_THAT(error_of("noisy.excess_risk", kModel + "[params]\nn = 10\nallocation = \"random\"\n"),
             Contains("params.allocation"));
  CHECK_THAT(error_of("noisy.excess_risk", "[params]\nn = 10\n"), Contains("model"));
  CHECK_THAT(error_of("noisy.excess_risk", kModel + "[params]\nn = 10\nm = 3\n"), Contains("params.m"));
  CHECK_THAT(error_of("noisy.risk", kModel + "[params]\nsigma_o2 = -1\n"), Contains("params.sigma_o2"));
  CHECK_THAT(error_of("noisy.risk", kModel + "[params]\nmisroute_from = 1\n"),
             Contains("params.misroute_from") && Contains("params.eta"));
  CHECK_THAT(error_of("noisy.risk", kModel + "[params]\neta = 2\nmisroute_to = 2\n"),
             Contains("params.misroute_to") && Contains("< k = 2"));
  CHECK_THAT(error_of("noisy.risk", kModel + "[params]\neta = 2\nmisroute_from = 1\nmisroute_to = 1\n"),
             Contains("params.misroute_to") && Contains("differ"));
  CHECK_THAT(error_of("noisy.qda_router", kModel + "[params]\nn = 6\n"), Contains("params.n") && Contains("QDA"));
  CHECK_THAT(error_of("noisy.qda_router", kModel + "[params]\nn = 40\ntest_points = 0\n"), Contains("params.test_points"));
}

TEST_CASE("the excess-risk study's rows equal simulate_excess at the point's key", "[noisy][studies][excess]") {
  // One point, no sweep: its key is (suite seed, study name). The Sec. 4.5 claims call
  // simulate_excess; the study runs excess_trial per trial and reduces with summarize_excess.
  const std::int64_t trials = 12;
  const auto t = run_study_text(study("noisy.excess_risk"), kModel + "[params]\nn = 20\n", budget(trials));
  const TableView v(t);
  REQUIRE(v.size() == 2);
  const auto key = RngKey::root(3).with("noisy.excess_risk");
  const auto s = noisy::simulate_excess(model_of(kModel), 20, noisy::Allocation::balanced, trials, key.seed());
  CHECK(v.text(0, "estimator") == "dense");
  CHECK(v.real(0, "excess_mean") == s.dense.mean());
  CHECK(v.real(1, "excess_mean") == s.sparse.mean());
  CHECK(v.real(1, "excess_std_error") == s.sparse.standard_error());
  CHECK(v.integer(0, "trials") == trials);
  CHECK(v.integer(0, "d") == 6);
  CHECK(std::isnan(v.real(0, "excess_exact")));
  CHECK(std::isfinite(v.real(1, "excess_exact")));  // n_i = 10 > d_i + 1 = 4
}

TEST_CASE("the excess-risk summary fits a/n^2 + b/n over the points with n > d", "[noisy][studies][excess]") {
  const auto t = run_study_text(study("noisy.excess_risk"),
                                kModel + "[sweep]\n\"params.n\" = [4, 12, 24, 48, 96]\n", budget(20));
  std::string dense, sparse;
  for (const auto& [k, val] : t.metadata) {
    if (k == "fit_dense") dense = val;
    if (k == "fit_sparse") sparse = val;
  }
  CHECK_THAT(dense, Contains("over 4 points with n > d = 6"));  // n = 4 is left out
  CHECK_THAT(sparse, Contains("over 4 points with n > d = 6"));
  // The printed a and b are the weighted least-squares solution computed here from the rows, by the
  // 2 x 2 normal equations of mean ~ a/n^2 + b/n with weights 1/SE^2 (not through fit_excess_order).
  const TableView v(t);
  for (const std::string est : {"dense", "sparse"}) {
    double s22 = 0, s21 = 0, s11 = 0, y2 = 0, y1 = 0;
    for (std::size_t r = 0; r < v.size(); ++r) {
      if (v.text(r, "estimator") != est || v.integer(r, "n") <= 6) continue;
      const double n = static_cast<double>(v.integer(r, "n")), se = v.real(r, "excess_std_error");
      const double w = 1.0 / (se * se), x2 = 1.0 / (n * n), x1 = 1.0 / n, y = v.real(r, "excess_mean");
      s22 += w * x2 * x2, s21 += w * x2 * x1, s11 += w * x1 * x1, y2 += w * x2 * y, y1 += w * x1 * y;
    }
    const double det = s22 * s11 - s21 * s21;
    const double a = (s11 * y2 - s21 * y1) / det, b = (s22 * y1 - s21 * y2) / det;
    const std::string& text = est == "dense" ? dense : sparse;
    INFO(est << ": " << text << " | here a = " << a << ", b = " << b);
    const auto a_at = text.find(": a = "), b_at = text.find(", b = ");
    REQUIRE(a_at != std::string::npos);
    REQUIRE(b_at != std::string::npos);
    // The metadata prints 6 significant digits: a relative 1e-5 covers the rounding, not a wrong fit.
    CHECK_THAT(std::stod(text.substr(a_at + 6)), WithinRel(a, 1e-5));
    CHECK_THAT(std::stod(text.substr(b_at + 6)), WithinRel(b, 1e-5));
    // Control: the unweighted fit differs from the weighted one by more than that rounding here (the
    // standard errors fall with n), so a fit that dropped the weights would be caught.
    double u22 = 0, u21 = 0, u11 = 0, v2 = 0, v1 = 0;
    for (std::size_t r = 0; r < v.size(); ++r) {
      if (v.text(r, "estimator") != est || v.integer(r, "n") <= 6) continue;
      const double n = static_cast<double>(v.integer(r, "n")), x2 = 1.0 / (n * n), x1 = 1.0 / n, y = v.real(r, "excess_mean");
      u22 += x2 * x2, u21 += x2 * x1, u11 += x1 * x1, v2 += x2 * y, v1 += x1 * y;
    }
    const double bu = (u22 * v1 - u21 * v2) / (u22 * u11 - u21 * u21);
    CHECK_FALSE(std::fabs(bu - b) <= 1e-5 * std::fabs(b));
  }
}

TEST_CASE("fit_excess_order recovers a and b from exact data and skips unusable points", "[noisy][excess]") {
  const double a = 3.0, b = 0.25;
  std::vector<double> n{50, 100, 200, 400, 800, 7}, mean, se;
  for (double x : n) mean.push_back(a / (x * x) + b / x), se.push_back(1e-4 / x);
  se.back() = 0.0;  // no standard error: skipped
  const auto f = noisy::fit_excess_order(n, mean, se);
  REQUIRE(f);
  CHECK(f->points == 5);
  CHECK_THAT(f->a(), WithinRel(a, 1e-8));  // exact data: only rounding (observed ~1e-12)
  CHECK_THAT(f->b(), WithinRel(b, 1e-8));
  const std::vector<double> two{1, 2};
  CHECK_FALSE(noisy::fit_excess_order(two, two, two));
}

TEST_CASE("the risk study's printed and exact columns agree at Thm 2 and Thm 3 and differ under Thm 4",
          "[noisy][studies][risk]") {
  const auto t = run_study_text(study("noisy.risk"), kModel + "[sweep]\n\"params.sigma_o2\" = [0.5, 2.0]\n", budget(4000));
  const TableView v(t);
  REQUIRE(v.size() == 4);
  for (std::size_t r = 0; r < v.size(); ++r) {
    CHECK(std::isnan(v.real(r, "eta")));
    CHECK_THAT(v.real(r, "printed"), WithinRel(v.real(r, "exact"), 1e-10));  // the same closed form two ways
    CHECK(v.integer(r, "samples") == 4000);
  }
  const auto m = run_study_text(study("noisy.risk"), kModel + "[params]\neta = 1.5\n", budget(4000));
  const TableView w(m);
  REQUIRE(w.size() == 2);
  CHECK(w.real(0, "eta") == 1.5);
  CHECK(std::fabs(w.real(1, "printed") - w.real(1, "exact")) > 1e-3 * w.real(1, "exact"));  // Thm 4 erratum
}

TEST_CASE("the risk study's Monte-Carlo column agrees with the exact risk within 4 SE, and rejects a wrong form",
          "[noisy][studies][risk]") {
  // 4 standard errors: a two-sided miss has probability ~6e-5 per row at a fixed seed (8 rows here).
  // The standard error is the sample's own (4000 test points), so the tolerance shrinks as 1/sqrt(N).
  const auto t = run_study_text(study("noisy.risk"), kModel + "[sweep]\n\"params.sigma_o2\" = [0.5, 2.0]\n", budget(4000));
  const TableView v(t);
  REQUIRE(v.size() == 4);
  for (std::size_t r = 0; r < v.size(); ++r) {
    INFO("row " << r << ": sigma_o2 " << v.real(r, "sigma_o2") << " " << v.text(r, "estimator") << ": mc "
                << v.real(r, "mc_mean") << " +- " << v.real(r, "mc_std_error") << ", exact " << v.real(r, "exact"));
    REQUIRE(v.real(r, "mc_std_error") > 0.0);
    CHECK(std::fabs(v.real(r, "mc_mean") - v.real(r, "exact")) <= 4.0 * v.real(r, "mc_std_error"));
  }
  // Control: the exact risk at the other test-noise level (the risk as if sigma_o2 were ignored, i.e.
  // Thm 2's value used at Thm 3's point and back) must be more than 4 SE from each Monte-Carlo mean.
  for (std::size_t r = 0; r < 2; ++r) {
    INFO(v.text(r, "estimator") << ": exact at 0.5 " << v.real(r, "exact") << " vs at 2.0 " << v.real(r + 2, "exact"));
    CHECK(std::fabs(v.real(r, "mc_mean") - v.real(r + 2, "exact")) > 4.0 * v.real(r, "mc_std_error"));
    CHECK(std::fabs(v.real(r + 2, "mc_mean") - v.real(r, "exact")) > 4.0 * v.real(r + 2, "mc_std_error"));
  }
  // Under Thm 4's mis-routing the printed form (the erratum) is rejected by the same 4 SE rule and
  // the exact one accepted.
  const auto m = run_study_text(study("noisy.risk"), kModel + "[params]\neta = 1.5\n", budget(20000));
  const TableView w(m);
  REQUIRE(w.size() == 2);
  for (std::size_t r = 0; r < w.size(); ++r) {
    INFO(w.text(r, "estimator") << ": mc " << w.real(r, "mc_mean") << " +- " << w.real(r, "mc_std_error") << ", exact "
                                << w.real(r, "exact") << ", printed " << w.real(r, "printed"));
    CHECK(std::fabs(w.real(r, "mc_mean") - w.real(r, "exact")) <= 4.0 * w.real(r, "mc_std_error"));
  }
  CHECK(std::fabs(w.real(1, "mc_mean") - w.real(1, "printed")) > 4.0 * w.real(1, "mc_std_error"));
}

namespace {

/// Misrouting rates of rules applied to points drawn here from the model (std::mt19937_64, not the
/// library's Philox streams or TestPointSampler): a route i with probability p_i, x = [0.., x_i, ..0] + e
/// with x_i = chol(Sigma_i) z. The Bayes rule is the argmax over i of log p_i + log N(xbar; 0, D_i) with
/// D_i the full d x d covariance (sigma2 I, block i Sigma_i + sigma2 I): the likelihood itself, not the
/// library's form (block score plus the noise-only ratio). The near miss leaves sigma2 out of the routed
/// block (D_i's block i = Sigma_i): the rule a reader who forgets the feature noise would write.
struct SimulatedRouting {
  double bayes = 0.0, near_miss = 0.0;
  std::int64_t points = 0;
};

SimulatedRouting simulate_routing(const noisy::Model& m, std::int64_t points, std::uint64_t seed) {
  const int k = m.k(), d = m.d();
  std::vector<Eigen::MatrixXd> chol;
  std::vector<Eigen::LDLT<Eigen::MatrixXd>> bayes, near;
  std::vector<double> bayes_logdet, near_logdet;
  for (int i = 0; i < k; ++i) {
    const auto& S = m.sigma[static_cast<std::size_t>(i)];
    chol.push_back(Eigen::LLT<Eigen::MatrixXd>(S).matrixL());
    for (bool with_noise : {true, false}) {
      Eigen::MatrixXd D = m.sigma2 * Eigen::MatrixXd::Identity(d, d);
      D.block(m.offset(i), m.offset(i), m.block_size(i), m.block_size(i)) =
          S + (with_noise ? m.sigma2 : 0.0) * Eigen::MatrixXd::Identity(m.block_size(i), m.block_size(i));
      Eigen::LDLT<Eigen::MatrixXd> f(D);
      (with_noise ? bayes_logdet : near_logdet).push_back(f.vectorD().array().log().sum());
      (with_noise ? bayes : near).push_back(std::move(f));
    }
  }
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  std::int64_t wrong_bayes = 0, wrong_near = 0;
  Eigen::VectorXd x(d);
  for (std::int64_t s = 0; s < points; ++s) {
    double u = uniform(gen);
    int route = 0;
    while (route + 1 < k && u >= m.p[static_cast<std::size_t>(route)]) u -= m.p[static_cast<std::size_t>(route++)];
    for (int j = 0; j < d; ++j) x(j) = std::sqrt(m.sigma2) * normal(gen);
    Eigen::VectorXd z(m.block_size(route));
    for (int j = 0; j < z.size(); ++j) z(j) = normal(gen);
    x.segment(m.offset(route), z.size()) += chol[static_cast<std::size_t>(route)] * z;
    int best_b = 0, best_n = 0;
    double sb = -INFINITY, sn = -INFINITY;
    for (int i = 0; i < k; ++i) {
      const auto ii = static_cast<std::size_t>(i);
      const double lp = std::log(m.p[ii]);
      const double b = lp - 0.5 * bayes_logdet[ii] - 0.5 * x.dot(bayes[ii].solve(x));
      const double n = lp - 0.5 * near_logdet[ii] - 0.5 * x.dot(near[ii].solve(x));
      if (b > sb) sb = b, best_b = i;
      if (n > sn) sn = n, best_n = i;
    }
    wrong_bayes += best_b != route;
    wrong_near += best_n != route;
  }
  const double inv = 1.0 / static_cast<double>(points);
  return {static_cast<double>(wrong_bayes) * inv, static_cast<double>(wrong_near) * inv, points};
}

}  // namespace

TEST_CASE("the router study: trained rules above the Bayes rule, whose error an independent simulation reproduces",
          "[noisy][studies][router]") {
  // 800 trained routers at n = 40 (20 samples per expert for 3 features), 1000 test points each: the
  // Bayes error's SE is ~4e-4, so the near miss below (0.0066 above the Bayes error) is ~10 SE away.
  const std::int64_t trials = 800;
  const auto t = run_study_text(study("noisy.qda_router"), kModel + "[params]\nn = 40\ntest_points = 1000\n", budget(trials));
  const TableView v(t);
  REQUIRE(v.size() == 3);
  CHECK(v.text(0, "rule") == "printed");
  CHECK(v.text(1, "rule") == "corrected");
  CHECK(v.text(2, "rule") == "bayes");
  // Both trained rules misroute more than the Bayes rule (the Bayes rule is optimal; the printed score
  // lacks the noise-only coordinates' likelihood, the corrected one estimates C_i from 20 samples):
  // their mean excess, paired on the same test points, is above 4 of its standard errors.
  for (std::size_t r : {std::size_t{0}, std::size_t{1}}) {
    INFO(v.text(r, "rule") << ": excess " << v.real(r, "excess_mean") << " +- " << v.real(r, "excess_std_error"));
    CHECK(v.real(r, "excess_std_error") > 0.0);
    CHECK(v.real(r, "excess_mean") > 4.0 * v.real(r, "excess_std_error"));
    // The mean of the paired differences is the difference of the means (Welford rounding, ~1e-16).
    CHECK_THAT(v.real(r, "error_mean") - v.real(2, "error_mean"), WithinAbs(v.real(r, "excess_mean"), 1e-12));
  }
  // The Bayes row's error against a misrouting rate simulated here (simulate_routing, 1e6 points):
  // within 5 combined standard errors (binomial SE of the simulation; the study's SE over trials).
  const auto sim = simulate_routing(model_of(kModel), 1000000, 20250611);
  const double bayes = v.real(2, "error_mean"), bayes_se = v.real(2, "error_std_error");
  const double sim_se = std::sqrt(sim.bayes * (1.0 - sim.bayes) / static_cast<double>(sim.points));
  const double se = std::sqrt(bayes_se * bayes_se + sim_se * sim_se);
  INFO("Bayes error: study " << bayes << " +- " << bayes_se << ", simulated " << sim.bayes << " +- " << sim_se
                             << "; near miss (sigma2 left out of the routed block) " << sim.near_miss);
  CHECK(bayes_se > 0.0);
  CHECK(std::fabs(bayes - sim.bayes) < 5.0 * se);
  CHECK(v.real(0, "bayes_error") == bayes);
  // Control: the near-miss rule's simulated rate is rejected by the same test.
  const double near_se = std::sqrt(bayes_se * bayes_se + sim.near_miss * (1.0 - sim.near_miss) / static_cast<double>(sim.points));
  CHECK(std::fabs(bayes - sim.near_miss) > 5.0 * near_se);
}

TEST_CASE("balanced training sets: n x dense excess approaches the stratified sandwich trace, not tr(H^-1 S)",
          "[noisy][excess][mc]") {
  // k = 4 experts of 2 features: the per-expert score means g_i are large against q_i C_i, so the
  // two coefficients differ by several standard errors at this budget (the sibling check below).
  noisy::Model m = model_of("[model]\nk = 4\nblock_size = 2\nsigma2 = 1.0\n[model.covariance]\nkind = \"identity\"\n"
                            "scale = 4.0\n[model.beta]\nkind = \"ones\"\n");
  const int n = 4000;
  const auto s = noisy::simulate_excess(m, n, noisy::Allocation::balanced, 3000, RngKey::root(11).with("strat").seed());
  const Welford w = s.dense.scaled(n);
  const double strat = noisy::dense_excess_leading_coefficient_stratified(m);
  const double iid = noisy::dense_excess_leading_coefficient(m);
  INFO("n x excess " << w.mean() << " +- " << w.standard_error() << "; stratified " << strat << ", iid " << iid);
  // 4 standard errors plus the O(d/n) finite-size term (d/n = 0.002 relative).
  CHECK(std::fabs(w.mean() - strat) < 4 * w.standard_error() + 0.002 * strat);
  CHECK(std::fabs(w.mean() - iid) > 4 * w.standard_error() + 0.002 * iid);
}
