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
/// Throws RuntimeFailure when the directory is not writable.
void write_file_atomic(const std::string& path, const std::string& content);

/// Parses a CSV produced by CsvTable::to_string (metadata lines, header, rows of plain fields).
CsvTable parse_csv(const std::string& text);

}  // namespace moelab
