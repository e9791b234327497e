// Random-matrix ensembles for the Monte-Carlo side of spectra/: sample covariance (white or
// spiked), information-plus-noise, and the Dumitriu–Edelman tridiagonal beta-Laguerre model.
// Every routine draws from RandomStream(seed, tag, trial) only, so a trial's matrix does not depend
// on the thread that builds it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "moelab/core/stream_tags.hpp"

namespace moelab::spectra {

/// How a Gaussian ensemble is drawn. `reduced` (the default) draws an exactly equivalent smaller set of
/// variables instead of every matrix entry, where one exists: the Bartlett decomposition of the white
/// Wishart matrix X X' for sample_covariance_eigenvalues (Bartlett 1933; Muirhead 1982, Thm 3.2.14),
/// the block-bidiagonal band model below for info_plus_noise_eigenvalues. The eigenvalues have the
/// same joint law as with `entries` (every entry drawn, the original algorithm; tests in
/// tests/spectra/reduced_draws_test.cpp), but the draws, hence the bytes, differ. Non-Gaussian
/// laws always draw the entries.
enum class Sampler { reduced, entries };

/// Law of the iid matrix entries, each standardised to mean 0 and variance 1. Non-Gaussian laws
/// check universality: the Marchenko–Pastur and spike limits need only two moments, Tracy–Widom
/// edge universality needs more (subexponential tails suffice; Pillai & Yin 2014).
enum class EntryLaw { gaussian, rademacher, uniform };
EntryLaw entry_law_from_name(const std::string& name);  // "gaussian" | "rademacher" | "uniform"
const char* entry_law_name(EntryLaw law);
std::vector<std::string> entry_law_names();

/// M x N matrix of iid standardised entries: entry (i, j) is draw i + M j of
/// RandomStream(seed, tag, trial) (column-major, the Eigen storage order).
Eigen::MatrixXd iid_matrix(int M, int N, EntryLaw law, std::uint64_t seed, StreamTag tag, std::uint64_t trial);

/// Eigenvalues, ascending, of the sample covariance S = (1/N) Y Y' with Y = T^(1/2) X, X an M x N
/// iid matrix of `law` and T = sigma2 diag(ell_1, ..., ell_r, 1, ..., 1) (spiked covariance,
/// Johnstone 2001; ell empty = white Wishart, whose spectrum tends to Marchenko–Pastur with
/// c = M / N and scale sigma2). All M eigenvalues are returned; when M > N, M - N of them are zero
/// (computed from the N x N Gram matrix). Draws: StreamTag::design_noise.
/// Sampler::reduced with a Gaussian law and M <= N: X X' = U U' in law with U upper triangular,
/// U_ii = chi_{N-M+1+i}, U_ij ~ N(0, 1) above the diagonal (the Bartlett factor with the coordinates
/// in reverse order: Wishart(I) is permutation invariant), M(M-1)/2 normals and M chi variates
/// instead of M N normals, and U U' in M^3/3 flops (dlauum) instead of the M^2 N of the Gram matrix.
/// Eigenvalues by LAPACK dsyevd when built with BLAS.
Eigen::VectorXd sample_covariance_eigenvalues(int M, int N, const std::vector<double>& ell, double sigma2,
                                              EntryLaw law, std::uint64_t seed, std::uint64_t trial,
                                              Sampler sampler = Sampler::reduced);

/// Largest eigenvalue of a spiked sample covariance (as above) and the squared cosine between its
/// eigenvector and e_1, the direction of the first spike.
struct TopEigenpair {
  double value = 0.0;
  double overlap2 = 0.0;  // <v_hat, e_1>^2
  int iterations = 0;     // power iterations used (0: dense eigensolver)
};
/// Computed by power iteration on S = (1/N) Y Y' applied as Y (Y' v) (O(M N) per step), from a
/// random start (StreamTag::gd_init), until the residual ||S v - lambda v|| <= 1e-12 lambda; the
/// iteration contracts by lambda_2 / lambda_1 per step, fast for an outlier spike. If that has not
/// happened in 300 steps (gap ratio above ~0.9: spike near or below the BBP threshold), the dense
/// eigensolver decides.
/// Same draws as sample_covariance_eigenvalues for the same (M, N, ell, sigma2, law, seed, trial).
TopEigenpair spiked_top_eigenpair(int M, int N, const std::vector<double>& ell, double sigma2, EntryLaw law,
                                  std::uint64_t seed, std::uint64_t trial);

/// Eigenvalues, ascending, of the Dumitriu–Edelman (2002, Thm 3.4) beta-Laguerre model B B' with B
/// the M x M lower-bidiagonal matrix diag(chi_{beta N}, chi_{beta (N-1)}, ..., chi_{beta (N-M+1)}),
/// subdiagonal (chi_{beta (M-1)}, ..., chi_beta), M <= N. For beta = 1 its eigenvalues have the law
/// of those of X X' with X an M x N matrix of iid N(0, 1) (real white Wishart, unnormalised); for
/// beta = 2 of X X' with complex X whose real and imaginary parts are iid N(0, 1) (so E|x|^2 = 2);
/// beta = 4 quaternion likewise; any beta > 0 is a valid ensemble. O(M^2) work instead of the full
/// model's O(M N min(M, N)): use it for spectra of Gaussian white Wishart matrices only (it does
/// not exist for spiked covariances or non-Gaussian entries). Draws: StreamTag::tridiagonal.
Eigen::VectorXd laguerre_tridiagonal_eigenvalues(int M, int N, double beta, std::uint64_t seed, std::uint64_t trial);

/// Top eigenvalue of Sigma Sigma' for the information-plus-noise matrix of info_plus_noise_eigenvalues
/// (same draws), and the squared cosines of its left (R^M) and right (R^N) singular vectors with e_1,
/// the direction of the first signal singular value. Power iteration as in spiked_top_eigenpair.
struct InfoPlusNoiseTop {
  double value = 0.0;
  double left_overlap2 = 0.0;
  double right_overlap2 = 0.0;
  int iterations = 0;
};
InfoPlusNoiseTop info_plus_noise_top(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2, EntryLaw law,
                                     std::uint64_t seed, std::uint64_t trial);

/// Largest eigenvalue of the tridiagonal Laguerre model (same draws, so equal to
/// laguerre_tridiagonal_eigenvalues(...)(M - 1) up to rounding), by Sturm-sequence bisection on the tridiagonal B B': O(M) per bisection
/// step, 100 steps at most, relative accuracy 1e-14. What the Tracy-Widom checks use at large M.
double laguerre_tridiagonal_largest(int M, int N, double beta, std::uint64_t seed, std::uint64_t trial);

/// Largest eigenvalue of the symmetric tridiagonal matrix with diagonal `diag` and subdiagonal `sub`
/// (Sturm count bisection inside the Gershgorin interval; relative accuracy 1e-14).
double tridiagonal_largest_eigenvalue(const Eigen::VectorXd& diag, const Eigen::VectorXd& sub);

/// Eigenvalues, descending, of Sigma Sigma' restricted to the min(M, N) possibly-nonzero ones, for
/// the information-plus-noise matrix Sigma = B + W (M x N), W = sqrt(sigma2 / N) X with X iid of
/// `law` (Loubaton–Vallet convention, info_plus_noise.hpp) and B with squared singular values
/// `signal_sv2`. Draws: StreamTag::design_noise.
///
/// Sampler::reduced with a Gaussian law (m = min(M, N), n = max(M, N), r = number of signal values,
/// b = max(r, 1), n - r >= m, 4 b <= m): the eigenvalues depend on Sigma only through its law, which is invariant
/// under orthogonal maps fixing the signal's singular directions, so Sigma Sigma' (or Sigma' Sigma) has
/// the eigenvalues of the band matrix s^2 K K' + E R R' E' (s^2 = sigma2 / N) with
///   - R R': R the r x r triangular factor of A = B_r + s G (the r signal columns, G m x r Gaussian,
///     A = H [R; 0] by a Householder QR), E = the first r coordinates;
///   - K the m x m lower band factor (bandwidth b) of the block Golub-Kahan bidiagonalisation of the
///     m x (n - r) Gaussian noise X2 = U [K 0] V' with U fixing the first b coordinates: diagonal
///     blocks lower triangular with K_ii = chi_{n - r - i}, sub-diagonal blocks upper triangular with
///     chi_{m - b(k+1) - i'} on their diagonal, N(0, 1) elsewhere inside the blocks (the
///     Dumitriu-Edelman 2002 construction, block size b instead of 1).
/// O(m b^2) draws and O(m^2 b) work (LAPACK dsbevd) instead of M N draws and M^2 N + 4/3 M^3 flops.
/// Otherwise (Sampler::entries, a non-Gaussian law, n - r < m, or a wide band 4 b > m, where the band
/// matrix is as dense as the Gram matrix) every entry is drawn.
Eigen::VectorXd info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2,
                                            EntryLaw law, std::uint64_t seed, std::uint64_t trial,
                                            Sampler sampler = Sampler::reduced);

