// The number of claims moelab's registered suite holds (catalogue::claims()). `moelab check` judges
// every test at alpha / this count, whichever claims run; a topic's tests, which build their own
// registry without the catalogue, judge at the same level by passing it as judge's `family`.
// tests/catalogue/suite_verdicts_test.cpp checks it against the catalogue.
#pragma once

#include <cstddef>

namespace moelab::test {
inline constexpr std::size_t kRegisteredClaims = 102;
}  // namespace moelab::test
