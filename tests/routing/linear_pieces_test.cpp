// The linear pieces of Theorems 3.4 / 3.6 (lib/moelab/routing/linear_pieces.hpp): the constructions of
// Lemmas B.9 and C.6, Eckart-Young tails against a dense SVD, the pair and union minima against brute
// force, the teacher (B.7) against a per-point sum, and the per-region least squares against a dense
// solve.
#include "moelab/routing/linear_pieces.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/core/distributions.hpp"
#include "moelab/core/keys.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/routing/student_search.hpp"
#include "moelab/routing/subset_rank.hpp"

namespace rt = moelab::routing;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// sum_{i > r} sigma_i^2 of a dense matrix by Jacobi SVD (the reference).
double dense_tail(const Eigen::MatrixXd& D, int r) {
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(D).singularValues();  // descending
  double t = 0.0;
  for (Eigen::Index i = r; i < s.size(); ++i) t += s(i) * s(i);
  return t;
}

Eigen::MatrixXd gaussian(int rows, int cols, unsigned seed) {
  Eigen::MatrixXd A(rows, cols);
  const moelab::RandomStream rs(seed, moelab::StreamTag::property_test, 0);
  std::uint64_t u = 0;
  for (auto& v : A.reshaped()) v = rs.normal(u++);
  return A;
}

}  // namespace

TEST_CASE("Eckart-Young tails of A B' match the closed form and a dense SVD", "[routing][linear_pieces]") {
  // Built answer: A = Q1 diag(a), B = Q2 diag(b) with orthonormal Q1, Q2: sigma_i(A B') = a_i b_i.
  constexpr int d = 9, n = 4;
  const Eigen::MatrixXd Q1 = Eigen::HouseholderQR<Eigen::MatrixXd>(gaussian(d, d, 1)).householderQ() * Eigen::MatrixXd::Identity(d, n);
  const Eigen::MatrixXd Q2 = Eigen::HouseholderQR<Eigen::MatrixXd>(gaussian(d, d, 2)).householderQ() * Eigen::MatrixXd::Identity(d, n);
  const Eigen::Vector4d a(3.0, 1.0, 2.0, 0.5), bb(1.0, 2.0, 0.25, 4.0);  // products 3, 2, 0.5, 2
  const Eigen::MatrixXd A = Q1 * a.asDiagonal(), B = Q2 * bb.asDiagonal();
  const Eigen::VectorXd s2 = rt::product_singular_values2(A, B);
  REQUIRE(s2.size() == n);
  CHECK_THAT(s2(0), WithinRel(9.0, 1e-12));
  CHECK_THAT(s2(1), WithinRel(4.0, 1e-12));
  CHECK_THAT(s2(2), WithinRel(4.0, 1e-12));
  CHECK_THAT(s2(3), WithinRel(0.25, 1e-12));
  CHECK_THAT(rt::eckart_young_tail(A, B, 0), WithinRel(17.25, 1e-12));
  CHECK_THAT(rt::eckart_young_tail(A, B, 1), WithinRel(8.25, 1e-12));
  CHECK_THAT(rt::eckart_young_tail(A, B, 3), WithinRel(0.25, 1e-12));
  CHECK(rt::eckart_young_tail(A, B, 4) == 0.0);
  // Random factors, n < d (the Gram route) and n > d (the dense route).
  for (int cols : {5, 14}) {
    const Eigen::MatrixXd X = gaussian(d, cols, 3), Y = gaussian(d, cols, 4);
    for (int r : {0, 2, 4})
      CHECK_THAT(rt::eckart_young_tail(X, Y, r), WithinRel(dense_tail(X * Y.transpose(), r), 1e-10));
  }
}

TEST_CASE("Lemma B.9's construction: rank <= w, the proof's normalisation, and the shared-row-space control", "[routing][linear_pieces]") {
  constexpr int m = 5, k = 2, w = 3, d = 12;
  const auto M = rt::lemma_b9_experts(m, k, w, d, 7, 0);
  REQUIRE(M.m() == m);
  CHECK_THAT(M.scale, WithinRel(1.0 / std::sqrt(2.0 * k * w * d), 1e-15));
  for (int i = 0; i < m; ++i) {
    Eigen::FullPivLU<Eigen::MatrixXd> lu(M.matrix(i));
    CHECK(lu.rank() == w);
  }
  const auto S = rt::lemma_b9_experts(m, k, w, d, 7, 0, true);
  CHECK((S.A[0] - M.A[0]).norm() == 0.0);  // same draw, only the B_i tied
  for (int i = 1; i < m; ++i) CHECK((S.B[static_cast<std::size_t>(i)] - S.B[0]).norm() == 0.0);
  const int both[] = {0, 3};
  Eigen::FullPivLU<Eigen::MatrixXd> lu(S.sum(both));
  CHECK(lu.rank() == w);  // a sum of shared-row-space experts keeps rank w
}

