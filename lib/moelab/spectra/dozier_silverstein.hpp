// Limiting spectral distribution of information-plus-noise matrices with a signal of any spectrum
// (Dozier & Silverstein 2007, J. Multivariate Anal. 98(4), 678-694, "On the empirical distribution of
// eigenvalues of large dimensional information-plus-noise-type matrices", Thm 1.1; support analysis as
// in Dozier & Silverstein 2007, J. Multivariate Anal. 98(6), and Loubaton & Vallet 2011, EJP 16, Sec. 2).
//
// Convention (the info_plus_noise.hpp one, docs/conventions.md):
//   C = (1/N)(R + sigma X)(R + sigma X)' = (B + W)(B + W)',  M x M, with B = R/sqrt(N), W = sigma X/sqrt(N)
//   iid N(0, sigma2/N) (sigma2 = sigma^2), c = M/N, and H = the limiting eigenvalue distribution of
//   (1/N) R R' = B B' (so a finite-rank B with squared singular values lambda is H -> delta_0, and
//   H = delta_0 gives MP(c, sigma2)). H is given by atoms t_j >= 0 with weights p_j (sum 1).
//   For c > 1, rank R <= N forces H({0}) >= 1 - 1/c; the law then has an atom 1 - 1/c at 0.
//
// The Stieltjes transform m(z) = int dmu(x)/(x - z) of the limit mu is, for z in C+, the unique solution
// with Im m > 0 (and Im(z m) > 0) of Dozier-Silverstein's equation (their (1.1)):
//   m = int dH(t) / ( t/(1 + sigma2 c m) - (1 + sigma2 c m) z + sigma2 (1 - c) ).
// With w = 1 + sigma2 c m and omega = w^2 z - sigma2 (1 - c) w it reads m = w m_H(omega), m_H(u) = int dH(t)/(t - u).
// The placement of c was verified numerically: H = delta_0 reproduces MP(c, sigma2) to 1e-10 (tests).
#pragma once

#include <complex>
#include <vector>

namespace moelab::spectra {

/// Tuning of the Stieltjes solver (damped Newton on G(m) = m - w m_H(omega), continued in eta = Im z).
struct DozierSilversteinOptions {
  /// Smallest eta used for the density, relative to the scale s0 = mean of the law = int t dH + sigma2:
  /// density(x) = Im m(x + i eta)/pi, eta = eta_min_rel s0. The Cauchy smoothing error is ~ eta |m'(x)|,
  /// i.e. ~ eta / sqrt(distance to an edge) near an edge: 1e-12 gives < 1e-9 relative at 1e-6 from an edge.
  double eta_min_rel = 1e-12;
  /// Continuation starts at eta_0 = 10 max(s0, |Re z|) (where m ~ -1/z) and multiplies eta by this
  /// ratio per step (retried with the square root of the ratio when a step fails to converge).
  double eta_ratio = 0.1;
  /// Newton stops when |dm| <= tolerance |m|.
  double tolerance = 1e-14;
  /// Newton iterations allowed per continuation step.
  int max_newton = 100;
};

/// m(z) and how it was obtained. `converged` is false when some continuation step failed (then m is the
/// last accepted value, at Im z = eta > requested); never use m without checking it.
struct DozierSilversteinSolution {
  std::complex<double> m;
  double eta = 0.0;        ///< Im z at which m was computed (the requested one when converged)
  double residual = 0.0;   ///< |G(m)| / |m| at the final point
  int iterations = 0;      ///< Newton iterations summed over the continuation
  bool converged = false;
};

/// One density evaluation: f(x) ~ Im m(x + i eta)/pi, with the solver's status.
struct DozierSilversteinDensityPoint {
  double x = 0.0;
  double density = 0.0;
  double eta = 0.0;
  double residual = 0.0;
  int iterations = 0;
  bool converged = false;
};

/// A connected component [lower, upper] of the support of the absolutely continuous part.
struct SupportInterval {
  double lower, upper;
};

/// The Dozier-Silverstein law for discrete H. Validates: atoms >= 0 finite, weights > 0 summing to 1
/// (within 1e-12, then normalised), c > 0, sigma2 > 0, and for c > 1 weight at t = 0 >= 1 - 1/c - 1e-12.
class DozierSilverstein {
 public:
  DozierSilverstein(std::vector<double> atoms, std::vector<double> weights, double c, double sigma2);

