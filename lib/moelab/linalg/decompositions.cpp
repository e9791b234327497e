// The one compiled copy of the Eigen decompositions declared in decompositions.hpp.
#include "moelab/linalg/decompositions.hpp"

#define MOELAB_EIGEN_INSTANTIATE(...) template __VA_ARGS__;
MOELAB_EIGEN_DECOMPOSITIONS(MOELAB_EIGEN_INSTANTIATE)
#undef MOELAB_EIGEN_INSTANTIATE
