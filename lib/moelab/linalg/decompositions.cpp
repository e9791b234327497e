// The one compiled copy of the Eigen decompositions and product kernels declared in decompositions.hpp.
#include "moelab/linalg/decompositions.hpp"

#define MOELAB_EIGEN_INSTANTIATE(...) template __VA_ARGS__;
MOELAB_EIGEN_DECOMPOSITIONS(MOELAB_EIGEN_INSTANTIATE)
MOELAB_EIGEN_PRODUCT_KERNELS(MOELAB_EIGEN_INSTANTIATE, double)
MOELAB_EIGEN_PRODUCT_KERNELS(MOELAB_EIGEN_INSTANTIATE, float)
#undef MOELAB_EIGEN_INSTANTIATE
