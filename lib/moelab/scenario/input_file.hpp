// Reading files a user names (a scenario, a matrix file given by a scenario key) without trusting
// them (hardening; docs/hardening.md, "Input").
#pragma once

#include <cstdint>
#include <string>

namespace moelab {

/// Reads a user-named input file whole, refusing what is not a regular file (a directory, a FIFO, a
/// device such as /dev/zero: found by stat, not open, so a FIFO never blocks) and files over
/// `max_bytes` (checked against the size and again while reading, so a file that grows or reports
/// no size is still cut off). `what` names the file's role in messages ("a scenario file"); `key`,
/// the option or scenario key that named it (empty for the scenario itself). Throws InputError.
std::string read_input_file(const std::string& path, std::uint64_t max_bytes, const std::string& what,
                            const std::string& key = "");

/// The largest scenario file load_scenario reads (a scenario is a few KB of TOML).
inline constexpr std::uint64_t kMaxScenarioBytes = std::uint64_t{16} << 20;

}  // namespace moelab
