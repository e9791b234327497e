#include "moelab/spectra/ensembles.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <utility>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/linalg/lapack.hpp"

namespace moelab::spectra {

namespace {

constexpr EntryLaw kLaws[] = {EntryLaw::gaussian, EntryLaw::rademacher, EntryLaw::uniform};

/// Eigenvalues, ascending, of Y Y' (M x M) for Y M x N, computed from the smaller Gram matrix and
/// padded with exact zeros. Gram by syrk, eigenvalues by dsyevd (linalg/lapack.hpp: OpenBLAS when
/// built with it, Eigen otherwise).
Eigen::VectorXd gram_eigenvalues(const Eigen::MatrixXd& Y) {
  const Eigen::Index M = Y.rows(), N = Y.cols();
  Eigen::MatrixXd G;
  lapack::gram_lower(Y, /*transpose=*/M > N, G);
  const Eigen::VectorXd ev = lapack::symmetric_eigenvalues(G);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(M);
  out.tail(ev.size()) = ev.cwiseMax(0.0);  // rounding can leave -1e-16 on a PSD Gram matrix
  return out;
}

}  // namespace

EntryLaw entry_law_from_name(const std::string& name) {
  for (const EntryLaw law : kLaws)
    if (name == entry_law_name(law)) return law;
  MOELAB_EXPECT(false, "unknown entry law (scenario validation should have caught it)");
  return EntryLaw::gaussian;
}

const char* entry_law_name(EntryLaw law) {
  switch (law) {
    case EntryLaw::gaussian: return "gaussian";
    case EntryLaw::rademacher: return "rademacher";
    case EntryLaw::uniform: return "uniform";
  }
  return "?";
}

std::vector<std::string> entry_law_names() {
  std::vector<std::string> names;
  for (const EntryLaw law : kLaws) names.emplace_back(entry_law_name(law));
  return names;
}

Eigen::MatrixXd iid_matrix(int M, int N, EntryLaw law, std::uint64_t seed, StreamTag tag, std::uint64_t trial) {
  MOELAB_EXPECT(M > 0 && N > 0, "matrix dimensions must be positive");
  Eigen::MatrixXd X(M, N);
  const RandomStream rs(seed, tag, trial);
  const auto count = static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(N);
  double* x = X.data();
  switch (law) {
    case EntryLaw::gaussian:
      fill_normal_cpu(rs, 0, count, x);  // bulk Box-Muller (distributions.hpp)
      break;
    case EntryLaw::rademacher:
      for (std::uint64_t j = 0; j < count; ++j) x[j] = rs.uniform(j) < 0.5 ? -1.0 : 1.0;
      break;
    case EntryLaw::uniform: {
      // U(-sqrt 3, sqrt 3) has variance 1.
      const double half_width = std::sqrt(3.0);
      for (std::uint64_t j = 0; j < count; ++j) x[j] = half_width * (2.0 * rs.uniform(j) - 1.0);
      break;
    }
  }
  return X;
}

namespace {

/// Y = sqrt(sigma2 / N) T^(1/2) X of the spiked model (S = Y Y').
Eigen::MatrixXd spiked_factor(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                              std::uint64_t seed, std::uint64_t trial) {
  MOELAB_EXPECT(sigma2 > 0.0, "sigma2 must be positive");
  MOELAB_EXPECT(static_cast<int>(ell.size()) <= M, "more spikes than dimensions");
  Eigen::MatrixXd Y = iid_matrix(M, N, law, seed, StreamTag::design_noise, trial);
  for (std::size_t k = 0; k < ell.size(); ++k) {
    MOELAB_EXPECT(ell[k] > 0.0, "spiked population eigenvalues must be positive");
    Y.row(static_cast<Eigen::Index>(k)) *= std::sqrt(ell[k]);
  }
  Y *= std::sqrt(sigma2 / N);
  return Y;
}

}  // namespace

Eigen::VectorXd sample_covariance_eigenvalues(int M, int N, const std::vector<double>& ell, double sigma2,
                                              EntryLaw law, std::uint64_t seed, std::uint64_t trial, Sampler sampler) {
  if (sampler == Sampler::reduced && law == EntryLaw::gaussian && M <= N)
    return detail::bartlett_covariance_eigenvalues(M, N, ell, sigma2, seed, trial, 0);
  return gram_eigenvalues(spiked_factor(M, N, ell, sigma2, law, seed, trial));
}

namespace {

/// chi_k = sqrt(2 Gamma(k / 2)) from gamma_variate(index) of the stream (seed, design_noise, trial).
/// gamma_variate's attempts for indices < count use Philox blocks < 130 count, i.e. normals < 260 count;
/// the reduced draws put their normals from normal_base(count) on, so the two never share a block.
double chi_variate(double k, std::uint64_t seed, std::uint64_t trial, std::uint64_t index) {
  MOELAB_EXPECT(k > 0.0, "chi degrees of freedom must be positive");
  return std::sqrt(2.0 * gamma_variate(0.5 * k, seed, StreamTag::design_noise, trial, index));
}
std::uint64_t normal_base(std::uint64_t chi_count) { return 260 * chi_count; }

}  // namespace

namespace detail {

Eigen::VectorXd bartlett_covariance_eigenvalues(int M, int N, const std::vector<double>& ell, double sigma2,
                                                std::uint64_t seed, std::uint64_t trial, int df_shift) {
  MOELAB_EXPECT(M > 0 && M <= N, "the Bartlett draw needs 0 < M <= N");
  MOELAB_EXPECT(sigma2 > 0.0, "sigma2 must be positive");
  MOELAB_EXPECT(static_cast<int>(ell.size()) <= M, "more spikes than dimensions");
  // L lower triangular with L_ii = chi_{N-M+1+i}, N(0, 1) below; L'L = U U' with U = L' upper, the
  // Bartlett factor of X X' ~ Wishart_M(N, I) with the coordinates reversed (ensembles.hpp).
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(M, M);
  for (int i = 0; i < M; ++i)
    A(i, i) = chi_variate(N - M + 1 + i + df_shift, seed, trial, static_cast<std::uint64_t>(i));
  const std::uint64_t below = static_cast<std::uint64_t>(M) * static_cast<std::uint64_t>(M - 1) / 2;
  Eigen::VectorXd z(static_cast<Eigen::Index>(below));
  fill_normal_cpu(RandomStream(seed, StreamTag::design_noise, trial), normal_base(static_cast<std::uint64_t>(M)), below,
                  z.data());
  Eigen::Index k = 0;
  for (int j = 0; j < M; ++j)
    for (int i = j + 1; i < M; ++i) A(i, j) = z(k++);
  lapack::lower_transpose_times_lower(A);  // lower triangle of L'L, distributed as X X'
  // S = (sigma2 / N) T^(1/2) X X' T^(1/2), T = diag(ell, 1, ..., 1).
  Eigen::VectorXd scale = Eigen::VectorXd::Constant(M, std::sqrt(sigma2 / N));
  for (std::size_t s = 0; s < ell.size(); ++s) {
    MOELAB_EXPECT(ell[s] > 0.0, "spiked population eigenvalues must be positive");
    scale(static_cast<Eigen::Index>(s)) *= std::sqrt(ell[s]);
  }
  for (int j = 0; j < M; ++j)
    for (int i = j; i < M; ++i) A(i, j) *= scale(i) * scale(j);
  return lapack::symmetric_eigenvalues(A).cwiseMax(0.0);
}

Eigen::VectorXd banded_info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2,
                                                   std::uint64_t seed, std::uint64_t trial, int df_shift) {
  MOELAB_EXPECT(M > 0 && N > 0, "matrix dimensions must be positive");
  MOELAB_EXPECT(sigma2 > 0.0, "sigma2 must be positive");
  const int m = std::min(M, N), n = std::max(M, N);
  const int r = static_cast<int>(signal_sv2.size());
  const int b = std::max(r, 1);
  MOELAB_EXPECT(r <= m && n - r >= m, "the band model needs n - r >= m (ensembles.hpp)");
  const double s2 = sigma2 / N;  // noise variance per entry (Loubaton-Vallet: sigma2 / N, N the columns of Sigma)
  const RandomStream rs(seed, StreamTag::design_noise, trial);
  // Chi variates: index i < m the diagonal of K, m + i the diagonals of its sub-diagonal blocks.
  // (A shifted control keeps at least one degree of freedom; unshifted, dof >= 1 always.)
  const auto chi = [&](int dof, int index) {
    return chi_variate(std::max(dof + df_shift, 1), seed, trial, static_cast<std::uint64_t>(index));
  };
  std::uint64_t next = normal_base(2 * static_cast<std::uint64_t>(m));
  // R R': A = B_r + s G (m x r), A = H [R; 0].
  Eigen::MatrixXd RRt;
  if (r > 0) {
    Eigen::MatrixXd A(m, r);
    fill_normal_cpu(rs, next, static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(r), A.data());
    next += static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(r);
    A *= std::sqrt(s2);
    for (int k = 0; k < r; ++k) {
      MOELAB_EXPECT(signal_sv2(k) >= 0.0, "squared singular values must be non-negative");
      A(k, k) += std::sqrt(signal_sv2(k));
    }
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(A);
    const Eigen::MatrixXd R = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
    RRt = R * R.transpose();
  }
  // K in lower band storage kb(d, j) = K(j + d, j), d = 0..b; its normals in this order.
  const int n2 = n - r;
  Eigen::MatrixXd kb = Eigen::MatrixXd::Zero(b + 1, m);
  const std::uint64_t per_block = static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(b - 1);  // both blocks
  const int blocks = (m + b - 1) / b;
  Eigen::VectorXd z(static_cast<Eigen::Index>(per_block * static_cast<std::uint64_t>(blocks)) + 1);
  fill_normal_cpu(rs, next, static_cast<std::uint64_t>(z.size()), z.data());
  Eigen::Index zi = 0;
  int sub_index = 0;
  for (int k = 0; k < blocks; ++k) {
    const int k0 = k * b, rb = std::min(b, m - k0);
    // Diagonal block: LQ of the rb x (n2 - k0) Gaussian block: lower triangular, chi_{n2 - k0 - i}.
    for (int i = 0; i < rb; ++i) {
      kb(0, k0 + i) = chi(n2 - k0 - i, k0 + i);
      for (int j = 0; j < i; ++j) kb(i - j, k0 + j) = z(zi++);
    }
    // Sub-diagonal block: QR of the (m - k0 - rb) x rb Gaussian block below: upper triangular, chi_{cnt - i}.
    const int row0 = k0 + rb, cnt = m - row0, rr = std::min(cnt, rb);
    for (int i = 0; i < rr; ++i) {
      kb(rb, k0 + i) = chi(cnt - i, m + sub_index++);  // K(row0 + i, k0 + i): offset rb
      for (int j = i + 1; j < rb; ++j) kb(rb + i - j, k0 + j) = z(zi++);
    }
  }
  // T = s2 K K' + E R R' E' in lower band storage, kd = b: T(j + d1, j + d2) += K(j + d1, j) K(j + d2, j).
  Eigen::MatrixXd tb = Eigen::MatrixXd::Zero(b + 1, m);
  for (int j = 0; j < m; ++j)
    for (int d2 = 0; d2 <= b && j + d2 < m; ++d2)
      for (int d1 = d2; d1 <= b && j + d1 < m; ++d1) tb(d1 - d2, j + d2) += s2 * kb(d1, j) * kb(d2, j);
  for (int k = 0; k < r; ++k)
    for (int i = k; i < r; ++i) tb(i - k, k) += RRt(i, k);
  return lapack::band_eigenvalues(tb).cwiseMax(0.0);
}

}  // namespace detail

