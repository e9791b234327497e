// Helpers shared by the topic test folders (tests/<topic>/): a topic's own studies without the
// catalogue, a study's first rejected key, and the documented-verdict check of a topic's claims.
#pragma once

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "moelab/claims/claim.hpp"
#include "moelab/claims/verdict.hpp"
#include "moelab/core/error.hpp"
#include "moelab/scenario/runner.hpp"
#include "moelab/scenario/study.hpp"
#include "registered_claims.hpp"

namespace moelab::test {

/// A reference file written by a generator under tests/data (path relative to the source tree): one
/// key (a word) and its numbers per line, '#' comments; key -> numbers.
inline std::map<std::string, std::vector<double>> read_keyed_numbers(const std::string& relative) {
  std::ifstream in(std::string(MOELAB_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::map<std::string, std::vector<double>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string key;
    s >> key;
    std::vector<double> values;
    for (double v; s >> v;) values.push_back(v);
    REQUIRE(s.eof());
    out[key] = values;
  }
  return out;
}

/// The studies one topic registers (`add` is its add_studies), built once.
template <void (*Add)(std::vector<StudyDef>&)>
const std::vector<StudyDef>& topic_studies() {
  static const auto all = [] {
    std::vector<StudyDef> s;
    Add(s);
    return s;
  }();
  return all;
}

/// The study named `name` among `all` (the test fails when there is none).
inline const StudyDef& find_study_in(const std::vector<StudyDef>& all, const std::string& name) {
  for (const auto& s : all)
    if (s.name == name) return s;
  FAIL("no study " << name);
  return all.front();
}

/// A study's declaration is complete: unique column names, every column and parameter documented,
/// a summary.
inline void check_declaration(const StudyDef& s) {
  INFO(s.name);
  CHECK_FALSE(s.summary.empty());
  std::vector<std::string> names;
  for (const auto& c : s.columns) {
    CHECK(std::count(names.begin(), names.end(), c.name) == 0);
    names.push_back(c.name);
    CHECK_FALSE(c.doc.empty());
  }
  std::vector<std::string> keys;
  for (const auto& p : s.params) {
    CHECK(std::count(keys.begin(), keys.end(), p.key) == 0);
    keys.push_back(p.key);
    CHECK_FALSE(p.doc.empty());
  }
}

/// The key of the InputError a one-point run of `s` on `toml` raises, or "(accepted)".
inline std::string rejected_key(const StudyDef& s, const std::string& toml) {
  try {
    (void)run_study_text(s, toml, McBudget{});
  } catch (const InputError& e) {
    return e.key();
  }
  return "(accepted)";
}

/// Runs the claims `register_fn` adds (those matching `pattern`) at the quick budget and checks that
/// each reaches its documented verdict, every control is rejected and a relevance is stated.
inline void check_documented_verdicts(void (*register_fn)(claims::Registry&), const std::string& pattern,
                                      const std::map<std::string, claims::Verdict>& expected) {
  claims::Registry reg;
  register_fn(reg);
  REQUIRE(reg.all().size() == expected.size());
  const auto r = claims::run_suite(reg.select(pattern), claims::CheckBudget{}, 0.01, kRegisteredClaims, false);
  REQUIRE(r.outcomes.size() == expected.size());
  for (const auto& o : r.outcomes) {
    std::cout << o.claim->id << " | " << claims::to_string(o.verdict) << " | " << o.reason << "\n";
    INFO(o.claim->id << ": " << o.reason << " | " << o.evidence.note);
    REQUIRE(expected.count(o.claim->id) == 1);
    CHECK(o.verdict == expected.at(o.claim->id));
    CHECK(o.control_rejected);
    CHECK_FALSE(std::isnan(o.relevance));
  }
}

}  // namespace moelab::test