TEST_CASE("Lemma C.6's construction: diagonal, rank <= w/2, entries multiples of sqrt(d/kw)", "[routing][linear_pieces]") {
  constexpr int m = 6, k = 2, w = 7, d = 10;  // w' = 3
  const auto M = rt::lemma_c6_experts(m, k, w, d, 9, 0);
  const double s = std::sqrt(static_cast<double>(d) / (k * w));
  CHECK_THAT(M.scale, WithinRel(s, 1e-15));
  for (int i = 0; i < m; ++i) {
    const Eigen::MatrixXd Mi = M.matrix(i);
    CHECK((Mi - Eigen::MatrixXd(Mi.diagonal().asDiagonal())).norm() == 0.0);
    CHECK_THAT(Mi.trace(), WithinRel(3.0 * s, 1e-14));  // w' coordinates, repeats add up
    Eigen::FullPivLU<Eigen::MatrixXd> lu(Mi);
    CHECK(lu.rank() <= w / 2);
    for (int j = 0; j < d; ++j) CHECK_THAT(Mi(j, j) / s, WithinAbs(std::round(Mi(j, j) / s), 1e-12));
  }
}

TEST_CASE("min_pair_tail equals the brute-force minimum over all pairs S, S'", "[routing][linear_pieces]") {
  constexpr int m = 6, k = 3, w = 2, d = 8;
  const auto M = rt::lemma_b9_experts(m, k, w, d, 21, 0);
  const rt::SubsetRanker ranker(m, k);
  for (int max_common : {2, 1}) {
    for (int r : {0, 2, 3}) {
      double brute = INFINITY;
      for (std::uint64_t a = 0; a < ranker.count(); ++a)
        for (std::uint64_t b = 0; b < ranker.count(); ++b) {
          const auto S = ranker.unrank(a), T = ranker.unrank(b);
          int common = 0;
          for (int i : S) common += static_cast<int>(std::count(T.begin(), T.end(), i));
          if (a == b || common > max_common) continue;
          brute = std::min(brute, dense_tail(M.sum(S) - M.sum(T), r));
        }
      const auto got = rt::min_pair_tail(M, k, max_common, r);
      CHECK_THAT(got.min_tail, WithinRel(brute, 1e-9));
      REQUIRE(got.P.size() == got.Q.size());
      CHECK_THAT(dense_tail(M.sum(got.P) - M.sum(got.Q), r), WithinRel(got.min_tail, 1e-9));
    }
  }
  // The closest pairs alone bound the minimum from above; a rank budget >= 2 t w leaves nothing.
  CHECK(rt::min_pair_tail(M, k, 2, 2, 1).min_tail >= rt::min_pair_tail(M, k, 2, 2).min_tail);
  CHECK(rt::min_pair_tail(M, k, 2, 2 * w, 1).min_tail == 0.0);
  // Shared row space: every difference has rank <= w.
  CHECK(rt::min_pair_tail(rt::lemma_b9_experts(m, k, w, d, 21, 0, true), k, 2, w).min_tail == 0.0);
}

TEST_CASE("the linear teacher (B.7) is the sum of its top-k experts' matrices at every point", "[routing][linear_pieces]") {
  constexpr int m = 6, k = 2, w = 3, d = 10;
  rt::LinearTeacher t;
  t.k = k;
  t.R = rt::gaussian_routing_vectors(m, d, 31, 0);
  t.M = rt::lemma_b9_experts(m, k, w, d, 31, 0);
  Eigen::MatrixXd X(d, 50);
  rt::draw_points(rt::InputLaw::gaussian, 31, 1, 0, X);
  const Eigen::MatrixXd F = rt::teacher_outputs(t, X);
  std::vector<int> idx(k);
  std::vector<double> work(k);
  for (Eigen::Index c = 0; c < X.cols(); ++c) {
    const Eigen::VectorXd s = t.R * X.col(c);
    rt::top_k_indices(s.data(), m, k, idx.data(), work.data());
    const Eigen::VectorXd f = t.M.sum(idx) * X.col(c);
    CHECK_THAT((F.col(c) - f).norm(), WithinAbs(0.0, 1e-13 * (1.0 + f.norm())));
  }
  // teacher_energy: the mean of |f|^2 over the same points.
  const auto e = rt::teacher_energy(t, rt::InputLaw::gaussian, 50, 31, 1);
  CHECK_THAT(e.mean(), WithinRel(F.colwise().squaredNorm().mean(), 1e-12));
}

