#include "moelab/config.hpp"
#include "moelab/linalg/lapack.hpp"
#include "moelab/linalg/resize.hpp"

#include <mutex>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "moelab/core/error.hpp"
#include "moelab/linalg/decompositions.hpp"

#if MOELAB_HAVE_BLAS
#include <cblas.h>
#include <lapacke.h>
#endif

namespace moelab::lapack {

namespace {

#if MOELAB_HAVE_BLAS
/// OpenBLAS single-threaded, once per process, before the first BLAS call (header comment).
void init_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

lapack_int as_int(Eigen::Index v) {
  MOELAB_EXPECT(v >= 0 && v <= 0x7fffffff, "matrix too large for 32-bit LAPACK indices");
  return static_cast<lapack_int>(v);
}
#endif

}  // namespace

bool available() {
#if MOELAB_HAVE_BLAS
  return true;
#else
  return false;
#endif
}

const char* backend_name() {
#if MOELAB_HAVE_BLAS
  static const std::string name = fmt::format("openblas ({})", openblas_get_corename());
  return name.c_str();
#else
  return "eigen";
#endif
}

namespace {

template <class S>
void gemm_impl(bool trans_a, bool trans_b, Eigen::Index m, Eigen::Index n, Eigen::Index k, S alpha, const S* A, Eigen::Index lda,
               const S* B, Eigen::Index ldb, S beta, S* C, Eigen::Index ldc) {
  if (m == 0 || n == 0) return;
#if MOELAB_HAVE_BLAS
  init_blas();
  if (k == 0) {  // BLAS leaves C untouched only when beta = 1; scale it here
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < m; ++i) C[i + j * ldc] = beta == S(0) ? S(0) : beta * C[i + j * ldc];
    return;
  }
  const auto ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<S, float>)
    cblas_sgemm(CblasColMajor, ta, tb, as_int(m), as_int(n), as_int(k), alpha, A, as_int(lda), B, as_int(ldb), beta, C, as_int(ldc));
  else
    cblas_dgemm(CblasColMajor, ta, tb, as_int(m), as_int(n), as_int(k), alpha, A, as_int(lda), B, as_int(ldb), beta, C, as_int(ldc));
#else
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using Stride = Eigen::OuterStride<>;
  const Eigen::Map<const Mat, 0, Stride> a(A, trans_a ? k : m, trans_a ? m : k, Stride(lda));
  const Eigen::Map<const Mat, 0, Stride> b(B, trans_b ? n : k, trans_b ? k : n, Stride(ldb));
  Eigen::Map<Mat, 0, Stride> c(C, m, n, Stride(ldc));
  Mat prod(m, n);
  if (trans_a && trans_b) prod.noalias() = a.transpose() * b.transpose();
  else if (trans_a) prod.noalias() = a.transpose() * b;
  else if (trans_b) prod.noalias() = a * b.transpose();
  else prod.noalias() = a * b;
  if (beta == S(0)) c = alpha * prod;
  else c = alpha * prod + beta * c;
#endif
}

}  // namespace

