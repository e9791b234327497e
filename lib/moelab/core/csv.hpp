// Tidy CSV with '# key: value' metadata lines (DESIGN.md, Conventions: CSV). Doubles are printed in
// the shortest form that round-trips (fmt's default), integers exactly; no timestamps anywhere, so
// identical inputs give byte-identical files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace moelab {

using CsvCell = std::variant<double, std::int64_t, std::string>;

struct CsvTable {
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<std::string> columns;
  std::vector<std::vector<CsvCell>> rows;

  void add_metadata(std::string key, std::string value) { metadata.emplace_back(std::move(key), std::move(value)); }
  /// Appends a row; its length must equal the number of columns.
  void add_row(std::vector<CsvCell> row);
  std::string to_string() const;
};

/// Formats one cell: shortest round-trip double ("nan", "inf", "-inf" for non-finite values).
std::string format_cell(const CsvCell& cell);

/// Writes `content` to `path` through a temporary file in the same directory, flushed and renamed,
/// so that `path` is either its old content or the complete new one, never half-written.
/// Throws RuntimeFailure when the directory is not writable, Interrupted when a signal arrived
/// before the rename (the temporary is removed; `path` keeps its old content).
/// The temporary is `.<name>.tmp.<pid>.XXXXXX` beside `path`; ones left by a killed process (its
/// pid gone, or an older unnamed one over 10 minutes old) are removed by the next write or check.
/// `even_if_interrupted`: a checkpoint written in answer to the interrupt itself (the state a later
/// --resume continues from) lands even though a signal arrived; a further signal during the write
/// removes the temporary and the rename then fails as the interrupt it is.
void write_file_atomic(const std::string& path, const std::string& content, bool even_if_interrupted = false);

/// Why `path` cannot take an output file ("" when it can), checked before any work: not empty, not a
/// directory, not a device or other non-regular file, and its nearest existing ancestor directory is
/// writable (missing directories are created at write time). Removes stale temporaries beside it.
std::string output_path_problem(const std::string& path);

/// Removes moelab's stale temporaries of `path` (see write_file_atomic); returns how many.
int remove_stale_temporaries(const std::string& path);

/// Parses a CSV produced by CsvTable::to_string (metadata lines, header, rows of plain fields).
CsvTable parse_csv(const std::string& text);

}  // namespace moelab
