// The learning-theory claims (bounds., sparsity., scaling.) are cheap (< 1 s together in --quick), so
// the whole set runs here: each reaches the verdict docs/claims.md records for it, and every control is
// rejected. A changed verdict is a changed finding and must be re-documented, not re-pinned silently.
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/verdict.hpp"
#include "moelab/catalogue/catalogue.hpp"

using namespace moelab::claims;

TEST_CASE("bounds, sparsity and scaling claims reach their documented verdicts", "[claims]") {
  const std::map<std::string, Verdict> expected{
      {"bounds.lemma5.routed_class", Verdict::erratum},        {"bounds.lemma6.natarajan", Verdict::holds},
      {"bounds.lemma7.ghost_sample", Verdict::holds},          {"bounds.lemma8.symmetrisation", Verdict::holds},
      {"bounds.lemma9.contraction", Verdict::holds},           {"bounds.lemma10.convex_hull", Verdict::holds},
      {"bounds.lemma11.bounded_differences", Verdict::holds},  {"bounds.eq16.mcdiarmid", Verdict::erratum},
      {"bounds.eq13.pattern_counts", Verdict::holds},          {"bounds.thm1.eq17_eq18", Verdict::erratum},
      {"bounds.thm1.monotone", Verdict::holds},                {"bounds.rademacher.estimators", Verdict::holds},
      {"sparsity.remark3.peak", Verdict::holds},               {"sparsity.sec433.interior_optimum", Verdict::erratum},
      {"sparsity.regime.a_dataset_size", Verdict::erratum},    {"sparsity.regime.b_router_complexity", Verdict::erratum},
      {"sparsity.regime.c_task_complexity", Verdict::erratum}, {"sparsity.regime.d_total_experts", Verdict::fails},
      {"sparsity.a5.reducing_k", Verdict::erratum},            {"scaling.lemma37.routing_overhead", Verdict::holds},
      {"scaling.compute_optimal", Verdict::holds},             {"scaling.thm43.rate", Verdict::holds},
  };
  std::vector<const Claim*> selected;
  for (const auto* prefix : {"bounds.*", "sparsity.*", "scaling.*"})
    for (const auto* c : moelab::catalogue::claims().select(prefix)) selected.push_back(c);
  REQUIRE(selected.size() == expected.size());
  const auto r = run_suite(selected, CheckBudget{}, 0.01, false);
  for (const auto& o : r.outcomes) {
    INFO(o.claim->id << ": " << o.reason << " | " << o.evidence.note);
    REQUIRE(expected.count(o.claim->id) == 1);
    CHECK(o.verdict == expected.at(o.claim->id));
    CHECK(o.control_rejected);
  }
}