namespace detail {
/// The reduced draws of sample_covariance_eigenvalues (Gaussian, M <= N) and info_plus_noise_eigenvalues
/// (Gaussian, n - r >= m) with every chi degree of freedom shifted by `df_shift` (0: the library's
/// draws, bit for bit): the tests' controls, a draw one degree of freedom off, must be rejected.
Eigen::VectorXd bartlett_covariance_eigenvalues(int M, int N, const std::vector<double>& ell, double sigma2,
                                                std::uint64_t seed, std::uint64_t trial, int df_shift);
Eigen::VectorXd banded_info_plus_noise_eigenvalues(int M, int N, const Eigen::VectorXd& signal_sv2, double sigma2,
                                                   std::uint64_t seed, std::uint64_t trial, int df_shift);
}  // namespace detail

/// Gamma(shape, 1) variate number `index` of the stream (seed, tag, trial), by Marsaglia & Tsang
/// (2000) with at most 64 counter-addressed attempts (each accepted with probability > 0.95, so a
/// 65th is never needed in practice; it would throw). shape < 1 uses Gamma(shape + 1) U^(1/shape).
double gamma_variate(double shape, std::uint64_t seed, StreamTag tag, std::uint64_t trial, std::uint64_t index);

}  // namespace moelab::spectra
