#include "moelab/spectra/ensembles.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include <fmt/format.h>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"

namespace moelab::spectra {

namespace {

constexpr EntryLaw kLaws[] = {EntryLaw::gaussian, EntryLaw::rademacher, EntryLaw::uniform};

/// Eigenvalues of the symmetric G, ascending.
Eigen::VectorXd symmetric_eigenvalues(const Eigen::MatrixXd& G) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(G, Eigen::EigenvaluesOnly).eigenvalues();
}

/// Eigenvalues, ascending, of Y Y' (M x M) for Y M x N, computed from the smaller Gram matrix and
/// padded with exact zeros.
Eigen::VectorXd gram_eigenvalues(const Eigen::MatrixXd& Y) {
  const Eigen::Index M = Y.rows(), N = Y.cols();
  Eigen::MatrixXd G(std::min(M, N), std::min(M, N));
  G.setZero();
  if (M <= N) {
    G.selfadjointView<Eigen::Lower>().rankUpdate(Y);
  } else {
    G.selfadjointView<Eigen::Lower>().rankUpdate(Y.transpose());
  }
  const Eigen::VectorXd ev = symmetric_eigenvalues(G);
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
      rs.fill_normal(0, count, x);
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
                                              EntryLaw law, std::uint64_t seed, std::uint64_t trial) {
  return gram_eigenvalues(spiked_factor(M, N, ell, sigma2, law, seed, trial));
}

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
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Y * Y.transpose());
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

/// Number of eigenvalues of the tridiagonal (diag, sub) below x (Sylvester inertia of T - x I via
/// the LDL' pivots).
int sturm_count_below(const Eigen::VectorXd& diag, const Eigen::VectorXd& sub, double x) {
  int count = 0;
  double d = 1.0;
  for (Eigen::Index i = 0; i < diag.size(); ++i) {
    const double off = i > 0 ? sub(i - 1) * sub(i - 1) : 0.0;
    d = diag(i) - x - (i > 0 ? off / d : 0.0);
    if (d == 0.0) d = -1e-300;  // x is (numerically) an eigenvalue: count it below, move on
    count += d < 0.0;
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
  for (int step = 0; step < 100 && hi - lo > 1e-14 * std::max(std::abs(lo), std::abs(hi)); ++step) {
    const double mid = 0.5 * (lo + hi);
    // All M eigenvalues below mid: the largest is below it.
    if (sturm_count_below(diag, sub, mid) == M) hi = mid; else lo = mid;
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
                                            EntryLaw law, std::uint64_t seed, std::uint64_t trial) {
  MOELAB_EXPECT(signal_sv2.size() <= std::min(M, N), "more signal singular values than min(M, N)");
  Eigen::MatrixXd S = iid_matrix(M, N, law, seed, StreamTag::design_noise, trial);
  S *= std::sqrt(sigma2 / N);
  for (Eigen::Index k = 0; k < signal_sv2.size(); ++k) S(k, k) += std::sqrt(signal_sv2(k));
  const Eigen::VectorXd ascending = gram_eigenvalues(M <= N ? S : Eigen::MatrixXd(S.transpose()));
  return ascending.reverse();
}

}  // namespace moelab::spectra
