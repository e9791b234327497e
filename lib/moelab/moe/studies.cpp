#include <vector>

#include "moelab/scenario/study.hpp"

namespace moelab::moe {

void add_studies(std::vector<StudyDef>&) {}

}  // namespace moelab::moe