TEST_CASE("per-region least squares: exact on linear pieces, a dense solve on a merged region", "[routing][linear_pieces]") {
  constexpr int d = 5, n = 400;
  const Eigen::MatrixXd X = gaussian(d, n, 41), G0 = gaussian(d, d, 42), G1 = gaussian(d, d, 43);
  std::vector<std::uint64_t> lab(n);
  Eigen::MatrixXd F(d, n);
  for (int i = 0; i < n; ++i) {
    lab[static_cast<std::size_t>(i)] = X(0, i) > 0 ? 1 : 0;
    F.col(i) = (X(0, i) > 0 ? G1 : G0) * X.col(i);
  }
  const auto two = rt::region_stats(X, F, lab, 2);
  CHECK_THAT(rt::piecewise_linear_error(two), WithinAbs(0.0, 1e-12));
  CHECK_THAT(rt::piecewise_linear_holdout_error(two, two), WithinAbs(0.0, 1e-12));
  // One region: the least-squares residual of F on X.
  const std::vector<std::uint64_t> zero(n, 0);
  const auto one = rt::region_stats(X, F, zero, 1);
  const Eigen::MatrixXd Gls = X.transpose().colPivHouseholderQr().solve(F.transpose()).transpose();
  const double rss = (F - Gls * X).squaredNorm() / F.squaredNorm();
  CHECK(rss > 0.05);
  CHECK_THAT(rt::piecewise_linear_error(one), WithinRel(rss, 1e-9));
  // Holdout on the training sample itself is the in-sample error; on fresh points it is larger here.
  CHECK_THAT(rt::piecewise_linear_holdout_error(one, one), WithinRel(rss, 1e-9));
  // A region with fewer points than d is fitted exactly (pseudo-inverse): in-sample error 0 there.
  std::vector<std::uint64_t> few(n, 0);
  for (int i = 0; i < 3; ++i) few[static_cast<std::size_t>(i)] = 1;
  const auto s = rt::region_stats(X, F, few, 2);
  CHECK(s.count[1] == 3.0);
  // The search objective: the in-sample residual times n/(n - d) per region; a region with n <= d + 1
  // points counts as unfitted (its whole sum |f|^2).
  const double ff1 = F.leftCols(3).squaredNorm(), ff0 = F.rightCols(n - 3).squaredNorm();
  const Eigen::MatrixXd X0 = X.rightCols(n - 3), F0 = F.rightCols(n - 3);
  const Eigen::MatrixXd G0ls = X0.transpose().colPivHouseholderQr().solve(F0.transpose()).transpose();
  const double expect = ((F0 - G0ls * X0).squaredNorm() * (n - 3.0) / (n - 3.0 - d) + ff1) / (ff0 + ff1);
  CHECK_THAT(rt::piecewise_linear_error_dof(s), WithinRel(expect, 1e-9));
}

TEST_CASE("min_union_tail_diagonal equals the brute-force minimum and vanishes when T w' <= k w", "[routing][linear_pieces]") {
  constexpr int m = 7, k = 2, w = 4, d = 12;  // w' = 2, k w = 8
  const auto M = rt::lemma_c6_experts(m, k, w, d, 51, 0);
  for (int T : {3, 5}) {
    const rt::SubsetRanker ranker(m, T);
    double brute = INFINITY;
    for (std::uint64_t a = 0; a < ranker.count(); ++a) {
      Eigen::MatrixXd S = Eigen::MatrixXd::Zero(d, d);
      for (int l : ranker.unrank(a)) S += M.matrix(l) * M.matrix(l);
      Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(S).eigenvalues();  // ascending
      double tail = 0.0;
      for (int i = 0; i + k * w < d; ++i) tail += ev(i);
      brute = std::min(brute, tail);
    }
    const auto got = rt::min_union_tail_diagonal(M, T, k * w);
    CHECK(got.subsets == ranker.count());
    CHECK_THAT(got.min_tail, WithinAbs(brute, 1e-12));
  }
  CHECK(rt::min_union_tail_diagonal(M, 2 * k, k * w).min_tail == 0.0);  // 2k experts: 2k w' = k w coordinates
}

TEST_CASE("the linear router search never ends above its start and is reproducible", "[routing][linear_pieces]") {
  constexpr int m = 6, k = 2, w = 2, d = 6;
  rt::LinearTeacher t;
  t.k = k;
  t.R = rt::gaussian_routing_vectors(m, d, 61, 0);
  t.M = rt::lemma_b9_experts(m, k, w, d, 61, 0);
  Eigen::MatrixXd Xa(d, 3000);
  rt::draw_points(rt::InputLaw::gaussian, 61, 1, 0, Xa);
  const auto key = moelab::RngKey::root(5);
  const auto s = rt::optimise_linear_router(t, Xa, 4, 1, 20, key);
  CHECK(s.regions == 4);
  CHECK(s.final_error <= s.initial_error);
  CHECK(s.tried == 20);
  const auto again = rt::optimise_linear_router(t, Xa, 4, 1, 20, key);
  CHECK(again.final_error == s.final_error);
  // The teacher's own router (6, 2) starts exact: error 0 (every region is one linear piece).
  const auto exact = rt::optimise_linear_router(t, Xa, m, k, 0, key);
  CHECK_THAT(exact.final_error, WithinAbs(0.0, 1e-10));
}
