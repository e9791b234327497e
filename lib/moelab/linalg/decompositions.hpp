// Eigen's dense decompositions of an Eigen::MatrixXd and its dense product kernels, compiled once
// (linalg/decompositions.cpp).
//
// A decomposition costs 3-8 s of compiler time in every file that instantiates it (JacobiSVD or
// SelfAdjointEigenSolver at -O3: ~8 s; the parse of <Eigen/Dense> alone ~1.5 s). The explicit
// instantiation declarations below tell every file that includes this header that the
// factorisation bodies are compiled elsewhere: callers keep writing Eigen's own classes
// (`Eigen::LLT<Eigen::MatrixXd> llt(a)`), so the arithmetic is Eigen's, the same operations in the
// same order, compiled once with the library's flags.
//
// Covered: the decomposition of a plain Eigen::MatrixXd (an lvalue or a temporary MatrixXd), and
// the solves of LLT / LDLT / CompleteOrthogonalDecomposition with a VectorXd or MatrixXd right-hand
// side. An expression argument (`A * A.transpose()`, `I - B`) instantiates the factorisation again
// for that expression's type: evaluate it into a MatrixXd first (the same values: Eigen evaluates
// the expression into the decomposition's own matrix either way).
#pragma once

#include <Eigen/Dense>

// X(declaration) for each instantiation; expanded as `extern template` here and as explicit
// instantiation definitions in decompositions.cpp, so the two lists cannot drift apart.
#define MOELAB_EIGEN_DECOMPOSITIONS(X)                                                                                  \
  X(Eigen::LLT<Eigen::MatrixXd>& Eigen::LLT<Eigen::MatrixXd>::compute<Eigen::MatrixXd>(                                \
      const Eigen::EigenBase<Eigen::MatrixXd>&))                                                                         \
  X(void Eigen::LLT<Eigen::MatrixXd>::_solve_impl<Eigen::VectorXd, Eigen::VectorXd>(const Eigen::VectorXd&,           \
                                                                                     Eigen::VectorXd&) const)           \
  X(void Eigen::LLT<Eigen::MatrixXd>::_solve_impl<Eigen::MatrixXd, Eigen::MatrixXd>(const Eigen::MatrixXd&,           \
                                                                                     Eigen::MatrixXd&) const)           \
  X(Eigen::LDLT<Eigen::MatrixXd>& Eigen::LDLT<Eigen::MatrixXd>::compute<Eigen::MatrixXd>(                              \
      const Eigen::EigenBase<Eigen::MatrixXd>&))                                                                         \
  X(void Eigen::LDLT<Eigen::MatrixXd>::_solve_impl<Eigen::VectorXd, Eigen::VectorXd>(const Eigen::VectorXd&,          \
                                                                                      Eigen::VectorXd&) const)          \
  X(void Eigen::LDLT<Eigen::MatrixXd>::_solve_impl<Eigen::MatrixXd, Eigen::MatrixXd>(const Eigen::MatrixXd&,          \
                                                                                      Eigen::MatrixXd&) const)          \
  X(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>& Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>::compute<           \
      Eigen::MatrixXd>(const Eigen::EigenBase<Eigen::MatrixXd>&, int))                                                  \
  X(Eigen::JacobiSVD<Eigen::MatrixXd>& Eigen::JacobiSVD<Eigen::MatrixXd>::compute(const Eigen::MatrixXd&, unsigned int)) \
  X(void Eigen::HouseholderQR<Eigen::MatrixXd>::computeInPlace())                                                       \
  X(void Eigen::ColPivHouseholderQR<Eigen::MatrixXd>::computeInPlace())                                                 \
  X(void Eigen::FullPivLU<Eigen::MatrixXd>::computeInPlace())                                                           \
  X(void Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>::computeInPlace())                                     \
  X(void Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>::_solve_impl<Eigen::VectorXd, Eigen::VectorXd>(      \
      const Eigen::VectorXd&, Eigen::VectorXd&) const)

