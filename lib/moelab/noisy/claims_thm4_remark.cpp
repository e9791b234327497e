// noisy, the remark after Theorem 4 (Sec. 4.3): "when p_r = 0 for r != i, j (only experts i and j have
// non-zero selection probabilities), the dense estimator might handle such specific perturbations
// more effectively than a sparse estimator". Checked on the exact mis-routed risks (the paper's first
// line of A.4; Thm 4 as printed is an erratum, claims_thm4.cpp): over random models with p_r = 0 the
// dense risk is never above the sparse one, at a fixed model by Monte-Carlo too, and the same
// statement without p_r = 0 is refuted (docs/errata.md, "Theorem 4, the remark on p_r = 0").
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/noisy/bayes.hpp"
#include "moelab/noisy/detail/claim_support.hpp"
#include "moelab/noisy/simulate.hpp"
#include "moelab/noisy/theorems.hpp"

namespace moelab::noisy::detail {

namespace {

using claims::exhaustive_test;

constexpr Misroute kRemarkMisroute{0, 1, 1.5};

// A random model of k experts (blocks of 1..5 features, Sigma = G G' c + 1e-3 I with c log-normal,
// beta* with a log-normal scale, sigma2 = e^(2 N), eta = 1 + e^N), everything from (seed, trial).
// Routing probabilities: `only_ij` puts all mass on experts 0 and 1 (p_0 ~ U(0.01, 0.99), p_r = 0
// otherwise, the remark's case); else p is uniform on the simplex (every p_r > 0).
struct RandomCase {
  Model m;
  Misroute r;
};
RandomCase random_case(int k, bool only_ij, std::uint64_t seed, std::uint64_t trial) {
  // Normal and uniform draw j of one stream share a Philox block: two streams (trials 2t, 2t + 1).
  const RandomStream sn(seed, StreamTag::beta_star, 2 * trial), su(seed, StreamTag::beta_star, 2 * trial + 1);
  std::uint64_t jn = 0, ju = 0;
  auto normal = [&] { return sn.normal(jn++); };
  auto uniform = [&] { return su.uniform(ju++); };
  RandomCase c;
  for (int q = 0; q < k; ++q) {
    const int size = 1 + static_cast<int>(std::floor(5.0 * uniform()));
    Eigen::MatrixXd g(size, size);
    for (int a = 0; a < size; ++a)
      for (int b2 = 0; b2 < size; ++b2) g(a, b2) = normal();
    const double scale = std::exp(1.5 * normal());
    c.m.sigma.push_back(g * g.transpose() * scale + 1e-3 * Eigen::MatrixXd::Identity(size, size));
    Eigen::VectorXd beta(size);
    const double bscale = std::exp(normal());
    for (int a = 0; a < size; ++a) beta(a) = bscale * normal();
    c.m.beta_star.push_back(beta);
  }
  c.m.p.assign(static_cast<std::size_t>(k), 0.0);
  if (only_ij) {
    c.m.p[0] = 0.01 + 0.98 * uniform();
    c.m.p[1] = 1.0 - c.m.p[0];
  } else {  // uniform on the simplex: normalised exponentials
    double total = 0.0;
    for (auto& p : c.m.p) total += (p = -std::log(uniform()));
    for (auto& p : c.m.p) p /= total;
  }
  c.m.sigma2 = std::exp(2.0 * normal());
  c.r = Misroute{0, 1, 1.0 + std::exp(normal())};
  return c;
}

// The Monte-Carlo model: the first two experts of heterogeneous_model_fixed_beta (sizes 3, 4), a third
// expert (size 5) with p_3 = 0, p = (0.6, 0.4, 0), sigma2 = 0.5, eta = 1.5.
Model remark_model() {
  Model m = heterogeneous_model_fixed_beta();
  m.p = {0.6, 0.4, 0.0};
  return m;
}

Evidence check_remark_pr0(const CheckBudget& b, const RngKey& key) {
  const int models = b.pick(3000, 30000);
  // Exact closed forms over random models; dense <= sparse up to rounding (1e-12 relative: both are
  // sums of a few quadratic forms of well-conditioned (p Sigma + sigma2 I)^-1).
  std::int64_t cases = 0, bad = 0, cases_c = 0, bad_c = 0;
  double min_margin = 1e300;
  for (int k : {2, 3, 4}) {
    const std::uint64_t seed = key.with("p_r = 0", k).seed(), seed_c = key.with("p_r > 0", k).seed();
    for (int t = 0; t < models; ++t) {
      const auto c = random_case(k, true, seed, static_cast<std::uint64_t>(t));
      const double dense = thm4_dense_risk_exact(c.m, c.r), sparse = thm4_sparse_risk_exact(c.m, c.r);
      ++cases;
      if (dense > sparse * (1.0 + 1e-12)) ++bad;
      min_margin = std::min(min_margin, (sparse - dense) / sparse);
      if (k == 2) continue;  // the control needs an expert r != i, j
      const auto cc = random_case(k, false, seed_c, static_cast<std::uint64_t>(t));
      ++cases_c;
      if (thm4_dense_risk_exact(cc.m, cc.r) > thm4_sparse_risk_exact(cc.m, cc.r) * (1.0 + 1e-12)) ++bad_c;
    }
  }
  // Monte-Carlo at one model with p_3 = 0: paired risks on the same mis-routed test points.
  const Model m = remark_model();
  RiskOptions opt;
  opt.misroute = kRemarkMisroute;
  const auto r = sample_risk(m, bayes_dense_estimator(m), bayes_sparse_estimator(m), opt, test_points(b),
                             key.with("test points").seed());
  const Welford dense_minus_sparse = r.difference.scaled(-1.0);
  const double dense_x = thm4_dense_risk_exact(m, kRemarkMisroute), sparse_x = thm4_sparse_risk_exact(m, kRemarkMisroute);
  std::vector<TestResult> parts{
      exhaustive_test(fmt::format("exact Thm 4 risks, random models with p_r = 0 for r != i, j (k = 2, 3, 4): R_dense > R_sparse"),
                      cases, bad),
      claims::upper_bound_test("MC paired R_dense - R_sparse <= 0 at the fixed model (p = 0.6, 0.4, 0; eta = 1.5)", dense_minus_sparse,
                               0.0)};
  Evidence e;
  e.printed = claims::combine_bonferroni("with p_r = 0 for r != i, j the dense estimator handles the mis-routing at least as well: "
                                         "R_dense <= R_sparse (Bonferroni over the two parts)",
                                         parts);
  // A violation that matters: dense above sparse by kRelevance of the sparse risk (the exact part detects any).
  const std::vector<double> rel{0.0, kRelevance * r.sparse.mean()};
  e.relevance = combined_relevance(e.printed, parts, rel);
  e.control(claims::upper_bound_test("reversed at the fixed model: R_sparse - R_dense <= 0", r.difference, 0.0));
  e.control(exhaustive_test("the same without p_r = 0 (k = 3, 4, p uniform on the simplex): R_dense > R_sparse", cases_c, bad_c));
  e.note = fmt::format("exact: {} models with p_r = 0, {} violations, smallest relative margin (R_s - R_d)/R_s = {:.3g}; without p_r = 0: "
                       "{} of {} models have R_dense > R_sparse; fixed model: exact dense {:.5g}, sparse {:.5g}, MC dense {:.5g} +- "
                       "{:.2g}, sparse {:.5g} +- {:.2g}",
                       cases, bad, min_margin, bad_c, cases_c, dense_x, sparse_x, r.dense.mean(), r.dense.standard_error(), r.sparse.mean(),
                       r.sparse.standard_error());
  return e;
}

}  // namespace

void register_thm4_remark_claims(claims::Registry& r) {
  r.add({"noisy.thm4.remark_pr0", "noisy, remark after Thm 4 (Sec. 4.3)",
         "When p_r = 0 for r != i, j, the dense estimator may handle the mis-routing perturbation better than the sparse one (checked: "
         "on the exact risks, R_dense <= R_sparse always holds then, and fails for some models with p_r > 0).",
         ClaimKind::inequality, check_remark_pr0});
}

}  // namespace moelab::noisy::detail
