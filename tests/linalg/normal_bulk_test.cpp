// The bulk (vectorised) Box-Muller generator fill_normal_bulk (core/distributions.hpp) against the
// scalar RandomStream::normal it replaces on the CPU design paths: same Philox blocks, the same
// transform up to rounding, so the same law. (In tests/linalg: the core layer's test folder for
// the earlier numerics.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/stats.hpp"

using moelab::RandomStream;
using moelab::StreamTag;

TEST_CASE("bulk normals equal the scalar Box-Muller normals up to rounding", "[linalg][normals]") {
  // Both evaluate z0 = r cos(2 pi u2), z1 = r sin(2 pi u2), r = sqrt(-2 log u1) on bit-identical
  // uniforms; libm and the polynomial log / sin / cos are each within ~1 ulp of the exact values, so
  // the normals agree to a few ulp of the radius r (the scale of both coordinates). Bound: 8 ulp of
  // max(r, 1) (observed worst: about 2.5 ulp).
  const std::uint64_t seeds[] = {1, 0x9e3779b97f4a7c15ull, 12345};
  const StreamTag tags[] = {StreamTag::design_noise, StreamTag::property_test};
  const std::uint64_t trials[] = {0, 7, (1ull << 32) + 3};
  constexpr std::uint64_t kCount = 1 << 15;
  double worst_ulps = 0.0;
  for (const auto seed : seeds)
    for (const auto tag : tags)
      for (const auto trial : trials) {
        const RandomStream rs(seed, tag, trial);
        std::vector<double> bulk(kCount), scalar(kCount);
        const std::uint64_t first = 1000001;  // odd: starts mid-block
        moelab::fill_normal_bulk(rs, first, kCount, bulk.data());
        rs.fill_normal(first, kCount, scalar.data());
        for (std::uint64_t k = 0; k + 1 < kCount; ++k) {
          // The radius of the block that normal first + k belongs to.
          const std::uint64_t j = first + k;
          const double z0 = rs.normal(j & ~1ull), z1 = rs.normal(j | 1ull);
          const double r = std::max(std::hypot(z0, z1), 1.0);
          worst_ulps = std::max(worst_ulps, std::abs(bulk[k] - scalar[k]) / (r * 0x1.0p-52));
        }
      }
  INFO("worst difference " << worst_ulps << " ulp of the radius");
  CHECK(worst_ulps <= 8.0);
  CHECK(worst_ulps > 0.0);  // not the scalar path under another name
}

TEST_CASE("bulk normal j does not depend on the window it is requested in", "[linalg][normals]") {
  const RandomStream rs(99, StreamTag::property_test, 5);
  std::vector<double> all(1000);
  moelab::fill_normal_bulk(rs, 0, all.size(), all.data());
  for (std::uint64_t first : {0ull, 1ull, 2ull, 63ull, 64ull, 65ull, 127ull, 500ull}) {
    for (std::uint64_t count : {0ull, 1ull, 2ull, 3ull, 64ull, 75ull, 129ull}) {
      if (first + count > all.size()) continue;
      std::vector<double> part(count + 1, -7.0);
      moelab::fill_normal_bulk(rs, first, count, part.data());
      for (std::uint64_t k = 0; k < count; ++k) CHECK(part[k] == all[first + k]);
      CHECK(part[count] == -7.0);  // nothing written past the window
    }
  }
}

TEST_CASE("bulk normals are standard normal (KS and moments, with a 1% scale control)", "[linalg][normals]") {
  // 2^20 normals. KS against Phi: D's 0.1% critical value is 1.95 / sqrt(n) = 1.9e-3. Variance: SE
  // sqrt(2 / n) = 1.4e-3, accepted within 4 SE; fourth moment: SE sqrt(96 / n) = 9.6e-3 (Var z^4 = 96),
  // within 4 SE of 3. Control at the nearest wrong law that matters: the same draws scaled by 1.01
  // (sd 1 %  off) must fail the variance test (their variance is 1.0201: 14 SE away).
  constexpr std::size_t kN = 1 << 20;
  std::vector<double> z(kN);
  moelab::fill_normal_bulk(RandomStream(2024, StreamTag::property_test, 1), 0, kN, z.data());
  moelab::Welford w, w4, wc;
  for (const double x : z) w.add(x), w4.add(x * x * x * x), wc.add(1.01 * x);
  const double se_var = std::sqrt(2.0 / kN), se_m4 = std::sqrt(96.0 / kN);
  CHECK(std::abs(w.mean()) <= 4.0 / std::sqrt(static_cast<double>(kN)));
  CHECK(std::abs(w.variance() - 1.0) <= 4.0 * se_var);
  CHECK(std::abs(w4.mean() - 3.0) <= 4.0 * se_m4);
  CHECK_FALSE(std::abs(wc.variance() - 1.0) <= 4.0 * se_var);
  std::sort(z.begin(), z.end());
  const boost::math::normal_distribution<double> phi;
  const double d = moelab::ks_statistic(z, [&](double x) { return boost::math::cdf(phi, x); });
  CHECK(moelab::ks_pvalue(d, kN) > 1e-3);
}

TEST_CASE("the AVX-512 and AVX2 paths of the bulk normals give the same bits", "[linalg][normals]") {
  // fill_normal_blocks takes the AVX-512 path at run time on CPUs that have it; every lane runs the
  // same IEEE operations as the AVX2 path, so the normals must be bit-identical (no tolerance),
  // including the 32-bit wrap of the block counter and windows that are not multiples of 16 blocks.
  // Without the AVX-512 path (a CPU without it, or MOELAB_NO_AVX512=1) both sides would be the AVX2
  // path compared with itself, which cannot fail: the case is skipped, visibly, with no assertion.
  const std::string path = moelab::normal_kernel_path();
  if (path != "avx512") {
    WARN("SKIPPED: this CPU (or MOELAB_NO_AVX512) takes the " << path
                                                              << " path, so there is no AVX-512 path to compare with AVX2");
    return;
  }
  const std::uint64_t seeds[] = {1, 0x9e3779b97f4a7c15ull};
  const std::uint64_t trials[] = {0, (1ull << 32) + 3};
  const std::uint64_t firsts[] = {0, 5, 0xfffffff0ull};  // the last one wraps past 2^32
  int differing = 0, compared = 0;
  for (const auto seed : seeds)
    for (const auto trial : trials)
      for (const auto first : firsts)
        for (const std::uint64_t blocks : {1ull, 7ull, 8ull, 9ull, 16ull, 17ull, 1000ull}) {
          const RandomStream rs(seed, StreamTag::design_noise, trial);
          std::vector<double> fast(2 * blocks + 1, -7.0), narrow(2 * blocks + 1, -7.0);
          moelab::fill_normal_blocks(rs.address(), first, blocks, fast.data());
          moelab::fill_normal_blocks_without_avx512(rs.address(), first, blocks, narrow.data());
          for (std::size_t k = 0; k < fast.size(); ++k, ++compared) differing += std::memcmp(&fast[k], &narrow[k], sizeof(double)) != 0;
          CHECK(fast.back() == -7.0);  // nothing written past 2 blocks
        }
  INFO(compared << " values compared on the " << path << " path");
  CHECK(differing == 0);
}