namespace {

/// Top eigenpair of Y Y' by power iteration (Y (Y' v), random start from StreamTag::gd_init), with
/// the dense eigensolver as fallback (header comment of spiked_top_eigenpair).
std::pair<double, Eigen::VectorXd> top_of_gram(const Eigen::MatrixXd& Y, std::uint64_t seed, std::uint64_t trial, int& iterations) {
  const Eigen::Index M = Y.rows();
  Eigen::VectorXd v(M);
  RandomStream(seed, StreamTag::gd_init, trial).fill_normal(0, static_cast<std::uint64_t>(M), v.data());
  v.normalize();
  for (int it = 1; it <= 300; ++it) {
    const Eigen::VectorXd w = Y * (Y.transpose() * v);
    const double lambda = v.dot(w);
    const double residual = (w - lambda * v).norm();
    v = w / w.norm();
    if (residual <= 1e-12 * lambda) {
      iterations = it;
      return {lambda, v};
    }
  }
  iterations = 0;
  const Eigen::MatrixXd gram = Y * Y.transpose();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(gram);
  return {es.eigenvalues()(M - 1), es.eigenvectors().col(M - 1)};
}

}  // namespace

TopEigenpair spiked_top_eigenpair(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                                  std::uint64_t seed, std::uint64_t trial) {
  TopEigenpair out;
  const auto [value, v] = top_of_gram(spiked_factor(M, N, ell, sigma2, law, seed, trial), seed, trial, out.iterations);
  out.value = value;
  out.overlap2 = v(0) * v(0);
  return out;
}

