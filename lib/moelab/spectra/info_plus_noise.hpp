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

/// Almost-sure limit of the squared cosine |<u_hat, u>|^2 between the left singular vector u_hat (in R^M)
/// of Sigma attached to a spike lambda and the signal's left singular vector u (B = sqrt(lambda) u v' + ...,
/// distinct spikes). Benaych-Georges & Nadakuditi (2012, J. Multivariate Anal. 111, Thm 2.9 and its
/// Gaussian example in Sec. 3.1: X n x m with entries N(0, 1/m), n/m -> c, spike theta) give
///   1 - c (1 + theta^2) / (theta^2 (theta^2 + c))   for theta^2 > sqrt(c);
/// here n = M, m = N, and Sigma / sqrt(sigma2) is their model with theta^2 = t := lambda / sigma2 (singular
/// vectors do not see the scale), so
///   (t^2 - c) / (t (t + c))   if lambda > sqrt(c) sigma2,   0 otherwise.
/// It tends to 1 as c -> 0 (an M-dimensional vector estimated from N >> M columns).
double info_plus_noise_left_overlap(double lambda, double c, double sigma2);

/// Same for the right singular vectors (in R^N), |<v_hat, v>|^2 (same source:
/// 1 - (c + theta^2) / (theta^2 (theta^2 + 1))):
///   (t^2 - c) / (t (t + 1)),  t = lambda / sigma2,   if lambda > sqrt(c) sigma2,   0 otherwise.
/// Transposing Sigma (c -> 1/c, sigma2 -> c sigma2, lambda fixed) exchanges the two formulas.
double info_plus_noise_right_overlap(double lambda, double c, double sigma2);

}  // namespace moelab::spectra
