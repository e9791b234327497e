#include "moelab/routing/linear_pieces.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/routing/student_search.hpp"  // router_labels
#include "moelab/routing/subset_rank.hpp"

namespace moelab::routing {

Eigen::MatrixXd FactoredExperts::matrix(int i) const {
  const auto u = static_cast<std::size_t>(i);
  return scale * A[u] * B[u].transpose();
}

Eigen::MatrixXd FactoredExperts::sum(std::span<const int> S) const {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(d, d);
  for (int i : S) out.noalias() += matrix(i);
  return out;
}

FactoredExperts lemma_b9_experts(int m, int k, int w, int d, std::uint64_t seed, std::uint64_t draw, bool shared_row_space) {
  MOELAB_EXPECT(m >= 1 && k >= 1 && k <= m && w >= 1 && d >= 1, "lemma_b9_experts needs 1 <= k <= m, w >= 1, d >= 1");
  const RandomStream rs(seed, StreamTag::routing_experts, draw);
  FactoredExperts M;
  M.d = d;
  // The proof's normalisation: E E_x sum_S 1(x in U_S)|M_S x|^2 = k w d E|x|^2 before it (B.2's
  // chain), so dividing M_i by sqrt(2 k w d) gives E|x|^2 / 2, and Markov gives (B.2) with prob. >= 1/2.
  M.scale = 1.0 / std::sqrt(2.0 * k * w * static_cast<double>(d));
  std::uint64_t u = 0;
  for (int i = 0; i < m; ++i) {
    Eigen::MatrixXd A(d, w), B(d, w);
    for (auto& v : A.reshaped()) v = rs.normal(u++);
    for (auto& v : B.reshaped()) v = rs.normal(u++);
    if (shared_row_space && i > 0) B = M.B[0];
    M.A.push_back(std::move(A));
    M.B.push_back(std::move(B));
  }
  return M;
}

FactoredExperts lemma_c6_experts(int m, int k, int w, int d, std::uint64_t seed, std::uint64_t draw) {
  MOELAB_EXPECT(m >= 1 && k >= 1 && k <= m && w >= 2 && d >= 1, "lemma_c6_experts needs 1 <= k <= m, w >= 2, d >= 1");
  const RandomStream rs(seed, StreamTag::routing_experts, draw);
  const int wp = w / 2;  // w' = floor(w/2)
  FactoredExperts M;
  M.d = d;
  M.scale = std::sqrt(static_cast<double>(d) / (static_cast<double>(k) * w));  // "scaling the matrices by sqrt(d/kw)"
  std::uint64_t u = 0;
  for (int i = 0; i < m; ++i) {
    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(d, wp);
    for (int j = 0; j < wp; ++j) E(std::min(d - 1, static_cast<int>(rs.uniform(u++) * d)), j) = 1.0;  // p_ij ~ Unif[d]
    M.A.push_back(E);
    M.B.push_back(std::move(E));
  }
  return M;
}

namespace {

// Eigenvalues (ascending) of the nonzero part of (A B')'(A B') from the Grams GA = A'A, GB = B'B
// (n x n, GA positive definite): the eigenvalues of L' GB L with GA = L L'.
Eigen::VectorXd product_eigs_from_grams(const Eigen::MatrixXd& GA, const Eigen::MatrixXd& GB) {
  const Eigen::LLT<Eigen::MatrixXd> llt(GA);
  if (llt.info() != Eigen::Success) return {};
  const Eigen::MatrixXd L = llt.matrixL();
  const Eigen::MatrixXd K = L.transpose() * GB * L;
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(K, Eigen::EigenvaluesOnly).eigenvalues();
}

Eigen::VectorXd product_eigs(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  const Eigen::Index n = A.cols(), d = A.rows();
  if (n <= d) {
    Eigen::VectorXd ev = product_eigs_from_grams(A.transpose() * A, B.transpose() * B);
    if (ev.size() == n) return ev;  // else A is rank deficient: fall through to the dense form
  }
  // Dense: the smaller of D'D (n x n) and D D' (d x d); both carry the nonzero sigma_i^2, min(n, d) values.
  const Eigen::MatrixXd D = A * B.transpose();
  const Eigen::MatrixXd G = n <= d ? Eigen::MatrixXd(D.transpose() * D) : Eigen::MatrixXd(D * D.transpose());
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(G, Eigen::EigenvaluesOnly).eigenvalues();
}

double tail_of_ascending(const Eigen::VectorXd& ev, int r) {
  // sum of all but the r largest (clipped at 0: rounding can leave -1e-16 on zero eigenvalues)
  double s = 0.0;
  for (Eigen::Index i = 0; i + r < ev.size(); ++i) s += std::max(0.0, ev(i));
  return s;
}

}  // namespace

Eigen::VectorXd product_singular_values2(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  MOELAB_EXPECT(A.rows() == B.rows() && A.cols() == B.cols(), "product_singular_values2: A and B must have the same shape");
  Eigen::VectorXd ev = product_eigs(A, B);
  for (auto& v : ev) v = std::max(0.0, v);
  std::sort(ev.data(), ev.data() + ev.size(), std::greater<>());
  return ev;
}

double eckart_young_tail(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, int r) {
  MOELAB_EXPECT(A.rows() == B.rows() && A.cols() == B.cols(), "eckart_young_tail: A and B must have the same shape");
  return tail_of_ascending(product_eigs(A, B), std::max(0, r));
}

PairTail min_pair_tail(const FactoredExperts& M, int k, int max_common, int r, int max_t) {
  const int m = M.m(), d = M.d;
  MOELAB_EXPECT(k >= 1 && k <= m && max_common >= 0, "min_pair_tail needs 1 <= k <= m and max_common >= 0");
  // Stacked factors and their Grams, once: a pair's Grams are signed sub-blocks of these.
  std::vector<Eigen::Index> offset(static_cast<std::size_t>(m) + 1, 0);
  for (int i = 0; i < m; ++i) offset[static_cast<std::size_t>(i) + 1] = offset[static_cast<std::size_t>(i)] + M.A[static_cast<std::size_t>(i)].cols();
  const Eigen::Index W = offset.back();
  Eigen::MatrixXd As(d, W), Bs(d, W);
  for (int i = 0; i < m; ++i) {
    const auto u = static_cast<std::size_t>(i);
    As.middleCols(offset[u], offset[u + 1] - offset[u]) = M.A[u];
    Bs.middleCols(offset[u], offset[u + 1] - offset[u]) = M.B[u];
  }
  const Eigen::MatrixXd GA = As.transpose() * As, GB = Bs.transpose() * Bs;
  const double s2 = M.scale * M.scale;
  PairTail out;
  out.min_tail = INFINITY;
  const int t_last = max_t >= 1 ? std::min(k, max_t) : k;
  for (int t = std::max(1, k - max_common); t <= t_last && k + t <= m; ++t) {
    const SubsetRanker ranker(m, t);
    const std::uint64_t count = ranker.count();
    std::vector<std::vector<int>> sets(count);
    for (std::uint64_t a = 0; a < count; ++a) sets[a] = ranker.unrank(a);
    for (std::uint64_t a = 0; a < count; ++a) {
      for (std::uint64_t b = a + 1; b < count; ++b) {
        const auto& P = sets[a];
        const auto& Q = sets[b];
        bool disjoint = true;
        for (int p : P)
          for (int q : Q) disjoint = disjoint && p != q;
        if (!disjoint) continue;
        // D = M_P - M_Q = scale [A_P, -A_Q] [B_P, B_Q]'
        std::vector<Eigen::Index> cols;
        std::vector<double> sign;
        for (int p : P)
          for (Eigen::Index c = offset[static_cast<std::size_t>(p)]; c < offset[static_cast<std::size_t>(p) + 1]; ++c) cols.push_back(c), sign.push_back(1.0);
        for (int q : Q)
          for (Eigen::Index c = offset[static_cast<std::size_t>(q)]; c < offset[static_cast<std::size_t>(q) + 1]; ++c) cols.push_back(c), sign.push_back(-1.0);
        const auto n = static_cast<Eigen::Index>(cols.size());
        double tail;
        Eigen::VectorXd ev;
        if (n <= d) {
          Eigen::MatrixXd ga(n, n), gb(n, n);
          for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < n; ++j) {
              ga(i, j) = sign[static_cast<std::size_t>(i)] * sign[static_cast<std::size_t>(j)] * GA(cols[static_cast<std::size_t>(i)], cols[static_cast<std::size_t>(j)]);
              gb(i, j) = GB(cols[static_cast<std::size_t>(i)], cols[static_cast<std::size_t>(j)]);
            }
          ev = product_eigs_from_grams(ga, gb);
        }
        if (ev.size() != n) {  // n > d, or a rank-deficient factor: the dense d x d form
          Eigen::MatrixXd A(d, n), B(d, n);
          for (Eigen::Index i = 0; i < n; ++i) {
            A.col(i) = sign[static_cast<std::size_t>(i)] * As.col(cols[static_cast<std::size_t>(i)]);
            B.col(i) = Bs.col(cols[static_cast<std::size_t>(i)]);
          }
          ev = product_eigs(A, B);
        }
        tail = s2 * tail_of_ascending(ev, r);
        ++out.pairs;
        if (tail < out.min_tail) out.min_tail = tail, out.P = P, out.Q = Q;
      }
    }
  }
  if (out.pairs == 0) out.min_tail = 0.0;
  return out;
}

