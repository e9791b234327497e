#include "moelab/catalogue/catalogue.hpp"

#include <map>
#include <sstream>

#include "moelab/core/error.hpp"

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

std::optional<claims::Verdict> documented_verdict(const std::string& id) {
  static const std::map<std::string, claims::Verdict> table = [] {
    static const char* const text =
#include "moelab/catalogue/documented_verdicts.inc"
        ;
    std::map<std::string, claims::Verdict> t;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string claim, verdict;
      ls >> claim >> verdict;
      bool known = false;
      for (auto v : {claims::Verdict::holds, claims::Verdict::fails, claims::Verdict::erratum, claims::Verdict::inconclusive})
        if (verdict == claims::to_string(v)) t[claim] = v, known = true;
      MOELAB_EXPECT(known, "documented_verdicts.txt: every row is 'id verdict'");
    }
    return t;
  }();
  const auto it = table.find(id);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

void annotate_documented(claims::SuiteResult& r) {
  for (auto& o : r.outcomes) o.documented = documented_verdict(o.claim->id);
}

}  // namespace moelab::catalogue
