// Spiked population covariance (Johnstone 2001): outlier eigenvalues, their inverse map, eigenvector
// overlaps and Gaussian fluctuations (Baik, Ben Arous & Peche 2005; Baik & Silverstein 2006; Paul 2007).
//
// Convention (named; every function below uses it):
//   Y is M x N with iid columns y_j ~ N(0, Sigma), Sigma = sigma2 diag(ell_1, ..., ell_r, 1, ..., 1)
//   (r fixed, ell_k > 0 distinct), S = (1/N) Y Y' (M x M, the sample covariance of N samples in
//   dimension M), c = M / N. Without spikes S -> MP(c, sigma2) (marchenko_pastur.hpp).
//   "ell" is the spike in units of sigma2 (population eigenvalue sigma2 ell).
#pragma once

namespace moelab::spectra {

/// Which Gaussian field the data come from: real (beta = 1) or complex (beta = 2, E|y_ij|^2 = Sigma_ii).
enum class GaussianField { real, complex };

/// BBP phase-transition threshold on ell: 1 + sqrt(c) (Baik, Ben Arous & Peche 2005, Thm 1.1;
/// Baik & Silverstein 2006, Thm 1.1).
double spiked_threshold(double c);

/// Upper bulk edge sigma2 (1 + sqrt c)^2.
double spiked_bulk_edge(double c, double sigma2);

/// Almost-sure limit of the sample eigenvalue attached to spike ell (Baik & Silverstein 2006, Thm 1.1):
///   rho = sigma2 ell (1 + c / (ell - 1))   if ell > 1 + sqrt(c),
///   sigma2 (1 + sqrt c)^2                   otherwise (spikes at or below 1 + sqrt c stick to the edge).
/// Continuous at the threshold, increasing above it. Requires ell > 0.
double spiked_eigenvalue_limit(double ell, double c, double sigma2);

/// Inverse of the map above on (bulk edge, inf): the larger root of
/// ell^2 - (y + 1 - c) ell + y = 0, y = rho / sigma2 (the roots multiply to y, so the larger one
/// exceeds sqrt(y) > 1 + sqrt c). Requires rho > sigma2 (1 + sqrt c)^2.
double spiked_eigenvalue_inverse(double rho, double c, double sigma2);

/// Almost-sure limit of the squared cosine <v_hat, e_k>^2 between the sample eigenvector of the outlier
/// and the population spike direction (Paul 2007, Thm 4, real Gaussian, c < 1; the same limit holds
/// for all c > 0 and complex data: Benaych-Georges & Nadakuditi 2011, Adv. Math.,
/// spiked-covariance example):
///   (1 - c / (ell - 1)^2) / (1 + c / (ell - 1))   if ell > 1 + sqrt(c),   0 otherwise.
/// Independent of sigma2.
double spiked_eigenvector_overlap(double ell, double c);

/// Variance v of the Gaussian limit sqrt(N) (lambda_hat - rho) -> N(0, v) of a simple (multiplicity 1)
/// spike ell > 1 + sqrt(c), in the convention above (sigma2 scales lambda_hat, so v scales by sigma2^2):
///   real:    v = 2 sigma2^2 ell^2 (1 - c / (ell - 1)^2)   (Paul 2007, Thm 3; Bai & Yao 2008, all c > 0),
///   complex: v =   sigma2^2 ell^2 (1 - c / (ell - 1)^2)   (Baik, Ben Arous & Peche 2005, Thm 1.1(b), k = 1).
/// (BBP write it with M samples in dimension N, gamma^2 = M/N = 1/c: variance ell^2 - ell^2 gamma^-2/(ell - 1)^2
/// per sample, the same quantity.) For non-Gaussian entries a fourth-cumulant term adds (Bai & Yao 2008);
/// it is not included. Requires ell > 1 + sqrt(c).
double spiked_fluctuation_variance(double ell, double c, double sigma2, GaussianField field);

}  // namespace moelab::spectra