Eigen::MatrixXd teacher_outputs(const LinearTeacher& t, const Eigen::MatrixXd& X) {
  const int m = t.M.m(), d = t.M.d, k = t.k;
  MOELAB_EXPECT(t.R.rows() == m && t.R.cols() == d && X.rows() == d, "teacher_outputs: shapes of R, M and X disagree");
  std::vector<Eigen::Index> offset(static_cast<std::size_t>(m) + 1, 0);
  for (int i = 0; i < m; ++i) offset[static_cast<std::size_t>(i) + 1] = offset[static_cast<std::size_t>(i)] + t.M.A[static_cast<std::size_t>(i)].cols();
  const Eigen::Index W = offset.back();
  Eigen::MatrixXd As(d, W), BsT(W, d);
  for (int i = 0; i < m; ++i) {
    const auto u = static_cast<std::size_t>(i);
    As.middleCols(offset[u], offset[u + 1] - offset[u]) = t.M.A[u];
    BsT.middleRows(offset[u], offset[u + 1] - offset[u]) = t.M.B[u].transpose();
  }
  // Y = B' X for every expert; zero the inactive experts' rows per point; f = scale A Y.
  Eigen::MatrixXd Y = BsT * X;
  const Eigen::MatrixXd S = t.R * X;
  std::vector<int> idx(static_cast<std::size_t>(k));
  std::vector<double> work(static_cast<std::size_t>(k));
  std::vector<char> active(static_cast<std::size_t>(m));
  for (Eigen::Index c = 0; c < X.cols(); ++c) {
    top_k_indices(S.col(c).data(), m, k, idx.data(), work.data());
    std::fill(active.begin(), active.end(), 0);
    for (int i : idx) active[static_cast<std::size_t>(i)] = 1;
    for (int i = 0; i < m; ++i)
      if (!active[static_cast<std::size_t>(i)])
        Y.col(c).segment(offset[static_cast<std::size_t>(i)], offset[static_cast<std::size_t>(i) + 1] - offset[static_cast<std::size_t>(i)]).setZero();
  }
  return t.M.scale * (As * Y);
}

