// noisy, Appendix A.6 (A.6.1 bias, A.6.2 variance of the minimum-norm estimators): the algebraic
// steps of the appendix, checked draw by draw against the fitted estimator (appendix_a6.hpp), and the
// entry-variance step of A.6.2 by Monte-Carlo. docs/errata.md, "A.6.2".
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/noisy/appendix_a6.hpp"
#include "moelab/noisy/detail/claim_support.hpp"

namespace moelab::noisy::detail {

namespace {

using claims::exhaustive_test;

// One expert block of A.6.2: p = 4 features, Sigma = Q diag(0.25, 0.5, 2, 4) Q' (Q the Householder
// reflection of v = (1, 2, 3, 4)), sigma2 = 0.5. Eigenvalues away from 0 and 1 so that lambda and
// lambda^2 differ (by 25% to 267% of lambda + sigma2), a rotated basis so that the eigendecomposition
// is not the identity, and a non-isotropic beta* (A.6.2 drops beta beta': it matters unless beta beta'
// is a multiple of I, which no fixed vector of dimension > 1 is).
constexpr double kA6Sigma2 = 0.5;
Eigen::MatrixXd a6_sigma() {
  Eigen::Vector4d v(1.0, 2.0, 3.0, 4.0);
  const Eigen::Matrix4d q = Eigen::Matrix4d::Identity() - 2.0 * v * v.transpose() / v.squaredNorm();
  return q * Eigen::Vector4d(0.25, 0.5, 2.0, 4.0).asDiagonal() * q.transpose();
}
Eigen::VectorXd a6_beta() { return Eigen::Vector4d(2.0, -1.0, 0.5, 0.25); }

// A relative disagreement of two evaluations of one algebraic identity is rounding when it is below
// 1e3 kappa^2 eps: both sides go through a pseudo-inverse of Xbar (a Gram matrix has condition
// kappa^2); 1e3 covers the few hundred flops of these p <= 12 products. A wrong identity differs by
// O(1) (reported in the notes).
bool agrees(double a, double b, double kappa) {
  const double tol = 1e3 * kappa * kappa * std::numeric_limits<double>::epsilon();
  return std::fabs(a - b) <= tol * std::max({std::fabs(a), std::fabs(b), 1e-300});
}

struct DesignCase {
  std::string name;
  bool dense;
  int n;
};

Evidence check_test_error_split(const CheckBudget& b, const RngKey& key) {
  const Eigen::MatrixXd sigma = a6_sigma();
  const Eigen::VectorXd beta = a6_beta();
  const int p = static_cast<int>(beta.size());
  const A6Design d = draw_a6_block(sigma, kA6Sigma2, 20, key.with("design").seed(), 0);
  const Eigen::VectorXd bhat = min_norm_fit(d.xbar, d.x * beta);
  const Eigen::MatrixXd l = Eigen::LLT<Eigen::MatrixXd>(sigma).matrixL();
  const std::int64_t points = test_points(b);
  const std::uint64_t seed = key.with("test points").seed();
  constexpr std::int64_t kChunk = 4096;
  const auto chunks = static_cast<std::size_t>((points + kChunk - 1) / kChunk);
  const auto parts = parallel_map<std::vector<double>>(chunks, [&](std::size_t c) {
    std::vector<double> out;
    const std::int64_t first = static_cast<std::int64_t>(c) * kChunk, last = std::min(points, first + kChunk);
    for (std::int64_t t = first; t < last; ++t) {
      const RandomStream s(seed, StreamTag::test_sample, static_cast<std::uint64_t>(t));
      Eigen::VectorXd z(p), e(p);
      s.fill_normal(0, static_cast<std::uint64_t>(p), z.data());
      s.fill_normal(static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(p), e.data());
      const Eigen::VectorXd x = l * z;
      const double err = (x + std::sqrt(kA6Sigma2) * e).dot(bhat) - x.dot(beta);
      out.push_back(err * err);
    }
    return out;
  });
  Welford w;
  for (const auto& part : parts)
    for (double v : part) w.add(v);
  const double closed = a6_test_error(sigma, kA6Sigma2, bhat, beta);
  Evidence e = claims::equality_evidence("MC test error of one fitted beta_hat vs bias + variance split", w, closed, kRelevance);
  const Eigen::VectorXd r = bhat - beta;
  e.note = fmt::format("p = 4 block, n = 20, sigma2 = 0.5; bias (b - beta)' Sigma (b - beta) = {:.6g}, variance sigma2 ||b||^2 = "
                       "{:.6g}; MC {:.6g} +- {:.2g}",
                       r.dot(sigma * r), kA6Sigma2 * bhat.squaredNorm(), w.mean(), w.standard_error());
  return e;
}

// The designs of the A.6.1 / A.6.2 identity checks: the p = 4 sparse block and the d = 12 dense model
// (heterogeneous_model_fixed_beta), at sample sizes on both sides of the column rank.
std::vector<DesignCase> full_rank_cases() {
  return {{"sparse n = 8", false, 8}, {"sparse n = 20", false, 20}, {"sparse n = 60", false, 60},
          {"dense n = 24", true, 24}, {"dense n = 60", true, 60}};
}
std::vector<DesignCase> over_parameterised_cases() { return {{"sparse n = 2", false, 2}, {"dense n = 6", true, 6}}; }

template <class F>
void for_each_design(const CheckBudget& b, const RngKey& key, const std::vector<DesignCase>& cases, F&& f) {
  const Model m = heterogeneous_model_fixed_beta();
  const Eigen::MatrixXd sigma_block = a6_sigma(), sigma_dense = mixture_second_moment(m);
  const Eigen::VectorXd beta_block = a6_beta(), beta_dense = m.beta_full();
  const int draws = b.pick(40, 400);
  for (const auto& c : cases) {
    const std::uint64_t seed = key.with(c.name).seed();
    for (int t = 0; t < draws; ++t) {
      const A6Design d = c.dense ? draw_a6_dense(m, c.n, seed, static_cast<std::uint64_t>(t))
                                 : draw_a6_block(sigma_block, kA6Sigma2, c.n, seed, static_cast<std::uint64_t>(t));
      f(c, d, c.dense ? sigma_dense : sigma_block, c.dense ? m.sigma2 : kA6Sigma2, c.dense ? beta_dense : beta_block);
    }
  }
}

Evidence check_a61_bias(const CheckBudget& b, const RngKey& key) {
  std::int64_t cases = 0, bad = 0, cases_c = 0, bad_c = 0;
  double worst_rel = 0.0, control_min_rel = std::numeric_limits<double>::infinity();
  for_each_design(b, key, full_rank_cases(), [&](const DesignCase&, const A6Design& d, const Eigen::MatrixXd& sigma, double,
                                                 const Eigen::VectorXd& beta) {
    const A61Bias r = a61_bias(d, sigma, beta);
    ++cases;
    if (!agrees(r.direct, r.printed, condition_number(d.xbar))) ++bad;
    worst_rel = std::max(worst_rel, std::fabs(r.direct - r.printed) / r.direct);
  });
  for_each_design(b, key.with("control"), over_parameterised_cases(),
                  [&](const DesignCase&, const A6Design& d, const Eigen::MatrixXd& sigma, double, const Eigen::VectorXd& beta) {
                    const A61Bias r = a61_bias(d, sigma, beta);
                    ++cases_c;
                    if (!agrees(r.direct, r.printed, condition_number(d.xbar))) ++bad_c;
                    control_min_rel = std::min(control_min_rel, std::fabs(r.direct - r.printed) / r.direct);
                  });
  Evidence e;
  e.printed = exhaustive_test("(beta_hat - beta)' Sigma (beta_hat - beta) = beta' E' Xbar (Xbar'Xbar)^+ Sigma (Xbar'Xbar)^+ Xbar' E "
                              "beta for full column rank Xbar (sparse p = 4, n = 8..60; dense d = 12, n = 24, 60): violations",
                              cases, bad);
  e.control(exhaustive_test("the same for full ROW rank Xbar (n < p: sparse n = 2, dense n = 6; 'full rank' read the other way, "
                            "where beta_hat - beta also has -(I - Xbar^+ Xbar) beta): violations",
                            cases_c, bad_c));
  e.relevance = 0.0;  // exact evaluation: any violation shows
  e.note = fmt::format("{} designs, largest relative disagreement {:.2g} (rounding: tolerance 1e3 kappa^2 eps); over-parameterised "
                       "control: {} of {} designs disagree, smallest relative gap {:.3g}",
                       cases, worst_rel, bad_c, cases_c, control_min_rel);
  return e;
}

Evidence check_a62_trace(const CheckBudget& b, const RngKey& key) {
  std::int64_t cases = 0, bad_printed = 0, bad_exact = 0, bad_iso = 0;
  double ratio_min = std::numeric_limits<double>::infinity(), ratio_max = 0.0;
  auto cases_all = full_rank_cases();
  for (auto c : over_parameterised_cases()) cases_all.push_back(c);  // A.6.2's identities need no rank condition
  for_each_design(b, key, cases_all, [&](const DesignCase&, const A6Design& d, const Eigen::MatrixXd&, double sigma2,
                                         const Eigen::VectorXd& beta) {
    const A62Variance v = a62_variance(d, sigma2, beta);
    const double kappa = condition_number(d.xbar);
    ++cases;
    if (!agrees(v.direct, v.printed, kappa)) ++bad_printed;
    if (!agrees(v.direct, v.exact, kappa)) ++bad_exact;
    if (!agrees(v.direct, v.isotropic, kappa)) ++bad_iso;
    ratio_min = std::min(ratio_min, v.printed / v.direct), ratio_max = std::max(ratio_max, v.printed / v.direct);
  });
  // What the printed line is instead: its average over beta ~ N(0, I_p) (E beta beta' = I), by Monte-Carlo
  // over beta at one design (reported, not tested: it explains the erratum).
  const A6Design d = draw_a6_block(a6_sigma(), kA6Sigma2, 20, key.with("isotropic average").seed(), 0);
  Welford avg;
  for (int t = 0; t < b.pick(4000, 40000); ++t)
    avg.add(a62_variance(d, kA6Sigma2, random_vector(4, 1.0, key.with("beta draws").seed(), static_cast<std::uint64_t>(t))).direct);
  const double printed_at_d = a62_variance(d, kA6Sigma2, a6_beta()).printed;
  Evidence e;
  e.printed = exhaustive_test("sigma2 ||beta_hat||^2 = sigma2 tr[Xbar^+ X X' Xbar^+'] (A.6.2 lines 2-4, beta beta' dropped): violations",
                              cases, bad_printed);
  e.exact = exhaustive_test("sigma2 ||beta_hat||^2 = sigma2 tr[Xbar^+ X beta beta' X' Xbar^+'] = sigma2 ||Xbar' (Xbar Xbar')^+ X beta||^2: "
                            "violations",
                            cases, bad_exact);
  e.control(exhaustive_test("sigma2 ||beta_hat||^2 = sigma2 (||beta||^2 / p) tr[X' (Xbar Xbar')^+ X] (beta beta' read as ||beta||^2 I / "
                            "p): violations",
                            cases, bad_iso));
  e.relevance = 0.0;
  e.note = fmt::format("{} designs (sparse p = 4 and dense d = 12, n = 2..60); printed / direct from {:.3g} to {:.3g}; the printed "
                       "line is the average over beta ~ N(0, I): at one design MC mean {:.5g} +- {:.2g} vs printed {:.5g}",
                       cases, ratio_min, ratio_max, avg.mean(), avg.standard_error(), printed_at_d);
  return e;
}

Evidence check_a62_entry_variance(const CheckBudget& b, const RngKey& key) {
  const Eigen::MatrixXd sigma = a6_sigma();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(sigma);
  const Eigen::MatrixXd u = es.eigenvectors();
  const Eigen::VectorXd lambda = es.eigenvalues();
  const int p = static_cast<int>(lambda.size());
  constexpr int kRows = 1000;
  const int chunks = b.pick(200, 2000);
  const std::uint64_t seed = key.with("design").seed();
  // Entries of Xbar U, column r divided by its exact variance lambda_r + sigma2 (one scale for every column).
  const auto parts = parallel_map<Eigen::MatrixXd>(static_cast<std::size_t>(chunks), [&](std::size_t c) {
    const A6Design d = draw_a6_block(sigma, kA6Sigma2, kRows, seed, c);
    Eigen::MatrixXd y = d.xbar * u;
    for (int r = 0; r < p; ++r) y.col(r) = y.col(r).array().square() / (lambda(r) + kA6Sigma2);
    return y;
  });
  std::vector<Welford> w(static_cast<std::size_t>(p));
  for (const auto& y : parts)
    for (int r = 0; r < p; ++r)
      for (int t = 0; t < kRows; ++t) w[static_cast<std::size_t>(r)].add(y(t, r));
  std::vector<TestResult> printed, exact;
  std::vector<double> rel;
  Evidence e;
  std::string cols;
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const double l = lambda(r), printed_ratio = (l * l + kA6Sigma2) / (l + kA6Sigma2);
    printed.push_back(claims::equality_test(fmt::format("column {} (lambda = {:.3g}): E y^2 / (lambda + sigma2) = (lambda^2 + sigma2) / "
                                                        "(lambda + sigma2) = {:.4g}",
                                                        r, l, printed_ratio),
                                            w[ur], printed_ratio));
    exact.push_back(claims::equality_test(fmt::format("column {}: E y^2 / (lambda + sigma2) = 1", r), w[ur], 1.0));
    e.control(claims::equality_test(fmt::format("column {}: E y^2 / (lambda + sigma2) = {} (exact off by the relevance)", r, 1 + kRelevance),
                                    w[ur], 1.0 + kRelevance));
    rel.push_back(erratum_relevance(printed_ratio, 1.0));
    cols += fmt::format("{}lambda {:.3g}: {:.5f} +- {:.1g} (printed {:.4g})", r ? "; " : "", l, w[ur].mean(), w[ur].standard_error(),
                        printed_ratio);
  }
  e.printed = claims::combine_bonferroni("entries of Xbar_i U_i have variance lambda_ir^2 + sigma2 (A.6.2 as printed; Bonferroni over "
                                         "columns)",
                                         printed);
  e.exact = claims::combine_bonferroni("entries of Xbar_i U_i have variance lambda_ir + sigma2 (Lambda_i the eigenvalues of Sigma_i)", exact);
  e.relevance = combined_relevance(e.printed, printed, rel);
  e.note = fmt::format("Sigma eigenvalues 0.25, 0.5, 2, 4 (rotated), sigma2 = 0.5, {} rows (X = Z L', L Cholesky; U from the "
                       "eigendecomposition); mean y^2 / (lambda + sigma2) per column: {}",
                       static_cast<std::int64_t>(chunks) * kRows, cols);
  return e;
}

}  // namespace

