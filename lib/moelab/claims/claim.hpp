// A claim is one checkable statement of a paper: its source, the closed form as printed, optionally
// an independently derived exact form, Monte-Carlo evidence, and a negative control that must be
// rejected (a check that cannot fail is a defect). DESIGN.md, "Verdicts must be statistically honest".
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "moelab/core/backend.hpp"
#include "moelab/core/keys.hpp"

namespace moelab::claims {

enum class Verdict { holds, fails, erratum, inconclusive };
const char* to_string(Verdict v);

enum class ClaimKind {
  equality,    // closed form == expectation: two-sided test
  inequality,  // A <= B: one-sided test for a violation
  asymptotic,  // limit as size grows: extrapolated intercept tested against the limit
  bound,       // upper bound on a measured quantity: one-sided, tightness reported
};
const char* to_string(ClaimKind k);

/// One statistical test of H0 "this form is right".
struct TestResult {
  std::string form;          // what is tested, e.g. "Thm 2 as printed"
  double estimate = 0.0;     // Monte-Carlo estimate of the tested quantity
  double std_error = 0.0;    // its standard error (0 for exact/deterministic evidence)
  double reference = 0.0;    // the closed-form value it is compared with
  double p_value = 1.0;      // p-value of H0 (small = the form is rejected)
  std::int64_t samples = 0;  // Monte-Carlo samples behind the estimate
  bool one_sided = false;    // a one-sided test (bounds): its power statement uses z_(1 - level)
  double dof = 0.0;          // Student-t degrees of freedom of the test statistic; 0 = normal (z)
  /// Number of sub-tests this result combines by Bonferroni (combine_bonferroni): its p-value is the
  /// smallest sub-test p times this count, so each sub-test is judged at level / count, and so is
  /// its power statement (min_detectable). 1 for a single test.
  std::int64_t bonferroni = 1;
};

/// What a claim's check returns.
struct Evidence {
  TestResult printed;                // the statement as printed in the paper
  std::optional<TestResult> exact;   // the exact expression, where the printed one is suspect
  std::vector<TestResult> controls;  // negative controls: every one must be rejected
  /// The smallest deviation of the tested quantity from its closed form that matters, in the units
  /// of printed.reference (the claim's power statement: `holds` needs the printed test to detect a
  /// deviation this large with power 0.9 at the suite's strictest level). NaN: taken from the
  /// controls that test the same estimate (their distance to the printed reference); when there is
  /// none either, the claim cannot be `holds` (claims/evidence.hpp: with_relevance).
  double relevance = std::numeric_limits<double>::quiet_NaN();
  std::string note;                  // numbers a reader needs (sizes, ratios, counterexample)

  /// Adds a negative control.
  Evidence& control(TestResult t) {
    controls.push_back(std::move(t));
    return *this;
  }
};

/// How much Monte-Carlo a check may spend.
struct CheckBudget {
  bool full = false;       // --full: larger samples; --quick (default) must finish in < 2 minutes in all
  std::uint64_t seed = 1;  // suite seed; each claim derives its own from (seed, id)
  // `check --backend cuda`: where the claim has a device path (Claim::cuda) its experiment runs there
  // (the same draws as the CPU's; the verdicts must agree, bench/gpu_run.sh compares them); every
  // other claim ignores it. The default, and `check`'s `auto`, is the CPU reference.
  Backend backend = Backend::cpu;
  template <class T>
  T pick(T quick, T full_value) const { return full ? full_value : quick; }
};

struct Claim {
  std::string id;         // topic.source.item, e.g. "noisy.thm2.sparse_risk"
  std::string source;     // "noisy, Thm 2" (paper short name, theorem/equation)
  std::string statement;  // one sentence, as the paper states it
  ClaimKind kind = ClaimKind::equality;
  /// Runs the evidence. `key` is RngKey::root(suite seed).with(id): derive every sub-experiment's
  /// seed from it (key.with("n", n).seed()), never by adding to a seed.
  std::function<Evidence(const CheckBudget&, const RngKey& key)> check;
  /// Whether `check` honours CheckBudget::backend (a study's device path under the same draws).
  CudaPath cuda = CudaPath::none;
};

/// The registry; topics add their claims in register_claims (the catalogue calls every topic's).
class Registry {
 public:
  void add(Claim c);
  const std::vector<Claim>& all() const { return claims_; }
  /// Claims whose id contains `pattern` as a substring, or matches it as a glob with '*'.
  std::vector<const Claim*> select(const std::string& pattern) const;

 private:
  std::vector<Claim> claims_;
};

/// The key of one claim: RngKey::root(suite seed).with(id).
RngKey claim_key(std::uint64_t suite_seed, const std::string& id);

}  // namespace moelab::claims