Welford teacher_energy(const LinearTeacher& t, InputLaw law, std::uint64_t n, std::uint64_t seed, std::uint64_t draw) {
  Welford w;
  constexpr std::uint64_t chunk = 4096;
  for (std::uint64_t first = 0; first < n; first += chunk) {
    const auto cols = static_cast<Eigen::Index>(std::min(chunk, n - first));
    Eigen::MatrixXd X(t.M.d, cols);
    draw_points(law, seed, draw, first, X);
    const Eigen::MatrixXd F = teacher_outputs(t, X);
    for (Eigen::Index c = 0; c < cols; ++c) w.add(F.col(c).squaredNorm());
  }
  return w;
}

RegionStats region_stats(const Eigen::MatrixXd& X, const Eigen::MatrixXd& F, std::span<const std::uint64_t> labels,
                         std::uint64_t regions) {
  MOELAB_EXPECT(X.cols() == F.cols() && static_cast<std::size_t>(X.cols()) == labels.size(), "region_stats: one label per point");
  const Eigen::Index d = X.rows(), dout = F.rows();
  RegionStats s;
  s.xx.assign(regions, Eigen::MatrixXd::Zero(d, d));
  s.fx.assign(regions, Eigen::MatrixXd::Zero(dout, d));
  s.ff.assign(regions, 0.0);
  s.count.assign(regions, 0.0);
  // Group the points by region (counting sort), then one GEMM per region.
  std::vector<std::size_t> start(regions + 1, 0);
  for (auto l : labels) {
    MOELAB_EXPECT(l < regions, "region_stats: label out of range");
    ++start[l + 1];
  }
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::size_t> pos(start.begin(), start.end() - 1);
  Eigen::MatrixXd Xs(d, X.cols()), Fs(dout, X.cols());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto c = static_cast<Eigen::Index>(pos[labels[i]]++);
    Xs.col(c) = X.col(static_cast<Eigen::Index>(i));
    Fs.col(c) = F.col(static_cast<Eigen::Index>(i));
  }
  for (std::uint64_t j = 0; j < regions; ++j) {
    const auto a = static_cast<Eigen::Index>(start[j]), len = static_cast<Eigen::Index>(start[j + 1] - start[j]);
    if (len == 0) continue;
    const auto Xb = Xs.middleCols(a, len);
    const auto Fb = Fs.middleCols(a, len);
    s.xx[j].noalias() = Xb * Xb.transpose();
    s.fx[j].noalias() = Fb * Xb.transpose();
    s.ff[j] = Fb.squaredNorm();
    s.count[j] = static_cast<double>(len);
  }
  return s;
}