InfoPlusNoiseTop info_plus_noise_top(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                                     std::uint64_t seed, std::uint64_t trial) {
  MOELAB_EXPECT(signal_sv2.size() >= 1 && signal_sv2.size() <= std::min(M, N), "need 1 .. min(M, N) signal singular values");
  Eigen::MatrixXd S = iid_matrix(M, N, law, seed, StreamTag::design_noise, trial);
  S *= std::sqrt(sigma2 / N);
  for (Eigen::Index k = 0; k < signal_sv2.size(); ++k) S(k, k) += std::sqrt(signal_sv2(k));
  InfoPlusNoiseTop out;
  const auto [value, u] = top_of_gram(S, seed, trial, out.iterations);
  const Eigen::VectorXd v = (S.transpose() * u).normalized();  // right singular vector of the same value
  out.value = value;
  out.left_overlap2 = u(0) * u(0);
  out.right_overlap2 = v(0) * v(0);
  return out;
}

double gamma_variate(double shape, std::uint64_t seed, StreamTag tag, std::uint64_t trial, std::uint64_t index) {
  MOELAB_EXPECT(shape > 0.0, "gamma shape must be positive");
  const RandomStream rs(seed, tag, trial);
  // Attempt r of variate `index` uses normal 4q (block 2q) and uniform 4q + 2 (block 2q + 1),
  // q = 65 index + r: disjoint Philox blocks, so the normal and the uniform are independent.
  // Attempt 64 (r = 64) supplies the U^(1/shape) boost for shape < 1.
  const std::uint64_t base = 65 * index;
  const double a = shape < 1.0 ? shape + 1.0 : shape;
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (std::uint64_t r = 0; r < 64; ++r) {
    const std::uint64_t q = base + r;
    const double z = rs.normal(4 * q);
    const double t = 1.0 + c * z;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double u = rs.uniform(4 * q + 2);
    // Marsaglia & Tsang (2000), ACM TOMS 26(3): accept if log u < z^2/2 + d - d v + d log v.
    if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) {
      double g = d * v;
      if (shape < 1.0) g *= std::pow(rs.uniform(4 * (base + 64) + 2), 1.0 / shape);
      return g;
    }
  }
  throw RuntimeFailure(fmt::format("gamma_variate: 64 rejections in a row (shape {}, index {})", shape, index));
}

