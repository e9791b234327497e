// noisy, Thm 1 (A.7): the QDA router. The experiment is the study noisy.qda_router's (simulate_router).
#include <fmt/format.h>

#include "moelab/noisy/detail/claim_support.hpp"
#include "moelab/noisy/simulate.hpp"

namespace moelab::noisy::detail {

namespace {

Evidence check_qda(const CheckBudget& b, const RngKey& key) {
  const Model m = equal_block_model(4, 5, 0.5, 2.0, 1.0, key.with("model").seed());
  const int n = b.pick(400, 2000);
  const int tests = 2000;
  const std::int64_t trials = b.pick<std::int64_t>(40, 200);
  constexpr double eps = 0.02;
  const RouterSummary s = simulate_router(m, n, tests, trials, key.with("routers").seed());
  Evidence e;
  e.printed = claims::upper_bound_test(fmt::format("excess risk of the printed QDA router <= {}", eps), s.printed_excess, eps);
  e.exact = claims::upper_bound_test(fmt::format("excess risk of the corrected (likelihood-ratio) QDA router <= {}", eps),
                                     s.corrected_excess, eps);
  e.control(claims::upper_bound_test(fmt::format("excess risk of a constant router <= {}", eps), s.constant_excess, eps));
  // A violation that matters: an excess of 1.5 eps (half of eps above the bound).
  e.relevance = 0.5 * eps;
  e.note = fmt::format("k = 4 blocks of 5, Toeplitz 0.5 x 2, sigma2 = 1, n = {}: excess printed {:.4g}, corrected {:.4g} "
                       "+- {:.2g}; Bayes error {:.4g}",
                       n, s.printed_excess.mean(), s.corrected_excess.mean(), s.corrected_excess.standard_error(),
                       s.bayes.mean());
  return e;
}

}  // namespace

void register_thm1_claims(claims::Registry& r) {
  r.add({"noisy.thm1.qda_router", "noisy, Thm 1 (A.7)",
         "The QDA router of A.7.1 reaches excess misrouting risk below epsilon for n >= O(poly(d, log 1/delta)).",
         ClaimKind::bound, check_qda});
}

}  // namespace moelab::noisy::detail
