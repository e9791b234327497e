// The noisy claims: registry contents, the fixed Thm 4 test model, and a seed-1 suite run ([slow]).
#include <cmath>
#include <set>
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/evidence.hpp"
#include "moelab/claims/verdict.hpp"
#include "registered_claims.hpp"

namespace moelab::noisy {
void register_claims(claims::Registry& reg);
}

using namespace moelab;

namespace {
claims::Registry noisy_claims() {
  claims::Registry r;
  noisy::register_claims(r);
  return r;
}
}  // namespace

TEST_CASE("the noisy paper registers its 25 claims with unique ids, sources and statements", "[noisy][claims]") {
  const auto reg = noisy_claims();
  REQUIRE(reg.all().size() == 25);
  std::set<std::string> ids;
  for (const auto& c : reg.all()) {
    INFO(c.id);
    CHECK(ids.insert(c.id).second);
    CHECK(c.id.rfind("noisy.", 0) == 0);
    CHECK(c.source.rfind("noisy, ", 0) == 0);
    CHECK_FALSE(c.statement.empty());
    CHECK(c.check);
  }
  CHECK(reg.all().front().id == "noisy.eq4.risk_functional");
  CHECK(reg.all().back().id == "noisy.thm1.qda_router");
}

TEST_CASE("the Thm 4 claims test a model where printed and exact differ clearly at every seed", "[noisy][claims][thm4]") {
  // With a random beta* the printed and exact sparse risks came within 0.3-1% at some suite seeds and
  // the claim flipped to `holds`; the fixed model keeps them 13% (sparse) and 26% (dense) apart, and
  // the relevance never exceeds that distance.
  const auto reg = noisy_claims();
  for (const char* id : {"noisy.thm4.dense_misroute", "noisy.thm4.sparse_misroute"}) {
    const auto sel = reg.select(id);
    REQUIRE(sel.size() == 1);
    for (std::uint64_t seed : {1u, 2u, 7u}) {
      INFO(id << " seed " << seed);
      claims::CheckBudget b;
      b.seed = seed;
      const auto e = sel[0]->check(b, claims::claim_key(seed, id));
      REQUIRE(e.exact);
      const double gap = std::fabs(e.printed.reference - e.exact->reference);
      CHECK(gap > 0.1 * std::fabs(e.exact->reference));
      CHECK(e.relevance > 0.0);
      CHECK(e.relevance <= gap);
      CHECK(e.controls.size() == 1);
    }
  }
}

TEST_CASE("every noisy claim states a relevance or has a control on its printed estimate", "[noisy][claims][slow]") {
  const auto reg = noisy_claims();
  std::vector<const claims::Claim*> all;
  for (const auto& c : reg.all()) all.push_back(&c);
  const auto r = claims::run_suite(all, claims::CheckBudget{}, 0.01, moelab::test::kRegisteredClaims, false);
  for (const auto& o : r.outcomes) {
    INFO(o.claim->id);
    CHECK_FALSE(std::isnan(o.relevance));
    CHECK_FALSE(o.evidence.controls.empty());
    fmt::print("{:<36} {:<13} relevance {:.4g} mdd {:.4g} ({:.1f} s): {}\n", o.claim->id, claims::to_string(o.verdict),
               o.relevance, o.min_detectable, o.seconds, o.reason);
  }
  fmt::print("family: {} registered claims\n", r.family_size);
}