namespace {

/// Diagonal and subdiagonal of B B' for the Dumitriu-Edelman bidiagonal B (header comment).
void laguerre_tridiagonal(int M, int N, double beta, std::uint64_t seed, std::uint64_t trial, Eigen::VectorXd& diag,
                          Eigen::VectorXd& sub) {
  MOELAB_EXPECT(M > 0 && M <= N, "the tridiagonal Laguerre model needs 0 < M <= N");
  MOELAB_EXPECT(beta > 0.0, "beta must be positive");
  // chi_k = sqrt(2 Gamma(k / 2)); variate i is the diagonal entry i, M + i the subdiagonal entry i.
  const auto chi = [&](double k, std::uint64_t index) {
    return std::sqrt(2.0 * gamma_variate(0.5 * k, seed, StreamTag::tridiagonal, trial, index));
  };
  Eigen::VectorXd b(M), s(std::max(M - 1, 0));
  for (int i = 0; i < M; ++i) b(i) = chi(beta * (N - i), static_cast<std::uint64_t>(i));
  for (int i = 0; i + 1 < M; ++i) s(i) = chi(beta * (M - 1 - i), static_cast<std::uint64_t>(M + i));
  // T = B B' with B lower bidiagonal: T_ii = b_i^2 + s_{i-1}^2, T_{i+1,i} = s_i b_i.
  diag.resize(M);
  sub.resize(std::max(M - 1, 0));
  for (int i = 0; i < M; ++i) diag(i) = b(i) * b(i) + (i > 0 ? s(i - 1) * s(i - 1) : 0.0);
  for (int i = 0; i + 1 < M; ++i) sub(i) = s(i) * b(i);
}

/// Numbers of eigenvalues of the tridiagonal (diag, sub) below x[0], x[1], x[2] (Sylvester inertia of
/// T - x I via the LDL' pivots). The three pivot recurrences are independent, so they run side by side
/// in one pass: each one's division waits on its own previous pivot only, and the three overlap. Each
/// count is what the same recurrence run for one x alone gives (the same operations on the same values).
std::array<int, 3> sturm_counts_below(const Eigen::VectorXd& diag, const Eigen::VectorXd& sub, const std::array<double, 3>& x) {
  std::array<int, 3> count{0, 0, 0};
  std::array<double, 3> d{1.0, 1.0, 1.0};
  for (Eigen::Index i = 0; i < diag.size(); ++i) {
    const double off = i > 0 ? sub(i - 1) * sub(i - 1) : 0.0;
    for (int j = 0; j < 3; ++j) {
      d[j] = diag(i) - x[j] - (i > 0 ? off / d[j] : 0.0);
      if (d[j] == 0.0) d[j] = -1e-300;  // x is (numerically) an eigenvalue: count it below, move on
      count[j] += d[j] < 0.0;
    }
  }
  return count;
}

}  // namespace

