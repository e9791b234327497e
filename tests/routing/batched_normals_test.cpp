// Bulk normals (lib/moelab/routing/batched_normals.hpp) against RandomStream::normal (the reference
// Box-Muller with libm), and the polynomial log / sincos against libm.
#include "moelab/routing/batched_normals.hpp"

#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"

namespace rt = moelab::routing;
using moelab::StreamTag;

TEST_CASE("polynomial log and sincos agree with libm", "[routing][normals]") {
  const moelab::RandomStream rs(9, StreamTag::property_test, 3);
  double worst_log = 0, worst_trig = 0;
  for (std::uint64_t j = 0; j < 200000; ++j) {
    const double u = rs.uniform(j);
    worst_log = std::max(worst_log, std::abs(rt::polynomial_log(u) - std::log(u)) / std::abs(std::log(u)));
    double s, c;
    rt::polynomial_sincos_2pi(u, s, c);
    const double angle = 6.283185307179586476925286766559 * u;
    worst_trig = std::max({worst_trig, std::abs(s - std::sin(angle)), std::abs(c - std::cos(angle))});
  }
  // A few ulps: the series truncation is below 1e-17; the rest is rounding (and, for sincos, libm
  // taking sin of the rounded product 2 pi u: up to 2 pi 2^-53 = 7e-16 absolute).
  CHECK(worst_log < 4e-16);
  CHECK(worst_trig < 1e-15);
  // Edges: u near 1 (log tiny, relative accuracy) and the octant boundaries.
  CHECK_THAT(rt::polynomial_log(1 - 0x1.0p-52), Catch::Matchers::WithinRel(std::log(1 - 0x1.0p-52), 1e-15));
  for (double u : {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0}) {
    double s, c;
    rt::polynomial_sincos_2pi(u, s, c);
    CHECK(std::abs(s - std::sin(2 * M_PI * u)) < 1e-15);
    CHECK(std::abs(c - std::cos(2 * M_PI * u)) < 1e-15);
  }
}

TEST_CASE("bulk normals are the stream's normals to rounding", "[routing][normals]") {
  // 10^7 draws in windows that start at odd places and cross the 64-block sweep boundaries.
  const moelab::RandomStream rs(12345, StreamTag::routing_points, (7ull << 24) + 5);
  std::vector<double> out(2 * 1000003);
  double worst = 0;
  for (std::uint64_t start : {0ull, 63ull, 4999999ull}) {
    rt::fill_normal_blocks(rs.address(), start, 1000003, out.data());
    for (std::uint64_t i = 0; i < out.size(); ++i) worst = std::max(worst, std::abs(out[i] - rs.normal(2 * start + i)));
  }
  // Measured 3.6e-15 (radius <= 8.6 times a few 1e-16 of the polynomials); stated bound 2e-14.
  CHECK(worst < 2e-14);
  // Negative control: a neighbouring stream differs at O(1).
  const moelab::RandomStream other(12345, StreamTag::routing_points, (7ull << 24) + 6);
  rt::fill_normal_blocks(other.address(), 0, 1000, out.data());
  double diff = 0;
  for (std::uint64_t i = 0; i < 2000; ++i) diff = std::max(diff, std::abs(out[i] - rs.normal(i)));
  CHECK(diff > 1.0);
}