// Eigen's dense product kernels (Eigen/src/Core/products): the GEMM micro-kernel and its two packing
// routines for each storage order of the operands, and the two GEMV kernels, in double and float.
// Every file with a matrix-matrix or matrix-vector product instantiated them (~2-3 s of compiler time
// at -O3). Their template arguments are the ones general_matrix_matrix_product and
// gemv_dense_selector pass (GeneralMatrixMatrix.h, GeneralProduct.h), with the register blocking
// (mr, nr, LhsProgress) read from Eigen's own gebp_traits, so the list follows the target's packet
// size. They are also what makes the tests' own products (compiled at -O1, tests/CMakeLists.txt) run
// the library's -O3 kernels, not a copy the linker would otherwise pick from a test object.
#define MOELAB_EIGEN_PRODUCT_KERNELS(X, S)                                                                              \
  X(struct Eigen::internal::gebp_kernel<S, S, Eigen::Index,                                                             \
                                        Eigen::internal::blas_data_mapper<S, Eigen::Index, Eigen::ColMajor, Eigen::Unaligned, 1>, \
                                        Eigen::internal::gebp_traits<S, S>::mr, Eigen::internal::gebp_traits<S, S>::nr, false, false>) \
  X(struct Eigen::internal::gemm_pack_lhs<S, Eigen::Index, Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::ColMajor>, \
                                          Eigen::internal::gebp_traits<S, S>::mr, Eigen::internal::gebp_traits<S, S>::LhsProgress, \
                                          Eigen::internal::gebp_traits<S, S>::LhsPacket4Packing, Eigen::ColMajor, false, false>) \
  X(struct Eigen::internal::gemm_pack_lhs<S, Eigen::Index, Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::RowMajor>, \
                                          Eigen::internal::gebp_traits<S, S>::mr, Eigen::internal::gebp_traits<S, S>::LhsProgress, \
                                          Eigen::internal::gebp_traits<S, S>::LhsPacket4Packing, Eigen::RowMajor, false, false>) \
  X(struct Eigen::internal::gemm_pack_rhs<S, Eigen::Index, Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::ColMajor>, \
                                          Eigen::internal::gebp_traits<S, S>::nr, Eigen::ColMajor, false, false>)        \
  X(struct Eigen::internal::gemm_pack_rhs<S, Eigen::Index, Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::RowMajor>, \
                                          Eigen::internal::gebp_traits<S, S>::nr, Eigen::RowMajor, false, false>)        \
  X(struct Eigen::internal::general_matrix_vector_product<                                                              \
    Eigen::Index, S, Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::ColMajor>, Eigen::ColMajor, false, S, \
    Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::RowMajor>, false, 0>)                                \
  X(struct Eigen::internal::general_matrix_vector_product<                                                              \
    Eigen::Index, S, Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::RowMajor>, Eigen::RowMajor, false, S, \
    Eigen::internal::const_blas_data_mapper<S, Eigen::Index, Eigen::ColMajor>, false, 0>)

// nvcc parses some moelab headers for device code; the instantiations are for host C++ only.
#ifndef __CUDACC__
#define MOELAB_EIGEN_EXTERN_TEMPLATE(...) extern template __VA_ARGS__;
MOELAB_EIGEN_DECOMPOSITIONS(MOELAB_EIGEN_EXTERN_TEMPLATE)
// The product kernels' names depend on the packet size: only a file compiled with the library's
// instruction set (MOELAB_LIBRARY_ISA, cmake/MoelabOptions.cmake) may take them from the library.
#ifdef MOELAB_LIBRARY_ISA
MOELAB_EIGEN_PRODUCT_KERNELS(MOELAB_EIGEN_EXTERN_TEMPLATE, double)
MOELAB_EIGEN_PRODUCT_KERNELS(MOELAB_EIGEN_EXTERN_TEMPLATE, float)
#endif
#undef MOELAB_EIGEN_EXTERN_TEMPLATE
#endif
