#include <fnmatch.h>

#include "moelab/claims/claim.hpp"
#include "moelab/core/error.hpp"

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

RngKey claim_key(std::uint64_t suite_seed, const std::string& id) { return RngKey::root(suite_seed).with(id); }

}  // namespace moelab::claims
