#include <fnmatch.h>

#include "moelab/bounds/bounds_claims.hpp"
#include "moelab/claims/claim.hpp"
#include "moelab/core/error.hpp"
#include "moelab/noisy/noisy_claims.hpp"
#include "moelab/routing/routing_claims.hpp"
#include "moelab/scaling/scaling_claims.hpp"
#include "moelab/sparsity/sparsity_claims.hpp"
#include "moelab/spectra/spectra_claims.hpp"

namespace moelab::claims {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::fails: return "fails";
    case Verdict::erratum: return "erratum";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

const char* to_string(ClaimKind k) {
  switch (k) {
    case ClaimKind::equality: return "equality";
    case ClaimKind::inequality: return "inequality";
    case ClaimKind::asymptotic: return "asymptotic";
    case ClaimKind::bound: return "bound";
  }
  return "?";
}

void Registry::add(Claim c) {
  for (const auto& existing : claims_) MOELAB_EXPECT(existing.id != c.id, "duplicate claim id");
  claims_.push_back(std::move(c));
}

std::vector<const Claim*> Registry::select(const std::string& pattern) const {
  std::vector<const Claim*> out;
  const bool glob = pattern.find_first_of("*?[") != std::string::npos;
  for (const auto& c : claims_) {
    const bool match = pattern.empty() || (glob ? ::fnmatch(pattern.c_str(), c.id.c_str(), 0) == 0
                                                : c.id.find(pattern) != std::string::npos);
    if (match) out.push_back(&c);
  }
  return out;
}

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    noisy::register_noisy_claims(reg);
    spectra::register_spectra_claims(reg);
    bounds::register_bounds_claims(reg);
    sparsity::register_sparsity_claims(reg);
    scaling::register_scaling_claims(reg);
    routing::register_routing_claims(reg);
    return reg;
  }();
  return r;
}

std::uint64_t claim_seed(std::uint64_t suite_seed, const std::string& id) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char ch : id) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  // splitmix64 finaliser of the combination, so nearby suite seeds give unrelated claim seeds.
  std::uint64_t z = h ^ (suite_seed * 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace moelab::claims
