// Structured random keys (DESIGN.md, Conventions: RNG). Every draw is addressed by
//   (suite seed, study or claim id, sweep point, sub-experiment ..., trial, stream tag, index):
// the first part is hashed here into the 64-bit seed a RandomStream takes; trial, tag and index stay
// Philox counters. Two different paths never share a seed except by a 64-bit hash collision, unlike
// `seed + n`, where (seed 1, n 2) and (seed 2, n 1) coincide.
//
//   const RngKey key = RngKey::root(suite_seed).with("noisy.excess_risk").with("params.n=400");
//   excess_trial(model, n, alloc, key.with("n", n).seed(), t);
#pragma once

#include <cstdint>
#include <string_view>

namespace moelab {

class RngKey {
 public:
  /// The root of a run: the suite or scenario seed.
  static constexpr RngKey root(std::uint64_t suite_seed) { return RngKey(mix(suite_seed ^ 0x6d6f656c61625f31ull)); }
  /// A child named by a label (an id, a sub-experiment name, a point's coordinates).
  constexpr RngKey with(std::string_view label) const { return RngKey(mix(h_ ^ fnv1a(label))); }
  /// A child named by a label and an integer (a size in a series, an index).
  constexpr RngKey with(std::string_view label, std::int64_t value) const {
    return RngKey(mix(with(label).h_ + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(value) + 1)));
  }
  /// The seed a RandomStream / simulator function takes.
  constexpr std::uint64_t seed() const { return h_; }
  friend constexpr bool operator==(RngKey a, RngKey b) { return a.h_ == b.h_; }

 private:
  explicit constexpr RngKey(std::uint64_t h) : h_(h) {}
  /// splitmix64 finaliser: a bijection on 64 bits with full avalanche.
  static constexpr std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  static constexpr std::uint64_t fnv1a(std::string_view s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : s) {
      h ^= ch;
      h *= 1099511628211ull;
    }
    return h;
  }
  std::uint64_t h_;
};

}  // namespace moelab
