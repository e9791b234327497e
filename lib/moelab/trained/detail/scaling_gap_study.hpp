// The study of studies_scaling_gap.cpp (trained.scaling_gap), added to the topic's list by studies.cpp.
#pragma once

#include "moelab/scenario/study.hpp"

namespace moelab::trained {

StudyDef scaling_gap_study();

}  // namespace moelab::trained
