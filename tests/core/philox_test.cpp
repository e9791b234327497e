#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "moelab/core/distributions.hpp"
#include "moelab/core/philox.hpp"
#include "moelab/core/stats.hpp"

using namespace moelab;

TEST_CASE("Philox4x32-10 reproduces the published known-answer vectors", "[core][rng]") {
  // Known-answer vectors of Salmon et al. (SC'11), Random123 distribution kat_vectors.
  struct Kat {
    Philox4x32 ctr;
    std::uint32_t k0, k1;
    Philox4x32 expected;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
      {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu,
       {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
      {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u,
       {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
  };
  for (const auto& kat : kats) {
    const Philox4x32 r = philox4x32_10(kat.ctr, kat.k0, kat.k1);
    for (int i = 0; i < 4; ++i) CHECK(r.v[i] == kat.expected.v[i]);
  }
}

TEST_CASE("a draw is addressed by seed, tag, trial and index, independently of access order", "[core][rng]") {
  const RandomStream s(42, StreamTag::property_test, 7);
  std::vector<double> seq(1001);
  s.fill_normal(0, seq.size(), seq.data());
  for (std::size_t j = 0; j < seq.size(); j += 37) CHECK(s.normal(j) == seq[j]);
  // An odd starting offset gives the same values as random access.
  std::vector<double> tail(100);
  s.fill_normal(501, tail.size(), tail.data());
  for (std::size_t j = 0; j < tail.size(); ++j) CHECK(tail[j] == seq[501 + j]);
  // Changing any coordinate of the address changes the draws.
  CHECK(RandomStream(43, StreamTag::property_test, 7).normal(0) != seq[0]);
  CHECK(RandomStream(42, StreamTag::test_sample, 7).normal(0) != seq[0]);
  CHECK(RandomStream(42, StreamTag::property_test, 8).normal(0) != seq[0]);
  CHECK(RandomStream(42, StreamTag::property_test, 7ull + (1ull << 32)).normal(0) != seq[0]);
}

TEST_CASE("uniforms lie in the open unit interval", "[core][rng]") {
  CHECK(uniform_open01(0, 0) > 0.0);
  CHECK(uniform_open01(0xffffffffu, 0xffffffffu) < 1.0);
}

TEST_CASE("Philox normals have the moments of N(0, 1)", "[core][rng]") {
  // N = 2e5 draws: the sample mean has sd 1/sqrt(N) = 2.2e-3, the sample variance sd sqrt(2/N) = 3.2e-3,
  // the fourth moment sd sqrt(96/N) = 0.022. Tolerance 5 sd each (false alarm ~ 1e-6 per check).
  const std::uint64_t seed = GENERATE(1ull, 99ull, 123456789ull);
  const std::size_t N = 200000;
  const RandomStream s(seed, StreamTag::property_test, 0);
  std::vector<double> z(N);
  s.fill_normal(0, N, z.data());
  Welford w, w4;
  for (double x : z) w.add(x), w4.add(x * x * x * x);
  const double sd = 1.0 / std::sqrt(static_cast<double>(N));
  CHECK(std::abs(w.mean()) < 5 * sd);
  CHECK(std::abs(w.variance() - 1.0) < 5 * std::sqrt(2.0) * sd);
  CHECK(std::abs(w4.mean() - 3.0) < 5 * std::sqrt(96.0) * sd);
}

TEST_CASE("the normal moment test rejects a wrongly scaled generator (negative control)", "[core][rng]") {
  // Same test as above on z * 1.02: the variance 1.0404 is 9 sd away and must be rejected.
  const std::size_t N = 200000;
  const RandomStream s(5, StreamTag::property_test, 0);
  Welford w;
  for (std::size_t j = 0; j < N; ++j) w.add(1.02 * s.normal(j));
  const double sd = 1.0 / std::sqrt(static_cast<double>(N));
  CHECK_FALSE(std::abs(w.variance() - 1.0) < 5 * std::sqrt(2.0) * sd);
}
