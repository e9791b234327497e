// Parameter declarations and readers shared by the routing studies (studies.cpp,
// studies_geometry.cpp), and the geometry studies studies.cpp lists. Internal: not installed.
#pragma once

#include <vector>

#include "moelab/scenario/study.hpp"

namespace moelab::routing::detail {

/// params.m, params.k, params.d.
std::vector<ParamDecl> shape_params();

/// (m, k, d) with the cross-key checks the declarations cannot state.
struct Shape {
  int m = 0, k = 0, d = 0;
};
Shape read_shape(const PointParams& p);

/// params.law: Gaussian or ball inputs.
ParamDecl law_param();

StudyDef packing_study();
StudyDef separation_study();
StudyDef configurations_study();

}  // namespace moelab::routing::detail