namespace {

// G = fx xx^+ (pseudo-inverse: eigenvalues below 1e-12 of the largest dropped). A Cholesky solve when
// xx is safely positive definite (every pivot above 1e-10 of the largest diagonal entry; a 16 x 16
// Cholesky costs ~1/20 of the eigen-decomposition, which dominated the B.13 claim's time).
Eigen::MatrixXd least_squares_map(const Eigen::MatrixXd& xx, const Eigen::MatrixXd& fx) {
  const Eigen::LLT<Eigen::MatrixXd> llt(xx);
  if (llt.info() == Eigen::Success && xx.rows() > 0) {
    const Eigen::VectorXd piv = Eigen::MatrixXd(llt.matrixL()).diagonal();
    if (piv.minCoeff() * piv.minCoeff() > 1e-10 * xx.diagonal().maxCoeff()) return llt.solve(fx.transpose()).transpose();
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(xx);
  const Eigen::VectorXd& lam = es.eigenvalues();
  const double top = lam.size() ? lam.maxCoeff() : 0.0;
  Eigen::VectorXd inv = Eigen::VectorXd::Zero(lam.size());
  for (Eigen::Index i = 0; i < lam.size(); ++i)
    if (top > 0 && lam(i) > 1e-12 * top) inv(i) = 1.0 / lam(i);
  const Eigen::MatrixXd& V = es.eigenvectors();
  return (fx * V) * inv.asDiagonal() * V.transpose();
}

}  // namespace

double piecewise_linear_error(const RegionStats& s) {
  double rss = 0.0, total = 0.0;
  for (std::size_t j = 0; j < s.xx.size(); ++j) {
    total += s.ff[j];
    if (s.count[j] == 0) continue;
    const Eigen::MatrixXd G = least_squares_map(s.xx[j], s.fx[j]);
    // min_G sum |f - G x|^2 = sum|f|^2 - tr(G fx') at the least-squares G.
    rss += std::max(0.0, s.ff[j] - (G.cwiseProduct(s.fx[j])).sum());
  }
  return total > 0 ? rss / total : 0.0;
}

double piecewise_linear_holdout_error(const RegionStats& train, const RegionStats& test) {
  MOELAB_EXPECT(train.xx.size() == test.xx.size(), "piecewise_linear_holdout_error: the same regions on both samples");
  double err = 0.0, total = 0.0;
  for (std::size_t j = 0; j < test.xx.size(); ++j) {
    total += test.ff[j];
    if (test.count[j] == 0) continue;
    const Eigen::MatrixXd G = train.count[j] > 0 ? least_squares_map(train.xx[j], train.fx[j])
                                                 : Eigen::MatrixXd::Zero(test.fx[j].rows(), test.fx[j].cols());
    // sum |f - G x|^2 = sum|f|^2 - 2 tr(G fx') + tr(G xx G')
    err += test.ff[j] - 2.0 * G.cwiseProduct(test.fx[j]).sum() + (G * test.xx[j]).cwiseProduct(G).sum();
  }
  return total > 0 ? std::max(0.0, err) / total : 0.0;
}

double piecewise_linear_error_dof(const RegionStats& s) {
  double err = 0.0, total = 0.0;
  for (std::size_t j = 0; j < s.xx.size(); ++j) {
    total += s.ff[j];
    if (s.count[j] == 0) continue;
    const double dof = s.count[j] - static_cast<double>(s.xx[j].rows());
    if (dof < 2.0) {
      err += s.ff[j];
      continue;
    }
    const Eigen::MatrixXd G = least_squares_map(s.xx[j], s.fx[j]);
    err += std::max(0.0, s.ff[j] - G.cwiseProduct(s.fx[j]).sum()) * s.count[j] / dof;
  }
  return total > 0 ? err / total : 0.0;
}

LinearStudentSearch optimise_linear_router(const LinearTeacher& t, const Eigen::MatrixXd& X, int ms, int ks, int iterations,
                                           const RngKey& key) {
  MOELAB_EXPECT(ks >= 1 && ks <= ms, "optimise_linear_router needs 1 <= k' <= m'");
  const int d = t.M.d;
  const std::uint64_t regions = binomial(ms, ks);
  const Eigen::MatrixXd F = teacher_outputs(t, X);
  const auto err = [&](const Eigen::MatrixXd& R) { return piecewise_linear_error_dof(region_stats(X, F, router_labels(R, ks, X), regions)); };
  const RngKey k2 = key.with("linear_climb", 1000 * static_cast<std::int64_t>(ms) + ks);
  std::vector<Eigen::MatrixXd> starts;
  for (std::uint64_t draw = 0; draw < 3; ++draw) starts.push_back(gaussian_routing_vectors(ms, d, k2.with("start").seed(), draw));
  Eigen::MatrixXd aligned = gaussian_routing_vectors(ms, d, k2.with("pad").seed(), 0);
  const int shared = std::min(ms, static_cast<int>(t.R.rows()));
  aligned.topRows(shared) = t.R.topRows(shared);
  starts.push_back(aligned);
  LinearStudentSearch r;
  r.m_student = ms, r.k_student = ks, r.regions = regions;
  double best_err = INFINITY;
  for (const auto& R : starts) {
    const double e = err(R);
    if (e < best_err) best_err = e, r.routing = R;
  }
  r.initial_error = best_err;
  const RandomStream rs(k2.with("steps").seed(), StreamTag::routing_vectors, 0);
  // Step 0.25 |r_j| halved after 8 rejections in a row: at (10, 3), d = 16, the constant-expert
  // search's 0.5 and 15 kept 0-2 of 30 steps; these keep more (docs/routing.md).
  double step = 0.25;
  int rejected_run = 0;
  for (int it = 0; it < iterations; ++it) {
    const auto base = static_cast<std::uint64_t>(it) * static_cast<std::uint64_t>(d + 2);
    const int row = std::min(ms - 1, static_cast<int>(rs.uniform(base) * ms));
    Eigen::MatrixXd cand = r.routing;
    const double scale = step * r.routing.row(row).norm() / std::sqrt(static_cast<double>(d));
    for (int c = 0; c < d; ++c) cand(row, c) += scale * rs.normal(base + 2 + static_cast<std::uint64_t>(c));
    const double e = err(cand);
    ++r.tried;
    if (e < best_err) {
      best_err = e, r.routing = std::move(cand), ++r.accepted, rejected_run = 0;
    } else if (++rejected_run >= 8) {
      step *= 0.5, rejected_run = 0;
    }
  }
  r.final_error = best_err;
  return r;
}

UnionTail min_union_tail_diagonal(const FactoredExperts& M, int T, int r) {
  const int m = M.m(), d = M.d;
  MOELAB_EXPECT(T >= 1 && T <= m, "min_union_tail_diagonal needs 1 <= T <= m");
  // diag(M_l^2) = scale^2 (count of l's coordinates)^2, M_l = scale sum_j e_{p_lj} e_{p_lj}'
  std::vector<Eigen::VectorXd> sq(static_cast<std::size_t>(m));
  for (int l = 0; l < m; ++l) {
    const Eigen::VectorXd counts = M.A[static_cast<std::size_t>(l)].rowwise().sum();
    MOELAB_EXPECT((M.A[static_cast<std::size_t>(l)] - M.B[static_cast<std::size_t>(l)]).norm() == 0.0 && counts.size() == d,
                  "min_union_tail_diagonal needs Lemma C.6's diagonal experts (A_l = B_l, one coordinate per column)");
    sq[static_cast<std::size_t>(l)] = M.scale * M.scale * counts.array().square().matrix();
  }
  const SubsetRanker ranker(m, T);
  UnionTail out;
  out.min_tail = INFINITY;
  out.subsets = ranker.count();
  std::vector<int> U(static_cast<std::size_t>(T));
  Eigen::VectorXd acc(d);
  for (std::uint64_t a = 0; a < out.subsets; ++a) {
    ranker.unrank(a, U);
    acc.setZero();
    for (int l : U) acc += sq[static_cast<std::size_t>(l)];
    std::sort(acc.data(), acc.data() + d);  // ascending: the tail beyond the top r is the first d - r
    double tail = 0.0;
    for (int i = 0; i + r < d; ++i) tail += acc(i);
    if (tail < out.min_tail) out.min_tail = tail, out.U = U;
  }
  return out;
}

}  // namespace moelab::routing
