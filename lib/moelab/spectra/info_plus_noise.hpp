// Information-plus-noise spiked singular values (Loubaton & Vallet 2011, Thm 6; used by noisy,
// Thm 5 / A.5). Convention (named, see docs/conventions.md):
//   Sigma = B + W, Sigma is M x N, W has iid N(0, sigma2 / N) entries, c = M / N,
//   B has fixed finite rank with eigenvalues lambda of B B' (lambda = squared singular value of B).
// The `noisy` paper applies it with M = d, N = n (its X' is d x n, c = d / n), i.e. feature-noise
// entries of variance sigma2 / n.
#pragma once

namespace moelab::spectra {

/// Phase-transition threshold on lambda (a squared signal singular value): sqrt(c) sigma2.
double info_plus_noise_threshold(double c, double sigma2);
/// Upper bulk edge of Sigma Sigma': sigma2 (1 + sqrt(c))^2.
double info_plus_noise_bulk_edge(double c, double sigma2);
/// Almost-sure limit of the eigenvalue of Sigma Sigma' associated with a spike lambda:
///   (sigma2 + lambda)(c sigma2 + lambda) / lambda   if lambda > sqrt(c) sigma2,
///   sigma2 (1 + sqrt(c))^2                           otherwise.
double info_plus_noise_spike_limit(double lambda, double c, double sigma2);
/// Inverse map, observed eigenvalue limit rho > bulk edge -> lambda (the larger root of
/// lambda^2 + (sigma2 + c sigma2 - rho) lambda + c sigma2^2 = 0).
double info_plus_noise_spike_inverse(double rho, double c, double sigma2);

}  // namespace moelab::spectra
