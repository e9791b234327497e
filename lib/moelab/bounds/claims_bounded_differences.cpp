// Claim: Lemma 11 (bounded differences, Eq. 47) of the compositional paper: replacing one point of
// (S, S') changes phi by at most 1/m, checked exactly per trial.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "moelab/bounds/detail/claim_support.hpp"
#include "moelab/bounds/lemma_checks.hpp"

namespace moelab::bounds::detail {

namespace {

Evidence check_bounded_differences(const CheckBudget& b, const RngKey& key) {
  const auto trials = b.pick<std::uint64_t>(3000, 20000);
  const auto r = check_lemma11(uniform_domain(30), threshold_class(30), 40, 0.2, trials, key.seed());
  Evidence e;
  e.printed = as_test("Eq. 47: m |phi(S, S') - phi(S~, S')| <= 1 (exact, per trial)", r.bounded_difference);
  e.control(as_test("bounded difference 1/(2m)", r.bounded_difference_control));
  // Exact per trial: a difference 5 % above the bound 1/m would matter (the control's bound is 50 % lower).
  e.relevance = 0.05;
  e.note = fmt::format("31 thresholds on 30 points, m = 40, {} replacements: max m |phi - phi~| = {:.3f}", trials,
                       r.max_scaled_difference);
  return e;
}

}  // namespace

void register_bounded_differences_claims(claims::Registry& r) {
  const std::string src = "compositional, ";
  r.add({"bounds.lemma11.bounded_differences", src + "Lemma 11, Eq. 47",
         "Replacing one point of (S, S') changes phi by at most 1/m.", ClaimKind::bound, check_bounded_differences});
}

}  // namespace moelab::bounds::detail
