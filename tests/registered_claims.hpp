// The number of claims moelab's registered suite holds (catalogue::claims()). `moelab check` judges
// every test at alpha / this count, whichever claims run; a topic's tests, which build their own
// registry without the catalogue, judge at the same level by passing it as judge's `family`.
//
// It is read from the reviewed verdict table (lib/moelab/catalogue/documented_verdicts.txt, one row
// per registered claim, compiled in as documented_verdicts.inc), so adding a claim and regenerating
// the table moves it: there is no count to edit by hand. tests/catalogue/suite_verdicts_test.cpp pins
// it: the catalogue's registry must hold exactly this many claims, and exactly the table's ids.
#pragma once

#include <cstddef>
#include <string_view>

namespace moelab::test {

namespace detail {
inline constexpr std::string_view kDocumentedVerdicts =
#include "moelab/catalogue/documented_verdicts.inc"
    ;

/// The table's rows: its lines that are neither empty nor a '#' comment (as catalogue.cpp reads them).
constexpr std::size_t table_rows(std::string_view text) {
  std::size_t rows = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (!line.empty() && line.front() != '#') ++rows;
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return rows;
}
}  // namespace detail

inline constexpr std::size_t kRegisteredClaims = detail::table_rows(detail::kDocumentedVerdicts);

}  // namespace moelab::test
