#include "moelab/noisy/appendix_a6.hpp"

#include <algorithm>
#include <cmath>

#include "moelab/core/distributions.hpp"
#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"

namespace moelab::noisy {

namespace {
Eigen::MatrixXd normals(int rows, int cols, std::uint64_t seed, StreamTag tag, std::uint64_t trial) {
  Eigen::MatrixXd z(rows, cols);  // column-major: entry (r, c) is normal number c * rows + r
  RandomStream(seed, tag, trial).fill_normal(0, static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols), z.data());
  return z;
}
Eigen::MatrixXd cholesky_factor(const Eigen::MatrixXd& sigma) {
  Eigen::LLT<Eigen::MatrixXd> llt(sigma);
  MOELAB_EXPECT(llt.info() == Eigen::Success, "A.6 design: Sigma must be positive definite");
  return llt.matrixL();
}
}  // namespace

A6Design draw_a6_block(const Eigen::MatrixXd& sigma, double sigma2, int n, std::uint64_t seed, std::uint64_t trial) {
  MOELAB_EXPECT(n >= 1 && sigma.rows() == sigma.cols() && sigma2 > 0.0, "A.6 design: bad sizes");
  const int p = static_cast<int>(sigma.rows());
  A6Design d;
  // Rows x' = (L z)' = z' L': X = Z L'.
  d.x = normals(n, p, seed, StreamTag::design_signal, trial) * cholesky_factor(sigma).transpose();
  d.xbar = d.x + std::sqrt(sigma2) * normals(n, p, seed, StreamTag::design_noise, trial);
  return d;
}

A6Design draw_a6_dense(const Model& m, int n, std::uint64_t seed, std::uint64_t trial) {
  m.check_consistent();
  MOELAB_EXPECT(n >= 1, "A.6 dense design: n >= 1");
  const int d = m.d(), k = m.k();
  const Eigen::MatrixXd z = normals(n, d, seed, StreamTag::design_signal, trial);
  A6Design out;
  out.x = Eigen::MatrixXd::Zero(n, d);
  for (int i = 0; i < k; ++i) {
    const Eigen::MatrixXd l = cholesky_factor(m.sigma[static_cast<std::size_t>(i)]);
    const int off = m.offset(i), b = m.block_size(i);
    for (int t = i; t < n; t += k)  // Eq. 1: block-diagonal X, row t in expert t mod k
      out.x.row(t).segment(off, b) = (l * z.row(t).segment(off, b).transpose()).transpose();
  }
  out.xbar = out.x + std::sqrt(m.sigma2) * normals(n, d, seed, StreamTag::design_noise, trial);
  return out;
}

Eigen::MatrixXd mixture_second_moment(const Model& m) {
  Eigen::MatrixXd s = Eigen::MatrixXd::Zero(m.d(), m.d());
  for (int i = 0; i < m.k(); ++i)
    s.block(m.offset(i), m.offset(i), m.block_size(i), m.block_size(i)) =
        m.p[static_cast<std::size_t>(i)] * m.sigma[static_cast<std::size_t>(i)];
  return s;
}

Eigen::VectorXd min_norm_fit(const Eigen::MatrixXd& xbar, const Eigen::VectorXd& y) {
  return Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(xbar).solve(y);
}

Eigen::MatrixXd pinv_psd(const Eigen::MatrixXd& a, double rel_cut) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(a);
  const Eigen::VectorXd& ev = es.eigenvalues();
  const double cut = rel_cut * std::max(ev.cwiseAbs().maxCoeff(), 0.0);
  Eigen::VectorXd inv(ev.size());
  for (Eigen::Index i = 0; i < ev.size(); ++i) inv(i) = ev(i) > cut ? 1.0 / ev(i) : 0.0;
  return es.eigenvectors() * inv.asDiagonal() * es.eigenvectors().transpose();
}

double condition_number(const Eigen::MatrixXd& xbar) {
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(xbar).singularValues();
  double smallest = s(0);
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s(i) > 1e-10 * s(0)) smallest = s(i);
  return s(0) / smallest;
}

double a6_test_error(const Eigen::MatrixXd& sigma, double sigma2, const Eigen::VectorXd& b, const Eigen::VectorXd& beta) {
  // noisy, A.6 first display: E[x'(b - beta)]^2 + E[(e'b)^2], the cross term 2 E[x'(b - beta) e'b] = 0.
  const Eigen::VectorXd r = b - beta;
  return r.dot(sigma * r) + sigma2 * b.squaredNorm();
}

A61Bias a61_bias(const A6Design& d, const Eigen::MatrixXd& sigma, const Eigen::VectorXd& beta) {
  A61Bias out;
  const Eigen::VectorXd bhat = min_norm_fit(d.xbar, d.x * beta);
  const Eigen::VectorXd r = bhat - beta;
  out.direct = r.dot(sigma * r);
  // noisy, A.6.1: beta_hat - beta* = -(Xbar' Xbar)^+ Xbar' E beta*, bias = v' Sigma v with v that vector.
  const Eigen::VectorXd v = -pinv_psd(d.xbar.transpose() * d.xbar, 1e-10) * (d.xbar.transpose() * (d.noise() * beta));
  out.printed = v.dot(sigma * v);
  return out;
}

A62Variance a62_variance(const A6Design& d, double sigma2, const Eigen::VectorXd& beta) {
  A62Variance out;
  const Eigen::VectorXd bhat = min_norm_fit(d.xbar, d.x * beta);
  out.direct = sigma2 * bhat.squaredNorm();
  // Xbar^+ = Xbar' (Xbar Xbar')^+ (A.6.2, third line), by an eigendecomposition of the n x n Gram matrix.
  const Eigen::MatrixXd gram_pinv = pinv_psd(d.xbar * d.xbar.transpose(), 1e-10);
  const Eigen::MatrixXd xbar_pinv = d.xbar.transpose() * gram_pinv;
  // noisy, A.6.2 first line: sigma2 tr[Xbar^+ X beta beta' X' Xbar^+'] = sigma2 ||Xbar^+ X beta||^2.
  out.exact = sigma2 * (xbar_pinv * (d.x * beta)).squaredNorm();
  // noisy, A.6.2 second-fourth lines: sigma2 tr[X' (Xbar Xbar')^+ X] (beta beta' dropped).
  const double trace = (d.x.transpose() * gram_pinv * d.x).trace();
  out.printed = sigma2 * trace;
  out.isotropic = sigma2 * beta.squaredNorm() / static_cast<double>(beta.size()) * trace;
  return out;
}

}  // namespace moelab::noisy
