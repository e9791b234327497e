// Scenario studies of spectra/ (docs/scenarios.md lists their parameters and columns).
#pragma once

#include <memory>
#include <vector>

#include "moelab/scenario/study.hpp"

namespace moelab::spectra {
/// spectra.esd, spectra.tw, spectra.spike.
void add_spectra_studies(std::vector<std::unique_ptr<Study>>& out);
}
