#include "moelab/catalogue/catalogue.hpp"

// Each topic folder under lib/moelab/<topic>/ defines moelab::<topic>::add_studies and
// moelab::<topic>::register_claims (in its studies.cpp / claims files). Adding a topic: one line here.
#define MOELAB_TOPIC(topic)                                          \
  namespace moelab::topic {                                          \
  void add_studies(std::vector<StudyDef>& out);                      \
  void register_claims(claims::Registry& reg);                       \
  }
#define MOELAB_TOPICS(X) X(noisy) X(spectra) X(bounds) X(sparsity) X(scaling) X(routing) X(moe) X(trained)

MOELAB_TOPICS(MOELAB_TOPIC)

namespace moelab::catalogue {

const std::vector<StudyDef>& studies() {
  static const auto all = [] {
    std::vector<StudyDef> s;
#define MOELAB_ADD_STUDIES(topic) topic::add_studies(s);
    MOELAB_TOPICS(MOELAB_ADD_STUDIES)
#undef MOELAB_ADD_STUDIES
    return s;
  }();
  return all;
}

const StudyDef* find_study(const std::string& name) {
  for (const auto& s : studies())
    if (s.name == name) return &s;
  return nullptr;
}

const claims::Registry& claims() {
  static const claims::Registry r = [] {
    claims::Registry reg;
#define MOELAB_ADD_CLAIMS(topic) topic::register_claims(reg);
    MOELAB_TOPICS(MOELAB_ADD_CLAIMS)
#undef MOELAB_ADD_CLAIMS
    return reg;
  }();
  return r;
}

}  // namespace moelab::catalogue
