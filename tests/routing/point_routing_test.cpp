// The per-point core shared by the CPU and CUDA region-mass paths (lib/moelab/routing/point_routing.hpp),
// tested on the CPU: the point addressing equals what draw_points uses, the strided top-k equals the
// contiguous one and a full sort, rank_sorted equals SubsetRanker::rank, and the device pipeline's data
// layout (points transposed, B x dim; scores St = Pt R' or Zt L', B x m; top-k read with stride B),
// emulated here with Eigen, gives the CPU reference's region of every point. The kernel itself
// (kernels/routing_masses.cu) runs only in tests/gpu/routing_gpu_main.cpp, where a device exists.
#include "moelab/routing/point_routing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/routing/region_masses.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace rt = moelab::routing;
using moelab::RandomStream;
using moelab::StreamTag;

namespace {

/// The CUDA pipeline of kernels/routing_masses.cu, step by step, in Eigen: region ranks of points
/// first .. first + B - 1 of draw `draw` for the router's score matrix.
std::vector<std::uint64_t> device_layout_ranks(const rt::Router& router, rt::InputLaw law, std::uint64_t seed, std::uint64_t draw,
                                               std::uint64_t first, std::uint64_t B) {
  const Eigen::MatrixXd& A = router.score_matrix();
  const int dim = static_cast<int>(A.cols());
  const bool gaussian_full = !router.projected() && law == rt::InputLaw::gaussian;
  const double scale = gaussian_full ? 1.0 / std::sqrt(static_cast<double>(dim)) : 1.0;
  Eigen::MatrixXd Pt(static_cast<Eigen::Index>(B), dim);  // points_kernel: one pair of coordinates per thread
  for (std::uint64_t c = 0; c < B; ++c)
    for (int b = 0; 2 * b < dim; ++b) {
      double z0, z1;
      rt::point_normal_pair(seed, draw, dim, first + c, b, z0, z1);
      Pt(static_cast<Eigen::Index>(c), 2 * b) = scale * z0;
      if (2 * b + 1 < dim) Pt(static_cast<Eigen::Index>(c), 2 * b + 1) = scale * z1;
    }
  if (!router.projected() && law == rt::InputLaw::ball)  // ball_kernel
    for (std::uint64_t c = 0; c < B; ++c) {
      const auto row = static_cast<Eigen::Index>(c);
      const double u = rt::point_stream(seed, draw, first + c).uniform(rt::point_uniform_index(dim, first + c));
      Pt.row(row) *= std::pow(u, 1.0 / dim) / Pt.row(row).norm();
    }
  // cuBLAS DGEMM / DTRMM
  const Eigen::MatrixXd St = router.projected() ? Eigen::MatrixXd(Pt * A.triangularView<Eigen::Lower>().transpose())
                                                : Eigen::MatrixXd(Pt * A.transpose());
  std::vector<std::uint64_t> ranks(B);
  std::vector<int> idx(static_cast<std::size_t>(router.k()));
  std::vector<double> val(idx.size());
  for (std::uint64_t c = 0; c < B; ++c) {  // top_k_kernel
    rt::top_k_strided(St.data() + c, static_cast<long>(B), router.m(), router.k(), idx.data(), val.data());
    ranks[c] = rt::rank_sorted(idx.data(), router.k(), router.ranker().table().data(), router.ranker().table_stride());
  }
  return ranks;
}

std::size_t mismatches(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

}  // namespace

TEST_CASE("point addressing is the one draw_points uses", "[routing]") {
  const int d = GENERATE(1, 2, 7, 64);
  const std::uint64_t first = GENERATE(std::uint64_t{0}, rt::kPointsPerStream - 3);  // the second spans two streams
  const std::uint64_t seed = 11, draw = 3, n = 6;
  Eigen::MatrixXd X(d, static_cast<Eigen::Index>(n));
  rt::draw_points(rt::InputLaw::gaussian, seed, draw, first, X);
  Eigen::MatrixXd U(d, static_cast<Eigen::Index>(n));
  rt::draw_points(rt::InputLaw::ball, seed, draw, first, U);
  for (std::uint64_t c = 0; c < n; ++c) {
    const std::uint64_t i = first + c;
    Eigen::VectorXd g(d);
    for (int j = 0; j < d; ++j) g(j) = rt::point_stream(seed, draw, i).normal(rt::point_normal_index(d, i, j));
    // draw_points computes the normals in bulk (batched_normals.hpp), equal to RandomStream::normal
    // within 2e-14 (its test); 1e-13 leaves room for the 1/sqrt(d) and the norm.
    CHECK(((g / std::sqrt(static_cast<double>(d))) - X.col(static_cast<Eigen::Index>(c))).cwiseAbs().maxCoeff() < 1e-13);
    // The kernel's pairwise draw gives the same numbers, bit for bit, as the per-coordinate address.
    for (int b = 0; 2 * b < d; ++b) {
      double z0, z1;
      rt::point_normal_pair(seed, draw, d, i, b, z0, z1);
      CHECK(z0 == g(2 * b));
      if (2 * b + 1 < d) CHECK(z1 == g(2 * b + 1));
    }
    const double u = rt::point_stream(seed, draw, i).uniform(rt::point_uniform_index(d, i));
    CHECK(((g * std::pow(u, 1.0 / d) / g.norm()) - U.col(static_cast<Eigen::Index>(c))).cwiseAbs().maxCoeff() < 1e-13);
  }
  // The uniform's slot is past the last normal of the point and before the next point's first.
  CHECK(rt::point_uniform_index(d, 0) >= static_cast<std::uint64_t>(d));
  CHECK(rt::point_uniform_index(d, 0) / 2 < rt::point_normal_index(d, 1, 0) / 2);
  CHECK(rt::point_uniform_index(d, 0) / 2 > rt::point_normal_index(d, 0, d - 1) / 2);
}

TEST_CASE("strided top-k equals the contiguous top-k and a full sort", "[routing]") {
  const std::uint64_t seed = GENERATE(range(1, 21));
  const RandomStream rs(seed, StreamTag::property_test, 0);
  const int m = 2 + static_cast<int>(rs.uniform(0) * 40), k = 1 + static_cast<int>(rs.uniform(1) * (m - 1));
  const long stride = 1 + static_cast<long>(rs.uniform(2) * 5);
  std::vector<double> strided(static_cast<std::size_t>(m * stride), -1e300), contiguous(static_cast<std::size_t>(m));
  for (int j = 0; j < m; ++j) contiguous[static_cast<std::size_t>(j)] = strided[static_cast<std::size_t>(j * stride)] = rs.normal(10 + j);
  std::vector<int> a(static_cast<std::size_t>(k)), b(a.size());
  std::vector<double> work(a.size());
  rt::top_k_strided(strided.data(), stride, m, k, a.data(), work.data());
  rt::top_k_indices(contiguous.data(), m, k, b.data(), work.data());
  CAPTURE(m, k, stride);
  CHECK(a == b);
  std::vector<int> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return contiguous[static_cast<std::size_t>(x)] > contiguous[static_cast<std::size_t>(y)]; });
  order.resize(static_cast<std::size_t>(k));
  std::sort(order.begin(), order.end());
  CHECK(a == order);
}

