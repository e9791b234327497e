#include "moelab/routing/conditional_covariance.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <boost/math/quadrature/gauss_kronrod.hpp>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"
#include "moelab/core/normal.hpp"

namespace moelab::routing {

double lemma_b5_threshold(int d) { return 1.0 / (30000.0 * d); }

int lemma_b5_kappa(InputLaw law, double mass, int d) {
  MOELAB_EXPECT(mass > 0 && mass <= 1 && d >= 1, "lemma_b5_kappa needs 0 < mass <= 1, d >= 1");
  // Gaussian (Lemma B.2 with t = 1/100 in units of 1/sqrt(d)): per direction a tube of probability at
  // most 0.01 sqrt(2/pi); at least kappa/3 such directions, 2^kappa choices of them, and the factor 2
  // of the Markov step: mu(U) <= 2 (2 rho)^kappa with rho = (0.01 sqrt(2/pi))^(1/3) = 0.19986.
  if (law == InputLaw::gaussian) {
    const double base = 2.0 * std::cbrt(0.01 * std::sqrt(2.0 / M_PI));  // 0.3997
    for (int kappa = 1; kappa <= 100000; ++kappa)
      if (2.0 * std::pow(base, kappa) < mass) return kappa;
    return -1;
  }
  // Ball (Lemma B.3 with t = 1/100): tube probability <= 2^(-d) + (8 t)^n per n directions, so
  // mu(U) <= 2 2^kappa (2^(-d/2) ... ) as in the proof: 2 (2^(kappa - d/2) + (2 (0.08)^(1/3))^kappa).
  const double base = 2.0 * std::cbrt(0.08);  // 0.8618
  for (int kappa = 1; kappa <= d; ++kappa)
    if (2.0 * (std::pow(2.0, kappa - 0.5 * d) + std::pow(base, kappa)) < mass) return kappa;
  return -1;
}

HalfspaceSpectrum halfspace_spectrum(InputLaw law, int d, double t) {
  MOELAB_EXPECT(d >= 2, "halfspace_spectrum needs d >= 2");
  HalfspaceSpectrum h;
  if (law == InputLaw::gaussian) {
    const double tau = t * std::sqrt(static_cast<double>(d));
    h.mass = normal_sf(tau);
    const double hz = normal_pdf(tau) / h.mass;  // inverse Mills ratio
    h.along = (1.0 + tau * hz - hz * hz) / d;
    h.across = 1.0 / d;
    return h;
  }
  MOELAB_EXPECT(t > -1 && t < 1, "halfspace_spectrum (ball) needs -1 < t < 1");
  using boost::math::quadrature::gauss_kronrod;
  const double e = 0.5 * (d - 1);
  const auto w = [e](double s) { return std::pow(1.0 - s * s, e); };
  const auto I = [&](auto f, double a, double b) { return gauss_kronrod<double, 61>::integrate(f, a, b, 15, 1e-13); };
  const double z = I([&](double s) { return w(s); }, -1.0, 1.0);
  const double m0 = I([&](double s) { return w(s); }, t, 1.0);
  const double m1 = I([&](double s) { return s * w(s); }, t, 1.0);
  const double m2 = I([&](double s) { return s * s * w(s); }, t, 1.0);
  h.mass = m0 / z;
  const double mean = m1 / m0;
  h.along = m2 / m0 - mean * mean;
  h.across = (1.0 - m2 / m0) / (d + 1.0);
  return h;
}

std::vector<RegionCovariance> region_covariances(const Eigen::MatrixXd& R, int k, InputLaw law, std::uint64_t points,
                                                 std::uint64_t seed, std::uint64_t draw) {
  const int d = static_cast<int>(R.cols());
  const Router router(R, k, ScorePath::full);
  struct Acc {
    std::uint64_t n = 0;
    Eigen::VectorXd s;
    Eigen::MatrixXd ss;
  };
  std::map<std::uint64_t, Acc> acc;  // ordered: output in rank order
  constexpr std::uint64_t batch = 4096;
  Eigen::MatrixXd X(d, static_cast<Eigen::Index>(batch));
  std::vector<std::uint64_t> labels(batch);
  for (std::uint64_t done = 0; done < points; done += batch) {
    const std::uint64_t b = std::min(batch, points - done);
    draw_points(law, seed, draw, done, X.leftCols(static_cast<Eigen::Index>(b)));
    router.route(law, seed, draw, done, std::span<std::uint64_t>(labels.data(), b));
    for (std::uint64_t i = 0; i < b; ++i) {
      Acc& a = acc[labels[i]];
      if (a.n == 0) {
        a.s = Eigen::VectorXd::Zero(d);
        a.ss = Eigen::MatrixXd::Zero(d, d);
      }
      ++a.n;
      const auto x = X.col(static_cast<Eigen::Index>(i));
      a.s += x;
      a.ss.selfadjointView<Eigen::Lower>().rankUpdate(x);
    }
  }
  std::vector<RegionCovariance> out;
  for (auto& [rank, a] : acc) {
    RegionCovariance rc;
    rc.rank = rank;
    rc.count = a.n;
    rc.mass = static_cast<double>(a.n) / static_cast<double>(points);
    if (a.n > static_cast<std::uint64_t>(d)) {
      const double n = static_cast<double>(a.n);
      const Eigen::VectorXd mean = a.s / n;
      Eigen::MatrixXd cov = a.ss.selfadjointView<Eigen::Lower>();
      cov = (cov - n * mean * mean.transpose()) / (n - 1.0);
      rc.eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(cov, Eigen::EigenvaluesOnly).eigenvalues();
    }
    out.push_back(std::move(rc));
  }
  return out;
}

Eigen::VectorXd halfspace_sample_eigenvalues(InputLaw law, int d, double t, std::uint64_t accepted, std::uint64_t seed,
                                             std::uint64_t draw) {
  MOELAB_EXPECT(accepted > static_cast<std::uint64_t>(d), "halfspace_sample_eigenvalues needs more than d points");
  constexpr std::uint64_t batch = 4096;
  Eigen::MatrixXd X(d, static_cast<Eigen::Index>(batch));
  Eigen::VectorXd s = Eigen::VectorXd::Zero(d);
  Eigen::MatrixXd ss = Eigen::MatrixXd::Zero(d, d);
  std::uint64_t n = 0;
  for (std::uint64_t first = 0; n < accepted; first += batch) {
    draw_points(law, seed, draw, first, X);
    for (Eigen::Index i = 0; i < X.cols() && n < accepted; ++i) {
      if (!(X(0, i) > t)) continue;
      ++n;
      s += X.col(i);
      ss.selfadjointView<Eigen::Lower>().rankUpdate(X.col(i));
    }
  }
  const double nn = static_cast<double>(n);
  const Eigen::VectorXd mean = s / nn;
  Eigen::MatrixXd cov = ss.selfadjointView<Eigen::Lower>();
  cov = (cov - nn * mean * mean.transpose()) / (nn - 1.0);
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(cov, Eigen::EigenvaluesOnly).eigenvalues();
}

}  // namespace moelab::routing