  const std::vector<double>& atoms() const { return atoms_; }
  const std::vector<double>& weights() const { return weights_; }
  double c() const { return c_; }
  double sigma2() const { return sigma2_; }

  /// Mass of the atom at 0 of the limit: max(0, 1 - 1/c) (rank B + W = min(M, N)).
  double atom_at_zero() const;
  /// E[x] = int t dH + sigma2 and E[x^2] = int t^2 dH + 2 sigma2 (1 + c) int t dH + sigma2^2 (1 + c)
  /// (limits of tr C / M and tr C^2 / M: E W W' = sigma2 I_M, E W'W = c sigma2 I_N, Gaussian 4th moment of
  /// W W' gives MP's sigma2^2 (1 + c)). k = 0, 1, 2 only.
  double moment(int k) const;
  /// m(z) for Im z > 0, by continuation from eta_0 down to Im z at fixed Re z.
  DozierSilversteinSolution stieltjes(std::complex<double> z, const DozierSilversteinOptions& options = {}) const;
  /// f(x) ~ Im m(x + i eta)/pi, eta = options.eta_min_rel s0 (the atom at 0 for c > 1 is not included;
  /// near x = 0 its Cauchy tail (1 - 1/c) eta/(pi x^2) leaks in).
  DozierSilversteinDensityPoint density(double x, const DozierSilversteinOptions& options = {}) const;
  /// density at each x of `xs` (each point solved independently: no error propagates along the grid).
  std::vector<DozierSilversteinDensityPoint> density_grid(const std::vector<double>& xs,
                                                          const DozierSilversteinOptions& options = {}) const;
  /// n >= 2 equispaced points from lo to hi.
  std::vector<DozierSilversteinDensityPoint> density_grid(double lo, double hi, int n,
                                                          const DozierSilversteinOptions& options = {}) const;

  /// x(omega) = omega g^2 + sigma2 (1 - c) g, g = 1 - sigma2 c m_H(omega): for x real outside the support,
  /// omega(x) = w^2 x - sigma2 (1 - c) w is real and x = x(omega) (solve the equation for x given omega:
  /// w = 1/g). With H = delta_0 it is (omega + sigma2)(omega + c sigma2)/omega, the Loubaton-Vallet spike
  /// map (info_plus_noise_spike_limit at omega = lambda). Requires omega not an atom of H.
  double omega_map(double omega) const;
  /// d x(omega) / d omega = g^2 + 2 omega g g' + sigma2 (1 - c) g', g' = -sigma2 c m_H'(omega).
  double omega_map_derivative(double omega) const;
  /// Support of the absolutely continuous part, as sorted disjoint intervals. Criterion (c <= 1): x is
  /// outside the support iff x = x(omega) for a real omega off the atoms of H with x'(omega) > 0 and
  /// g(omega) = 1/(1 + sigma2 c m(x)) > 0 (Loubaton & Vallet 2011, Sec. 2; the analogue of Silverstein &
  /// Choi 1995 for sample covariances). The complement is the union of the images of the maximal such
  /// omega-intervals; critical points of x(omega) are found on a 4000-point grid per interval between
  /// atoms and refined by TOMS 748 (a gap whose omega-preimage is narrower than the grid can be missed).
  /// For c > 1 the same is applied to the companion N x N law (companion()), whose continuous part has
  /// the same support.
  std::vector<SupportInterval> support() const;
  /// CDF of the limit law: the atom at 0 plus the integral of `density` over the support up to x
  /// (each support interval [l, u] mapped by x = l + (u - l)(1 - cos theta)/2, which removes the
  /// square-root edges, then adaptive Gauss-Kronrod 31 to 1e-10 relative). Accuracy is that of
  /// the density (about 1e-10) times the mass; a few ms per call.
  double cdf(double x) const;
  /// The law of (B + W)'(B + W) (N x N) in this convention: c' = 1/c, sigma2' = c sigma2, H' = c H on
  /// t > 0 plus the rest at 0 (needs H({0}) >= 1 - 1/c when c > 1). Its limit is (1 - c) delta_0 + c mu.
  DozierSilverstein companion() const;

 private:
  double m_h(double omega, double* derivative) const;
  double scale() const;
  std::vector<double> atoms_, weights_;
  double c_, sigma2_;
};

}  // namespace moelab::spectra