TEST_CASE("rank_sorted equals SubsetRanker::rank over every subset", "[routing]") {
  const int m = GENERATE(5, 9), k = GENERATE(1, 3);
  const rt::SubsetRanker ranker(m, k);
  for (std::uint64_t r = 0; r < ranker.count(); ++r) {
    const std::vector<int> s = ranker.unrank(r);
    CHECK(rt::rank_sorted(s.data(), k, ranker.table().data(), ranker.table_stride()) == r);
  }
}

TEST_CASE("the device pipeline's layout gives the CPU reference's regions", "[routing]") {
  // Both sides compute the same scores up to summation order (Eigen here vs Eigen there; cuBLAS on the
  // device), so a point changes region only when its k-th and (k+1)-th scores tie to about 1e-15: the
  // chance is of order 1e-13 per point, and 0 mismatches are required.
  struct Case {
    int m, k, d;
    rt::ScorePath path;
    rt::InputLaw law;
  };
  const Case c = GENERATE(Case{16, 8, 64, rt::ScorePath::full, rt::InputLaw::gaussian},
                          Case{16, 8, 64, rt::ScorePath::full, rt::InputLaw::ball},
                          Case{16, 8, 64, rt::ScorePath::projected, rt::InputLaw::gaussian},
                          Case{40, 3, 24, rt::ScorePath::full, rt::InputLaw::gaussian});
  CAPTURE(c.m, c.k, c.d, static_cast<int>(c.path), rt::input_law_name(c.law));
  const std::uint64_t seed = 5, draw = 2, first = rt::kPointsPerStream - 700, B = 2000;  // spans two point streams
  const rt::Router router(rt::gaussian_routing_vectors(c.m, c.d, seed, draw), c.k, c.path);
  std::vector<std::uint64_t> cpu(B);
  router.route(c.law, seed, draw, first, cpu);
  CHECK(mismatches(device_layout_ranks(router, c.law, seed, draw, first, B), cpu) == 0);
  // Negative control: the points of the next draw must land elsewhere for most points (the chance
  // of the same region is sum_S mu(U_S)^2, about 1/C(m, k) to 1.8/C(m, k)).
  CHECK(mismatches(device_layout_ranks(router, c.law, seed, draw + 1, first, B), cpu) > B / 2);
}
