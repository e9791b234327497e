// The few large dense kernels where an optimised BLAS/LAPACK beats Eigen: Gram matrices (syrk),
// general products (gemm: the trained MoE's per-expert layers), Cholesky (potrf/potrs) and eigenvalues only of symmetric dense (syevd) and symmetric band (sbevd)
// matrices. With MOELAB_HAVE_BLAS = 1 (moelab/config.hpp; CMake MOELAB_BLAS, OpenBLAS + LAPACKE) they call LAPACK; without
// it the same functions use Eigen, so every caller compiles and runs either way.
//
// OpenBLAS is kept single-threaded (openblas_set_num_threads(1) before the first call): moelab's
// parallelism is across trials (DESIGN.md, Parallelism), and a multi-threaded BLAS would make the
// summation order, hence the bytes, depend on the thread count.
#pragma once

#include <Eigen/Dense>

namespace moelab::lapack {

/// True when compiled against OpenBLAS + LAPACKE.
bool available();
/// "openblas <version> (<core>)" or "eigen".
const char* backend_name();

/// C = alpha op(A) op(B) + beta C, column-major, op(A) m x k, op(B) k x n, op = transpose when the
/// flag is set (BLAS sgemm / dgemm, single-threaded as above; Eigen's product without BLAS). For a
/// given shape the summation order is fixed, so equal inputs give equal bytes on any thread.
void gemm(bool trans_a, bool trans_b, Eigen::Index m, Eigen::Index n, Eigen::Index k, float alpha, const float* A,
          Eigen::Index lda, const float* B, Eigen::Index ldb, float beta, float* C, Eigen::Index ldc);
void gemm(bool trans_a, bool trans_b, Eigen::Index m, Eigen::Index n, Eigen::Index k, double alpha, const double* A,
          Eigen::Index lda, const double* B, Eigen::Index ldb, double beta, double* C, Eigen::Index ldc);

/// Lower triangle of X'X (transpose = true, p x p for X n x p) or of XX' (transpose = false, n x n)
/// into G (resized; the strict upper triangle is left unspecified). BLAS dsyrk.
void gram_lower(const Eigen::Ref<const Eigen::MatrixXd>& X, bool transpose, Eigen::MatrixXd& G);

/// In-place Cholesky G = L L' of the lower triangle (dpotrf); false when G is not positive definite
/// (to rounding). The strict upper triangle is left unspecified.
bool cholesky_lower(Eigen::MatrixXd& G);

/// Solves L L' x = b in place for the factor of cholesky_lower (dpotrs).
void cholesky_solve(const Eigen::MatrixXd& L, Eigen::Ref<Eigen::VectorXd> b);

/// L' L for the lower-triangular L held in the lower triangle of A, in place (lower triangle of the
/// result; the strict upper triangle is left unspecified). LAPACK dlauum, n^3 / 3 flops.
void lower_transpose_times_lower(Eigen::MatrixXd& A);

/// Eigenvalues only, ascending, of the symmetric matrix whose lower triangle is in A (A is
/// destroyed). LAPACK dsyevd (Householder tridiagonalisation, blocked: half of it syr2k, BLAS 3);
/// Eigen's SelfAdjointEigenSolver without BLAS.
Eigen::VectorXd symmetric_eigenvalues(Eigen::MatrixXd& A);

/// Eigenvalues only, ascending, of the symmetric band matrix with `kd` subdiagonals given in LAPACK's
/// lower band storage: ab(r, j) = A(j + r, j), r = 0..kd (ab is (kd + 1) x n; destroyed). LAPACK
/// dsbevd (band reduction to tridiagonal, O(n^2 kd), then the tridiagonal eigenvalues); without BLAS
/// the dense matrix goes to Eigen.
Eigen::VectorXd band_eigenvalues(Eigen::MatrixXd& ab);

}  // namespace moelab::lapack
