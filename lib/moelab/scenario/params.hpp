// Typed, validated access to the parameters of one scenario sweep point (a TOML table).
// Every getter that fails throws InputError naming the file, the line of the offending value (or of
// its table when the key is missing), the dotted key, and the reason. After a study has read what it
// needs, check_all_used() rejects any key nobody asked for ("unknown key"), so typos never pass
// silently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace moelab {

/// "a.b.c" -> {"a", "b", "c"} (a dotted parameter path; no quoting).
std::vector<std::string> split_dotted_key(const std::string& key);

/// An owned TOML node (toml++ keeps its own alias in toml::impl, which is not public API).
using toml_node_ptr = std::unique_ptr<toml::node>;

/// Deep copies that keep source positions. toml++ copies drop them (only moves keep them), which
/// would make error messages about a copied table (a sweep point) lose their line numbers.
toml_node_ptr clone_node(const toml::node& n);
/// Same, with the copied node placed at `where` (its children, if any, keep their own positions).
toml_node_ptr clone_node_at(const toml::node& n, const toml::source_region& where);
toml::table clone_table(const toml::table& t);

class ParamView {
 public:
  /// `table` is borrowed and must outlive the view; `file` is used in messages.
  ParamView(const toml::table& table, std::string file);

  const std::string& file() const { return file_; }
  bool has(const std::string& dotted_key) const;

  // Getters: the key is a dotted path ("model.sigma2"). Integers are accepted where doubles are
  // asked for; doubles are not accepted for integers. Each marks the key used.
  double get_double(const std::string& key) const;
  double get_double(const std::string& key, double fallback) const;
  std::int64_t get_int(const std::string& key) const;
  std::int64_t get_int(const std::string& key, std::int64_t fallback) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_string(const std::string& key) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  /// The value must be one of `choices`; the message lists them.
  std::string get_choice(const std::string& key, const std::vector<std::string>& choices,
                         const std::string& fallback) const;
  std::vector<double> get_double_array(const std::string& key) const;
  std::vector<std::int64_t> get_int_array(const std::string& key) const;
  /// Array of arrays of numbers (a matrix), row-major.
  std::vector<std::vector<double>> get_double_matrix(const std::string& key) const;

  // Domain-checked getters (the message states the domain and the value).
  double get_positive(const std::string& key) const;                    // > 0
  double get_positive(const std::string& key, double fallback) const;   // > 0
  double get_nonnegative(const std::string& key, double fallback) const;  // >= 0
  std::int64_t get_int_at_least(const std::string& key, std::int64_t min) const;
  std::int64_t get_int_at_least(const std::string& key, std::int64_t min, std::int64_t fallback) const;

  /// Throws InputError for `key` at its line with `reason` (for checks done by the caller).
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;
  /// Line of a key's value (or 0 when absent).
  int line_of(const std::string& key) const;

  /// Marks every key under `prefix` used (for sub-tables parsed elsewhere).
  void mark_used(const std::string& key) const;
  /// Throws InputError ("unknown key") for the first key, in file order, that no getter asked for.
  void check_all_used() const;
  /// Same, restricted to the keys under `prefix` (e.g. "monte_carlo").
  void check_all_used(const std::string& prefix) const;
  /// Throws InputError for entry `index` of the array at `key`, at that entry's line.
  [[noreturn]] void fail_entry(const std::string& key, std::size_t index, const std::string& reason) const;
  /// The node at a dotted key, or nullptr; throws InputError when a prefix of the key is not a table.
  const toml::node* find(const std::string& key) const;

 private:
  const toml::node& require(const std::string& key) const;  // marks used; "required key is missing"
  int line_for_error(const std::string& key) const;         // value line, else enclosing table line
  bool is_used(const std::string& key) const;
  const toml::table& table_;
  std::string file_;
  mutable std::set<std::string> used_;
};

}  // namespace moelab