double tridiagonal_largest_eigenvalue(const Eigen::VectorXd& diag, const Eigen::VectorXd& sub) {
  const Eigen::Index M = diag.size();
  MOELAB_EXPECT(M > 0 && sub.size() == std::max<Eigen::Index>(M - 1, 0), "tridiagonal sizes do not match");
  double lo = diag(0), hi = diag(0);
  for (Eigen::Index i = 0; i < M; ++i) {  // Gershgorin discs
    const double r = (i > 0 ? std::abs(sub(i - 1)) : 0.0) + (i + 1 < M ? std::abs(sub(i)) : 0.0);
    lo = std::min(lo, diag(i) - r);
    hi = std::max(hi, diag(i) + r);
  }
  // Bisection, at most 100 halvings, until the interval is 1e-14 of its end points. Two halvings per
  // pass: the counts at the midpoint and at both quarter points (one of which is the next midpoint)
  // are computed together, so the sequence of midpoints, and the result, are those of one-at-a-time
  // bisection, in about half the time (the count is bound by the latency of its divisions).
  int step = 0;
  const auto more = [&] { return step < 100 && hi - lo > 1e-14 * std::max(std::abs(lo), std::abs(hi)); };
  while (more()) {
    const double mid = 0.5 * (lo + hi);
    const double left = 0.5 * (lo + mid), right = 0.5 * (mid + hi);
    const std::array<int, 3> c = sturm_counts_below(diag, sub, {mid, left, right});
    // All M eigenvalues below mid: the largest is below it.
    const bool below = c[0] == M;
    if (below) hi = mid; else lo = mid;
    ++step;
    if (!more()) break;
    const double next = below ? left : right;  // 0.5 * (lo + hi) of the halved interval
    if ((below ? c[1] : c[2]) == M) hi = next; else lo = next;
    ++step;
  }
  return 0.5 * (lo + hi);
}

Eigen::VectorXd laguerre_tridiagonal_eigenvalues(int M, int N, double beta, std::uint64_t seed, std::uint64_t trial) {
  Eigen::VectorXd diag, sub;
  laguerre_tridiagonal(M, N, beta, seed, trial, diag, sub);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver;
  solver.computeFromTridiagonal(diag, sub, Eigen::EigenvaluesOnly);
  return solver.eigenvalues();
}

double laguerre_tridiagonal_largest(int M, int N, double beta, std::uint64_t seed, std::uint64_t trial) {
  Eigen::VectorXd diag, sub;
  laguerre_tridiagonal(M, N, beta, seed, trial, diag, sub);
  return tridiagonal_largest_eigenvalue(diag, sub);
}

Eigen::VectorXd info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2,
                                            EntryLaw law, std::uint64_t seed, std::uint64_t trial, Sampler sampler) {
  MOELAB_EXPECT(signal_sv2.size() <= std::min(M, N), "more signal singular values than min(M, N)");
  const int r = static_cast<int>(signal_sv2.size());
  // The band model pays only when the band is narrow (b <= m / 4); a wide one is a dense matrix.
  if (sampler == Sampler::reduced && law == EntryLaw::gaussian && std::max(M, N) - r >= std::min(M, N) &&
      4 * std::max(r, 1) <= std::min(M, N))
    return detail::banded_info_plus_noise_eigenvalues(M, N, signal_sv2, sigma2, seed, trial, 0).reverse();
  Eigen::MatrixXd S = iid_matrix(M, N, law, seed, StreamTag::design_noise, trial);
  S *= std::sqrt(sigma2 / N);
  for (Eigen::Index k = 0; k < signal_sv2.size(); ++k) S(k, k) += std::sqrt(signal_sv2(k));
  const Eigen::VectorXd ascending = gram_eigenvalues(M <= N ? S : Eigen::MatrixXd(S.transpose()));
  return ascending.reverse();
}

}  // namespace moelab::spectra
