#include "moelab/bounds/bounds_studies.hpp"
#include "moelab/noisy/noisy_studies.hpp"
#include "moelab/routing/routing_studies.hpp"
#include "moelab/scaling/scaling_studies.hpp"
#include "moelab/scenario/study.hpp"
#include "moelab/sparsity/sparsity_studies.hpp"
#include "moelab/spectra/spectra_studies.hpp"

namespace moelab {

const std::vector<std::unique_ptr<Study>>& studies() {
  static const auto all = [] {
    std::vector<std::unique_ptr<Study>> s;
    noisy::add_noisy_studies(s);
    spectra::add_spectra_studies(s);
    bounds::add_bounds_studies(s);
    sparsity::add_sparsity_studies(s);
    scaling::add_scaling_studies(s);
    routing::add_routing_studies(s);
    return s;
  }();
  return all;
}

const Study* find_study(const std::string& name) {
  for (const auto& s : studies())
    if (s->name() == name) return s.get();
  return nullptr;
}

}  // namespace moelab