void register_a6_claims(claims::Registry& r) {
  r.add({"noisy.a6.test_error_split", "noisy, A.6 (first display)",
         "The test error of a fitted beta_hat splits into the bias E_x[x'(beta_hat - beta)]^2 and the variance E_e(e' beta_hat)^2.",
         ClaimKind::equality, check_test_error_split});
  r.add({"noisy.a61.bias_identity", "noisy, A.6.1",
         "Since Xbar is full rank, beta_hat - beta* = -(Xbar'Xbar)^+ Xbar' E beta*, so the bias term is beta*' E' Xbar (Xbar'Xbar)^+ "
         "Sigma (Xbar'Xbar)^+ Xbar' E beta*, for sparse and dense estimators.",
         ClaimKind::equality, check_a61_bias});
  r.add({"noisy.a62.variance_trace", "noisy, A.6.2",
         "Var(beta_hat) = sigma2 tr[(Xbar'Xbar)^+ Xbar' X beta beta' X' Xbar (Xbar'Xbar)^+] = sigma2 tr[Xbar^+ X X' Xbar^+'] = sigma2 "
         "tr[X' (Xbar Xbar')^+ X].",
         ClaimKind::equality, check_a62_trace});
  r.add({"noisy.a62.entry_variance", "noisy, A.6.2",
         "Xbar_i U_i = Z_i Lambda_i^1/2 + sigma W_i U_i has independent entries of variance lambda_ir^2 + sigma2.",
         ClaimKind::equality, check_a62_entry_variance});
}

}  // namespace moelab::noisy::detail
