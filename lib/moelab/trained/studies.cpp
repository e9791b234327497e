// Studies of the trained topic: the theory of the compositional and scaling papers measured on
// trained MoEs (generalization gap vs Theorem 1, k* on a compositional task, scaling laws).
#include <vector>

#include "moelab/scenario/study.hpp"

namespace moelab::trained {

void add_studies(std::vector<StudyDef>& out) { (void)out; }

}  // namespace moelab::trained