void gemm(bool trans_a, bool trans_b, Eigen::Index m, Eigen::Index n, Eigen::Index k, float alpha, const float* A, Eigen::Index lda,
          const float* B, Eigen::Index ldb, float beta, float* C, Eigen::Index ldc) {
  gemm_impl(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gemm(bool trans_a, bool trans_b, Eigen::Index m, Eigen::Index n, Eigen::Index k, double alpha, const double* A, Eigen::Index lda,
          const double* B, Eigen::Index ldb, double beta, double* C, Eigen::Index ldc) {
  gemm_impl(trans_a, trans_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void gram_lower(const Eigen::Ref<const Eigen::MatrixXd>& X, bool transpose, Eigen::MatrixXd& G) {
  const Eigen::Index m = transpose ? X.cols() : X.rows();
  resize_reused(G, m, m);  // G may be a thread's reused workspace: valid after a failed allocation
#if MOELAB_HAVE_BLAS
  const Eigen::Index k = transpose ? X.rows() : X.cols();
  init_blas();
  if (k == 0) {
    G.setZero();
    return;
  }
  cblas_dsyrk(CblasColMajor, CblasLower, transpose ? CblasTrans : CblasNoTrans, as_int(m), as_int(k), 1.0, X.data(),
              as_int(X.outerStride()), 0.0, G.data(), as_int(m));
#else
  G.setZero();
  if (transpose)
    G.selfadjointView<Eigen::Lower>().rankUpdate(X.transpose());
  else
    G.selfadjointView<Eigen::Lower>().rankUpdate(X);
#endif
}

bool cholesky_lower(Eigen::MatrixXd& G) {
  MOELAB_EXPECT(G.rows() == G.cols(), "Cholesky of a non-square matrix");
  if (G.size() == 0) return true;
#if MOELAB_HAVE_BLAS
  init_blas();
  // The _work variants skip LAPACKE's O(n^2) NaN scan of the input (3% of the Fig. 3 sweep's time).
  return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', as_int(G.rows()), G.data(), as_int(G.rows())) == 0;
#else
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(G);  // in place
  return llt.info() == Eigen::Success;
#endif
}

void cholesky_solve(const Eigen::MatrixXd& L, Eigen::Ref<Eigen::VectorXd> b) {
  MOELAB_EXPECT(L.rows() == L.cols() && L.rows() == b.size(), "Cholesky solve: sizes do not match");
  if (b.size() == 0) return;
#if MOELAB_HAVE_BLAS
  init_blas();
  const lapack_int n = as_int(L.rows());
  const lapack_int info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, 1, L.data(), n, b.data(), as_int(b.size()));
  MOELAB_EXPECT(info == 0, "dpotrs failed");
#else
  const auto tri = L.triangularView<Eigen::Lower>();
  tri.solveInPlace(b);
  tri.transpose().solveInPlace(b);
#endif
}

void lower_transpose_times_lower(Eigen::MatrixXd& A) {
  MOELAB_EXPECT(A.rows() == A.cols(), "L'L of a non-square matrix");
  if (A.size() == 0) return;
#if MOELAB_HAVE_BLAS
  init_blas();
  const lapack_int n = as_int(A.rows());
  const lapack_int info = LAPACKE_dlauum(LAPACK_COL_MAJOR, 'L', n, A.data(), n);
  MOELAB_EXPECT(info == 0, "dlauum failed");
#else
  const Eigen::MatrixXd L = A.triangularView<Eigen::Lower>();
  A.triangularView<Eigen::Lower>() = L.transpose() * L;
#endif
}

Eigen::VectorXd symmetric_eigenvalues(Eigen::MatrixXd& A) {
  MOELAB_EXPECT(A.rows() == A.cols(), "eigenvalues of a non-square matrix");
  Eigen::VectorXd w(A.rows());
  if (A.size() == 0) return w;
#if MOELAB_HAVE_BLAS
  init_blas();
  const lapack_int n = as_int(A.rows());
  const lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, A.data(), n, w.data());
  if (info != 0) throw RuntimeFailure(fmt::format("LAPACK dsyevd failed (info {}) on a {} x {} matrix", info, n, n));
#else
  w = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A, Eigen::EigenvaluesOnly).eigenvalues();
#endif
  return w;
}

Eigen::VectorXd band_eigenvalues(Eigen::MatrixXd& ab) {
  const Eigen::Index kd = ab.rows() - 1, n = ab.cols();
  MOELAB_EXPECT(kd >= 0, "band storage needs at least one row");
  Eigen::VectorXd w(n);
  if (n == 0) return w;
#if MOELAB_HAVE_BLAS
  init_blas();
  const lapack_int info = LAPACKE_dsbevd(LAPACK_COL_MAJOR, 'N', 'L', as_int(n), as_int(kd), ab.data(), as_int(kd + 1),
                                         w.data(), nullptr, 1);
  if (info != 0) throw RuntimeFailure(fmt::format("LAPACK dsbevd failed (info {}) on a band matrix of order {}", info, n));
#else
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index r = 0; r <= kd && j + r < n; ++r) A(j + r, j) = A(j, j + r) = ab(r, j);
  w = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A, Eigen::EigenvaluesOnly).eigenvalues();
#endif
  return w;
}

}  // namespace moelab::lapack
