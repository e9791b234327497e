// Every registered study's declaration is complete (what `moelab describe` prints and the runner
// validates with), and study names are unique.
#include <set>

#include <catch2/catch.hpp>

#include "moelab/catalogue/catalogue.hpp"
#include "topic_test_support.hpp"

TEST_CASE("every registered study has a complete declaration and a unique name", "[catalogue]") {
  std::set<std::string> names;
  for (const auto& s : moelab::catalogue::studies()) {
    CHECK(names.insert(s.name).second);
    moelab::test::check_declaration(s);
  }
  CHECK(names.size() >= 18);
}
