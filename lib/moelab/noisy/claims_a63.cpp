// noisy, Appendix A.6.3: bias, variance and excess risk of a one-dimensional sparse expert fitted by
// OLS on n noisy samples (the Table 1 setting: lambda^2 = 8, sigma^2 = 1, beta = 1).
#include <cmath>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/parallel.hpp"
#include "moelab/noisy/detail/claim_support.hpp"
#include "moelab/noisy/theorems.hpp"

namespace moelab::noisy::detail {

namespace {

struct OneDimSeries {
  claims::SizeSeries bias, n_variance, n_excess;
};

// lambda2 (beta_hat - beta)^2, n sigma2 (beta_hat - beta_Bayes)^2 and n (lambda2 + sigma2)(beta_hat -
// beta_Bayes)^2 over `trials` training sets at each n.
OneDimSeries simulate_one_dim(const CheckBudget& b, const RngKey& key, double beta, double l, double s) {
  OneDimSeries out;
  const std::int64_t trials = b.pick<std::int64_t>(100000, 1000000);
  const double beta_bayes = beta * l / (l + s);
  for (int n : {20, 40, 80, 160, 320}) {
    struct Row {
      double bias, var, excess;
    };
    const std::uint64_t seed = key.with("n", n).seed();
    const auto rows = parallel_map<Row>(static_cast<std::size_t>(trials), [&](std::size_t t) {
      const RandomStream z(seed, StreamTag::design_signal, t);
      double sxy = 0, sxx = 0;
      for (int i = 0; i < n; ++i) {
        const double x = std::sqrt(l) * z.normal(2u * static_cast<std::uint64_t>(i));
        const double xb = x + std::sqrt(s) * z.normal(2u * static_cast<std::uint64_t>(i) + 1u);
        sxy += xb * beta * x;
        sxx += xb * xb;
      }
      const double bh = sxy / sxx;
      return Row{l * (bh - beta) * (bh - beta), s * (bh - beta_bayes) * (bh - beta_bayes),
                 (l + s) * (bh - beta_bayes) * (bh - beta_bayes)};
    });
    Welford wb, wv, we;
    for (const auto& r : rows) wb.add(r.bias), wv.add(n * r.var), we.add(n * r.excess);
    out.bias.n.push_back(n), out.bias.value.push_back(wb);
    out.n_variance.n.push_back(n), out.n_variance.value.push_back(wv);
    out.n_excess.n.push_back(n), out.n_excess.value.push_back(we);
  }
  return out;
}

// Fig 6 / Table 1 values: lambda^2 = 8, sigma^2 = 1, beta = 1.
constexpr double kL = 8.0, kS = 1.0, kBeta = 1.0;
const claims::FiniteSizeModel kModel{"L + a/n + b/n^2", {inv_n, inv_n2}};

Evidence check_bias(const CheckBudget& b, const RngKey& key) {
  const auto s = simulate_one_dim(b, key, kBeta, kL, kS);
  const double printed = a63_bias_printed(kBeta, kL, kS), exact = a63_bias_limit_exact(kBeta, kL, kS);
  Evidence e;
  e.printed = claims::intercept_test("extrapolated bias term lambda2 E(beta_hat - beta)^2 vs the printed limit", s.bias,
                                     kModel.corrections, printed);
  e.exact = claims::intercept_test("same vs the exact limit lambda2 beta^2 sigma2^2/(lambda2+sigma2)^2", s.bias,
                                   kModel.corrections, exact);
  e.control(claims::intercept_test(fmt::format("same vs {} x the exact limit", 1 + kRelevance), s.bias, kModel.corrections,
                                   (1 + kRelevance) * exact));
  e.relevance = erratum_relevance(printed, exact);
  e.note = fmt::format("1-D expert: lambda2 = 8, sigma2 = 1, beta = 1 (Table 1 setting); n = 20..320; fit {}; printed {:.6g}, "
                       "exact {:.6g}",
                       kModel.text, printed, exact);
  return e;
}

Evidence check_variance(const CheckBudget& b, const RngKey& key) {
  const auto s = simulate_one_dim(b, key, kBeta, kL, kS);
  const double printed = a63_variance_printed(kBeta, kL, kS, 1.0);  // the coefficient of 1/n
  Evidence e = claims::extrapolation_evidence("n sigma2 Var(beta_hat) vs the printed delta-method coefficient", s.n_variance,
                                              kModel, printed, kRelevance);
  e.note = "1-D expert: lambda2 = 8, sigma2 = 1, beta = 1 (Table 1 setting); n = 20..320";
  return e;
}

Evidence check_excess(const CheckBudget& b, const RngKey& key) {
  const auto s = simulate_one_dim(b, key, kBeta, kL, kS);
  const double printed = a63_excess_printed(kBeta, kL, kS, 1.0);
  const double exact = kBeta * kBeta * kL * kS / (kL + kS);  // n (excess) -> this, from 1/(n-2)
  Evidence e;
  e.printed = claims::intercept_test("extrapolated n x excess risk vs the coefficient A.6.3 implies", s.n_excess,
                                     kModel.corrections, printed);
  e.exact = claims::intercept_test("same vs the exact beta^2 lambda2 sigma2/(lambda2+sigma2)", s.n_excess, kModel.corrections,
                                   exact);
  e.control(claims::intercept_test(fmt::format("same vs {} x exact", 1 + kRelevance), s.n_excess, kModel.corrections,
                                   (1 + kRelevance) * exact));
  e.relevance = erratum_relevance(printed, exact);
  e.note = fmt::format("1-D expert: lambda2 = 8, sigma2 = 1, beta = 1 (Table 1 setting); n = 20..320; fit {}; printed {:.6g}, "
                       "exact {:.6g}",
                       kModel.text, printed, exact);
  return e;
}

}  // namespace

void register_a63_claims(claims::Registry& r) {
  r.add({"noisy.a63.bias", "noisy, A.6.3",
         "The bias term lambda^2 E[(beta_hat - beta)^2] approaches the Bayes error sigma2 lambda^2 beta^2/(lambda^2 + sigma2).",
         ClaimKind::asymptotic, check_bias});
  r.add({"noisy.a63.variance", "noisy, A.6.3",
         "The variance term is beta^2 lambda^2 sigma^4 / (n (lambda^2 + sigma2)^2) (delta method).", ClaimKind::asymptotic,
         check_variance});
  r.add({"noisy.a63.excess", "noisy, A.6.3",
         "Hence the excess risk of the 1-D sparse OLS is the variance term beta^2 lambda^2 sigma^4 / (n (lambda^2 + "
         "sigma2)^2).",
         ClaimKind::asymptotic, check_excess});
}

}  // namespace moelab::noisy::detail
