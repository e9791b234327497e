// The sparsity claims at seed 1, quick budget, in a registry of their own: each reaches the verdict
// docs/claims.md records, every control is rejected, every claim states its power (relevance).
// The Holm family is this topic's claims only (smaller than the whole suite's): a verdict here that
// differs from `moelab check` would be a finding to document, not to pin silently.
#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/verdict.hpp"
#include "topic_test_support.hpp"

namespace moelab::sparsity {
void register_claims(claims::Registry& reg);
}

using namespace moelab::claims;

TEST_CASE("sparsity claims reach their documented verdicts", "[sparsity][claims]") {
  const std::map<std::string, Verdict> expected{
      {"sparsity.remark3.peak", Verdict::holds},               {"sparsity.sec433.interior_optimum", Verdict::erratum},
      {"sparsity.regime.a_dataset_size", Verdict::erratum},    {"sparsity.regime.b_router_complexity", Verdict::erratum},
      {"sparsity.regime.c_task_complexity", Verdict::erratum}, {"sparsity.regime.d_total_experts", Verdict::fails},
      {"sparsity.a5.reducing_k", Verdict::erratum},
  };
  moelab::test::check_documented_verdicts(moelab::sparsity::register_claims, "sparsity.*", expected);
}
